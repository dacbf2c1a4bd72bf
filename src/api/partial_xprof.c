/* partial_xprof.c - what the op partial (partial_ops.c) holds for XProf's tables and for
 * trace files, in and out of the body bytes (docs/internals/partial.md, version 4): each
 * row's fused instructions (TPU fusions, op_profile's), the XProf fields (made with
 * --format xprof, step flags, XSpace count, trace files' kinds, each GPU XSpace's steps,
 * each TPU XSpace's step counts by row), a source's steps as one
 * process groups them (ops_steps_build), and the check that trace
 * files were read as one process reads them. Not the rest of the body (partial_ops.c), not
 * the merge (analysis/ops_merge.c). */
#include "api/partial_xprof.h"

#include "analysis/ops_steps.h"
#include "core/alloc.h"
#include "core/err.h"
#include "model/events.h"

#include <stdlib.h>
#include <string.h>

/* A row's fused instructions (op_profile's, TPU fusions): direct children, then entries. */
void pt_ops_put_fused(buf *b, const pq_op_row *m)
{
    size_t n = m->nfused ? ops_fused_entries(m->fused, m->nfused) : 0;
    pt_put_u64(b, m->nfused);
    pt_put_u64(b, n);
    for (size_t i = 0; i < n; i++) {
        const pq_fused_op *f = &m->fused[i];
        pt_put_str(b, f->name);
        pt_put_str(b, f->expression);
        pt_put_str(b, f->category);
        pt_put_str(b, f->provenance);
        pt_put_u64(b, f->nkids);
        pt_put_u64(b, f->size);
    }
}

static int prow_ptr_cmp(const void *a, const void *b)
{
    const pq_op_row *x = &(*(const ops_prow *const *)a)->m, *y = &(*(const ops_prow *const *)b)->m;
    if (x->program_id != y->program_id)
        return x->program_id < y->program_id ? -1 : 1;
    if (x->symbol_id != y->symbol_id)
        return x->symbol_id < y->symbol_id ? -1 : 1;
    return pt_str_cmp(x->name, y->name);
}

/* The index in O's rows of the row of count C (BY: O's rows in key order); 0 when none (not
 * reached: a part's counts are of its rows). */
