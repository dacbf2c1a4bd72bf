/* hlo_cost.c - XLA's GPU HLO cost analysis over a decoded HloProto (see hlo_cost.h and
 * docs/internals/hlo_cost.md): the visitor (each computation once, its sums in the order of
 * XLA's HloComputation::Accept), Preprocess's defaults, fusions (utilizations, parameter
 * reads), call/while/conditional and the shape and module helpers the opcode rules share.
 * XLA keeps every property as a float, and so does this file (hc_f32). Not here: the rules
 * per opcode family (hlo_cost_ops.c), the elementwise tables (hlo_cost_profile.c). */
#include "analysis/hlo_cost_int.h"

#include "formats/pbwire.h"
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

int hc_op_is(pq_str s, const char *lit)
{
    return pq_str_eq(s, lit);
}

int hc_str_in(pq_str s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pq_str_eq(s, list[i]))
            return 1;
    return 0;
}

int hc_is_array(const hlo_shape *s)
{
    return s->element_type != HLO_TUPLE && s->element_type != HLO_TOKEN &&
           s->element_type != HLO_OPAQUE && s->element_type != 0;
}

/* ShapeUtil::ElementsIn (arrays) */
double hc_elems(const hlo_shape *s)
{
    if (!hc_is_array(s))
        return 0;
    double n = 1;
    for (uint32_t i = 0; i < s->ndims; i++)
        n *= s->dims[i] < 0 ? 0 : (double)s->dims[i];
    return n;
}

/* ShapeUtil::ElementsInRecursive */
double hc_elems_rec(const hlo_shape *s)
{
    if (s->element_type != HLO_TUPLE)
        return hc_elems(s);
    double n = 0;
    for (uint32_t i = 0; i < s->ntuple; i++)
        n += hc_elems_rec(&s->tuple[i]);
    return n;
}

static int has_layout(const hlo_shape *s)
{
    if (s->element_type != HLO_TUPLE)
        return s->has_layout || !hc_is_array(s);
    for (uint32_t i = 0; i < s->ntuple; i++)
        if (!has_layout(&s->tuple[i]))
            return 0;
    return 1;
}

/* HloCostAnalysis::GetShapeSize: 0 without a layout, else ByteSizeOf (8-byte pointers for
 * the index table of a tuple). */
double hc_shape_size(const hlo_shape *s)
{
    if (!has_layout(s))
        return 0;
    if (s->element_type == HLO_TUPLE)
        return 8.0 * s->ntuple;
    if (s->element_type == HLO_TOKEN)
        return 0;
    if (s->element_type == HLO_OPAQUE)
        return 8;
    return hc_elems(s) * (double)hlo_type_bytes(s->element_type);
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
    return hc_is_array(s) && s->has_layout && s->layout.memory_space == 0;
}

/* ---- module lookups ---- */

const hlo_computation *hc_comp_by_id(const hlo_cost_model *cm, int64_t id, uint32_t *index)
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

const hlo_instruction *hc_operand(const hlo_cost_model *cm, const hlo_instruction *ins, uint32_t i)
{
    return i < ins->noperands ? hlo_instruction_by_id(cm->m, ins->operand_ids[i]) : NULL;
}

const hlo_shape *hc_operand_shape(const hlo_cost_model *cm, const hlo_instruction *ins, uint32_t i)
{
    static const hlo_shape none = {0};
    const hlo_instruction *o = hc_operand(cm, ins, i);
    return o ? &o->shape : &none;
}

const hlo_instruction *hc_comp_root(const hlo_computation *c)
{
    for (uint32_t i = 0; i < c->ninstructions; i++)
        if (c->instructions[i].id == c->root_id)
            return &c->instructions[i];
    return c->ninstructions ? &c->instructions[c->ninstructions - 1] : NULL;
}

