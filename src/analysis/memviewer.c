/* memviewer.c - XProf's memory viewer (spec/xprof-tools.md section 3) over a decoded
 * HloProto: index the buffer assignment, pick and replay one heap-simulator trace, take
 * the peak snapshot, sum the special allocations, lay out the buffer blocks. Where XProf
 * iterates a hash map, profq iterates allocations by ascending index and logical buffers
 * by ascending id (docs/internals/memviewer.md). Rendering is in render/memviewer.c. */
#include "memviewer.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/hmap.h"
#include "core/pairmap.h"
#include "core/sort.h"

#include <stdlib.h>
#include <string.h>

enum { SMALL_BUFFER_BYTES = 16 * 1024 };

const char *memviewer_category(const hlo_allocation *a)
{
    if (a->is_entry_computation_parameter)
        return "Parameter";
    if (a->maybe_live_out)
        return "Output";
    if (a->is_thread_local)
        return "Thread-local";
    if (a->is_constant)
        return "Constant";
    return "Temporary";
}

/* Indefinite lifetime. XProf 2.24.2 (the conformance peer) leaves thread-local allocations
 * out, unlike the spec's list: they are in no indefinite sum, no indefiniteLifetimes entry
 * and no total (only nonReusableMib counts them), which the TPU and MI300 inputs show. */
int memviewer_indefinite(const hlo_allocation *a)
{
    return a->is_entry_computation_parameter || a->is_constant || a->maybe_live_out;
}

/* Sorts N items (seq ascending) by key and keeps the last of each key (operator[]
 * semantics). T is scratch space of N items. */
static uint32_t sort_unique_last(hlo_id_seq *v, hlo_id_seq *t, uint32_t n)
{
    hlo_sort_ids(v, t, n);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (k && v[k - 1].id == v[i].id)
            v[k - 1] = v[i];
        else
            v[k++] = v[i];
    }
    return k;
}

uint32_t memviewer_colors(const hlo_module *m, int64_t *out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nallocations; i++) {
        int64_t c = m->allocations[i].color;
        uint32_t j = 0;
        while (j < n && out[j] < c)
            j++;
        if (j < n && out[j] == c)
            continue;
        if (n == cap)
            continue;
        memmove(out + j + 1, out + j, (n - j) * sizeof *out);
        out[j] = c;
        n++;
    }
    return n;
}

const mv_lb *memviewer_lb(const mv_result *r, int64_t id)
{
    if (r->lb_dense) {
        uint64_t i = (uint64_t)id - (uint64_t)r->lb_dense_min;
        return i < r->nlb_dense ? r->lb_dense[i] : NULL;
    }
    uint32_t lo = 0, hi = r->nlbs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->lbs_by_id[mid]->proto->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nlbs && r->lbs_by_id[lo]->proto->id == id ? r->lbs_by_id[lo] : NULL;
}

static mv_lb *lb_get(const mv_result *r, int64_t id)
{
    return (mv_lb *)memviewer_lb(r, id);
}

static int64_t lb_inc(mv_lb *b)
{
    return b->canonical ? lb_inc(b->canonical) : ++b->ref_count;
}
static int64_t lb_dec(mv_lb *b)
{
    return b->canonical ? lb_dec(b->canonical) : --b->ref_count;
}
static mv_lb *lb_root(mv_lb *b)
{
    while (b->canonical)
        b = b->canonical;
    return b;
}

/* Growable int64 vector over malloc (freed at the end of the replay). */
typedef struct ivec {
    int64_t *v;
    size_t n, cap;
} ivec;

static int ivec_push(ivec *x, int64_t a)
{
    if (x->n == x->cap) {
        size_t nc = x->cap ? 2 * x->cap : 64;
        int64_t *nv = pq_realloc_array(x->v, nc, sizeof *nv);
        if (!nv)
            return 0;
        x->v = nv;
        x->cap = nc;
    }
    x->v[x->n++] = a;
    return 1;
}

static int ivec_copy(ivec *dst, const ivec *src)
{
    dst->n = 0;
    for (size_t i = 0; i < src->n; i++)
        if (!ivec_push(dst, src->v[i]))
            return 0;
    return 1;
}

typedef struct sim {
    mv_result *r;
    arena *a;
    int64_t heap, unpadded, peak, peak_unpadded, peak_pos;
    ivec live, peak_live;
    ivec c2d, peak_c2d; /* pairs: root id, display id */
    uint32_t k, nevents;
    int nomem;
} sim;

