/* nsys_compile.h - the nsys-jax loader's compile frame and the notebook's compile summary
 * (issue 12 Deliver 2 and 3 "compile"; ../shared/spec/nsys-jax.md sections 4 and 5 item 4):
 * the XLA compilation ranges of the archive's NVTX push/pop report, names stripped of
 * their module= / program_id= fields, autotuning detail removed as the current loader's
 * remove_autotuning_detail does, the parallel-compilation aware statistics of
 * generate_compilation_statistics, and the passes by non-child time covering 97%. */
#ifndef PQ_ANALYSIS_NSYS_COMPILE_H
#define PQ_ANALYSIS_NSYS_COMPILE_H
#include "core/intern.h"
#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

typedef struct nsys_compile_pass {
    uint32_t name;       /* id in the result's names */
    double non_child_ns; /* parallel-aware sum of DurNonChild over the name's ranges */
    double child_ns;     /* the same for DurChild */
    double share;        /* non_child_ns / total_ns */
} nsys_compile_pass;

typedef struct nsys_compile_result {
    size_t sources;               /* nsys-jax sources that carry a push/pop report */
    uint64_t rows;                /* the compile frame (all = init; steady has none) */
    uint64_t rows_detail_removed; /* after remove_autotuning_detail */
    uint64_t parallel_regions;    /* main-thread ranges whose children ran on workers */
    intern_pool names;
    /* The notebook's summary: cleaned names (autotuner measurements collapsed, the
     * ":#module=split_module#" suffix dropped), by non-child time descending. */
    nsys_compile_pass *passes;
    size_t npasses;
    size_t ntop;     /* passes[0..ntop): the cumulative share stays <= 97% */
    double total_ns; /* sum of non_child_ns */
} nsys_compile_result;

/* One source's share of the summary (what an nsys partial keeps of the push/pop report):
 * its counts and, in the order of the source's own names pool, the names its statistics
 * hit (HIT 1, with their parallel-aware sums, NaN kept) and the cleaned names those group
 * under (HIT 0). The summary of a profile is its sources' parts merged in source order:
 * one process and a merge of partials add the same per-source sums in the same order. */
typedef struct nsys_compile_entry {
    uint32_t name; /* id in the part's names */
    uint8_t hit;
    double nc, ch;
} nsys_compile_entry;

typedef struct nsys_compile_part {
    uint64_t sources, rows, rows_detail_removed, parallel_regions;
    intern_pool names;
    nsys_compile_entry *e;
    size_t n;
} nsys_compile_part;

/* SRC's part (an nsys-jax source with a timeline; empty for the others). */
pq_status nsys_compile_part_compute(const pq_source *src, nsys_compile_part *out, pq_error *err);
void nsys_compile_part_free(nsys_compile_part *p);

/* PQ_ERR_INPUT when the profile holds no nsys-jax source; a source without a push/pop
 * report adds nothing. PARTS (NULL, or one per source, NULL entries computed from the
 * source) gives sources' parts computed before (an nsys partial's). */
pq_status nsys_compile_compute(const pq_profile *prof, nsys_compile_result *out, pq_error *err);
pq_status nsys_compile_compute_parts(const pq_profile *prof, const nsys_compile_part *const *parts,
                                     nsys_compile_result *out, pq_error *err);
void nsys_compile_free(nsys_compile_result *r);

static inline const char *nsys_compile_name(const nsys_compile_result *r,
                                            const nsys_compile_pass *p)
{
    return intern_str(&r->names, p->name);
}

#endif
