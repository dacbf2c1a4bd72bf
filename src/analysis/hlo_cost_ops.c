/* hlo_cost_ops.c - the rules of XLA's GPU HLO cost analysis per opcode family: dot and
 * convolution FLOPs, gather and scatter, slices, concatenate, tuple, reduce-window and
 * select-and-scatter, custom calls (cuDNN convolutions; the rest unknown) and the
 * collectives GpuHloCostAnalysis prices by their number of ranks. Each states the XLA
 * function it follows (xla/service/hlo_cost_analysis.cc, xla/service/gpu/model/
 * gpu_hlo_cost_analysis.cc); docs/internals/hlo_cost.md lists them. Not here: the visitor,
 * the defaults every instruction starts from (Preprocess), fusions (hlo_cost.c). */
#include "analysis/hlo_cost_int.h"

#include "formats/pbwire.h"
#include "model/model.h"

#include <math.h>
#include <string.h>

static const char *const CONV_TARGETS[] = {
    "__cudnn$convForward",        "__cudnn$convBackwardInput",
    "__cudnn$convBackwardFilter", "__cudnn$convBiasActivationForward",
    "__cudnn$convForwardGraph",
};

/* HloCostAnalysis::GetDotFlops: 2 x output elements x product of the contracting sizes. */
double hc_dot_flops(const hlo_shape *lhs, const hlo_shape *out, pq_str dnums_msg,
                    const int64_t *contract, uint32_t ncontract)
{
    int64_t buf[MAX_DIMS];
    if (!contract) {
        ncontract = hc_msg_ints(dnums_msg, 1, buf, MAX_DIMS);
        contract = buf;
    }
    double width = 1;
    for (uint32_t i = 0; i < ncontract; i++)
        width *= hc_dim_of(lhs, contract[i]);
    return 2 * hc_elems(out) * width;
}

