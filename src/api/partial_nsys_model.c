/* partial_nsys_model.c - decodes a source of an nsys partial (partial_nsys.c) back into the
 * model the nsys analyses read: the timeline's names, tracks and columns (every id, track
 * and time checked against what a reader can produce, so that a crafted partial cannot
 * reach the analyses with an index out of range or a time whose sums overflow), the counts
 * of an Nsight export, and the archive's HLO dumps as a stored zip in memory, so that
 * analysis/nsys_hlo.c finds them through model_members as it finds an archive's. Not the
 * encoder (partial_nsys.c); the format is in docs/internals/partial.md. */
#include "api/partial_nsys.h"
#include "core/alloc.h"
#include "core/err.h"
#include "formats/nsysjax.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* |start| and |duration| of a slice the model can hold (model/slices.h clamps to 2^60 ps,
 * a start adds its sub-µs fraction): their sum, doubled, stays inside int64. */
#define TIME_LIMIT (((int64_t)1 << 60) + ((int64_t)1 << 21))

/* N bytes of R, in place (a u64 length, then the bytes); NULL on failure. */
static const uint8_t *get_bytes(pt_reader *r, uint64_t *n, const char *what)
{
    const uint8_t *at = r->p;
    *n = pt_get_u64(r, what);
    if (r->status != PQ_OK)
        return NULL;
    if (*n > (uint64_t)(r->end - r->p)) {
        r->p = at;
        pt_fail(r, "truncated partial", what);
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += *n;
    return p;
}

/* A u64 of R that must be at most MAX; 0 (R failed) when it is not. */
static uint64_t get_max(pt_reader *r, uint64_t max, const char *what)
{
    const uint8_t *at = r->p;
    uint64_t v = pt_get_u64(r, what);
    if (r->status == PQ_OK && v > max) {
        r->p = at;
        pt_fail(r, "malformed partial", what);
        return 0;
    }
    return v;
}

/* A count of R of items of at least ITEM bytes each: no more than the bytes left hold. */
static uint64_t get_count(pt_reader *r, size_t item, const char *what)
{
    const uint8_t *at = r->p;
    uint64_t v = pt_get_u64(r, what);
    if (r->status == PQ_OK && v > (uint64_t)(r->end - r->p) / item) {
        r->p = at;
        pt_fail(r, "truncated partial", what);
        return 0;
    }
    return v;
}

/* The names as the source's pool held them, id by id from 0: a reader may have stored a
 * string twice (the analyses see the ids it gave), so they are placed, not interned again.
 * An empty pool gets "" as id 0, which an empty name's id 0 then means. */
static int get_names(pt_reader *r, model_slices *m)
{
    uint64_t n = get_count(r, 8, "the name count");
    if (r->status == PQ_OK && n > UINT32_MAX - 1)
        pt_fail(r, "malformed partial", "a name count below 2^32 - 1");
    const uint8_t *first = r->p;
    uint64_t total = 1;
    for (uint64_t i = 0; r->status == PQ_OK && i < n; i++) {
        const uint8_t *at = r->p;
        uint64_t len;
        get_bytes(r, &len, "a name");
        if (r->status == PQ_OK && len >= UINT32_MAX) {
            r->p = at;
            pt_fail(r, "malformed partial", "a name under 4 GiB");
        }
        total += len + 1;
    }
    if (r->status != PQ_OK)
        return 0;
    intern_pool *pl = &m->names;
    size_t k = n ? (size_t)n : 1;
    size_t *off = pq_realloc_array(pl->off, k, sizeof *off);
    if (off)
        pl->off = off;
    uint32_t *lens = pq_realloc_array(pl->len, k, sizeof *lens);
    if (lens)
        pl->len = lens;
    char *chars = off && lens ? pq_realloc(pl->chars, (size_t)total) : NULL;
    if (!chars) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        return 0;
    }
    pl->chars = chars;
    pl->cap = (uint32_t)k;
    pl->capchars = (size_t)total;
    pl->nchars = 1;
    pl->chars[0] = 0;
    pl->off[0] = 0;
    pl->len[0] = 0;
    const uint8_t *end = r->p;
    r->p = first;
    pl->nchars = n ? 0 : 1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t len;
        const uint8_t *p = get_bytes(r, &len, "a name");
        pl->off[i] = pl->nchars;
        pl->len[i] = (uint32_t)len;
        if (len)
            memcpy(pl->chars + pl->nchars, p, (size_t)len);
        pl->chars[pl->nchars + len] = 0;
        pl->nchars += (size_t)len + 1;
    }
    pl->n = (uint32_t)k;
    r->p = end;
    return r->status == PQ_OK;
}

