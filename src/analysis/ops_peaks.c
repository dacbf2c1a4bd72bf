/* ops_peaks.c - device capabilities for the roofline: the peak FLOP/s and bandwidths the
 * first device states, read from its model device's capabilities (model/devices.h: the
 * plane stats XProf reads, as the XSpace reader stored them) (TPU: peak_*_bw_gigabytes_per_second,
 * has_cmem, has_merged_vmem, megacore; GPU: memory_bandwidth, SRAM bandwidths), GPU peaks the
 * device does not state derived from its core count x clock x the architecture's per-core rate
 * (XProf's tables), the device type names XProf prints, and what XProf keeps of them when it
 * combines several XSpaces. Not here: user overrides (ops_core.c applies --peak-flops/--peak-bw),
 * the rates against these peaks (ops_rates.c). */
#include "analysis/ops_internal.h"
#include "analysis/ops_steps.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A capability of the device as a number or a string (model/devices.h): 0 or "" when the
 * device states none. */
typedef struct dev_ref {
    const model_devices *d;
    const model_device *v; /* NULL: states nothing */
} dev_ref;

static double cap_num(dev_ref dv, const char *key)
{
    return devices_cap_num(dv.d, dv.v, key);
}

static pq_str cap_str(dev_ref dv, const char *key)
{
    return devices_cap_str(dv.d, dv.v, key);
}

/* Per-core peak rates of a GPU architecture, as XProf's cuda_type_utils.cc and
 * rocm_type_utils.cc tabulate them from the vendors' whitepapers: the largest of the FP32
 * and FP16 vector and matrix FLOPs per core per cycle, and shared-memory (LDS) bytes per
 * core per cycle. MODEL receives XProf's device type name. Returns 0 for a vendor or
 * architecture XProf has no figures for. */
static int gpu_arch_rates(pq_str vendor, pq_str name, int major, int minor, double *flops,
                          double *sram, char *model, size_t model_n)
{
    *flops = *sram = 0;
    if (pq_str_eq(vendor, "AMD")) {
        static const struct {
            const char *gfx;
            double flops, lds;
        } amd[] = {{"gfx908", 1024, 128},
                   {"gfx90a", 1024, 128},
                   {"gfx942", 2048, 128},
                   {"gfx950", 4096, 256}};
        /* the agent name ("gfx942") when well formed, else from the compute capability */
        char gfx[32] = "";
        int ok = name.n >= 6 && name.n < sizeof gfx && memcmp(name.p, "gfx", 3) == 0;
        for (size_t i = 3; ok && i < name.n; i++)
            ok = isxdigit((unsigned char)name.p[i]) != 0;
        if (ok) {
            memcpy(gfx, name.p, name.n);
            gfx[name.n] = 0;
        } else if (major == 9 && (minor == 4 || minor == 5)) {
            strcpy(gfx, minor == 4 ? "gfx942" : "gfx950");
        }
        if (gfx[0])
            snprintf(model, model_n, "AMD GPU - %s", gfx);
        else if (major >= 9 && major <= 11)
            snprintf(model, model_n, "AMD GPU - gfx-%dXX series", major);
        else
            snprintf(model, model_n, "AMD GPU");
        for (size_t i = 0; i < sizeof amd / sizeof amd[0]; i++)
            if (strcmp(gfx, amd[i].gfx) == 0) {
                *flops = amd[i].flops;
                *sram = amd[i].lds;
                return 1;
            }
        return 0;
    }
    if (pq_str_eq(vendor, "Nvidia")) {
        /* highest compute capability <= the device's, else the lowest */
        static const struct {
            int cc;
            double flops;
        } nv[] = {{10000, 8192}, {9000, 4096}, {8090, 1024}, {8060, 1024},
                  {8000, 2048},  {7050, 1024}, {7000, 1024}, {6010, 256},
                  {6000, 256},   {5000, 256},  {3000, 384},  {2000, 64}};
        static const char *const family[] = {"", "", "Fermi", "Kepler", "", "Maxwell", "Pascal"};
        int cc = major * 1000 + minor * 10;
        size_t i = 0;
        while (i + 1 < sizeof nv / sizeof nv[0] && nv[i].cc > cc)
            i++;
        *flops = nv[i].flops;
        *sram = major <= 2 ? 32 * 4 / 2 : 32 * 8;
        const char *f = major >= 2 && major <= 6 ? family[major]
                        : major == 7             ? (minor < 5 ? "Volta" : "Turing")
                        : major == 8             ? (minor < 9 ? "Ampere" : "Ada Lovelace")
                        : major == 9             ? "Hopper"
                        : major == 10            ? "Blackwell"
                                                 : "";
        if (f[0])
            snprintf(model, model_n, "Nvidia GPU (%s)", f);
        else
            snprintf(model, model_n, "Nvidia GPU");
        return 1;
    }
    return 0;
}

