/* hlo.c - xla.HloProto decoding: the header reader used at load, and the full
 * decoder analyses call (hlo_decode) and the lazy one (hlo_decode_lazy, hlo_instruction_lazy),
 * with the id indexes built over the result. The buffer assignment is hlo_buffers.c; shape
 * strings and byte sizes are hlo_shape.c; the shared decoder helpers are hlo_dec.h.
 *
 * Not here: choosing which HloProto to decode (model/), or any analysis of it. Field
 * numbers are spec/xprof-tools.md section 2. Like protobuf's own parser, a known field
 * that arrives with another wire type is skipped as unknown, and a singular sub-message
 * that occurs twice keeps its last occurrence (protobuf merges; no real writer repeats
 * them). Recursion happens only through shapes (tuple_shapes, physical_shape) and is
 * bounded by HLO_MAX_SHAPE_DEPTH. */
#include "hlo_dec.h"

#include "core/alloc.h"
#include "core/sort.h"

#include <stdlib.h>
#include <string.h>

static int fail(const pb_cursor *c, int64_t *off, const char **what)
{
    *off = pb_error_offset(c);
    *what = c->err;
    return 0;
}

int hlo_read_header(const uint8_t *data, size_t n, const uint8_t *base, hlo_header *out,
                    int64_t *err_offset, const char **err_what)
{
    memset(out, 0, sizeof *out);
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, data, n, base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        if (f.num == 1) {
            out->has_module = 1;
            pb_cursor m;
            pb_field g = {0};
            pb_init(&m, f.data, f.len, base);
            while ((k = pb_next(&m, &g)) == PB_FIELD) {
                if (g.num == 1 && g.wire == PB_LEN)
                    out->module_name = (pq_str){(const char *)g.data, g.len};
                else if (g.num == 5 && g.wire == PB_VARINT)
                    out->module_id = (int64_t)g.u;
                else if (g.num == 3 && g.wire == PB_LEN)
                    out->computations++;
            }
            if (k == PB_ERROR)
                return fail(&m, err_offset, err_what);
        } else if (f.num == 3) {
            out->has_buffer_assignment = 1;
            pb_cursor b;
            pb_field g = {0};
            pb_init(&b, f.data, f.len, base);
            while ((k = pb_next(&b, &g)) == PB_FIELD)
                out->heap_simulator_traces += g.num == 4 && g.wire == PB_LEN;
            if (k == PB_ERROR)
                return fail(&b, err_offset, err_what);
        }
    }
    if (k == PB_ERROR)
        return fail(&c, err_offset, err_what);
    return 1;
}

static int dec_shape(dec *d, const uint8_t *p, size_t n, hlo_shape *s, int depth);

