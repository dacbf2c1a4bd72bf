/* summary_time.c - time on the tracks: the track classes (spec 1.4), the event sorts, self
 * time with the partial-overlap rule (1.5), categories (1.6) and the time breakdown
 * (1.7, per track or as a sweep of the global timeline). The sorts and their inline
 * comparison stay together in this file: they are the tuned part (docs/internals/summary.md).
 * Not here: steps, ops, regions. */
#include "summary_int.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Event orders are (track, ts, end, index) with end descending (enclosing events
 * first) or ascending; the sweep of 1.16 orders points by (time, kind, index). All are
 * total orders, so any correct sort gives the same result. Events: a bottom-up merge
 * sort of 16-byte records that skips merging runs already in order, so the usual trace,
 * nearly sorted per track, costs about one pass per level instead of qsort's indirect
 * comparisons. Points: a natural merge sort (points_sort), as the caller lays them out in
 * a few ascending runs. */

static inline int srec_less(const sm_builder *b, int mode, const srec *x, const srec *y)
{
    if (x->t != y->t)
        return x->t < y->t;
    if (mode == SORT_POINTS) {
        if (x->kind != y->kind)
            return x->kind < y->kind;
    } else {
        /* Equal starts: the end order is the duration order. */
        int64_t dx = b->m->dur_ps[x->idx], dy = b->m->dur_ps[y->idx];
        if (dx != dy)
            return mode == SORT_END_DESC ? dx > dy : dx < dy;
    }
    return x->idx < y->idx;
}

/* The end of the ascending run of A (under the points' order) that starts at LO. */
static size_t point_run(const sm_builder *b, const srec *a, size_t lo, size_t n)
{
    size_t k = lo + 1;
    while (k < n && !srec_less(b, SORT_POINTS, &a[k], &a[k - 1]))
        k++;
    return k;
}

/* Points: a natural merge sort. Each pass merges neighbouring ascending runs, so input
 * made of a few runs (one per track and kind, as the caller builds it) takes a few passes,
 * and any input is still sorted. */
