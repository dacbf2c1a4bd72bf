/* ops_trace.c - op extraction from the model's timeline of a trace-event JSON source:
 * - JAX traces (perfetto_trace.json.gz): the XLA ops, slices with an hlo_op arg, keyed by
 *   (hlo_module, name) as the XPlane path keys them by (program, name); per thread they nest
 *   (a while thunk around its body), so an ancestor stack gives self time;
 * - Kineto traces: the GPU work on each stream (cat kernel, gpu_memcpy, gpu_memset; user
 *   annotations are ranges, not work, and left out), one row per (stream, kernel name) as
 *   HTA's kernel breakdown has it, the stream standing where a program stands (its
 *   "program" row sums the stream's kernel time), category kernel / memcpy / memset.
 * The ops are those the reader stated on the source (pq_source.ops, model/slices.h's
 * slices_state_ops), each slice linked to its op by the op column; this file times them.
 * Each process is one device: its window runs from the first to the last op it ran. The
 * trace states no FLOPs, bytes or peaks. Not here: the merge and totals (ops_core.c). */
#include "analysis/ops_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct trace_rec {
    ops_span s; /* first: ops_nest reads it; s.order is the slice index */
} trace_rec;

static pq_str pool_view(const model_slices *m, uint32_t id)
{
    return pq_str_of(intern_str(&m->names, id), intern_len(&m->names, id));
}

/* Whether slice I of M is an op for HW: one the reader stated an op of (slice_state_ops). */
static int is_op(const model_slices *m, size_t i, pq_ops_hw hw)
{
    if (!m->op || !m->op[i])
        return 0;
    return hw == PQ_OPS_HW_GPU ? (m->flags[i] & SLICE_GPU_WORK) != 0
                               : (m->flags[i] & SLICE_XLA_OP) != 0;
}

/* The program of slice I: its stream (GPU) or its hlo_module (XLA), with its name. */
static uint64_t program_of(const model_slices *m, size_t i, pq_ops_hw hw, pq_str *name)
{
    if (hw == PQ_OPS_HW_GPU) {
        const slice_track *t = &m->tracks[m->track[i]];
        const char *tn = slices_thread_name(m, t->pid, t->tid);
        *name = pq_str_of(tn, strlen(tn));
        return (uint64_t)m->track[i] + 1;
    }
    uint32_t mod = m->module ? m->module[i] : 0;
    *name = pool_view(m, mod);
    return mod;
}

/* The op table slot of the source's op AT (index + 1, as the op column holds it), merged in
 * on first sight from the op the reader stated (SLOT_OF caches it per source op). */
static op_slot *slot_of_op(const pq_source *src, uint32_t at, uint32_t *slot_of, ops_ctx *cx)
{
    if (slot_of[at - 1])
        return &cx->ops->v[slot_of[at - 1] - 1];
    const model_op *mo = &src->ops.v[at - 1];
    int fresh;
    model_op *op;
    op_slot *sl = ops_table_get(cx->ops, mo->program_id, 0, mo->name, &op, &fresh);
    if (!sl)
        return NULL;
    if (fresh) {
        *op = *mo;
        sl->m.min_time_ps = INT64_MAX;
    }
    slot_of[at - 1] = (uint32_t)(op - cx->ops->model->v) + 1;
    return sl;
}

/* The ops of one track: self times through an ancestor stack, rows merged into CX. */
static int track_ops(const pq_source *src, trace_rec *recs, size_t n, pq_ops_hw hw,
                     uint32_t *slot_of, ops_ctx *cx, int64_t *self_sum, int64_t *busy)
{
    const model_slices *m = src->slices;
    if (!ops_nest(recs, n, sizeof *recs, busy))
        return 0;
    for (size_t i = 0; i < n; i++) {
        const trace_rec *r = &recs[i];
        pq_str pname;
        uint64_t pid = program_of(m, r->s.order, hw, &pname);
        op_slot *sl = slot_of_op(src, m->op[r->s.order], slot_of, cx);
        pq_ops_program *p = sl ? ops_prog_get(cx->progs, pid) : NULL;
        if (!p)
            return 0;
        op_metrics *row = &sl->m;
        int64_t self = r->s.dur - r->s.children;
        if (r->s.dur < row->min_time_ps)
            row->min_time_ps = r->s.dur;
        row->occurrences++;
        row->time_ps += r->s.dur;
        row->self_time_ps += self;
        row->normalized_time_ps += (double)r->s.dur;
        *self_sum += self;
        p->op_self_ps += self;
        if (r->s.start < p->first_ps)
            p->first_ps = r->s.start;
        if (!p->name.n)
            p->name = pname;
    }
    return 1;
}

