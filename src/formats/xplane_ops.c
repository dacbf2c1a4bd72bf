/* xplane_ops.c - the ops an XSpace states, into the model (model/ops.h): at load, every
 * event metadata entry of a TensorCore plane (the plane's model device is a TPU) that states
 * a program_id and a non-zero symbol_id is one op, keyed by (program, symbol), with what the
 * entry states: its name (the display name when it has one, then the name is the long name),
 * hlo_category, tf_op, deduplicated_name, source, source_stack, flops, model_flops,
 * bytes_accessed and memory_access_breakdown, as XProf's OpMetricsDb takes them
 * (spec/xprof-tools.md 5.2-5.3). Each entry is linked to its op (xp_plane.emeta_op).
 *
 * Reads metadata only: no event, no HloProto (so `info` stays cheap). Not here: the ops of
 * GPU kernels and XLA:CPU thunks, whose keys are per-event stats (xplane_xla.c), and the
 * HloProto's enrichments (analysis/ops_*.c). */
#include "xplane.h"

#include "pbwire.h"
#include "xplane_opstats.h"

#include <stdint.h>
#include <string.h>

/* MemoryAccessBreakdown{repeated MemoryAccessed memory_accessed=1}, MemoryAccessed{
 * operation_type=1 (1 READ, 2 WRITE), memory_space=2 (1 HBM, 2 CMEM, 3 VMEM),
 * bytes_accessed=3}. Malformed bytes are ignored (the stat is then absent). */
static void parse_breakdown(pq_str b, model_op_breakdown *bd)
{
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, (const uint8_t *)b.p, b.n, (const uint8_t *)b.p);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != 1 || f.wire != PB_LEN)
            continue;
        pb_cursor c2;
        pb_field g = {0};
        uint64_t op = 0, space = 0, bytes = 0;
        pb_init(&c2, f.data, f.len, f.data);
        while (pb_next(&c2, &g) == PB_FIELD) {
            if (g.wire != PB_VARINT)
                continue;
            if (g.num == 1)
                op = g.u;
            else if (g.num == 2)
                space = g.u;
            else if (g.num == 3)
                bytes = g.u;
        }
        double v = (double)bytes;
        bd->has_breakdown = 1;
        if (space == 1)
            bd->bd_hbm += v;
        else if (op == 1)
            bd->bd_onchip_rd += v;
        else if (op == 2)
            bd->bd_onchip_wr += v;
        if (space == 2 && op == 1)
            bd->bd_cmem_rd += v;
        if (space == 2 && op == 2)
            bd->bd_cmem_wr += v;
        if (space == 3 && op == 1)
            bd->bd_vmem_rd += v;
        if (space == 3 && op == 2)
            bd->bd_vmem_wr += v;
    }
}

/* The op entry EM states into OP (a later stat of a name overrides an earlier one); 0 when
 * it states no op (no program_id, no symbol_id, or symbol 0). */
static int read_op(const xp_plane *pl, const stat_ids *ids, const xp_event_meta *em, model_op *op)
{
    op_stats o = {0};
    ops_read_op_stats(pl, ids, em->body, em->body_len, 5, &o);
    if (!o.has_pid || !o.has_sid || o.sid == 0)
        return 0;
    memset(op, 0, sizeof *op);
    if (em->display_name.n) {
        op->name = em->display_name;
        op->long_name = em->name;
    } else {
        op->name = em->name;
    }
    op->program_id = o.pid;
    op->symbol_id = o.sid;
    op->category = o.category;
    op->provenance = o.tf_op;
    op->flops = o.flops;
    op->model_flops = o.model_flops;
    op->bytes = o.bytes;
    if (o.mab.p)
        parse_breakdown(o.mab, &op->bd);
    op->dedup_name = o.dedup;
    op->source = o.source;
    op->source_stack = o.source_stack;
    op->custom_call = pq_str_eq(op->category, "custom-call");
    return 1;
}

int xplane_ops(pq_source *src)
{
    for (uint32_t pi = 0; pi < src->nplanes; pi++) {
        xp_plane *pl = &src->planes[pi];
        if (!pl->nemeta || !xp_plane_is(src, pl, "TPU"))
            continue;
        stat_ids ids;
        ops_stat_ids_init(pl, &ids);
        if (ids.id[S_PROGRAM_ID] == INT64_MIN || ids.id[S_SYMBOL_ID] == INT64_MIN)
            continue;
        pl->emeta_op = arena_alloc(&src->mem, pl->nemeta * sizeof *pl->emeta_op);
        if (!pl->emeta_op)
            return -1;
        for (uint32_t i = 0; i < pl->nemeta; i++) {
            model_op op;
            pl->emeta_op[i] = 0;
            if (!read_op(pl, &ids, &pl->emeta[i], &op))
                continue;
            size_t at = model_ops_state(&src->ops, &op);
            if (at == SIZE_MAX || at >= UINT32_MAX)
                return -1;
            pl->emeta_op[i] = (uint32_t)at + 1;
        }
    }
    return 0;
}
