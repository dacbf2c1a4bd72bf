/* slices.c - the model's tracks and columnar slices; see slices.h. Not here: what the
 * slices mean (analysis/), how a format turns into them (formats/). */
#include "slices.h"

#include "core/alloc.h"
#include "core/vec.h"

#include <stdint.h>
#include <string.h>

int slices_init(model_slices *m)
{
    memset(m, 0, sizeof *m);
    devices_init(&m->devices);
    if (intern_init(&m->names) != 0) {
        intern_free(&m->names);
        devices_free(&m->devices);
        return -1;
    }
    return 0;
}

void slices_free(model_slices *m)
{
    if (!m)
        return;
    intern_free(&m->names);
    pairmap_free(&m->track_map);
    pairmap_free(&m->proc_names);
    pairmap_free(&m->thread_names);
    pq_free(m->tracks);
    pq_free(m->track);
    pq_free(m->name);
    pq_free(m->tf_op);
    pq_free(m->source);
    pq_free(m->long_name);
    pq_free(m->run_id);
    pq_free(m->start_ps);
    pq_free(m->dur_ps);
    pq_free(m->step);
    pq_free(m->flags);
    pq_free(m->module);
    pq_free(m->op);
    devices_free(&m->devices);
    memset(m, 0, sizeof *m);
}

static const char *name_of(const model_slices *m, const pairmap *map, int64_t a, int64_t b)
{
    uint32_t id = pairmap_get(map, a, b);
    return id == UINT32_MAX ? "" : intern_str(&m->names, id);
}

const char *slices_process_name(const model_slices *m, int64_t pid)
{
    return name_of(m, &m->proc_names, pid, 0);
}

const char *slices_thread_name(const model_slices *m, int64_t pid, int64_t tid)
{
    return name_of(m, &m->thread_names, pid, tid);
}

static int set_name(model_slices *m, pairmap *map, int64_t a, int64_t b, pq_str name)
{
    int fresh;
    uint32_t *s = pairmap_slot(map, a, b, &fresh);
    if (!s)
        return m->failed = -1;
    *s = intern_add(&m->names, name.p, name.n);
    return m->names.failed ? (m->failed = -1) : 0;
}

static int on_process_name(void *ctx, int64_t pid, pq_str name)
{
    model_slices *m = ctx;
    return set_name(m, &m->proc_names, pid, 0, name);
}

static int on_thread_name(void *ctx, int64_t pid, int64_t tid, pq_str name)
{
    model_slices *m = ctx;
    return set_name(m, &m->thread_names, pid, tid, name);
}

#define GROW(ptr, cap)                                                                             \
    do {                                                                                           \
        void *np_ = pq_realloc_array((ptr), cap, sizeof *(ptr));                                   \
        if (!np_)                                                                                  \
            return m->failed = -1;                                                                 \
        (ptr) = np_;                                                                               \
    } while (0)

/* The columns at capacity CAP (at least m->n). */
static int grow_to(model_slices *m, size_t cap)
{
    GROW(m->track, cap);
    GROW(m->name, cap);
    GROW(m->tf_op, cap);
    GROW(m->source, cap);
    GROW(m->long_name, cap);
    GROW(m->run_id, cap);
    GROW(m->start_ps, cap);
    GROW(m->dur_ps, cap);
    if (m->step)
        GROW(m->step, cap);
    GROW(m->flags, cap);
    if (m->module)
        GROW(m->module, cap);
    if (m->op)
        GROW(m->op, cap);
    m->cap = cap;
    return 0;
}

static int grow_columns(model_slices *m)
{
    /* Parallel columns: one capacity, grown as core/vec.h grows (checked against the widest
     * column's bytes), starting at 4096 slices. */
    size_t cap = m->cap ? pq_vec_next_cap(m->cap, m->n + 1, sizeof(int64_t), SIZE_MAX) : 4096;
    if (!cap)
        return m->failed = -1;
    return grow_to(m, cap);
}

