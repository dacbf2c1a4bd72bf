/* nsys_compile.c - the compile frame of the nsys-jax loader and the notebook's compile
 * summary (nsys_compile.h), from the model's host push/pop ranges (formats/nsysjax.c puts
 * them on one track per thread): their nesting gives the report's ParentId, NumChild,
 * DurChild and DurNonChild (load_rows). The steps are those of the loader, in its order:
 * 1. program ids from XlaCompileBackend names, copied to their XlaCompile parent;
 * 2. parallel workers (root ranges of other threads inside an XlaCompile) grafted under
 *    the last still-open main-thread range, whose DurChild/DurNonChild become NaN;
 * 3. only XlaCompile ranges and their descendants kept, program ids inherited from the
 *    nearest ancestor, non-TSL ranges (cuBLAS) folded into their parents;
 * 4. names: "TSL:" dropped, ",program_id=N", ",module=M" and ":#module=M#" removed;
 * 5. remove_autotuning_detail (current loader): XlaAutotunerMeasurement* renamed and their
 *    children dropped, the children of XlaAutotunerCompilation dropped;
 * 6. generate_compilation_statistics (current loader): main thread = thread of XlaCompile;
 *    each parallel region's wall time split over its worker ranges in proportion to their
 *    DurNonChild, the launcher's own times recomputed, then the main thread's rows summed;
 * 7. the notebook's cell: names cleaned, grouped, sorted, the 97% cut.
 * Descendant tests follow ParentId links (the loader's RangeStack prefixes are built from
 * the same links, grafts included). Steps 1-6 run per source into a part (counts and per-name
 * sums, nsys_compile_part); the summary merges the parts in source order, so that an nsys
 * partial, which keeps the parts instead of the ranges, merges to the same bytes.
 * Not here: the module, thunk and communication frames. */
#include "nsys_compile.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/pairmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct crow {
    int64_t start, end, dur, tid, numchild, program;
    double dc, dnc; /* DurChild, DurNonChild; NaN after a graft */
    int32_t parent; /* row index, -1 for a root */
    uint32_t name;  /* id in the result's names, after step 4 */
    pq_str raw;     /* the report's name */
    pq_str pname;   /* program name (module=) */
    uint8_t has_prog, compile, keep, prune;
} crow;

typedef struct ctx {
    crow *r;
    size_t n;
    nsys_compile_result *out;
    double *nc, *ch; /* per name id: statistics of step 6 */
    uint8_t *hit;    /* per name id: the name has a row in the statistics */
    uint32_t cap;
} ctx;

static int starts(pq_str s, const char *pre)
{
    size_t n = strlen(pre);
    return s.n >= n && memcmp(s.p, pre, n) == 0;
}

/* Whether ANC is a strict ancestor of row I (bounded: ParentId cycles end the walk). */
static int is_desc(const ctx *c, size_t i, size_t anc)
{
    int32_t p = c->r[i].parent;
    for (size_t k = 0; p >= 0 && k <= c->n; k++, p = c->r[p].parent)
        if ((size_t)p == anc)
            return 1;
    return 0;
}

/* "TSL:XlaCompileBackend:#module=NAME,program_id=N#" as the loader's regex reads it (the
 * shortest NAME). */
static void parse_backend(crow *w)
{
    static const char pre[] = "TSL:XlaCompileBackend:#module=", key[] = ",program_id=";
    if (!starts(w->raw, pre))
        return;
    const char *s = w->raw.p, *end = s + w->raw.n;
    for (const char *k = s + sizeof pre - 1; k + sizeof key - 1 < end; k++) {
        if (memcmp(k, key, sizeof key - 1) != 0)
            continue;
        const char *d = k + sizeof key - 1, *e = d;
        int64_t v = 0;
        while (e < end && *e >= '0' && *e <= '9' && v < INT64_MAX / 10)
            v = v * 10 + (*e++ - '0');
        if (e > d && e + 1 == end && *e == '#') {
            w->program = v;
            w->pname = (pq_str){s + sizeof pre - 1, (size_t)(k - (s + sizeof pre - 1))};
            w->has_prog = 1;
            return;
        }
    }
}

/* The report's rows from the model's host push/pop ranges (one track per thread, in the
 * report's order, which is push order): each range's parent is the innermost open range of
 * its thread that contains it, as the report's ParentId; DurChild and NumChild sum its
 * direct children, DurNonChild is the rest, as the report's columns. */
