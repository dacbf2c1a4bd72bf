/* nsys_comm.c - the nsys-jax loader's communication tables over the model (nsys_comm.h):
 * collects the module and thunk rows the reader resolved (run_id "PROGRAM:EXECUTION",
 * xla_op on thunks), numbers thunks within their module execution (ThunkIndex, by start),
 * classifies them through the HLO dumps (nsys_hlo.c), subtracts overlap from communication
 * thunks, aligns device clocks from collective end times, splits warm-up from steady state
 * and computes the runtime definitions and module wait shares. The remaining summaries are
 * in nsys_comm_stats.c. Not here: rendering (render/nsys_comm.c). */
#include "nsys_comm_int.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/hmap.h"
#include "core/pairmap.h"
#include "core/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int nc_is_top(const nc_tables *t, int64_t program)
{
    for (size_t i = 0; i < t->ntop; i++)
        if (t->top[i] == program)
            return 1;
    return 0;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

double nc_median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int op_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* The hlo_op of "TSL:Thunk:#[name=...,]hlo_op=OP#" (the loader's regex: OP after the last
 * "hlo_op=", then '#' and the end), or n = 0. Read from the end: the string must end in
 * OP '#', and the OP characters cannot hold '=', so the "hlo_op=" right before them is the
 * last one (searching it forward with strstr twice per thunk was 4.4 M instructions). */
pq_str nsys_thunk_op(const char *s)
{
    static const char key[] = "hlo_op=";
    size_t n = strlen(s), k = sizeof key - 1, e, p;
    pq_str r = {NULL, 0};
    if (n < 2 || s[n - 1] != '#')
        return r;
    e = p = n - 1;
    while (p > 0 && op_char(s[p - 1]))
        p--;
    if (p == e || p < k || memcmp(s + p - k, key, k) != 0)
        return r;
    r.p = s + p;
    r.n = e - p;
    return r;
}

void nsys_comm_ahead(const pq_profile *prof, nsys_hlo **hlo, const atomic_int *stop)
{
    pairmap seen = {0}; /* (program, name id | source << 32): asked already */
    for (size_t s = prof->nsources; s-- > 0 && !atomic_load(stop);) {
        const pq_source *src = &prof->sources[s];
        if (!hlo[s] || !nsys_xla_source(src) || src->info.format != PQ_FORMAT_NSYS_JAX)
            continue;
        const model_slices *m = src->slices;
        for (size_t i = m->n; i-- > 0 && !atomic_load(stop);) {
            int64_t program, exec;
            int fresh;
            if (!(m->flags[i] & SLICE_XLA_OP) || !m->run_id[i] ||
                !nsys_parse_run(intern_str(&m->names, m->run_id[i]), &program, &exec))
                continue;
            if (!pairmap_slot(&seen, program, (int64_t)m->name[i] | (int64_t)s << 32, &fresh))
                break;
            if (!fresh)
                continue;
            pq_str op = nsys_thunk_op(intern_str(&m->names, m->name[i]));
            nsys_hlo_comm_ahead(hlo[s], program, op.p ? op.p : "", op.n);
        }
    }
    pairmap_free(&seen);
}

typedef nc_collect collect;

static uint8_t frame_of(const collect *c, int64_t program, int64_t exec, int thunk)
{
    int compiled = pairmap_get(&c->compiled, program, 0) != UINT32_MAX;
    int f = nsys_warmup_frame(&c->w, compiled, exec, thunk);
    return f == NSYS_STEADY ? FR_STEADY : f == NSYS_INIT ? FR_INIT : FR_NONE;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 1024;
    void *q = pq_realloc(*p, nc * size);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static pq_status info_of(collect *c, size_t s, int64_t program, uint32_t op, uint32_t *out,
                         pq_error *err)
{
    int fresh;
    uint32_t *slot = pairmap_slot(&c->infos, program, (int64_t)op | (int64_t)s << 32, &fresh);
    if (!slot)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    if (!fresh) {
        *out = *slot;
        return PQ_OK;
    }
    nc_tables *t = c->t;
    nc_info *ni = pq_realloc(t->infos, (t->ninfos + 1) * sizeof *ni);
    if (!ni)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    t->infos = ni;
    nc_info *in = &ni[t->ninfos];
    memset(in, 0, sizeof *in);
    in->c.message_bytes = in->c.collective_size = -1;
    if (program >= 0 && c->hlo[s])
        FORWARD_IF_ERROR(nsys_hlo_comm_of(c->hlo[s], program, intern_str(&t->ops, op),
                                          intern_len(&t->ops, op), &in->c, err));
    *slot = *out = (uint32_t)t->ninfos++;
    return PQ_OK;
}

int nc_add_module(nc_collect *c, const nc_mod *m)
{
    nc_tables *t = c->t;
    if (grow((void **)&t->mods, &c->capm, t->nmods, sizeof *t->mods) != 0)
        return -1;
    if (m->dev >= t->ndevices)
        t->ndevices = m->dev + 1;
    t->mods[t->nmods++] = *m;
    return 0;
}

/* nc_add_thunk with the op interned already (OP: its id in t->ops). */
static pq_status add_thunk_op(nc_collect *c, size_t s, const nc_thunk *in, uint32_t op,
                              pq_error *err)
{
    nc_tables *t = c->t;
    if (grow((void **)&t->th, &c->capt, t->nth, sizeof *t->th) != 0)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    if (in->dev >= t->ndevices)
        t->ndevices = in->dev + 1;
    nc_thunk *th = &t->th[t->nth];
    *th = *in;
    th->op = op;
    th->seq = t->nth;
    th->src = (uint32_t)s;
    if (t->ops.failed)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    if (!c->defer) {
        FORWARD_IF_ERROR(info_of(c, s, th->program, th->op, &th->info, err));
        th->comm = t->infos[th->info].c.kind != NSYS_COLL_NONE;
    }
    t->nth++;
    return PQ_OK;
}

pq_status nc_add_thunk(nc_collect *c, size_t s, const nc_thunk *in, pq_str op, pq_error *err)
{
    uint32_t id = intern_add(&c->t->ops, op.p ? op.p : "", op.n);
    return add_thunk_op(c, s, in, id, err);
}

/* The deferred classification (C->defer), in the order of the gather, so that the first
 * thunk that fails is the one that failed when classified as gathered. Gathering first
 * lets the slices be walked while the preload thread still indexes the dump the first
 * thunk needs. */
static pq_status classify_all(nc_collect *c, pq_error *err)
{
    nc_tables *t = c->t;
    for (size_t i = 0; i < t->nth; i++) {
        nc_thunk *th = &t->th[i];
        FORWARD_IF_ERROR(info_of(c, th->src, th->program, th->op, &th->info, err));
        th->comm = t->infos[th->info].c.kind != NSYS_COLL_NONE;
    }
    return PQ_OK;
}

static pq_status collect_rows(collect *c, size_t s, const pq_source *src, uint32_t *op_of,
                              pq_error *err)
{
    const model_slices *m = src->slices;
    nc_tables *t = c->t;
    for (size_t i = 0; i < m->n; i++) {
        int64_t program, exec;
        if (!m->run_id[i] || !nsys_parse_run(intern_str(&m->names, m->run_id[i]), &program, &exec))
            continue;
        int64_t tdev = nsys_track_device(src, m->tracks[m->track[i]].tid);
        if (tdev < 0)
            continue;
        uint32_t dev = c->dev_base + (uint32_t)tdev;
        uint8_t fr = frame_of(c, program, exec, (m->flags[i] & SLICE_XLA_OP) != 0);
        double start = (double)(m->start_ps[i] / 1000);
        int64_t dur = m->dur_ps[i] / 1000;
        if (!(m->flags[i] & SLICE_XLA_OP)) {
            if (nc_add_module(c, &(nc_mod){program, exec, dev, start, dur, fr}) != 0)
                return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
            continue;
        }
        uint32_t nm = m->name[i];
        if (!op_of[nm]) {
            pq_str op = nsys_thunk_op(intern_str(&m->names, nm));
            op_of[nm] = intern_add(&t->ops, op.p ? op.p : "", op.n) + 1;
        }
        nc_thunk th = {
            .program = program, .exec = exec, .dev = dev, .start = start, .dur = dur, .frame = fr};
        FORWARD_IF_ERROR(add_thunk_op(c, s, &th, op_of[nm] - 1, err));
        if (t->th[t->nth - 1].comm && c->stop_at_comm)
            return PQ_OK;
    }
    return PQ_OK;
}

/* The thunk slices of SRC (source S) as rows; each distinct slice name's hlo_op is read and
 * interned once (OP_OF: name id -> op id + 1; 20,449 thunks of ~1,000 names on the shared
 * archive). */
static pq_status collect_source(collect *c, size_t s, const pq_source *src, pq_error *err)
{
    const model_slices *m = src->slices;
    uint32_t *op_of = pq_calloc(m->names.n ? m->names.n : 1, sizeof *op_of);
    if (!op_of)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    pq_status st = collect_rows(c, s, src, op_of, err);
    pq_free(op_of);
    return st;
}

static int cmp_thunk(const void *pa, const void *pb, void *ctx)
{
    const nc_thunk *th = ctx, *a = &th[*(const uint32_t *)pa], *b = &th[*(const uint32_t *)pb];
    if (a->program != b->program)
        return a->program < b->program ? -1 : 1;
    if (a->exec != b->exec)
        return a->exec < b->exec ? -1 : 1;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The (program, exec, dev) groups of the thunks, for sort_by_group. */
typedef struct thunk_groups {
    const nc_thunk *th;
    uint32_t *gid;   /* per row: its group */
    uint32_t *first; /* per group: its first row, then its place in the sorted rows */
    uint32_t *last;  /* per group: its last row so far */
    uint32_t n;
    const nc_thunk *row; /* the row being looked up */
    pq_hmap index;
} thunk_groups;

static int same_group_as_row(void *ctx, uint32_t g)
{
    const thunk_groups *G = ctx;
    const nc_thunk *a = &G->th[G->first[g]], *b = G->row;
    return a->program == b->program && a->exec == b->exec && a->dev == b->dev;
}

static int cmp_group(const void *pa, const void *pb, void *ctx)
{
    const thunk_groups *G = ctx;
    const nc_thunk *a = &G->th[G->first[*(const uint32_t *)pa]],
                   *b = &G->th[G->first[*(const uint32_t *)pb]];
    if (a->program != b->program)
        return a->program < b->program ? -1 : 1;
    if (a->exec != b->exec)
        return a->exec < b->exec ? -1 : 1;
    return a->dev < b->dev ? -1 : a->dev > b->dev;
}

/* Row B after row A of the same group in cmp_thunk's order (start, then seq). */
static int in_order(const nc_thunk *a, const nc_thunk *b)
{
    return a->start != b->start ? a->start < b->start : a->seq < b->seq;
}

/* The rows in cmp_thunk's order into IX (N entries) when each group's rows come in
 * (start, seq) order, as the gather gives them: the groups sorted, then the rows placed by
 * their group's rank (linear, where the merge sort of the rows made 268,017 comparator calls
 * on the shared archive with devices interleaved). Every pair of rows then stands as
 * cmp_thunk puts it, so the order is the sort's. 1: a group out of order (the caller
 * sorts); -1: no memory. */
static int sort_by_group(const nc_tables *t, uint32_t *ix)
{
    size_t n = t->nth;
    thunk_groups G = {.th = t->th};
    G.gid = pq_malloc_array(n, sizeof *G.gid);
    G.first = pq_malloc_array(n, sizeof *G.first);
    G.last = pq_malloc_array(n, sizeof *G.last);
    int rc = G.gid && G.first && G.last ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const nc_thunk *r = &t->th[i];
        G.row = r;
        uint64_t h =
            hash_mix64((uint64_t)r->program ^ hash_mix64((uint64_t)r->exec ^ hash_mix64(r->dev)));
        if (pq_hmap_reserve(&G.index, (size_t)G.n + 1) != 0) {
            rc = -1;
            break;
        }
        size_t slot = pq_hmap_probe(&G.index, h, same_group_as_row, &G);
        uint32_t g;
        if (pq_hmap_found(&G.index, slot)) {
            g = pq_hmap_value(&G.index, slot);
            if (!in_order(&t->th[G.last[g]], r))
                rc = 1;
        } else {
            g = G.n++;
            G.first[g] = (uint32_t)i;
            pq_hmap_put(&G.index, slot, h, g);
        }
        G.last[g] = (uint32_t)i;
        G.gid[i] = g;
    }
    uint32_t *order = rc == 0 ? pq_malloc_array(G.n ? G.n : 1, sizeof *order) : NULL;
    if (rc == 0 && !order)
        rc = -1;
    if (rc == 0) {
        for (uint32_t g = 0; g < G.n; g++)
            order[g] = g;
        rc = pq_sort(order, G.n, sizeof *order, cmp_group, &G) != 0 ? -1 : 0;
    }
    if (rc == 0) {
        /* last: rows per group, then first: each group's next place. */
        for (uint32_t g = 0; g < G.n; g++)
            G.last[g] = 0;
        for (size_t i = 0; i < n; i++)
            G.last[G.gid[i]]++;
        uint32_t at = 0;
        for (uint32_t k = 0; k < G.n; k++) {
            G.first[order[k]] = at;
            at += G.last[order[k]];
        }
        for (size_t i = 0; i < n; i++)
            ix[G.first[G.gid[i]]++] = (uint32_t)i;
    }
    pq_free(order);
    pq_free(G.gid);
    pq_free(G.first);
    pq_free(G.last);
    pq_hmap_free(&G.index);
    return rc;
}

/* Sorts the thunks by cmp_thunk (a total order: seq is unique): their 32-bit indexes, with
 * the comparator inlined, then the rows moved in place along the permutation's cycles (qsort
 * of the 96-byte rows was 10.7 M instructions on the shared archive, most of it calls and
 * copies, and its scratch 2 MB of fresh pages). -1: no memory. */
static int sort_thunks(nc_tables *t)
{
    size_t n = t->nth;
    if (n > UINT32_MAX)
        return -1;
    uint32_t *ix = pq_malloc_array(n, 2 * sizeof *ix);
    if (!ix)
        return -1;
    int by_group = sort_by_group(t, ix);
    if (by_group < 0) {
        pq_free(ix);
        return -1;
    }
    if (by_group) {
        for (size_t i = 0; i < n; i++)
            ix[i] = (uint32_t)i;
        pq_sort_inline(ix, ix + n, n, sizeof *ix, cmp_thunk, t->th);
    }
    /* Row i takes the row at ix[i]; ix[j] = j marks a place already filled. */
    for (size_t i = 0; i < n; i++) {
        if (ix[i] == i)
            continue;
        nc_thunk keep = t->th[i];
        size_t j = i;
        while (ix[j] != i) {
            size_t k = ix[j];
            t->th[j] = t->th[k];
            ix[j] = (uint32_t)j;
            j = k;
        }
        t->th[j] = keep;
        ix[j] = (uint32_t)j;
    }
    pq_free(ix);
    return 0;
}

static int same_group(const nc_thunk *a, const nc_thunk *b)
{
    return a->program == b->program && a->exec == b->exec && a->dev == b->dev;
}

/* ThunkIndex, ThunkExecution and the overlap of communication thunks with compute thunks of
 * the same module execution on the same device. */
static int number_and_overlap(nc_tables *t)
{
    pairmap texec = {0};
    for (size_t g = 0, e; g < t->nth; g = e) {
        for (e = g; e < t->nth && same_group(&t->th[g], &t->th[e]); e++)
            t->th[e].tidx = (uint32_t)(e - g);
        pairmap_free(&texec);
        memset(&texec, 0, sizeof texec);
        for (size_t i = g; i < e; i++) {
            int fresh;
            uint32_t *slot = pairmap_slot(&texec, t->th[i].op, 0, &fresh);
            if (!slot)
                return -1;
            t->th[i].texec = fresh ? 0 : *slot + 1;
            *slot = t->th[i].texec;
        }
        for (size_t i = g; i < e; i++) {
            nc_thunk *c = &t->th[i];
            if (!c->comm)
                continue;
            double cs = c->start, ce = c->start + (double)c->dur, hidden = 0;
            for (size_t k = g; k < e; k++) {
                const nc_thunk *o = &t->th[k];
                double os = o->start, oe = o->start + (double)o->dur;
                if (os >= ce) /* the group is sorted by start: none after overlaps either */
                    break;
                if (o->comm || oe <= cs)
                    continue;
                hidden += (oe < ce ? oe : ce) - (os > cs ? os : cs);
            }
            c->hidden = (int64_t)hidden;
            c->dur -= c->hidden;
        }
    }
    pairmap_free(&texec);
    return 0;
}

/* The loader's align_profiler_data_timestamps (nsys_comm.h). */
static int align(nc_tables *t, nsys_comm_result *r)
{
    int64_t maxsize = 0;
    for (size_t i = 0; i < t->nth; i++)
        if (t->th[i].comm && t->infos[t->th[i].info].c.collective_size > maxsize)
            maxsize = t->infos[t->th[i].info].c.collective_size;
    r->ndevices = t->ndevices;
    r->corrections_ns = arena_alloc(&r->mem, (t->ndevices + 1) * sizeof *r->corrections_ns);
    if (!r->corrections_ns)
        return -1;
    for (uint32_t d = 0; d < t->ndevices; d++)
        r->corrections_ns[d] = 0;
    r->alignment_size = maxsize;
    if (maxsize <= 0 || maxsize != (int64_t)t->ndevices)
        return 0;
    pairmap groups = {0};
    double *sum = NULL, *skew = NULL, *dv = NULL;
    uint32_t *cnt = NULL, *gi = NULL;
    size_t ng = 0, n = 0, rc = 0;
    sum = pq_calloc(t->nth + 1, sizeof *sum);
    cnt = pq_calloc(t->nth + 1, sizeof *cnt);
    gi = pq_calloc(t->nth + 1, sizeof *gi);
    skew = pq_calloc(t->nth + 1, sizeof *skew);
    dv = pq_calloc(t->nth + 1, sizeof *dv);
    if (!sum || !cnt || !gi || !skew || !dv)
        goto oom;
    for (size_t i = 0; i < t->nth; i++) {
        const nc_thunk *h = &t->th[i];
        if (!h->comm || t->infos[h->info].c.collective_size != maxsize)
            continue;
        int fresh;
        uint32_t *slot = pairmap_slot(&groups, h->program, h->exec << 24 | h->tidx, &fresh);
        if (!slot)
            goto oom;
        if (fresh)
            *slot = (uint32_t)ng++;
        gi[i] = *slot;
        sum[*slot] += h->start + (double)h->dur + (double)h->hidden;
        cnt[*slot]++;
    }
    double s1 = 0, s2 = 0;
    r->skew_min_ns = INFINITY;
    r->skew_max_ns = -INFINITY;
    for (size_t i = 0; i < t->nth; i++) {
        const nc_thunk *h = &t->th[i];
        if (!h->comm || t->infos[h->info].c.collective_size != maxsize)
            continue;
        double k = h->start + (double)h->dur + (double)h->hidden - sum[gi[i]] / cnt[gi[i]];
        skew[n++] = k;
        s1 += k;
        s2 += k * k;
        r->skew_min_ns = k < r->skew_min_ns ? k : r->skew_min_ns;
        r->skew_max_ns = k > r->skew_max_ns ? k : r->skew_max_ns;
    }
    r->nskews = n;
    r->skew_std_ns = n > 1 ? sqrt(fmax(0, (s2 - s1 * s1 / (double)n) / (double)(n - 1))) : NAN;
    for (uint32_t d = 0; d < t->ndevices; d++) {
        size_t m = 0, j = 0;
        for (size_t i = 0; i < t->nth; i++) {
            const nc_thunk *h = &t->th[i];
            if (!h->comm || t->infos[h->info].c.collective_size != maxsize)
                continue;
            if (h->dev == d)
                dv[m++] = skew[j];
            j++;
        }
        r->corrections_ns[d] = m ? nc_median(dv, m) : 0;
    }
    r->aligned = 1;
    for (size_t i = 0; i < t->nth; i++)
        t->th[i].start -= r->corrections_ns[t->th[i].dev];
    for (size_t i = 0; i < t->nmods; i++)
        t->mods[i].start -= r->corrections_ns[t->mods[i].dev];
    goto done;
oom:
    rc = 1;
done:
    pairmap_free(&groups);
    pq_free(sum);
    pq_free(cnt);
    pq_free(gi);
    pq_free(skew);
    pq_free(dv);
    return rc || groups.failed ? -1 : 0;
}

/* Bandwidths, frame counts, hidden/exposed communication. */
static void comm_rows(nc_tables *t, nsys_comm_result *r)
{
    for (size_t i = 0; i < t->nth; i++) {
        nc_thunk *h = &t->th[i];
        if (!h->comm)
            continue;
        r->has_communication = 1;
        const nsys_hlo_comm *c = &t->infos[h->info].c;
        double full = (double)(h->dur + h->hidden);
        h->algbw =
            c->message_bytes >= 0 && full > 0 ? c->bw_corr * (double)c->message_bytes / full : NAN;
        h->busbw = h->algbw * c->bus_corr;
        r->communication_rows[NSYS_ALL]++;
        if (h->frame == FR_STEADY) {
            r->communication_rows[NSYS_STEADY]++;
            r->comm_hidden_ns += h->hidden;
            r->comm_exposed_ns += h->dur;
        } else if (h->frame == FR_INIT) {
            r->communication_rows[NSYS_INIT]++;
        }
    }
    for (size_t i = 0; i < t->nth; i++)
        r->unknown_thunks += !t->infos[t->th[i].info].c.known;
}

/* Definitions (1)-(3) over the steady rows of the top modules. */
static int runtime(const nc_tables *t, nsys_comm_result *r)
{
    for (size_t i = 0; i < t->nth; i++)
        if (t->th[i].frame == FR_STEADY && nc_is_top(t, t->th[i].program))
            r->thunks_ns += t->th[i].dur;
    double *lo = pq_malloc((t->ndevices + 1) * sizeof *lo),
           *hi = pq_malloc((t->ndevices + 1) * sizeof *hi);
    if (!lo || !hi) {
        pq_free(lo);
        pq_free(hi);
        return -1;
    }
    for (uint32_t d = 0; d < t->ndevices; d++) {
        lo[d] = INFINITY;
        hi[d] = -INFINITY;
    }
    for (size_t i = 0; i < t->nmods; i++) {
        const nc_mod *m = &t->mods[i];
        if (m->frame != FR_STEADY || !nc_is_top(t, m->program))
            continue;
        r->modules_ns += m->dur;
        lo[m->dev] = fmin(lo[m->dev], m->start);
        hi[m->dev] = fmax(hi[m->dev], m->start + (double)m->dur);
    }
    for (uint32_t d = 0; d < t->ndevices; d++)
        if (hi[d] >= lo[d])
            r->wall_ns += hi[d] - lo[d];
    pq_free(lo);
    pq_free(hi);
    return 0;
}

/* Each steady module's launch wait: per execution, the spread of its starts over devices,
 * summed, over its total duration; only for modules with a steady communication thunk. */
static int wait_shares(const nc_tables *t, nsys_modules_result *mods)
{
    pairmap comm = {0}, spread = {0};
    double *lo = NULL, *hi = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < t->nth; i++) {
        int fresh;
        uint32_t *slot = t->th[i].comm && t->th[i].frame == FR_STEADY
                             ? pairmap_slot(&comm, t->th[i].program, 0, &fresh)
                             : NULL;
        if (slot)
            *slot = 1;
        else if (t->th[i].comm && t->th[i].frame == FR_STEADY)
            rc = -1;
    }
    lo = pq_malloc((t->nmods + 1) * sizeof *lo);
    hi = pq_malloc((t->nmods + 1) * sizeof *hi);
    if (!lo || !hi)
        rc = -1;
    for (size_t i = 0; i < t->nmods && !rc; i++) {
        const nc_mod *m = &t->mods[i];
        if (m->frame != FR_STEADY)
            continue;
        int fresh;
        uint32_t *slot = pairmap_slot(&spread, m->program, m->exec, &fresh);
        if (!slot) {
            rc = -1;
            break;
        }
        if (fresh) {
            *slot = (uint32_t)n++;
            lo[*slot] = hi[*slot] = m->start;
        }
        lo[*slot] = fmin(lo[*slot], m->start);
        hi[*slot] = fmax(hi[*slot], m->start);
    }
    for (size_t k = 0; k < mods->nmodules && !rc; k++) {
        nsys_module_row *row = &mods->modules[k];
        if (pairmap_get(&comm, row->program_id, 0) == UINT32_MAX || !row->total_ns)
            continue;
        double w = 0;
        for (size_t i = 0; i < spread.n; i++)
            if (spread.e[i].a == row->program_id)
                w += hi[spread.e[i].val] - lo[spread.e[i].val];
        row->wait_share = w / (double)row->total_ns;
    }
    pq_free(lo);
    pq_free(hi);
    pairmap_free(&comm);
    pairmap_free(&spread);
    return rc;
}

/* The gather of nsys-jax archives and Nsight SQLite exports: their module and thunk
 * slices; HLO dumps from archives (an export has none). */
static pq_status gather_slices(const pq_profile *prof, collect *c, pq_error *err)
{
    for (size_t s = 0; s < prof->nsources; s++) {
        const pq_source *src = &prof->sources[s];
        if (!nsys_xla_source(src))
            continue;
        const model_slices *m = src->slices;
        for (size_t i = 0; i < m->n; i++) {
            int fresh;
            int64_t p = (m->flags[i] & SLICE_GPU_ANNOTATION)
                            ? -1
                            : nsys_compiled_program(intern_str(&m->names, m->name[i]));
            uint32_t *slot = p >= 0 ? pairmap_slot(&c->compiled, p, 0, &fresh) : NULL;
            if (p >= 0 && !slot)
                return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
            if (slot)
                *slot = 1;
        }
    }
    for (size_t s = 0; s < prof->nsources; s++) {
        const pq_source *src = &prof->sources[s];
        if (!nsys_xla_source(src))
            continue;
        if (src->info.format == PQ_FORMAT_NSYS_JAX && !c->hlo[s])
            FORWARD_IF_ERROR(nsys_hlo_open(src, &c->hlo[s], err));
        c->dev_base = c->t->ndevices;
        FORWARD_IF_ERROR(collect_source(c, s, src, err));
        if (c->stop_at_comm && c->t->nth && c->t->th[c->t->nth - 1].comm)
            break;
    }
    return PQ_OK;
}

/* Only whether some thunk is communication (the gather stops at the first). */
static pq_status probe(const pq_profile *prof, nc_gather gather, collect *c, nsys_comm_result *out,
                       pq_error *err)
{
    FORWARD_IF_ERROR(gather(prof, c, err));
    for (size_t i = 0; i < c->t->nth && !out->has_communication; i++)
        out->has_communication = c->t->th[i].comm;
    return PQ_OK;
}

/* The HEAD rule's fallback: no steady thunk row makes every thunk row steady. */
static void head_fallback(collect *c)
{
    nc_tables *t = c->t;
    int steady = 0;
    for (size_t i = 0; i < t->nth && !steady; i++)
        steady = t->th[i].frame == FR_STEADY;
    for (size_t i = 0; i < t->nth && !steady && c->w.head; i++)
        t->th[i].frame = FR_STEADY;
    c->w.all_steady_thunks = c->w.head && !steady && t->nth;
}

static pq_status compute(const pq_profile *prof, nc_gather gather, nsys_modules_result *mods,
                         const nsys_mods_wait *later, collect *c, nsys_comm_result *out,
                         pq_error *err)
{
    nc_tables *t = c->t;
    FORWARD_IF_ERROR(gather(prof, c, err));
    if (c->defer)
        FORWARD_IF_ERROR(classify_all(c, err));
    if (t->nth && sort_thunks(t) != 0)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    head_fallback(c);
    if (later) /* the module table, computed beside the gathering */
        FORWARD_IF_ERROR(later->wait(later->ctx, &mods, err));
    t->top = arena_alloc(&out->mem, (mods->ntop + 1) * sizeof *t->top);
    if (!t->top)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t k = 0; k < mods->ntop; k++)
        t->top[t->ntop++] = mods->modules[k].program_id;
    int bad = number_and_overlap(t) != 0;
    comm_rows(t, out);
    bad = bad || align(t, out) != 0 || runtime(t, out) != 0 || wait_shares(t, mods) != 0;
    bad = bad || nc_thunk_totals(t, out) != 0 || nc_collectives(t, out) != 0;
    bad = bad || nc_variability(t, out) != 0 || nc_bias(t, out) != 0;
    bad = bad || c->compiled.failed || c->infos.failed;
    return bad ? err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory") : PQ_OK;
}