/* The device index a track of a source of FORMAT stands for (nsys_track_device): an
 * archive's device tracks have tid = device, an export's projected ones tid = -(device + 1).
 * The analyses size per-device tables by it, so a partial's is kept below 2^16 (GPUs of one
 * process); -1 for the other tracks. */
static int64_t track_device(pq_format format, int64_t tid)
{
    if (format == PQ_FORMAT_NSYS_SQLITE)
        return tid < 0 ? -(tid + 1) : -1;
    return tid;
}

static int get_tracks(pt_reader *r, model_slices *m, pq_format format)
{
    uint64_t n = get_count(r, 48, "the track count");
    if (r->status != PQ_OK)
        return 0;
    m->tracks = pq_calloc(n + 1, sizeof *m->tracks);
    if (!m->tracks) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        return 0;
    }
    m->captracks = (uint32_t)(n + 1);
    for (uint64_t t = 0; t < n && r->status == PQ_OK; t++) {
        const uint8_t *at = r->p;
        slice_track *k = &m->tracks[t];
        k->pid = (int64_t)pt_get_u64(r, "a track's pid");
        k->tid = (int64_t)pt_get_u64(r, "a track's tid");
        k->has_kernel = (int)get_max(r, 1, "a track's kernel flag (0 or 1)");
        k->nslices = pt_get_u64(r, "a track's slice count");
        k->first_ps = (int64_t)pt_get_u64(r, "a track's first start");
        k->end_ps = (int64_t)pt_get_u64(r, "a track's end");
        if (r->status == PQ_OK && track_device(format, k->tid) >= 65536) {
            r->p = at;
            pt_fail(r, "malformed partial", "a track of a device below 65536");
        }
        int fresh = 0;
        uint32_t *slot =
            r->status == PQ_OK ? pairmap_slot(&m->track_map, k->pid, k->tid, &fresh) : NULL;
        if (r->status == PQ_OK && !slot)
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        else if (r->status == PQ_OK && !fresh) {
            r->p = at;
            pt_fail(r, "malformed partial", "tracks of distinct (pid, tid)");
        } else if (slot)
            *slot = (uint32_t)t;
        m->ntracks = (uint32_t)(t + 1);
    }
    return r->status == PQ_OK;
}

/* Process (TWO = 0) or thread names: (pid[, tid], name id) into MAP. */
static int get_pairs(pt_reader *r, pairmap *map, uint32_t nnames, int two)
{
    uint64_t n = get_count(r, two ? 24 : 16, "the count of process or thread names");
    for (uint64_t i = 0; i < n && r->status == PQ_OK; i++) {
        const uint8_t *at = r->p;
        int64_t a = (int64_t)pt_get_u64(r, "a pid");
        int64_t b = two ? (int64_t)pt_get_u64(r, "a tid") : 0;
        uint32_t v = (uint32_t)get_max(r, nnames - 1, "a name id below the name count");
        int fresh = 0;
        uint32_t *slot = r->status == PQ_OK ? pairmap_slot(map, a, b, &fresh) : NULL;
        if (r->status == PQ_OK && !slot)
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        else if (r->status == PQ_OK && !fresh) {
            r->p = at;
            pt_fail(r, "malformed partial", "distinct process and thread names");
        } else if (slot)
            *slot = v;
    }
    return r->status == PQ_OK;
}

/* One column of N values (put_col's varints; WIDTH 8: zigzag, with DELTA differences), each
 * at most MAX (8-byte ones within +-MAX), into DST (elements of WIDTH bytes). */