static void peaks_from_device(dev_ref dv, pq_ops_hw hw, pq_ops_peaks *pk, char *model,
                              size_t model_n)
{
    memset(pk, 0, sizeof *pk);
    pk->tflops = cap_num(dv, "peak_teraflops_per_second");
    if (pk->tflops < 0)
        pk->tflops = 0;
    if (hw == PQ_OPS_HW_TPU) {
        static const char *const bw[7] = {
            "peak_hbm_bw_gigabytes_per_second",     "peak_sram_rd_bw_gigabytes_per_second",
            "peak_sram_wr_bw_gigabytes_per_second", "peak_cmem_rd_bw_gigabytes_per_second",
            "peak_cmem_wr_bw_gigabytes_per_second", "peak_vmem_rd_bw_gigabytes_per_second",
            "peak_vmem_wr_bw_gigabytes_per_second"};
        for (int i = 0; i < 7; i++)
            pk->bws[i] = cap_num(dv, bw[i]);
        pk->has_cmem = pk->bws[3] > 0 || pk->bws[4] > 0;
        pk->has_merged_vmem = cap_num(dv, "has_merged_vmem") != 0;
        pk->has_megacore = cap_num(dv, "has_megacore") != 0;
        return;
    }
    pk->bws[0] = cap_num(dv, "memory_bandwidth") / 1e9;
    pk->bws[1] = cap_num(dv, "peak_sram_rd_bw_gigabytes_per_second");
    pk->bws[2] = cap_num(dv, "peak_sram_wr_bw_gigabytes_per_second");
    if (hw != PQ_OPS_HW_GPU)
        return;
    /* XProf's GetPerfEnvFromXPlane: peaks the plane does not state come from its core
     * count x clock (kHz) x the architecture's per-core rate; a figure the plane lacks
     * (cores, clock, a known architecture) leaves the peak unknown. */
    double cores = cap_num(dv, "core_count"), ghz = cap_num(dv, "clock_rate") / 1e6;
    double fpc, bpc;
    if (!gpu_arch_rates(cap_str(dv, "device_vendor"), cap_str(dv, "gpu_device_name"),
                        (int)cap_num(dv, "compute_cap_major"),
                        (int)cap_num(dv, "compute_cap_minor"), &fpc, &bpc, model, model_n) ||
        cores <= 0 || ghz <= 0)
        return;
    pk->cores = cores;
    pk->clock_ghz = ghz;
    pk->flops_per_cycle = fpc;
    pk->sram_bytes_per_cycle = bpc;
    if (pk->tflops <= 0 && fpc > 0) {
        pk->tflops = cores * (fpc * ghz) / 1000;
        pk->derived_flops = 1;
    }
    for (int i = 1; i <= 2; i++)
        if (pk->bws[i] <= 0 && bpc > 0) {
            pk->bws[i] = cores * bpc * ghz;
            pk->derived_sram = 1;
        }
}

void ops_peaks_from_device(const model_devices *d, const model_device *v, pq_ops_result *out)
{
    dev_ref dv = {d, v};
    peaks_from_device(dv, out->hw, &out->peaks, out->gpu_model, sizeof out->gpu_model);
    if (out->hw != PQ_OPS_HW_TPU) {
        strcpy(out->device_type, out->hw == PQ_OPS_HW_GPU ? "GPU" : "CPU");
        return;
    }
    pq_str s = cap_str(dv, "device_type_string");
    size_t n = s.n < sizeof out->device_type - 1 ? s.n : sizeof out->device_type - 1;
    if (n)
        memcpy(out->device_type, s.p, n);
    out->device_type[n] = 0;
    if (!out->device_type[0])
        strcpy(out->device_type, "TPU");
}

size_t ops_xspace_count(const pq_profile *prof)
{
    size_t n = 0;
    for (size_t si = 0; si < prof->nsources; si++)
        n += prof->sources[si].nplanes > 0;
    return n;
}

/* XProf 2.24.2's CombinePerfEnv (op_stats_combiner.cc) copies into the combined PerfEnv the
 * peak FLOP/s, the bandwidths and the ridge point, and not has_cmem, has_merged_vmem nor
 * has_megacore: roofline_model of several XSpaces has no CMEM or VMEM peaks (and measures
 * the ops against HBM alone), whatever the devices state. */
void ops_peaks_xprof_combine(pq_ops_peaks *pk, size_t xspaces)
{
    if (xspaces <= 1)
        return; /* one XSpace: CombineAllOpStats takes its op stats as they are */
    pk->has_cmem = 0;
    pk->has_merged_vmem = 0;
    pk->has_megacore = 0;
}
