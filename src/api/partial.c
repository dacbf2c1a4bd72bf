/* partial.c - partial results on disk and their merge (issue 15 Deliver 2): the header
 * (magic, version, kind, body length), the little-endian body writer and the bounds-checked
 * reader, the dispatch to each kind, and the scan kind (decode totals: sums of counters).
 * Not the op table's partial (partial_ops.c); not the CLI (cli/cmd_merge.c). The format is
 * in docs/internals/partial.md. */
#include "api/partial_int.h"
#include "core/alloc.h"
#include "core/err.h"
#include "model/model.h"
#include "render/scan.h"

#include <string.h>

/* "PQPART" then "\r\n": a file of text, a stray newline conversion or a partial of an
 * unrelated tool fails at the magic, before the version is read. */
static const uint8_t MAGIC[8] = {'P', 'Q', 'P', 'A', 'R', 'T', '\r', '\n'};
enum { HEADER_BYTES = 24 }; /* magic, u32 version, u32 kind, u64 body length */

/* ---- writer and reader ---- */

void pt_put_u64(buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    buf_put(b, x, 8);
}

void pt_put_f64(buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8); /* the exact bits: a merge must see what the map computed */
    pt_put_u64(b, u);
}

void pt_put_str(buf *b, pq_str s)
{
    pt_put_u64(b, s.n);
    if (s.n)
        buf_put(b, s.p, s.n);
}

void pt_fail(pt_reader *r, const char *problem, const char *what)
{
    if (r->status != PQ_OK)
        return;
    int64_t at = (int64_t)(r->header + (size_t)(r->p - r->base));
    r->status = err_set(r->err, PQ_ERR_INPUT, r->name, at, "%s: expected %s", problem, what);
}

uint64_t pt_get_u64(pt_reader *r, const char *what)
{
    if (r->status != PQ_OK)
        return 0;
    if (r->end - r->p < 8) {
        pt_fail(r, "truncated partial", what);
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    return v;
}

double pt_get_f64(pt_reader *r, const char *what)
{
    uint64_t u = pt_get_u64(r, what);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

pq_str pt_get_str(pt_reader *r, arena *a, const char *what)
{
    pq_str s = {"", 0};
    const uint8_t *at = r->p;
    uint64_t n = pt_get_u64(r, what);
    if (r->status != PQ_OK)
        return s;
    if (n > (uint64_t)(r->end - r->p)) {
        r->p = at;
        pt_fail(r, "truncated partial", what);
        return s;
    }
    char *c = arena_strndup(a, (const char *)r->p, (size_t)n);
    if (!c) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory reading a partial");
        return s;
    }
    r->p += n;
    s.p = c;
    s.n = (size_t)n;
    return s;
}

int pt_str_cmp(pq_str a, pq_str b)
{
    int c = a.n && b.n ? memcmp(a.p, b.p, a.n < b.n ? a.n : b.n) : 0;
    return c ? c : (a.n > b.n) - (a.n < b.n);
}

int pt_buf_write(void *ctx, const void *data, size_t n)
{
    buf *b = ctx;
    buf_put(b, data, n);
    return b->status != PQ_OK;
}

int pt_reserve(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 1;
    size_t c = *cap ? *cap * 2 : 8;
    void *p = pq_realloc(*v, c * size);
    if (!p)
        return 0;
    *v = p;
    *cap = c;
    return 1;
}

/* ---- the scan kind ---- */

typedef struct scan_body {
    uint64_t nsources;
    pq_scan_totals t;
} scan_body;

/* The counters of a scan body in file order; the checksum travels as its uint64 bits. */
#define SCAN_FIELDS(X, b)                                                                          \
    X(b->nsources, "sources")                                                                      \
    X(b->t.bytes, "bytes")                                                                         \
    X(b->t.planes, "planes")                                                                       \
    X(b->t.lines, "lines")                                                                         \
    X(b->t.events, "events")                                                                       \
    X(b->t.event_stats, "event_stats")                                                             \
    X(b->t.metadata_stats, "metadata_stats")                                                       \
    X(b->t.plane_stats, "plane_stats")                                                             \
    X(b->t.stats_by_kind[0], "stats_by_kind")                                                      \
    X(b->t.stats_by_kind[1], "stats_by_kind")                                                      \
    X(b->t.stats_by_kind[2], "stats_by_kind")                                                      \
    X(b->t.stats_by_kind[3], "stats_by_kind")                                                      \
    X(b->t.stats_by_kind[4], "stats_by_kind")                                                      \
    X(b->t.stats_by_kind[5], "stats_by_kind")                                                      \
    X(b->t.stats_by_kind[6], "stats_by_kind")

static void scan_write(const void *body, buf *b)
{
    const scan_body *s = body;
#define PUT(field, what) pt_put_u64(b, field);
    SCAN_FIELDS(PUT, s)
#undef PUT
    pt_put_u64(b, (uint64_t)s->t.checksum);
}

static void *scan_read(pt_reader *r)
{
    scan_body *s = pq_calloc(1, sizeof *s);
    if (!s) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory reading a partial");
        return NULL;
    }
#define GET(field, what) field = pt_get_u64(r, what);
    SCAN_FIELDS(GET, s)
#undef GET
    s->t.checksum = (int64_t)pt_get_u64(r, "checksum");
    if (r->status != PQ_OK) {
        pq_free(s);
        return NULL;
    }
    return s;
}

