/* hlo_cost.c - XLA's GPU HLO cost analysis rules over a decoded HloProto (see hlo_cost.h and
 * docs/internals/ops.md "GPU FLOPs and bytes"). XLA keeps every property as a float; the
 * sums here are doubles, the fusion utilizations floats as in XLA, so the results agree to
 * float rounding. The per-opcode tables (elementwise opcodes, the default GPU elementwise
 * profile) are hlo_cost_profile.c. */
#include "analysis/hlo_cost.h"

#include "formats/pbwire.h"
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct hc_ins {
    double flops, trans, bytes, out_bytes;
    double *opb;      /* bytes read per operand (shape index {}) */
    float *opu;       /* utilization per operand (shape index {}) */
    double *out_leaf; /* tuple-shaped fusions: bytes written per top-level tuple element */
    uint32_t nout_leaf;
    float util; /* utilization given by the enclosing fusion */
    double adjust;
    uint8_t done, unknown;
} hc_ins;

typedef struct hc_comp {
    double flops, trans, bytes;
    int state; /* 0 not analysed, 1 in progress, 2 done */
} hc_comp;

struct hlo_cost_model {
    const hlo_module *m;
    arena *a;
    uint32_t *base; /* first global instruction index of each computation */
    hc_ins *ins;
    hc_comp *comps;
    int nomem;
    int depth, ew_depth;  /* nesting of analyze_comp, of is_elementwise */
    uint32_t *comp_order; /* computation indexes sorted by id (first on duplicates) */
    uint8_t *comp_ew;     /* per computation: is it all elementwise (see is_elementwise) */
};

/* ---- small helpers ---- */

static int op_is(pq_str s, const char *lit)
{
    return pq_str_eq(s, lit);
}

static int str_in(pq_str s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pq_str_eq(s, list[i]))
            return 1;
    return 0;
}

static int is_array(const hlo_shape *s)
{
    return s->element_type != HLO_TUPLE && s->element_type != HLO_TOKEN &&
           s->element_type != HLO_OPAQUE && s->element_type != 0;
}

/* ShapeUtil::ElementsIn (arrays) */
static double elems(const hlo_shape *s)
{
    if (!is_array(s))
        return 0;
    double n = 1;
    for (uint32_t i = 0; i < s->ndims; i++)
        n *= s->dims[i] < 0 ? 0 : (double)s->dims[i];
    return n;
}

/* ShapeUtil::ElementsInRecursive */
static double elems_rec(const hlo_shape *s)
{
    if (s->element_type != HLO_TUPLE)
        return elems(s);
    double n = 0;
    for (uint32_t i = 0; i < s->ntuple; i++)
        n += elems_rec(&s->tuple[i]);
    return n;
}

static int has_layout(const hlo_shape *s)
{
    if (s->element_type != HLO_TUPLE)
        return s->has_layout || !is_array(s);
    for (uint32_t i = 0; i < s->ntuple; i++)
        if (!has_layout(&s->tuple[i]))
            return 0;
    return 1;
}

/* HloCostAnalysis::GetShapeSize: 0 without a layout, else ByteSizeOf (8-byte pointers for
 * the index table of a tuple). */
static double shape_size(const hlo_shape *s)
{
    if (!has_layout(s))
        return 0;
    if (s->element_type == HLO_TUPLE)
        return 8.0 * s->ntuple;
    if (s->element_type == HLO_TOKEN)
        return 0;
    if (s->element_type == HLO_OPAQUE)
        return 8;
    return elems(s) * (double)hlo_type_bytes(s->element_type);
}

static int bit_width(int32_t t)
{
    switch (t) {
    case 21: /* S4 */
    case 22: /* U4 */
    case 32: /* F4E2M1FN */
        return 4;
    case 26: /* S2 */
    case 27: /* U2 */
        return 2;
    case 30: /* S1 */
    case 31: /* U1 */
        return 1;
    default:
        return (int)hlo_type_bytes(t) * 8;
    }
}

static int hbm_leaf(const hlo_shape *s)
{
    return is_array(s) && s->has_layout && s->layout.memory_space == 0;
}

/* ---- module lookups ---- */

/* Deepest nesting of called computations analysed (XLA has no limit; real modules nest a
 * few levels, malformed ones may cycle). */
enum { MAX_NEST = 64 };

static const hlo_computation *comp_by_id(const hlo_cost_model *cm, int64_t id, uint32_t *index)
{
    const hlo_module *m = cm->m;
    uint32_t lo = 0, hi = m->ncomputations;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->computations[cm->comp_order[mid]].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == m->ncomputations || m->computations[cm->comp_order[lo]].id != id)
        return NULL;
    if (index)
        *index = cm->comp_order[lo];
    return &m->computations[cm->comp_order[lo]];
}

static uint32_t gidx(const hlo_cost_model *cm, const hlo_instruction *ins)
{
    const hlo_computation *c = &cm->m->computations[ins->computation];
    return cm->base[ins->computation] + (uint32_t)(ins - c->instructions);
}

static const hlo_instruction *operand(const hlo_cost_model *cm, const hlo_instruction *ins,
                                      uint32_t i)
{
    return i < ins->noperands ? hlo_instruction_by_id(cm->m, ins->operand_ids[i]) : NULL;
}

static const hlo_shape *operand_shape(const hlo_cost_model *cm, const hlo_instruction *ins,
                                      uint32_t i)
{
    static const hlo_shape none = {0};
    const hlo_instruction *o = operand(cm, ins, i);
    return o ? &o->shape : &none;
}

static const hlo_instruction *comp_root(const hlo_computation *c)
{
    for (uint32_t i = 0; i < c->ninstructions; i++)
        if (c->instructions[i].id == c->root_id)
            return &c->instructions[i];
    return c->ninstructions ? &c->instructions[c->ninstructions - 1] : NULL;
}

