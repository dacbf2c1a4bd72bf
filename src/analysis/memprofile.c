/* memprofile.c - XProf's memory_profile (spec/xprof-tools.md section 4) over one XSpace.
 * Not here: XProf's step grouping preprocessing (events keep the group_id stats the file
 * has; without one a snapshot takes the last valid step + 1), and printing
 * (render/memprofile.c). Where XProf sorts without stability, profq sorts stably.
 * pq_memory_profile_compute: one result per source of a profile. */
#include "memprofile.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/sort.h"
#include "formats/xplane_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *memprofile_dtype_name(int64_t t, char tmp[32])
{
    static const char *const N[] = {
        "INVALID",   "float",  "double",     "int32", "uint8",    "int16",   "int8",     "string",
        "complex64", "int64",  "bool",       "qint8", "quint8",   "qint32",  "bfloat16", "qint16",
        "quint16",   "uint16", "complex128", "half",  "resource", "variant", "uint32",   "uint64"};
    int ref = t > 100;
    int64_t b = ref ? t - 100 : t;
    if (b < 0 || b >= (int64_t)(sizeof N / sizeof N[0]))
        return "INVALID";
    if (!ref)
        return N[b];
    snprintf(tmp, 32, "%s_ref", N[b]);
    return tmp;
}

typedef struct vec {
    mp_snapshot *v;
    uint32_t n, cap;
    char id[64];
    int64_t peak_lifetime, peak_time, capacity;
    mp_stats peak;
    int peak_set;
} vec;

static int push(vec *x, const mp_snapshot *s)
{
    if (x->n == x->cap) {
        uint32_t nc = x->cap ? x->cap * 2 : 64;
        mp_snapshot *nv = pq_realloc_array(x->v, nc, sizeof *nv);
        if (!nv)
            return 0;
        x->v = nv;
        x->cap = nc;
    }
    x->v[x->n++] = *s;
    return 1;
}

static int cmp_time(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const mp_snapshot *x = a, *y = b;
    if (x->time_ps != y->time_ps)
        return x->time_ps < y->time_ps ? -1 : 1;
    return 0;
}

/* Stable (core/sort.h): by time. */
static int sort_time(mp_snapshot *v, uint32_t n)
{
    return pq_sort(v, n, sizeof *v, cmp_time, NULL) == 0;
}

static int pq_str_cmp(pq_str a, pq_str b)
{
    size_t n = a.n < b.n ? a.n : b.n;
    int c = n ? memcmp(a.p, b.p, n) : 0;
    return c ? c : (a.n < b.n ? -1 : a.n > b.n);
}

typedef struct act {
    int64_t index; /* snapshot index, or -1, -2 for specials */
    const mp_snapshot *m;
} act;

static int cmp_act(const void *a, const void *b)
{
    const mp_snapshot *x = ((const act *)a)->m, *y = ((const act *)b)->m;
    if (x->allocation != y->allocation)
        return x->allocation > y->allocation ? -1 : 1;
    if (x->requested != y->requested)
        return x->requested > y->requested ? -1 : 1;
    int c = pq_str_cmp(x->tf_op, y->tf_op);
    if (c)
        return c;
    if ((c = pq_str_cmp(x->region_type, y->region_type)))
        return c;
    char t1[32], t2[32];
    const char *d1 =
        x->data_type_name ? x->data_type_name : memprofile_dtype_name(x->data_type, t1);
    const char *d2 =
        y->data_type_name ? y->data_type_name : memprofile_dtype_name(y->data_type, t2);
    if ((c = strcmp(d1, d2)))
        return c;
    if ((c = pq_str_cmp(x->tensor_shape, y->tensor_shape)))
        return c;
    int64_t i = ((const act *)a)->index, j = ((const act *)b)->index;
    return i < j ? -1 : i > j;
}

/* XProf's sampled timeline: every snapshot when there are at most 1000, else 1000 windows
 * of n/1000 or n/1000 + 1 snapshots, each represented by its largest heap + stack. */