/* HloCostAnalysis::GetConvolutionFlops. */
double hc_conv_flops(const hlo_instruction *ins, const hlo_shape *lhs, const hlo_shape *rhs,
                     const hlo_shape *out)
{
    int64_t in_sp[MAX_DIMS], k_sp[MAX_DIMS], out_sp[MAX_DIMS];
    pq_str dn = ins->conv_dnums;
    uint32_t nin = hc_msg_ints(dn, 11, in_sp, MAX_DIMS);
    uint32_t nk = hc_msg_ints(dn, 6, k_sp, MAX_DIMS);
    uint32_t nout = hc_msg_ints(dn, 12, out_sp, MAX_DIMS);
    double in_feature = hc_dim_of(lhs, hc_msg_int(dn, 8, 0));
    double out_feature = hc_dim_of(out, hc_msg_int(dn, 10, 0));
    double batch = hc_dim_of(lhs, hc_msg_int(dn, 7, 0));
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
        int64_t kl = hc_idim(rhs, k_sp[sd]), ol = hc_idim(out, out_sp[sd]),
                il = hc_idim(lhs, in_sp[sd]);
        int64_t stride = hc_msg_int(wd, 2, 1), lo = hc_msg_int(wd, 3, 0), hi = hc_msg_int(wd, 4, 0);
        int64_t wdil = hc_msg_int(wd, 5, 1), bdil = hc_msg_int(wd, 6, 1);
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

void hc_gather(const hlo_cost_model *cm, const hlo_instruction *g, hc_ins *P)
{
    double out = hc_shape_size(&g->shape), idx = hc_shape_size(hc_operand_shape(cm, g, 1));
    P->bytes = out * 2 + idx;
    P->out_bytes = out;
    double e0 = hc_elems(hc_operand_shape(cm, g, 0));
    if (P->opb) {
        P->opb[0] = out;
        if (g->noperands > 1)
            P->opb[1] = idx;
        P->opu[0] = e0 ? hc_tof(hc_elems(&g->shape) / e0) : 0;
    }
}

/* GpuHloCostAnalysis::HandleAllReduce(Start): the reducer root's elementwise FLOPs per
 * element of the result. */
void hc_all_reduce_flops(hlo_cost_model *cm, const hlo_instruction *ins, const hlo_shape *out0,
                         hc_ins *P)
{
    (void)out0; /* XLA takes the element type of the whole shape (a tuple's has no entry) */
    uint32_t ci;
    const hlo_computation *red =
        ins->ncalled ? hc_comp_by_id(cm, ins->called_computation_ids[0], &ci) : NULL;
    const hlo_instruction *rr = red ? hc_comp_root(red) : NULL;
    if (rr)
        P->flops = (double)hlo_cost_elementwise_flops(rr->opcode, ins->shape.element_type) *
                   hc_elems_rec(&ins->shape);
}

/* The FLOPs and transcendentals of the first called computation COUNT times (XLA's
 * "sub_properties x count" of HandleMap, HandleScatter, HandleReduceWindow). Returns 0 when
 * out of memory. */
static int times_called(hlo_cost_model *cm, const hlo_instruction *ins, double count, hc_ins *P)
{
    const hc_comp *sub = hc_called(cm, ins, 0);
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
int hc_scatter(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    uint32_t nops = ins->noperands, n = nops / 2;
    double total = 0;
    if (nops < 3)
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        double u = hc_shape_size(hc_operand_shape(cm, ins, n + 1 + i));
        if (P->opb) {
            P->opb[i] = u;
            P->opb[n + 1 + i] = u;
        }
        total += u;
    }
    double idx = hc_shape_size(hc_operand_shape(cm, ins, n));
    if (P->opb)
        P->opb[n] = idx;
    P->bytes = total * 3 + idx;
    P->out_bytes = total;
    double count = hc_elems(hc_operand_shape(cm, ins, n + 1));
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
        int64_t size = hc_msg_int(wd, 1, 0), lo = hc_msg_int(wd, 3, 0), hi = hc_msg_int(wd, 4, 0);
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
int hc_window_ops(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    int rd, pd;
    int64_t rdim, rpad;
    double w = window_elems(ins->window, &rd, &pd, &rdim, &rpad);
    if (hc_op_is(ins->opcode, "reduce-window")) {
        const hlo_shape *out = ins->shape.element_type == HLO_TUPLE && ins->shape.ntuple
                                   ? &ins->shape.tuple[0]
                                   : &ins->shape;
        double outn = hc_elems(out), count = (w - 1) * outn;
        if (rd == 1 && pd == 1 && ins->shape.element_type != HLO_TUPLE && rdim >= 0 &&
            rpad == hc_idim(&ins->shape, rdim) - 1) {
            double size = hc_dim_of(&ins->shape, rdim);
            count = (size ? floor(outn / size) : 0) + (size - 1);
        }
        return times_called(cm, ins, count, P);
    }
    double src = hc_elems(hc_operand_shape(cm, ins, 1)), selects = src * (w - 1);
    const hc_comp *sel = hc_called(cm, ins, 0);
    const hc_comp *sct = hc_called(cm, ins, 1);
    if (cm->nomem)
        return 0;
    P->flops = (sel ? sel->flops * selects : 0) + (sct ? sct->flops * src : 0);
    P->trans = (sel ? sel->trans * selects : 0) + (sct ? sct->trans * src : 0);
    return 1;
}

/* Whether INS is a cuBLASLt matmul custom call (XLA's IsCublasLtGemm). */
int hc_is_cublaslt(const hlo_instruction *ins)
{
    return hc_op_is(ins->opcode, "custom-call") &&
           (hc_op_is(ins->custom_call_target, "__cublas$lt$matmul") ||
            hc_op_is(ins->custom_call_target, "__cublas$lt$matmul$f8"));
}

/* The integers (plain or quoted) of the JSON array after the first "KEY" in TEXT, at most
 * MAX: the backend config as XLA prints it, read for one field only. */
static uint32_t json_ints(pq_str text, const char *key, int64_t *out, uint32_t max)
{
    size_t kl = strlen(key);
    uint32_t n = 0;
    for (size_t i = 0; i + kl + 2 <= text.n; i++) {
        if (text.p[i] != '"' || memcmp(text.p + i + 1, key, kl) || text.p[i + 1 + kl] != '"')
            continue;
        size_t j = i + kl + 2;
        while (j < text.n && text.p[j] != '[' && text.p[j] != '{' && text.p[j] != ',')
            j++;
        if (j >= text.n || text.p[j] != '[')
            return 0;
        for (j++; j < text.n && text.p[j] != ']'; j++) {
            if (text.p[j] < '0' || text.p[j] > '9')
                continue;
            int64_t v = 0;
            while (j < text.n && text.p[j] >= '0' && text.p[j] <= '9' && v < ((int64_t)1 << 40))
                v = v * 10 + (text.p[j++] - '0');
            if (n < max)
                out[n++] = v;
            j--;
        }
        return n;
    }
    return 0;
}

void hc_custom_call(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    if (hc_str_in(ins->custom_call_target, CONV_TARGETS,
                  sizeof CONV_TARGETS / sizeof CONV_TARGETS[0])) {
        const hlo_shape *out = ins->shape.element_type == HLO_TUPLE && ins->shape.ntuple
                                   ? &ins->shape.tuple[0]
                                   : &ins->shape;
        P->flops =
            hc_conv_flops(ins, hc_operand_shape(cm, ins, 0), hc_operand_shape(cm, ins, 1), out);
        if (ins->shape.element_type == HLO_TUPLE) {
            double sz = hc_shape_size(out);
            P->bytes = P->bytes - P->out_bytes + sz;
            P->out_bytes = sz;
        }
        return;
    }
    if (hc_is_cublaslt(ins)) {
        /* GpuHloCostAnalysis::HandleCustomCall on a cuBLASLt matmul: GetDotFlops with the
         * backend config's dot dimension numbers; only the result (tuple element 0) is
         * written, not the workspace */
        const hlo_shape *out = ins->shape.element_type == HLO_TUPLE && ins->shape.ntuple
                                   ? &ins->shape.tuple[0]
                                   : &ins->shape;
        int64_t contract[MAX_DIMS];
        uint32_t n =
            json_ints(ins->backend_config, "lhs_contracting_dimensions", contract, MAX_DIMS);
        pq_str none = {0};
        P->flops = hc_dot_flops(hc_operand_shape(cm, ins, 0), out, none, contract, n);
        double sz = hc_shape_size(out);
        P->bytes = P->bytes - P->out_bytes + sz;
        P->out_bytes = sz;
        return;
    }
    /* Everything else, the legacy cuBLAS/hipBLAS gemm calls included
     * (HloCostAnalysis::HandleCustomCall): XLA marks the cost unknown. */
    P->unknown = 1;
    P->flops = -1;
    P->bytes = -1;
    P->out_bytes = -1;
    for (uint32_t i = 0; i < ins->noperands; i++)
        P->opb[i] = -1;
}

/* The data-movement family (slice, dynamic-slice, dynamic-update-slice, tuple,
 * concatenate): sets P and returns 1, or returns 0 for another opcode. */
int hc_movement_ops(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    pq_str op = ins->opcode;
    uint32_t nops = ins->noperands;
    if (hc_op_is(op, "slice")) {
        double s = hc_shape_size(&ins->shape), e0 = hc_elems(hc_operand_shape(cm, ins, 0));
        P->bytes = 2 * s;
        P->out_bytes = s;
        if (nops) {
            P->opb[0] = s;
            P->opu[0] = e0 ? hc_tof(hc_elems(&ins->shape) / e0) : 0;
        }
    } else if (hc_op_is(op, "dynamic-slice")) {
        double s = hc_shape_size(&ins->shape), i1 = hc_shape_size(hc_operand_shape(cm, ins, 1));
        double e0 = hc_elems(hc_operand_shape(cm, ins, 0));
        P->bytes = 2 * s + i1;
        P->out_bytes = s;
        if (nops > 1) {
            P->opb[0] = s;
            P->opb[1] = i1;
            P->opu[0] = e0 ? hc_tof(hc_elems(&ins->shape) / e0) : 0;
        }
    } else if (hc_op_is(op, "dynamic-update-slice")) {
        double u = hc_shape_size(hc_operand_shape(cm, ins, 1)),
               i2 = hc_shape_size(hc_operand_shape(cm, ins, 2));
        double e = hc_elems(&ins->shape);
        P->bytes = 2 * u + i2;
        P->out_bytes = u;
        if (nops > 2) {
            P->opb[0] = 0;
            P->opb[1] = u;
            P->opb[2] = i2;
            P->opu[0] = e ? hc_tof((e - hc_elems(hc_operand_shape(cm, ins, 1))) / e) : 0;
        }
    } else if (hc_op_is(op, "tuple")) {
        P->bytes = P->out_bytes = hc_shape_size(&ins->shape);
        for (uint32_t i = 0; i < nops; i++)
            P->opb[i] = 0;
    } else if (hc_op_is(op, "concatenate")) {
        /* GpuHloCostAnalysis::HandleConcatenate: a compare and a branch per element, 400
         * when the concatenated dimension is not the major one and operand 0's size in it
         * is not a multiple of 32 (divergent warps); the operand utilizations stay 1 */
        int64_t dim = ins->ndimensions ? ins->dimensions[0] : 0;
        int64_t size = hc_idim(hc_operand_shape(cm, ins, 0), dim);
        P->flops = (dim > 0 && (size & 31) ? 400 : 6) * hc_elems_rec(&ins->shape);
    } else {
        return 0;
    }
    return 1;
}

/* ---- collectives ---- */

/* The messages NUM of MSG: calls FN on each with ARG. */
static void each_msg(pq_str msg, uint32_t num, void (*fn)(pq_str, void *), void *arg)
{
    pb_cursor c;
    pb_field f = {0};
    if (!msg.n)
        return;
    pb_init(&c, (const uint8_t *)msg.p, msg.n, (const uint8_t *)msg.p);
    while (pb_next(&c, &f) == PB_FIELD)
        if (f.num == num && f.wire == PB_LEN)
            fn(pq_str_of((const char *)f.data, f.len), arg);
}

typedef struct group_count {
    int64_t groups, largest;
} group_count;

/* A ReplicaGroup: its replica_ids (1) counted. */
static void count_group(pq_str g, void *arg)
{
    group_count *gc = arg;
    int64_t ids[1];
    pb_cursor c;
    pb_field f = {0};
    int64_t n = 0;
    (void)ids;
    pb_init(&c, (const uint8_t *)g.p, g.n, (const uint8_t *)g.p);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != 1)
            continue;
        if (f.wire == PB_VARINT) {
            n++;
        } else if (f.wire == PB_LEN) {
            pb_cursor p;
            uint64_t v;
            pb_init(&p, f.data, f.len, f.data);
            while (p.p < p.end && pb_read_varint(&p, &v))
                n++;
        }
    }
    gc->groups++;
    if (n > gc->largest)
        gc->largest = n;
}