static int is_elementwise(hlo_cost_model *cm, const hlo_instruction *ins)
{
    if (op_is(ins->opcode, "fusion")) {
        if (cm->ew_depth >= MAX_NEST)
            return 0;
        /* elementwise when every fused instruction but the parameters is; memoized per
         * computation (2 yes, 3 no; 1 while in progress, which a cycle reads as no) */
        uint32_t ci;
        if (!ins->ncalled || !comp_by_id(cm, ins->called_computation_ids[0], &ci))
            return 0;
        uint8_t *e = &cm->comp_ew[ci];
        if (*e == 0) {
            const hlo_computation *c = &cm->m->computations[ci];
            *e = 1;
            int all = 1;
            cm->ew_depth++;
            for (uint32_t i = 0; all && i < c->ninstructions; i++) {
                const hlo_instruction *f = &c->instructions[i];
                all = op_is(f->opcode, "parameter") || is_elementwise(cm, f);
            }
            cm->ew_depth--;
            *e = all ? 2 : 3;
        }
        return *e == 2;
    }
    if (op_is(ins->opcode, "bitcast-convert") && ins->noperands == 1 &&
        bit_width(ins->shape.element_type) != bit_width(operand_shape(cm, ins, 0)->element_type))
        return 0;
    return op_is(ins->opcode, "constant") || hlo_opcode_is_elementwise(ins->opcode);
}

/* Decodes the repeated int64 field NUM of message MSG into OUT (up to MAX values). */
static uint32_t msg_ints(pq_str msg, uint32_t num, int64_t *out, uint32_t max)
{
    pb_cursor c;
    pb_field f = {0};
    uint32_t n = 0;
    if (!msg.n)
        return 0;
    pb_init(&c, (const uint8_t *)msg.p, msg.n, (const uint8_t *)msg.p);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != num)
            continue;
        if (f.wire == PB_VARINT) {
            if (n < max)
                out[n] = (int64_t)f.u;
            n++;
        } else if (f.wire == PB_LEN) {
            pb_cursor p;
            pb_init(&p, f.data, f.len, f.data);
            uint64_t v;
            while (p.p < p.end && pb_read_varint(&p, &v)) {
                if (n < max)
                    out[n] = (int64_t)v;
                n++;
            }
        }
    }
    return n < max ? n : max;
}

static int64_t msg_int(pq_str msg, uint32_t num, int64_t dflt)
{
    int64_t v;
    return msg_ints(msg, num, &v, 1) ? v : dflt;
}

static double dim_of(const hlo_shape *s, int64_t d)
{
    return d >= 0 && (uint64_t)d < s->ndims ? (double)s->dims[d] : 0;
}

static int64_t idim(const hlo_shape *s, int64_t d)
{
    return d >= 0 && (uint64_t)d < s->ndims ? s->dims[d] : 0;
}

/* ---- FLOP rules ---- */

enum { MAX_DIMS = 64 };

/* HloCostAnalysis::GetDotFlops: 2 x output elements x product of the contracting sizes. */
static double dot_flops(const hlo_shape *lhs, const hlo_shape *out, pq_str dnums_msg,
                        const int64_t *contract, uint32_t ncontract)
{
    int64_t buf[MAX_DIMS];
    if (!contract) {
        ncontract = msg_ints(dnums_msg, 1, buf, MAX_DIMS);
        contract = buf;
    }
    double width = 1;
    for (uint32_t i = 0; i < ncontract; i++)
        width *= dim_of(lhs, contract[i]);
    return 2 * elems(out) * width;
}

