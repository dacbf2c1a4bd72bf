/* xplane.c - the XSpace (*.xplane.pb) reader: validates every byte of the structure and
 * fills the model's planes, lines, metadata tables, plane stats and program index.
 *
 * Not decoded here: HloProto bytes (located only; formats/hlo decodes them on demand)
 * and event contents beyond what info needs (events stay as validated spans; see
 * model.h). Field numbers: spec/xprof-tools.md section 1. A known field with an
 * unexpected wire type is skipped as unknown, as the protobuf runtimes do.
 *
 * Long because: the whole reader is one translation unit compiled twice (below), so that
 * its hot path keeps its BMI2 varints; the XLA stats capture's line decoder copy
 * (read_line_fast_xla) and its pass over the lines live here for the same reason.
 */
/*
 * This file is compiled twice: as itself (the portable build, plus the dispatcher at the
 * end) and through xplane_bmi2.c for x86-64 CPUs with BMI2, where pbwire's varints use
 * PEXT. XPLANE_READ_NAME names the entry point of each build.
 */
#ifndef XPLANE_READ_NAME
#define XPLANE_READ_NAME xplane_read_generic
#define XPLANE_DISPATCH  1
#endif

#include "xplane.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/sort.h"
#include "pbwire.h"
#include "xplane_walk.h"
#include "xplane_xla.h" /* after pbwire.h: see xplane_xla.h */

#include <stdlib.h>
#include <string.h>

typedef struct reader {
    pq_source *src;
    pq_error *err;
    const uint8_t *base;
    pq_scan_totals *scan; /* not NULL: decode and count every stat value in the same pass */
    int skip_host_lines;  /* the lines of /host:CPU are not read (tpu_skip_host_lines) */
    int device_planes;    /* a TPU or GPU plane is there: host threads hold no op to capture */
} reader;

static pq_status fail_at(reader *r, const pb_cursor *c, const char *where)
{
    return err_set(r->err, PQ_ERR_INPUT, r->src->path, pb_error_offset(c), "expected %s in %s",
                   c->err ? c->err : "a well-formed message", where);
}

static pq_status fail_msg(reader *r, const uint8_t *at, const char *what)
{
    return err_set(r->err, PQ_ERR_INPUT, r->src->path, (int64_t)(at - r->base), "expected %s",
                   what);
}

static pq_status nomem(reader *r)
{
    return err_set(r->err, PQ_ERR_NOMEM, r->src->path, -1, "out of memory");
}

static inline pq_str span_str(const pb_field *f)
{
    return pq_str_of((const char *)f->data, f->len);
}

/* Validates an XStat body; counts it. Stats carry no nested messages we descend into. */
static inline int validate_stat(pb_cursor *parent, const pb_field *f)
{
    pb_cursor c;
    pb_init(&c, f->data, f->len, parent->base);
    pb_field g = {0};
    int k;
    while ((k = pb_next(&c, &g)) == PB_FIELD) {
    }
    if (k == PB_ERROR) {
        parent->err_at = c.err_at;
        parent->err = c.err;
        return 0;
    }
    return 1;
}

/* One XStat of an event on the fast path: checked, and folded into the scan when there
 * is one. Returns 0 when malformed. */
static XP_ALWAYS_INLINE int line_stat(const xp_plane *pl, const uint8_t *p, size_t n,
                                      pq_scan_totals *scan, uint64_t *sum, uint64_t kinds[7])
{
    if (!scan)
        return xp_check_stat(p, n);
    stat_value sv = {0}; /* decoding checks a stat as well as validating would */
    if (!xp_decode_stat(p, n, &sv))
        return 0;
    if (scan) {
        kinds[sv.kind]++;
        *sum += scan_stat_sum(pl, &sv);
    }
    return 1;
}

/*
 * The fast path of read_line: the same decode on pb_fast_* (no error details). Returns 1
 * when the whole line is well-formed; 0 sends the caller to the slow path for the error.
 */
/* The time span of a line with events: first_ps and end_ps from its timestamp and the
 * smallest event offset and largest event end, and the timestamp in ps. 0 on overflow. */
static inline int line_span(xp_line *line, int64_t min_off, int64_t max_end, int64_t *base_ps)
{
    return !__builtin_mul_overflow(line->timestamp_ns, (int64_t)1000, base_ps) &&
           !__builtin_add_overflow(*base_ps, min_off, &line->first_ps) &&
           !__builtin_add_overflow(*base_ps, max_end, &line->end_ps);
}

/* The fast line decoder's body, inlined into read_line_fast and read_line_fast_xla. Long
 * because: the hot loop of every XSpace load (one XEvent and its stats), kept in one piece
 * so that each copy inlines it whole. */
