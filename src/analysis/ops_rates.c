/* ops_rates.c - the roofline figures of one op row (spec/xprof-tools.md 5.6): measured and
 * model FLOP rates, memory and HBM/CMEM/VMEM bandwidths in GiB/s, operational intensity,
 * and what bounds the op (the resource with the highest utilisation against the device
 * peaks). A pure function of a row and the result's peaks; the renderers print these. */
#include "analysis/ops_internal.h"

#include <math.h>
#include <string.h>

double ops_giga_to_gibi(double x)
{
    return x / (1073741824.0 / 1e9);
}

static int ends_with(pq_str s, const char *suffix)
{
    size_t n = strlen(suffix);
    return s.n >= n && memcmp(s.p + s.n - n, suffix, n) == 0;
}

/* The start or done half of an async pair: by category (TPU: "copy-start", "copy-done",
 * "all-gather-start", ...), or on GPU/CPU, where XLA's ToCategory files copy-start and
 * copy-done under "data formatting", by the opcode part of the name. */
static int is_async_half(const pq_op_row *m)
{
    if (ends_with(m->category, "-start") || ends_with(m->category, "-done"))
        return 1;
    if (!pq_str_eq(m->category, "data formatting"))
        return 0;
    pq_str op = m->name;
    for (size_t i = 0; i < op.n; i++)
        if (op.p[i] == '.') {
            op.n = i;
            break;
        }
    return ends_with(op, "-start") || ends_with(op, "-done");
}

/* XProf's roofline_model utilisations of O against R's peaks: the memories are HBM, then
 * on GPU/CPU the SRAM (as VMEM), on TPU CMEM when the device has it, else merged VMEM. */
static void roofline_figures(const pq_ops_result *r, pq_op_rates *o)
{
    const pq_ops_peaks *pk = &r->peaks;
    int gpu = r->hw == PQ_OPS_HW_GPU || r->hw == PQ_OPS_HW_CPU;
    double cmem_rd = 0, cmem_wr = 0, vmem_rd = 0, vmem_wr = 0;
    if (gpu) {
        vmem_rd = ops_giga_to_gibi(pk->bws[1]);
        vmem_wr = ops_giga_to_gibi(pk->bws[2]);
    } else if (pk->has_cmem) {
        cmem_rd = ops_giga_to_gibi(pk->bws[3]);
        cmem_wr = ops_giga_to_gibi(pk->bws[4]);
    } else if (pk->has_merged_vmem) {
        vmem_rd = ops_giga_to_gibi(pk->bws[5]);
        vmem_wr = ops_giga_to_gibi(pk->bws[6]);
    }
    double flop_util = ops_safe_div(o->flop_rate_gflops, pk->tflops * 1000);
    double mem = ops_safe_div(o->hbm_bw_gibps, ops_giga_to_gibi(pk->bws[0]));
    if (!gpu && pk->has_cmem) {
        mem = fmax(mem, ops_safe_div(o->cmem_rd_gibps, cmem_rd));
        mem = fmax(mem, ops_safe_div(o->cmem_wr_gibps, cmem_wr));
    }
    if (gpu || pk->has_merged_vmem) {
        mem = fmax(mem, ops_safe_div(o->vmem_rd_gibps, vmem_rd));
        mem = fmax(mem, ops_safe_div(o->vmem_wr_gibps, vmem_wr));
    }
    o->flop_utilization = flop_util;
    o->max_mem_utilization = mem;
    o->roofline_efficiency = fmax(flop_util, mem);
    o->optimal_flop_rate = ops_safe_div(o->flop_rate_gflops, o->roofline_efficiency);
}

void ops_rates(const pq_ops_result *r, const pq_op_row *m, pq_op_rates *o)
{
    memset(o, 0, sizeof *o);
    double ns = (double)m->time_ps / 1e3;
    o->flop_rate_gflops = ops_safe_div(m->flops, ns);
    o->model_flop_rate = ops_safe_div(m->model_flops, ns);
    o->mem_bw_gibps = ops_giga_to_gibi(ops_safe_div(m->bytes_accessed, ns));
    o->hbm_bytes = m->has_breakdown ? m->bd_hbm : m->bytes_accessed;
    o->hbm_bw_gibps = ops_giga_to_gibi(ops_safe_div(o->hbm_bytes, ns));
    o->cmem_rd_gibps = ops_giga_to_gibi(ops_safe_div(m->bd_cmem_rd, ns));
    o->cmem_wr_gibps = ops_giga_to_gibi(ops_safe_div(m->bd_cmem_wr, ns));
    o->vmem_rd_gibps = ops_giga_to_gibi(ops_safe_div(m->bd_vmem_rd, ns));
    o->vmem_wr_gibps = ops_giga_to_gibi(ops_safe_div(m->bd_vmem_wr, ns));
    o->oi = ops_safe_div(m->flops, m->bytes_accessed);
    o->hbm_oi = ops_safe_div(m->flops, o->hbm_bytes);
    const pq_ops_peaks *pk = &r->peaks;
    const char *bound = "Unknown";
    double best = 0, boi = 0;
    double u = ops_safe_div(o->flop_rate_gflops, pk->tflops * 1000);
    if (u > best) {
        best = u;
        bound = "Compute";
        boi = o->oi;
    }
    u = ops_safe_div(o->hbm_bw_gibps, ops_giga_to_gibi(pk->bws[0]));
    if (u > best) {
        best = u;
        bound = "HBM";
        boi = o->hbm_oi;
    }
    if (r->hw == PQ_OPS_HW_TPU) {
        struct {
            double bytes, bw, peak;
            const char *name;
        } mem[4] = {{m->bd_cmem_rd, o->cmem_rd_gibps, pk->bws[3], "CMEM Read"},
                    {m->bd_cmem_wr, o->cmem_wr_gibps, pk->bws[4], "CMEM Write"},
                    {m->bd_vmem_rd, o->vmem_rd_gibps, pk->bws[5], "VMEM Read"},
                    {m->bd_vmem_wr, o->vmem_wr_gibps, pk->bws[6], "VMEM Write"}};
        for (int i = 0; i < 4; i++) {
            if (mem[i].bytes <= 0 || mem[i].peak == 0)
                continue;
            u = ops_safe_div(mem[i].bw, ops_giga_to_gibi(mem[i].peak));
            if (u > best) {
                best = u;
                bound = mem[i].name;
                boi = ops_safe_div(m->flops, mem[i].bytes);
            }
        }
    } else if (r->hw == PQ_OPS_HW_GPU && pk->bws[2] != 0) {
        u = ops_safe_div(o->hbm_bw_gibps, ops_giga_to_gibi(pk->bws[2]));
        if (u > best) {
            best = u;
            bound = "Shm/L1";
            boi = o->hbm_oi;
        }
    }
    o->bound_by = bound;
    o->bottleneck_oi = boi;
    roofline_figures(r, o);
    if (is_async_half(m))
        o->not_meaningful = "the start or done half of an async op: its bytes move between "
                            "the two, not in this op's own time";
}
