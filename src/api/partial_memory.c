/* partial_memory.c - the partial of `profq memory` (kind 6): per source its attribution rows
 * (pq_memory_row: host, device, module, peak, groups, buckets, checks), and what the map
 * was asked (the bucket names the rules give, --memory-space, --module and whether any
 * program of the part matched it). Merge collects the sources; the render puts them in path
 * order, recomputes the min/avg/max over the rows as one process does
 * (memattr_aggregate) and renders with pq_memory_render_ex. Not the attribution
 * (analysis/memattr.c); the format is in docs/internals/partial.md. */
#include "analysis/memattr.h"
#include "api/partial_int.h"
#include "core/alloc.h"
#include "core/err.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

typedef struct mem_source {
    pq_str path;
    pq_memory_row *rows;
    uint64_t nrows;
} mem_source;

typedef struct mem_body {
    arena a;
    pq_str bucket[PQ_MEMORY_MAX_BUCKETS];
    uint64_t nbuckets;
    uint64_t has_prefix, any_match; /* --module given; a program of the part matched it */
    pq_str prefix;
    int64_t memory_space;
    mem_source *v;
    size_t n, cap;
} mem_body;

static void body_free(void *p)
{
    mem_body *b = p;
    if (!b)
        return;
    arena_release(&b->a);
    pq_free(b->v);
    pq_free(b);
}

static mem_source *body_push(mem_body *b)
{
    void *v = b->v;
    if (!pt_reserve(&v, b->n, &b->cap, sizeof *b->v))
        return NULL;
    b->v = v;
    mem_source *s = &b->v[b->n++];
    memset(s, 0, sizeof *s);
    return s;
}

static const char *dup_cstr(arena *a, const char *s)
{
    return arena_strndup(a, s ? s : "", s ? strlen(s) : 0);
}

static pq_str dup_str(arena *a, pq_str s)
{
    pq_str d = {arena_strndup(a, s.p ? s.p : "", s.n), s.n};
    return d;
}