static XP_ALWAYS_INLINE int read_line_body(const pb_field *lf, xp_line *line, const xp_plane *pl,
                                           pq_scan_totals *scan, xla_capture *xla)
{
    uint64_t sum_ps = 0; /* scan checksum: offsets, durations and stats, wrapping */
    uint64_t kinds[7] = {0};
    const uint8_t *p = lf->data, *end = lf->data + lf->len;
    int64_t min_off = INT64_MAX, max_end = INT64_MIN;
    uint64_t nevents = 0, nstats = 0, v = 0;
    while (p < end) {
        uint32_t tag;
        p = pb_fast_tag(p, end, &tag);
        if (!p)
            return 0;
        if (PB_LIKELY(tag == ((4 << 3) | PB_LEN))) {
            p = pb_fast_varint(p, end, &v);
            if (!p || v > (uint64_t)(end - p))
                return 0;
            const uint8_t *e = p, *eend = p + v, *ebody = p;
            p = eend;
            int64_t off = 0, dur = 0, mid = 0; /* mid: only the capture reads it */
            /* Writers emit metadata_id, offset_ps, duration_ps, then the stats: take that
             * prefix straight, then loop over whatever follows in any order. */
            if (PB_LIKELY(e < eend && *e == ((1 << 3) | PB_VARINT))) {
                if (!(e = pb_fast_varint(e + 1, eend, &v)))
                    return 0;
                mid = (int64_t)v;
                if (PB_LIKELY(e < eend && *e == ((2 << 3) | PB_VARINT))) {
                    if (!(e = pb_fast_varint(e + 1, eend, &v)))
                        return 0;
                    off = (int64_t)v;
                }
                if (PB_LIKELY(e < eend && *e == ((3 << 3) | PB_VARINT))) {
                    if (!(e = pb_fast_varint(e + 1, eend, &v)))
                        return 0;
                    dur = (int64_t)v;
                }
            }
            while (e < eend) {
                uint32_t t;
                /* The stats: a one-byte tag and, for stats under 128 bytes, a one-byte
                 * length. */
                if (PB_LIKELY(*e == ((4 << 3) | PB_LEN) && e + 1 < eend && e[1] < 0x80)) {
                    size_t n = e[1];
                    e += 2;
                    if (PB_UNLIKELY(n > (size_t)(eend - e)) ||
                        !line_stat(pl, e, n, scan, &sum_ps, kinds))
                        return 0;
                    e += n;
                    nstats++;
                    continue;
                }
                e = pb_fast_tag(e, eend, &t);
                if (!e)
                    return 0;
                switch (t) {
                case (1 << 3) | PB_VARINT:
                    e = pb_fast_varint(e, eend, &v);
                    mid = (int64_t)v;
                    break;
                case (2 << 3) | PB_VARINT:
                    e = pb_fast_varint(e, eend, &v);
                    off = (int64_t)v;
                    break;
                case (3 << 3) | PB_VARINT:
                    e = pb_fast_varint(e, eend, &v);
                    dur = (int64_t)v;
                    break;
                case (4 << 3) | PB_LEN: {
                    e = pb_fast_varint(e, eend, &v);
                    if (!e || v > (uint64_t)(eend - e) ||
                        !line_stat(pl, e, (size_t)v, scan, &sum_ps, kinds))
                        return 0;
                    e += v;
                    nstats++;
                    break;
                }
                default:
                    e = pb_fast_skip(e, eend, t & 7);
                    break;
                }
                if (!e)
                    return 0;
            }
            int64_t evend;
            if (__builtin_add_overflow(off, dur, &evend))
                return 0;
            if (off < min_off)
                min_off = off;
            if (evend > max_end)
                max_end = evend;
            sum_ps += (uint64_t)off + (uint64_t)dur;
            if (PB_UNLIKELY(xla != NULL)) /* a GPU or host-thread plane with hlo_op stats */
                xla_capture_event(xla, mid, ebody, (size_t)(eend - ebody), nevents);
            nevents++;
            continue;
        }
        switch (tag) {
        case (1 << 3) | PB_VARINT:
            p = pb_fast_varint(p, end, &v);
            line->id = (int64_t)v;
            break;
        case (3 << 3) | PB_VARINT:
            p = pb_fast_varint(p, end, &v);
            line->timestamp_ns = (int64_t)v;
            break;
        case (9 << 3) | PB_VARINT:
            p = pb_fast_varint(p, end, &v);
            line->duration_ps = (int64_t)v;
            break;
        case (10 << 3) | PB_VARINT:
            p = pb_fast_varint(p, end, &v);
            line->display_id = (int64_t)v;
            break;
        case (2 << 3) | PB_LEN:
        case (11 << 3) | PB_LEN: {
            const uint8_t *q = pb_fast_varint(p, end, &v);
            if (!q || v > (uint64_t)(end - q))
                return 0;
            pq_str sv = pq_str_of((const char *)q, (size_t)v);
            if (tag == ((2 << 3) | PB_LEN))
                line->name = sv;
            else
                line->display_name = sv;
            p = q + v;
            break;
        }
        default:
            p = pb_fast_skip(p, end, tag & 7);
            break;
        }
        if (!p)
            return 0;
    }
    line->body = lf->data;
    line->body_len = lf->len;
    line->events = nevents;
    line->event_stats = nstats;
    if (nevents) {
        int64_t base_ps;
        if (!line_span(line, min_off, max_end, &base_ps))
            return 0;
        if (scan) {
            scan->events += nevents;
            scan->event_stats += nstats;
            scan->checksum =
                (int64_t)((uint64_t)scan->checksum + sum_ps + nevents * (uint64_t)base_ps);
            for (int k = 0; k < 7; k++)
                scan->stats_by_kind[k] += kinds[k];
        }
    }
    if (scan)
        scan->lines++;
    return 1;
}

