/* partial_nsys.c - the partial of `profq nsys` (kind 8): per nsys-jax archive or Nsight
 * SQLite export, the model the nsys analyses read from it - its timeline (the module,
 * thunk and communication rows with what nsys reads of their names, as the model's
 * columns), the
 * counts of an export, the archive's after-optimisation HLO dumps as their compressed
 * members, and in place of the archive's push/pop ranges its compile summary's share
 * (nsys_compile_part: the one section that is a per-process aggregate). The other sections
 * are not sums of per-process figures (clock alignment, warm-up split, top modules, medians:
 * docs/internals/partial.md), so the render rebuilds one profile of all the partial's
 * sources, in path order, and runs nsys_compute on it with their compile parts: the
 * function one process runs, over the same rows. Not the analysis (analysis/nsys.c) nor the
 * renderer (render/nsys.c). */
#include "analysis/nsys.h"
#include "analysis/nsys_modules.h"
#include "api/partial_int.h"
#include "api/partial_nsys.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/sha256.h"
#include "formats/nsysjax.h"
#include "io/mapfile.h"
#include "model/members.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One source: its path, what one process de-duplicates it by (an archive file's sha256 and
 * size; empty for the others) and the rest as the bytes of the body (BLOB, decoded by
 * nsys_decode_source), kept encoded so that a merge only copies it. */
typedef struct nsys_src {
    pq_str path, sha;
    uint64_t size;
    pq_str blob;
} nsys_src;

typedef struct nsys_body {
    arena a;
    nsys_src *v;
    size_t n, cap;
    nsys_dump *d; /* the HLO dumps the sources name, each once by sha256 */
    size_t nd, capd;
} nsys_body;

static void body_free(void *p)
{
    nsys_body *b = p;
    if (!b)
        return;
    arena_release(&b->a);
    pq_free(b->v);
    pq_free(b->d);
    pq_free(b);
}

static int body_push(nsys_body *b, const nsys_src *s)
{
    void *v = b->v;
    if (!pt_reserve(&v, b->n, &b->cap, sizeof *b->v))
        return 0;
    b->v = v;
    nsys_src *d = &b->v[b->n];
    d->path = (pq_str){arena_strndup(&b->a, s->path.p, s->path.n), s->path.n};
    d->sha = (pq_str){arena_strndup(&b->a, s->sha.p, s->sha.n), s->sha.n};
    d->size = s->size;
    char *blob = arena_alloc(&b->a, s->blob.n + 1);
    if (!d->path.p || !d->sha.p || !blob)
        return 0;
    if (s->blob.n)
        memcpy(blob, s->blob.p, s->blob.n);
    d->blob = (pq_str){blob, s->blob.n};
    b->n++;
    return 1;
}

/* Adds the dump of SHA and BYTES (copied into B's arena with COPY, else already there) to
 * B's table unless it holds it: 0 when out of memory. */
static int dump_add(nsys_body *b, const unsigned char sha[32], pq_str bytes, int copy)
{
    for (size_t i = 0; i < b->nd; i++)
        if (memcmp(b->d[i].sha, sha, 32) == 0)
            return 1;
    void *v = b->d;
    if (!pt_reserve(&v, b->nd, &b->capd, sizeof *b->d))
        return 0;
    b->d = v;
    char *p = copy ? arena_alloc(&b->a, bytes.n + 1) : (char *)bytes.p;
    if (!p)
        return 0;
    if (copy && bytes.n)
        memcpy(p, bytes.p, bytes.n);
    nsys_dump *d = &b->d[b->nd++];
    memcpy(d->sha, sha, 32);
    d->bytes = (pq_str){p, bytes.n};
    return 1;
}

/* ---- the map: a source's model into a blob ---- */

/* Column COL of N values of WIDTH bytes as a str of LEB128 varints: 8-byte values
 * zigzag-encoded, and with DELTA each the difference from the one before (starts: slices
 * come mostly in time order). */