static int is_elementwise(hlo_cost_model *cm, const hlo_instruction *ins)
{
    if (hc_op_is(ins->opcode, "fusion")) {
        if (cm->ew_depth >= MAX_NEST)
            return 0;
        /* elementwise when every fused instruction but the parameters is; memoized per
         * computation (2 yes, 3 no; 1 while in progress, which a cycle reads as no) */
        uint32_t ci;
        if (!ins->ncalled || !hc_comp_by_id(cm, ins->called_computation_ids[0], &ci))
            return 0;
        uint8_t *e = &cm->comp_ew[ci];
        if (*e == 0) {
            const hlo_computation *c = &cm->m->computations[ci];
            *e = 1;
            int all = 1;
            cm->ew_depth++;
            for (uint32_t i = 0; all && i < c->ninstructions; i++) {
                const hlo_instruction *f = &c->instructions[i];
                all = hc_op_is(f->opcode, "parameter") || is_elementwise(cm, f);
            }
            cm->ew_depth--;
            *e = all ? 2 : 3;
        }
        return *e == 2;
    }
    if (hc_op_is(ins->opcode, "bitcast-convert") && ins->noperands == 1 &&
        bit_width(ins->shape.element_type) != bit_width(hc_operand_shape(cm, ins, 0)->element_type))
        return 0;
    return hc_op_is(ins->opcode, "constant") || hlo_opcode_is_elementwise(ins->opcode);
}

/* Decodes the repeated int64 field NUM of message MSG into OUT (up to MAX values). */
uint32_t hc_msg_ints(pq_str msg, uint32_t num, int64_t *out, uint32_t max)
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

int64_t hc_msg_int(pq_str msg, uint32_t num, int64_t dflt)
{
    int64_t v;
    return hc_msg_ints(msg, num, &v, 1) ? v : dflt;
}

double hc_dim_of(const hlo_shape *s, int64_t d)
{
    return d >= 0 && (uint64_t)d < s->ndims ? (double)s->dims[d] : 0;
}

int64_t hc_idim(const hlo_shape *s, int64_t d)
{
    return d >= 0 && (uint64_t)d < s->ndims ? s->dims[d] : 0;
}

/* ---- FLOP rules ---- */

/* ---- the visitor ---- */

static int analyze_comp(hlo_cost_model *cm, uint32_t ci);

static double *dalloc(hlo_cost_model *cm, size_t n)
{
    double *p = arena_alloc(cm->a, (n ? n : 1) * sizeof *p);
    if (!p)
        cm->nomem = 1;
    return p;
}

const hc_comp *hc_called(hlo_cost_model *cm, const hlo_instruction *ins, uint32_t k)
{
    uint32_t ci;
    if (k >= ins->ncalled || !hc_comp_by_id(cm, ins->called_computation_ids[k], &ci))
        return NULL;
    if (!analyze_comp(cm, ci))
        return NULL;
    return &cm->comps[ci];
}

static void elementwise(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    (void)cm;
    P->flops = (double)hlo_cost_elementwise_flops(ins->opcode, ins->shape.element_type) *
               hc_elems_rec(&ins->shape);
}