/* The fast path as it was before XLA stats were captured: the body without a capture, so
 * that the reading of every other plane does not pay for it. */
static int read_line_fast(const pb_field *lf, xp_line *line, const xp_plane *pl,
                          pq_scan_totals *scan)
{
    return read_line_body(lf, line, pl, scan, NULL);
}

/* The fast path of a GPU or host-thread plane with hlo_op stats: each event's XLA stats
 * captured into XLA on the way (formats/xplane_xla.c). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
read_line_fast_xla(const pb_field *lf, xp_line *line, const xp_plane *pl, pq_scan_totals *scan,
                   xla_capture *xla)
{
    return read_line_body(lf, line, pl, scan, xla);
}

/* Decodes one XLine with full error reporting (the slow path; see read_line_fast). */
static pq_status read_line_slow(reader *r, const pb_field *lf, xp_line *line)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, lf->data, lf->len, r->base);
    line->body = lf->data;
    line->body_len = lf->len;
    int64_t min_off = INT64_MAX, max_end = INT64_MIN;
    uint64_t nevents = 0, nstats = 0;
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        switch (f.num) {
        case 4: {
            if (f.wire != PB_LEN)
                break;
            /* The hot loop: one XEvent. */
            pb_cursor e;
            pb_field g = {0};
            int ke;
            int64_t off = 0, dur = 0;
            pb_init(&e, f.data, f.len, r->base);
            while ((ke = pb_next(&e, &g)) == PB_FIELD) {
                if (g.num == 4 && g.wire == PB_LEN) {
                    if (!validate_stat(&e, &g))
                        return fail_at(r, &e, "an XStat of an XEvent");
                    nstats++;
                } else if (g.wire == PB_VARINT) {
                    if (g.num == 2)
                        off = (int64_t)g.u;
                    else if (g.num == 3)
                        dur = (int64_t)g.u;
                }
            }
            if (ke == PB_ERROR)
                return fail_at(r, &e, "an XEvent");
            int64_t end;
            if (__builtin_add_overflow(off, dur, &end))
                return fail_msg(r, f.data, "an XEvent whose offset_ps + duration_ps fits in int64");
            if (off < min_off)
                min_off = off;
            if (end > max_end)
                max_end = end;
            nevents++;
            break;
        }
        case 1:
            if (f.wire == PB_VARINT)
                line->id = (int64_t)f.u;
            break;
        case 2:
            if (f.wire == PB_LEN)
                line->name = span_str(&f);
            break;
        case 3:
            if (f.wire == PB_VARINT)
                line->timestamp_ns = (int64_t)f.u;
            break;
        case 9:
            if (f.wire == PB_VARINT)
                line->duration_ps = (int64_t)f.u;
            break;
        case 10:
            if (f.wire == PB_VARINT)
                line->display_id = (int64_t)f.u;
            break;
        case 11:
            if (f.wire == PB_LEN)
                line->display_name = span_str(&f);
            break;
        default:
            break;
        }
    }
    if (k == PB_ERROR)
        return fail_at(r, &c, "an XLine");
    line->events = nevents;
    line->event_stats = nstats;
    if (nevents) {
        int64_t base_ps;
        if (!line_span(line, min_off, max_end, &base_ps))
            return fail_msg(r, lf->data,
                            "an XLine whose timestamp_ns*1000 + event offsets fit in int64 ps");
    }
    return PQ_OK;
}

/* Decodes one XLine; events are validated, counted and their time span taken; with XLA,
 * their XLA stats captured (formats/xplane_xla.c). */
static pq_status read_line(reader *r, const pb_field *lf, xp_line *line, const xp_plane *pl,
                           xla_capture *xla)
{
    if (PB_LIKELY(!xla)) {
        if (PB_LIKELY(read_line_fast(lf, line, pl, r->scan)))
            return PQ_OK;
    } else if (read_line_fast_xla(lf, line, pl, r->scan, xla)) {
        return xla_capture_line(xla, line) ? PQ_OK : nomem(r);
    }
    memset(line, 0, sizeof *line);
    pq_status st = read_line_slow(r, lf, line);
    RETURN_ERROR_IF(st == PQ_OK, r->err, PQ_ERR_INTERNAL, r->src->path,
                    (int64_t)(lf->data - r->base),
                    "internal error: the fast and slow XLine decoders disagree");
    return st;
}

