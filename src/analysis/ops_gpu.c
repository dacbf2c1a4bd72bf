/* ops_gpu.c - GPU op extraction (XProf's device OpMetricsDb for GPUs, spec/xprof-tools.md
 * 5.2-5.3): kernels on a GPU plane's raw (non-derived) stream lines, of the ops the XPlane
 * reader stated from their hlo_op/hlo_module/program_id stats (formats/xplane_xla.c: each
 * event's XLA stats and op, xp_line.xla), each kernel its own self time; and the HloProto
 * annotation of
 * GPU and CPU ops: category and provenance from the program's instructions, and on GPUs
 * FLOPs, bytes and HBM breakdown from XLA's GPU cost analysis (analysis/hlo_cost.c), as
 * XProf. Not here: the merge into the result (ops_core.c), device peaks (pq_ops_peaks.c). */
#include "analysis/ops_internal.h"

#include "analysis/hlo_cost.h"
#include "analysis/hlo_text.h"
#include "analysis/ops_steps.h"
#include "core/buf.h"
#include "formats/hlo.h"

#include <string.h>

/* Derived lines (XProf's kThreadIdDerivedMin = 0xdeadbeef and up) are skipped. */
static int gpu_derived_line(const xp_line *line)
{
    return line->id >= 0xdeadbeefLL && line->id < 0xdeadbeefLL + 64;
}

/* A run of kernels XProf records as one (ConvertDeviceTraceXPlaneToOpMetricsDb): on one
 * line, consecutive XLA ops of the same HLO op name and the same step group, under the
 * program of the first; a kernel without a group is a run of its own. */
typedef struct gpu_run {
    int open;
    int64_t group;
    const model_op *op; /* the source's op of its first kernel (pq_source.ops) */
    pq_str module, tf_op;
    uint64_t occurrences;
    int64_t time, min, first;
    double flops, bytes; /* the last kernel's, per occurrence, as XProf keeps them */
} gpu_run;

/* Adds run R to the op and program tables; 0 when out of memory. */
static int gpu_run_flush(gpu_run *r, ops_ctx *cx, int64_t *plane_self)
{
    if (!r->open)
        return 1;
    r->open = 0;
    int fresh;
    model_op *op;
    op_slot *sl = ops_table_get(cx->ops, r->op->program_id, 0, r->op->name, &op, &fresh);
    if (!sl)
        return 0;
    op_metrics *m = &sl->m;
    if (fresh) {
        *op = *r->op;              /* as the reader stated it: a custom-call op (summed figures) */
        op->provenance = r->tf_op; /* the run's first kernel's, as XProf */
        m->min_time_ps = r->min;
    } else if (r->min < m->min_time_ps) {
        m->min_time_ps = r->min;
    }
    double occ = (double)r->occurrences;
    m->occurrences += r->occurrences;
    m->time_ps += r->time;
    m->self_time_ps += r->time;
    m->normalized_time_ps += (double)r->time;
    m->flops += r->flops * occ;
    m->model_flops += r->flops * occ;
    m->bytes_accessed += r->bytes * occ;
    *plane_self += r->time;
    pq_ops_program *p = ops_prog_get(cx->progs, r->op->program_id);
    if (!p)
        return 0;
    p->op_self_ps += r->time;
    if (r->first < p->first_ps)
        p->first_ps = r->first;
    ops_prog_name_from_module(p, r->module);
    return 1;
}

/* Kernel EV (starting at S, absolute), of the XLA stats X and the source's op OP, into run
 * R: a new run unless it continues R. */
static int gpu_run_add(gpu_run *r, ops_ctx *cx, int64_t *plane_self, const xp_xla_class *x,
                       const model_op *op, int64_t group, const xp_event *ev, int64_t s)
{
    if (!(r->open && group >= 0 && group == r->group && ops_str_same(op->name, r->op->name))) {
        if (!gpu_run_flush(r, cx, plane_self))
            return 0;
        *r = (gpu_run){1, group, op, x->module, x->tf_op, 0, 0, ev->duration_ps, s, 0, 0};
    }
    r->occurrences++;
    r->time += ev->duration_ps;
    if (ev->duration_ps < r->min)
        r->min = ev->duration_ps;
    if (s < r->first)
        r->first = s;
    r->flops = x->flops;
    r->bytes = x->bytes;
    return 1;
}

