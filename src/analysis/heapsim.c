/* heapsim.c - `profq heap`: replays every heap-simulator trace of a module over program
 * order. Sharing is counted once: SHARE_WITH joins a buffer to its canonical buffer's
 * reference count (the chain is followed to its root) and adds memory only when that memory
 * had already been freed; FREE subtracts the root's size when the last reference goes.
 * A FREE without a live reference, or an unknown buffer id, is counted and skipped rather
 * than refused: this is an overview, not XProf's exact viewer (memviewer.c is). A trace
 * without events is left out (it has no usage and no memory space).
 * pq_heap_compute picks the modules of a profile (by "<name>(<id>)" prefix), decodes them
 * and keeps those with traces. Not here: formatting (render/heap.c). */
#include "heapsim.h"
#include "core/alloc.h"
#include "core/err.h"
#include "memviewer.h"
#include "model/model.h"

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
    hs_buf *bufs = pq_malloc_array(n ? n : 1, sizeof *bufs);
    if (!bufs)
        return PQ_ERR_NOMEM;
    out->traces = arena_alloc(a, (m->ntraces ? m->ntraces : 1) * sizeof *out->traces);
    if (!out->traces) {
        pq_free(bufs);
        return PQ_ERR_NOMEM;
    }
    for (uint32_t t = 0; t < m->ntraces; t++) {
        const hlo_heap_trace *tr = &m->traces[t];
        if (!tr->nevents)
            continue; /* nothing to replay, no memory space to name (issue 16 item 14) */
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
            pq_free(bufs);
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
    pq_free(bufs);
    return PQ_OK;
}

/* A computed heap result with the arena everything is in (the public struct first). */
typedef struct hs_handle {
    pq_heap_result pub;
    arena a;
} hs_handle;

static pq_status heap_module(const pq_source *src, const pq_program *prog, arena *a,
                             pq_heap_module *out, pq_error *err)
{
    hlo_module *m;
    int64_t off;
    const char *what;
    pq_status st = hlo_decode(prog->hlo, prog->hlo_len, src->file.data, a, &m, &off, &what);
    if (st == PQ_ERR_INPUT)
        return err_set(err, st, src->path, off, "expected %s in an HloProto", what);
    hs_result r;
    if (st == PQ_OK)
        st = heapsim_compute(m, a, &r);
    if (st != PQ_OK)
        return err_set(err, st, src->path, -1, "out of memory");
    memset(out, 0, sizeof *out);
    out->module.key = memviewer_module_key(a, prog->name, prog->program_id);
    out->module.name = prog->name;
    out->module.program_id = prog->program_id;
    out->module.source = src->path;
    out->traces = r.traces;
    out->ntraces = r.ntraces;
    out->peak_bytes = r.peak_bytes;
    for (uint32_t i = 0; i < r.ntraces; i++)
        if (r.traces[i].peak_bytes > r.traces[out->top_trace].peak_bytes)
            out->top_trace = i;
    return arena_failed(a) ? err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory") : PQ_OK;
}

pq_status pq_heap_compute(const pq_profile *p, const char *module, pq_heap_result **out,
                          pq_error *err)
{
    *out = NULL;
    hs_handle *h = pq_calloc(1, sizeof *h);
    if (!h)
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    arena_init(&h->a);
    size_t cap = 0;
    for (size_t s = 0; s < p->nsources; s++)
        cap += p->sources[s].nprograms;
    pq_heap_result *r = &h->pub;
    r->modules = arena_alloc(&h->a, (cap ? cap : 1) * sizeof *r->modules);
    pq_status st = r->modules ? PQ_OK : err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    for (size_t s = 0; s < p->nsources && st == PQ_OK; s++)
        for (uint32_t i = 0; i < p->sources[s].nprograms && st == PQ_OK; i++) {
            const pq_program *prog = &p->sources[s].programs[i];
            if (!memviewer_key_has_prefix(prog->name, prog->program_id, module))
                continue;
            st = heap_module(&p->sources[s], prog, &h->a, &r->modules[r->nmodules], err);
            if (st == PQ_OK && r->modules[r->nmodules].ntraces)
                r->nmodules++;
        }
    if (st == PQ_OK && r->nmodules == 0 && module && *module)
        st = err_set(err, PQ_ERR_NOT_FOUND, "", -1,
                     "no module with heap-simulator traces matches '%s'", module);
    if (st != PQ_OK) {
        pq_heap_free(r);
        return st;
    }
    *out = r;
    return PQ_OK;
}

void pq_heap_free(pq_heap_result *result)
{
    if (!result)
        return;
    hs_handle *h = (hs_handle *)(void *)result;
    arena_release(&h->a);
    pq_free(h);
}