static void put_col(buf *b, const void *col, size_t n, size_t width, int delta)
{
    buf v;
    buf_init(&v, NULL);
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x;
        if (width == 8) {
            uint64_t u = (uint64_t)((const int64_t *)col)[i], d = delta ? u - prev : u;
            prev = u;
            x = (d >> 63) ? ~(d << 1) : d << 1; /* zigzag */
        } else {
            x = width == 4 ? ((const uint32_t *)col)[i] : ((const uint8_t *)col)[i];
        }
        uint8_t o[10];
        size_t k = 0;
        do {
            o[k++] = (uint8_t)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
            x >>= 7;
        } while (x);
        buf_put(&v, o, k);
    }
    if (v.status != PQ_OK && b->status == PQ_OK)
        b->status = v.status;
    pt_put_str(b, (pq_str){v.p ? v.p : "", v.n});
    buf_release(&v);
}

/* The pairs of M (process or thread names) with their name ids through MAP. */
static void put_pairs(buf *b, const pairmap *m, int two, const uint32_t *map)
{
    pt_put_u64(b, m->n);
    for (size_t i = 0; i < m->n; i++) {
        pt_put_u64(b, (uint64_t)m->e[i].a);
        if (two)
            pt_put_u64(b, (uint64_t)m->e[i].b);
        pt_put_u64(b, map[m->e[i].val]);
    }
}

/* Whether slice I of SRC's timeline is one nsys reads beyond the compile section: every
 * slice but the push/pop ranges of an nsys-jax archive (host tracks, no run id), whose
 * compile summary the partial keeps as the source's nsys_compile_part; those naming a
 * compiled program stay (the warm-up split counts them). */
static int slice_kept(const pq_source *src, const model_slices *m, size_t i)
{
    return src->info.format != PQ_FORMAT_NSYS_JAX || m->tracks[m->track[i]].tid >= 0 ||
           (m->flags[i] & SLICE_GPU_ANNOTATION) || m->run_id[i] ||
           nsys_compiled_program(intern_str(&m->names, m->name[i])) >= 0;
}

/* Whether the name of slice I is read only in part: an nsys-jax archive's GPU ranges (a
 * thunk's name only for its hlo_op, nsys_thunk_op; a module range's not at all). */
static int name_reduced(const pq_source *src, const model_slices *m, size_t i)
{
    return src->info.format == PQ_FORMAT_NSYS_JAX && (m->flags[i] & SLICE_GPU_ANNOTATION);
}

/* The kept slices' ids of a column COL (NULL: none) marked in USED; with SRC (the name
 * column) those of the slices whose names are kept whole. */
static void mark_used(uint8_t *used, const uint32_t *col, const uint32_t *keep, size_t n,
                      const pq_source *src)
{
    for (size_t k = 0; col && k < n; k++)
        if (!src || !name_reduced(src, src->slices, keep[k]))
            used[col[keep[k]]] = 1;
}

/* The name ids of the kept slices KEEP[0..N) into NCOL: a name kept whole through MAP; a
 * reduced one (name_reduced) as "TSL:Thunk:#hlo_op=OP#" for a thunk with an hlo_op, else
 * "", interned in OPS, whose ids follow the NN names kept. 0 when out of memory. */
static int name_col(const pq_source *src, const uint32_t *keep, size_t n, const uint32_t *map,
                    uint32_t nn, intern_pool *ops, uint32_t *ncol)
{
    static const char pre[] = "TSL:Thunk:#hlo_op=";
    const model_slices *m = src->slices;
    buf s;
    buf_init(&s, NULL);
    for (size_t k = 0; k < n; k++) {
        size_t i = keep[k];
        if (!name_reduced(src, m, i)) {
            ncol[k] = map[m->name[i]];
            continue;
        }
        pq_str op = {NULL, 0};
        if (m->flags[i] & SLICE_XLA_OP)
            op = nsys_thunk_op(intern_str(&m->names, m->name[i]));
        s.n = 0;
        if (op.n) {
            buf_put(&s, pre, sizeof pre - 1);
            buf_put(&s, op.p, op.n);
            buf_put(&s, "#", 1);
        }
        ncol[k] = nn + intern_add(ops, s.n ? s.p : "", s.n);
    }
    int ok = s.status == PQ_OK && !ops->failed;
    buf_release(&s);
    return ok;
}