/* A mesh axis (name 1, size 2): its size multiplied in. */
static void mesh_axis(pq_str axis, void *arg)
{
    int64_t *product = arg, size = hc_msg_int(axis, 2, 1);
    if (size < 1 || size > ((int64_t)1 << 31) || *product > ((int64_t)1 << 31))
        size = 1; /* malformed: no overflow */
    *product *= size;
}

/* A mesh (axes 1). */
static void mesh_axes(pq_str mesh, void *arg)
{
    each_msg(mesh, 1, mesh_axis, arg);
}

/* GpuHloCostAnalysis's NumRanks: XLA's GetCollectiveOpGroupMode (channel_id 26,
 * use_global_device_ids 71) and GetPariticipantCountsForReplicaGroups with the module config
 * XProf builds from an HloProto (one replica, one partition): the largest replica group of
 * collective_device_list (87: groups 1, or the iota list 2 with num_devices_per_group 2),
 * the deprecated replica_groups (49), or the mesh axes list (93: the product of the axis
 * sizes). No groups: 1 rank, except with global device ids, where XLA fails (-1). */
static int64_t num_ranks(const hlo_instruction *ins)
{
    pq_str raw = ins->raw, list = {0}, iota = {0}, mesh = {0};
    int64_t channel = 0, global = 0;
    group_count gc = {0, 0};
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, (const uint8_t *)raw.p, raw.n, (const uint8_t *)raw.p);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num == 26 && f.wire == PB_VARINT)
            channel = (int64_t)f.u;
        else if (f.num == 71 && f.wire == PB_VARINT)
            global = f.u != 0;
        else if (f.num == 87 && f.wire == PB_LEN)
            list = pq_str_of((const char *)f.data, f.len);
        else if (f.num == 93 && f.wire == PB_LEN)
            mesh = pq_str_of((const char *)f.data, f.len);
        else if (f.num == 49 && f.wire == PB_LEN)
            count_group(pq_str_of((const char *)f.data, f.len), &gc);
    }
    if (channel <= 0 && global)
        return -1; /* "Invalid combination of has_channel_id and use_global_device_ids" */
    if (list.n) {
        gc.groups = gc.largest = 0;
        each_msg(list, 1, count_group, &gc);
        pb_init(&c, (const uint8_t *)list.p, list.n, (const uint8_t *)list.p);
        while (pb_next(&c, &f) == PB_FIELD)
            if (f.num == 2 && f.wire == PB_LEN)
                iota = pq_str_of((const char *)f.data, f.len);
        if (iota.n) {
            int64_t per = hc_msg_int(iota, 2, 1);
            return per > 1 ? per : 1;
        }
    }
    if (!gc.groups && mesh.n) {
        int64_t product = 1;
        each_msg(mesh, 1, mesh_axes, &product);
        return product;
    }
    if (!gc.groups)
        return channel > 0 && global ? -1 : 1; /* flattened ids need explicit groups */
    return gc.largest > 1 ? gc.largest : 1;
}