pq_status nsys_comm_compute(const pq_profile *prof, nsys_modules_result *mods,
                            nsys_comm_result *out, pq_error *err)
{
    return nsys_comm_compute_warmup(prof, NULL, NULL, mods, out, err);
}

static pq_status run(const pq_profile *prof, const nsys_warmup *w, int stop_at_comm,
                     nc_gather gather, nsys_hlo **hlo, nsys_modules_result *mods,
                     const nsys_mods_wait *later, nsys_comm_result *out, pq_error *err);

pq_status nsys_comm_compute_warmup(const pq_profile *prof, const nsys_warmup *w, nsys_hlo **hlo,
                                   nsys_modules_result *mods, nsys_comm_result *out, pq_error *err)
{
    return run(prof, w, 0, gather_slices, hlo, mods, NULL, out, err);
}

pq_status nsys_comm_compute_later(const pq_profile *prof, const nsys_warmup *w, nsys_hlo **hlo,
                                  const nsys_mods_wait *mods, nsys_comm_result *out, pq_error *err)
{
    return run(prof, w, 0, gather_slices, hlo, NULL, mods, out, err);
}

pq_status nc_run(const pq_profile *prof, const nsys_warmup *w, nc_gather gather,
                 nsys_modules_result *mods, nsys_comm_result *out, pq_error *err)
{
    return run(prof, w, 0, gather, NULL, mods, NULL, out, err);
}