static int dec_tile(dec *d, const uint8_t *p, size_t n, hlo_tile *t)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD)
        if (f.num == 1 && !append_varints(d, &f, &t->dims, &t->ndims))
            return 0;
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_split(dec *d, const uint8_t *p, size_t n, struct hlo_split_config *s)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.num == 1 && f.wire == PB_VARINT)
            s->dimension = (int64_t)f.u;
        else if (f.num == 2 && !append_varints(d, &f, &s->split_indices, &s->nsplit_indices))
            return 0;
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_layout(dec *d, const uint8_t *p, size_t n, hlo_layout *l, int depth)
{
    static const uint32_t NUMS[2] = {6, 17};
    uint32_t cnt[2];
    if (!count_lens(d, p, n, NUMS, cnt, 2))
        return 0;
    uint32_t ntiles = cnt[0], nsplit = cnt[1];
    if (ntiles && !(l->tiles = dalloc(d, ntiles * sizeof *l->tiles)))
        return 0;
    if (nsplit && !(l->split_configs = dalloc(d, nsplit * sizeof *l->split_configs)))
        return 0;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        int ok = 1;
        switch (f.num) {
        case 1:
            ok = append_varints(d, &f, &l->minor_to_major, &l->nminor_to_major);
            break;
        case 6:
            if (f.wire == PB_LEN)
                ok = dec_tile(d, f.data, f.len, &l->tiles[l->ntiles++]);
            break;
        case 7:
            if (f.wire == PB_VARINT)
                l->element_size_in_bits = (int64_t)f.u;
            break;
        case 8:
            if (f.wire == PB_VARINT)
                l->memory_space = (int64_t)f.u;
            break;
        case 9:
            ok = append_varints32(d, &f, &l->dim_level_types, &l->ndim_level_types);
            break;
        case 10:
            if (f.wire == PB_LEN) {
                if (!(l->physical_shape = dalloc(d, sizeof *l->physical_shape)))
                    return 0;
                ok = dec_shape(d, f.data, f.len, l->physical_shape, depth + 1);
            }
            break;
        case 11:
            if (f.wire == PB_VARINT)
                l->index_primitive_type = (int32_t)(uint32_t)f.u;
            break;
        case 12:
            if (f.wire == PB_VARINT)
                l->pointer_primitive_type = (int32_t)(uint32_t)f.u;
            break;
        case 13:
            ok = append_bools(d, &f, &l->dim_unique, &l->ndim_unique);
            break;
        case 14:
            ok = append_bools(d, &f, &l->dim_ordered, &l->ndim_ordered);
            break;
        case 15:
            if (f.wire == PB_VARINT)
                l->dynamic_shape_metadata_prefix_bytes = (int64_t)f.u;
            break;
        case 16:
            if (f.wire == PB_VARINT)
                l->tail_padding_alignment_in_elements = (int64_t)f.u;
            break;
        case 17:
            if (f.wire == PB_LEN)
                ok = dec_split(d, f.data, f.len, &l->split_configs[l->nsplit_configs++]);
            break;
        default:
            break;
        }
        if (!ok)
            return 0;
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_shape(dec *d, const uint8_t *p, size_t n, hlo_shape *s, int depth)
{
    if (depth > HLO_MAX_SHAPE_DEPTH)
        return dfail_at(d, p, "shapes nested at most 64 deep");
    int counted;
    s->tuple = alloc_counted(d, p, n, 4, sizeof *s->tuple, &counted);
    if (!counted)
        return 0;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        int ok = 1;
        if (f.num == 2 && f.wire == PB_VARINT)
            s->element_type = (int32_t)(uint32_t)f.u;
        else if (f.num == 3)
            ok = append_varints(d, &f, &s->dims, &s->ndims);
        else if (f.num == 4 && f.wire == PB_LEN)
            ok = dec_shape(d, f.data, f.len, &s->tuple[s->ntuple++], depth + 1);
        else if (f.num == 5 && f.wire == PB_LEN) {
            memset(&s->layout, 0, sizeof s->layout);
            s->has_layout = 1;
            ok = dec_layout(d, f.data, f.len, &s->layout, depth);
        } else if (f.num == 6)
            ok = append_bools(d, &f, &s->dynamic, &s->ndynamic);
        if (!ok)
            return 0;
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_metadata(dec *d, const uint8_t *p, size_t n, hlo_instruction *ins)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire == PB_LEN) {
            if (f.num == 1)
                ins->op_type = sv(&f);
            else if (f.num == 2)
                ins->op_name = sv(&f);
            else if (f.num == 3)
                ins->source_file = sv(&f);
            else if (f.num == 12)
                ins->deduplicated_name = sv(&f);
        } else if (f.wire == PB_VARINT) {
            if (f.num == 4)
                ins->source_line = (int32_t)(uint32_t)f.u;
            else if (f.num == 15)
                ins->stack_frame_id = (int32_t)(uint32_t)f.u;
        }
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_instruction(dec *d, const uint8_t *p, size_t n, hlo_instruction *ins)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    ins->raw = (pq_str){(const char *)p, n};
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        int ok = 1;
        if (f.wire == PB_LEN) {
            switch (f.num) {
            case 1:
                ins->name = sv(&f);
                break;
            case 2:
                ins->opcode = sv(&f);
                break;
            case 3:
                ins->shape_bytes = sv(&f);
                if (!d->lazy_shapes) { /* lazily the shape is never written: it stays zero */
                    memset(&ins->shape, 0, sizeof ins->shape);
                    ok = dec_shape(d, f.data, f.len, &ins->shape, 0);
                }
                break;
            case 7:
                ins->op_type = ins->op_name = ins->source_file = (pq_str){0};
                ins->deduplicated_name = (pq_str){0};
                ins->source_line = ins->stack_frame_id = 0;
                ok = dec_metadata(d, f.data, f.len, ins);
                break;
            case 11:
                ins->fusion_kind = sv(&f);
                break;
            case 28:
                ins->custom_call_target = sv(&f);
                break;
            case 43:
                ins->backend_config = sv(&f);
                break;
            case 36:
                if (!d->lazy_shapes)
                    ok = append_varints(d, &f, &ins->operand_ids, &ins->noperands);
                break;
            case 38:
                if (!d->lazy_shapes)
                    ok = append_varints(d, &f, &ins->called_computation_ids, &ins->ncalled);
                break;
            case 14:
                ok = append_varints(d, &f, &ins->dimensions, &ins->ndimensions);
                break;
            case 15:
                ins->window = sv(&f);
                break;
            case 16:
                ins->conv_dnums = sv(&f);
                break;
            case 30:
                ins->dot_dnums = sv(&f);
                break;
            default:
                break;
            }
        } else if (f.wire == PB_VARINT) {
            if (f.num == 9)
                ins->parameter_number = (int64_t)f.u;
            else if (f.num == 35)
                ins->id = (int64_t)f.u;
            else if (f.num == 36 && !d->lazy_shapes)
                ok = append_varints(d, &f, &ins->operand_ids, &ins->noperands);
            else if (f.num == 38 && !d->lazy_shapes)
                ok = append_varints(d, &f, &ins->called_computation_ids, &ins->ncalled);
            else if (f.num == 14)
                ok = append_varints(d, &f, &ins->dimensions, &ins->ndimensions);
            else if (f.num == 13)
                ins->tuple_index = (int64_t)f.u;
            else if (f.num == 50)
                ins->feature_group_count = (int64_t)f.u;
            else if (f.num == 58)
                ins->batch_group_count = (int64_t)f.u;
        }
        if (!ok)
            return 0;
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

/* hlo_decode_lazy's look at one instruction: the framing of its fields, and its id. On the
 * fast path (pbwire.h); a malformed instruction is walked again by pb_next for the error. */
static int index_instruction(dec *d, const uint8_t *p, size_t n, int64_t *id)
{
    const uint8_t *q = p, *end = p + n;
    while (q && q < end) {
        uint32_t tag;
        q = pb_fast_tag(q, end, &tag);
        if (q && tag == (35u << 3 | PB_VARINT)) {
            uint64_t v;
            if ((q = pb_fast_varint(q, end, &v)) != NULL)
                *id = (int64_t)v;
        } else if (q) {
            q = pb_fast_skip(q, end, tag & 7);
        }
    }
    if (q)
        return 1;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD)
        if (f.num == 35 && f.wire == PB_VARINT)
            *id = (int64_t)f.u;
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

/* A computation's own fields (name, ids, fusion flag): not its instructions. */
static void comp_field(hlo_computation *comp, const pb_field *f)
{
    if (f->wire == PB_LEN && f->num == 1) {
        comp->name = sv(f);
    } else if (f->wire == PB_VARINT) {
        if (f->num == 5)
            comp->id = (int64_t)f->u;
        else if (f->num == 6)
            comp->root_id = (int64_t)f->u;
        else if (f->num == 7)
            comp->is_fusion = f->u != 0;
    }
}

/* Room for one more instruction ref in d->scratch (which holds CNT); 0 when out of memory. */
static int scratch_room(dec *d, size_t cnt)
{
    if (cnt < d->scratch_cap)
        return 1;
    size_t cap = cnt ? 2 * cnt : 256;
    hlo_instruction_ref *g = pq_realloc_array(d->scratch, cap, sizeof *g);
    if (!g) {
        d->nomem = 1;
        return 0;
    }
    d->scratch = g;
    d->scratch_cap = cap;
    return 1;
}

/* Room for one more instruction ref in the arena array *V (CAP refs, of which CNT are
 * filled): the array grows in place while it is the arena's last allocation (nothing else is
 * allocated during a computation's walk), else is copied; 0 when out of memory. */
static int refs_room(dec *d, hlo_instruction_ref **v, size_t *cap, size_t cnt)
{
    if (cnt < *cap)
        return 1;
    size_t ncap = *cap ? 2 * *cap : 64;
    if (*v && arena_resize_last(d->a, *v, *cap * sizeof **v, ncap * sizeof **v)) {
        *cap = ncap;
        return 1;
    }
    hlo_instruction_ref *g = dalloc(d, ncap * sizeof *g);
    if (!g)
        return 0;
    if (cnt)
        memcpy(g, *v, cnt * sizeof *g);
    *v = g;
    *cap = ncap;
    return 1;
}

/* The id (field 35, the last one) of the instruction in [R, END), every field checked as
 * pb_fast_tag and pb_fast_skip check them: 0 when a field is malformed. The H100 module's
 * 7,757 instructions have 65,624 fields, half of them with a two-byte tag (numbers 16 and
 * up: the id, the operand ids, the fields in the 60s and 80s) and 53,166 of them LEN with
 * a one-byte length: a LEN field with a one-byte length is stepped over inline, its end
 * checked only by the next turn of the loop (the bytes after END are readable: PB_PADDING).
 * The position is an integer: a malformed length may take it up to 129 bytes past END,
 * beyond the padding, where a pointer may not go; it is a pointer again only below END. */
static int instruction_id(const uint8_t *r, const uint8_t *end, int64_t *id)
{
    uintptr_t at = (uintptr_t)r, stop = (uintptr_t)end;
    while (at < stop) {
        const uint8_t *p = (const uint8_t *)at, *q;
        uint32_t tag = p[0];
        uintptr_t t = 1; /* the tag's bytes */
        if (tag >= 0x80) {
            if (PB_LIKELY(p[1] < 0x80)) {
                tag = (tag & 0x7F) | (uint32_t)p[1] << 7;
                t = 2;
            } else if ((q = pb_fast_tag(p, end, &tag)) != NULL) {
                t = (uintptr_t)(q - p);
            } else {
                return 0;
            }
        }
        if (PB_UNLIKELY(tag < 8)) /* field number 0 */
            return 0;
        if (PB_LIKELY((tag & 7) == PB_LEN && p[t] < 0x80)) { /* p[t]: at most END[1] */
            at += t + 1 + p[t]; /* past END (a tag or length cut off, too long): the loop ends */
            continue;
        }
        if (at + t > stop) /* a two-byte tag cut off */
            return 0;
        q = p + t;
        uint64_t u;
        if ((tag & 7) == PB_LEN) {
            if (!(q = pb_fast_varint(q, end, &u)) || u > (uint64_t)(end - q))
                return 0;
            q += u;
        } else if (tag == (35u << 3 | PB_VARINT)) {
            if (q[0] >= 0x80 && q[1] >= 0x80 && q[2] < 0x80 && end - q >= 3) { /* most ids */
                u = (uint64_t)(q[0] & 0x7F) | (uint64_t)(q[1] & 0x7F) << 7 | (uint64_t)q[2] << 14;
                q += 3;
            } else if (!(q = pb_fast_varint(q, end, &u))) {
                return 0;
            }
            *id = (int64_t)u;
        } else if (!(q = pb_fast_skip(q, end, tag & 7))) {
            return 0;
        }
        at = (uintptr_t)q;
    }
    return at == stop;
}

/* The fields of a computation and the id of each instruction, in one pass on the fast path
 * (pbwire.h), into comp->refs (in the arena, grown as they come and trimmed to their number
 * at the end: no scratch copy): the number of instructions, or -1 when some bytes are
 * malformed (the caller walks again for the error), -2 when out of memory. */
static ptrdiff_t frame_computation_fast(dec *d, const uint8_t *p, size_t n, hlo_computation *comp,
                                        uint32_t index)
{
    const uint8_t *q = p, *end = p + n;
    size_t cnt = 0, cap = 0;
    hlo_instruction_ref *v = NULL;
    pb_field f = {0};
    while (q < end) {
        uint32_t tag;
        uint64_t u;
        if (!(q = pb_fast_tag(q, end, &tag)))
            break;
        f.num = tag >> 3;
        f.wire = tag & 7;
        if (f.wire == PB_LEN) {
            if (!(q = pb_fast_varint(q, end, &u)) || u > (uint64_t)(end - q)) {
                q = NULL;
                break;
            }
            f.data = q;
            f.len = (size_t)u;
            q += u;
            if (f.num != 2) {
                comp_field(comp, &f);
                continue;
            }
            int64_t id = 0;
            if (!instruction_id(f.data, q, &id)) {
                q = NULL;
                break;
            }
            if (!refs_room(d, &v, &cap, cnt))
                return -2;
            v[cnt++] = (hlo_instruction_ref){id, f.data, (uint32_t)f.len, index, 0, NULL};
        } else if (f.wire == PB_VARINT) {
            if (!(q = pb_fast_varint(q, end, &f.u)))
                break;
            comp_field(comp, &f);
        } else if (!(q = pb_fast_skip(q, end, f.wire))) {
            break;
        }
    }
    if (!q || cnt > UINT32_MAX) {
        if (v) { /* given back, cleared (the slow walk allocates its own array) */
            memset(v, 0, cnt * sizeof *v);
            arena_resize_last(d->a, v, cap * sizeof *v, 0);
        }
        return -1;
    }
    if (v && cnt < cap) /* trimmed (the last allocation: cannot fail; the rest unwritten) */
        arena_resize_last(d->a, v, cap * sizeof *v, cnt * sizeof *v);
    comp->refs = cnt ? v : NULL;
    return (ptrdiff_t)cnt;
}

/* hlo_decode_lazy's computation: its fields and each instruction's framing and id in one
 * pass on the fast path (frame_computation_fast). When that finds malformed bytes, the
 * computation is walked again as before: its instructions framed in one pass (into
 * d->scratch, then copied to an array of their count), then each indexed by id. The framing
 * of the whole computation is checked before any instruction is looked into, so the first
 * error reported is the one the counting pass of hlo_decode finds. */
static int dec_computation_lazy(dec *d, const uint8_t *p, size_t n, hlo_computation *comp,
                                uint32_t index)
{
    ptrdiff_t fast = frame_computation_fast(d, p, n, comp, index);
    if (fast == -2)
        return 0;
    if (fast >= 0) {
        comp->ninstructions = (uint32_t)fast;
        return 1;
    }
    size_t cnt = 0;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN || f.num != 2) {
            comp_field(comp, &f);
            continue;
        }
        if (!scratch_room(d, cnt))
            return 0;
        d->scratch[cnt++] = (hlo_instruction_ref){0, f.data, (uint32_t)f.len, index, 0, NULL};
    }
    if (k == PB_ERROR)
        return dfail(d, &c);
    if (cnt > UINT32_MAX)
        return dfail_at(d, p, "fewer than 2^32 instructions");
    if (cnt) {
        if (!(comp->refs = dalloc(d, cnt * sizeof *comp->refs)))
            return 0;
        memcpy(comp->refs, d->scratch, cnt * sizeof *comp->refs);
    }
    for (size_t i = 0; i < cnt; i++) {
        hlo_instruction_ref *r = &comp->refs[i];
        comp->ninstructions = (uint32_t)i + 1;
        if (!index_instruction(d, r->p, r->len, &r->id))
            return 0;
    }
    return 1;
}