static int get_col(pt_reader *r, size_t n, size_t width, uint64_t max, int delta, int64_t unit,
                   void *dst, const char *what)
{
    uint64_t len;
    const uint8_t *p = get_bytes(r, &len, what), *end = p ? p + len : NULL;
    const uint8_t *after = r->p;
    uint64_t acc = 0;
    for (size_t i = 0; i < n && r->status == PQ_OK; i++) {
        const uint8_t *at = p;
        uint64_t x = 0;
        int sh = 0, more = 1;
        while (more && p < end && sh < 64) {
            x |= (uint64_t)(*p & 0x7f) << sh;
            more = *p++ & 0x80;
            sh += 7;
        }
        int bad = more;
        if (!bad && width == 8) {
            uint64_t d = (x & 1) ? ~(x >> 1) : x >> 1;
            acc = delta ? acc + d : d;
            int64_t v = (int64_t)acc, lim = (int64_t)max / unit;
            bad = v > lim || v < -lim;
            ((int64_t *)dst)[i] = bad ? 0 : v * unit;
        } else if (!bad) {
            bad = x > max;
            if (width == 4)
                ((uint32_t *)dst)[i] = (uint32_t)x;
            else
                ((uint8_t *)dst)[i] = (uint8_t)x;
        }
        if (bad) {
            r->p = at;
            pt_fail(r, "malformed partial", what);
        }
    }
    if (r->status == PQ_OK && p != end) {
        r->p = p;
        pt_fail(r, "malformed partial", what);
    }
    if (r->status == PQ_OK)
        r->p = after;
    return r->status == PQ_OK;
}

/* Each track's count, first start and end as the columns say (what model/slices.c keeps). */
void nsys_track_add(slice_track *k, const model_slices *m, size_t i)
{
    int64_t end = m->start_ps[i] + m->dur_ps[i];
    if (!k->nslices || m->start_ps[i] < k->first_ps)
        k->first_ps = m->start_ps[i];
    if (!k->nslices || end > k->end_ps)
        k->end_ps = end;
    k->nslices++;
}

static void check_tracks(pt_reader *r, model_slices *m, const uint8_t *at)
{
    slice_track *t = pq_calloc(m->ntracks + 1, sizeof *t);
    if (!t) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        return;
    }
    for (size_t i = 0; i < m->n; i++)
        nsys_track_add(&t[m->track[i]], m, i);
    for (uint32_t k = 0; k < m->ntracks; k++) {
        const slice_track *a = &t[k], *b = &m->tracks[k];
        if (a->nslices != b->nslices ||
            (a->nslices && (a->first_ps != b->first_ps || a->end_ps != b->end_ps))) {
            r->p = at;
            pt_fail(r, "malformed partial", "tracks whose counts and spans match their slices");
            break;
        }
    }
    pq_free(t);
}

static int get_columns(pt_reader *r, model_slices *m)
{
    uint64_t n = get_count(r, 6, "the slice count"); /* at least a byte a column */
    uint64_t has_module = get_max(r, 1, "the module column flag (0 or 1)");
    const uint8_t *u = r->p;
    int64_t unit = (int64_t)get_max(r, 1000, "the time unit (1 or 1000 ps)");
    if (r->status == PQ_OK && unit != 1 && unit != 1000) {
        r->p = u;
        pt_fail(r, "malformed partial", "the time unit (1 or 1000 ps)");
    }
    const uint8_t *at = r->p;
    if (r->status != PQ_OK)
        return 0;
    size_t c = (size_t)n + 1;
    m->track = pq_calloc(c, 4);
    m->name = pq_calloc(c, 4);
    m->tf_op = pq_calloc(c, 4);
    m->source = pq_calloc(c, 4);
    m->long_name = pq_calloc(c, 4);
    m->run_id = pq_calloc(c, 4);
    m->start_ps = pq_calloc(c, 8);
    m->dur_ps = pq_calloc(c, 8);
    m->step = pq_calloc(c, 8);
    m->flags = pq_calloc(c, 1);
    m->module = has_module ? pq_calloc(c, 4) : NULL;
    m->cap = c;
    if (!m->track || !m->name || !m->tf_op || !m->source || !m->long_name || !m->run_id ||
        !m->start_ps || !m->dur_ps || !m->step || !m->flags || (has_module && !m->module)) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        return 0;
    }
    uint64_t maxname = m->names.n - 1;
    size_t k = (size_t)n;
    if (get_col(r, k, 4, m->ntracks ? m->ntracks - 1 : 0, 0, 1, m->track, "slice tracks") &&
        m->ntracks == 0 && k) {
        r->p = at;
        pt_fail(r, "malformed partial", "slice tracks");
    }
    get_col(r, k, 4, maxname, 0, 1, m->name, "slice name ids");
    get_col(r, k, 4, maxname, 0, 1, m->run_id, "slice run ids");
    get_col(r, k, 8, (uint64_t)TIME_LIMIT, 1, unit, m->start_ps, "slice starts");
    get_col(r, k, 8, (uint64_t)1 << 60, 0, unit, m->dur_ps, "slice durations");
    get_col(r, k, 1, 255, 0, 1, m->flags, "slice flags");
    if (has_module)
        get_col(r, k, 4, maxname, 0, 1, m->module, "slice module ids");
    m->n = k;
    if (r->status == PQ_OK)
        check_tracks(r, m, at);
    return r->status == PQ_OK;
}