/* Decodes an XEventMetadata (the value of an event_metadata map entry). */
static pq_status read_event_meta(reader *r, const pb_field *vf, xp_event_meta *m)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, vf->data, vf->len, r->base);
    m->body = vf->data;
    m->body_len = vf->len;
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        switch (f.num) {
        case 2:
            if (f.wire == PB_LEN)
                m->name = span_str(&f);
            break;
        case 3:
            if (f.wire == PB_LEN)
                m->metadata = span_str(&f);
            break;
        case 4:
            if (f.wire == PB_LEN)
                m->display_name = span_str(&f);
            break;
        case 5:
            if (f.wire == PB_LEN) {
                if (!validate_stat(&c, &f))
                    return fail_at(r, &c, "an XStat of an XEventMetadata");
                m->nstats++;
            }
            break;
        case 6: {
            if (f.wire != PB_VARINT && f.wire != PB_LEN)
                break; /* a known field with another wire type is skipped (file comment) */
            int64_t n = pb_repeated_count(&f, PB_VARINT, r->base);
            if (n < 0) {
                pb_cursor bad;
                pb_init(&bad, c.p, 0, r->base); /* f.data is NULL for a non-LEN field */
                bad.err_at = f.wire == PB_LEN ? f.data : c.p;
                bad.err = "a packed or unpacked varint list";
                return fail_at(r, &bad, "XEventMetadata.child_id");
            }
            m->nchildren += (uint32_t)n;
            break;
        }
        default:
            break;
        }
    }
    if (k == PB_ERROR)
        return fail_at(r, &c, "an XEventMetadata");
    return PQ_OK;
}

static pq_status read_stat_meta(reader *r, const pb_field *vf, xp_stat_meta *m)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, vf->data, vf->len, r->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        if (f.num == 2)
            m->name = span_str(&f);
        else if (f.num == 3)
            m->description = span_str(&f);
    }
    if (k == PB_ERROR)
        return fail_at(r, &c, "an XStatMetadata");
    return PQ_OK;
}

/* Reads a map entry {key = 1 (varint), value = 2 (message)}; missing parts are defaults. */
static pq_status read_map_entry(reader *r, const pb_field *ef, int64_t *key, pb_field *value)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    *key = 0;
    memset(value, 0, sizeof *value);
    value->data = ef->data; /* empty span at a valid address */
    pb_init(&c, ef->data, ef->len, r->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.num == 1 && f.wire == PB_VARINT)
            *key = (int64_t)f.u;
        else if (f.num == 2 && f.wire == PB_LEN)
            *value = f;
    }
    if (k == PB_ERROR)
        return fail_at(r, &c, "a map entry of XPlane metadata");
    return PQ_OK;
}

/* Sort helpers: by id, then by file order, so that the last duplicate can win. */
typedef struct id_order {
    int64_t id;
    uint32_t order;
} id_order;

/* A table from id to array index for ITEMS (sorted, unique, each starting with an int64
 * id, STRIDE bytes apart) when the ids are small and dense (the usual 1..N); else NULL. */
/* One entry of an XPlane's event_metadata (field 4) or stat_metadata (field 5) map, its key
 * as the id. */
static pq_status read_meta_entry(reader *r, const pb_field *f, xp_plane *pl)
{
    int64_t key;
    pb_field v;
    FORWARD_IF_ERROR(read_map_entry(r, f, &key, &v));
    if (f->num == 4) {
        xp_event_meta *m = &pl->emeta[pl->nemeta++];
        FORWARD_IF_ERROR(read_event_meta(r, &v, m));
        m->id = key;
    } else {
        xp_stat_meta *m = &pl->smeta[pl->nsmeta++];
        FORWARD_IF_ERROR(read_stat_meta(r, &v, m));
        m->id = key;
    }
    return PQ_OK;
}

static uint32_t *dense_index(arena *a, const void *items, uint32_t n, size_t stride,
                             int64_t *table_n)
{
    int64_t first, last;
    *table_n = 0;
    if (!n)
        return NULL;
    memcpy(&first, items, sizeof first);
    memcpy(&last, (const unsigned char *)items + (size_t)(n - 1) * stride, sizeof last);
    if (first < 0 || last >= 2 * (int64_t)n + 1024)
        return NULL;
    uint32_t *d = arena_alloc(a, (size_t)(last + 1) * sizeof *d);
    if (!d)
        return NULL;
    memset(d, 0xFF, (size_t)(last + 1) * sizeof *d);
    for (uint32_t i = 0; i < n; i++) {
        int64_t id;
        memcpy(&id, (const unsigned char *)items + (size_t)i * stride, sizeof id);
        d[id] = i;
    }
    *table_n = last + 1;
    return d;
}