/* Column COL's values at the kept slices KEEP[0..N), through MAP when given, into TMP. */
static const void *gather(void *tmp, const void *col, size_t width, const uint32_t *keep, size_t n,
                          const uint32_t *map)
{
    for (size_t k = 0; k < n; k++) {
        if (width == 8)
            ((int64_t *)tmp)[k] = ((const int64_t *)col)[keep[k]];
        else if (width == 4)
            ((uint32_t *)tmp)[k] =
                map ? map[((const uint32_t *)col)[keep[k]]] : ((const uint32_t *)col)[keep[k]];
        else
            ((uint8_t *)tmp)[k] = ((const uint8_t *)col)[keep[k]];
    }
    return tmp;
}

/* 1000 when every kept slice's start and duration is whole nanoseconds (a reader's clock
 * in ns: the columns then hold ns, 1.3 bytes a value less), else 1 (ps). */
static int64_t time_unit(const model_slices *m, const uint32_t *keep, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (m->start_ps[keep[k]] % 1000 || m->dur_ps[keep[k]] % 1000)
            return 1;
    return 1000;
}

/* The 8-byte values V[0..N) divided by UNIT (exact: time_unit). */
static const void *in_unit(void *v, size_t n, int64_t unit)
{
    for (size_t k = 0; k < n; k++)
        ((int64_t *)v)[k] /= unit;
    return v;
}

/* The tracks, with counts and spans of the kept slices (a track left empty keeps its own). */
static void put_tracks(buf *b, const model_slices *m, const uint32_t *keep, size_t n,
                       slice_track *t)
{
    for (size_t k = 0; k < n; k++)
        nsys_track_add(&t[m->track[keep[k]]], m, keep[k]);
    pt_put_u64(b, m->ntracks);
    for (uint32_t i = 0; i < m->ntracks; i++) {
        const slice_track *k = &m->tracks[i], *x = t[i].nslices ? &t[i] : k;
        pt_put_u64(b, (uint64_t)k->pid);
        pt_put_u64(b, (uint64_t)k->tid);
        pt_put_u64(b, (uint64_t)k->has_kernel);
        pt_put_u64(b, t[i].nslices);
        pt_put_u64(b, (uint64_t)x->first_ps);
        pt_put_u64(b, (uint64_t)x->end_ps);
    }
}

/* SRC's timeline: the kept slices (slice_kept) and the names they and the process and
 * thread names use, in their order (ids renumbered; id 0 stays 0). */