static void points_sort(const sm_builder *b, srec *a, srec *tmp, size_t n)
{
    /* First a point out of order by at most 64 places moves back into place, so local
     * disorder does not split the runs. */
    for (size_t k = 1; k < n; k++) {
        if (!srec_less(b, SORT_POINTS, &a[k], &a[k - 1]))
            continue;
        srec v = a[k];
        size_t j = k - 1;
        while (j > 0 && k - j < 64 && srec_less(b, SORT_POINTS, &v, &a[j - 1]))
            j--;
        if (j > 0 && srec_less(b, SORT_POINTS, &v, &a[j - 1]))
            continue; /* further: a run starts here */
        memmove(a + j + 1, a + j, (k - j) * sizeof *a);
        a[j] = v;
    }
    srec *src = a, *dst = tmp;
    while (n > 1 && point_run(b, src, 0, n) < n) {
        for (size_t lo = 0; lo < n;) {
            size_t mid = point_run(b, src, lo, n), hi = mid < n ? point_run(b, src, mid, n) : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = srec_less(b, SORT_POINTS, &src[j], &src[i]) ? src[j++] : src[i++];
            memcpy(dst + o, src + i, (mid - i) * sizeof *src);
            o += mid - i;
            memcpy(dst + o, src + j, (hi - j) * sizeof *src);
            lo = hi;
        }
        srec *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

static void srec_sort(const sm_builder *b, int mode, srec *a, srec *tmp, size_t n)
{
    enum { RUN = 32 };
    if (mode == SORT_POINTS) {
        points_sort(b, a, tmp, n);
        return;
    }
    /* First an insertion sort of the whole array, while it stays cheap: a trace out of
     * order only locally (a parent written after its children) is sorted in one pass. Past
     * a budget of moves it stops (leaving a permutation) and the merge sort takes over. */
    size_t moves = 0, budget = 8 * n + 4096;
    for (size_t k = 1; k < n && budget; k++) {
        srec v = a[k];
        size_t j = k;
        while (j > 0 && srec_less(b, mode, &v, &a[j - 1]) && moves < budget) {
            a[j] = a[j - 1];
            j--;
            moves++;
        }
        a[j] = v;
        if (moves >= budget)
            break;
    }
    if (moves < budget)
        return;
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t k = lo + 1; k < hi; k++) {
            srec v = a[k];
            size_t j = k;
            while (j > lo && srec_less(b, mode, &v, &a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
    }
    srec *src = a, *dst = tmp;
    for (size_t w = RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            if (mid >= hi || !srec_less(b, mode, &src[mid], &src[mid - 1])) {
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);
                continue;
            }
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = srec_less(b, mode, &src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        srec *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

void sm_srec_sort(const sm_builder *b, int mode, srec *a, srec *tmp, size_t n)
{
    srec_sort(b, mode, a, tmp, n);
}

/* Sorts the event indices IDX[0..n) (ascending on entry) by (track, ts, end, index):
 * grouped by track with a stable counting pass, then each track merge-sorted. */
int sm_sort_by_track(const sm_builder *b, int mode, uint32_t *idx, size_t n)
{
    size_t *start = pq_calloc((size_t)b->ntracks + 1, sizeof *start);
    uint32_t *grouped = pq_malloc_array(n + 1, sizeof *grouped);
    size_t most = 0;
    srec *rec = NULL, *tmp = NULL;
    int rc = -1;
    if (!start || !grouped)
        goto out;
    for (size_t k = 0; k < n; k++)
        start[b->m->track[idx[k]] + 1]++;
    for (uint32_t t = 0; t < b->ntracks; t++) {
        if (start[t + 1] > most)
            most = start[t + 1];
        start[t + 1] += start[t];
    }
    rec = pq_malloc_array(most + 1, sizeof *rec);
    tmp = pq_malloc_array(most + 1, sizeof *tmp);
    if (!rec || !tmp)
        goto out;
    for (size_t k = 0; k < n; k++)
        grouped[start[b->m->track[idx[k]]]++] = idx[k];
    /* start[t] is now the end of track t's group. */
    for (uint32_t t = 0, lo = 0; t < b->ntracks; lo = (uint32_t)start[t++]) {
        size_t m = start[t] - lo;
        for (size_t k = 0; k < m; k++)
            rec[k] = (srec){b->m->start_ps[grouped[lo + k]], grouped[lo + k], 0};
        srec_sort(b, mode, rec, tmp, m);
        for (size_t k = 0; k < m; k++)
            idx[lo + k] = rec[k].idx;
    }
    rc = 0;
out:
    pq_free(start);
    pq_free(grouped);
    pq_free(rec);
    pq_free(tmp);
    return rc;
}

/* Spec 1.5: self time per track with the partial-overlap rule. */
static int compute_exclusive(ctx *c)
{
    sm_builder *b = c->b;
    size_t n = b->nwork;
    uint32_t *stack = pq_malloc_array(n + 1, sizeof *stack);
    int64_t *child = pq_calloc(b->m->n + 1, sizeof *child); /* per slice */
    if (!stack || !child) {
        pq_free(stack);
        pq_free(child);
        return -1;
    }
    size_t sp = 0;
    uint32_t cur_track = UINT32_MAX;
#define POP()                                                                                      \
    do {                                                                                           \
        uint32_t t_ = stack[--sp];                                                                 \
        int64_t x_ = b->m->dur_ps[t_] - child[t_];                                                 \
        c->excl[t_] = x_ > 0 ? x_ : 0;                                                             \
        if (sp)                                                                                    \
            child[stack[sp - 1]] += b->m->dur_ps[t_];                                              \
    } while (0)
    for (size_t k = 0; k < n; k++) {
        uint32_t e = c->order[k];
        if (b->m->track[e] != cur_track) {
            while (sp)
                POP();
            cur_track = b->m->track[e];
        }
        int64_t start = b->m->start_ps[e], end = start + b->m->dur_ps[e];
        while (sp && start >= b->m->start_ps[stack[sp - 1]] + b->m->dur_ps[stack[sp - 1]])
            POP();
        while (sp && end > b->m->start_ps[stack[sp - 1]] + b->m->dur_ps[stack[sp - 1]])
            POP();
        stack[sp++] = e;
    }
    while (sp)
        POP();
#undef POP
    pq_free(stack);
    pq_free(child);
    return 0;
}

const char *sm_pname(const sm_builder *b, int64_t pid)
{
    uint32_t id = pairmap_get(&b->m->proc_names, pid, 0);
    return id == UINT32_MAX ? "" : intern_str(b->names, id);
}

static const char *tname(const sm_builder *b, int64_t pid, int64_t tid)
{
    uint32_t id = pairmap_get(&b->m->thread_names, pid, tid);
    return id == UINT32_MAX ? "" : intern_str(b->names, id);
}

/* Spec 1.4, plus Kineto: without any /device: or /host: process, a process whose threads
 * carry GPU kernels is a device, its kernel streams are device-op threads, and every
 * other process is host. */
void sm_classify_tracks(sm_builder *b)
{
    int seed_names = 0;
    for (uint32_t t = 0; t < b->ntracks; t++) {
        const char *p = sm_pname(b, b->tracks[t].pid);
        if (strncmp(p, "/device:", 8) == 0 || strncmp(p, "/host:", 6) == 0)
            seed_names = 1;
    }
    for (uint32_t t = 0; t < b->ntracks; t++) {
        track *tr = &b->tracks[t];
        const char *p = sm_pname(b, tr->pid), *th = tname(b, tr->pid, tr->tid);
        if (seed_names) {
            tr->device = strncmp(p, "/device:", 8) == 0;
            tr->host = strncmp(p, "/host:", 6) == 0;
            tr->device_op =
                tr->device && (strcmp(th, "XLA Ops") == 0 || strcmp(th, "Async XLA Ops") == 0 ||
                               strncmp(th, "Stream #", 8) == 0);
        } else {
            int dev = 0;
            for (uint32_t u = 0; u < b->ntracks; u++)
                if (b->tracks[u].pid == tr->pid && b->tracks[u].has_kernel)
                    dev = 1;
            tr->device = dev;
            tr->host = !dev;
            tr->device_op = tr->has_kernel;
        }
        tr->steps = strcmp(th, "Steps") == 0;
    }
    b->kineto = !seed_names;
    b->cpu_ops = 1;
    for (uint32_t t = 0; t < b->ntracks; t++)
        if (b->tracks[t].device_op)
            b->cpu_ops = 0;
}

static int event_category(const ctx *c, uint32_t e)
{
    const track *tr = &c->b->tracks[c->b->m->track[e]];
    uint8_t f = c->name_flags[c->b->m->name[e]];
    if (f & 1)
        return CAT_STALL;
    if (tr->host)
        return CAT_HOST;
    if (f & 2)
        return CAT_COMM;
    if (tr->device)
        return CAT_COMPUTE;
    return CAT_OTHER;
}

typedef struct sweep_pt {
    int64_t t;
    int delta; /* -1 end, +1 start */
    int comm;
} sweep_pt;

static int cmp_sweep(const void *pa, const void *pb)
{
    const sweep_pt *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->delta - b->delta;
}

/* Spec 1.7. */
int sm_time_breakdown(ctx *c)
{
    sm_builder *b = c->b;
    double parts[5] = {0};
    const char *basis;
    double total = 0;
    if (!c->o->global_breakdown) {
        basis = "exclusive_duration_per_track";
        int64_t ps[5] = {0};
        for (size_t e = 0; e < b->m->n; e++)
            if (sm_work(b, e) && !b->tracks[b->m->track[e]].steps)
                ps[event_category(c, (uint32_t)e)] += c->excl[e];
        for (int k = 0; k < 5; k++) {
            parts[k] = us_of(ps[k]);
            total += parts[k];
        }
    } else {
        basis = "exclusive_duration_global_timeline";
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        size_t np = 0;
        for (size_t e = 0; e < b->m->n; e++) {
            const track *tr = &b->tracks[b->m->track[e]];
            if (!tr->device || tr->steps || !sm_work(b, e))
                continue;
            int cat = event_category(c, (uint32_t)e);
            if (cat == CAT_COMPUTE) {
                lo = b->m->start_ps[e] < lo ? b->m->start_ps[e] : lo;
                hi = b->m->start_ps[e] + b->m->dur_ps[e] > hi ? b->m->start_ps[e] + b->m->dur_ps[e]
                                                              : hi;
            }
            if (cat == CAT_COMPUTE || cat == CAT_COMM)
                np += 2;
        }
        if (lo < hi) {
            sweep_pt *pts = pq_malloc_array(np + 1, sizeof *pts);
            if (!pts)
                return -1;
            size_t k = 0;
            for (size_t e = 0; e < b->m->n; e++) {
                const track *tr = &b->tracks[b->m->track[e]];
                if (!tr->device || tr->steps || !sm_work(b, e))
                    continue;
                int cat = event_category(c, (uint32_t)e);
                if (cat != CAT_COMPUTE && cat != CAT_COMM)
                    continue;
                int64_t s = b->m->start_ps[e] < lo ? lo : b->m->start_ps[e];
                int64_t t = b->m->start_ps[e] + b->m->dur_ps[e] > hi
                                ? hi
                                : b->m->start_ps[e] + b->m->dur_ps[e];
                if (t <= s)
                    continue;
                pts[k++] = (sweep_pt){s, 1, cat == CAT_COMM};
                pts[k++] = (sweep_pt){t, -1, cat == CAT_COMM};
            }
            qsort(pts, k, sizeof *pts, cmp_sweep);
            int64_t ps[5] = {0}, prev = lo;
            long ncomm = 0, ncomp = 0;
            for (size_t j = 0; j < k; j++) {
                int64_t seg = pts[j].t - prev;
                if (seg > 0)
                    ps[ncomm > 0 ? CAT_COMM : ncomp > 0 ? CAT_COMPUTE : CAT_STALL] += seg;
                prev = pts[j].t > prev ? pts[j].t : prev;
                if (pts[j].comm)
                    ncomm += pts[j].delta;
                else
                    ncomp += pts[j].delta;
            }
            if (hi > prev)
                ps[CAT_STALL] += hi - prev;
            pq_free(pts);
            for (int m = 0; m < 5; m++)
                parts[m] = us_of(ps[m]);
            total = us_of(hi - lo);
        }
    }
    c->total = total;
    pq_sm_breakdown *o = &c->res->r.time_breakdown;
    o->duration_basis = basis;
    o->total_duration = total;
    for (int k = 0; k < PQ_SM_NCATEGORIES; k++) {
        c->shares[k] = total > 0 ? parts[k] / total : 0.0;
        o->category_total[k] = parts[k];
        o->category_share[k] = c->shares[k];
    }
    return 0;
}

/* The work view's events in order by (track, ts, -end) into C->order, and their self
 * times (1.5). */
int sm_exclusive(ctx *c)
{
    const sm_builder *b = c->b;
    size_t n = b->m->n, k = 0;
    c->excl = pq_calloc(n + 1, sizeof *c->excl);
    c->order = pq_malloc_array(b->nwork + 1, sizeof *c->order);
    if (!c->excl || !c->order)
        return -1;
    for (size_t e = 0; e < n; e++)
        if (sm_work(b, e))
            c->order[k++] = (uint32_t)e;
    if (sm_sort_by_track(b, SORT_END_DESC, c->order, k) != 0)
        return -1;
    return compute_exclusive(c);
}