static void increase(sim *s, mv_lb *b, int init_span)
{
    if (!ivec_push(&s->live, b->proto->id))
        s->nomem = 1;
    s->heap += b->proto->size;
    s->unpadded += b->unpadded;
    if (s->heap > s->peak) {
        s->peak = s->heap;
        s->peak_pos = s->k;
        s->peak_unpadded = s->unpadded;
        if (!ivec_copy(&s->peak_live, &s->live) || !ivec_copy(&s->peak_c2d, &s->c2d))
            s->nomem = 1;
    }
    if (init_span) {
        b->has_span = 1;
        b->span_start = s->k;
        b->span_end = (int64_t)s->nevents - 1;
    }
}

static int decrease(sim *s, mv_lb *c, const char **what)
{
    /* std::list::remove: every occurrence; nothing is moved before the first (most frees
     * are of a recent buffer, near the end) */
    int64_t id = c->proto->id, *v = s->live.v;
    size_t n = s->live.n, i = 0;
    while (i < n && v[i] != id)
        i++;
    size_t j = i;
    for (; i < n; i++)
        if (v[i] != id)
            v[j++] = v[i];
    s->live.n = j;
    s->heap -= c->proto->size;
    if (s->heap < 0) {
        *what = "Failed to process heap simulator trace: Heap size should be non-negative";
        return 0;
    }
    s->unpadded -= c->unpadded;
    /* The end of a span is written once: a canonical buffer whose memory a sharer reused
     * keeps the end of its first life, and the sharer's span is closed by its own FREE.
     * The spec's text (always overwrite) differs; XProf 2.24.2, the conformance peer,
     * behaves this way on h100 jit_train_step (buffers 526, 5904, 616). */
    if (c->has_span && c->span_end == (int64_t)s->nevents - 1)
        c->span_end = s->k;
    return 1;
}

static void c2d_set(sim *s, int64_t root, int64_t display)
{
    for (size_t i = 0; i + 1 < s->c2d.n; i += 2)
        if (s->c2d.v[i] == root) {
            s->c2d.v[i + 1] = display;
            return;
        }
    if (!ivec_push(&s->c2d, root) || !ivec_push(&s->c2d, display))
        s->nomem = 1;
}

static int64_t trace_id(const mv_result *r, const mv_alloc_list *al, const int64_t *alloc_trace)
{
    for (uint32_t i = 0; i < al->n; i++)
        if (al->items[i]->color == r->memory_color && !memviewer_indefinite(al->items[i]) &&
            alloc_trace[i] >= 0)
            return alloc_trace[i];
    const hlo_module *m = r->module;
    int64_t best = -1, best_count = 0;
    for (uint32_t t = 0; t < m->ntraces; t++) {
        int64_t cnt = 0;
        for (uint32_t e = 0; e < m->traces[t].nevents; e++) {
            const mv_lb *b = memviewer_lb(r, m->traces[t].events[e].buffer_id);
            cnt += b && b->proto->color == r->memory_color;
        }
        if (cnt > best_count) {
            best = t;
            best_count = cnt;
        }
    }
    return best;
}

