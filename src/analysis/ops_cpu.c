/* ops_cpu.c - CPU op extraction for CPU-only runs: XLA:CPU records each thunk it runs as
 * a host-thread event with hlo_op/hlo_module/program_id stats, whose ops the XPlane reader
 * stated (formats/xplane_xla.c: each event's op, xp_line.xla). Per thread line those events
 * nest (a while or call thunk around its body), so an ancestor stack gives self time; the
 * window is the first to the last op event over all threads. XProf has no device op
 * database for these (its CPU path is for TensorFlow ops): this is profq's own. Not here:
 * the merge into the result (ops_core.c), categories from the HloProto (ops_gpu.c). */
#include "analysis/ops_internal.h"

#include "core/alloc.h"

#include <stdlib.h>

typedef struct cpu_rec {
    ops_span s;              /* first: ops_nest reads it */
    const model_op *op;      /* the source's op (pq_source.ops) */
    const xp_xla_class *xla; /* its XLA stats, as the reader kept them */
} cpu_rec;

int ops_cpu_plane(const pq_source *src, const xp_plane *pl, ops_ctx *cx)
{
    if (!pl->xla) /* the reader found no thunk (formats/xplane_xla.c) */
        return 1;
    int64_t lo = INT64_MAX, hi = INT64_MIN, plane_self = 0, busy = 0;
    for (uint32_t li = 0; li < pl->nlines; li++) {
        const xp_line *line = &pl->lines[li];
        if (line->events == 0)
            continue;
        cpu_rec *recs = pq_malloc_array((size_t)line->events, sizeof *recs);
        if (!recs)
            return 0;
        size_t n = 0;
        uint64_t k = 0;
        int64_t base = line->timestamp_ns * 1000;
        xp_event_iter ei;
        xp_event ev;
        xp_events_begin(line, &ei);
        while (k < line->events && xp_events_next(&ei, &ev)) {
            uint32_t at = line->xla ? line->xla[k] : 0;
            k++;
            if (!at)
                continue;
            cpu_rec *r = &recs[n];
            r->s.start = base + ev.offset_ps;
            r->s.dur = ev.duration_ps;
            r->s.children = 0;
            r->s.order = (uint32_t)n;
            r->xla = &pl->xla[at - 1];
            r->op = &src->ops.v[r->xla->op - 1];
            n++;
        }
        if (!ops_nest(recs, n, sizeof *recs, &busy)) {
            pq_free(recs);
            return 0;
        }
        for (size_t i = 0; i < n; i++) {
            lo = recs[i].s.start < lo ? recs[i].s.start : lo;
            hi = recs[i].s.start + recs[i].s.dur > hi ? recs[i].s.start + recs[i].s.dur : hi;
        }
        for (size_t i = 0; i < n; i++) {
            cpu_rec *r = &recs[i];
            int fresh;
            model_op *op;
            op_slot *sl = ops_table_get(cx->ops, r->op->program_id, 0, r->op->name, &op, &fresh);
            pq_ops_program *p = sl ? ops_prog_get(cx->progs, r->op->program_id) : NULL;
            if (!p) {
                pq_free(recs);
                return 0;
            }
            op_metrics *m = &sl->m;
            int64_t self = r->s.dur - r->s.children;
            if (fresh) {
                *op = *r->op; /* as the reader stated it: a custom-call op (no FLOPs to scale) */
                m->min_time_ps = r->s.dur;
            } else if (r->s.dur < m->min_time_ps) {
                m->min_time_ps = r->s.dur;
            }
            m->occurrences++;
            m->time_ps += r->s.dur;
            m->self_time_ps += self;
            m->normalized_time_ps += (double)r->s.dur;
            plane_self += self;
            p->op_self_ps += self;
            if (r->s.start < p->first_ps)
                p->first_ps = r->s.start;
            if (p->name.n == 0 && r->xla->module.n)
                p->name = r->xla->module;
        }
        pq_free(recs);
    }
    if (hi <= lo)
        return 1;
    ops_add_device(cx->out, hi - lo, plane_self, (double)plane_self, busy, 0);
    return 1;
}