/* Bytes of every array of SHAPE, skipping top-level element SKIP (-1: none). */
static double leaves_but(const hlo_shape *s, int64_t skip)
{
    if (s->element_type != HLO_TUPLE)
        return hc_leaf_bytes(s);
    double n = 0;
    for (uint32_t k = 0; k < s->ntuple; k++)
        if ((int64_t)k != skip)
            n += hc_leaf_bytes(&s->tuple[k]);
    return n;
}

/* GpuHloCostAnalysis::HandleReduceScatter on INS (or on the instruction an async-start
 * wraps): ring traffic of the operands' bytes and the reducer's elementwise FLOPs. */
static void reduce_scatter(hlo_cost_model *cm, const hlo_instruction *ins, int64_t ranks, hc_ins *P)
{
    double sent = 0;
    for (uint32_t i = 0; i < ins->noperands; i++)
        sent += hc_leaf_bytes(hc_operand_shape(cm, ins, i));
    double rank = floor(sent / (double)ranks);
    P->bytes = rank * (double)ranks + rank * (double)(2 * ranks - 1);
    hc_all_reduce_flops(cm, ins, &ins->shape, P);
}

int hc_collectives(hlo_cost_model *cm, const hlo_instruction *ins, hc_ins *P)
{
    pq_str op = ins->opcode;
    const hlo_instruction *wrapped = NULL;
    if (hc_op_is(op, "async-start")) {
        /* GpuHloCostAnalysis::HandleAsyncStart visits the wrapped instruction, which
         * leaves every property at 0, then prices a wrapped reduce-scatter */
        uint32_t ci;
        const hlo_computation *c =
            ins->ncalled ? hc_comp_by_id(cm, ins->called_computation_ids[0], &ci) : NULL;
        if (c && !hc_called(cm, ins, 0) && cm->nomem)
            return -1;
        wrapped = c ? hc_comp_root(c) : NULL;
        P->flops = P->trans = P->bytes = P->out_bytes = 0;
        for (uint32_t i = 0; i < ins->noperands; i++)
            P->opb[i] = 0;
        if (!wrapped || !hc_op_is(wrapped->opcode, "reduce-scatter"))
            return 1;
    } else if (!hc_op_is(op, "all-reduce") && !hc_op_is(op, "all-reduce-start") &&
               !hc_op_is(op, "all-gather") && !hc_op_is(op, "all-gather-start") &&
               !hc_op_is(op, "reduce-scatter")) {
        return 0;
    }
    const hlo_instruction *x = wrapped ? wrapped : ins;
    int64_t ranks = num_ranks(x);
    if (ranks < 0) {
        cm->failed = 1; /* XLA returns the error: XProf drops the module's costs */
        return 1;
    }
    if (ranks > ((int64_t)1 << 31)) /* no real group is this large: no overflow below */
        ranks = (int64_t)1 << 31;
    if (wrapped || hc_op_is(op, "reduce-scatter")) {
        reduce_scatter(cm, x, ranks, P);
    } else if (hc_op_is(op, "all-reduce-start")) {
        /* GpuHloCostAnalysis::HandleAllReduceStart: the bytes transferred (every array of
         * the shape) and the reducer's elementwise FLOPs */
        P->bytes = hc_leaf_bytes(&ins->shape);
        hc_all_reduce_flops(cm, ins, &ins->shape, P);
    } else if (hc_op_is(op, "all-reduce")) {
        /* GpuHloCostAnalysis::HandleAllReduce: outputs (computed in place) and inputs */
        double out = leaves_but(&ins->shape, -1);
        P->out_bytes = P->bytes = out;
        for (uint32_t i = 0; i < ins->noperands; i++)
            P->bytes += hc_shape_size(hc_operand_shape(cm, ins, i));
        hc_all_reduce_flops(cm, ins, &ins->shape, P);
    } else {
        /* GpuHloCostAnalysis::HandleAllGather(Start): ring traffic of the gathered bytes
         * (the start's result without its operand alias, element 0) */
        double sent = leaves_but(&ins->shape, hc_op_is(op, "all-gather-start") ? 0 : -1);
        double rank = floor(sent / (double)ranks);
        P->bytes = rank * (double)(2 * ranks - 1) + rank * (double)ranks;
    }
    return 1;
}