/* By id alone: the sort is stable, so equal ids stay in file order. */
static int cmp_id(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const id_order *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Reorders ITEMS (N of SIZE bytes, each starting with an int64 id) by id; among equal ids
 * the last in file order wins (proto map semantics). Returns the new count. */
static uint32_t sort_unique_by_id(void *items, uint32_t n, size_t size, int *ok)
{
    if (n < 2)
        return n;
    /* Writers usually emit maps in ascending key order: then there is nothing to do. */
    int64_t prev, id;
    memcpy(&prev, items, sizeof prev);
    uint32_t i = 1;
    for (; i < n; i++) {
        memcpy(&id, (unsigned char *)items + (size_t)i * size, sizeof id);
        if (id <= prev)
            break;
        prev = id;
    }
    if (i == n)
        return n;
    id_order *ord = pq_malloc_array((size_t)n * 2, sizeof *ord); /* the second half: scratch */
    unsigned char *copy = pq_malloc_array((size_t)n, size);
    if (!ord || !copy) {
        pq_free(ord);
        pq_free(copy);
        *ok = 0;
        return 0;
    }
    memcpy(copy, items, (size_t)n * size);
    for (i = 0; i < n; i++) {
        memcpy(&ord[i].id, copy + (size_t)i * size, sizeof(int64_t));
        ord[i].order = i;
    }
    pq_sort_inline(ord, ord + n, n, sizeof *ord, cmp_id, NULL);
    uint32_t out = 0;
    for (i = 0; i < n; i++) {
        if (i + 1 < n && ord[i + 1].id == ord[i].id)
            continue; /* a later entry with the same key wins */
        memcpy((unsigned char *)items + (size_t)out * size, copy + (size_t)ord[i].order * size,
               size);
        out++;
    }
    pq_free(ord);
    pq_free(copy);
    return out;
}

/* Pass 3 of read_plane: its lines (none of the host threads' when skipped: their framing
 * was checked by pass 1), with the XLA stats of a GPU or host-thread plane's events
 * captured on the way (formats/xplane_xla.c). Apart from read_plane, so that the capture's
 * state stays out of the metadata passes. */
static pq_status read_plane_lines(reader *r, const pb_field *pf, xp_plane *pl)
{
    pb_cursor c;
    pb_field f = {0};
    int k = PB_END;
    int skip_lines = r->skip_host_lines && device_kind_of_plane(pl->name) == DEV_HOST_THREADS;
    /* scan reads no op: it captures no XLA stats */
    xla_capture cap;
    int threads = !r->device_planes && !r->src->skip_thunk_ops;
    xla_capture *xla =
        !r->scan && !skip_lines && xla_capture_begin(&cap, r->src, pl, threads) ? &cap : NULL;
    pq_status st = PQ_OK;
    pb_init(&c, pf->data, skip_lines ? 0 : pf->len, r->base);
    while (st == PQ_OK && (k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.num != 3 || f.wire != PB_LEN)
            continue;
        xp_line *line = &pl->lines[pl->nlines++];
        st = read_line(r, &f, line, pl, xla);
        pl->events += line->events;
        pl->event_stats += line->event_stats;
    }
    if (xla && !xla_capture_end(xla) && st == PQ_OK)
        st = nomem(r);
    FORWARD_IF_ERROR(st);
    if (k == PB_ERROR)
        return fail_at(r, &c, "an XPlane");
    return PQ_OK;
}

static pq_status read_plane(reader *r, const pb_field *pf, xp_plane *pl)
{
    arena *a = &r->src->mem;
    pb_cursor c;
    pb_field f = {0};
    int k;
    uint32_t nlines = 0, nemeta = 0, nsmeta = 0, nstats = 0;

    /* Pass 1: count repeated fields so arrays are allocated once. */
    pb_init(&c, pf->data, pf->len, r->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        if (f.num == 3)
            nlines++;
        else if (f.num == 4)
            nemeta++;
        else if (f.num == 5)
            nsmeta++;
        else if (f.num == 6)
            nstats++;
    }
    if (k == PB_ERROR)
        return fail_at(r, &c, "an XPlane");
    pl->lines = arena_alloc(a, (nlines ? nlines : 1) * sizeof *pl->lines);
    pl->emeta = arena_alloc(a, (nemeta ? nemeta : 1) * sizeof *pl->emeta);
    pl->smeta = arena_alloc(a, (nsmeta ? nsmeta : 1) * sizeof *pl->smeta);
    pl->stats = arena_alloc(a, (nstats ? nstats : 1) * sizeof *pl->stats);
    if (arena_failed(a))
        return nomem(r);

    /* Pass 2: everything but the lines, so that names resolve while lines decode. */
    pb_init(&c, pf->data, pf->len, r->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        switch (f.num) {
        case 1:
            if (f.wire == PB_VARINT)
                pl->id = (int64_t)f.u;
            break;
        case 2:
            if (f.wire == PB_LEN)
                pl->name = span_str(&f);
            break;
        case 4:
        case 5:
            if (f.wire == PB_LEN)
                FORWARD_IF_ERROR(read_meta_entry(r, &f, pl));
            break;
        case 6:
            if (f.wire == PB_LEN) {
                if (!validate_stat(&c, &f))
                    return fail_at(r, &c, "an XStat of an XPlane");
                xp_decode_stat(f.data, f.len, &pl->stats[pl->nstats++]);
            }
            break;
        default:
            break;
        }
    }
    if (k == PB_ERROR)
        return fail_at(r, &c, "an XPlane");

    int ok = 1;
    pl->nemeta = sort_unique_by_id(pl->emeta, pl->nemeta, sizeof *pl->emeta, &ok);
    pl->nsmeta = sort_unique_by_id(pl->smeta, pl->nsmeta, sizeof *pl->smeta, &ok);
    if (!ok)
        return nomem(r);
    /* Counted after de-duplication: a map entry overridden by a later one has no stats. */
    for (uint32_t i = 0; i < pl->nemeta; i++)
        pl->metadata_stats += pl->emeta[i].nstats;
    pl->smeta_dense = dense_index(a, pl->smeta, pl->nsmeta, sizeof *pl->smeta, &pl->smeta_dense_n);
    if (pl->smeta_dense) {
        /* The scan folds every stat's name length into its checksum: one load per stat. */
        pl->smeta_name_len = arena_alloc(a, (size_t)pl->smeta_dense_n * sizeof(uint32_t));
        for (int64_t id = 0; pl->smeta_name_len && id < pl->smeta_dense_n; id++) {
            uint32_t at = pl->smeta_dense[id];
            size_t len = at == UINT32_MAX ? 0 : pl->smeta[at].name.n;
            pl->smeta_name_len[id] = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
        }
    }
    pl->emeta_dense = dense_index(a, pl->emeta, pl->nemeta, sizeof *pl->emeta, &pl->emeta_dense_n);
    if (arena_failed(a))
        return nomem(r);

    if (r->scan) {
        pq_scan_totals *t = r->scan;
        t->planes++;
        for (uint32_t i = 0; i < pl->nstats; i++)
            scan_add_stat(pl, &pl->stats[i], t);
        t->plane_stats += pl->nstats;
        for (uint32_t i = 0; i < pl->nemeta; i++) {
            xp_stat_iter it;
            stat_value sv = {0};
            xp_stats_begin(&it, pl->emeta[i].body, pl->emeta[i].body_len, 5);
            while (xp_stats_next(&it, &sv)) {
                scan_add_stat(pl, &sv, t);
                t->metadata_stats++;
            }
        }
    }

    /* Pass 3: the lines, where the events are (none of the host threads' when skipped: their
     * framing was checked by pass 1). */
    FORWARD_IF_ERROR(read_plane_lines(r, pf, pl));
    pl->kind = device_kind_of_plane(pl->name);
    return PQ_OK;
}

/* Parses a trailing "(digits)" of NAME; returns 1 and the number when present and it fits
 * in uint64 (program ids are uint64: TPU runs use all 20 digits, e.g. "jit_f(1219...885)"). */
static int name_program_suffix(pq_str name, uint64_t *id, size_t *stem_len)
{
    if (name.n < 3 || name.p[name.n - 1] != ')')
        return 0;
    size_t i = name.n - 1;
    while (i > 0 && name.p[i - 1] >= '0' && name.p[i - 1] <= '9')
        i--;
    size_t first = i, end = name.n - 1;
    if (first == end || i == 0 || name.p[i - 1] != '(')
        return 0;
    uint64_t v = 0;
    for (size_t k = first; k < end; k++) {
        if (__builtin_mul_overflow(v, (uint64_t)10, &v) ||
            __builtin_add_overflow(v, (uint64_t)(name.p[k] - '0'), &v))
            return 0;
    }
    *id = v;
    *stem_len = i - 1;
    return 1;
}

/* Programs by id, then by metadata id order: qsort is not stable, so the order that makes
 * the first program win a collision is part of the key. */
typedef struct program_order {
    uint64_t program_id;
    uint32_t order;
} program_order;

static int cmp_program_order(const void *a, const void *b)
{
    const program_order *x = a, *y = b;
    if (x->program_id != y->program_id)
        return x->program_id < y->program_id ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Locates the HloProtos on /host:metadata (spec/xprof-tools.md 1.4) without decoding them. */
static pq_status locate_programs(reader *r, const xp_plane *pl)
{
    pq_source *src = r->src;
    const xp_stat_meta *hlo_new = xp_stat_meta_by_name(pl, "Hlo Proto");
    const xp_stat_meta *hlo_old = xp_stat_meta_by_name(pl, "HLO Proto");
    const xp_stat_meta *pid = xp_stat_meta_by_name(pl, "program_id");
    if (!hlo_new && !hlo_old)
        return PQ_OK;
    pq_program *progs = arena_alloc(&src->mem, (pl->nemeta ? pl->nemeta : 1) * sizeof *progs);
    if (!progs)
        return nomem(r);
    uint32_t n = 0;
    for (uint32_t i = 0; i < pl->nemeta; i++) {
        const xp_event_meta *m = &pl->emeta[i];
        xp_stat_iter it;
        stat_value s = {0};
        const uint8_t *hlo = NULL;
        size_t hlo_len = 0;
        int legacy = 0, have_pid = 0;
        uint64_t program_id = 0;
        xp_stats_begin(&it, m->body, m->body_len, 5);
        while (xp_stats_next(&it, &s)) {
            if (s.kind == STAT_BYTES && ((hlo_new && s.metadata_id == hlo_new->id) ||
                                         (hlo_old && s.metadata_id == hlo_old->id))) {
                hlo = (const uint8_t *)s.v.s.p;
                hlo_len = s.v.s.n;
                legacy = !(hlo_new && s.metadata_id == hlo_new->id);
            } else if (pid && s.metadata_id == pid->id &&
                       (s.kind == STAT_INT64 || s.kind == STAT_UINT64)) {
                program_id = s.v.u;
                have_pid = 1;
            }
        }
        if (!hlo)
            continue;
        uint64_t suffix_id = 0;
        size_t stem = m->name.n;
        int has_suffix = name_program_suffix(m->name, &suffix_id, &stem);
        if (!have_pid)
            program_id = (legacy && has_suffix) ? suffix_id : (uint64_t)m->id;
        pq_program *p = &progs[n++];
        p->name = pq_str_of(m->name.p, has_suffix ? stem : m->name.n);
        p->key = m->name;
        p->program_id = program_id;
        p->hlo = hlo;
        p->hlo_len = hlo_len;
        p->legacy_stat_name = legacy;
    }
    /* First one (in metadata id order) wins on a program id collision. */
    program_order *ord = arena_alloc(&src->mem, (n ? n : 1) * sizeof *ord);
    pq_program *sorted = arena_alloc(&src->mem, (n ? n : 1) * sizeof *sorted);
    if (!ord || !sorted)
        return nomem(r);
    for (uint32_t i = 0; i < n; i++) {
        ord[i].program_id = progs[i].program_id;
        ord[i].order = i;
    }
    qsort(ord, n, sizeof *ord, cmp_program_order);
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        const pq_program *p = &progs[ord[i].order];
        if (out && sorted[out - 1].program_id == p->program_id) {
            src->duplicate_programs++;
            continue;
        }
        sorted[out++] = *p;
    }
    src->programs = sorted;
    src->nprograms = out;
    return PQ_OK;
}

/* Whether the serialized XPlane PF is /host:metadata, reading its fields up to its name. */
/* The kind of the XPlane in PF by its name (its first name field), without reading the rest;
 * DEV_OTHER when it has none. */
static pq_status plane_kind(reader *r, const pb_field *pf, device_kind *out)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, pf->data, pf->len, r->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD)
        if (f.num == 2 && f.wire == PB_LEN) {
            *out = device_kind_of_plane(span_str(&f));
            return PQ_OK;
        }
    if (k == PB_ERROR)
        return fail_at(r, &c, "an XPlane");
    *out = DEV_OTHER;
    return PQ_OK;
}

