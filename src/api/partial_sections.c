/* partial_sections.c - the partials of the commands whose output is one section per source
 * and, at most, totals that sum: `profq info` (kind 4) and `profq memory-profile` (kind 5).
 * Each source's section is rendered once by the command's own renderer, over a view of the
 * profile holding that source alone, in every format the command prints; a merge collects
 * the sections, and the render joins them in path order between the command's head and foot
 * (the info totals summed). So a merge prints what one process prints without a second
 * renderer to keep in step. Not the header and dispatch (partial.c); the format is in
 * docs/internals/partial.md. */
#include "api/partial_int.h"
#include "core/alloc.h"
#include "core/err.h"
#include "model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEC_TEXT, SEC_JSON, SEC_XPROF, SEC_FORMATS };
enum { SEC_COUNTS = 5 }; /* info's totals beyond sources: planes, lines, events, programs, bytes */

static const char *const TOTAL_KEYS[SEC_COUNTS] = {"planes", "lines", "events", "programs",
                                                   "bytes"};

typedef struct sec_source {
    pq_str path;
    pq_str frag[SEC_FORMATS]; /* empty where the command has no such format */
    uint64_t counts[SEC_COUNTS];
} sec_source;

typedef struct sec_body {
    arena a;
    sec_source *v;
    size_t n, cap;
} sec_body;

/* What differs between the commands: the JSON head before the first source and the foot
 * after the last (with info, the start of the totals that follow), the separator of two
 * text sections, and whether the foot carries info's totals. */
typedef struct sec_cmd {
    const char *json_head, *json_foot;
    const char *text_sep;
    int totals;
    int xprof;
    pq_status (*render)(const pq_profile *one, pq_output fmt, pq_sink *sink, pq_error *err);
} sec_cmd;

static void body_free(void *p)
{
    sec_body *b = p;
    if (!b)
        return;
    arena_release(&b->a);
    pq_free(b->v);
    pq_free(b);
}

static sec_body *body_new(void)
{
    sec_body *b = pq_calloc(1, sizeof *b);
    if (b)
        arena_init(&b->a);
    return b;
}

/* A new source slot at the end of B (zeroed), or NULL when out of memory. */
static sec_source *body_push(sec_body *b)
{
    void *v = b->v;
    if (!pt_reserve(&v, b->n, &b->cap, sizeof *b->v))
        return NULL;
    b->v = v;
    sec_source *s = &b->v[b->n++];
    memset(s, 0, sizeof *s);
    return s;
}

static int copy_str(arena *a, pq_str *dst, const char *p, size_t n)
{
    char *c = arena_strndup(a, p ? p : "", n);
    if (!c)
        return 0;
    dst->p = c;
    dst->n = n;
    return 1;
}

/* ---- the map: one source's sections ---- */

/* Reads "KEY": N from the foot of a one-source info JSON at or after FROM. */
static int foot_count(const char *foot, size_t n, const char *key, uint64_t *out)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\n    \"%s\": ", key);
    size_t k = strlen(pat);
    for (size_t i = 0; i + k <= n; i++) {
        if (memcmp(foot + i, pat, k) == 0) {
            char num[24];
            size_t j = 0;
            while (i + k + j < n && j < sizeof num - 1 && foot[i + k + j] >= '0' &&
                   foot[i + k + j] <= '9') {
                num[j] = foot[i + k + j];
                j++;
            }
            num[j] = 0;
            if (!j)
                return 0;
            *out = strtoull(num, NULL, 10);
            return 1;
        }
    }
    return 0;
}

/* The JSON section of a one-source render J (N bytes): between the head and the foot; the
 * info totals from the foot. 0 when J is not shaped as expected. */
static int json_section(const sec_cmd *c, const char *j, size_t n, sec_source *s, arena *a)
{
    size_t h = strlen(c->json_head);
    const char *end = c->json_foot;
    size_t e = strlen(end), at = 0;
    if (n < h + e || memcmp(j, c->json_head, h) != 0)
        return 0;
    for (size_t i = n - e + 1; i-- > h;) /* the last: a section holds any string */
        if (memcmp(j + i, end, e) == 0) {
            at = i;
            break;
        }
    if (!at || (!c->totals && at + e != n))
        return 0;
    for (int k = 0; c->totals && k < SEC_COUNTS; k++)
        if (!foot_count(j + at, n - at, TOTAL_KEYS[k], &s->counts[k]))
            return 0;
    return copy_str(a, &s->frag[SEC_JSON], j + h, at - h);
}