static pq_status sample_timeline(mp_allocator *o, arena *a, const mp_snapshot *v, uint32_t n)
{
    if (n <= 1000) {
        o->sampled = arena_alloc(a, (n ? n : 1) * sizeof *o->sampled);
        if (!o->sampled)
            return PQ_ERR_NOMEM;
        memcpy(o->sampled, v, n * sizeof *v);
        o->nsampled = n;
    } else {
        uint32_t w = n / 1000, c1 = 1000 * (w + 1) - n, c2 = 1000 - c1;
        o->sampled = arena_alloc(a, 1000 * sizeof *o->sampled);
        if (!o->sampled)
            return PQ_ERR_NOMEM;
        uint32_t pos = 0;
        for (uint32_t k = 0; k < c1 + c2; k++) {
            uint32_t width = k < c1 ? w : w + 1;
            uint32_t best = pos;
            for (uint32_t q = pos; q < pos + width && q < n; q++)
                if (v[q].s.heap_allocated + v[q].s.stack_reserved >
                    v[best].s.heap_allocated + v[best].s.stack_reserved)
                    best = q;
            o->sampled[o->nsampled++] = v[best];
            pos += width;
        }
    }
    return PQ_OK;
}

/* One special allocation of the peak (unused preallocated memory, the stack). */
static void add_special(mp_allocator *o, int64_t bytes, pq_str tf_op, pq_str region, int64_t step)
{
    mp_snapshot *s = &o->special[o->nspecial++];
    memset(s, 0, sizeof *s);
    s->activity = 1;
    s->requested = s->allocation = bytes;
    s->tf_op = tf_op;
    s->step_id = step;
    s->region_type = region;
    s->data_type_name = "INVALID";
    s->tensor_shape = pq_str_of("unknown", 7);
}

/* One allocator's profile from its snapshots X: time order, step ids, deallocation
 * metadata, the sampled timeline, the special and active allocations at the peak. */
