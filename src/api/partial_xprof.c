/* partial_xprof.c - what the op partial (partial_ops.c) holds for XProf's tables and for
 * trace files, in and out of the body bytes (docs/internals/partial.md, version 2): each
 * row's fused instructions (TPU fusions, op_profile's), the XProf fields (made with
 * --format xprof, step flags, XSpace count, trace files' kinds, each GPU XSpace's steps),
 * a source's steps as one process groups them (ops_steps_build), and the check that trace
 * files were read as one process reads them. Not the rest of the body (partial_ops.c), not
 * the merge (analysis/ops_merge.c). */
#include "api/partial_xprof.h"

#include "analysis/ops_steps.h"
#include "core/alloc.h"
#include "core/err.h"
#include "model/events.h"

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