/* Every counter adds; the checksum wraps as the loader's does (api/open.c). */
static pq_status scan_merge(void *into, const void *from, pq_error *err)
{
    (void)err;
    scan_body *a = into;
    const scan_body *b = from;
    a->nsources += b->nsources;
    a->t.bytes += b->t.bytes;
    a->t.planes += b->t.planes;
    a->t.lines += b->t.lines;
    a->t.events += b->t.events;
    a->t.event_stats += b->t.event_stats;
    a->t.metadata_stats += b->t.metadata_stats;
    a->t.plane_stats += b->t.plane_stats;
    for (int k = 0; k < 7; k++)
        a->t.stats_by_kind[k] += b->t.stats_by_kind[k];
    a->t.checksum = (int64_t)((uint64_t)a->t.checksum + (uint64_t)b->t.checksum);
    return PQ_OK;
}

static pq_status scan_render(const void *body, const pq_ops_options *opts, pq_output fmt,
                             pq_sink *sink, pq_error *err)
{
    (void)opts;
    const scan_body *s = body;
    return render_scan_counts((size_t)s->nsources, &s->t, fmt, sink, err);
}

static const pt_kind KIND_SCAN = {PQ_PARTIAL_SCAN, "scan",      scan_write, scan_read,
                                  scan_merge,      scan_render, pq_free};

static const pt_kind *const KINDS[] = {
    &KIND_SCAN,      &pt_kind_ops,       &pt_kind_roofline, &pt_kind_info, &pt_kind_memory_profile,
    &pt_kind_memory, &pt_kind_summarize, &pt_kind_nsys};

static const pt_kind *kind_of(uint64_t kind)
{
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if ((uint64_t)KINDS[i]->kind == kind)
            return KINDS[i];
    return NULL;
}

