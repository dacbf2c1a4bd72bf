/* hlo_cost.h - per-instruction FLOPs and bytes of an HLO module, by the rules of XLA's
 * GPU HLO cost analysis (xla/service/hlo_cost_analysis.cc with the overrides of
 * xla/service/gpu/model/gpu_hlo_cost_analysis.cc) as XProf runs it on the HloProto of a GPU
 * profile (XProfGpuCostAnalysis, no device description: the default elementwise profile).
 * docs/internals/hlo_cost.md states the rules, their XLA sources and what is not modelled.
 *
 * Every instruction of every computation reachable from the entry gets a cost; nested
 * computations (fusion bodies, reduce/map reducers, call/while/conditional bodies) are
 * analysed as XLA's nested analyses do. Instructions inside fusions get their own cost as a
 * nested analysis leaves it, plus the utilization the enclosing fusion gave them. */
#ifndef PQ_ANALYSIS_HLO_COST_H
#define PQ_ANALYSIS_HLO_COST_H
#include "core/arena.h"
#include "formats/hlo.h"

typedef struct hlo_cost {
    double flops;           /* XLA flop_count(): XProf's model FLOPs */
    double device_flops;    /* flops less XProf's 8-/4-bit input adjustment */
    double transcendentals; /* XLA transcendental_count() */
    double bytes;           /* XLA bytes_accessed() */
    double hbm_read;        /* GetBytesRead(memory space 0): operands */
    double hbm_written;     /* GetBytesWritten(memory space 0): outputs */
    int unknown;            /* XLA marked the cost unknown (-1): a custom call it cannot model */
} hlo_cost;

typedef struct hlo_cost_model hlo_cost_model;

/* Analyses module M (decoded by hlo_decode) into arena A. Returns PQ_OK, or PQ_ERR_NOMEM.
 * Malformed references (operand ids that name nothing, bad dimension numbers) give the
 * instruction no cost, never a crash. */
pq_status hlo_cost_analyze(const hlo_module *m, arena *a, hlo_cost_model **out);

/* Cost of instruction INS of the analysed module as XProf's PerformanceInfo reports it
 * (negative XLA values become 0). Returns 1, or 0 when INS was not reached from the entry
 * computation (XProf then has no cost for it either). */
int hlo_cost_get(const hlo_cost_model *cm, const hlo_instruction *ins, hlo_cost *out);

/* Whether OPCODE is elementwise by XLA's HloInstruction::IsElementwise (copy included). */
int hlo_opcode_is_elementwise(pq_str opcode);

/* FLOPs per element XLA's default GPU elementwise profile charges for OPCODE producing
 * ELEMENT_TYPE (3 for anything the profile does not list). */
int64_t hlo_cost_elementwise_flops(pq_str opcode, int32_t element_type);

#endif