/* Bytes of the arrays of a shape one tuple level down (or of the array itself). */
static double top_leaf_bytes(const hlo_shape *s)
{
    if (s->element_type != HLO_TUPLE)
        return hc_shape_size(s);
    double n = 0;
    for (uint32_t k = 0; k < s->ntuple; k++)
        n += hc_shape_size(&s->tuple[k]);
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
    const hlo_instruction *root = hc_comp_root(c);
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
        flops += u * hc_tof(P->flops);
        int passthrough = is_elementwise(cm, ins) || hc_op_is(ins->opcode, "tuple") ||
                          hc_op_is(ins->opcode, "get-tuple-element");
        for (uint32_t k = 0; k < ins->noperands; k++) {
            const hlo_instruction *o = hc_operand(cm, ins, k);
            if (!o || o->computation != ci)
                continue;
            uint32_t oj = (uint32_t)(o - c->instructions);
            if (passthrough) {
                for (uint32_t q = 0; q < nroots[j]; q++)
                    ADD_ROOT(oj, roots[j][q]);
            } else {
                ADD_ROOT(oj, oj);
                float cu = u * (P->opu ? P->opu[k] : 1.0f);
                float ne = hc_tof(hc_elems_rec(&o->shape));
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
        if (hc_op_is(c->instructions[i].opcode, "parameter") &&
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
    return round((double)(hc_tof(hc_shape_size(&p->shape)) * u));
}

/* Bytes of every array of a shape, at any tuple depth (ShapeUtil::ForEachLeafShape). */
double hc_leaf_bytes(const hlo_shape *s)
{
    if (s->element_type != HLO_TUPLE)
        return hc_is_array(s) ? hc_shape_size(s) : 0;
    double n = 0;
    for (uint32_t k = 0; k < s->ntuple; k++)
        n += hc_leaf_bytes(&s->tuple[k]);
    return n;
}

/* The per-element read bytes of tuple operand I of INS (zeroed), NULL when out of memory. */
static double *op_leaf(hlo_cost_model *cm, hc_ins *P, const hlo_instruction *ins, uint32_t i)
{
    const hlo_shape *s = hc_operand_shape(cm, ins, i);
    if (!P->op_leaf) {
        P->op_leaf = arena_alloc(cm->a, (ins->noperands ? ins->noperands : 1) * sizeof *P->op_leaf);
        if (!P->op_leaf) {
            cm->nomem = 1;
            return NULL;
        }
        memset(P->op_leaf, 0, (ins->noperands ? ins->noperands : 1) * sizeof *P->op_leaf);
    }
    if (!P->op_leaf[i]) {
        if (!(P->op_leaf[i] = dalloc(cm, s->ntuple)))
            return NULL;
        memset(P->op_leaf[i], 0, (s->ntuple ? s->ntuple : 1) * sizeof *P->op_leaf[i]);
    }
    return P->op_leaf[i];
}

/* HloCostAnalysis::HandleFusion with the GPU utilization rules. */
static int handle_fusion(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    uint32_t ci;
    const hlo_computation *c =
        ins->ncalled ? hc_comp_by_id(cm, ins->called_computation_ids[0], &ci) : NULL;
    if (!c)
        return 1;
    if (!analyze_comp(cm, ci))
        return 0;
    if (hc_op_is(ins->fusion_kind, "kCustom")) {
        for (uint32_t i = 0; i < c->ninstructions; i++) {
            if (hc_op_is(c->instructions[i].opcode, "gather")) {
                hc_gather(cm, &c->instructions[i], P);
                return 1;
            }
            if (hc_op_is(c->instructions[i].opcode, "scatter"))
                return hc_scatter(cm, &c->instructions[i], P);
        }
    }
    const hc_comp *cc = &cm->comps[ci];
    P->trans = cc->trans;
    float fb = 0; /* XLA's bytes-accessed property: a float, summed in this order */
    for (uint32_t i = 0; i < ins->noperands; i++) {
        P->opb[i] = 0;
        P->opu[i] = 0;
    }
    const hlo_instruction *root = hc_comp_root(c);
    /* outputs */
    if (ins->shape.element_type == HLO_TUPLE) {
        P->nout_leaf = ins->shape.ntuple;
        if (!(P->out_leaf = dalloc(cm, P->nout_leaf)))
            return 0;
        P->out_bytes = 0;
        for (uint32_t k = 0; k < ins->shape.ntuple; k++) {
            const hlo_shape *sub = &ins->shape.tuple[k];
            double sz = 0;
            if (hc_is_array(sub)) {
                const hlo_instruction *ro =
                    root && hc_op_is(root->opcode, "tuple") ? hc_operand(cm, root, k) : NULL;
                if (ro && hc_op_is(ro->opcode, "dynamic-update-slice")) {
                    sz = hc_shape_size(hc_operand_shape(cm, ro, 1));
                    zero_opu0(cm, ro);
                } else {
                    sz = hc_shape_size(sub);
                }
            } else if (sub->element_type == HLO_TUPLE) {
                for (uint32_t q = 0; q < sub->ntuple; q++)
                    if (hc_is_array(&sub->tuple[q]))
                        sz += hc_shape_size(&sub->tuple[q]);
            }
            P->out_leaf[k] = sz;
            fb += hc_tof(sz);
            P->out_bytes += sz;
        }
    } else if (hc_is_array(&ins->shape)) {
        double sz = hc_shape_size(&ins->shape);
        if (root && hc_op_is(root->opcode, "dynamic-update-slice")) {
            sz = hc_shape_size(hc_operand_shape(cm, root, 1));
            zero_opu0(cm, root);
        }
        fb += hc_tof(sz);
        P->out_bytes = sz;
    }
    double flops;
    if (!fusion_utilizations(cm, ci, &flops))
        return 0;
    P->flops = flops;
    /* large constants */
    for (uint32_t i = 0; i < c->ninstructions; i++) {
        const hlo_instruction *k = &c->instructions[i];
        if (hc_op_is(k->opcode, "constant") && hc_elems(&k->shape) > 8) {
            float u = cm->ins[gidx(cm, k)].util;
            fb += hc_tof(hc_shape_size(&k->shape)) * (u > 1.0f ? 1.0f : u);
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
            double *leaf = op_leaf(cm, P, ins, i);
            if (!leaf)
                return 0;
            for (uint32_t k = 0; k < p->shape.ntuple; k++) {
                const hlo_instruction *g = p;
                for (uint32_t q = 0; q < c->ninstructions; q++) {
                    const hlo_instruction *u = &c->instructions[q];
                    if (hc_op_is(u->opcode, "get-tuple-element") && u->tuple_index == k &&
                        u->noperands == 1 && u->operand_ids[0] == p->id) {
                        g = u;
                        break;
                    }
                }
                leaf[k] = param_read(cm, g);
                sz += leaf[k];
            }
        }
        fb += hc_tof(sz);
        P->opb[i] = sz;
        P->opu[i] = cm->ins[gidx(cm, p)].util;
    }
    P->bytes = fb;
    return 1;
}

/* The properties of the instruction an async-start wraps, which GpuHloCostAnalysis::
 * HandleAsyncStart visits with the caller's visitor, so that they count in the caller's
 * computation sums too; NULL for other instructions. */
static const hc_ins *async_wrapped(const hlo_cost_model *cm, const hlo_instruction *ins)
{
    uint32_t ci;
    if (!hc_op_is(ins->opcode, "async-start") || !ins->ncalled ||
        !hc_comp_by_id(cm, ins->called_computation_ids[0], &ci))
        return NULL;
    const hlo_instruction *w = hc_comp_root(&cm->m->computations[ci]);
    const hc_ins *W = w ? &cm->ins[gidx(cm, w)] : NULL;
    return W && W->done ? W : NULL;
}

/* XLA's properties_sum_ of computation CI for an operand key (operand I, top-level tuple
 * element K, or index {} when K < 0) or, with I < 0, an output key: the sum over the
 * computation's instructions of that key, which ProcessSubcomputation hands to the caller
 * as the caller's own operand and output bytes (so a while's "operand 0 bytes" are its
 * body's instructions' operand 0 bytes). */
static double key_sum(const hlo_cost_model *cm, uint32_t ci, int64_t i, int64_t k)
{
    const hlo_computation *c = &cm->m->computations[ci];
    float sum = 0;
    for (uint32_t j = 0; j < 2 * c->ninstructions; j++) {
        /* each instruction after what an async-start wraps */
        uint32_t at = cm->comps[ci].order ? cm->comps[ci].order[j / 2] : j / 2;
        const hlo_instruction *x = &c->instructions[at];
        const hc_ins *Q = j % 2 ? &cm->ins[cm->base[ci] + at] : async_wrapped(cm, x);
        double v = 0;
        if (!Q || !Q->done)
            continue;
        if (j % 2 == 0) { /* the wrapped instruction: its own operands */
            uint32_t wci;
            hc_comp_by_id(cm, x->called_computation_ids[0], &wci);
            x = hc_comp_root(&cm->m->computations[wci]);
        }
        if (i < 0)
            v = k < 0 ? Q->out_bytes : (Q->out_leaf && k < Q->nout_leaf ? Q->out_leaf[k] : 0);
        else if ((uint64_t)i < x->noperands && k < 0)
            v = Q->opb[i];
        else if ((uint64_t)i < x->noperands && Q->op_leaf && Q->op_leaf[i] &&
                 (uint64_t)k < hc_operand_shape(cm, x, (uint32_t)i)->ntuple)
            v = Q->op_leaf[i][k];
        sum = hc_tof(hc_f32(sum + v));
    }
    return sum;
}

/* Sums (or, for a conditional, maximums) over the first N called computations of INS of
 * their properties into P: FLOPs, transcendentals, bytes and the operand and output keys
 * the HBM bytes read and written come from. Returns 0 when out of memory. */
static int subcomputation_keys(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P,
                               uint32_t n, int cond)
{
    int tuple_out = ins->shape.element_type == HLO_TUPLE;
    if (tuple_out) {
        P->nout_leaf = ins->shape.ntuple;
        if (!(P->out_leaf = dalloc(cm, P->nout_leaf)))
            return 0;
        memset(P->out_leaf, 0, (P->nout_leaf ? P->nout_leaf : 1) * sizeof *P->out_leaf);
    }
    P->out_bytes = 0;
    for (uint32_t i = 0; i < ins->noperands; i++) {
        P->opb[i] = 0;
        if (hc_operand_shape(cm, ins, i)->element_type == HLO_TUPLE && !op_leaf(cm, P, ins, i))
            return 0;
    }
    for (uint32_t b = 0; b < n; b++) {
        const hc_comp *sub = hc_called(cm, ins, b);
        if (cm->nomem)
            return 0;
        if (!sub)
            continue;
        uint32_t ci = (uint32_t)(sub - cm->comps);
#define HC_KEY(dst, v)                                                                             \
    do {                                                                                           \
        double v_ = (v);                                                                           \
        if (!cond)                                                                                 \
            (dst) = hc_f32((dst) + v_);                                                            \
        else if (b == 0 || v_ > (dst))                                                             \
            (dst) = v_;                                                                            \
    } while (0)
        HC_KEY(P->flops, sub->flops);
        HC_KEY(P->trans, sub->trans);
        HC_KEY(P->bytes, sub->bytes);
        HC_KEY(P->out_bytes, key_sum(cm, ci, -1, -1));
        for (uint32_t k = 0; tuple_out && k < P->nout_leaf; k++)
            HC_KEY(P->out_leaf[k], key_sum(cm, ci, -1, k));
        for (uint32_t i = 0; i < ins->noperands; i++) {
            HC_KEY(P->opb[i], key_sum(cm, ci, i, -1));
            const hlo_shape *os = hc_operand_shape(cm, ins, i);
            for (uint32_t k = 0; os->element_type == HLO_TUPLE && k < os->ntuple; k++)
                HC_KEY(P->op_leaf[i][k], key_sum(cm, ci, i, k));
        }
#undef HC_KEY
    }
    return 1;
}

/* The family of ops that run called computations (map, call, while, conditional): sets P
 * from the computations' properties and returns 1, returns 0 for another opcode, or -1
 * when out of memory. */
static int called_ops(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    pq_str op = ins->opcode;
    if (hc_op_is(op, "map")) {
        const hc_comp *sub = hc_called(cm, ins, 0);
        if (sub) {
            P->flops = sub->flops * hc_elems(&ins->shape);
            P->trans = sub->trans * hc_elems(&ins->shape);
        }
    } else if (hc_op_is(op, "call") || hc_op_is(op, "while") || hc_op_is(op, "conditional")) {
        /* HandleCall: the computation's properties; HandleWhile: the body's plus the
         * condition's; HandleConditional: the largest of the branches', key by key */
        int cond = hc_op_is(op, "conditional");
        uint32_t n = hc_op_is(op, "call") ? (ins->ncalled ? 1 : 0) : ins->ncalled;
        P->flops = P->trans = P->bytes = 0;
        if (!subcomputation_keys(cm, ins, P, n, cond))
            return -1;
    } else {
        return 0;
    }
    return 1;
}

/* ShapeUtil::TransposeIsBitcast: same element type, both laid out, and the permutation
 * maps the output's minor-to-major order onto the operand's. */
static int transpose_is_bitcast(const hlo_cost_model *cm, const hlo_instruction *ins)
{
    const hlo_shape *in = hc_operand_shape(cm, ins, 0), *out = &ins->shape;
    uint32_t n = out->ndims;
    if (!hc_is_array(in) || !hc_is_array(out) || in->element_type != out->element_type ||
        !in->has_layout || !out->has_layout || in->ndims != n || ins->ndimensions != n ||
        in->layout.nminor_to_major != n || out->layout.nminor_to_major != n)
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t o = out->layout.minor_to_major[i];
        if (o < 0 || (uint64_t)o >= n || ins->dimensions[o] != in->layout.minor_to_major[i])
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
    float fb = hc_tof(hc_leaf_bytes(&ins->shape));
    P->out_bytes = hc_leaf_bytes(&ins->shape);
    for (uint32_t i = 0; i < nops; i++) {
        double s = hc_shape_size(hc_operand_shape(cm, ins, i));
        fb += hc_tof(s);
        P->opb[i] = s;
        P->opu[i] = 1.0f;
    }
    P->bytes = fb;
    pq_str op = ins->opcode;
    int coll;
    const hlo_shape *out0 = ins->shape.element_type == HLO_TUPLE && ins->shape.ntuple
                                ? &ins->shape.tuple[0]
                                : &ins->shape;
    if (hc_op_is(op, "fusion")) {
        if (!handle_fusion(cm, ins, P))
            return 0;
    } else if (hc_op_is(op, "custom-call")) {
        hc_custom_call(cm, ins, P);
    } else if (hc_op_is(op, "parameter") || hc_op_is(op, "constant")) {
        P->bytes = P->out_bytes = 0;
    } else if (hc_op_is(op, "get-tuple-element") || hc_op_is(op, "bitcast") ||
               hc_op_is(op, "after-all") || hc_op_is(op, "add-dependency") ||
               hc_op_is(op, "domain")) {
        no_memory(P, nops);
    } else if (hc_op_is(op, "transpose") && transpose_is_bitcast(cm, ins)) {
        no_memory(P, nops); /* HandleTranspose: IsEffectiveBitcast, then HandleBitcast */
    } else if (hc_op_is(op, "copy")) {
        /* HandleCopy: inputs + output, no FLOPs */
    } else if (hlo_opcode_is_elementwise(op)) {
        elementwise(cm, ins, P);
    } else if (hc_movement_ops(cm, ins, P)) {
        /* slice, dynamic-slice, dynamic-update-slice, tuple, concatenate */
    } else if (hc_op_is(op, "reduce")) {
        const hc_comp *sub = hc_called(cm, ins, 0);
        if (cm->nomem)
            return 0;
        double count = hc_elems(hc_operand_shape(cm, ins, 0)) - hc_elems(out0);
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
            P->opb[i] = hc_elems(out0) * hc_shape_size(hc_operand_shape(cm, ins, i));
            P->opu[i] = hc_tof(hc_elems(out0));
            P->bytes += P->opb[i];
        }
    } else if (hc_op_is(op, "dot")) {
        P->flops = hc_dot_flops(hc_operand_shape(cm, ins, 0), &ins->shape, ins->dot_dnums, NULL, 0);
    } else if (hc_op_is(op, "convolution")) {
        P->flops = hc_conv_flops(ins, hc_operand_shape(cm, ins, 0), hc_operand_shape(cm, ins, 1),
                                 &ins->shape);
    } else if ((coll = hc_collectives(cm, ins, P)) != 0) {
        if (coll < 0)
            return 0;
    } else if ((coll = called_ops(cm, ins, P)) != 0) {
        if (coll < 0)
            return 0;
        /* map, call, while, conditional */
    } else if (hc_op_is(op, "gather")) {
        hc_gather(cm, ins, P);
    } else if (hc_op_is(op, "sort")) {
        double n = hc_elems(hc_operand_shape(cm, ins, 0));
        P->flops = n > 1 ? n * ceil(log2(n)) : 0;
    } else if (hc_op_is(op, "rng") || hc_op_is(op, "rng-bit-generator")) {
        P->trans = hc_elems_rec(&ins->shape);
    } else if (hc_op_is(op, "scatter")) {
        if (!hc_scatter(cm, ins, P))
            return 0;
    } else if (hc_op_is(op, "reduce-window") || hc_op_is(op, "select-and-scatter")) {
        if (!hc_window_ops(cm, ins, P))
            return 0;
    }
    /* XProfGpuCostAnalysis: FLOPs on 8-bit (4-bit) inputs count half (a quarter) on the
     * device. Custom calls adjust only cuBLASLt matmuls, which XProf reports none for. */
    /* XLA keeps every property as a float */
    P->flops = hc_f32(P->flops);
    P->trans = hc_f32(P->trans);
    P->bytes = hc_f32(P->bytes);
    if ((!hc_op_is(op, "custom-call") || hc_is_cublaslt(ins)) && P->flops != 0) {
        /* XProfGpuCostAnalysis::HandleCustomCall adjusts a cuBLASLt matmul by its operand
         * 0, DefaultPostprocess anything else but custom calls by its widest operand */
        int maxw = 0;
        for (uint32_t i = 0; i < (hc_is_cublaslt(ins) ? (nops ? 1u : 0u) : nops); i++) {
            const hlo_shape *s = hc_operand_shape(cm, ins, i);
            if (hc_is_array(s) && bit_width(s->element_type) > maxw)
                maxw = bit_width(s->element_type);
        }
        float f = hc_tof(P->flops), div = maxw == 8 ? 2.0f : maxw == 4 ? 4.0f : 1.0f;
        P->adjust = hc_f32(f - f / div);
    }
    P->done = 1;
    return 1;
}

/* Local index of the instruction with id ID in computation C, or -1. */
static int64_t local_index(const hlo_cost_model *cm, const hlo_computation *c, uint32_t ci,
                           int64_t id)
{
    const hlo_instruction *o = hlo_instruction_by_id(cm->m, id);
    return o && o->computation == ci ? (int64_t)(o - c->instructions) : -1;
}

enum { MAX_CTRL = 256 };

/* The order of XLA's HloComputation::Accept: a post-order depth-first walk (operands in
 * order, then control predecessors, each instruction once) from every instruction nothing
 * uses (in instruction order) and then from the root. Into cc->order; 0 when out of memory. */
static int accept_order(hlo_cost_model *cm, uint32_t ci)
{
    const hlo_computation *c = &cm->m->computations[ci];
    uint32_t n = c->ninstructions, nout = 0;
    uint32_t *order = arena_alloc(cm->a, (n ? n : 1) * sizeof *order);
    uint8_t *state = arena_alloc(cm->a, n ? n : 1);
    uint32_t *stack = arena_alloc(cm->a, (n ? n : 1) * sizeof *stack);
    uint32_t *next = arena_alloc(cm->a, (n ? n : 1) * sizeof *next); /* child cursor */
    uint8_t *used = arena_alloc(cm->a, n ? n : 1);
    if (!order || !state || !stack || !next || !used) {
        cm->nomem = 1;
        return 0;
    }
    memset(state, 0, n ? n : 1);
    memset(used, 0, n ? n : 1);
    for (uint32_t j = 0; j < n; j++) {
        const hlo_instruction *x = &c->instructions[j];
        int64_t ctrl[MAX_CTRL];
        uint32_t nc = hc_msg_ints(x->raw, 37, ctrl, MAX_CTRL);
        for (uint32_t k = 0; k < x->noperands; k++) {
            int64_t o = local_index(cm, c, ci, x->operand_ids[k]);
            if (o >= 0)
                used[o] = 1;
        }
        for (uint32_t k = 0; k < nc; k++) {
            int64_t o = local_index(cm, c, ci, ctrl[k]);
            if (o >= 0)
                used[o] = 1; /* has a control successor */
        }
    }
    const hlo_instruction *root = hc_comp_root(c);
    uint32_t r = root ? (uint32_t)(root - c->instructions) : 0;
    for (uint32_t pass = 0; pass <= n && n; pass++) {
        uint32_t start = pass < n ? pass : r;
        if (pass < n && (used[start] || start == r))
            continue;
        if (state[start])
            continue;
        uint32_t sp = 0;
        stack[sp++] = start;
        next[start] = 0;
        state[start] = 1;
        while (sp) {
            uint32_t x = stack[sp - 1];
            const hlo_instruction *xi = &c->instructions[x];
            int64_t ctrl[MAX_CTRL];
            uint32_t nc = hc_msg_ints(xi->raw, 37, ctrl, MAX_CTRL);
            int pushed = 0;
            while (next[x] < xi->noperands + nc) {
                uint32_t k = next[x]++;
                int64_t o = local_index(
                    cm, c, ci, k < xi->noperands ? xi->operand_ids[k] : ctrl[k - xi->noperands]);
                if (o < 0 || state[o])
                    continue;
                state[o] = 1;
                next[o] = 0;
                stack[sp++] = (uint32_t)o;
                pushed = 1;
                break;
            }
            if (!pushed) {
                order[nout++] = x;
                sp--;
            }
        }
    }
    for (uint32_t j = 0; j < n; j++) /* unreachable cycles (malformed input): proto order */
        if (!state[j])
            order[nout++] = j;
    cm->comps[ci].order = order;
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
    }
    if (!accept_order(cm, ci)) {
        cm->depth--;
        return 0;
    }
    for (uint32_t q = 0; q < c->ninstructions; q++) {
        uint32_t i = cc->order[q];
        const hc_ins *P = &cm->ins[cm->base[ci] + i];
        const hc_ins *W = async_wrapped(cm, &c->instructions[i]);
        /* HloCostAnalysis::Postprocess: properties_sum_ += in floats */
        if (W) {
            cc->flops = hc_f32(cc->flops + W->flops);
            cc->trans = hc_f32(cc->trans + W->trans);
            cc->bytes = hc_f32(cc->bytes + W->bytes);
        }
        cc->flops = hc_f32(cc->flops + P->flops);
        cc->trans = hc_f32(cc->trans + P->trans);
        cc->bytes = hc_f32(cc->bytes + P->bytes);
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
    if (hc_comp_by_id(cm, m->entry_computation_id, &entry) ||
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
    if (!P->done || cm->failed)
        return 0;
    /* XLA's per-instruction getters return int64 from the float property */
    out->flops = valid(trunc(P->flops));
    out->device_flops = valid(trunc(P->flops) - trunc(P->adjust));
    out->transcendentals = valid(trunc(P->trans));
    out->bytes = valid(trunc(P->bytes));
    out->unknown = P->unknown;
    if (out->bytes > 0) {
        for (uint32_t i = 0; i < ins->noperands; i++) {
            const hlo_shape *os = hc_operand_shape(cm, ins, i);
            if (hbm_leaf(os))
                out->hbm_read += trunc(P->opb[i]);
            for (uint32_t k = 0;
                 os->element_type == HLO_TUPLE && P->op_leaf && P->op_leaf[i] && k < os->ntuple;
                 k++)
                if (hbm_leaf(&os->tuple[k]))
                    out->hbm_read += trunc(P->op_leaf[i][k]);
        }
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