static pq_status load_rows(ctx *c, const model_slices *m, pq_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        n += m->tracks[m->track[i]].tid < 0 && !(m->flags[i] & SLICE_GPU_ANNOTATION);
    c->r = pq_calloc(n ? n : 1, sizeof *c->r);
    int32_t *open = pq_malloc_array(m->ntracks ? m->ntracks : 1, sizeof *open);
    if (!c->r || !open) {
        pq_free(open);
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    for (uint32_t t = 0; t < m->ntracks; t++)
        open[t] = -1;
    for (size_t i = 0; i < m->n; i++) {
        uint32_t t = m->track[i];
        if (m->tracks[t].tid >= 0 || (m->flags[i] & SLICE_GPU_ANNOTATION))
            continue;
        crow *w = &c->r[c->n];
        w->start = m->start_ps[i] / 1000;
        w->dur = m->dur_ps[i] / 1000;
        w->end = w->start + w->dur;
        w->tid = -m->tracks[t].tid;
        w->raw = (pq_str){intern_str(&m->names, m->name[i]), intern_len(&m->names, m->name[i])};
        int32_t p = open[t];
        while (p >= 0 && !(c->r[p].start <= w->start && w->end <= c->r[p].end))
            p = c->r[p].parent;
        w->parent = p;
        if (p >= 0) {
            c->r[p].numchild++;
            c->r[p].dc += (double)w->dur;
        }
        w->compile = starts(w->raw, "TSL:XlaCompile:#module=");
        parse_backend(w);
        open[t] = (int32_t)c->n++;
    }
    for (size_t i = 0; i < c->n; i++)
        c->r[i].dnc = (double)c->r[i].dur - c->r[i].dc;
    pq_free(open);
    return PQ_OK;
}

/* Steps 1 and 2. */
static pq_status programs_and_grafts(ctx *c, pq_error *err)
{
    for (size_t i = 0; i < c->n; i++) {
        crow *w = &c->r[i];
        if (starts(w->raw, "TSL:XlaCompileBackend:#module=") && w->has_prog && w->parent >= 0) {
            crow *up = &c->r[w->parent];
            up->program = w->program;
            up->pname = w->pname;
            up->has_prog = 1;
        }
    }
    uint32_t *workers = pq_malloc_array(c->n ? c->n : 1, sizeof *workers);
    if (!workers)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t k = 0; k < c->n; k++) {
        const crow *cr = &c->r[k];
        if (!cr->compile)
            continue;
        size_t nw = 0;
        for (size_t i = 0; i < c->n; i++) {
            const crow *w = &c->r[i];
            if (w->start >= cr->start && w->end <= cr->end && w->tid != cr->tid && w->parent < 0)
                workers[nw++] = (uint32_t)i;
        }
        for (size_t q = 0; q < nw; q++) {
            crow *w = &c->r[workers[q]];
            int32_t to = -1;
            for (size_t j = 0; j < c->n; j++) {
                const crow *o = &c->r[j];
                if (o->tid == cr->tid && o->start < w->start && o->end > w->end && is_desc(c, j, k))
                    to = (int32_t)j;
            }
            if (to < 0)
                continue; /* the loader fails here; the range stays outside the frame */
            w->parent = to;
            c->r[to].numchild++;
            c->r[to].dc = c->r[to].dnc = NAN;
        }
    }
    pq_free(workers);
    return PQ_OK;
}

/* Step 3: the frame's rows, their program, non-TSL ranges folded into their parents. */
static void select_rows(ctx *c)
{
    for (size_t i = 0; i < c->n; i++) {
        crow *w = &c->r[i];
        int32_t p = w->parent;
        w->keep = w->compile;
        for (size_t k = 0; !w->keep && p >= 0 && k <= c->n; k++, p = c->r[p].parent)
            w->keep = c->r[p].compile;
    }
    for (size_t i = 0; i < c->n; i++) {
        crow *w = &c->r[i];
        int32_t p = w->parent;
        for (size_t k = 0; w->keep && !w->has_prog && p >= 0 && k <= c->n; k++, p = c->r[p].parent)
            if (c->r[p].has_prog) {
                w->program = c->r[p].program;
                w->pname = c->r[p].pname;
                w->has_prog = 1;
            }
    }
    for (size_t i = 0; i < c->n; i++) {
        crow *w = &c->r[i];
        if (!w->keep || starts(w->raw, "TSL:"))
            continue;
        w->keep = 0;
        if (w->parent >= 0) {
            crow *up = &c->r[w->parent];
            up->numchild--;
            up->dc -= (double)w->dur;
            up->dnc += (double)w->dur;
        }
    }
}