static pq_status read_strings(reader *r, const pb_field *f, pq_str **arr, uint32_t *n, uint32_t cap)
{
    if (!*arr) {
        *arr = arena_alloc(&r->src->mem, (cap ? cap : 1) * sizeof **arr);
        if (!*arr)
            return nomem(r);
    }
    (*arr)[(*n)++] = span_str(f);
    return PQ_OK;
}

pq_status XPLANE_READ_NAME(pq_source *src, pq_scan_totals *scan, pq_error *err)
{
    reader r = {src, err, src->file.data, scan, 0, 0};
    const uint8_t *data = src->file.data;
    size_t size = src->file.size;
    pb_cursor c;
    pb_field f = {0};
    int k;
    uint32_t nplanes = 0, nhost = 0, nerr = 0, nwarn = 0;

    pb_init(&c, data, size, data);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        nplanes += f.num == 1;
        nerr += f.num == 2;
        nwarn += f.num == 3;
        nhost += f.num == 4;
    }
    if (k == PB_ERROR)
        return fail_at(&r, &c, "an XSpace");
    /* The host threads' lines are skipped only when a TPU TensorCore plane is there (the
     * device kind ops chooses first): by the plane names, before any plane is read. A
     * damaged plane met here stops the search, not the read, which reports it in order. */
    /* The same search tells whether the host threads' XLA:CPU thunks can be ops (no TPU
     * or GPU plane: formats/xplane_xla.c); scan, which captures none, needs it only for the
     * skip. */
    if ((src->tpu_skip_host_lines || !scan) && !src->programs_only) {
        pq_error scratch;
        reader peek = r;
        peek.err = &scratch;
        pb_init(&c, data, size, data);
        while (!r.skip_host_lines && (k = pb_next(&c, &f)) == PB_FIELD) {
            device_kind kind;
            if (f.num != 1 || f.wire != PB_LEN)
                continue;
            if (plane_kind(&peek, &f, &kind) != PQ_OK) {
                r.device_planes = 1; /* unknown: capture no host thread */
                break;
            }
            r.device_planes |= kind == DEV_TPU || kind == DEV_GPU;
            r.skip_host_lines = src->tpu_skip_host_lines && kind == DEV_TPU;
        }
    }

    src->planes = arena_alloc(&src->mem, (nplanes ? nplanes : 1) * sizeof *src->planes);
    if (!src->planes)
        return nomem(&r);
    pb_init(&c, data, size, data);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        switch (f.num) {
        case 1:
            if (src->programs_only) {
                device_kind kind;
                FORWARD_IF_ERROR(plane_kind(&r, &f, &kind));
                if (kind != DEV_HOST_METADATA)
                    break;
            }
            FORWARD_IF_ERROR(read_plane(&r, &f, &src->planes[src->nplanes++]));
            break;
        case 2:
            FORWARD_IF_ERROR(read_strings(&r, &f, &src->errors, &src->nerrors, nerr));
            break;
        case 3:
            FORWARD_IF_ERROR(read_strings(&r, &f, &src->warnings, &src->nwarnings, nwarn));
            break;
        case 4:
            FORWARD_IF_ERROR(read_strings(&r, &f, &src->hostnames, &src->nhostnames, nhost));
            break;
        default:
            break;
        }
    }
    if (k == PB_ERROR)
        return fail_at(&r, &c, "an XSpace");

    for (uint32_t i = 0; i < src->nplanes; i++) {
        const xp_plane *pl = &src->planes[i];
        src->info.events += pl->events;
        src->info.stats += pl->event_stats + pl->metadata_stats + pl->nstats;
        if (pl->kind == DEV_HOST_METADATA && !src->programs)
            FORWARD_IF_ERROR(locate_programs(&r, pl));
    }
    if (xplane_devices(src) != 0 || xplane_ops(src) != 0 || xplane_xla_ops(src) != 0)
        return nomem(&r);
    src->info.planes = src->nplanes;
    return PQ_OK;
}

