/* hlo_buffers.c - decoding of an HloProto's buffer assignment: logical buffers with their
 * defining locations, buffer allocations with their assigned buffers, and the heap
 * simulator traces (field numbers: spec/xprof-tools.md section 2). Not here: instructions
 * and shapes (hlo.c), the indexes built over the result (hlo.c). */
#include "hlo_dec.h"

static int dec_location(dec *d, const uint8_t *p, size_t n, hlo_logical_buffer *lb)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.num == 2 && f.wire == PB_LEN)
            lb->instruction_name = sv(&f);
        else if (f.num == 3 && !append_varints(d, &f, &lb->shape_index, &lb->nshape_index))
            return 0;
        else if (f.num == 4 && f.wire == PB_VARINT)
            lb->instruction_id = (int64_t)f.u;
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_logical_buffer(dec *d, const uint8_t *p, size_t n, hlo_logical_buffer *lb)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire == PB_VARINT) {
            if (f.num == 1)
                lb->id = (int64_t)f.u;
            else if (f.num == 2)
                lb->size = (int64_t)f.u;
            else if (f.num == 4)
                lb->color = (int64_t)f.u;
        } else if (f.num == 3 && f.wire == PB_LEN) {
            lb->instruction_name = (pq_str){0};
            lb->shape_index = NULL;
            lb->nshape_index = 0;
            lb->instruction_id = 0;
            if (!dec_location(d, f.data, f.len, lb))
                return 0;
        }
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_allocation(dec *d, const uint8_t *p, size_t n, hlo_allocation *al)
{
    int counted;
    al->assigned = alloc_counted(d, p, n, 9, sizeof *al->assigned, &counted);
    if (!counted)
        return 0;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire == PB_VARINT) {
            /* BufferAllocationProto: numbers 1 index, 2 size, 6 parameter_number, 8 color;
             * flags 3 thread-local, 5 entry parameter, 7 maybe-live-out, 11 tuple, 12
             * constant; 10 parameter_shape_index (unpacked) */
            int64_t v = (int64_t)f.u;
            int64_t *num = f.num == 1   ? &al->index
                           : f.num == 2 ? &al->size
                           : f.num == 6 ? &al->parameter_number
                           : f.num == 8 ? &al->color
                                        : NULL;
            int *flag = f.num == 3    ? &al->is_thread_local
                        : f.num == 5  ? &al->is_entry_computation_parameter
                        : f.num == 7  ? &al->maybe_live_out
                        : f.num == 11 ? &al->is_tuple
                        : f.num == 12 ? &al->is_constant
                                      : NULL;
            if (num)
                *num = v;
            else if (flag)
                *flag = v != 0;
            else if (f.num == 10 && !append_varints(d, &f, &al->parameter_shape_index,
                                                    &al->nparameter_shape_index))
                return 0;
        } else if (f.wire == PB_LEN) {
            if (f.num == 10) {
                if (!append_varints(d, &f, &al->parameter_shape_index, &al->nparameter_shape_index))
                    return 0;
            } else if (f.num == 9) {
                int64_t v[3] = {0, 0, 0};
                pb_cursor e;
                pb_field g = {0};
                int r;
                pb_init(&e, f.data, f.len, d->base);
                while ((r = pb_next(&e, &g)) == PB_FIELD)
                    if (g.wire == PB_VARINT && g.num >= 1 && g.num <= 3)
                        v[g.num - 1] = (int64_t)g.u;
                if (r == PB_ERROR)
                    return dfail(d, &e);
                al->assigned[al->nassigned++] = (hlo_assigned){v[0], v[1], v[2]};
            }
        }
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

static int dec_trace(dec *d, const uint8_t *p, size_t n, hlo_heap_trace *t)
{
    int counted;
    t->events = alloc_counted(d, p, n, 1, sizeof *t->events, &counted);
    if (!counted)
        return 0;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.num == 1 && f.wire == PB_LEN) {
            hlo_heap_event *e = &t->events[t->nevents++];
            pb_cursor ec;
            pb_field g = {0};
            int r;
            pb_init(&ec, f.data, f.len, d->base);
            while ((r = pb_next(&ec, &g)) == PB_FIELD) {
                if (g.wire == PB_VARINT) {
                    if (g.num == 1)
                        e->kind = (int32_t)(uint32_t)g.u;
                    else if (g.num == 2)
                        e->buffer_id = (int64_t)g.u;
                    else if (g.num == 5)
                        e->share_with_canonical_id = (int64_t)g.u;
                } else if (g.wire == PB_LEN) {
                    if (g.num == 3)
                        e->computation_name = sv(&g);
                    else if (g.num == 4)
                        e->instruction_name = sv(&g);
                }
            }
            if (r == PB_ERROR)
                return dfail(d, &ec);
        } else if (f.num == 2 && f.wire == PB_VARINT) {
            t->whole_module_simulation = f.u != 0;
        } else if (f.num == 3 && f.wire == PB_VARINT) {
            t->buffer_allocation_index = (int64_t)f.u;
        }
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}

int hlo_dec_buffer_assignment(dec *d, const uint8_t *p, size_t n, hlo_module *m)
{
    static const uint32_t NUMS[3] = {1, 3, 4};
    uint32_t cnt[3];
    if (!count_lens(d, p, n, NUMS, cnt, 3))
        return 0;
    uint32_t nlb = cnt[0], nal = cnt[1], ntr = cnt[2];
    m->logical_buffers = dalloc(d, nlb * sizeof *m->logical_buffers);
    m->allocations = dalloc(d, nal * sizeof *m->allocations);
    m->traces = dalloc(d, ntr * sizeof *m->traces);
    if (d->nomem)
        return 0;
    m->nlogical_buffers = m->nallocations = m->ntraces = 0;
    m->has_buffer_assignment = 1;
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, d->base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        int ok = 1;
        if (f.num == 1)
            ok = dec_logical_buffer(d, f.data, f.len, &m->logical_buffers[m->nlogical_buffers++]);
        else if (f.num == 3)
            ok = dec_allocation(d, f.data, f.len, &m->allocations[m->nallocations++]);
        else if (f.num == 4)
            ok = dec_trace(d, f.data, f.len, &m->traces[m->ntraces++]);
        if (!ok)
            return 0;
    }
    return k == PB_ERROR ? dfail(d, &c) : 1;
}