/* HloCostAnalysis::GetConvolutionFlops. */
static double conv_flops(const hlo_instruction *ins, const hlo_shape *lhs, const hlo_shape *rhs,
                         const hlo_shape *out)
{
    int64_t in_sp[MAX_DIMS], k_sp[MAX_DIMS], out_sp[MAX_DIMS];
    pq_str dn = ins->conv_dnums;
    uint32_t nin = msg_ints(dn, 11, in_sp, MAX_DIMS);
    uint32_t nk = msg_ints(dn, 6, k_sp, MAX_DIMS);
    uint32_t nout = msg_ints(dn, 12, out_sp, MAX_DIMS);
    double in_feature = dim_of(lhs, msg_int(dn, 8, 0));
    double out_feature = dim_of(out, msg_int(dn, 10, 0));
    double batch = dim_of(lhs, msg_int(dn, 7, 0));
    /* window dimensions */
    pb_cursor c;
    pb_field f = {0};
    double positions = 1;
    uint32_t sd = 0;
    /* no window: XLA's one-element window, a single valid position */
    pb_init(&c, (const uint8_t *)(ins->window.n ? ins->window.p : ""), ins->window.n,
            (const uint8_t *)(ins->window.n ? ins->window.p : ""));
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != 1 || f.wire != PB_LEN)
            continue;
        pq_str wd = pq_str_of((const char *)f.data, f.len);
        if (sd >= nin || sd >= nk || sd >= nout)
            return 0;
        int64_t kl = idim(rhs, k_sp[sd]), ol = idim(out, out_sp[sd]), il = idim(lhs, in_sp[sd]);
        int64_t stride = msg_int(wd, 2, 1), lo = msg_int(wd, 3, 0), hi = msg_int(wd, 4, 0);
        int64_t wdil = msg_int(wd, 5, 1), bdil = msg_int(wd, 6, 1);
        if (wdil <= 0)
            wdil = 1;
        if (bdil <= 0)
            bdil = 1;
        sd++;
        /* sizes past 2^31 are no real convolution: no cost rather than overflow */
        const int64_t big = (int64_t)1 << 31;
        if (kl > big || ol > big || il > big || stride > big || stride < -big || lo > big ||
            lo < -big || hi > big || hi < -big || wdil > big || bdil > big)
            return 0;
        int64_t valid = 0;
        if (il == ol && kl == ol && il == bdil && wdil == 1 &&
            (il - 1 > 1 ? il - 1 : 1) == stride && lo == 0 && hi == 0) {
            valid = il;
        } else if (il == 1 && kl == ol && wdil == 1 && bdil == 1 && stride == 1 && hi == ol - 1 &&
                   lo == ol - 1) {
            valid = ol;
        } else if (kl * ol <= ((int64_t)1 << 24)) {
            /* XLA's loop: every (kernel, output) pair whose input index is in bounds */
            for (int64_t k = 0; k < kl; k++)
                for (int64_t o = 0; o < ol; o++) {
                    int64_t u = o * stride - lo + k * wdil;
                    int64_t l = bdil > 1 ? u / bdil : u;
                    if (u != l * bdil || l < 0 || l >= il)
                        continue;
                    valid++;
                }
        } else if (bdil == 1 && stride > 0 && kl <= ((int64_t)1 << 24)) {
            /* the same count in closed form per kernel position: 0 <= o*stride + c < il */
            for (int64_t k = 0; k < kl; k++) {
                int64_t c0 = k * wdil - lo;
                int64_t first = c0 >= 0 ? 0 : (-c0 + stride - 1) / stride;
                int64_t end = il - c0 <= 0 ? 0 : (il - c0 + stride - 1) / stride;
                if (end > ol)
                    end = ol;
                valid += end > first ? end - first : 0;
            }
        } else {
            return 0;
        }
        positions *= (double)valid;
    }
    int64_t fg = ins->feature_group_count > 0 ? ins->feature_group_count : 1;
    int64_t bg = ins->batch_group_count > 0 ? ins->batch_group_count : 1;
    /* integer divisions, as XLA's int64 arithmetic */
    double fma =
        floor(in_feature / (double)fg) * out_feature * floor(batch / (double)bg) * positions;
    return 2 * fma;
}

/* ---- the visitor ---- */

static int analyze_comp(hlo_cost_model *cm, uint32_t ci);

static double *dalloc(hlo_cost_model *cm, size_t n)
{
    double *p = arena_alloc(cm->a, (n ? n : 1) * sizeof *p);
    if (!p)
        cm->nomem = 1;
    return p;
}

static const hc_comp *called(hlo_cost_model *cm, const hlo_instruction *ins, uint32_t k)
{
    uint32_t ci;
    if (k >= ins->ncalled || !comp_by_id(cm, ins->called_computation_ids[k], &ci))
        return NULL;
    if (!analyze_comp(cm, ci))
        return NULL;
    return &cm->comps[ci];
}

static void elementwise(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    (void)cm;
    P->flops = (double)hlo_cost_elementwise_flops(ins->opcode, ins->shape.element_type) *
               elems_rec(&ins->shape);
}

/* Bytes of the arrays of a shape one tuple level down (or of the array itself). */
static double top_leaf_bytes(const hlo_shape *s)
{
    if (s->element_type != HLO_TUPLE)
        return shape_size(s);
    double n = 0;
    for (uint32_t k = 0; k < s->ntuple; k++)
        n += shape_size(&s->tuple[k]);
    return n;
}

static void no_memory(hc_ins *P, uint32_t nops)
{
    P->bytes = P->out_bytes = 0;
    for (uint32_t i = 0; i < nops; i++)
        P->opb[i] = 0;
}

/* GpuHloCostAnalysis::FusionCalculateUtilizations: utilization of every fused instruction
 * from the root down, and the fusion's FLOPs as the utilization-weighted sum. */
static int fusion_utilizations(hlo_cost_model *cm, uint32_t ci, double *flops_out)
{
    const hlo_computation *c = &cm->m->computations[ci];
    uint32_t n = c->ninstructions, b = cm->base[ci];
    float *root_util = arena_alloc(cm->a, (n ? n : 1) * sizeof *root_util);
    uint32_t **roots = arena_alloc(cm->a, (n ? n : 1) * sizeof *roots);
    uint32_t *nroots = arena_alloc(cm->a, (n ? n : 1) * sizeof *nroots);
    uint32_t *caps = arena_alloc(cm->a, (n ? n : 1) * sizeof *caps);
    if (!root_util || !roots || !nroots || !caps) {
        cm->nomem = 1;
        return 0;
    }
    const hlo_instruction *root = comp_root(c);
    float flops = 0;
    if (!root) {
        *flops_out = 0;
        return 1;
    }
    uint32_t r = (uint32_t)(root - c->instructions);
#define ADD_ROOT(dst, v)                                                                           \
    do {                                                                                           \
        uint32_t d_ = (dst), v_ = (v), q_;                                                         \
        for (q_ = 0; q_ < nroots[d_] && roots[d_][q_] != v_; q_++)                                 \
            ;                                                                                      \
        if (q_ == nroots[d_]) {                                                                    \
            if (nroots[d_] == caps[d_]) {                                                          \
                uint32_t nc_ = caps[d_] ? caps[d_] * 2 : 4;                                        \
                uint32_t *na_ = arena_alloc(cm->a, nc_ * sizeof *na_);                             \
                if (!na_) {                                                                        \
                    cm->nomem = 1;                                                                 \
                    return 0;                                                                      \
                }                                                                                  \
                if (nroots[d_])                                                                    \
                    memcpy(na_, roots[d_], nroots[d_] * sizeof *na_);                              \
                roots[d_] = na_;                                                                   \
                caps[d_] = nc_;                                                                    \
            }                                                                                      \
            roots[d_][nroots[d_]++] = v_;                                                          \
        }                                                                                          \
    } while (0)
    root_util[r] = 1.0f;
    ADD_ROOT(r, r);
    for (uint32_t j = n; j-- > 0;) {
        const hlo_instruction *ins = &c->instructions[j];
        hc_ins *P = &cm->ins[b + j];
        float u = 0;
        for (uint32_t q = 0; q < nroots[j]; q++)
            u += root_util[roots[j][q]];
        P->util = u;
        flops += u * (float)P->flops;
        int passthrough = is_elementwise(cm, ins) || op_is(ins->opcode, "tuple") ||
                          op_is(ins->opcode, "get-tuple-element");
        for (uint32_t k = 0; k < ins->noperands; k++) {
            const hlo_instruction *o = operand(cm, ins, k);
            if (!o || o->computation != ci)
                continue;
            uint32_t oj = (uint32_t)(o - c->instructions);
            if (passthrough) {
                for (uint32_t q = 0; q < nroots[j]; q++)
                    ADD_ROOT(oj, roots[j][q]);
            } else {
                ADD_ROOT(oj, oj);
                float cu = u * (P->opu ? P->opu[k] : 1.0f);
                float ne = (float)elems_rec(&o->shape);
                cu = ne == 0 ? 0.0f : ceilf(cu * ne) / ne;
                root_util[oj] += cu;
            }
        }
    }
#undef ADD_ROOT
    *flops_out = flops;
    return 1;
}