static pq_status put_slices(buf *b, const pq_source *src, pq_error *err)
{
    const model_slices *m = src->slices;
    uint32_t *keep = pq_calloc(m->n + 1, sizeof *keep), *map = pq_calloc(m->names.n + 1, 4);
    uint8_t *used = pq_calloc(m->names.n + 1, 1);
    void *tmp = pq_calloc(m->n + 1, 8);
    uint32_t *ncol = pq_calloc(m->n + 1, 4);
    slice_track *t = pq_calloc(m->ntracks + 1, sizeof *t);
    intern_pool ops;
    int have_ops = intern_init(&ops) == 0;
    pq_status st = PQ_OK;
    if (!keep || !map || !used || !tmp || !ncol || !t || !have_ops) {
        st = err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
        goto done;
    }
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (slice_kept(src, m, i))
            keep[n++] = (uint32_t)i;
    used[0] = 1;
    mark_used(used, m->name, keep, n, src);
    mark_used(used, m->run_id, keep, n, NULL);
    mark_used(used, m->module, keep, n, NULL);
    for (size_t i = 0; i < m->proc_names.n; i++)
        used[m->proc_names.e[i].val] = 1;
    for (size_t i = 0; i < m->thread_names.n; i++)
        used[m->thread_names.e[i].val] = 1;
    uint32_t nn = 0;
    for (uint32_t i = 0; i < m->names.n; i++)
        map[i] = used[i] ? nn++ : 0;
    if (!name_col(src, keep, n, map, nn, &ops, ncol)) {
        st = err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
        goto done;
    }
    uint32_t nops = ops.n > 1 ? ops.n : 0; /* "" alone (id 0) only when a slice names it */
    for (size_t k = 0; k < n && !nops; k++)
        nops = ncol[k] >= nn ? ops.n : 0;
    pt_put_u64(b, (uint64_t)m->have_base);
    pt_put_u64(b, (uint64_t)m->base_us);
    pt_put_u64(b, (m->names.n ? nn : 0) + (uint64_t)nops);
    for (uint32_t i = 0; i < m->names.n; i++)
        if (used[i])
            pt_put_str(b, (pq_str){intern_str(&m->names, i), intern_len(&m->names, i)});
    for (uint32_t i = 0; i < nops; i++)
        pt_put_str(b, (pq_str){intern_str(&ops, i), intern_len(&ops, i)});
    put_tracks(b, m, keep, n, t);
    put_pairs(b, &m->proc_names, 0, map);
    put_pairs(b, &m->thread_names, 1, map);
    int64_t unit = time_unit(m, keep, n);
    pt_put_u64(b, n);
    pt_put_u64(b, m->module != NULL);
    pt_put_u64(b, (uint64_t)unit);
    put_col(b, gather(tmp, m->track, 4, keep, n, NULL), n, 4, 0);
    put_col(b, ncol, n, 4, 0);
    put_col(b, gather(tmp, m->run_id, 4, keep, n, map), n, 4, 0);
    gather(tmp, m->start_ps, 8, keep, n, NULL);
    put_col(b, in_unit(tmp, n, unit), n, 8, 1);
    gather(tmp, m->dur_ps, 8, keep, n, NULL);
    put_col(b, in_unit(tmp, n, unit), n, 8, 0);
    put_col(b, gather(tmp, m->flags, 1, keep, n, NULL), n, 1, 0);
    if (m->module)
        put_col(b, gather(tmp, m->module, 4, keep, n, map), n, 4, 0);
done:
    pq_free(keep);
    pq_free(map);
    pq_free(used);
    pq_free(tmp);
    pq_free(ncol);
    pq_free(t);
    if (have_ops)
        intern_free(&ops);
    return st;
}

/* The compile summary's share of SRC (nsys_compile_part): u64 has part, then its 4 counts,
 * u64 entry count, per entry name (str), hit (u64) and the two sums (f64). */
static pq_status put_compile(buf *b, const pq_source *src, pq_error *err)
{
    if (src->info.format != PQ_FORMAT_NSYS_JAX || !src->slices) {
        pt_put_u64(b, 0);
        return PQ_OK;
    }
    nsys_compile_part p;
    FORWARD_IF_ERROR(nsys_compile_part_compute(src, &p, err));
    pt_put_u64(b, 1);
    pt_put_u64(b, p.sources);
    pt_put_u64(b, p.rows);
    pt_put_u64(b, p.rows_detail_removed);
    pt_put_u64(b, p.parallel_regions);
    pt_put_u64(b, p.n);
    for (size_t k = 0; k < p.n; k++) {
        pt_put_str(b,
                   (pq_str){intern_str(&p.names, p.e[k].name), intern_len(&p.names, p.e[k].name)});
        pt_put_u64(b, p.e[k].hit);
        pt_put_f64(b, p.e[k].nc);
        pt_put_f64(b, p.e[k].ch);
    }
    nsys_compile_part_free(&p);
    return PQ_OK;
}

/* The after-optimisation dumps of SRC's archive: their member names and the sha256 of their
 * bytes (xz), which go to BODY's table. */