static pq_status finish(vec *x, arena *a, mp_allocator *o)
{
    uint32_t n = x->n;
    mp_snapshot *v = x->v;
    o->id = arena_strndup(a, x->id, strlen(x->id));
    o->peak_lifetime = x->peak_lifetime;
    o->peak_time_ps = x->peak_time;
    o->capacity = x->capacity;
    o->peak = x->peak;
    if (!sort_time(v, n))
        return PQ_ERR_NOMEM;
    int64_t last_valid = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].step_id == -1)
            v[i].step_id = last_valid + 1;
        else
            last_valid = v[i].step_id;
    }
    /* Deallocations take the metadata of the latest unmatched allocation at the address. */
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].activity != 2)
            continue;
        for (uint32_t j = i; j-- > 0;) {
            if (v[j].activity == 1 && v[j].address == v[i].address) {
                v[i].tf_op = v[j].tf_op;
                v[i].region_type = v[j].region_type;
                v[i].data_type = v[j].data_type;
                v[i].tensor_shape = v[j].tensor_shape;
                break;
            }
            if (v[j].activity == 2 && v[j].address == v[i].address)
                break; /* that allocation was matched (erased) already */
        }
    }
    if (sample_timeline(o, a, v, n) != PQ_OK)
        return PQ_ERR_NOMEM;
    /* Peak step. */
    int64_t peak_step = 0;
    for (uint32_t i = 0; i < n; i++)
        if (v[i].s.heap_allocated + v[i].s.stack_reserved == o->peak.peak_bytes_in_use)
            peak_step = v[i].step_id;
    /* Active allocations at the peak. */
    act *acts = pq_malloc_array((size_t)n + 2, sizeof *acts);
    uint8_t *live = pq_calloc(n ? n : 1, 1);
    if (!acts || !live) {
        pq_free(acts);
        pq_free(live);
        return PQ_ERR_NOMEM;
    }
    int64_t unmapped = o->peak.heap_allocated, unmapped_dealloc = 0;
    for (uint32_t i = 0; i < n && v[i].time_ps <= o->peak_time_ps; i++) {
        if (v[i].step_id != peak_step)
            continue;
        if (v[i].activity == 1) {
            for (uint32_t j = 0; j < i; j++) /* active[addr] = this one */
                if (live[j] && v[j].address == v[i].address)
                    live[j] = 0;
            live[i] = 1;
            unmapped -= v[i].allocation;
        } else if (v[i].activity == 2) {
            int found = 0;
            for (uint32_t j = 0; j < i; j++)
                if (live[j] && v[j].address == v[i].address) {
                    live[j] = 0;
                    found = 1;
                }
            if (!found)
                unmapped_dealloc += v[i].allocation;
            unmapped += v[i].allocation;
        }
    }
    unmapped -= unmapped_dealloc;
    o->special = arena_alloc(a, 2 * sizeof *o->special);
    if (!o->special) {
        pq_free(acts);
        pq_free(live);
        return PQ_ERR_NOMEM;
    }
    uint32_t na = 0;
    for (uint32_t i = 0; i < n; i++)
        if (live[i])
            acts[na++] = (act){i, &v[i]};
    if (unmapped > 0)
        add_special(o, unmapped, pq_str_of("unused preallocated device memory", 33),
                    pq_str_of("persist/dynamic", 15), peak_step);
    if (o->peak.stack_reserved > 0)
        add_special(o, o->peak.stack_reserved, pq_str_of("stack", 5), pq_str_of("stack", 5),
                    peak_step);
    for (uint32_t k = 0; k < o->nspecial; k++)
        acts[na++] = (act){-(int64_t)k - 1, &o->special[k]};
    qsort(acts, na, sizeof *acts, cmp_act);
    o->active = arena_alloc(a, (na ? na : 1) * sizeof *o->active);
    o->snaps = arena_alloc(a, (na ? na : 1) * sizeof *o->snaps);
    if (!o->active || !o->snaps) {
        pq_free(acts);
        pq_free(live);
        return PQ_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < na; i++) {
        if (o->nactive) {
            act prev = acts[i - 1];
            act cur = acts[i];
            prev.index = cur.index = 0;
            if (cmp_act(&prev, &cur) == 0) {
                o->active[o->nactive - 1].occurrences++;
                continue;
            }
        }
        mp_active *ac = &o->active[o->nactive++];
        if (acts[i].index < 0) {
            ac->snapshot_index = acts[i].index;
            ac->special_index = -acts[i].index - 1;
        } else {
            o->snaps[o->nsnaps] = v[acts[i].index];
            ac->snapshot_index = o->nsnaps++;
            ac->special_index = -1;
        }
        ac->occurrences = 1;
    }
    pq_free(acts);
    pq_free(live);
    return PQ_OK;
}

static int cmp_alloc_id(const void *a, const void *b)
{
    return strcmp(((const vec *)a)->id, ((const vec *)b)->id);
}

/* The stats of one MemoryAllocation/MemoryDeallocation event of the CPU plane into S, and
 * its allocator id (index_on_host, device_ordinal or allocator_name) into ID (64 bytes). */