static int replay(sim *s, const hlo_heap_trace *tr, const char **what)
{
    mv_result *r = s->r;
    uint32_t n = tr->nevents;
    s->nevents = n;
    r->ntimeline = n + 1;
    r->heap_bytes = arena_alloc(s->a, (size_t)(n + 1) * sizeof *r->heap_bytes);
    r->unpadded_bytes = arena_alloc(s->a, (size_t)(n + 1) * sizeof *r->unpadded_bytes);
    r->instruction_names = arena_alloc(s->a, (size_t)(n + 1) * sizeof *r->instruction_names);
    if (!r->heap_bytes || !r->unpadded_bytes || !r->instruction_names)
        return s->nomem = 1, 0;
    const hlo_allocation *seen_alloc = NULL;
    int seen_allocs = 0;
    for (uint32_t k = 0; k < n; k++) {
        const hlo_heap_event *e = &tr->events[k];
        s->k = k;
        r->heap_bytes[k] = s->heap;
        r->unpadded_bytes[k] = s->unpadded;
        r->instruction_names[k] = e->instruction_name;
        mv_lb *b = lb_get(r, e->buffer_id);
        if (!b)
            continue;
        b->seen = 1;
        if (b->alloc != seen_alloc) {
            /* Distinct allocations seen: pointers to the proto, as XProf's set. */
            if (!seen_alloc)
                seen_alloc = b->alloc, seen_allocs = 1;
            else
                seen_allocs = 2;
        }
        if (e->kind == HLO_EV_ALLOC) {
            lb_inc(b);
            increase(s, b, 1);
        } else if (e->kind == HLO_EV_FREE) {
            int64_t rc = lb_dec(b);
            if (rc < 0) {
                *what = "Failed to process heap simulator trace: a buffer is freed multiple "
                        "times";
                return 0;
            }
            if (rc == 0 && !decrease(s, lb_root(b), what))
                return 0;
            if (b->has_span && b->canonical)
                b->span_end = k;
        } else if (e->kind == HLO_EV_SHARE_WITH) {
            mv_lb *c = lb_get(r, e->share_with_canonical_id);
            if (!c)
                continue;
            const mv_lb *x = c; /* B in C's chain would close a cycle: refused, not walked */
            while (x && x != b)
                x = x->canonical;
            if (x) {
                *what = "Failed to process heap simulator trace: a buffer shares its memory "
                        "with itself (a cycle of share-with events)";
                return 0;
            }
            b->canonical = c;
            if (lb_inc(c) == 1) {
                mv_lb *rc = lb_root(c);
                c2d_set(s, rc->proto->id, b->proto->id);
                b->has_span = 1;
                b->span_start = k;
                b->span_end = (int64_t)n - 1;
                increase(s, rc, 0);
            }
        } else {
            *what = "Failed to process heap simulator trace: Unhandled event kind";
            return 0;
        }
        if (s->nomem)
            return 0;
    }
    r->heap_bytes[n] = s->heap;
    r->unpadded_bytes[n] = s->unpadded;
    r->instruction_names[n] = (pq_str){"", 0};
    if (seen_allocs != 1) {
        *what = "Failed to process heap simulator trace: All heap simulation should work out "
                "of a single buffer allocation";
        return 0;
    }
    r->peak_bytes = s->peak;
    r->peak_unpadded_bytes = s->peak_unpadded;
    r->peak_position = s->peak_pos;
    return 1;
}

static int add_object(mv_result *r, arena *a, const mv_lb *b, int64_t *small, int32_t *colorno,
                      uint32_t *cap)
{
    if (b->proto->size < SMALL_BUFFER_BYTES) {
        *small += b->proto->size;
        return 1;
    }
    if (r->nobjects == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 64;
        mv_object *no = arena_alloc(a, nc * sizeof *no);
        if (!no)
            return 0;
        if (r->nobjects)
            memcpy(no, r->objects, r->nobjects * sizeof *no);
        r->objects = no;
        *cap = nc;
    }
    r->objects[r->nobjects++] = (mv_object){(*colorno)++, b, b->proto->size};
    return 1;
}