static pq_status put_dumps(buf *b, const pq_source *src, nsys_body *body, pq_error *err)
{
    if (src->info.format != PQ_FORMAT_NSYS_JAX) {
        pt_put_u64(b, 0);
        return PQ_OK;
    }
    model_members *mm = NULL;
    FORWARD_IF_ERROR(model_members_open(src, &mm, err));
    size_t n = model_members_count(mm), count = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = model_members_name(mm, i);
        count += name && nsysjax_dump_program(name) >= 0;
    }
    pt_put_u64(b, count);
    pq_status st = PQ_OK;
    for (size_t i = 0; i < n && st == PQ_OK; i++) {
        const char *name = model_members_name(mm, i);
        if (!name || nsysjax_dump_program(name) < 0)
            continue;
        mapped_file f = {0};
        st = model_members_read(mm, i, &f, err);
        unsigned char sha[32];
        if (st == PQ_OK) {
            pq_sha256(f.data, f.size, sha);
            pt_put_str(b, (pq_str){name, strlen(name)});
            pt_put_str(b, (pq_str){(const char *)sha, 32});
            if (!dump_add(body, sha, (pq_str){(const char *)f.data, f.size}, 1))
                st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        }
        mapfile_close(&f);
    }
    model_members_close(mm);
    return st;
}

/* A protobuf varint of [*P, END): 0 when it is not one. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int sh = 0; sh < 64 && *p < end; sh += 7) {
        uint8_t c = *(*p)++;
        *v |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80))
            return 1;
    }
    return 0;
}

/* The next field of [*P, END): its number, and its whole bytes [*AT, *P); for a
 * length-delimited one its payload in *DATA, *N. 0 at the end or on malformed bytes. */
static int next_field(const uint8_t **p, const uint8_t *end, const uint8_t **at, uint64_t *num,
                      const uint8_t **data, uint64_t *n)
{
    uint64_t key, v;
    *at = *p;
    *data = NULL;
    *n = 0;
    if (*p >= end || !varint(p, end, &key))
        return 0;
    *num = key >> 3;
    switch (key & 7) {
    case 0:
        return varint(p, end, &v);
    case 1:
    case 5: {
        size_t w = (key & 7) == 1 ? 8 : 4;
        if ((size_t)(end - *p) < w)
            return 0;
        *p += w;
        return 1;
    }
    case 2:
        if (!varint(p, end, n) || *n > (uint64_t)(end - *p))
            return 0;
        *data = *p;
        *p += *n;
        return 1;
    default:
        return 0;
    }
}

/* Whether the XPlane message [P, P + N) is one `profq nsys` reads: a GPU device plane or
 * the host metadata plane (the programs' HloProtos). */
static int nsys_plane(const uint8_t *p, uint64_t n)
{
    const uint8_t *end = p + n, *at, *d;
    uint64_t num, len;
    while (next_field(&p, end, &at, &num, &d, &len))
        if (num == 2 && d) /* XPlane.name */
            return (len == 14 && memcmp(d, "/host:metadata", 14) == 0) ||
                   (len > 12 && memcmp(d, "/device:GPU:", 12) == 0);
    return 0;
}

/* SRC's XSpace less the planes nsys does not read (host threads, other devices): its
 * other fields and its GPU and metadata planes, each as its bytes. */
static pq_status put_xspace(buf *b, const pq_source *src, pq_error *err)
{
    RETURN_ERROR_IF(!src->file.data, err, PQ_ERR_INPUT, src->path, -1,
                    "not mergeable: an XSpace read without keeping its bytes");
    buf x;
    buf_init(&x, NULL);
    const uint8_t *p = src->file.data, *end = p + src->file.size, *at, *d;
    uint64_t num, n;
    while (next_field(&p, end, &at, &num, &d, &n))
        if (num != 1 || nsys_plane(d, n)) /* XSpace.planes */
            buf_put(&x, at, (size_t)(p - at));
    pq_status st = PQ_OK;
    if (p != end)
        st = err_set(err, PQ_ERR_INPUT, src->path, (int64_t)(p - src->file.data),
                     "expected an XSpace field");
    else if (x.status != PQ_OK)
        st = err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
    else
        pt_put_str(b, (pq_str){x.p ? x.p : "", x.n});
    buf_release(&x);
    return st;
}