/* Removes every occurrence of PAT[0..PN) from S[0..*N), in place: left to right, each match
 * skipped whole. Only where PAT's first byte is (memchr) can a match start; the bytes
 * between are moved as one run (a byte-by-byte memcmp at every position was 19 M
 * instructions on the shared archive's 31,550 ranges). */
static void remove_all(char *s, size_t *n, const char *pat, size_t pn)
{
    if (!pn)
        return;
    size_t o = 0, i = 0, len = *n;
    while (i < len) {
        const char *q = memchr(s + i, pat[0], len - i);
        size_t j = q ? (size_t)(q - s) : len;
        if (j > i && o != i)
            memmove(s + o, s + i, j - i);
        o += j - i;
        i = j;
        if (i >= len)
            break;
        if (i + pn <= len && memcmp(s + i, pat, pn) == 0)
            i += pn;
        else
            s[o++] = s[i++];
    }
    *n = o;
}

/* Step 4, one row: the loader's remove_program_id_and_name. */
static int rename_row(ctx *c, crow *w, char **tmp, size_t *cap)
{
    size_t need = w->raw.n + 2 * w->pname.n + 64;
    if (need > *cap) {
        char *t = pq_realloc(*tmp, need);
        if (!t)
            return -1;
        *tmp = t;
        *cap = need;
    }
    char *s = *tmp;
    size_t n = w->raw.n;
    memcpy(s, w->raw.p, n);
    if (n >= 4 && memcmp(s, "TSL:", 4) == 0) {
        memmove(s, s + 4, n - 4);
        n -= 4;
    }
    if (w->has_prog) {
        char *pat = s + need - (2 * w->pname.n + 40); /* scratch after the name */
        int k = snprintf(pat, 40, ",program_id=%lld", (long long)w->program);
        remove_all(s, &n, pat, (size_t)k);
        memcpy(pat, ",module=", 8);
        memcpy(pat + 8, w->pname.p, w->pname.n);
        remove_all(s, &n, pat, 8 + w->pname.n);
        memcpy(pat, ":#module=", 9);
        memcpy(pat + 9, w->pname.p, w->pname.n);
        pat[9 + w->pname.n] = '#';
        remove_all(s, &n, pat, 10 + w->pname.n);
    }
    w->name = n ? intern_add(&c->out->names, s, n) : 0;
    return c->out->names.failed ? -1 : 0;
}

/* Step 5: remove_child_ranges of the rows named NAME (a prefix when PREFIX). */
static void prune_children(ctx *c, const char *name, int prefix, uint32_t rename)
{
    size_t ln = strlen(name);
    int any = 0;
    for (size_t i = 0; i < c->n; i++) {
        crow *w = &c->r[i];
        if (!w->keep)
            continue;
        const char *s = intern_str(&c->out->names, w->name);
        size_t n = intern_len(&c->out->names, w->name);
        if (!(prefix ? n >= ln && memcmp(s, name, ln) == 0 : n == ln && memcmp(s, name, ln) == 0))
            continue;
        if (rename)
            w->name = rename;
        if (w->numchild == 0)
            continue;
        w->prune = 1;
        any = 1;
        w->numchild = 0;
        w->dc = 0;
        w->dnc = (double)w->dur;
    }
    for (size_t i = 0; any && i < c->n; i++) {
        crow *w = &c->r[i];
        int32_t p = w->parent;
        for (size_t k = 0; w->keep && p >= 0 && k <= c->n; k++, p = c->r[p].parent)
            if (c->r[p].prune)
                w->keep = 0;
    }
    for (size_t i = 0; i < c->n; i++)
        c->r[i].prune = 0;
}