static int cmp_by_size(const void *a, const void *b, void *ctx)
{
    const mv_object *o = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (o[x].size_bytes != o[y].size_bytes)
        return o[x].size_bytes > o[y].size_bytes ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Object indexes by size, largest first, stably (core/sort.h). */
static int sort_by_size(mv_result *r, arena *a)
{
    uint32_t n = r->nobjects;
    uint32_t *v = arena_alloc(a, (n ? n : 1) * sizeof *v);
    if (!v)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        v[i] = i;
    if (pq_sort(v, n, sizeof *v, cmp_by_size, r->objects) != 0)
        return 0;
    r->by_size = v;
    r->to_by_size = arena_alloc(a, (n ? n : 1) * sizeof *r->to_by_size);
    if (!r->to_by_size)
        return 0;
    for (uint32_t j = 0; j < n; j++)
        r->to_by_size[v[j]] = j;
    return 1;
}

/* Shapes of a module from hlo_decode_lazy: the tuple elements of each instruction's shape
 * are listed once (a while loop's tuple holds hundreds of buffers), then the one element a
 * buffer names is printed and sized once per distinct serialized shape (the same shapes
 * repeat over many buffers): straight from its bytes when it has a common form
 * (hlo_shape_print_bytes; shape NULL), else decoded first. */
typedef struct shape_memo {
    pq_str bytes;
    int depth;
    const hlo_shape *shape;
    const char *str;
    int64_t unpadded;
} shape_memo;

typedef struct lazy_shapes {
    const hlo_module *m;
    const uint8_t *base;
    arena *a;
    struct shape_elems {
        pq_str *v;
        uint32_t n;
    } * elems; /* the tuple elements of the instructions listed so far */
    size_t nelems, elems_cap;
    pairmap elems_ix; /* (hlo_instruction_ref.slot, 0) -> index in elems */
    shape_memo *memo; /* memo_n of memo_max distinct shapes */
    size_t memo_n, memo_max;
    pq_hmap memo_map; /* (depth, serialized bytes) -> memo index */
    buf text;
} lazy_shapes;

/* A shape looked up in the memo. */
typedef struct shape_memo_key {
    const shape_memo *memo;
    pq_str bytes;
    int depth;
} shape_memo_key;

static int memo_same(void *ctx, uint32_t v)
{
    const shape_memo_key *k = ctx;
    const shape_memo *mo = &k->memo[v];
    return mo->depth == k->depth && mo->bytes.n == k->bytes.n &&
           (k->bytes.n == 0 || memcmp(mo->bytes.p, k->bytes.p, k->bytes.n) == 0);
}

static int lazy_init(lazy_shapes *lz, const hlo_module *m, const uint8_t *base, arena *a,
                     size_t nshapes)
{
    memset(lz, 0, sizeof *lz);
    lz->m = m, lz->base = base, lz->a = a;
    buf_init(&lz->text, NULL);
    if (!m->lazy_shapes)
        return 1;
    /* The tuple elements are found through elems_ix, not an array by slot (all 7,757
     * instructions of the H100 module, 275 of which have elements looked up: 31 pages of
     * cleared heap a process). The memo (1,732 entries, 211 used, 83 KB) is in the arena:
     * in a fresh process the rest of the first 2 MiB page, faulted in already, where heap
     * memory would be new pages (the arena zeroes it only when reused; entries are written
     * before they are read) */
    lz->memo_max = nshapes < 8 ? 8 : nshapes;
    lz->memo = arena_alloc(a, lz->memo_max * sizeof *lz->memo);
    return lz->memo && pq_hmap_reserve(&lz->memo_map, lz->memo_max) == 0;
}

static void lazy_release(lazy_shapes *lz)
{
    pq_free(lz->elems);
    pairmap_free(&lz->elems_ix);
    pq_hmap_free(&lz->memo_map);
    buf_release(&lz->text);
}

/* The shape of instruction REF resolved by the last shape index LAST (-1: none), as in
 * step 1, into B: shape, shape_string and unpadded size. */
static pq_status lazy_shape(lazy_shapes *lz, const hlo_instruction_ref *ref, int64_t last, mv_lb *b,
                            int64_t *err_offset, const char **what)
{
    pq_str bytes = ref->decoded->shape_bytes;
    int depth = 0;
    pq_status st;
    if (last >= 0) {
        int fresh;
        uint32_t *ix = pairmap_slot(&lz->elems_ix, ref->slot, 0, &fresh);
        if (!ix)
            return PQ_ERR_NOMEM;
        if (fresh) {
            if (lz->nelems == lz->elems_cap) {
                size_t cap = lz->elems_cap ? 2 * lz->elems_cap : 64;
                struct shape_elems *g = pq_realloc_array(lz->elems, cap, sizeof *g);
                if (!g)
                    return PQ_ERR_NOMEM;
                lz->elems = g;
                lz->elems_cap = cap;
            }
            struct shape_elems *e = &lz->elems[lz->nelems];
            *e = (struct shape_elems){NULL, 0};
            st = hlo_shape_elements(bytes, lz->base, lz->a, &e->v, &e->n, err_offset, what);
            if (st != PQ_OK)
                return st;
            *ix = (uint32_t)lz->nelems++;
        }
        const struct shape_elems *e = &lz->elems[*ix];
        if (last < (int64_t)e->n) {
            bytes = e->v[last];
            depth = 1;
        }
    }
    uint64_t h = 14695981039346656037ull ^ (uint64_t)depth ^ bytes.n; /* eight bytes a step */
    size_t i = 0;
    for (; i + 8 <= bytes.n; i += 8) {
        uint64_t x;
        memcpy(&x, bytes.p + i, 8);
        h = (h ^ x) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (; i < bytes.n; i++)
        h = (h ^ (uint8_t)bytes.p[i]) * 1099511628211ull;
    shape_memo_key k = {lz->memo, bytes, depth};
    size_t slot = pq_hmap_probe(&lz->memo_map, h, memo_same, &k);
    shape_memo *mo;
    if (pq_hmap_found(&lz->memo_map, slot)) {
        mo = &lz->memo[pq_hmap_value(&lz->memo_map, slot)];
    } else {
        if (lz->memo_n >= lz->memo_max)
            return PQ_ERR_NOMEM; /* sized for every buffer: not reached */
        hlo_shape *sh = NULL;
        int64_t unpadded = 0;
        lz->text.n = 0;
        /* the common forms printed from their bytes (no hlo_shape built), others decoded */
        if (!hlo_shape_print_bytes(&lz->text, bytes, depth, &unpadded)) {
            st = hlo_decode_shape(bytes, lz->base, depth, lz->a, &sh, err_offset, what);
            if (st != PQ_OK)
                return st;
            hlo_shape_print(&lz->text, sh);
            unpadded = hlo_shape_unpadded_bytes(sh);
        }
        char *str = arena_strndup(lz->a, lz->text.p ? lz->text.p : "", lz->text.n);
        if (!str || lz->text.status != PQ_OK)
            return PQ_ERR_NOMEM;
        mo = &lz->memo[lz->memo_n];
        *mo = (shape_memo){bytes, depth, sh, str, unpadded};
        pq_hmap_put(&lz->memo_map, slot, h, (uint32_t)lz->memo_n++);
    }
    b->shape = mo->shape;
    b->shape_string = mo->str;
    b->unpadded = mo->unpadded;
    return PQ_OK;
}

/* One logical buffer struct per assigned entry whose buffer and instruction exist, in
 * LBS, with (id, position) in TMP; allocations replaced by a later duplicate index
 * (SLOT_OF[i] == NSLOTS) are skipped. *NL: how many. Lazily decoded modules get their
 * instructions and shapes decoded here (PQ_ERR_INPUT with the offset when malformed). */
static pq_status index_buffers(const hlo_module *m, arena *a, lazy_shapes *lz,
                               const uint32_t *slot_of, uint32_t nslots, mv_lb *lbs,
                               hlo_id_seq *tmp, uint32_t *nl_out, int64_t *err_offset,
                               const char **what)
{
    uint32_t nl = 0;
    for (uint32_t i = 0; i < m->nallocations; i++) {
        const hlo_allocation *x = &m->allocations[i];
        /* the struct points at the allocation kept for this index */
        if (slot_of[i] == nslots)
            continue; /* a replaced duplicate: XProf's map holds only the last one */
        for (uint32_t q = 0; q < x->nassigned; q++) {
            const hlo_logical_buffer *p =
                hlo_logical_buffer_by_id(m, x->assigned[q].logical_buffer_id);
            if (!p)
                continue;
            const hlo_instruction *ins = NULL;
            hlo_instruction_ref *ref = NULL;
            if (m->lazy_shapes) {
                pq_status ss =
                    hlo_instruction_lazy(m, p->instruction_id, a, &ref, err_offset, what);
                if (ss != PQ_OK)
                    return ss;
                ins = ref ? ref->decoded : NULL;
            } else {
                ins = hlo_instruction_by_id(m, p->instruction_id);
            }
            if (!ins)
                continue;
            mv_lb *b = &lbs[nl];
            memset(b, 0, sizeof *b);
            b->proto = p;
            b->alloc = x;
            b->instr = ins;
            b->offset = x->assigned[q].offset;
            int64_t last = p->nshape_index ? p->shape_index[p->nshape_index - 1] : -1;
            if (m->lazy_shapes) {
                pq_status ss = lazy_shape(lz, ref, last, b, err_offset, what);
                if (ss != PQ_OK)
                    return ss;
            } else {
                b->shape = &ins->shape;
                if (last >= 0 && last < (int64_t)ins->shape.ntuple)
                    b->shape = &ins->shape.tuple[last];
                b->unpadded = hlo_shape_unpadded_bytes(b->shape);
            }
            tmp[nl] = (hlo_id_seq){p->id, nl, b};
            nl++;
        }
    }
    *nl_out = nl;
    return PQ_OK;
}

/* The logical buffer structs of TMP (NL, sorted by id, unique) copied in id order into one
 * array (so a struct's offset indexes per-buffer tables), the id lookups of R, and each
 * shape string not printed yet (TEXT: scratch). Returns the array, NULL when out of memory. */
static mv_lb *sort_buffers(mv_result *r, arena *a, const hlo_id_seq *tmp, uint32_t nl, buf *text)
{
    r->lbs_by_id = arena_alloc(a, (nl ? nl : 1) * sizeof *r->lbs_by_id);
    if (!r->lbs_by_id)
        return NULL;
    /* Keep the structs in id order in one array, so color_of_lb can be indexed by offset. */
    mv_lb *sorted = arena_alloc(a, (nl ? nl : 1) * sizeof *sorted);
    if (!sorted)
        return NULL;
    for (uint32_t i = 0; i < nl; i++) {
        sorted[i] = *(mv_lb *)tmp[i].p;
        r->lbs_by_id[i] = &sorted[i];
    }
    r->nlbs = nl;
    /* Logical buffer ids are mostly 0..N-1: then a table finds them by id. */
    if (nl) {
        uint64_t span = (uint64_t)sorted[nl - 1].proto->id - (uint64_t)sorted[0].proto->id + 1;
        if (span <= 4 * (uint64_t)nl + 64 &&
            (r->lb_dense = arena_alloc(a, span * sizeof(mv_lb *)))) {
            r->lb_dense_min = sorted[0].proto->id;
            r->nlb_dense = span;
            for (uint32_t i = 0; i < nl; i++)
                r->lb_dense[(uint64_t)sorted[i].proto->id - (uint64_t)r->lb_dense_min] = &sorted[i];
        }
    }
    for (uint32_t i = 0; i < nl; i++) {
        if (sorted[i].shape_string)
            continue; /* printed by lazy_shape */
        text->n = 0;
        hlo_shape_print(text, sorted[i].shape);
        sorted[i].shape_string = arena_strndup(a, text->p ? text->p : "", text->n);
        if (!sorted[i].shape_string || text->status != PQ_OK)
            return NULL;
    }
    return sorted;
}

/* The peak snapshot (maxHeap): the largest buffer of each indefinite allocation (heap
 * objects for color 0 only), then the buffers live at the peak, buffers under 16 KiB in one
 * small object; then the by-size order. 0 when out of memory. */
static int peak_snapshot(mv_result *r, arena *a, const mv_alloc_list *al, const sim *s)
{
    int64_t small = 0;
    int32_t colorno = 0;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < al->n; i++) {
        const hlo_allocation *x = al->items[i];
        if (x->color != r->memory_color || !memviewer_indefinite(x))
            continue;
        const mv_lb *best = NULL;
        int64_t best_size = 0;
        for (uint32_t q = 0; q < x->nassigned; q++) {
            const mv_lb *b = memviewer_lb(r, x->assigned[q].logical_buffer_id);
            if (b && (uint64_t)b->proto->size > (uint64_t)best_size) {
                best_size = b->proto->size;
                best = b;
            }
        }
        if (!best)
            continue;
        r->indefinite_bytes += x->size;
        if (r->memory_color == 0 && !add_object(r, a, best, &small, &colorno, &cap))
            return 0;
    }
    for (size_t i = 0; i < s->peak_live.n; i++) {
        int64_t id = s->peak_live.v[i];
        for (size_t j = 0; j + 1 < s->peak_c2d.n; j += 2)
            if (s->peak_c2d.v[j] == id) {
                id = s->peak_c2d.v[j + 1];
                break;
            }
        const mv_lb *b = memviewer_lb(r, id);
        if (!b) {
            small = 0; /* XProf returns here: no small aggregate either */
            break;
        }
        if (!add_object(r, a, b, &small, &colorno, &cap))
            return 0;
    }
    if (small) {
        mv_object o = {colorno++, NULL, small};
        if (r->nobjects == cap) {
            mv_object *no = arena_alloc(a, (cap + 1) * sizeof *no);
            if (!no)
                return 0;
            if (r->nobjects)
                memcpy(no, r->objects, r->nobjects * sizeof *no);
            r->objects = no;
        }
        r->objects[r->nobjects++] = o;
    }
    return sort_by_size(r, a);
}

/* *SUM += V; 0 when the sum leaves int64 (a corrupt size: fuzz_hlo's 2^63 - 16 KiB). */
static int add_bytes(int64_t *sum, int64_t v)
{
    return !__builtin_add_overflow(*sum, v, sum);
}

/* The special allocations of the color: indefinite ones (in index order) and the sums of
 * entry parameters, non-reusable, maybe-live-out, total and indefinite bytes. 1, or 0 when
 * out of memory, -1 when a sum does not fit in 64 bits (*WHAT says so). */
static int special_allocations(mv_result *r, arena *a, const mv_alloc_list *al, const char **what)
{
    const hlo_module *m = r->module;
    r->indefinite = arena_alloc(a, (al->n ? al->n : 1) * sizeof *r->indefinite);
    if (!r->indefinite)
        return 0;
    int ok = 1;
    for (uint32_t i = 0; i < al->n; i++) {
        const hlo_allocation *x = al->items[i];
        if (x->color != r->memory_color)
            continue;
        if (x->is_entry_computation_parameter)
            ok &= add_bytes(&r->entry_params_bytes, x->size);
        if (x->is_thread_local || x->is_tuple)
            ok &= add_bytes(&r->non_reusable_bytes, x->size);
        if (x->maybe_live_out)
            ok &= add_bytes(&r->maybe_live_out_bytes, x->size);
        if (memviewer_indefinite(x))
            r->indefinite[r->nindefinite++] = x;
    }
    /* xla::ComputeTotalAllocationBytes / ComputeIndefiniteAllocationsInBytes walk the
     * proto's list itself, duplicates included. */
    for (uint32_t i = 0; i < m->nallocations; i++) {
        const hlo_allocation *x = &m->allocations[i];
        if (x->color != r->memory_color || x->is_thread_local)
            continue;
        ok &= add_bytes(&r->total_bytes, x->size);
        if (memviewer_indefinite(x))
            ok &= add_bytes(&r->indefinite_alloc_bytes, x->size);
    }
    if (!ok)
        *what = "buffer allocation sizes that sum past 2^63 - 1 bytes (expected sums that "
                "fit in 64 bits)";
    return ok ? 1 : -1;
}

/* The largest scoped VMEM allocation of the color from every instruction's backend_config
 * (color 1 only, spec 3.6); decodes each instruction of a lazily decoded module. */
static pq_status scoped_vmem(mv_result *r, arena *a, int64_t *err_offset, const char **what)
{
    const hlo_module *m = r->module;
    for (uint32_t c = 0; c < m->ncomputations; c++)
        for (uint32_t i = 0; i < m->computations[c].ninstructions; i++) {
            const hlo_instruction *ins = NULL;
            if (m->lazy_shapes) {
                hlo_instruction_ref *ref = &m->computations[c].refs[i];
                pq_status ss = hlo_instruction_decode(m, ref, a, err_offset, what);
                if (ss != PQ_OK)
                    return ss;
                ins = ref->decoded;
            } else {
                ins = &m->computations[c].instructions[i];
            }
            if (ins->backend_config.n)
                memviewer_scoped_vmem(
                    ins->backend_config.p, ins->backend_config.p + ins->backend_config.n,
                    r->memory_color, &r->max_scoped_bytes, ins->name, &r->max_scoped_instruction);
        }
    return PQ_OK;
}

pq_status memviewer_compute(const hlo_module *m, int64_t memory_color, arena *a, mv_result **out,
                            const char **what)
{
    int64_t off;
    return memviewer_compute_lazy(m, NULL, memory_color, a, out, what, &off);
}

pq_status memviewer_compute_lazy(const hlo_module *m, const uint8_t *base, int64_t memory_color,
                                 arena *a, mv_result **out, const char **what, int64_t *err_offset)
{
    *out = NULL;
    *what = NULL;
    *err_offset = -1;
    lazy_shapes lz;
    size_t nshapes = 0;
    for (uint32_t i = 0; i < m->nallocations; i++)
        nshapes += m->allocations[i].nassigned;
    if (!lazy_init(&lz, m, base, a, nshapes)) {
        lazy_release(&lz);
        *what = "out of memory";
        return PQ_ERR_NOMEM;
    }
    pq_status st = PQ_ERR_NOMEM;
    hlo_id_seq *tmp = NULL;
    int64_t *alloc_trace = NULL;
    uint32_t *slot_of = NULL; /* by allocation: its slot in al, al.n for a replaced one */
    int32_t *color_of_lb = NULL;
    sim s;
    memset(&s, 0, sizeof s);
    mv_result *r = arena_alloc(a, sizeof *r);
    if (!r)
        return PQ_ERR_NOMEM;
    r->module = m;
    r->memory_color = memory_color;
    s.r = r;
    s.a = a;

    /* Allocations by ascending index, the last of a duplicated index kept. */
    uint32_t nmax = m->nallocations;
    size_t nassigned = 0;
    for (uint32_t i = 0; i < m->nallocations; i++)
        nassigned += m->allocations[i].nassigned;
    if (nassigned > nmax)
        nmax = (uint32_t)(nassigned > UINT32_MAX ? UINT32_MAX : nassigned);
    /* the sort's scratch (83 KB on the H100) in the arena, as the memo (lazy_init): kept
     * until the result is freed, 2 * 24 bytes an allocation or assigned buffer */
    tmp = arena_alloc(a, 2 * (size_t)(nmax ? nmax : 1) * sizeof *tmp);
    if (!tmp)
        goto out;
    for (uint32_t i = 0; i < m->nallocations; i++)
        tmp[i] = (hlo_id_seq){m->allocations[i].index, i, &m->allocations[i]};
    mv_alloc_list al;
    al.n = sort_unique_last(tmp, tmp + nmax, m->nallocations);
    al.items = arena_alloc(a, (al.n ? al.n : 1) * sizeof *al.items);
    alloc_trace = pq_malloc_array(al.n ? al.n : 1, sizeof *alloc_trace);
    slot_of = pq_malloc_array(m->nallocations ? m->nallocations : 1, sizeof *slot_of);
    if (!al.items || !alloc_trace || !slot_of)
        goto out;
    for (uint32_t i = 0; i < m->nallocations; i++)
        slot_of[i] = al.n;
    for (uint32_t i = 0; i < al.n; i++) {
        al.items[i] = tmp[i].p;
        alloc_trace[i] = -1;
        slot_of[al.items[i] - m->allocations] = i;
    }

    /* Logical buffer structs: one per assigned entry whose buffer and instruction exist;
     * the last struct of an id wins (XProf's map). */
    mv_lb *lbs = arena_alloc(a, (nassigned ? nassigned : 1) * sizeof *lbs);
    if (!lbs)
        goto out;
    uint32_t nl = 0;
    st = index_buffers(m, a, &lz, slot_of, al.n, lbs, tmp, &nl, err_offset, what);
    if (st != PQ_OK)
        goto out;
    st = PQ_ERR_NOMEM;
    nl = sort_unique_last(tmp, tmp + nmax, nl);
    mv_lb *sorted = sort_buffers(r, a, tmp, nl, &lz.text);
    if (!sorted)
        goto out;

    /* Trace -> allocation, by the allocation of each trace's first event. */
    for (uint32_t t = 0; t < m->ntraces; t++) {
        if (!m->traces[t].nevents)
            continue;
        const mv_lb *b = memviewer_lb(r, m->traces[t].events[0].buffer_id);
        if (!b)
            continue;
        uint32_t q = slot_of[b->alloc - m->allocations];
        if (q < al.n)
            alloc_trace[q] = t;
    }

    int64_t tid = trace_id(r, &al, alloc_trace);
    if (tid >= 0 && tid < (int64_t)m->ntraces) {
        if (!replay(&s, &m->traces[tid], what)) {
            st = s.nomem ? PQ_ERR_NOMEM : PQ_ERR_INPUT;
            goto out;
        }
    }

    if (!peak_snapshot(r, a, &al, &s))
        goto out;

    /* Spans of the buffers the trace touched, by ascending id. */
    r->spans = arena_alloc(a, (nl ? nl : 1) * sizeof *r->spans);
    if (!r->spans)
        goto out;
    for (uint32_t i = 0; i < nl; i++)
        if (sorted[i].seen && sorted[i].has_span)
            r->spans[r->nspans++] = &sorted[i];

    int sp = special_allocations(r, a, &al, what);
    if (sp <= 0) {
        st = sp < 0 ? PQ_ERR_INPUT : PQ_ERR_NOMEM;
        goto out;
    }

    if (memory_color == 1) {
        st = scoped_vmem(r, a, err_offset, what);
        if (st != PQ_OK)
            goto out;
        st = PQ_ERR_NOMEM;
    }

    /* Peak colors by logical buffer (for the blocks). */
    color_of_lb = pq_malloc_array(nl ? nl : 1, sizeof *color_of_lb);
    if (!color_of_lb)
        goto out;
    for (uint32_t i = 0; i < nl; i++)
        color_of_lb[i] = -1;
    for (uint32_t i = 0; i < r->nobjects; i++)
        if (r->objects[i].lb)
            color_of_lb[r->objects[i].lb - sorted] = r->objects[i].color;
    if (!memviewer_layout_blocks(r, a, &al, alloc_trace, color_of_lb))
        goto out;

    *out = r;
    st = PQ_OK;
out:
    pq_free(alloc_trace);
    pq_free(slot_of);
    pq_free(color_of_lb);
    lazy_release(&lz);
    pq_free(s.live.v);
    pq_free(s.peak_live.v);
    pq_free(s.c2d.v);
    pq_free(s.peak_c2d.v);
    if (st == PQ_ERR_NOMEM && !*what)
        *what = "out of memory";
    if (st != PQ_ERR_INPUT || !*what)
        *err_offset = -1;
    return st;
}