static void read_snapshot_stats(const xp_plane *cpu, const xp_event *ev, mp_snapshot *s,
                                char id[64])
{
    xp_stat_iter si;
    stat_value sv;
    xp_stats_begin(&si, ev->stats, ev->body_len, 4);
    while (xp_stats_next(&si, &sv)) {
        pq_str name = xp_stat_name(cpu, &sv);
        int64_t iv = sv.kind == STAT_DOUBLE ? (int64_t)sv.v.d : sv.v.i;
        if (pq_str_eq(name, "index_on_host") || pq_str_eq(name, "device_ordinal"))
            snprintf(id, 64, "%lld", (long long)iv);
        else if (pq_str_eq(name, "allocator_name")) {
            pq_str t = xp_stat_str(cpu, &sv);
            snprintf(id, 64, "%.*s", (int)t.n, t.p);
        } else if (pq_str_eq(name, "bytes_reserved"))
            s->s.stack_reserved = iv;
        else if (pq_str_eq(name, "bytes_allocated"))
            s->s.heap_allocated = iv;
        else if (pq_str_eq(name, "bytes_available"))
            s->s.free_memory = iv;
        else if (pq_str_eq(name, "fragmentation"))
            s->s.fragmentation = sv.kind == STAT_DOUBLE ? sv.v.d : (double)iv;
        else if (pq_str_eq(name, "peak_bytes_in_use"))
            s->s.peak_bytes_in_use = iv;
        else if (pq_str_eq(name, "requested_bytes"))
            s->requested = iv;
        else if (pq_str_eq(name, "allocation_bytes"))
            s->allocation = iv;
        else if (pq_str_eq(name, "addr"))
            s->address = sv.v.u;
        else if (pq_str_eq(name, "tf_op"))
            s->tf_op = xp_stat_str(cpu, &sv);
        else if (pq_str_eq(name, "group_id"))
            s->step_id = iv;
        else if (pq_str_eq(name, "region_type"))
            s->region_type = xp_stat_str(cpu, &sv);
        else if (pq_str_eq(name, "data_type"))
            s->data_type = iv;
        else if (pq_str_eq(name, "shape"))
            s->tensor_shape = xp_stat_str(cpu, &sv);
    }
}