static pq_status sections_map(const sec_cmd *c, const pq_profile *profile, sec_body *b,
                              pq_error *err)
{
    static const pq_output FMT[SEC_FORMATS] = {PQ_OUT_TEXT, PQ_OUT_JSON, PQ_OUT_XPROF};
    for (size_t si = 0; si < profile->nsources; si++) {
        pq_profile one = {&profile->sources[si], 1};
        sec_source *s = body_push(b);
        RETURN_ERROR_IF(!s || !copy_str(&b->a, &s->path, profile->sources[si].info.path.p,
                                        profile->sources[si].info.path.n),
                        err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        for (int f = 0; f < SEC_FORMATS; f++) {
            if (f == SEC_XPROF && !c->xprof)
                continue;
            buf out;
            buf_init(&out, NULL);
            pq_sink sink = {pt_buf_write, &out};
            pq_status st = c->render(&one, FMT[f], &sink, err);
            int ok = st == PQ_OK && out.status == PQ_OK &&
                     (f == SEC_JSON ? json_section(c, out.p, out.n, s, &b->a)
                                    : copy_str(&b->a, &s->frag[f], out.p, out.n));
            buf_release(&out);
            FORWARD_IF_ERROR(st);
            RETURN_ERROR_IF(!ok, err, PQ_ERR_INTERNAL, NULL, -1,
                            "the %s of one source is not shaped as a partial expects",
                            f == SEC_JSON ? "JSON" : "output");
        }
    }
    return PQ_OK;
}

/* ---- the body on disk ---- */

static void sections_write(const void *body, buf *b)
{
    const sec_body *s = body;
    pt_put_u64(b, s->n);
    for (size_t i = 0; i < s->n; i++) {
        pt_put_str(b, s->v[i].path);
        for (int f = 0; f < SEC_FORMATS; f++)
            pt_put_str(b, s->v[i].frag[f]);
        for (int k = 0; k < SEC_COUNTS; k++)
            pt_put_u64(b, s->v[i].counts[k]);
    }
}

static void *sections_read(pt_reader *r)
{
    sec_body *s = body_new();
    if (!s) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory reading a partial");
        return NULL;
    }
    uint64_t n = pt_get_u64(r, "the source count");
    /* each source takes at least 4 lengths and its counts: never allocate past the bytes */
    if (r->status == PQ_OK && n > (uint64_t)(r->end - r->p) / (8 * (1 + SEC_FORMATS + SEC_COUNTS)))
        pt_fail(r, "truncated partial", "the sources the count says");
    for (uint64_t i = 0; r->status == PQ_OK && i < n; i++) {
        sec_source *src = body_push(s);
        if (!src) {
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
            break;
        }
        src->path = pt_get_str(r, &s->a, "a source path");
        for (int f = 0; f < SEC_FORMATS; f++)
            src->frag[f] = pt_get_str(r, &s->a, "a section");
        for (int k = 0; k < SEC_COUNTS; k++)
            src->counts[k] = pt_get_u64(r, "a count");
    }
    if (r->status != PQ_OK) {
        body_free(s);
        return NULL;
    }
    return s;
}

/* Appends FROM's sources to INTO; the order is settled at the render (by path). */
static pq_status sections_merge(void *into, const void *from, pq_error *err)
{
    sec_body *a = into;
    const sec_body *b = from;
    size_t n = b->n; /* INTO may be FROM */
    for (size_t i = 0; i < n; i++) {
        sec_source src = b->v[i];
        sec_source *d = body_push(a);
        int ok = d != NULL && copy_str(&a->a, &d->path, src.path.p, src.path.n);
        for (int f = 0; ok && f < SEC_FORMATS; f++)
            ok = copy_str(&a->a, &d->frag[f], src.frag[f].p, src.frag[f].n);
        RETURN_ERROR_IF(!ok, err, PQ_ERR_NOMEM, NULL, -1, "out of memory merging partials");
        memcpy(d->counts, src.counts, sizeof d->counts);
    }
    return PQ_OK;
}

/* ---- the render ---- */

/* By path (one process reads its inputs in sorted order); the same path twice by its
 * sections, so that the order never depends on the order of the merges. */
static int source_cmp(const void *x, const void *y)
{
    const sec_source *a = *(const sec_source *const *)x, *b = *(const sec_source *const *)y;
    int c = pt_str_cmp(a->path, b->path);
    for (int f = 0; !c && f < SEC_FORMATS; f++)
        c = pt_str_cmp(a->frag[f], b->frag[f]);
    for (int k = 0; !c && k < SEC_COUNTS; k++)
        c = (a->counts[k] > b->counts[k]) - (a->counts[k] < b->counts[k]);
    return c;
}