int slices_reserve(model_slices *m, size_t more)
{
    if (m->failed)
        return -1;
    if (more <= m->cap - m->n)
        return 0;
    if (more > (SIZE_MAX / sizeof(int64_t)) - m->n)
        return m->failed = -1;
    return grow_to(m, m->n + more);
}

/* The track of (PID, TID), made on first sight; UINT32_MAX when memory ran out. */
static uint32_t track_of(model_slices *m, int64_t pid, int64_t tid)
{
    /* Consecutive slices are mostly on one thread: the last track first. */
    uint32_t t = m->last_track;
    if (t < m->ntracks && m->tracks[t].pid == pid && m->tracks[t].tid == tid)
        return t;
    int fresh;
    uint32_t *slot = pairmap_slot(&m->track_map, pid, tid, &fresh);
    if (!slot)
        return UINT32_MAX;
    if (fresh) {
        if (m->ntracks == m->captracks) {
            size_t cap =
                pq_vec_next_cap(m->captracks < 32 ? 32 : m->captracks, (size_t)m->ntracks + 1,
                                sizeof(slice_track), UINT32_MAX - 1);
            slice_track *nt = cap ? pq_realloc_array(m->tracks, cap, sizeof *nt) : NULL;
            if (!nt)
                return UINT32_MAX;
            m->tracks = nt;
            m->captracks = (uint32_t)cap;
        }
        memset(&m->tracks[m->ntracks], 0, sizeof *m->tracks);
        m->tracks[m->ntracks].pid = pid;
        m->tracks[m->ntracks].tid = tid;
        *slot = m->ntracks++;
    }
    return m->last_track = *slot;
}

/* The id of P[0..N): *LAST when that is its string (thunk slices come in runs of one module
 * execution, sharing their module and run id: a compare instead of a hash and a probe),
 * else interned and kept in *LAST. The same id either way. */
static uint32_t intern_again(intern_pool *pl, uint32_t *last, const char *p, size_t n)
{
    if (n && p && *last && intern_len(pl, *last) == n && !memcmp(intern_str(pl, *last), p, n))
        return *last;
    uint32_t id = intern_add(pl, p, n);
    if (n)
        *last = id;
    return id;
}

static int on_slice(void *ctx, const pq_slice_in *e)
{
    model_slices *m = ctx;
    if (m->failed)
        return -1;
    if (m->n == m->cap && grow_columns(m) != 0)
        return -1;
    uint32_t trk = track_of(m, e->pid, e->tid);
    if (trk == UINT32_MAX)
        return m->failed = -1;
    if (e->gpu & SLICE_GPU_WORK)
        m->tracks[trk].has_kernel = 1;
    if (!m->have_base) {
        m->have_base = 1;
        m->base_us = e->ts_us;
    }
    size_t i = m->n;
    m->track[i] = trk;
    m->name[i] = intern_add(&m->names, e->name.p, e->name.n);
    m->tf_op[i] = intern_add(&m->names, e->tf_op.p, e->tf_op.n);
    m->source[i] = intern_add(&m->names, e->source.p, e->source.n);
    m->long_name[i] = intern_add(&m->names, e->long_name.p, e->long_name.n);
    m->run_id[i] = intern_again(&m->names, &m->last_run, e->run_id.p, e->run_id.n);
    /* Relative to the first slice: epoch-µs timestamps times 1e6 would not fit int64.
     * Clamped to +-2^60 ps (13 days) so start + duration, doubled for midpoints, never
     * overflows; a trace spanning more than that is not a profile. */
    const int64_t lim_us = ((int64_t)1 << 60) / 1000000;
    int64_t t = e->ts_us, base = m->base_us;
    int64_t rel;
    if (t < INT64_MIN / 4 || t > INT64_MAX / 4 || base < INT64_MIN / 4 || base > INT64_MAX / 4)
        rel = t > base ? lim_us : -lim_us;
    else
        rel = t - base;
    if (rel > lim_us || rel < -lim_us)
        rel = rel > 0 ? lim_us : -lim_us;
    m->start_ps[i] = rel * 1000000 + e->ts_frac_ps;
    m->dur_ps[i] = e->dur_ps > ((int64_t)1 << 60) ? ((int64_t)1 << 60) : e->dur_ps;
    slice_track *tr = &m->tracks[trk];
    int64_t end = m->start_ps[i] + m->dur_ps[i];
    if (!tr->nslices || m->start_ps[i] < tr->first_ps)
        tr->first_ps = m->start_ps[i];
    if (!tr->nslices || end > tr->end_ps)
        tr->end_ps = end;
    tr->nslices++;
    if (e->has_step_num && !m->step) {
        /* The first slice with a step_num: the column starts here, zero before. */
        m->step = pq_calloc(m->cap, sizeof *m->step);
        if (!m->step)
            return m->failed = -1;
    }
    if (m->step)
        m->step[i] = e->step_num;
    if (m->op)
        m->op[i] = 0;
    m->flags[i] = (uint8_t)((e->has_step_num ? SLICE_HAS_STEP : 0) |
                            (e->xla_op ? SLICE_XLA_OP : 0) | (e->gpu & 0xFC));
    if (e->module.n && !m->module) {
        /* The first slice that names a module: the column starts here, zero before. */
        m->module = pq_calloc(m->cap, sizeof *m->module);
        if (!m->module)
            return m->failed = -1;
    }
    if (m->module)
        m->module[i] = intern_again(&m->names, &m->last_module, e->module.p, e->module.n);
    m->n++;
    if (m->names.failed)
        return m->failed = -1;
    return 0;
}

