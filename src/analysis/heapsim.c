/* heapsim.c - `profq heap`: replays every heap-simulator trace of a module over program
 * order. Sharing is counted once: SHARE_WITH joins a buffer to its canonical buffer's
 * reference count (the chain is followed to its root) and adds memory only when that memory
 * had already been freed; FREE subtracts the root's size when the last reference goes.
 * A FREE without a live reference, or an unknown buffer id, is counted and skipped rather
 * than refused: this is an overview, not XProf's exact viewer (memviewer.c is). */
#include "heapsim.h"

#include <stdlib.h>
#include <string.h>

typedef struct hs_buf {
    int64_t id, size;
    int64_t ref;
    int32_t canonical; /* index, -1 = none */
} hs_buf;

static int cmp_i64(const void *a, const void *b)
{
    const hs_buf *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int32_t find(const hs_buf *v, uint32_t n, int64_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].id == id ? (int32_t)lo : -1;
}

static int32_t root(const hs_buf *v, int32_t i)
{
    int guard = 0;
    while (v[i].canonical >= 0 && guard++ < 1 << 20)
        i = v[i].canonical;
    return i;
}

pq_status heapsim_compute(const hlo_module *m, arena *a, hs_result *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = m->nlogical_buffers;
    hs_buf *bufs = malloc((n ? n : 1) * sizeof *bufs);
    if (!bufs)
        return PQ_ERR_NOMEM;
    out->traces = arena_alloc(a, (m->ntraces ? m->ntraces : 1) * sizeof *out->traces);
    if (!out->traces) {
        free(bufs);
        return PQ_ERR_NOMEM;
    }
    for (uint32_t t = 0; t < m->ntraces; t++) {
        const hlo_heap_trace *tr = &m->traces[t];
        for (uint32_t i = 0; i < n; i++)
            bufs[i] = (hs_buf){m->logical_buffers[i].id, m->logical_buffers[i].size, 0, -1};
        qsort(bufs, n, sizeof *bufs, cmp_i64);
        hs_trace *o = &out->traces[out->ntraces++];
        o->index = t;
        o->nevents = tr->nevents;
        o->color = -1;
        o->usage = arena_alloc(a, ((size_t)tr->nevents + 1) * sizeof *o->usage);
        o->instruction = arena_alloc(a, ((size_t)tr->nevents + 1) * sizeof *o->instruction);
        if (!o->usage || !o->instruction) {
            free(bufs);
            return PQ_ERR_NOMEM;
        }
        int64_t heap = 0;
        for (uint32_t k = 0; k < tr->nevents; k++) {
            const hlo_heap_event *e = &tr->events[k];
            o->usage[k] = heap;
            o->instruction[k] = e->instruction_name;
            int32_t b = find(bufs, n, e->buffer_id);
            if (b < 0) {
                o->unknown_buffers++;
                continue;
            }
            if (o->color < 0) {
                const hlo_logical_buffer *lb = hlo_logical_buffer_by_id(m, e->buffer_id);
                o->color = lb ? lb->color : -1;
            }
            if (e->kind == HLO_EV_ALLOC) {
                int32_t r = root(bufs, b);
                if (bufs[r].ref++ == 0)
                    heap += bufs[r].size;
            } else if (e->kind == HLO_EV_SHARE_WITH) {
                int32_t c = find(bufs, n, e->share_with_canonical_id);
                if (c < 0 || root(bufs, c) == b) {
                    o->unknown_buffers++;
                    continue;
                }
                bufs[b].canonical = c;
                int32_t r = root(bufs, c);
                if (bufs[r].ref++ == 0)
                    heap += bufs[r].size;
            } else if (e->kind == HLO_EV_FREE) {
                int32_t r = root(bufs, b);
                if (bufs[r].ref <= 0) {
                    o->unknown_buffers++;
                    continue;
                }
                if (--bufs[r].ref == 0)
                    heap -= bufs[r].size;
            }
            if (heap > o->peak_bytes) {
                o->peak_bytes = heap;
                o->peak_position = k;
            }
        }
        o->usage[tr->nevents] = heap;
        o->instruction[tr->nevents] = (pq_str){"", 0};
        if (o->peak_bytes > out->peak_bytes)
            out->peak_bytes = o->peak_bytes;
    }
    free(bufs);
    return PQ_OK;
}