static model_slices *get_slices(pt_reader *r, pq_format format)
{
    model_slices *m = pq_calloc(1, sizeof *m);
    if (!m || slices_init(m) != 0) {
        pq_free(m);
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        return NULL;
    }
    m->have_base = (int)get_max(r, 1, "the base flag (0 or 1)");
    m->base_us = (int64_t)pt_get_u64(r, "the base time");
    if (r->status == PQ_OK && get_names(r, m) && get_tracks(r, m, format) &&
        get_pairs(r, &m->proc_names, m->names.n, 0) &&
        get_pairs(r, &m->thread_names, m->names.n, 1))
        get_columns(r, m);
    if (r->status != PQ_OK) {
        slices_free(m);
        pq_free(m);
        return NULL;
    }
    return m;
}

/* ---- the dumps as a stored zip ---- */

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put_le(buf *b, uint64_t v, size_t width)
{
    uint8_t x[8];
    for (size_t k = 0; k < width; k++)
        x[k] = (uint8_t)(v >> (8 * k));
    buf_put(b, x, width);
}

typedef struct zip_entry {
    const uint8_t *name, *data;
    uint64_t nname, ndata;
    uint32_t crc, offset;
} zip_entry;

/* The fields a local and a central header share, from "version needed" on. */
static void put_common(buf *b, const zip_entry *e)
{
    put_le(b, 20, 2);     /* version needed: 2.0 */
    put_le(b, 0, 2);      /* flags */
    put_le(b, 0, 2);      /* method: stored */
    put_le(b, 0, 2);      /* time */
    put_le(b, 0x21, 2);   /* date: 1980-01-01 */
    put_le(b, e->crc, 4); /* crc-32 */
    put_le(b, e->ndata, 4);
    put_le(b, e->ndata, 4);
    put_le(b, e->nname, 2);
    put_le(b, 0, 2); /* extra length */
}

static void write_zip(buf *b, const zip_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        put_le(b, 0x04034b50, 4);
        put_common(b, &e[i]);
        buf_put(b, e[i].name, e[i].nname);
        buf_put(b, e[i].data, e[i].ndata);
    }
    size_t cd = b->n;
    for (size_t i = 0; i < n; i++) {
        put_le(b, 0x02014b50, 4);
        put_le(b, 20, 2); /* made by: MS-DOS attributes, 2.0 */
        put_common(b, &e[i]);
        put_le(b, 0, 2); /* comment length */
        put_le(b, 0, 2); /* disk */
        put_le(b, 0, 2); /* internal attributes */
        put_le(b, 0, 4); /* external attributes */
        put_le(b, e[i].offset, 4);
        buf_put(b, e[i].name, e[i].nname);
    }
    put_le(b, 0x06054b50, 4);
    put_le(b, 0, 4); /* this disk, the directory's disk */
    put_le(b, n, 2);
    put_le(b, n, 2);
    put_le(b, b->n - cd - 4 - 4 - 4, 4); /* the directory's size */
    put_le(b, cd, 4);
    put_le(b, 0, 2); /* comment length */
}

/* A dump's member name: one nsysjax_dump_program reads, inside the archive. */
static int dump_name_ok(const uint8_t *p, uint64_t n)
{
    char name[512];
    if (n == 0 || n >= sizeof name || memchr(p, 0, (size_t)n))
        return 0;
    memcpy(name, p, (size_t)n);
    name[n] = 0;
    return nsysjax_dump_program(name) >= 0 && !strstr(name, "..") && !strchr(name, '\\');
}

static int sha_cmp(const void *x, const void *y)
{
    const nsys_dump *a = *(const nsys_dump *const *)x, *b = *(const nsys_dump *const *)y;
    return memcmp(a->sha, b->sha, 32);
}

int nsys_dumps_index(nsys_dumps *t)
{
    const nsys_dump **v = pq_calloc(t->n + 1, sizeof *v);
    if (!v)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        v[i] = &t->d[i];
    qsort(v, t->n, sizeof *v, sha_cmp);
    t->sorted = v;
    return 1;
}

const nsys_dump *nsys_dumps_find(const nsys_dumps *t, const unsigned char sha[32])
{
    nsys_dump key;
    memcpy(key.sha, sha, 32);
    const nsys_dump *k = &key;
    const nsys_dump **hit =
        t->sorted ? bsearch(&k, t->sorted, t->n, sizeof *t->sorted, sha_cmp) : NULL;
    return hit ? *hit : NULL;
}