/* A dynamic-update-slice root's operand 0 is aliased to the fusion output: utilization 0. */
static void zero_opu0(hlo_cost_model *cm, const hlo_instruction *dus)
{
    hc_ins *P = &cm->ins[gidx(cm, dus)];
    if (P->opu && dus->noperands)
        P->opu[0] = 0;
}

static const hlo_instruction *fused_parameter(const hlo_computation *c, int64_t number)
{
    for (uint32_t i = 0; i < c->ninstructions; i++)
        if (op_is(c->instructions[i].opcode, "parameter") &&
            c->instructions[i].parameter_number == number)
            return &c->instructions[i];
    return NULL;
}

/* GpuHloCostAnalysis::FusionParameterReadBytes: size x min(utilization, 1), rounded to the
 * nearest (std::llround of the float product). */
static double param_read(const hlo_cost_model *cm, const hlo_instruction *p)
{
    float u = cm->ins[gidx(cm, p)].util;
    if (u > 1.0f)
        u = 1.0f;
    return round((double)((float)shape_size(&p->shape) * u));
}

static void handle_gather(const hlo_cost_model *cm, const hlo_instruction *g, hc_ins *P)
{
    double out = shape_size(&g->shape), idx = shape_size(operand_shape(cm, g, 1));
    P->bytes = out * 2 + idx;
    P->out_bytes = out;
    double e0 = elems(operand_shape(cm, g, 0));
    if (P->opb) {
        P->opb[0] = out;
        if (g->noperands > 1)
            P->opb[1] = idx;
        P->opu[0] = e0 ? (float)(elems(&g->shape) / e0) : 0;
    }
}

/* Bytes of every array of a shape, at any tuple depth (ShapeUtil::ForEachLeafShape). */
static double leaf_bytes(const hlo_shape *s)
{
    if (s->element_type != HLO_TUPLE)
        return is_array(s) ? shape_size(s) : 0;
    double n = 0;
    for (uint32_t k = 0; k < s->ntuple; k++)
        n += leaf_bytes(&s->tuple[k]);
    return n;
}

/* GpuHloCostAnalysis::HandleAllReduce(Start): the reducer root's elementwise FLOPs per
 * element of the result. */
static void all_reduce_flops(hlo_cost_model *cm, const hlo_instruction *ins, const hlo_shape *out0,
                             hc_ins *P)
{
    uint32_t ci;
    const hlo_computation *red =
        ins->ncalled ? comp_by_id(cm, ins->called_computation_ids[0], &ci) : NULL;
    const hlo_instruction *rr = red ? comp_root(red) : NULL;
    if (rr)
        P->flops = (double)hlo_cost_elementwise_flops(rr->opcode, out0->element_type) *
                   elems_rec(&ins->shape);
}

/* The FLOPs and transcendentals of the first called computation COUNT times (XLA's
 * "sub_properties x count" of HandleMap, HandleScatter, HandleReduceWindow). Returns 0 when
 * out of memory. */
static int times_called(hlo_cost_model *cm, const hlo_instruction *ins, double count, hc_ins *P)
{
    const hc_comp *sub = called(cm, ins, 0);
    if (cm->nomem)
        return 0;
    if (sub) {
        P->flops = sub->flops * count;
        P->trans = sub->trans * count;
    }
    return 1;
}

/* HloCostAnalysis::HandleScatter: inputs, outputs and updates read or written once per
 * update element (3 x the updates) plus the indices; the update computation's FLOPs per
 * update element. Operands: N inputs, the indices, N updates. */
static int handle_scatter(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    uint32_t nops = ins->noperands, n = nops / 2;
    double total = 0;
    if (nops < 3)
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        double u = shape_size(operand_shape(cm, ins, n + 1 + i));
        if (P->opb) {
            P->opb[i] = u;
            P->opb[n + 1 + i] = u;
        }
        total += u;
    }
    double idx = shape_size(operand_shape(cm, ins, n));
    if (P->opb)
        P->opb[n] = idx;
    P->bytes = total * 3 + idx;
    P->out_bytes = total;
    double count = elems(operand_shape(cm, ins, n + 1));
    return times_called(cm, ins, count, P);
}