pq_status nsys_comm_has_communication(const pq_profile *prof, nsys_hlo **hlo, int *out,
                                      pq_error *err)
{
    nsys_comm_result r;
    pq_status st = run(prof, NULL, 1, gather_slices, hlo, NULL, NULL, &r, err);
    *out = st == PQ_OK && r.has_communication;
    if (st == PQ_OK)
        nsys_comm_free(&r);
    return st;
}

/* HLO: the sources' dumps, borrowed (opened here where still NULL; the caller closes
 * them), or NULL: opened and closed here. */
static pq_status run(const pq_profile *prof, const nsys_warmup *w, int stop_at_comm,
                     nc_gather gather, nsys_hlo **hlo, nsys_modules_result *mods,
                     const nsys_mods_wait *later, nsys_comm_result *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->mem);
    nc_tables t = {0};
    collect c = {.t = &t, .stop_at_comm = stop_at_comm};
    c.defer = !stop_at_comm && gather == gather_slices;
    if (w)
        c.w = *w;
    out->warmup_head = c.w.head;
    c.hlo = hlo ? hlo : pq_calloc(prof->nsources + 1, sizeof *c.hlo);
    pq_status st = c.hlo && intern_init(&t.ops) == 0
                       ? (stop_at_comm ? probe(prof, gather, &c, out, err)
                                       : compute(prof, gather, mods, later, &c, out, err))
                       : err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t s = 0; !hlo && c.hlo && s < prof->nsources; s++)
        nsys_hlo_close(c.hlo[s]);
    if (!hlo)
        pq_free(c.hlo);
    pq_free(t.mods);
    pq_free(t.th);
    pq_free(t.infos);
    intern_free(&t.ops);
    pairmap_free(&c.compiled);
    pairmap_free(&c.infos);
    if (st != PQ_OK)
        nsys_comm_free(out);
    return st;
}

void nsys_comm_free(nsys_comm_result *r)
{
    arena_release(&r->mem);
    memset(r, 0, sizeof *r);
}