static pq_status encode_source(const pq_source *src, buf *b, nsys_body *body, pq_error *err)
{
    pt_put_u64(b, (uint64_t)src->info.format);
    if (src->info.format == PQ_FORMAT_XSPACE)
        return put_xspace(b, src, err);
    pt_put_u64(b, (uint64_t)src->nsysjax_newer);
    const model_nsys_export *x = src->nsys_export;
    pt_put_u64(b, x != NULL);
    if (x) {
        const uint64_t v[8] = {x->kernels,       x->memcpys,     x->memsets,
                               x->runtime_calls, x->nvtx_ranges, x->projected_ranges,
                               x->module_ranges, x->thunk_ranges};
        for (int i = 0; i < 8; i++)
            pt_put_u64(b, v[i]);
    }
    pt_put_u64(b, src->slices != NULL);
    if (src->slices)
        FORWARD_IF_ERROR(put_slices(b, src, err));
    FORWARD_IF_ERROR(put_dumps(b, src, body, err));
    return put_compile(b, src, err);
}

static int has_zip_suffix(const char *p)
{
    size_t n = strlen(p);
    return n >= 4 && strcmp(p + n - 4, ".zip") == 0;
}

/* What dedupe_nsysjax (io/discover.c) compares: a .zip archive's bytes (sha256 into SHA,
 * its size returned); SHA stays empty for the other sources. From the source's bytes when
 * it holds them (an archive opened from memory), else from its file. */
static uint64_t archive_digest(const pq_source *src, char sha[65])
{
    struct stat sb;
    if (!has_zip_suffix(src->path))
        return 0;
    if (src->file.data) {
        unsigned char md[32];
        pq_sha256(src->file.data, src->file.size, md);
        for (int i = 0; i < 32; i++)
            snprintf(sha + 2 * i, 3, "%02x", md[i]);
        return src->file.size;
    }
    if (stat(src->path, &sb) != 0 || !S_ISREG(sb.st_mode) || sha256_file_hex(src->path, sha) != 0) {
        sha[0] = 0;
        return 0;
    }
    return (uint64_t)sb.st_size;
}

