/* hlo_cost_int.h - what the two halves of the GPU cost analysis share: the per-instruction
 * and per-computation properties, the model, the shape and module helpers (hlo_cost.c) and
 * the rules of the opcode families (hlo_cost_ops.c). Internal to src/analysis/hlo_cost*.c;
 * the interface is hlo_cost.h. */
#ifndef PQ_ANALYSIS_HLO_COST_INT_H
#define PQ_ANALYSIS_HLO_COST_INT_H
#include "analysis/hlo_cost.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

/* Deepest nesting of called computations analysed (XLA has no limit; real modules nest a
 * few levels, malformed ones may cycle). */
enum { MAX_NEST = 64 };
enum { MAX_DIMS = 64 };

typedef struct hc_ins {
    double flops, trans, bytes, out_bytes;
    double *opb;      /* bytes read per operand (shape index {}) */
    float *opu;       /* utilization per operand (shape index {}) */
    double *out_leaf; /* tuple-shaped fusions: bytes written per top-level tuple element */
    double **op_leaf; /* per tuple operand: bytes read per top-level element, or NULL */
    uint32_t nout_leaf;
    float util; /* utilization given by the enclosing fusion */
    double adjust;
    uint8_t done, unknown;
} hc_ins;

typedef struct hc_comp {
    double flops, trans, bytes;
    int state;       /* 0 not analysed, 1 in progress, 2 done */
    uint32_t *order; /* the instructions in the order XLA's HloComputation::Accept visits them */
} hc_comp;

struct hlo_cost_model {
    const hlo_module *m;
    arena *a;
    uint32_t *base; /* first global instruction index of each computation */
    hc_ins *ins;
    hc_comp *comps;
    int nomem;
    int failed;           /* XLA's analysis returned an error: XProf then prices nothing */
    int depth, ew_depth;  /* nesting of analyze_comp, of is_elementwise */
    uint32_t *comp_order; /* computation indexes sorted by id (first on duplicates) */
    uint8_t *comp_ew;     /* per computation: is it all elementwise (see is_elementwise) */
};

/* V rounded to a float, as XLA stores every property. Through a volatile: GCC 12 at -O2
 * vectorizes two neighbouring (float) casts of doubles (flops and transcendentals) and drops
 * the rounding, which moved a while loop's FLOPs by 761 of 3.6e10. */
static inline float hc_tof(double v)
{
    /* out of float range XLA's property is an infinity (and C's conversion undefined) */
    return v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
}

static inline double hc_f32(double v)
{
    volatile float f = hc_tof(v);
    return f;
}

/* ---- shape and module helpers (hlo_cost.c) ---- */

int hc_op_is(pq_str s, const char *lit);
int hc_str_in(pq_str s, const char *const *list, size_t n);
int hc_is_array(const hlo_shape *s);
double hc_elems(const hlo_shape *s);      /* ShapeUtil::ElementsIn */
double hc_elems_rec(const hlo_shape *s);  /* ShapeUtil::ElementsInRecursive */
double hc_shape_size(const hlo_shape *s); /* HloCostAnalysis::GetShapeSize */
double hc_leaf_bytes(const hlo_shape *s); /* GetShapeSize summed over every array leaf */
const hlo_computation *hc_comp_by_id(const hlo_cost_model *cm, int64_t id, uint32_t *index);
const hlo_instruction *hc_operand(const hlo_cost_model *cm, const hlo_instruction *ins, uint32_t i);
const hlo_shape *hc_operand_shape(const hlo_cost_model *cm, const hlo_instruction *ins, uint32_t i);
const hlo_instruction *hc_comp_root(const hlo_computation *c);
uint32_t hc_msg_ints(pq_str msg, uint32_t num, int64_t *out, uint32_t max);
int64_t hc_msg_int(pq_str msg, uint32_t num, int64_t dflt);
double hc_dim_of(const hlo_shape *s, int64_t d);
int64_t hc_idim(const hlo_shape *s, int64_t d);
/* The analysed properties of called computation K of INS (NULL when absent). */
const hc_comp *hc_called(hlo_cost_model *cm, const hlo_instruction *ins, uint32_t k);

/* ---- the opcode families (hlo_cost_ops.c); P holds Preprocess's defaults on entry ---- */

double hc_dot_flops(const hlo_shape *lhs, const hlo_shape *out, pq_str dnums_msg,
                    const int64_t *contract, uint32_t ncontract);
double hc_conv_flops(const hlo_instruction *ins, const hlo_shape *lhs, const hlo_shape *rhs,
                     const hlo_shape *out);
void hc_gather(const hlo_cost_model *cm, const hlo_instruction *g, hc_ins *P);
int hc_scatter(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P);
int hc_window_ops(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P);
void hc_custom_call(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P);
int hc_is_cublaslt(const hlo_instruction *ins);
int hc_movement_ops(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P);
void hc_all_reduce_flops(hlo_cost_model *cm, const hlo_instruction *ins, const hlo_shape *out0,
                         hc_ins *P);
/* The collectives GpuHloCostAnalysis prices by their number of ranks (all-reduce(-start),
 * all-gather(-start), reduce-scatter, async-start): sets P and returns 1, or returns 0 for
 * another opcode (and -1 when out of memory). Sets cm->failed where XLA's analysis fails. */
int hc_collectives(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P);

#endif