/* The source's dumps: u64 count, per dump its member name and the sha256 of its bytes (32
 * bytes), which the partial's table DUMPS holds; written into ZIP as a stored archive. */
static int get_dumps(pt_reader *r, const nsys_dumps *dumps, buf *zip)
{
    uint64_t n = get_count(r, 16, "the dump count");
    if (r->status == PQ_OK && n > 65535) {
        pt_fail(r, "malformed partial", "at most 65535 dumps");
        return 0;
    }
    zip_entry *e = pq_calloc(n + 1, sizeof *e);
    if (!e) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        return 0;
    }
    uint64_t off = 0;
    for (uint64_t i = 0; i < n && r->status == PQ_OK; i++) {
        const uint8_t *at = r->p;
        e[i].name = get_bytes(r, &e[i].nname, "a dump's member name");
        if (r->status == PQ_OK && !dump_name_ok(e[i].name, e[i].nname)) {
            r->p = at;
            pt_fail(r, "malformed partial", "a dump member name (dump/module_N....hlo.pb.xz)");
        }
        at = r->p;
        uint64_t nsha;
        const uint8_t *sha = get_bytes(r, &nsha, "a dump's sha256 (32 bytes)");
        const nsys_dump *dd = r->status == PQ_OK && nsha == 32 ? nsys_dumps_find(dumps, sha) : NULL;
        if (r->status == PQ_OK && !dd) {
            r->p = at;
            pt_fail(r, "malformed partial", "the sha256 of a dump the partial holds");
        }
        e[i].data = dd ? (const uint8_t *)dd->bytes.p : NULL;
        e[i].ndata = dd ? dd->bytes.n : 0;
        e[i].offset = (uint32_t)off;
        off += 30 + e[i].nname + e[i].ndata;
        if (r->status == PQ_OK && off + 46 * n + 512 * n + 22 > UINT32_MAX) {
            r->p = at;
            pt_fail(r, "malformed partial", "dumps under 4 GiB together");
        }
        if (r->status == PQ_OK)
            e[i].crc = crc32_of(e[i].data, (size_t)e[i].ndata);
    }
    if (r->status == PQ_OK) {
        write_zip(zip, e, (size_t)n);
        if (zip->status != PQ_OK)
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
    }
    pq_free(e);
    return r->status == PQ_OK;
}

/* An XSpace source: its bytes, opened as the reader opens a file of that name. */
static pq_status get_xspace(pt_reader *r, const char *path, nsys_decoded *d)
{
    uint64_t n;
    const uint8_t *p = get_bytes(r, &n, "the XSpace");
    if (r->status != PQ_OK)
        return r->status;
    pq_status st = pq_profile_open_memory(p, (size_t)n, path, NULL, &d->xspace, r->err);
    if (st == PQ_OK &&
        (d->xspace->nsources != 1 || d->xspace->sources[0].info.format != PQ_FORMAT_XSPACE)) {
        r->p = p;
        pt_fail(r, "malformed partial", "an XSpace (a source named .xplane.pb)");
        return r->status;
    }
    if (st == PQ_OK && r->p != r->end)
        pt_fail(r, "malformed partial", "the source's model to end here");
    if (st != PQ_OK)
        r->status = st;
    return r->status;
}

/* A compile sum of R: NaN (a graft's) or within +-2^62 ns, so that no sum of a partial's
 * entries reaches infinity (whose NaN differences would leave the sort of the passes without
 * an order). */
static double get_time(pt_reader *r, const char *what)
{
    const uint8_t *at = r->p;
    double v = pt_get_f64(r, what);
    if (r->status == PQ_OK && !isnan(v) && !(v >= -0x1p62 && v <= 0x1p62)) {
        r->p = at;
        pt_fail(r, "malformed partial", what);
    }
    return v;
}

/* The compile part (after the dumps): u64 has part, 4 u64 counts, u64 entry count, per
 * entry name (str), hit (0/1), the two sums (f64). */