static int on_device(void *ctx, const pq_device_in *d)
{
    model_slices *m = ctx;
    return devices_add(&m->devices, d) != 0 ? (m->failed = -1) : 0;
}

/* The op slice I of M states (its key, category, name copied to STRINGS) into OPS; its index,
 * or SIZE_MAX when memory ran out. */
static size_t state_op(const model_slices *m, size_t i, model_ops *ops, arena *strings)
{
    uint8_t f = m->flags[i];
    model_op op;
    memset(&op, 0, sizeof op);
    if (f & SLICE_XLA_OP) {
        op.program_id = m->module ? m->module[i] : 0;
    } else {
        op.program_id = (uint64_t)m->track[i] + 1;
        op.category = (f & SLICE_GPU_MEMCPY)   ? (pq_str){"memcpy", 6}
                      : (f & SLICE_GPU_MEMSET) ? (pq_str){"memset", 6}
                                               : (pq_str){"kernel", 6};
    }
    uint32_t len = intern_len(&m->names, m->name[i]);
    char *name = arena_strndup(strings, intern_str(&m->names, m->name[i]), len);
    if (!name)
        return SIZE_MAX;
    op.name = (pq_str){name, len};
    op.custom_call = 1; /* no figures per occurrence to scale */
    return model_ops_state(ops, &op);
}

int slices_state_ops(model_slices *m, model_ops *ops, arena *strings)
{
    pairmap keys = {0}; /* (module id, or -(track + 1) for stream work; name id) -> op + 1 */
    int rc = 0;
    for (size_t i = 0; i < m->n && rc == 0; i++) {
        uint8_t f = m->flags[i];
        if (!(f & (SLICE_XLA_OP | SLICE_GPU_WORK)))
            continue;
        if (!m->op && !(m->op = pq_calloc(m->cap, sizeof *m->op))) {
            rc = -1;
            break;
        }
        int64_t a = (f & SLICE_XLA_OP) ? (int64_t)(m->module ? m->module[i] : 0)
                                       : -((int64_t)m->track[i] + 1);
        int fresh;
        uint32_t *slot = pairmap_slot(&keys, a, m->name[i], &fresh);
        if (!slot) {
            rc = -1;
            break;
        }
        if (fresh) {
            size_t at = state_op(m, i, ops, strings);
            if (at >= UINT32_MAX - 1) {
                rc = -1;
                break;
            }
            *slot = (uint32_t)at + 1;
        }
        m->op[i] = *slot;
    }
    pairmap_free(&keys);
    return rc;
}

pq_events slices_events(model_slices *m)
{
    pq_events ev = {on_process_name, on_thread_name, on_slice, m, on_device};
    return ev;
}