/* Elements of a window (product of its dimension sizes); *reduce_dims, *padded_dims count
 * the dimensions of size != 1 and the padded ones; *rdim is the dimension ReduceWindow's
 * reduce-and-broadcast form uses (size 2 x pad + 1, equal pads), or -1. */
static double window_elems(pq_str window, int *reduce_dims, int *padded_dims, int64_t *rdim,
                           int64_t *rpad)
{
    pb_cursor c;
    pb_field f = {0};
    double n = 1;
    int64_t d = 0;
    *reduce_dims = *padded_dims = 0;
    *rdim = -1;
    *rpad = 0;
    if (!window.n)
        return 1;
    pb_init(&c, (const uint8_t *)window.p, window.n, (const uint8_t *)window.p);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != 1 || f.wire != PB_LEN)
            continue;
        pq_str wd = pq_str_of((const char *)f.data, f.len);
        int64_t size = msg_int(wd, 1, 0), lo = msg_int(wd, 3, 0), hi = msg_int(wd, 4, 0);
        n *= (double)size;
        *reduce_dims += size != 1;
        *padded_dims += lo != 0 || hi != 0;
        if (*rdim < 0 && size != 1 && lo != 0 && hi != 0 && lo == hi && size == 2 * lo + 1) {
            *rdim = d;
            *rpad = lo;
        }
        d++;
    }
    return n;
}

/* HloCostAnalysis::HandleReduceWindow and HandleSelectAndScatter: the called computations'
 * FLOPs per reduction (window size - 1 per output element; a reduce broadcast back along
 * one dimension counts output/size + size - 1) or per select and scatter. */
static int window_ops(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    int rd, pd;
    int64_t rdim, rpad;
    double w = window_elems(ins->window, &rd, &pd, &rdim, &rpad);
    if (op_is(ins->opcode, "reduce-window")) {
        const hlo_shape *out = ins->shape.element_type == HLO_TUPLE && ins->shape.ntuple
                                   ? &ins->shape.tuple[0]
                                   : &ins->shape;
        double outn = elems(out), count = (w - 1) * outn;
        if (rd == 1 && pd == 1 && ins->shape.element_type != HLO_TUPLE && rdim >= 0 &&
            rpad == idim(&ins->shape, rdim) - 1) {
            double size = dim_of(&ins->shape, rdim);
            count = (size ? floor(outn / size) : 0) + (size - 1);
        }
        return times_called(cm, ins, count, P);
    }
    double src = elems(operand_shape(cm, ins, 1)), selects = src * (w - 1);
    const hc_comp *sel = called(cm, ins, 0);
    const hc_comp *sct = called(cm, ins, 1);
    if (cm->nomem)
        return 0;
    P->flops = (sel ? sel->flops * selects : 0) + (sct ? sct->flops * src : 0);
    P->trans = (sel ? sel->trans * selects : 0) + (sct ? sct->trans * src : 0);
    return 1;
}

/* HloCostAnalysis::HandleFusion with the GPU utilization rules. */
static int handle_fusion(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    uint32_t ci;
    const hlo_computation *c =
        ins->ncalled ? comp_by_id(cm, ins->called_computation_ids[0], &ci) : NULL;
    if (!c)
        return 1;
    if (!analyze_comp(cm, ci))
        return 0;
    if (op_is(ins->fusion_kind, "kCustom")) {
        for (uint32_t i = 0; i < c->ninstructions; i++) {
            if (op_is(c->instructions[i].opcode, "gather")) {
                handle_gather(cm, &c->instructions[i], P);
                return 1;
            }
            if (op_is(c->instructions[i].opcode, "scatter"))
                return handle_scatter(cm, &c->instructions[i], P);
        }
    }
    const hc_comp *cc = &cm->comps[ci];
    P->trans = cc->trans;
    float fb = 0; /* XLA's bytes-accessed property: a float, summed in this order */
    for (uint32_t i = 0; i < ins->noperands; i++) {
        P->opb[i] = 0;
        P->opu[i] = 0;
    }
    const hlo_instruction *root = comp_root(c);
    /* outputs */
    if (ins->shape.element_type == HLO_TUPLE) {
        P->nout_leaf = ins->shape.ntuple;
        if (!(P->out_leaf = dalloc(cm, P->nout_leaf)))
            return 0;
        P->out_bytes = 0;
        for (uint32_t k = 0; k < ins->shape.ntuple; k++) {
            const hlo_shape *sub = &ins->shape.tuple[k];
            double sz = 0;
            if (is_array(sub)) {
                const hlo_instruction *ro =
                    root && op_is(root->opcode, "tuple") ? operand(cm, root, k) : NULL;
                if (ro && op_is(ro->opcode, "dynamic-update-slice")) {
                    sz = shape_size(operand_shape(cm, ro, 1));
                    zero_opu0(cm, ro);
                } else {
                    sz = shape_size(sub);
                }
            } else if (sub->element_type == HLO_TUPLE) {
                for (uint32_t q = 0; q < sub->ntuple; q++)
                    if (is_array(&sub->tuple[q]))
                        sz += shape_size(&sub->tuple[q]);
            }
            P->out_leaf[k] = sz;
            fb += (float)sz;
            P->out_bytes += sz;
        }
    } else if (is_array(&ins->shape)) {
        double sz = shape_size(&ins->shape);
        if (root && op_is(root->opcode, "dynamic-update-slice")) {
            sz = shape_size(operand_shape(cm, root, 1));
            zero_opu0(cm, root);
        }
        fb += (float)sz;
        P->out_bytes = sz;
    }
    double flops;
    if (!fusion_utilizations(cm, ci, &flops))
        return 0;
    P->flops = flops;
    /* large constants */
    for (uint32_t i = 0; i < c->ninstructions; i++) {
        const hlo_instruction *k = &c->instructions[i];
        if (op_is(k->opcode, "constant") && elems(&k->shape) > 8) {
            float u = cm->ins[gidx(cm, k)].util;
            fb += (float)shape_size(&k->shape) * (u > 1.0f ? 1.0f : u);
        }
    }
    /* parameters */
    for (uint32_t i = 0; i < ins->noperands; i++) {
        const hlo_instruction *p = fused_parameter(c, i);
        if (!p)
            continue;
        double sz = 0;
        if (p->shape.element_type != HLO_TUPLE) {
            sz = param_read(cm, p);
        } else {
            for (uint32_t k = 0; k < p->shape.ntuple; k++) {
                const hlo_instruction *g = p;
                for (uint32_t q = 0; q < c->ninstructions; q++) {
                    const hlo_instruction *u = &c->instructions[q];
                    if (op_is(u->opcode, "get-tuple-element") && u->tuple_index == k &&
                        u->noperands == 1 && u->operand_ids[0] == p->id) {
                        g = u;
                        break;
                    }
                }
                sz += param_read(cm, g);
            }
        }
        fb += (float)sz;
        P->opb[i] = sz;
        P->opu[i] = cm->ins[gidx(cm, p)].util;
    }
    P->bytes = fb;
    return 1;
}