static uint64_t count_row(const ops_part *o, ops_prow *const *by, const ops_tpu_count *c)
{
    size_t lo = 0, hi = o->nrows;
    ops_prow key = {0};
    const ops_prow *kp = &key;
    key.m.program_id = c->program_id;
    key.m.symbol_id = c->symbol_id;
    key.m.name = c->name;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int k = prow_ptr_cmp(&kp, &by[mid]);
        if (!k)
            return (uint64_t)(by[mid] - o->rows);
        if (k < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* The TPU hosts' steps and counts of O: each count names its row by its index in the rows
 * written before. 0 when out of memory. */
static int put_tpu_steps(buf *b, const ops_part *o)
{
    const ops_tpu_steps *t = &o->tpu;
    pt_put_u64(b, (uint64_t)t->unsupported);
    pt_put_u64(b, t->nhosts);
    ops_prow **by = pq_malloc_array(o->nrows + 1, sizeof *by);
    if (!by)
        return 0;
    for (size_t i = 0; i < o->nrows; i++)
        by[i] = &o->rows[i];
    if (t->ncounts)
        qsort(by, o->nrows, sizeof *by, prow_ptr_cmp);
    const ops_tpu_step *s = t->steps;
    const ops_tpu_count *c = t->counts;
    for (size_t h = 0; h < t->nhosts; h++) {
        pt_put_str(b, t->hosts[h].path);
        pt_put_u64(b, t->hosts[h].nsteps);
        for (size_t i = 0; i < t->hosts[h].nsteps; i++, s++) {
            pt_put_u64(b, (uint64_t)s->group);
            pt_put_u64(b, (uint64_t)s->begin_ps);
            pt_put_u64(b, (uint64_t)s->end_ps);
            pt_put_u64(b, (uint64_t)s->total_ps);
            pt_put_u64(b, s->ncounts);
            for (size_t k = 0; k < s->ncounts; k++, c++) {
                pt_put_u64(b, count_row(o, by, c));
                pt_put_u64(b, (uint64_t)c->occurrences);
                pt_put_u64(b, (uint64_t)c->time_ps);
                pt_put_u64(b, (uint64_t)c->self_time_ps);
            }
        }
    }
    pq_free(by);
    return 1;
}

/* What XProf's tables take from every XSpace (ops_part.xprof). */
void pt_ops_put_xprof(buf *b, const ops_part *o)
{
    pt_put_u64(b, (uint64_t)o->xprof);
    pt_put_u64(b, (uint64_t)o->steps_active);
    pt_put_u64(b, (uint64_t)o->steps_unsupported);
    pt_put_u64(b, o->xspaces);
    pt_put_u64(b, o->trace_kinds);
    pt_put_u64(b, o->nhosts);
    for (size_t i = 0; i < o->nhosts; i++) {
        pt_put_str(b, o->hosts[i].path);
        pt_put_u64(b, o->hosts[i].nsteps);
        for (size_t k = 0; k < 3 * o->hosts[i].nsteps; k++)
            pt_put_u64(b, (uint64_t)o->hosts[i].v[k]);
    }
    if (!put_tpu_steps(b, o) && b->status == PQ_OK)
        b->status = PQ_ERR_NOMEM;
}

/* Whether the N entries at F are NKIDS preorder subtrees, each SIZE entries (itself and
 * its NKIDS subtrees), nested no deeper than ops_fused.c makes them: op_profile walks them. */
static int fused_ok(const pq_fused_op *f, size_t n, uint64_t nkids, int depth)
{
    size_t k = 0;
    for (uint64_t i = 0; i < nkids; i++) {
        if (depth > 40 || k >= n || f[k].size < 1 || f[k].size > n - k ||
            !fused_ok(f + k + 1, f[k].size - 1, f[k].nkids, depth + 1))
            return 0;
        k += f[k].size;
    }
    return k == n;
}

void pt_ops_get_fused(pt_reader *rd, ops_part *o, pq_op_row *m)
{
    m->fused = NULL;
    m->nfused = 0;
    uint64_t kids = pt_get_u64(rd, "row fused children");
    size_t n = pt_get_count(rd, 6 * 8, "the number of fused instructions");
    if (rd->status != PQ_OK || (!n && !kids))
        return;
    pq_fused_op *v = arena_alloc(&o->strings, n * sizeof *v + 1);
    for (size_t i = 0; v && rd->status == PQ_OK && i < n; i++) {
        v[i].name = pt_get_str(rd, &o->strings, "fused name");
        v[i].expression = pt_get_str(rd, &o->strings, "fused expression");
        v[i].category = pt_get_str(rd, &o->strings, "fused category");
        v[i].provenance = pt_get_str(rd, &o->strings, "fused provenance");
        uint64_t k = pt_get_u64(rd, "fused children"), size = pt_get_u64(rd, "fused size");
        v[i].nkids = k > n ? (uint32_t)n + 1 : (uint32_t)k;
        v[i].size = size > n ? (uint32_t)n + 1 : (uint32_t)size;
    }
    if (rd->status == PQ_OK && v && (kids > n || !fused_ok(v, n, kids, 0)))
        pt_fail(rd, "malformed partial", "fused instructions as nested subtrees");
    m->fused = v;
    m->nfused = (uint32_t)kids;
}

/* A count of the TPU steps into *C, its row one of O's rows; 0 when malformed (RD failed). */
static int get_count(pt_reader *rd, const ops_part *o, ops_tpu_count *c, int64_t *sum)
{
    uint64_t row = pt_get_u64(rd, "TPU step count row");
    if (rd->status == PQ_OK && row >= o->nrows) {
        rd->p -= 8;
        pt_fail(rd, "malformed partial", "a TPU step count's row below the number of rows");
        return 0;
    }
    c->occurrences = pt_get_time(rd, "TPU step count occurrences");
    c->time_ps = pt_get_time(rd, "TPU step count time");
    /* a self time can be negative (children that overlap one another on the line) */
    c->self_time_ps = (int64_t)pt_get_u64(rd, "TPU step count self time");
    if (rd->status != PQ_OK)
        return 0;
    if (c->self_time_ps == INT64_MIN || __builtin_add_overflow(*sum, c->time_ps, sum) ||
        __builtin_add_overflow(*sum, c->occurrences, sum) ||
        __builtin_add_overflow(*sum, c->self_time_ps < 0 ? -c->self_time_ps : c->self_time_ps,
                               sum)) {
        pt_fail(rd, "malformed partial", "TPU step counts whose sums fit in 64 bits");
        return 0;
    }
    c->program_id = o->rows[row].m.program_id;
    c->symbol_id = o->rows[row].m.symbol_id;
    c->name = o->rows[row].m.name;
    return 1;
}

/* One TPU step into *ST, its counts appended to T (RD failed when malformed); *TOTAL and
 * *SUM: the sums so far of the host's step times and of the counts' figures. */
static void get_tpu_step(pt_reader *rd, ops_part *o, ops_tpu_steps *t, ops_tpu_step *st,
                         int64_t *total, int64_t *sum)
{
    st->group = (int64_t)pt_get_u64(rd, "TPU step group");
    st->begin_ps = pt_get_time(rd, "TPU step begin");
    st->end_ps = pt_get_time(rd, "TPU step end");
    st->total_ps = pt_get_time(rd, "TPU step total time");
    size_t nc = pt_get_count(rd, 32, "the number of TPU step counts");
    if (rd->status == PQ_OK && st->end_ps <= st->begin_ps)
        pt_fail(rd, "malformed partial", "a TPU step that ends after it begins");
    if (rd->status == PQ_OK && __builtin_add_overflow(*total, st->total_ps, total))
        pt_fail(rd, "malformed partial", "TPU step times whose sum fits in 64 bits");
    ops_tpu_count *c =
        rd->status == PQ_OK ? pq_realloc_array(t->counts, t->ncounts + nc + 1, sizeof *c) : NULL;
    if (!c) {
        if (rd->status == PQ_OK)
            rd->status = err_set(rd->err, PQ_ERR_NOMEM, rd->name, -1, "out of memory");
        return;
    }
    t->counts = c;
    for (size_t k = 0; k < nc && get_count(rd, o, &c[t->ncounts], sum); k++) {
        t->ncounts++;
        st->ncounts++;
    }
}

/* The TPU hosts' steps and counts (put_tpu_steps), the hosts in path order. */
static void get_tpu_steps(pt_reader *rd, ops_part *o)
{
    ops_tpu_steps *t = &o->tpu;
    t->unsupported = pt_get_u64(rd, "TPU steps unsupported") != 0;
    size_t nh = pt_get_count(rd, 16, "the number of TPU hosts");
    if (rd->status != PQ_OK || !nh)
        return;
    if (t->unsupported) {
        pt_fail(rd, "malformed partial", "no TPU hosts where TPU steps are not covered");
        return;
    }
    t->hosts = pq_calloc(nh, sizeof *t->hosts);
    if (!t->hosts) {
        rd->status = err_set(rd->err, PQ_ERR_NOMEM, rd->name, -1, "out of memory");
        return;
    }
    int64_t sum = 0;
    for (size_t h = 0; rd->status == PQ_OK && h < nh; h++) {
        ops_tpu_host *host = &t->hosts[t->nhosts++];
        host->path = pt_get_str(rd, &o->host_mem, "TPU host path");
        size_t n = pt_get_count(rd, 40, "the number of TPU steps");
        if (rd->status == PQ_OK && h && pt_str_cmp(t->hosts[h - 1].path, host->path) > 0)
            pt_fail(rd, "malformed partial", "TPU hosts in path order");
        ops_tpu_step *v =
            rd->status == PQ_OK ? pq_realloc_array(t->steps, t->nsteps + n + 1, sizeof *v) : NULL;
        if (!v) {
            if (rd->status == PQ_OK)
                rd->status = err_set(rd->err, PQ_ERR_NOMEM, rd->name, -1, "out of memory");
            return;
        }
        t->steps = v;
        int64_t total = 0;
        for (size_t i = 0; rd->status == PQ_OK && i < n; i++) {
            v[t->nsteps] = (ops_tpu_step){0, 0, 0, 0, 0};
            get_tpu_step(rd, o, t, &v[t->nsteps], &total, &sum);
            t->nsteps++;
            host->nsteps++;
        }
    }
}

/* The hosts' steps and flags of XProf's tables (put_xprof). */
void pt_ops_get_xprof(pt_reader *rd, ops_part *o)
{
    o->xprof = pt_get_u64(rd, "xprof") != 0;
    o->steps_active = pt_get_u64(rd, "steps_active") != 0;
    o->steps_unsupported = pt_get_u64(rd, "steps_unsupported") != 0;
    o->xspaces = pt_get_u64(rd, "xspaces");
    o->trace_kinds = pt_get_u64(rd, "trace_kinds");
    size_t nh = pt_get_count(rd, 16, "the number of hosts");
    for (size_t i = 0; rd->status == PQ_OK && i < nh; i++) {
        ops_part_host h = {pt_get_str(rd, &o->strings, "host path"), NULL, 0};
        h.nsteps = pt_get_count(rd, 24, "the number of host steps");
        h.v = pq_malloc_array(3 * h.nsteps + 1, sizeof *h.v);
        for (size_t k = 0; h.v && rd->status == PQ_OK && k < h.nsteps; k++) {
            h.v[3 * k] = (int64_t)pt_get_u64(rd, "step group");
            h.v[3 * k + 1] = pt_get_time(rd, "step begin");
            h.v[3 * k + 2] = pt_get_time(rd, "step end");
            if (rd->status == PQ_OK && h.v[3 * k + 2] < h.v[3 * k + 1])
                pt_fail(rd, "malformed partial", "a step that ends after it begins");
        }
        if (rd->status == PQ_OK && (!h.v || !ops_part_add_host(o, &h)))
            rd->status = err_set(rd->err, PQ_ERR_NOMEM, rd->name, -1, "out of memory");
        pq_free(h.v);
    }
    if (rd->status == PQ_OK)
        get_tpu_steps(rd, o);
}

/* XProf's step data of the one source of VIEW (ops_steps_build, as one process's --format
 * xprof groups GPU XSpaces): whether it is an XSpace, its steps when it has GPU planes. */
int pt_ops_source_steps(const pq_profile *view, ops_part *part)
{
    const pq_source *src = &view->sources[0];
    part->xspaces = src->nplanes > 0;
    int gpu = 0;
    for (uint32_t pi = 0; pi < src->nplanes && !gpu; pi++)
        gpu = xp_plane_is(src, &src->planes[pi], "GPU");
    if (!gpu)
        return 1;
    ops_steps st;
    if (!ops_steps_build(view, 1, &st))
        return 0;
    part->steps_active = st.active;
    part->steps_unsupported = st.unsupported;
    ops_part_host h = {src->info.path, pq_malloc_array(3 * st.nhost + 1, sizeof(int64_t)),
                       st.nhost};
    for (size_t k = 0; h.v && k < st.nhost; k++) {
        h.v[3 * k] = st.host_steps[k].group;
        h.v[3 * k + 1] = st.host_steps[k].begin;
        h.v[3 * k + 2] = st.host_steps[k].end;
    }
    int ok = h.v && ops_part_add_host(part, &h);
    pq_free(h.v);
    ops_steps_free(&st);
    return ok;
}

/* Whether the trace files of P were read alone as one process reads them with the other
 * inputs: a file with XLA ops is read as XLA:CPU (ops_trace_hw), its GPU work not; one
 * process reads its XLA ops as TPU ops beside TPU planes, its GPU work beside GPU planes,
 * and takes XLA:CPU over GPU among trace files. */
int pt_ops_trace_kinds_agree(const ops_part *p)
{
    int xla = (p->trace_kinds >> PQ_OPS_HW_CPU) & 1, gpu = (p->trace_kinds >> PQ_OPS_HW_GPU) & 1;
    if (!xla)
        return 1;
    return p->r.hw == PQ_OPS_HW_CPU || (p->r.hw == PQ_OPS_HW_GPU && !gpu && p->has_key);
}