pq_status pq_partial_nsys(const pq_profile *profile, pq_partial **out, pq_error *err)
{
    *out = NULL;
    for (size_t s = 0; s < profile->nsources; s++) {
        pq_format f = profile->sources[s].info.format;
        RETURN_ERROR_IF(f != PQ_FORMAT_NSYS_JAX && f != PQ_FORMAT_NSYS_SQLITE &&
                            f != PQ_FORMAT_XSPACE,
                        err, PQ_ERR_INPUT, profile->sources[s].path, -1,
                        "not mergeable: nsys partials hold nsys-jax archives, Nsight SQLite "
                        "exports and XSpaces");
    }
    nsys_body *b = pq_calloc(1, sizeof *b);
    RETURN_ERROR_IF(!b, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    arena_init(&b->a);
    pq_status st = PQ_OK;
    for (size_t s = 0; s < profile->nsources && st == PQ_OK; s++) {
        const pq_source *src = &profile->sources[s];
        char sha[65] = "";
        uint64_t size = archive_digest(src, sha);
        buf blob;
        buf_init(&blob, NULL);
        st = encode_source(src, &blob, b, err);
        if (st == PQ_OK && blob.status != PQ_OK)
            st = err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
        nsys_src ns = {{src->path, strlen(src->path)}, {sha, strlen(sha)}, size, {blob.p, blob.n}};
        if (st == PQ_OK && !body_push(b, &ns))
            st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        buf_release(&blob);
    }
    if (st != PQ_OK) {
        body_free(b);
        return st;
    }
    return pt_new(&pt_kind_nsys, b, out, err);
}

/* ---- the file body ---- */

static void nsys_write(const void *body, buf *b)
{
    const nsys_body *s = body;
    pt_put_u64(b, s->nd);
    for (size_t i = 0; i < s->nd; i++) {
        pt_put_str(b, (pq_str){(const char *)s->d[i].sha, 32});
        pt_put_str(b, s->d[i].bytes);
    }
    pt_put_u64(b, s->n);
    for (size_t i = 0; i < s->n; i++) {
        pt_put_str(b, s->v[i].path);
        pt_put_str(b, s->v[i].sha);
        pt_put_u64(b, s->v[i].size);
        pt_put_str(b, s->v[i].blob);
    }
}

/* The table of dumps into S: u64 count, per dump its sha256 (str of 32 bytes), checked
 * against its bytes (str). 0 when R failed. */
static int read_dumps(pt_reader *r, nsys_body *s)
{
    uint64_t n = pt_get_u64(r, "the dump count");
    if (r->status == PQ_OK && n > (uint64_t)(r->end - r->p) / 56)
        pt_fail(r, "truncated partial", "the dumps the count says");
    for (uint64_t i = 0; r->status == PQ_OK && i < n; i++) {
        const uint8_t *at = r->p;
        pq_str sha = pt_get_str(r, &s->a, "a dump's sha256 (32 bytes)");
        pq_str bytes = pt_get_str(r, &s->a, "a dump's bytes");
        unsigned char md[32];
        if (r->status == PQ_OK)
            pq_sha256(bytes.p, bytes.n, md);
        if (r->status == PQ_OK && (sha.n != 32 || memcmp(md, sha.p, 32) != 0)) {
            r->p = at;
            pt_fail(r, "malformed partial", "a dump's sha256, that of its bytes");
        }
        if (r->status == PQ_OK && !dump_add(s, md, bytes, 0))
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
    }
    return r->status == PQ_OK;
}

static void *nsys_read(pt_reader *r)
{
    nsys_body *s = pq_calloc(1, sizeof *s);
    if (!s) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory reading a partial");
        return NULL;
    }
    arena_init(&s->a);
    nsys_dumps t = {0};
    if (read_dumps(r, s) && !(t = (nsys_dumps){s->d, s->nd, NULL}, nsys_dumps_index(&t)))
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
    uint64_t n = pt_get_u64(r, "the source count");
    if (r->status == PQ_OK && n > (uint64_t)(r->end - r->p) / 32)
        pt_fail(r, "truncated partial", "the sources the count says");
    for (uint64_t i = 0; r->status == PQ_OK && i < n; i++) {
        nsys_src ns;
        ns.path = pt_get_str(r, &s->a, "a source path");
        ns.sha = pt_get_str(r, &s->a, "a source sha256 (64 hex digits or empty)");
        if (r->status == PQ_OK && ns.sha.n != 0 && ns.sha.n != 64) {
            r->p -= 8 + ns.sha.n;
            pt_fail(r, "malformed partial", "a source sha256 (64 hex digits or empty)");
        }
        ns.size = pt_get_u64(r, "a source size");
        size_t at = r->header + (size_t)(r->p - r->base) + 8;
        ns.blob = pt_get_str(r, &s->a, "a source's model");
        if (r->status != PQ_OK)
            break;
        /* checked here, where the offsets are the file's: the render decodes it again */
        nsys_decoded d;
        pt_reader sub = {(const uint8_t *)ns.blob.p,
                         (const uint8_t *)ns.blob.p,
                         (const uint8_t *)ns.blob.p + ns.blob.n,
                         at,
                         r->name,
                         r->err,
                         PQ_OK};
        if (nsys_decode_source(&sub, ns.path.p, &t, &d) == PQ_OK)
            nsys_decoded_free(&d);
        r->status = sub.status;
        if (r->status == PQ_OK && !body_push(s, &ns))
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
    }
    pq_free((void *)t.sorted);
    if (r->status != PQ_OK) {
        body_free(s);
        return NULL;
    }
    return s;
}

static pq_status nsys_merge(void *into, const void *from, pq_error *err)
{
    nsys_body *a = into;
    const nsys_body *b = from;
    size_t n = b->n, nd = b->nd; /* INTO may be FROM (its dumps are then all found) */
    for (size_t i = 0; i < nd; i++) {
        nsys_dump d = b->d[i];
        RETURN_ERROR_IF(!dump_add(a, d.sha, d.bytes, 1), err, PQ_ERR_NOMEM, NULL, -1,
                        "out of memory merging partials");
    }
    for (size_t i = 0; i < n; i++) {
        nsys_src s = b->v[i];
        RETURN_ERROR_IF(!body_push(a, &s), err, PQ_ERR_NOMEM, NULL, -1,
                        "out of memory merging partials");
    }
    return PQ_OK;
}