static const char *const CONV_TARGETS[] = {
    "__cudnn$convForward",        "__cudnn$convBackwardInput",
    "__cudnn$convBackwardFilter", "__cudnn$convBiasActivationForward",
    "__cudnn$convForwardGraph",
};

static void handle_custom_call(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    if (str_in(ins->custom_call_target, CONV_TARGETS,
               sizeof CONV_TARGETS / sizeof CONV_TARGETS[0])) {
        const hlo_shape *out = ins->shape.element_type == HLO_TUPLE && ins->shape.ntuple
                                   ? &ins->shape.tuple[0]
                                   : &ins->shape;
        P->flops = conv_flops(ins, operand_shape(cm, ins, 0), operand_shape(cm, ins, 1), out);
        if (ins->shape.element_type == HLO_TUPLE) {
            double sz = shape_size(out);
            P->bytes = P->bytes - P->out_bytes + sz;
            P->out_bytes = sz;
        }
        return;
    }
    /* Everything else, the cuBLAS/hipBLAS gemm calls included: XLA marks the cost unknown.
     * (XLA would count a gemm's dot FLOPs from its backend config; the XProf 2.24 build
     * reports none for the gemm calls of these profiles, and profq follows XProf.) */
    P->unknown = 1;
    P->flops = -1;
    P->bytes = -1;
    P->out_bytes = -1;
    for (uint32_t i = 0; i < ins->noperands; i++)
        P->opb[i] = -1;
}

/* The data-movement family (slice, dynamic-slice, dynamic-update-slice, tuple,
 * concatenate): sets P and returns 1, or returns 0 for another opcode. */
static int movement_ops(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    pq_str op = ins->opcode;
    uint32_t nops = ins->noperands;
    if (op_is(op, "slice")) {
        double s = shape_size(&ins->shape), e0 = elems(operand_shape(cm, ins, 0));
        P->bytes = 2 * s;
        P->out_bytes = s;
        if (nops) {
            P->opb[0] = s;
            P->opu[0] = e0 ? (float)(elems(&ins->shape) / e0) : 0;
        }
    } else if (op_is(op, "dynamic-slice")) {
        double s = shape_size(&ins->shape), i1 = shape_size(operand_shape(cm, ins, 1));
        double e0 = elems(operand_shape(cm, ins, 0));
        P->bytes = 2 * s + i1;
        P->out_bytes = s;
        if (nops > 1) {
            P->opb[0] = s;
            P->opb[1] = i1;
            P->opu[0] = e0 ? (float)(elems(&ins->shape) / e0) : 0;
        }
    } else if (op_is(op, "dynamic-update-slice")) {
        double u = shape_size(operand_shape(cm, ins, 1)),
               i2 = shape_size(operand_shape(cm, ins, 2));
        double e = elems(&ins->shape);
        P->bytes = 2 * u + i2;
        P->out_bytes = u;
        if (nops > 2) {
            P->opb[0] = 0;
            P->opb[1] = u;
            P->opb[2] = i2;
            P->opu[0] = e ? (float)((e - elems(operand_shape(cm, ins, 1))) / e) : 0;
        }
    } else if (op_is(op, "tuple")) {
        P->bytes = P->out_bytes = shape_size(&ins->shape);
        for (uint32_t i = 0; i < nops; i++)
            P->opb[i] = 0;
    } else if (op_is(op, "concatenate")) {
        /* GpuHloCostAnalysis::HandleConcatenate: a compare and a branch per element, 400
         * when the concatenated dimension is not the major one and operand 0's size in it
         * is not a multiple of 32 (divergent warps); the operand utilizations stay 1 */
        int64_t dim = ins->ndimensions ? ins->dimensions[0] : 0;
        int64_t size = idim(operand_shape(cm, ins, 0), dim);
        P->flops = (dim > 0 && (size & 31) ? 400 : 6) * elems_rec(&ins->shape);
    } else {
        return 0;
    }
    return 1;
}

/* The family of ops that run called computations (map, call, async-start, while,
 * conditional): sets P from the computations' costs and returns 1, or returns 0 for
 * another opcode. */