/* Copies the N rows ROWS into A (strings included); NULL when out of memory. */
static pq_memory_row *copy_rows(arena *a, const pq_memory_row *rows, size_t n)
{
    pq_memory_row *v = arena_alloc(a, (n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        v[i] = rows[i];
        v[i].host = dup_cstr(a, rows[i].host);
        v[i].device = dup_cstr(a, rows[i].device);
        v[i].module = dup_cstr(a, rows[i].module);
        for (int g = 0; g < rows[i].ngroups; g++)
            v[i].group_names[g] = dup_cstr(a, rows[i].group_names[g]);
    }
    return arena_failed(a) ? NULL : v;
}

/* ---- the map ---- */

static pq_status map_source(mem_body *b, const pq_source *src, const pq_memory_options *opts,
                            pq_error *err)
{
    pq_profile one = {(pq_source *)src, 1};
    pq_memory_result *r = NULL;
    pq_status st = pq_memory_compute(&one, opts, &r, err);
    /* --module matching no device of this part is the whole run's question: the render
     * asks it again of all the rows; the library's message says whether a program matched */
    if (st == PQ_ERR_NOT_FOUND && opts->module_prefix && *opts->module_prefix) {
        b->any_match |= strstr(err->message, "no device ran") != NULL;
        pq_memory_options none = *opts;
        none.module_prefix = NULL; /* the idle devices' rows, as the prefix leaves them */
        st = pq_memory_compute(&one, &none, &r, err);
        for (int i = 0; st == PQ_OK && i < r->nrows; i++)
            if (!r->rows[i].ran_nothing)
                r->rows[i].ran_nothing = 2; /* ran a module, none of the prefix: no row */
    } else if (st == PQ_OK && opts->module_prefix && *opts->module_prefix) {
        b->any_match = 1;
    }
    FORWARD_IF_ERROR(st);
    mem_source *s = body_push(b);
    int keep = 0;
    for (int i = 0; i < r->nrows; i++)
        keep += r->rows[i].ran_nothing != 2;
    pq_memory_row *rows = pq_malloc((size_t)(keep ? keep : 1) * sizeof *rows);
    int n = 0;
    for (int i = 0; rows && i < r->nrows; i++)
        if (r->rows[i].ran_nothing != 2)
            rows[n++] = r->rows[i];
    if (s && rows) {
        s->path = dup_str(&b->a, src->info.path);
        s->rows = copy_rows(&b->a, rows, (size_t)n);
        s->nrows = (uint64_t)n;
    }
    for (int k = 0; k < r->nbuckets && !b->nbuckets; k++) /* the rules': one list for all */
        b->bucket[k] = dup_str(&b->a, (pq_str){r->bucket_names[k], strlen(r->bucket_names[k])});
    if (!b->nbuckets)
        b->nbuckets = (uint64_t)r->nbuckets;
    pq_free(rows);
    pq_memory_free(r);
    RETURN_ERROR_IF(!s || !rows || !s->rows || arena_failed(&b->a), err, PQ_ERR_NOMEM, NULL, -1,
                    "out of memory");
    return PQ_OK;
}

pq_status pq_partial_memory(const pq_profile *profile, const pq_memory_options *opts,
                            pq_partial **out, pq_error *err)
{
    *out = NULL;
    mem_body *b = pq_calloc(1, sizeof *b);
    RETURN_ERROR_IF(!b, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    arena_init(&b->a);
    b->memory_space = opts->memory_space;
    b->has_prefix = opts->module_prefix && *opts->module_prefix;
    b->prefix = dup_str(&b->a, (pq_str){b->has_prefix ? opts->module_prefix : "",
                                        b->has_prefix ? strlen(opts->module_prefix) : 0});
    pq_status st = PQ_OK;
    for (size_t s = 0; s < profile->nsources && st == PQ_OK; s++)
        st = map_source(b, &profile->sources[s], opts, err);
    if (st != PQ_OK) {
        body_free(b);
        return st;
    }
    return pt_new(&pt_kind_memory, b, out, err);
}

/* ---- the body on disk ---- */

/* X(type, lvalue, what): the scalars of a row; its strings, groups and buckets apart. */
#define ROW_FIELDS(X, r)                                                                           \
    X(r->ran_nothing, "row ran_nothing")                                                           \
    X(r->program_id, "row program_id")                                                             \
    X(r->peak_bytes, "row peak_bytes")                                                             \
    X(r->entry_params_bytes, "row entry_params_bytes")                                             \
    X(r->gradient_hits, "row gradient_hits")                                                       \
    X(r->parameter_rows_bytes, "row parameter_rows_bytes")                                         \
    X(r->check_delta[0], "row check")                                                              \
    X(r->check_delta[1], "row check")                                                              \
    X(r->check_delta[2], "row check")                                                              \
    X(r->check_ok[0], "row check")                                                                 \
    X(r->check_ok[1], "row check")                                                                 \
    X(r->check_ok[2], "row check")

static void put_cstr(buf *b, const char *s)
{
    pt_put_str(b, (pq_str){s, strlen(s)});
}

static void memory_write(const void *body, buf *b)
{
    const mem_body *m = body;
    pt_put_u64(b, m->has_prefix);
    pt_put_str(b, m->prefix);
    pt_put_u64(b, m->any_match);
    pt_put_u64(b, (uint64_t)m->memory_space);
    pt_put_u64(b, m->nbuckets);
    for (uint64_t k = 0; k < m->nbuckets; k++)
        pt_put_str(b, m->bucket[k]);
    pt_put_u64(b, m->n);
    for (size_t i = 0; i < m->n; i++) {
        pt_put_str(b, m->v[i].path);
        pt_put_u64(b, m->v[i].nrows);
        for (uint64_t j = 0; j < m->v[i].nrows; j++) {
            const pq_memory_row *r = &m->v[i].rows[j];
            put_cstr(b, r->host);
            put_cstr(b, r->device);
            put_cstr(b, r->module);
#define PUT(field, what) pt_put_u64(b, (uint64_t)(field));
            ROW_FIELDS(PUT, r)
#undef PUT
            pt_put_u64(b, (uint64_t)r->ngroups);
            for (int g = 0; g < r->ngroups; g++) {
                put_cstr(b, r->group_names[g]);
                pt_put_u64(b, (uint64_t)r->group_bytes[g]);
            }
            for (uint64_t k = 0; k < m->nbuckets; k++)
                pt_put_u64(b, (uint64_t)r->bucket_bytes[k]);
        }
    }
}

/* A count of items of at least MIN bytes each, checked against the bytes left. */
static uint64_t get_count(pt_reader *r, uint64_t max, size_t min, const char *what)
{
    uint64_t n = pt_get_u64(r, what);
    if (r->status == PQ_OK && (n > max || n > (uint64_t)(r->end - r->p) / min))
        pt_fail(r, n > max ? "malformed partial" : "truncated partial", what);
    return r->status == PQ_OK ? n : 0;
}

static void read_row(pt_reader *r, mem_body *m, pq_memory_row *row)
{
    row->host = pt_get_str(r, &m->a, "row host").p;
    row->device = pt_get_str(r, &m->a, "row device").p;
    row->module = pt_get_str(r, &m->a, "row module").p;
#define GET(field, what) field = pt_get_u64(r, what);
    ROW_FIELDS(GET, row)
#undef GET
    row->ran_nothing = row->ran_nothing != 0; /* flags: 0 or 1, as the renderer counts them */
    for (int k = 0; k < 3; k++)
        row->check_ok[k] = row->check_ok[k] != 0;
    row->ngroups = (int)get_count(r, PQ_MEMORY_MAX_GROUPS, 16, "row groups");
    for (int g = 0; g < row->ngroups; g++) {
        row->group_names[g] = pt_get_str(r, &m->a, "row group").p;
        row->group_bytes[g] = (int64_t)pt_get_u64(r, "row group bytes");
    }
    for (uint64_t k = 0; k < m->nbuckets; k++)
        row->bucket_bytes[k] = (int64_t)pt_get_u64(r, "row bucket bytes");
}

static void *memory_read(pt_reader *r)
{
    mem_body *m = pq_calloc(1, sizeof *m);
    if (!m) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory reading a partial");
        return NULL;
    }
    arena_init(&m->a);
    m->has_prefix = pt_get_u64(r, "has_prefix") != 0;
    m->prefix = pt_get_str(r, &m->a, "prefix");
    m->any_match = pt_get_u64(r, "any_match") != 0;
    m->memory_space = (int64_t)pt_get_u64(r, "memory_space");
    m->nbuckets = get_count(r, PQ_MEMORY_MAX_BUCKETS, 8, "the bucket count");
    for (uint64_t k = 0; k < m->nbuckets; k++)
        m->bucket[k] = pt_get_str(r, &m->a, "a bucket name");
    /* a source is at least its path and row count; a row at least 3 strings, 12 scalars,
     * its group count and its buckets */
    uint64_t n = get_count(r, UINT64_MAX, 16, "the source count");
    for (uint64_t i = 0; r->status == PQ_OK && i < n; i++) {
        mem_source *s = body_push(m);
        if (!s) {
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
            break;
        }
        s->path = pt_get_str(r, &m->a, "a source path");
        s->nrows = get_count(r, UINT64_MAX, 8 * (16 + m->nbuckets), "the row count");
        s->rows = r->status == PQ_OK
                      ? arena_alloc(&m->a, (s->nrows ? s->nrows : 1) * sizeof *s->rows)
                      : NULL;
        if (r->status == PQ_OK && !s->rows)
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
        for (uint64_t j = 0; r->status == PQ_OK && j < s->nrows; j++) {
            memset(&s->rows[j], 0, sizeof s->rows[j]);
            read_row(r, m, &s->rows[j]);
        }
    }
    if (r->status != PQ_OK) {
        body_free(m);
        return NULL;
    }
    return m;
}

/* Appends FROM's sources to INTO: partials of one --rules, --module and --memory-space. */
static pq_status memory_merge(void *into, const void *from, pq_error *err)
{
    mem_body *a = into;
    const mem_body *b = from;
    int same = a->nbuckets == b->nbuckets && a->has_prefix == b->has_prefix &&
               a->memory_space == b->memory_space && pq_str_eq(a->prefix, b->prefix.p) &&
               a->prefix.n == b->prefix.n;
    for (uint64_t k = 0; same && k < a->nbuckets; k++)
        same = a->bucket[k].n == b->bucket[k].n &&
               memcmp(a->bucket[k].p, b->bucket[k].p, a->bucket[k].n) == 0;
    RETURN_ERROR_IF(!same, err, PQ_ERR_INPUT, NULL, -1,
                    "memory partials made with other --rules, --module or --memory-space");
    a->any_match |= b->any_match;
    size_t n = b->n; /* INTO may be FROM */
    for (size_t i = 0; i < n; i++) {
        mem_source src = b->v[i];
        mem_source *d = body_push(a);
        RETURN_ERROR_IF(!d, err, PQ_ERR_NOMEM, NULL, -1, "out of memory merging partials");
        d->path = dup_str(&a->a, src.path);
        d->rows = copy_rows(&a->a, src.rows, (size_t)src.nrows);
        d->nrows = src.nrows;
        RETURN_ERROR_IF(!d->rows || arena_failed(&a->a), err, PQ_ERR_NOMEM, NULL, -1,
                        "out of memory merging partials");
    }
    return PQ_OK;
}

/* ---- the render ---- */

/* By path, as one process reads its inputs; the same path twice by its rows' names. */
static int source_cmp(const void *x, const void *y)
{
    const mem_source *a = *(const mem_source *const *)x, *b = *(const mem_source *const *)y;
    int c = pt_str_cmp(a->path, b->path);
    if (!c)
        c = (a->nrows > b->nrows) - (a->nrows < b->nrows);
    for (uint64_t i = 0; !c && i < a->nrows; i++) {
        c = strcmp(a->rows[i].device, b->rows[i].device);
        c = c ? c : strcmp(a->rows[i].module, b->rows[i].module);
        c = c ? c
              : (a->rows[i].peak_bytes > b->rows[i].peak_bytes) -
                    (a->rows[i].peak_bytes < b->rows[i].peak_bytes);
    }
    return c;
}

static pq_status memory_render(const void *body, const pq_ops_options *opts, pq_output fmt,
                               pq_sink *sink, pq_error *err)
{
    const mem_body *m = body;
    RETURN_ERROR_IF(fmt != PQ_OUT_TEXT && fmt != PQ_OUT_JSON && fmt != PQ_OUT_TSV &&
                        fmt != PQ_OUT_MD,
                    err, PQ_ERR_USAGE, "", -1, "memory prints text, json, tsv or md");
    uint64_t total = 0;
    for (size_t i = 0; i < m->n; i++)
        total += m->v[i].nrows;
    RETURN_ERROR_IF(total > INT32_MAX, err, PQ_ERR_INPUT, NULL, -1, "malformed partial: %llu rows",
                    (unsigned long long)total);
    const mem_source **order = pq_malloc((m->n ? m->n : 1) * sizeof *order);
    pq_memory_result res;
    memset(&res, 0, sizeof res);
    res.rows = pq_malloc((size_t)(total ? total : 1) * sizeof *res.rows);
    if (!order || !res.rows) {
        pq_free(order);
        pq_free(res.rows);
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    for (size_t i = 0; i < m->n; i++)
        order[i] = &m->v[i];
    qsort(order, m->n, sizeof *order, source_cmp);
    for (size_t i = 0; i < m->n; i++)
        for (uint64_t j = 0; j < order[i]->nrows; j++) {
            res.rows[res.nrows] = order[i]->rows[j];
            res.nidle += res.rows[res.nrows++].ran_nothing;
        }
    pq_free(order);
    res.nbuckets = (int)m->nbuckets;
    for (int k = 0; k < res.nbuckets; k++)
        res.bucket_names[k] = m->bucket[k].p;
    pq_status st = PQ_OK;
    if (m->has_prefix && res.nrows == res.nidle) /* as one process: --module matched no row */
        st = err_set(err, PQ_ERR_NOT_FOUND, "", -1,
                     m->any_match ? "no device ran a module matching '%s' (with a memory viewer)"
                                  : "no module matches '%s' (profq memory-viewer PATH lists them)",
                     m->prefix.p);
    if (st == PQ_OK) {
        memattr_aggregate(&res);
        pq_memory_options mo = {NULL, 0, NULL, NULL, opts && opts->wide};
        st = pq_memory_render_ex(&res, &mo, fmt, sink, err);
    }
    pq_free(res.rows);
    return st;
}

const pt_kind pt_kind_memory = {PQ_PARTIAL_MEMORY, "memory",      memory_write, memory_read,
                                memory_merge,      memory_render, body_free};