/* Path order; the same path twice by the rest of its bytes (identical inputs tie). */
static int source_cmp(const void *x, const void *y)
{
    const nsys_src *a = *(const nsys_src *const *)x, *b = *(const nsys_src *const *)y;
    int c = pt_str_cmp(a->path, b->path);
    if (!c)
        c = pt_str_cmp(a->blob, b->blob);
    return c;
}

/* The sources one process over the paths in sorted order reads: an archive file with the
 * bytes of one before it is dropped (dedupe_nsysjax). */
static size_t canonical(const nsys_body *s, const nsys_src **v)
{
    for (size_t i = 0; i < s->n; i++)
        v[i] = &s->v[i];
    qsort(v, s->n, sizeof *v, source_cmp);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        int dup = 0;
        for (size_t j = 0; !dup && v[i]->sha.n && j < w; j++)
            dup = v[j]->size == v[i]->size && pt_str_cmp(v[j]->sha, v[i]->sha) == 0;
        if (!dup)
            v[w++] = v[i];
    }
    return w;
}

pq_status pq_partial_render_nsys(const pq_partial *partial, unsigned sections, pq_output fmt,
                                 pq_sink *sink, pq_error *err)
{
    RETURN_ERROR_IF(partial->k != &pt_kind_nsys, err, PQ_ERR_USAGE, NULL, -1,
                    "expected an nsys partial, found one of '%s'", partial->k->name);
    const nsys_body *s = partial->body;
    const nsys_src **v = pq_calloc(s->n + 1, sizeof *v);
    nsys_decoded *d = pq_calloc(s->n + 1, sizeof *d);
    const nsys_compile_part **parts = pq_calloc(s->n + 1, sizeof *parts);
    pq_profile prof = {pq_calloc(s->n + 1, sizeof *prof.sources), 0};
    nsys_dumps t = {s->d, s->nd, NULL};
    pq_status st = PQ_OK;
    if (!v || !d || !parts || !prof.sources || !nsys_dumps_index(&t))
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    size_t n = st == PQ_OK ? canonical(s, v) : 0, ok = 0;
    for (size_t i = 0; i < n && st == PQ_OK; i++) {
        pt_reader r = {(const uint8_t *)v[i]->blob.p,
                       (const uint8_t *)v[i]->blob.p,
                       (const uint8_t *)v[i]->blob.p + v[i]->blob.n,
                       0,
                       v[i]->path.p,
                       err,
                       PQ_OK};
        st = nsys_decode_source(&r, v[i]->path.p, &t, &d[i]);
        ok += st == PQ_OK;
        if (st == PQ_OK)
            nsys_source_of(&d[i], v[i]->path.p, &prof.sources[i]);
        if (st == PQ_OK && d[i].has_compile)
            parts[i] = &d[i].compile;
    }
    prof.nsources = n;
    if (st == PQ_OK) {
        pq_nsys_options o = {sections, fmt};
        pq_nsys_result *res = NULL;
        st = nsys_compute_api(&prof, &o, parts, &res, err);
        if (st == PQ_OK)
            st = pq_nsys_render(res, fmt, sink, err);
        pq_nsys_free(res);
    }
    for (size_t i = 0; i < ok; i++)
        nsys_decoded_free(&d[i]);
    pq_free(prof.sources);
    pq_free((void *)t.sorted);
    pq_free((void *)parts);
    pq_free(d);
    pq_free(v);
    return st;
}

static pq_status nsys_render_any(const void *body, const pq_ops_options *opts, pq_output fmt,
                                 pq_sink *sink, pq_error *err)
{
    (void)opts;
    pq_partial p = {&pt_kind_nsys, (void *)body};
    return pq_partial_render_nsys(&p, 0, fmt, sink, err);
}

const pt_kind pt_kind_nsys = {PQ_PARTIAL_NSYS, "nsys",          nsys_write, nsys_read,
                              nsys_merge,      nsys_render_any, body_free};