static int called_ops(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    pq_str op = ins->opcode;
    if (op_is(op, "map")) {
        const hc_comp *sub = called(cm, ins, 0);
        if (sub) {
            P->flops = sub->flops * elems(&ins->shape);
            P->trans = sub->trans * elems(&ins->shape);
        }
    } else if (op_is(op, "call") || op_is(op, "async-start")) {
        const hc_comp *sub = called(cm, ins, 0);
        if (sub) {
            P->flops = sub->flops;
            P->trans = sub->trans;
            P->bytes = sub->bytes;
        }
    } else if (op_is(op, "while")) {
        P->flops = P->trans = P->bytes = 0;
        for (uint32_t k = 0; k < ins->ncalled; k++) {
            const hc_comp *sub = called(cm, ins, k);
            if (sub) {
                P->flops += sub->flops;
                P->trans += sub->trans;
                P->bytes += sub->bytes;
            }
        }
    } else if (op_is(op, "conditional")) {
        for (uint32_t k = 0; k < ins->ncalled; k++) {
            const hc_comp *sub = called(cm, ins, k);
            if (!sub)
                continue;
            if (k == 0 || sub->flops > P->flops)
                P->flops = sub->flops;
            if (k == 0 || sub->trans > P->trans)
                P->trans = sub->trans;
            if (k == 0 || sub->bytes > P->bytes)
                P->bytes = sub->bytes;
        }
    } else {
        return 0;
    }
    return 1;
}

static int visit(hlo_cost_model *cm, const hlo_instruction *ins)
{
    hc_ins *P = &cm->ins[gidx(cm, ins)];
    if (P->done)
        return 1;
    uint32_t nops = ins->noperands;
    P->opb = dalloc(cm, nops);
    P->opu = arena_alloc(cm->a, (nops ? nops : 1) * sizeof *P->opu);
    if (!P->opb || !P->opu) {
        cm->nomem = 1;
        return 0;
    }
    /* HloCostAnalysis::Preprocess: inputs + output, summed in a float */
    float fb = (float)leaf_bytes(&ins->shape);
    P->out_bytes = shape_size(&ins->shape);
    for (uint32_t i = 0; i < nops; i++) {
        double s = shape_size(operand_shape(cm, ins, i));
        fb += (float)s;
        P->opb[i] = s;
        P->opu[i] = 1.0f;
    }
    P->bytes = fb;
    pq_str op = ins->opcode;
    const hlo_shape *out0 = ins->shape.element_type == HLO_TUPLE && ins->shape.ntuple
                                ? &ins->shape.tuple[0]
                                : &ins->shape;
    if (op_is(op, "fusion")) {
        if (!handle_fusion(cm, ins, P))
            return 0;
    } else if (op_is(op, "custom-call")) {
        handle_custom_call(cm, ins, P);
    } else if (op_is(op, "parameter") || op_is(op, "constant")) {
        P->bytes = P->out_bytes = 0;
    } else if (op_is(op, "get-tuple-element") || op_is(op, "bitcast") || op_is(op, "after-all") ||
               op_is(op, "add-dependency") || op_is(op, "domain")) {
        no_memory(P, nops);
    } else if (op_is(op, "copy")) {
        /* HandleCopy: inputs + output, no FLOPs */
    } else if (hlo_opcode_is_elementwise(op)) {
        elementwise(cm, ins, P);
    } else if (movement_ops(cm, ins, P)) {
        /* slice, dynamic-slice, dynamic-update-slice, tuple, concatenate */
    } else if (op_is(op, "reduce")) {
        const hc_comp *sub = called(cm, ins, 0);
        if (cm->nomem)
            return 0;
        double count = elems(operand_shape(cm, ins, 0)) - elems(out0);
        if (sub) {
            P->flops = sub->flops * count;
            P->trans = sub->trans * count;
        }
        /* GpuHloCostAnalysis::HandleReduce: outputs, inputs, and each init value read once
         * per output element */
        P->out_bytes = P->bytes = top_leaf_bytes(&ins->shape);
        uint32_t inputs = nops / 2;
        for (uint32_t i = 0; i < inputs; i++)
            P->bytes += P->opb[i];
        for (uint32_t i = inputs; i < nops; i++) {
            P->opb[i] = elems(out0) * shape_size(operand_shape(cm, ins, i));
            P->opu[i] = (float)elems(out0);
            P->bytes += P->opb[i];
        }
    } else if (op_is(op, "dot")) {
        P->flops = dot_flops(operand_shape(cm, ins, 0), &ins->shape, ins->dot_dnums, NULL, 0);
    } else if (op_is(op, "convolution")) {
        P->flops =
            conv_flops(ins, operand_shape(cm, ins, 0), operand_shape(cm, ins, 1), &ins->shape);
    } else if (called_ops(cm, ins, P)) {
        /* map, call, async-start, while, conditional */
    } else if (op_is(op, "gather")) {
        handle_gather(cm, ins, P);
    } else if (op_is(op, "sort")) {
        double n = elems(operand_shape(cm, ins, 0));
        P->flops = n > 1 ? n * ceil(log2(n)) : 0;
    } else if (op_is(op, "rng") || op_is(op, "rng-bit-generator")) {
        P->trans = elems_rec(&ins->shape);
    } else if (op_is(op, "all-reduce-start")) {
        /* GpuHloCostAnalysis::HandleAllReduceStart: the bytes transferred (every array of
         * the shape) and the reducer's elementwise FLOPs */
        P->bytes = leaf_bytes(&ins->shape);
        all_reduce_flops(cm, ins, out0, P);
    } else if (op_is(op, "all-reduce")) {
        /* GpuHloCostAnalysis::HandleAllReduce */
        P->out_bytes = P->bytes = top_leaf_bytes(&ins->shape);
        for (uint32_t i = 0; i < nops; i++)
            P->bytes += shape_size(operand_shape(cm, ins, i));
        all_reduce_flops(cm, ins, out0, P);
    } else if (op_is(op, "scatter")) {
        if (!handle_scatter(cm, ins, P))
            return 0;
    } else if (op_is(op, "reduce-window") || op_is(op, "select-and-scatter")) {
        if (!window_ops(cm, ins, P))
            return 0;
    }
    /* XProfGpuCostAnalysis: FLOPs on 8-bit (4-bit) inputs count half (a quarter) on the
     * device. Custom calls adjust only cuBLASLt matmuls, which XProf reports none for. */
    if (!op_is(op, "custom-call") && P->flops != 0) {
        int maxw = 0;
        for (uint32_t i = 0; i < nops; i++) {
            const hlo_shape *s = operand_shape(cm, ins, i);
            if (is_array(s) && bit_width(s->element_type) > maxw)
                maxw = bit_width(s->element_type);
        }
        double div = maxw == 8 ? 2 : maxw == 4 ? 4 : 1;
        P->adjust = P->flops - (double)(float)(P->flops / div);
    }
    /* XLA keeps every property as a float */
    P->flops = (float)P->flops;
    P->trans = (float)P->trans;
    P->bytes = (float)P->bytes;
    P->done = 1;
    return 1;
}