static void get_compile(pt_reader *r, nsys_decoded *d)
{
    d->has_compile = (int)get_max(r, 1, "the compile part flag (0 or 1)");
    if (r->status != PQ_OK || !d->has_compile)
        return;
    nsys_compile_part *p = &d->compile;
    if (intern_init(&p->names) != 0) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        return;
    }
    uint64_t *v[4] = {&p->sources, &p->rows, &p->rows_detail_removed, &p->parallel_regions};
    for (int i = 0; i < 4; i++)
        *v[i] = get_max(r, (uint64_t)1 << 62, "a compile count (below 2^62)");
    uint64_t n = get_count(r, 32, "the compile entry count");
    p->e = r->status == PQ_OK ? pq_calloc(n + 1, sizeof *p->e) : NULL;
    if (r->status == PQ_OK && !p->e)
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
    for (uint64_t k = 0; r->status == PQ_OK && k < n; k++) {
        uint64_t len;
        const uint8_t *s = get_bytes(r, &len, "a compile pass name");
        nsys_compile_entry *e = &p->e[k];
        e->hit = (uint8_t)get_max(r, 1, "a compile pass's hit flag (0 or 1)");
        e->nc = get_time(r, "a compile pass's non-child time (NaN or within 2^62 ns)");
        e->ch = get_time(r, "a compile pass's child time (NaN or within 2^62 ns)");
        if (r->status == PQ_OK && len >= UINT32_MAX)
            pt_fail(r, "malformed partial", "a compile pass name under 4 GiB");
        if (r->status == PQ_OK)
            e->name = intern_add(&p->names, (const char *)s, (size_t)len);
        if (r->status == PQ_OK && p->names.failed)
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        p->n = (size_t)k + 1;
    }
}

pq_status nsys_decode_source(pt_reader *r, const char *path, const nsys_dumps *dumps,
                             nsys_decoded *d)
{
    memset(d, 0, sizeof *d);
    buf_init(&d->zip, NULL);
    const uint8_t *at = r->p;
    uint64_t f = pt_get_u64(r, "the source format");
    if (r->status == PQ_OK && f != PQ_FORMAT_NSYS_JAX && f != PQ_FORMAT_NSYS_SQLITE &&
        f != PQ_FORMAT_XSPACE) {
        r->p = at;
        pt_fail(r, "malformed partial",
                "the format of an nsys-jax archive, an Nsight export or an XSpace");
    }
    d->format = (pq_format)f;
    if (r->status == PQ_OK && f == PQ_FORMAT_XSPACE) {
        if (get_xspace(r, path, d) != PQ_OK)
            nsys_decoded_free(d);
        return r->status;
    }
    d->newer = (int)get_max(r, 1, "the layout flag (0 or 1)");
    d->has_export = (int)get_max(r, 1, "the export flag (0 or 1)");
    if (d->has_export) {
        uint64_t *v[8] = {&d->exp.kernels,       &d->exp.memcpys,     &d->exp.memsets,
                          &d->exp.runtime_calls, &d->exp.nvtx_ranges, &d->exp.projected_ranges,
                          &d->exp.module_ranges, &d->exp.thunk_ranges};
        for (int i = 0; i < 8; i++)
            *v[i] = pt_get_u64(r, "an export count");
    }
    uint64_t has_slices = get_max(r, 1, "the timeline flag (0 or 1)");
    if (r->status == PQ_OK && has_slices)
        d->sl = get_slices(r, d->format);
    if (r->status == PQ_OK)
        get_dumps(r, dumps, &d->zip);
    if (r->status == PQ_OK)
        get_compile(r, d);
    if (r->status == PQ_OK && r->p != r->end)
        pt_fail(r, "malformed partial", "the source's model to end here");
    if (r->status != PQ_OK)
        nsys_decoded_free(d);
    return r->status;
}

void nsys_decoded_free(nsys_decoded *d)
{
    if (d->sl) {
        slices_free(d->sl);
        pq_free(d->sl);
    }
    buf_release(&d->zip);
    pq_profile_free(d->xspace);
    nsys_compile_part_free(&d->compile);
    memset(d, 0, sizeof *d);
}

void nsys_source_of(const nsys_decoded *d, const char *path, pq_source *out)
{
    if (d->xspace) { /* read-only while D lives: the analyses take a const profile */
        *out = d->xspace->sources[0];
        return;
    }
    memset(out, 0, sizeof *out);
    out->path = (char *)path;
    out->info.path = (pq_str){path, strlen(path)};
    out->info.format = d->format;
    out->slices = d->sl;
    out->nsys_export = d->has_export ? (model_nsys_export *)&d->exp : NULL;
    out->nsysjax_newer = d->newer;
    if (d->format == PQ_FORMAT_NSYS_JAX) {
        out->file.data = (const uint8_t *)d->zip.p;
        out->file.size = d->zip.n;
    }
}