static int add_time(ctx *c, uint32_t name, double nc, double ch)
{
    if (name >= c->cap) {
        uint32_t nc2 = c->cap ? c->cap : 64;
        while (nc2 <= name)
            nc2 *= 2;
        double *a = pq_realloc_array(c->nc, nc2, sizeof *a);
        if (a)
            c->nc = a;
        double *b = a ? pq_realloc_array(c->ch, nc2, sizeof *b) : NULL;
        if (b)
            c->ch = b;
        uint8_t *h = b ? pq_realloc(c->hit, nc2) : NULL;
        if (!h)
            return -1;
        c->hit = h;
        for (uint32_t k = c->cap; k < nc2; k++) {
            c->nc[k] = c->ch[k] = 0;
            c->hit[k] = 0;
        }
        c->cap = nc2;
    }
    c->nc[name] += nc;
    c->ch[name] += ch;
    c->hit[name] = 1;
    return 0;
}

/* Step 6 for one launcher range L of the main thread. */
static int parallel_region(ctx *c, size_t l)
{
    int64_t pstart = INT64_MAX, pend = INT64_MIN;
    double worker = 0, main_dur = 0;
    for (size_t i = 0; i < c->n; i++) {
        const crow *w = &c->r[i];
        if (!w->keep || !is_desc(c, i, l))
            continue;
        if (w->tid == c->r[l].tid) {
            main_dur += (double)w->dur;
            continue;
        }
        pstart = w->start < pstart ? w->start : pstart;
        pend = w->start + w->dur > pend ? w->start + w->dur : pend;
        if (!isnan(w->dnc))
            worker += w->dnc;
    }
    double pdur = (double)(pend - pstart);
    for (size_t i = 0; i < c->n; i++) {
        const crow *w = &c->r[i];
        if (w->keep && w->tid != c->r[l].tid && is_desc(c, i, l) &&
            add_time(c, w->name, pdur * w->dnc / worker, pdur * w->dc / worker) != 0)
            return -1;
    }
    c->r[l].dc = main_dur + pdur;
    c->r[l].dnc = (double)c->r[l].dur - c->r[l].dc;
    return 0;
}

static int statistics(ctx *c)
{
    uint32_t xc = intern_cstr(&c->out->names, "XlaCompile");
    int64_t main_tid = 0;
    int found = 0;
    for (size_t i = 0; i < c->n && !found; i++)
        if (c->r[i].keep && c->r[i].name == xc) {
            main_tid = c->r[i].tid;
            found = 1;
        }
    if (!found)
        return 0;
    uint8_t *launcher = pq_calloc(c->n ? c->n : 1, 1);
    if (!launcher)
        return -1;
    for (size_t i = 0; i < c->n; i++) {
        const crow *w = &c->r[i];
        if (!w->keep || w->tid == main_tid || w->parent < 0)
            continue;
        const crow *up = &c->r[w->parent];
        if (up->keep && up->tid == main_tid && !launcher[w->parent]) {
            launcher[w->parent] = 1;
            c->out->parallel_regions++;
            if (parallel_region(c, (size_t)w->parent) != 0) {
                pq_free(launcher);
                return -1;
            }
        }
    }
    pq_free(launcher);
    for (size_t i = 0; i < c->n; i++) {
        const crow *w = &c->r[i];
        if (w->keep && w->tid == main_tid && add_time(c, w->name, w->dnc, w->dc) != 0)
            return -1;
    }
    return 0;
}