int ops_trace_source(const pq_source *src, pq_ops_hw hw, ops_ctx *cx)
{
    const model_slices *m = src->slices;
    if (!m || !m->n)
        return 1;
    if (!cx->out->device_type[0])
        strcpy(cx->out->device_type, hw == PQ_OPS_HW_GPU ? "GPU" : "CPU");
    if (!m->op)
        return 1; /* no slice is an op */
    /* The op slices grouped by track (a counting sort, slice order kept), each track's ops
     * handed over in turn; tracks of one process are one device. */
    size_t *first = pq_calloc((size_t)m->ntracks + 1, sizeof *first);
    uint32_t *slot_of = pq_calloc(src->ops.n ? src->ops.n : 1, sizeof *slot_of);
    size_t nop = 0, most = 0;
    for (size_t i = 0; first && i < m->n; i++)
        if (is_op(m, i, hw)) {
            first[m->track[i] + 1]++;
            nop++;
        }
    for (uint32_t t = 0; first && t < m->ntracks; t++) {
        most = first[t + 1] > most ? first[t + 1] : most;
        first[t + 1] += first[t];
    }
    uint32_t *order = pq_malloc_array(nop ? nop : 1, sizeof *order);
    trace_rec *recs = pq_malloc_array(most ? most : 1, sizeof *recs);
    int ok = recs && order && first && slot_of;
    for (size_t i = 0, *at = first; ok && i < m->n; i++)
        if (is_op(m, i, hw))
            order[at[m->track[i]]++] = (uint32_t)i;
    for (uint32_t t = m->ntracks; ok && t > 0; t--)
        first[t] = first[t - 1];
    if (ok)
        first[0] = 0;
    for (uint32_t t = 0; ok && t < m->ntracks; t++) {
        const slice_track *tr = &m->tracks[t];
        uint32_t u = 0;
        while (u < t && m->tracks[u].pid != tr->pid)
            u++;
        if (u < t)
            continue; /* this process was done with its first track */
        int64_t lo = INT64_MAX, hi = INT64_MIN, self = 0, busy = 0;
        for (uint32_t v = t; ok && v < m->ntracks; v++) {
            if (m->tracks[v].pid != tr->pid)
                continue;
            size_t n = 0;
            for (size_t k = first[v]; k < first[v + 1]; k++) {
                uint32_t i = order[k];
                recs[n++] = (trace_rec){{m->start_ps[i], m->dur_ps[i], 0, i}};
                lo = m->start_ps[i] < lo ? m->start_ps[i] : lo;
                hi = m->start_ps[i] + m->dur_ps[i] > hi ? m->start_ps[i] + m->dur_ps[i] : hi;
            }
            ok = track_ops(src, recs, n, hw, slot_of, cx, &self, &busy);
        }
        if (ok && hi > lo) {
            cx->out->device_planes++;
            ops_add_device(cx->out, hi - lo, self, (double)self, busy, 0);
        }
    }
    pq_free(recs);
    pq_free(order);
    pq_free(first);
    pq_free(slot_of);
    return ok && !cx->ops->oom && !cx->progs->oom;
}

pq_ops_hw ops_trace_hw(const pq_profile *prof)
{
    int gpu = 0;
    for (size_t si = 0; si < prof->nsources; si++) {
        const model_slices *m = prof->sources[si].slices;
        for (size_t i = 0; m && i < m->n; i++) {
            if (m->flags[i] & SLICE_XLA_OP)
                return PQ_OPS_HW_CPU;
            gpu |= (m->flags[i] & SLICE_GPU_WORK) != 0;
        }
    }
    return gpu ? PQ_OPS_HW_GPU : PQ_OPS_HW_NONE;
}
