/* ops.h - op metrics from device planes, as XProf's OpStats pipeline computes them
 * (spec/xprof-tools.md section 5): one row per (program, op) merged over devices and hosts,
 * the device peaks the planes state, and the captured/active/idle windows. A pure function
 * of the model (ops_core.c with the extractors ops_tpu.c, ops_gpu.c, ops_cpu.c, the peaks
 * ops_peaks.c and the rates ops_rates.c); the renderers in render/ turn the result into
 * text, JSON and XProf's DataTables. */
#ifndef PQ_ANALYSIS_OPS_H
#define PQ_ANALYSIS_OPS_H
#include "core/arena.h"
#include "model/model.h"

typedef struct op_metrics {
    uint64_t program_id;
    uint64_t symbol_id; /* TPU; 0 for GPU ops (keyed by name) */
    pq_str name, long_name, category, provenance, dedup_name;
    pq_str source, source_stack; /* metadata stats "source" (file:line) and "source_stack" */
    int64_t occurrences;
    int64_t time_ps, self_time_ps, min_time_ps, dma_stall_ps;
    double normalized_time_ps;
    double flops, model_flops, bytes_accessed;
    /* memory_access_breakdown, summed (bytes): HBM any direction, CMEM and VMEM read/write,
     * on-chip (memory space != HBM) read/write. */
    double bd_hbm, bd_cmem_rd, bd_cmem_wr, bd_vmem_rd, bd_vmem_wr, bd_onchip_rd, bd_onchip_wr;
    int has_breakdown;
    int is_idle;
    /* GPU/CPU: provenance is the HLO instruction's metadata.op_name; XProf's framework op
     * name is then "<op_name>:<op_type>" (empty when op_name is). */
    int provenance_from_hlo;
    pq_str op_type;
} op_metrics;

/* One XLA module (program) over all devices. */
typedef struct ops_program {
    uint64_t program_id;
    pq_str name;        /* module name ("" when the input names none) */
    int64_t executions; /* XLA Modules events (TPU); 0 where the input has none */
    int64_t module_ps;  /* summed module execution time over devices */
    int64_t op_self_ps; /* summed op self time */
    int64_t first_ps;   /* first module (or op) start, absolute */
    double flops, model_flops, bytes_accessed, hbm_bytes;
    /* steady state: the program's executions after the first on each device */
    int64_t steady_executions, steady_module_ps;
    double steady_share; /* fraction of the program's op time inside steady executions */
    const void *seen_on; /* internal: the device plane of the last execution counted */
} ops_program;

/* Numbered as XProf's HardwareType. CPU: XLA ops on host threads (profq only; XProf's
 * device tools are empty for CPU-only runs). */
typedef enum ops_hw { OPS_HW_NONE = 0, OPS_HW_CPU = 1, OPS_HW_GPU = 2, OPS_HW_TPU = 3 } ops_hw;

typedef struct ops_peaks {
    double tflops; /* peak TFLOP/s per device; 0 = unknown */
    double
        bws[7]; /* GB/s: HBM, SRAM rd, SRAM wr, CMEM rd, CMEM wr, VMEM rd, VMEM wr; 0 = unknown */
    int has_cmem, has_merged_vmem, has_megacore;
    int user_flops, user_bw; /* set from --peak-flops / --peak-bw */
    /* GPU: the FLOP and SRAM peaks derived from the plane's core count x clock x the
     * architecture's per-core rate (XProf's tables; 0 when the plane states them or when
     * the architecture is not in the tables), and the rates used. */
    int derived_flops, derived_sram;
    double cores, clock_ghz, flops_per_cycle, sram_bytes_per_cycle;
} ops_peaks;

typedef struct ops_result {
    ops_hw hw;
    char device_type[64];
    char gpu_model[64];     /* XProf's GPU device_type ("AMD GPU - gfx942"); "" when unknown */
    uint32_t ndevices;      /* device planes contributing */
    uint32_t device_planes; /* all planes of the chosen kind (XProf device_core_count) */
    op_metrics *ops;        /* sorted by (self_time desc, name asc); the IDLE row is last */
    size_t nops;
    ops_program *programs; /* sorted by op self time desc, then id */
    size_t nprograms;
    int64_t total_time_ps; /* XProf's db total_time_ps: summed over devices, includes idle */
    int64_t total_op_time_ps;
    double normalized_total_op_time_ps;
    /* Windows, summed over devices (device-picoseconds). */
    int64_t window_ps;        /* per device: last end - first start of its op/module/step lines */
    int64_t module_ps;        /* union of module executions */
    int64_t busy_ps;          /* union of top-level op events */
    int64_t idle_ps;          /* total_time - total op time (XProf's IDLE op) */
    arena *strings;           /* text built for the ops (GPU source info); NULL when none */
    int64_t steady_window_ps; /* windows after the first execution of the dominant program */
    int64_t steady_busy_ps;
    uint64_t dominant_program;
    int has_dominant;
    ops_peaks peaks;
} ops_result;

typedef struct ops_options {
    double peak_tflops; /* > 0 overrides the plane stats */
    double peak_hbm_gbps;
    int device_only; /* XProf's device tables: no XLA:CPU fallback (empty on CPU-only runs) */
} ops_options;

pq_status ops_compute(const pq_profile *prof, const ops_options *opt, ops_result *out,
                      pq_error *err);
void ops_free(ops_result *r);

/* Derived figures (spec 5.6). */
typedef struct op_rates {
    double flop_rate_gflops; /* measured: flops / time_ns */
    double model_flop_rate;
    double mem_bw_gibps; /* bytes_accessed / ns, GiB/s */
    double hbm_bw_gibps; /* breakdown HBM bytes, or bytes_accessed without breakdown */
    double cmem_rd_gibps, cmem_wr_gibps, vmem_rd_gibps, vmem_wr_gibps;
    double oi; /* flops / bytes_accessed */
    double hbm_oi;
    double hbm_bytes;
    const char *bound_by; /* "Compute", "HBM", ... or "Unknown" */
    double bottleneck_oi;
} op_rates;

void ops_rates(const ops_result *r, const op_metrics *m, op_rates *out);
/* GiB/s from GB/s. */
double ops_giga_to_gibi(double x);

#endif