#ifdef XPLANE_DISPATCH
#include <stdatomic.h>

static atomic_int decoder_choice; /* 0 auto, 1 portable, 2 BMI2 */

void pq_debug_force_decoder(int which)
{
    atomic_store(&decoder_choice, which);
}

#if XPLANE_HAVE_BMI2
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#define XPLANE_GLIBC_FEATURES 1
#include <sys/platform/x86.h>
#endif
#endif
#ifndef XPLANE_GLIBC_FEATURES
#include <cpuid.h>
#endif

/* Bit 0: the CPU has BMI2; bit 1: it is not an AMD (nor Hygon) CPU, whose PEXT is slow
 * before Zen 3. From the features glibc found at start-up where it tells them
 * (<sys/platform/x86.h>: SSE4A is AMD's alone), else asked here with CPUID (leaf 7 and the
 * vendor), once, on the first XSpace read. Never __builtin_cpu_supports: that pulls in
 * libgcc's constructor, which probes the CPU in every process at start-up. Each CPUID traps
 * to the hypervisor on a VM (about 6 us here: docs/internals/speed.md, round 5). */
static int cpu_bits(void)
{
#ifdef XPLANE_GLIBC_FEATURES
    return (CPU_FEATURE_ACTIVE(BMI2) ? 1 : 0) | (CPU_FEATURE_PRESENT(SSE4A) ? 0 : 2);
#else
    static atomic_int bits; /* 0: not asked yet; else the bits + 4 */
    int b = atomic_load(&bits);
    if (b)
        return b - 4;
    unsigned a = 0, bx = 0, c = 0, d = 0, max = __get_cpuid_max(0, NULL);
    b = 0;
    if (max >= 7) {
        __cpuid_count(7, 0, a, bx, c, d);
        b |= (bx >> 8) & 1;
    }
    if (max >= 1) {
        __cpuid(0, a, bx, c, d);
        if (bx == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu) /* "GenuineIntel" */
            b |= 2;
    }
    atomic_store(&bits, b + 4);
    return b;
#endif
}
#endif

/* PEXT is one fast instruction on Intel CPUs since Haswell; AMD before Zen 3 runs it in
 * microcode (hundreds of cycles), so AMD CPUs never take the BMI2 build automatically. */
static int use_bmi2(void)
{
#if XPLANE_HAVE_BMI2
    int choice = atomic_load(&decoder_choice);
    if (choice)
        return choice == 2 && (cpu_bits() & 1);
    return cpu_bits() == 3;
#else
    return 0;
#endif
}

pq_status xplane_read(pq_source *src, pq_scan_totals *scan, pq_error *err)
{
#if XPLANE_HAVE_BMI2
    if (use_bmi2())
        return xplane_read_bmi2(src, scan, err);
#else
    (void)use_bmi2;
#endif
    return xplane_read_generic(src, scan, err);
}
#endif