pq_status memprofile_compute(const pq_source *src, arena *a, mp_result *out)
{
    memset(out, 0, sizeof *out);
    out->path = src->path;
    out->host = src->info.host;
    const xp_plane *cpu = NULL;
    for (uint32_t i = 0; i < src->nplanes; i++)
        if (pq_str_eq(src->planes[i].name, "/host:CPU"))
            cpu = &src->planes[i];
    pq_status st = PQ_OK;
    vec *vs = NULL;
    uint32_t nv = 0, capv = 0;
    if (cpu) {
        out->has_cpu_plane = 1;
        for (uint32_t l = 0; l < cpu->nlines && st == PQ_OK; l++) {
            xp_event_iter it;
            xp_event ev;
            xp_events_begin(&cpu->lines[l], &it);
            while (st == PQ_OK && xp_events_next(&it, &ev)) {
                const xp_event_meta *em = xp_event_meta_find(cpu, ev.metadata_id);
                if (!em)
                    continue;
                int kind = pq_str_eq(em->name, "MemoryAllocation")     ? 1
                           : pq_str_eq(em->name, "MemoryDeallocation") ? 2
                                                                       : 0;
                if (!kind)
                    continue;
                mp_snapshot s;
                memset(&s, 0, sizeof s);
                s.activity = kind;
                s.time_ps = ev.offset_ps;
                s.step_id = -1;
                char id[64] = "";
                read_snapshot_stats(cpu, &ev, &s, id);
                uint32_t k;
                for (k = 0; k < nv; k++)
                    if (strcmp(vs[k].id, id) == 0)
                        break;
                if (k == nv) {
                    if (nv == capv) {
                        uint32_t nc = capv ? capv * 2 : 8;
                        vec *nvs = pq_realloc_array(vs, nc, sizeof *nvs);
                        if (!nvs) {
                            st = PQ_ERR_NOMEM;
                            break;
                        }
                        vs = nvs;
                        capv = nc;
                    }
                    memset(&vs[nv], 0, sizeof vs[nv]);
                    memcpy(vs[nv].id, id, sizeof id);
                    nv++;
                }
                vec *x = &vs[k];
                x->peak_lifetime = s.s.peak_bytes_in_use;
                int64_t use = s.s.stack_reserved + s.s.heap_allocated;
                if (use >= x->peak.peak_bytes_in_use) {
                    x->peak = s.s;
                    x->peak.peak_bytes_in_use = use;
                    x->peak_time = s.time_ps;
                    x->capacity = use + s.s.free_memory;
                }
                if (!push(x, &s))
                    st = PQ_ERR_NOMEM;
            }
        }
    }
    if (st == PQ_OK && nv) {
        qsort(vs, nv, sizeof *vs, cmp_alloc_id);
        out->allocators = arena_alloc(a, nv * sizeof *out->allocators);
        if (!out->allocators)
            st = PQ_ERR_NOMEM;
        for (uint32_t k = 0; k < nv && st == PQ_OK; k++) {
            memset(&out->allocators[k], 0, sizeof out->allocators[k]);
            st = finish(&vs[k], a, &out->allocators[k]);
            out->nallocators++;
        }
    }
    for (uint32_t k = 0; k < nv; k++)
        pq_free(vs[k].v);
    pq_free(vs);
    if (st != PQ_OK)
        return st;
    /* XLA modules of the TPU planes. */
    uint32_t cap = 0;
    for (uint32_t i = 0; i < src->nplanes; i++)
        if (pq_str_starts(src->planes[i].name, "/device:TPU:"))
            for (uint32_t l = 0; l < src->planes[i].nlines; l++)
                if (pq_str_eq(src->planes[i].lines[l].name, "XLA Modules"))
                    cap += (uint32_t)src->planes[i].lines[l].events;
    out->modules = arena_alloc(a, (cap ? cap : 1) * sizeof *out->modules);
    if (!out->modules)
        return PQ_ERR_NOMEM;
    for (uint32_t i = 0; i < src->nplanes; i++) {
        const xp_plane *pl = &src->planes[i];
        if (!pq_str_starts(pl->name, "/device:TPU:"))
            continue;
        for (uint32_t l = 0; l < pl->nlines; l++) {
            if (!pq_str_eq(pl->lines[l].name, "XLA Modules"))
                continue;
            xp_event_iter it;
            xp_event ev;
            xp_events_begin(&pl->lines[l], &it);
            while (xp_events_next(&it, &ev) && out->nmodules < cap) {
                const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
                mp_module *m = &out->modules[out->nmodules];
                m->name = em ? em->name : pq_str_of("", 0);
                m->plane = pq_str_of(pl->name.p + 8, pl->name.n - 8);
                m->start_ps = ev.offset_ps;
                m->end_ps = ev.offset_ps + ev.duration_ps;
                m->id = out->nmodules++;
            }
        }
    }
    return PQ_OK;
}

/* A computed memory profile with the arena everything is in (the public struct first). */
typedef struct mp_handle {
    pq_memory_profile_result pub;
    arena a;
} mp_handle;

pq_status pq_memory_profile_compute(const pq_profile *p, pq_memory_profile_result **out,
                                    pq_error *err)
{
    *out = NULL;
    mp_handle *h = pq_calloc(1, sizeof *h);
    if (!h)
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    arena_init(&h->a);
    pq_status st = PQ_OK;
    h->pub.sources = arena_alloc(&h->a, (p->nsources ? p->nsources : 1) * sizeof *h->pub.sources);
    if (!h->pub.sources)
        st = err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    for (size_t s = 0; s < p->nsources && st == PQ_OK; s++) {
        st = memprofile_compute(&p->sources[s], &h->a, &h->pub.sources[s]);
        if (st != PQ_OK)
            st = err_set(err, st, p->sources[s].path, -1, "out of memory");
        else
            h->pub.nsources++;
    }
    if (st != PQ_OK) {
        pq_memory_profile_free(&h->pub);
        return st;
    }
    *out = &h->pub;
    return PQ_OK;
}

void pq_memory_profile_free(pq_memory_profile_result *result)
{
    if (!result)
        return;
    mp_handle *h = (mp_handle *)(void *)result;
    arena_release(&h->a);
    pq_free(h);
}