static pq_status sections_render(const sec_cmd *c, const void *body, pq_output fmt, pq_sink *sink,
                                 pq_error *err)
{
    const sec_body *s = body;
    int f = fmt == PQ_OUT_JSON ? SEC_JSON : fmt == PQ_OUT_XPROF ? SEC_XPROF : SEC_TEXT;
    RETURN_ERROR_IF((fmt != PQ_OUT_TEXT && f == SEC_TEXT) || (f == SEC_XPROF && !c->xprof), err,
                    PQ_ERR_USAGE, "", -1, "this command's partials print text or json");
    RETURN_ERROR_IF(f == SEC_XPROF && s->n != 1, err, PQ_ERR_USAGE, "", -1,
                    "--format xprof takes exactly one XSpace (XProf's memory_profile does)");
    const sec_source **order = pq_malloc((s->n ? s->n : 1) * sizeof *order);
    RETURN_ERROR_IF(!order, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    uint64_t tot[SEC_COUNTS] = {0};
    for (size_t i = 0; i < s->n; i++) {
        order[i] = &s->v[i];
        for (int k = 0; k < SEC_COUNTS; k++) /* the renderer's uint64 sums: wrapping */
            tot[k] += s->v[i].counts[k];
    }
    qsort(order, s->n, sizeof *order, source_cmp);
    buf b;
    buf_init(&b, sink);
    if (f == SEC_JSON)
        buf_puts(&b, c->json_head);
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            buf_puts(&b, f == SEC_JSON ? ",\n" : c->text_sep);
        buf_put(&b, order[i]->frag[f].p, order[i]->frag[f].n);
    }
    if (f == SEC_JSON)
        buf_puts(&b, c->json_foot);
    if (f == SEC_JSON && c->totals) {
        buf_printf(&b, "\n    \"sources\": %zu", s->n);
        for (int k = 0; k < SEC_COUNTS; k++)
            buf_printf(&b, ",\n    \"%s\": %" PRIu64, TOTAL_KEYS[k], tot[k]);
        buf_puts(&b, "\n  }\n}\n");
    }
    pq_free(order);
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (st != PQ_OK)
        st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    return st;
}

/* ---- the two commands ---- */

static const sec_cmd INFO = {"{\n  \"schema\": \"profq.info.v1\",\n  \"sources\": [\n",
                             "\n  ],\n  \"totals\": {",
                             "\n",
                             1,
                             0,
                             pq_render_info};
static const sec_cmd MEMORY_PROFILE = {
    "{\n  \"schema\": \"profq.memory_profile.v1\",\n  \"sources\": [\n",
    "\n  ]\n}\n\n",
    "",
    0,
    1,
    pq_render_memory_profile};

static pq_status info_render(const void *body, const pq_ops_options *opts, pq_output fmt,
                             pq_sink *sink, pq_error *err)
{
    (void)opts;
    return sections_render(&INFO, body, fmt, sink, err);
}

static pq_status memory_profile_render(const void *body, const pq_ops_options *opts, pq_output fmt,
                                       pq_sink *sink, pq_error *err)
{
    (void)opts;
    return sections_render(&MEMORY_PROFILE, body, fmt, sink, err);
}

const pt_kind pt_kind_info = {PQ_PARTIAL_INFO, "info",      sections_write, sections_read,
                              sections_merge,  info_render, body_free};
const pt_kind pt_kind_memory_profile = {
    PQ_PARTIAL_MEMORY_PROFILE, "memory-profile", sections_write, sections_read, sections_merge,
    memory_profile_render,     body_free};

static pq_status make(const pt_kind *k, const sec_cmd *c, const pq_profile *profile,
                      pq_partial **out, pq_error *err)
{
    *out = NULL;
    sec_body *b = body_new();
    RETURN_ERROR_IF(!b, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    pq_status st = sections_map(c, profile, b, err);
    if (st != PQ_OK) {
        body_free(b);
        return st;
    }
    return pt_new(k, b, out, err);
}

pq_status pq_partial_info(const pq_profile *profile, pq_partial **out, pq_error *err)
{
    return make(&pt_kind_info, &INFO, profile, out, err);
}

pq_status pq_partial_memory_profile(const pq_profile *profile, pq_partial **out, pq_error *err)
{
    return make(&pt_kind_memory_profile, &MEMORY_PROFILE, profile, out, err);
}