pq_status pq_partial_scan(const pq_profile *profile, const pq_scan_totals *totals, pq_partial **out,
                          pq_error *err)
{
    *out = NULL;
    scan_body *s = pq_calloc(1, sizeof *s);
    RETURN_ERROR_IF(!s, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    s->nsources = profile->nsources;
    s->t = *totals;
    return pt_new(&KIND_SCAN, s, out, err);
}

/* ---- the handle ---- */

pq_status pt_new(const pt_kind *k, void *body, pq_partial **out, pq_error *err)
{
    *out = pq_calloc(1, sizeof **out);
    if (!*out) {
        k->free(body);
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    (*out)->k = k;
    (*out)->body = body;
    return PQ_OK;
}

const char *pq_partial_kind_name(pq_partial_kind kind)
{
    const pt_kind *k = kind_of((uint64_t)kind);
    return k ? k->name : NULL;
}

pq_partial_kind pq_partial_kind_of(const pq_partial *partial)
{
    return partial->k->kind;
}

pq_status pq_partial_write(const pq_partial *partial, pq_sink *sink, pq_error *err)
{
    buf body;
    buf_init(&body, NULL); /* whole, for its length in the header */
    partial->k->write(partial->body, &body);
    buf b;
    buf_init(&b, sink);
    buf_put(&b, MAGIC, sizeof MAGIC);
    uint8_t vk[8];
    for (int i = 0; i < 4; i++) {
        vk[i] = (uint8_t)((uint32_t)PQ_PARTIAL_VERSION >> (8 * i));
        vk[4 + i] = (uint8_t)((uint32_t)partial->k->kind >> (8 * i));
    }
    buf_put(&b, vk, 8);
    pt_put_u64(&b, body.n);
    if (body.status != PQ_OK && b.status == PQ_OK)
        b.status = body.status;
    buf_put(&b, body.p, body.n);
    buf_release(&body);
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (st != PQ_OK)
        err_set(err, st, NULL, -1,
                st == PQ_ERR_NOMEM ? "out of memory" : "cannot write the partial");
    return st;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

pq_status pq_partial_read(const void *data, size_t n, const char *name, pq_partial **out,
                          pq_error *err)
{
    *out = NULL;
    const uint8_t *d = data;
    RETURN_ERROR_IF(n < sizeof MAGIC || memcmp(d, MAGIC, sizeof MAGIC) != 0, err, PQ_ERR_INPUT,
                    name, 0, "not a profq partial: expected the magic \"PQPART\\r\\n\"");
    RETURN_ERROR_IF(n < HEADER_BYTES, err, PQ_ERR_INPUT, name, (int64_t)n,
                    "truncated partial: expected a %d-byte header", HEADER_BYTES);
    uint32_t version = le32(d + 8), kind = le32(d + 12);
    RETURN_ERROR_IF(version != PQ_PARTIAL_VERSION, err, PQ_ERR_INPUT, name, 8,
                    "partial version %u: expected version %d (written by another profq)",
                    (unsigned)version, PQ_PARTIAL_VERSION);
    const pt_kind *k = kind_of(kind);
    RETURN_ERROR_IF(!k, err, PQ_ERR_INPUT, name, 12, "unknown partial kind %u", (unsigned)kind);
    uint64_t len = 0;
    for (int i = 0; i < 8; i++)
        len |= (uint64_t)d[16 + i] << (8 * i);
    uint64_t have = n - HEADER_BYTES;
    RETURN_ERROR_IF(len > have, err, PQ_ERR_INPUT, name, (int64_t)n,
                    "truncated partial: expected %llu body bytes, found %llu",
                    (unsigned long long)len, (unsigned long long)have);
    RETURN_ERROR_IF(len < have, err, PQ_ERR_INPUT, name, (int64_t)(HEADER_BYTES + len),
                    "expected the end of the partial (%llu bytes of body), found more",
                    (unsigned long long)len);
    pt_reader r = {d + HEADER_BYTES, d + HEADER_BYTES, d + n, HEADER_BYTES, name, err, PQ_OK};
    void *body = k->read(&r);
    if (!body)
        return r.status;
    if (r.p != r.end) {
        pt_fail(&r, "malformed partial", "the body to end here");
        k->free(body);
        return r.status;
    }
    return pt_new(k, body, out, err);
}

pq_status pq_partial_merge(pq_partial *into, const pq_partial *from, pq_error *err)
{
    RETURN_ERROR_IF(into->k != from->k, err, PQ_ERR_INPUT, NULL, -1,
                    "cannot merge a %s partial into a %s partial", from->k->name, into->k->name);
    return into->k->merge(into->body, from->body, err);
}

pq_status pq_partial_render(const pq_partial *partial, const pq_ops_options *opts, pq_output fmt,
                            pq_sink *sink, pq_error *err)
{
    return partial->k->render(partial->body, opts, fmt, sink, err);
}

void pq_partial_free(pq_partial *partial)
{
    if (!partial)
        return;
    partial->k->free(partial->body);
    pq_free(partial);
}