int ops_gpu_plane(const pq_source *src, const xp_plane *pl, ops_ctx *cx)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, plane_self = 0;
    int64_t busy = 0;
    int any = 0;
    const xp_stat_meta *corr =
        cx->steps && cx->steps->active ? xp_stat_meta_by_name(pl, "correlation_id") : NULL;
    for (uint32_t li = 0; li < pl->nlines; li++) {
        const xp_line *line = &pl->lines[li];
        if (gpu_derived_line(line))
            continue;
        int64_t base = line->timestamp_ns * 1000, busy_end = INT64_MIN;
        gpu_run run = {0};
        xp_event_iter ei;
        xp_event ev;
        uint64_t k = 0;
        xp_events_begin(line, &ei);
        while (xp_events_next(&ei, &ev)) {
            any = 1;
            /* the event's XLA stats, as the reader kept them (formats/xplane_xla.c) */
            uint32_t at = line->xla && k < line->events ? line->xla[k] : 0;
            k++;
            if (ev.offset_ps < lo)
                lo = ev.offset_ps;
            if (ev.offset_ps + ev.duration_ps > hi)
                hi = ev.offset_ps + ev.duration_ps;
            int64_t s = base + ev.offset_ps, e = s + ev.duration_ps;
            if (s >= busy_end) {
                busy += e - s;
                busy_end = e;
            } else if (e > busy_end) {
                busy += e - busy_end;
                busy_end = e;
            }
            if (!at)
                continue; /* not an XLA op (memcpy, eager kernels without tf_op) */
            const xp_xla_class *x = &pl->xla[at - 1];
            int64_t group = corr ? ops_steps_kernel_group(cx->steps, src, pl, corr->id, &ev) : -1;
            if (!gpu_run_add(&run, cx, &plane_self, x, &src->ops.v[x->op - 1], group, &ev, s))
                return 0;
        }
        if (!gpu_run_flush(&run, cx, &plane_self))
            return 0;
    }
    if (!any)
        return 1;
    ops_add_device(cx->out, hi > lo ? hi - lo : 0, plane_self, (double)plane_self, busy, 0);
    return 1;
}

/* ---- GPU/CPU categories from the HloProto (XLA HloInstruction::ToCategory) ---- */

static int str_in(pq_str s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pq_str_eq(s, list[i]))
            return 1;
    return 0;
}

pq_str ops_hlo_category(pq_str opcode, pq_str fusion_kind)
{
    static const char *const formatting[] = {"transpose", "copy", "copy-start", "copy-done"};
    if (str_in(opcode, formatting, sizeof formatting / sizeof formatting[0]))
        return pq_str_of("data formatting", 15);
    /* a constant is elementwise to XLA (HloConstantInstruction::IsElementwiseImpl) */
    if (hlo_opcode_is_elementwise(opcode) || pq_str_eq(opcode, "constant"))
        return pq_str_of("non-fusion elementwise", 22);
    if (pq_str_eq(opcode, "fusion")) {
        if (pq_str_eq(fusion_kind, "kLoop"))
            return pq_str_of("loop fusion", 11);
        if (pq_str_eq(fusion_kind, "kInput"))
            return pq_str_of("input fusion", 12);
        if (pq_str_eq(fusion_kind, "kOutput"))
            return pq_str_of("output fusion", 13);
        if (pq_str_eq(fusion_kind, "kCustom"))
            return pq_str_of("custom fusion", 13);
        return pq_str_of("fusion", 6);
    }
    return opcode;
}

/* XProf's source info of an HLO instruction (GetSourceInfo): the metadata's
 * "source_file:source_line" when it names a file, else "file:line" of the first frame of
 * its stack; the stack is "file:line:column\n" per frame, innermost first. The text goes
 * to arena A; returns 0 when out of memory. */