static int dec_computation(dec *d, const uint8_t *p, size_t n, hlo_computation *comp,
                           uint32_t index)
{
    if (d->lazy_shapes)
        return dec_computation_lazy(d, p, n, comp, index);
    int counted;
    comp->instructions = alloc_counted(d, p, n, 2, sizeof *comp->instructions, &counted);
    if (!counted)
        return 0;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire == PB_LEN && f.num == 2) {
            hlo_instruction *ins = &comp->instructions[comp->ninstructions++];
            ins->computation = index;
            if (!dec_instruction(d, f.data, f.len, ins))
                return 0;
        } else {
            comp_field(comp, &f);
        }
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_stack_index(dec *d, const uint8_t *p, size_t n, hlo_module *m)
{
    static const uint32_t NUMS[4] = {1, 2, 3, 4};
    uint32_t cnt[4];
    if (!count_lens(d, p, n, NUMS, cnt, 4))
        return 0;
    uint32_t c1 = cnt[0], c2 = cnt[1], c3 = cnt[2], c4 = cnt[3];
    m->file_names = dalloc(d, c1 * sizeof *m->file_names);
    m->function_names = dalloc(d, c2 * sizeof *m->function_names);
    m->file_locations = dalloc(d, c3 * sizeof *m->file_locations);
    m->stack_frames = dalloc(d, c4 * sizeof *m->stack_frames);
    if (d->nomem)
        return 0;
    m->nfile_names = m->nfunction_names = m->nfile_locations = m->nstack_frames = 0;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        if (f.num == 1) {
            m->file_names[m->nfile_names++] = sv(&f);
        } else if (f.num == 2) {
            m->function_names[m->nfunction_names++] = sv(&f);
        } else if (f.num == 3 || f.num == 4) {
            int32_t v[4] = {0, 0, 0, 0};
            pb_cursor e;
            pb_field g = {0};
            int r;
            pb_init(&e, f.data, f.len, d->base);
            while ((r = pb_next(&e, &g)) == PB_FIELD)
                if (g.wire == PB_VARINT && g.num >= 1 && g.num <= 4)
                    v[g.num - 1] = (int32_t)(uint32_t)g.u;
            if (r == PB_ERROR)
                return dfail(d, &e);
            if (f.num == 3)
                m->file_locations[m->nfile_locations++] =
                    (hlo_file_location){v[0], v[1], v[2], v[3]};
            else
                m->stack_frames[m->nstack_frames++] = (hlo_stack_frame){v[0], v[1]};
        }
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_module(dec *d, const uint8_t *p, size_t n, hlo_module *m)
{
    int counted;
    m->computations = alloc_counted(d, p, n, 3, sizeof *m->computations, &counted);
    if (!counted)
        return 0;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire == PB_LEN) {
            if (f.num == 1) {
                m->name = sv(&f);
            } else if (f.num == 2) {
                m->entry_computation_name = sv(&f);
            } else if (f.num == 3) {
                uint32_t i = m->ncomputations++;
                if (!dec_computation(d, f.data, f.len, &m->computations[i], i))
                    return 0;
            } else if (f.num == 17) {
                if (!dec_stack_index(d, f.data, f.len, m))
                    return 0;
            }
        } else if (f.wire == PB_VARINT) {
            if (f.num == 5)
                m->id = (int64_t)f.u;
            else if (f.num == 6)
                m->entry_computation_id = (int64_t)f.u;
        }
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int cmp_id_seq(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    int64_t x = ((const hlo_id_seq *)a)->id, y = ((const hlo_id_seq *)b)->id;
    return (x > y) - (x < y);
}

/* Nothing when the ids already ascend; core/sort.h's stable merge sort for under 2048 ids;
 * else a stable LSD radix sort, 11 bits a pass, only over the bits where the ids differ. */
void hlo_sort_ids(hlo_id_seq *v, hlo_id_seq *t, size_t n)
{
    int sorted = 1;
    uint64_t diff = 0;
    for (size_t i = 1; i < n; i++) {
        sorted &= v[i - 1].id <= v[i].id;
        diff |= (uint64_t)v[i].id ^ (uint64_t)v[0].id;
    }
    if (sorted)
        return;
    if (n < 2048) { /* fewer steps than the radix */
        pq_sort_inline(v, t, n, sizeof *v, cmp_id_seq, NULL);
        return;
    }
    enum { BITS = 11, BUCKETS = 1 << BITS };
    uint32_t cnt[BUCKETS];
    hlo_id_seq *src = v, *dst = t;
    for (int sh = 0; sh < 64; sh += BITS) {
        if (!(diff >> sh & (BUCKETS - 1)))
            continue; /* every id has the same digit here */
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[((uint64_t)src[i].id ^ (1ull << 63)) >> sh & (BUCKETS - 1)]++;
        uint32_t sum = 0;
        for (int b = 0; b < BUCKETS; b++) {
            uint32_t c = cnt[b];
            cnt[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[((uint64_t)src[i].id ^ (1ull << 63)) >> sh & (BUCKETS - 1)]++] = src[i];
        hlo_id_seq *x = src;
        src = dst;
        dst = x;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

/* The splitmix64 finalizer of ID ^ SEED: every bit of the id moves every bit of the hash.
 * The seed is an address (random under ASLR), so ids crafted to collide in one process do
 * not in another; lookups give the same answers whatever it is. */
static size_t id_hash(int64_t id, uint64_t seed)
{
    uint64_t x = (uint64_t)id ^ seed;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (size_t)(x ^ (x >> 31));
}

/* hlo_decode_lazy's instructions by id (hlo_module.refs, ref_table): a hash table, in
 * place of the sorted by_id (no sort). */
static int index_refs(dec *d, hlo_module *m, size_t total)
{
    size_t cap = 16;
    while (cap < 2 * total)
        cap *= 2;
    m->refs = dalloc(d, (total ? total : 1) * sizeof *m->refs);
    m->ref_table = dalloc(d, cap * sizeof *m->ref_table);
    if (d->nomem)
        return 0;
    m->ref_mask = cap - 1;
    m->ref_seed = (uint64_t)(uintptr_t)m->ref_table;
    size_t j = 0;
    for (uint32_t i = 0; i < m->ncomputations; i++) {
        hlo_computation *comp = &m->computations[i];
        for (uint32_t q = 0; q < comp->ninstructions; q++, j++) {
            hlo_instruction_ref *r = &comp->refs[q];
            r->slot = (uint32_t)j;
            m->refs[j] = r;
            size_t h = id_hash(r->id, m->ref_seed) & m->ref_mask;
            while (m->ref_table[h] && m->refs[m->ref_table[h] - 1]->id != r->id)
                h = (h + 1) & m->ref_mask;
            m->ref_table[h] = (uint32_t)j + 1; /* a later duplicate replaces the earlier */
        }
    }
    m->nrefs = (uint32_t)total;
    return 1;
}

static int build_indexes(dec *d, hlo_module *m)
{
    size_t total = 0;
    for (uint32_t i = 0; i < m->ncomputations; i++)
        total += m->computations[i].ninstructions;
    if (d->lazy_shapes && !index_refs(d, m, total))
        return 0;
    size_t nsort = d->lazy_shapes ? 0 : total; /* instructions to sort */
    m->by_id = dalloc(d, (nsort ? nsort : 1) * sizeof *m->by_id);
    m->instruction_ids = dalloc(d, (nsort ? nsort : 1) * sizeof(int64_t));
    m->lb_order = dalloc(d, (m->nlogical_buffers ? m->nlogical_buffers : 1) * sizeof(uint32_t));
    m->lb_ids = dalloc(d, (m->nlogical_buffers ? m->nlogical_buffers : 1) * sizeof(int64_t));
    if (d->nomem)
        return 0;
    uint32_t asc = 1; /* logical buffer ids already ascending (XLA writes them so) */
    for (uint32_t i = 1; i < m->nlogical_buffers && asc; i++)
        asc = m->logical_buffers[i - 1].id <= m->logical_buffers[i].id;
    if (!nsort && asc) { /* nothing to sort: no scratch (83 KB of fresh heap on the H100) */
        for (uint32_t i = 0; i < m->nlogical_buffers; i++) {
            m->lb_order[i] = i;
            m->lb_ids[i] = m->logical_buffers[i].id;
        }
        return 1;
    }
    size_t nmax = nsort > m->nlogical_buffers ? nsort : m->nlogical_buffers;
    hlo_id_seq *tmp = pq_malloc_array(2 * (nmax ? nmax : 1), sizeof *tmp);
    if (!tmp) {
        d->nomem = 1;
        return 0;
    }
    size_t j = 0;
    for (uint32_t i = 0; i < m->ncomputations && nsort; i++)
        for (uint32_t q = 0; q < m->computations[i].ninstructions; q++, j++)
            tmp[j] = (hlo_id_seq){m->computations[i].instructions[q].id, (uint32_t)j,
                                  &m->computations[i].instructions[q]};
    hlo_sort_ids(tmp, tmp + nmax, nsort);
    for (j = 0; j < nsort; j++) {
        m->by_id[j] = tmp[j].p;
        m->instruction_ids[j] = tmp[j].id;
    }
    m->nby_id = (uint32_t)nsort;
    for (uint32_t i = 0; i < m->nlogical_buffers; i++)
        tmp[i] = (hlo_id_seq){m->logical_buffers[i].id, i, NULL};
    hlo_sort_ids(tmp, tmp + nmax, m->nlogical_buffers);
    for (uint32_t i = 0; i < m->nlogical_buffers; i++) {
        m->lb_order[i] = tmp[i].seq;
        m->lb_ids[i] = tmp[i].id;
    }
    pq_free(tmp);
    return 1;
}

/* The status of a failed decode: out of memory, or the input error at the byte where D
 * stopped (its offset and what was expected go to *ERR_OFFSET and *ERR_WHAT). */
static pq_status dec_status(const dec *d, int64_t *err_offset, const char **err_what)
{
    if (d->nomem)
        return PQ_ERR_NOMEM;
    *err_offset = (int64_t)(d->err_at - d->base);
    *err_what = d->err;
    return PQ_ERR_INPUT;
}

static pq_status decode(const uint8_t *data, size_t n, const uint8_t *base, arena *a, int lazy,
                        hlo_module **out, int64_t *err_offset, const char **err_what)
{
    dec d = {a, base ? base : data, NULL, NULL, 0, lazy, NULL, 0};
    *out = NULL;
    hlo_module *m = dalloc(&d, sizeof *m);
    if (!m)
        return PQ_ERR_NOMEM;
    pb_cursor c;
    pb_field f = {0};
    int k;
    int ok = 1;
    pb_init(&c, data, n, d.base);
    while (ok && (k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        if (f.num == 1) {
            hlo_logical_buffer *lbs = m->logical_buffers;
            hlo_allocation *als = m->allocations;
            hlo_heap_trace *trs = m->traces;
            uint32_t a1 = m->nlogical_buffers, a2 = m->nallocations, a3 = m->ntraces;
            int hb = m->has_buffer_assignment;
            memset(m, 0, sizeof *m);
            m->logical_buffers = lbs, m->allocations = als, m->traces = trs;
            m->nlogical_buffers = a1, m->nallocations = a2, m->ntraces = a3;
            m->has_buffer_assignment = hb;
            ok = dec_module(&d, f.data, f.len, m);
        } else if (f.num == 3) {
            ok = hlo_dec_buffer_assignment(&d, f.data, f.len, m);
        }
    }
    if (ok && k == PB_ERROR)
        ok = dfail(&d, &c);
    m->lazy_shapes = lazy;
    pq_free(d.scratch);
    if (ok)
        ok = build_indexes(&d, m);
    if (!ok)
        return dec_status(&d, err_offset, err_what);
    m->base = d.base;
    *out = m;
    return PQ_OK;
}

pq_status hlo_decode(const uint8_t *data, size_t n, const uint8_t *base, arena *a, hlo_module **out,
                     int64_t *err_offset, const char **err_what)
{
    return decode(data, n, base, a, 0, out, err_offset, err_what);
}

pq_status hlo_decode_lazy(const uint8_t *data, size_t n, const uint8_t *base, arena *a,
                          hlo_module **out, int64_t *err_offset, const char **err_what)
{
    return decode(data, n, base, a, 1, out, err_offset, err_what);
}

/* The bytes of a view; an empty one (absent field) reads as "" rather than NULL. */
static const uint8_t *view_bytes(pq_str v)
{
    return v.n ? (const uint8_t *)v.p : (const uint8_t *)"";
}

pq_status hlo_decode_shape(pq_str bytes, const uint8_t *base, int depth, arena *a, hlo_shape **out,
                           int64_t *err_offset, const char **err_what)
{
    const uint8_t *p = view_bytes(bytes);
    dec d = {a, base ? base : p, NULL, NULL, 0, 0, NULL, 0};
    hlo_shape *s = dalloc(&d, sizeof *s);
    if (s) {
        memset(s, 0, sizeof *s);
        if (dec_shape(&d, p, bytes.n, s, depth)) {
            *out = s;
            return PQ_OK;
        }
    }
    return dec_status(&d, err_offset, err_what);
}

pq_status hlo_shape_elements(pq_str bytes, const uint8_t *base, arena *a, pq_str **out, uint32_t *n,
                             int64_t *err_offset, const char **err_what)
{
    const uint8_t *p = view_bytes(bytes);
    dec d = {a, base ? base : p, NULL, NULL, 0, 0, NULL, 0};
    uint32_t cnt = 0;
    pq_str *v = NULL;
    if (count_len(&d, p, bytes.n, 4, &cnt) && (v = dalloc(&d, cnt * sizeof *v)) != NULL) {
        pb_cursor c;
        pb_field f = {0};
        uint32_t i = 0;
        pb_init(&c, p, bytes.n, d.base);
        while (pb_next(&c, &f) == PB_FIELD) /* count_len read the same bytes without error */
            if (f.num == 4 && f.wire == PB_LEN)
                v[i++] = sv(&f);
        *out = v;
        *n = cnt;
        return PQ_OK;
    }
    return dec_status(&d, err_offset, err_what);
}

pq_status hlo_instruction_decode(const hlo_module *m, hlo_instruction_ref *ref, arena *a,
                                 int64_t *err_offset, const char **err_what)
{
    if (ref->decoded)
        return PQ_OK;
    dec d = {a, m->base, NULL, NULL, 0, 1, NULL, 0};
    hlo_instruction *ins = dalloc(&d, HLO_LAZY_INSTRUCTION_SIZE); /* no shape member */
    if (ins) {
        ins->computation = ref->computation;
        if (dec_instruction(&d, ref->p, ref->len, ins)) {
            ref->decoded = ins;
            return PQ_OK;
        }
    }
    return dec_status(&d, err_offset, err_what);
}

/* The index of the last of the N ascending IDS that equals ID, or N. XProf's id maps are
 * filled in file order with operator[]: the last duplicate wins. A binary search without
 * branches on the comparisons (a conditional move each step: the ids looked up come in no
 * order, so a branch on them is mispredicted half the time). The first id above ID lies in
 * [b, b + len] throughout. */
static uint32_t last_index_of(const int64_t *ids, uint32_t n, int64_t id)
{
    if (!n)
        return 0;
    const int64_t *b = ids;
    uint32_t len = n;
    while (len > 1) {
        uint32_t half = len / 2;
        b = b[half] <= id ? b + half : b;
        len -= half;
    }
    uint32_t above = (uint32_t)(b - ids) + (*b <= id); /* the first id above ID, or N */
    return above > 0 && ids[above - 1] == id ? above - 1 : n;
}

pq_status hlo_instruction_lazy(const hlo_module *m, int64_t id, arena *a, hlo_instruction_ref **out,
                               int64_t *err_offset, const char **err_what)
{
    *out = NULL;
    if (!m->nrefs)
        return PQ_OK;
    uint32_t t;
    for (size_t h = id_hash(id, m->ref_seed) & m->ref_mask; (t = m->ref_table[h]) != 0;
         h = (h + 1) & m->ref_mask)
        if (m->refs[t - 1]->id == id) {
            *out = m->refs[t - 1];
            return hlo_instruction_decode(m, *out, a, err_offset, err_what);
        }
    return PQ_OK;
}

const hlo_instruction *hlo_instruction_by_id(const hlo_module *m, int64_t id)
{
    uint32_t i = last_index_of(m->instruction_ids, m->nby_id, id);
    return i < m->nby_id ? m->by_id[i] : NULL;
}

const hlo_logical_buffer *hlo_logical_buffer_by_id(const hlo_module *m, int64_t id)
{
    uint32_t i = last_index_of(m->lb_ids, m->nlogical_buffers, id);
    return i < m->nlogical_buffers ? &m->logical_buffers[m->lb_order[i]] : NULL;
}