static pq_status one_source(const pq_source *src, nsys_compile_result *out, ctx *c, pq_error *err)
{
    pq_status st = load_rows(c, src->slices, err);
    if (st == PQ_OK)
        st = programs_and_grafts(c, err);
    char *tmp = NULL;
    size_t cap = 0;
    if (st == PQ_OK) {
        out->sources += c->n > 0;
        select_rows(c);
        for (size_t i = 0; i < c->n && st == PQ_OK; i++)
            if (c->r[i].keep && rename_row(c, &c->r[i], &tmp, &cap) != 0)
                st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    if (st == PQ_OK) {
        for (size_t i = 0; i < c->n; i++)
            out->rows += c->r[i].keep;
        uint32_t meas = intern_cstr(&out->names, "XlaAutotunerMeasurement");
        prune_children(c, "XlaAutotunerMeasurement", 1, meas);
        prune_children(c, "XlaAutotunerCompilation", 0, 0);
        for (size_t i = 0; i < c->n; i++)
            out->rows_detail_removed += c->r[i].keep;
        if (statistics(c) != 0 || out->names.failed)
            st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    pq_free(tmp);
    pq_free(c->r);
    c->r = NULL;
    c->n = 0;
    return st;
}

/* The notebook's clean_compilation_range_name, as an id in NAMES. */
static uint32_t clean_name(intern_pool *names, uint32_t id)
{
    static const char meas[] = "XlaAutotunerMeasurement", split[] = ":#module=split_module#";
    const char *s = intern_str(names, id);
    size_t n = intern_len(names, id);
    if (n >= sizeof meas - 1 && memcmp(s, meas, sizeof meas - 1) == 0)
        return intern_cstr(names, meas);
    if (n >= sizeof split - 1 && memcmp(s + n - (sizeof split - 1), split, sizeof split - 1) == 0)
        return intern_add(names, s, n - (sizeof split - 1));
    return id;
}

static const intern_pool *sort_names;

static int cmp_pass(const void *pa, const void *pb)
{
    const nsys_compile_pass *a = pa, *b = pb;
    if (a->non_child_ns != b->non_child_ns)
        return a->non_child_ns > b->non_child_ns ? -1 : 1;
    return strcmp(intern_str(sort_names, a->name), intern_str(sort_names, b->name));
}

/* Step 7: group by cleaned name (pandas' sum skips NaN), sort, cut at 97%. */
static int summarise(ctx *c, nsys_compile_result *out)
{
    uint32_t n0 = c->cap < out->names.n ? c->cap : out->names.n;
    uint32_t *group = pq_calloc(n0 ? n0 : 1, sizeof *group);
    double *nc = NULL, *ch = NULL;
    uint8_t *seen = NULL;
    int rc = -1;
    for (uint32_t id = 0; group && id < n0; id++)
        group[id] = c->hit[id] ? clean_name(&out->names, id) : 0;
    size_t nn = (size_t)out->names.n + 1;
    if (!group || out->names.failed || !(nc = pq_calloc(nn, sizeof *nc)) ||
        !(ch = pq_calloc(nn, sizeof *ch)) || !(seen = pq_calloc(nn, 1)))
        goto done;
    size_t np = 0;
    for (uint32_t id = 0; id < n0; id++) {
        if (!c->hit[id])
            continue;
        uint32_t g = group[id];
        nc[g] += isnan(c->nc[id]) ? 0 : c->nc[id];
        ch[g] += isnan(c->ch[id]) ? 0 : c->ch[id];
        np += !seen[g];
        seen[g] = 1;
    }
    out->passes = pq_calloc(np ? np : 1, sizeof *out->passes);
    if (!out->passes)
        goto done;
    for (uint32_t id = 0; id < nn; id++)
        if (seen[id]) {
            out->passes[out->npasses++] =
                (nsys_compile_pass){.name = id, .non_child_ns = nc[id], .child_ns = ch[id]};
            out->total_ns += nc[id];
        }
    sort_names = &out->names;
    qsort(out->passes, out->npasses, sizeof *out->passes, cmp_pass);
    double cum = 0;
    for (size_t k = 0; k < out->npasses; k++) {
        out->passes[k].share = out->total_ns ? out->passes[k].non_child_ns / out->total_ns : 0;
        cum += out->passes[k].share;
        if (cum <= 0.97)
            out->ntop = k + 1;
    }
    rc = 0;
done:
    pq_free(group);
    pq_free(nc);
    pq_free(ch);
    pq_free(seen);
    return rc;
}

void nsys_compile_part_free(nsys_compile_part *p)
{
    pq_free(p->e);
    intern_free(&p->names);
    memset(p, 0, sizeof *p);
}

/* P's entries from C after one_source over a pool of its own (TMP's): the hit names and
 * the names clean_name groups them under, in that pool's id order. -1: out of memory. */
static int part_entries(ctx *c, nsys_compile_result *tmp, nsys_compile_part *p)
{
    uint32_t n0 = c->cap < tmp->names.n ? c->cap : tmp->names.n;
    uint32_t *group = pq_calloc(n0 ? n0 : 1, sizeof *group);
    for (uint32_t id = 0; group && id < n0; id++)
        group[id] = c->hit[id] ? clean_name(&tmp->names, id) : 0;
    uint8_t *want = group && !tmp->names.failed ? pq_calloc(tmp->names.n + 1, 1) : NULL;
    p->e = want ? pq_calloc(tmp->names.n + 1, sizeof *p->e) : NULL;
    int rc = p->e ? 0 : -1;
    for (uint32_t id = 0; !rc && id < n0; id++)
        if (c->hit[id])
            want[id] = want[group[id]] = 1;
    for (uint32_t id = 0; !rc && id < tmp->names.n; id++) {
        if (!want[id])
            continue;
        int hit = id < n0 && c->hit[id];
        p->e[p->n++] = (nsys_compile_entry){
            intern_add(&p->names, intern_str(&tmp->names, id), intern_len(&tmp->names, id)),
            (uint8_t)hit, hit ? c->nc[id] : 0, hit ? c->ch[id] : 0};
    }
    pq_free(group);
    pq_free(want);
    return rc || p->names.failed ? -1 : 0;
}

pq_status nsys_compile_part_compute(const pq_source *src, nsys_compile_part *p, pq_error *err)
{
    memset(p, 0, sizeof *p);
    nsys_compile_result tmp;
    memset(&tmp, 0, sizeof tmp);
    if (intern_init(&tmp.names) != 0 || intern_init(&p->names) != 0) {
        intern_free(&tmp.names);
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    ctx c = {.out = &tmp};
    pq_status st = PQ_OK;
    if (src->info.format == PQ_FORMAT_NSYS_JAX && src->slices)
        st = one_source(src, &tmp, &c, err);
    if (st == PQ_OK && part_entries(&c, &tmp, p) != 0)
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    p->sources = tmp.sources;
    p->rows = tmp.rows;
    p->rows_detail_removed = tmp.rows_detail_removed;
    p->parallel_regions = tmp.parallel_regions;
    pq_free(c.nc);
    pq_free(c.ch);
    pq_free(c.hit);
    intern_free(&tmp.names);
    if (st != PQ_OK)
        nsys_compile_part_free(p);
    return st;
}

/* Adds part P to the summary being merged in C (its names interned in OUT's pool in P's
 * order, its sums added to theirs). -1: out of memory. */
static int merge_part(ctx *c, nsys_compile_result *out, const nsys_compile_part *p)
{
    out->sources += p->sources;
    out->rows += p->rows;
    out->rows_detail_removed += p->rows_detail_removed;
    out->parallel_regions += p->parallel_regions;
    for (size_t k = 0; k < p->n; k++) {
        const nsys_compile_entry *e = &p->e[k];
        uint32_t id =
            intern_add(&out->names, intern_str(&p->names, e->name), intern_len(&p->names, e->name));
        if (out->names.failed || (e->hit && add_time(c, id, e->nc, e->ch) != 0))
            return -1;
    }
    return 0;
}

pq_status nsys_compile_compute(const pq_profile *prof, nsys_compile_result *out, pq_error *err)
{
    return nsys_compile_compute_parts(prof, NULL, out, err);
}

/* Each source's part (computed here or given), merged in source order, then summarised. */
pq_status nsys_compile_compute_parts(const pq_profile *prof, const nsys_compile_part *const *parts,
                                     nsys_compile_result *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    /* Id 0 is the empty name (intern_init stores it). */
    if (intern_init(&out->names) != 0)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    ctx c = {.out = out};
    pq_status st = PQ_OK;
    size_t nsys = 0;
    for (size_t s = 0; s < prof->nsources && st == PQ_OK; s++) {
        const pq_source *src = &prof->sources[s];
        if (src->info.format != PQ_FORMAT_NSYS_JAX || !src->slices)
            continue;
        nsys++;
        nsys_compile_part own;
        const nsys_compile_part *p = parts ? parts[s] : NULL;
        if (!p) {
            st = nsys_compile_part_compute(src, &own, err);
            p = &own;
        }
        if (st == PQ_OK && merge_part(&c, out, p) != 0)
            st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        if (p == &own)
            nsys_compile_part_free(&own); /* a failed compute left it zeroed */
    }
    if (st == PQ_OK && !nsys) {
        const char *p = prof->nsources ? prof->sources[0].path : "";
        st = err_set(err, PQ_ERR_INPUT, p, -1,
                     "expected an nsys-jax archive (.zip with nvtx_gpu_proj_trace/trace.parquet)");
    }
    if (st == PQ_OK && summarise(&c, out) != 0)
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    pq_free(c.nc);
    pq_free(c.ch);
    pq_free(c.hit);
    if (st != PQ_OK)
        nsys_compile_free(out);
    return st;
}

void nsys_compile_free(nsys_compile_result *r)
{
    pq_free(r->passes);
    intern_free(&r->names);
    memset(r, 0, sizeof *r);
}