static int hlo_source_info(const hlo_module *m, const hlo_instruction *ins, arena *a,
                           pq_str *source, pq_str *stack)
{
    buf b;
    buf_init(&b, NULL);
    int32_t id = ins->stack_frame_id;
    for (uint32_t guard = 0; id > 0 && (uint32_t)id <= m->nstack_frames && guard < 4096; guard++) {
        const hlo_stack_frame *f = &m->stack_frames[id - 1];
        id = f->parent_frame_id;
        int32_t loc = f->file_location_id;
        if (loc <= 0 || (uint32_t)loc > m->nfile_locations)
            break;
        const hlo_file_location *fl = &m->file_locations[loc - 1];
        pq_str file = fl->file_name_id > 0 && (uint32_t)fl->file_name_id <= m->nfile_names
                          ? m->file_names[fl->file_name_id - 1]
                          : (pq_str){0};
        buf_put(&b, file.p, file.n);
        buf_printf(&b, ":%d:%d\n", fl->line, fl->column);
    }
    size_t nstack = b.n;
    if (ins->source_file.n) {
        buf_put(&b, ins->source_file.p, ins->source_file.n);
        buf_printf(&b, ":%d", ins->source_line);
    } else if (nstack) {
        /* first frame "file:line:col": its "file:line" */
        size_t end = 0, colons = 0;
        while (end < nstack && b.p[end] != '\n' && !(b.p[end] == ':' && ++colons == 2))
            end++;
        if (colons == 2)
            buf_put(&b, b.p, end);
    }
    int ok = b.status == PQ_OK;
    char *t = ok && b.n ? arena_strndup(a, b.p, b.n) : NULL;
    if (t) {
        *stack = pq_str_of(t, nstack);
        *source = pq_str_of(t + nstack, b.n - nstack);
    }
    ok = ok && (!b.n || t);
    buf_release(&b);
    return ok;
}

/* XProf's expression of a GPU op (HloInstructionWrapper::Expression): the instruction's
 * HLO text (analysis/hlo_text.c), copied to arena A; 0 when out of memory. */
static int hlo_expression(const hlo_module *m, const hlo_instruction *ins, arena *a, pq_str *out)
{
    buf b;
    buf_init(&b, NULL);
    hlo_text_instruction(&b, m, ins);
    char *t = b.status == PQ_OK && b.n ? arena_strndup(a, b.p, b.n) : NULL;
    if (t)
        *out = pq_str_of(t, b.n);
    int ok = b.status == PQ_OK && (!b.n || t);
    buf_release(&b);
    return ok;
}

/* Sets category and provenance (metadata.op_name) of the model ops of program PG from its
 * HloProto, as XProf does for GPU ops, and on GPUs their FLOPs, bytes and HBM breakdown per
 * occurrence from XLA's GPU cost analysis of that module (analysis/hlo_cost.c), as XProf's
 * PerformanceInfoWrapper gives them: device FLOPs, model FLOPs and bytes where positive, else
 * what the events stated. A proto that does not decode is skipped silently: the load only
 * checked its header, and these are annotations. Returns 0 when out of memory. */
int ops_annotate_from_hlo(model_ops *t, const pq_source *src, const pq_program *pg, int gpu,
                          arena *strings)
{
    arena a;
    arena_init(&a);
    hlo_module *m = NULL;
    hlo_cost_model *cm = NULL;
    int64_t off;
    const char *what;
    pq_status st = hlo_decode(pg->hlo, pg->hlo_len, src->file.data, &a, &m, &off, &what);
    if (st == PQ_OK && gpu)
        st = hlo_cost_analyze(m, &a, &cm);
    if (st == PQ_ERR_NOMEM) {
        arena_release(&a);
        return 0;
    }
    for (uint32_t ci = 0; st == PQ_OK && ci < m->ncomputations; ci++)
        for (uint32_t ii = 0; ii < m->computations[ci].ninstructions; ii++) {
            const hlo_instruction *ins = &m->computations[ci].instructions[ii];
            model_op *o = model_ops_find(t, pg->program_id, ins->name);
            if (!o)
                continue;
            o->category = ops_hlo_category(ins->opcode, ins->fusion_kind);
            o->provenance = ins->op_name;
            o->op_type = ins->op_type;
            o->provenance_from_hlo = 1;
            /* XProf groups GPU ops in op_profile by their OpMetadata.deduplicated_name */
            if (gpu)
                o->dedup_name = ins->deduplicated_name;
            if (gpu && (!hlo_source_info(m, ins, strings, &o->source, &o->source_stack) ||
                        !hlo_expression(m, ins, strings, &o->long_name))) {
                arena_release(&a);
                return 0;
            }
            hlo_cost c;
            if (!cm || !hlo_cost_get(cm, ins, &c))
                continue;
            if (c.device_flops > 0)
                o->cost_flops = c.device_flops;
            if (c.flops > 0)
                o->cost_model_flops = c.flops;
            if (c.bytes > 0)
                o->cost_bytes = c.bytes;
            o->bd.bd_hbm = c.hbm_read + c.hbm_written;
            o->bd.has_breakdown = o->bd.bd_hbm > 0;
        }
    arena_release(&a);
    return 1;
}