static int analyze_comp(hlo_cost_model *cm, uint32_t ci)
{
    hc_comp *cc = &cm->comps[ci];
    if (cc->state || cm->depth >= MAX_NEST)
        return !cm->nomem; /* done, a cycle or too deep (malformed input): what there is */
    cc->state = 1;
    cm->depth++;
    const hlo_computation *c = &cm->m->computations[ci];
    for (uint32_t i = 0; i < c->ninstructions; i++) {
        if (!visit(cm, &c->instructions[i])) {
            cm->depth--;
            return 0;
        }
        const hc_ins *P = &cm->ins[cm->base[ci] + i];
        /* HloCostAnalysis::Postprocess: properties_sum_ += in floats */
        cc->flops = (float)(cc->flops + P->flops);
        cc->trans = (float)(cc->trans + P->trans);
        cc->bytes = (float)(cc->bytes + P->bytes);
    }
    cc->state = 2;
    cm->depth--;
    return 1;
}

/* computations by (id, position): the first computation of an id wins */
typedef struct comp_key {
    int64_t id;
    uint32_t index;
} comp_key;

static int cmp_comp(const void *x, const void *y)
{
    const comp_key *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

pq_status hlo_cost_analyze(const hlo_module *m, arena *a, hlo_cost_model **out)
{
    hlo_cost_model *cm = arena_alloc(a, sizeof *cm);
    if (!cm)
        return PQ_ERR_NOMEM;
    cm->m = m;
    cm->a = a;
    cm->base = arena_alloc(a, (m->ncomputations + 1) * sizeof *cm->base);
    cm->comps = arena_alloc(a, (m->ncomputations + 1) * sizeof *cm->comps);
    cm->comp_ew = arena_alloc(a, m->ncomputations + 1);
    cm->comp_order = arena_alloc(a, (m->ncomputations + 1) * sizeof *cm->comp_order);
    if (!cm->base || !cm->comps || !cm->comp_ew || !cm->comp_order)
        return PQ_ERR_NOMEM;
    comp_key *keys = arena_alloc(a, (m->ncomputations + 1) * sizeof *keys);
    if (!keys)
        return PQ_ERR_NOMEM;
    for (uint32_t i = 0; i < m->ncomputations; i++)
        keys[i] = (comp_key){m->computations[i].id, i};
    qsort(keys, m->ncomputations, sizeof *keys, cmp_comp);
    for (uint32_t i = 0; i < m->ncomputations; i++)
        cm->comp_order[i] = keys[i].index;
    uint32_t total = 0;
    for (uint32_t i = 0; i < m->ncomputations; i++) {
        cm->base[i] = total;
        total += m->computations[i].ninstructions;
    }
    cm->ins = arena_alloc(a, (total ? total : 1) * sizeof *cm->ins);
    if (!cm->ins)
        return PQ_ERR_NOMEM;
    uint32_t entry;
    if (comp_by_id(cm, m->entry_computation_id, &entry) ||
        (m->ncomputations && (entry = m->ncomputations - 1, 1)))
        analyze_comp(cm, entry);
    if (cm->nomem)
        return PQ_ERR_NOMEM;
    *out = cm;
    return PQ_OK;
}

static double valid(double v)
{
    return v < 0 || !isfinite(v) ? 0 : v;
}

int hlo_cost_get(const hlo_cost_model *cm, const hlo_instruction *ins, hlo_cost *out)
{
    memset(out, 0, sizeof *out);
    if (ins->computation >= cm->m->ncomputations)
        return 0;
    const hc_ins *P = &cm->ins[gidx(cm, ins)];
    if (!P->done)
        return 0;
    /* XLA's per-instruction getters return int64 from the float property */
    out->flops = valid(trunc(P->flops));
    out->device_flops = valid(trunc(P->flops) - trunc(P->adjust));
    out->transcendentals = valid(trunc(P->trans));
    out->bytes = valid(trunc(P->bytes));
    out->unknown = P->unknown;
    if (out->bytes > 0) {
        for (uint32_t i = 0; i < ins->noperands; i++)
            if (hbm_leaf(operand_shape(cm, ins, i)))
                out->hbm_read += trunc(P->opb[i]);
        if (ins->shape.element_type == HLO_TUPLE) {
            for (uint32_t k = 0; k < ins->shape.ntuple && k < P->nout_leaf; k++)
                if (hbm_leaf(&ins->shape.tuple[k]))
                    out->hbm_written += trunc(P->out_leaf[k]);
        } else if (hbm_leaf(&ins->shape)) {
            out->hbm_written = trunc(P->out_bytes);
        }
        out->hbm_read = valid(out->hbm_read);
        out->hbm_written = valid(out->hbm_written);
    }
    return 1;
}
