/* trace_events.c - trace-event JSON to the model's events; see trace_events.h.
 * Acceptance (spec/seed-tools.md 1.3): pid and tid non-negative ints, ts and dur numbers,
 * a non-empty name, dur > 0. The seed ignores B/E; profq pairs them per (pid, tid), last
 * B first, and keeps the B's args. Instants, counters, flows and async events carry no
 * duration on a thread and do not enter the summary (they count in num_events_total). */
#include "trace_events.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/jval.h"
#include "core/vec.h"

#include <stdio.h>
#include <string.h>

typedef struct open_b {
    int64_t pid, tid;
    tj_time ts;
    char *name, *tf_op, *source, *long_name, *run_id, *module;
    int has_step, xla_op;
    int64_t step;
} open_b;

PQ_VEC_DEFINE(str_vec, char *)
PQ_VEC_DEFINE(open_vec, open_b)

enum { MAX_STRING_IDS = 65536 };
#define MAX_OPEN SIZE_MAX /* B events waiting: bounded by memory only, as before */

typedef struct feed {
    const pq_events *out;
    str_vec sids;  /* string pids/tids seen (old Kineto: "tid": "stream 7"), in order */
    open_vec open; /* B events waiting for their E */
    char tmp[6][4096];
    int oom;
} feed;

/* The args the summary reads; the reader finds them while it skips the rest. */
enum {
    A_TF_OP,
    A_SOURCE,
    A_LONG_NAME,
    A_RUN_ID,
    A_STEP_NUM,
    A_NAME,
    A_HLO_OP,
    A_HLO_MODULE,
    A_COUNT
};
static const char *const ARG_KEYS[A_COUNT] = {"tf_op",    "source", "long_name", "run_id",
                                              "step_num", "name",   "hlo_op",    "hlo_module"};
static int on_top_value(void *vctx, const char *key, pq_str raw, pq_error *err);
static const tj_want WANT = {ARG_KEYS, A_COUNT, on_top_value};

/* A non-empty string value into SB; returns its view (empty when absent or not a string). */
static pq_str arg_str(pq_str raw, char *sb, size_t cap)
{
    pq_str out = {sb, 0};
    if (!raw.n)
        return out;
    long n = tj_string_value(raw, sb, cap);
    if (n > 0)
        out.n = (size_t)n;
    return out;
}

/* run_id: a string, or a number as Python's str() writes it. */
static pq_str arg_run_id(pq_str raw, char *sb, size_t cap)
{
    pq_str out = {sb, 0};
    if (!raw.n)
        return out;
    long n = tj_string_value(raw, sb, cap);
    if (n > 0) {
        out.n = (size_t)n;
        return out;
    }
    double d;
    if (raw.n < cap && tj_number_value(raw, &d)) {
        int is_int = 1;
        for (size_t k = 0; k < raw.n; k++)
            if (raw.p[k] == '.' || raw.p[k] == 'e' || raw.p[k] == 'E')
                is_int = 0;
        if (is_int) {
            memcpy(sb, raw.p, raw.n);
            sb[raw.n] = '\0';
            out.n = raw.n;
        } else {
            out.n = (size_t)py_float_repr(sb, cap, d);
        }
    }
    return out;
}

/* step_num: an int, or a string of digits. */
static int arg_step(pq_str raw, int64_t *out)
{
    if (!raw.n)
        return 0;
    char sb[64];
    const char *s = raw.p;
    size_t n = raw.n;
    if (tj_string_value(raw, sb, sizeof sb) > 0) {
        s = sb;
        n = strlen(sb);
    }
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    int neg = 0;
    if (n && (*s == '-' || *s == '+')) {
        neg = *s == '-';
        s++;
        n--;
    }
    if (!n || n > 18)
        return 0;
    int64_t v = 0;
    for (size_t k = 0; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0;
        v = v * 10 + (s[k] - '0');
    }
    *out = neg ? -v : v;
    return 1;
}

/* Kineto's categories of GPU-side events (old traces: Kernel, Memcpy, Memset) as
 * SLICE_GPU_* flags; 0 for every other category. */
static unsigned gpu_cat(pq_str cat)
{
    /* By length first: this runs for every event. */
    switch (cat.n) {
    case 6:
        if (memcmp(cat.p, "kernel", 6) == 0 || memcmp(cat.p, "Kernel", 6) == 0)
            return SLICE_GPU_KERNEL;
        if (memcmp(cat.p, "Memcpy", 6) == 0)
            return SLICE_GPU_MEMCPY;
        return memcmp(cat.p, "Memset", 6) == 0 ? SLICE_GPU_MEMSET : 0;
    case 10:
        if (memcmp(cat.p, "gpu_memcpy", 10) == 0)
            return SLICE_GPU_MEMCPY;
        return memcmp(cat.p, "gpu_memset", 10) == 0 ? SLICE_GPU_MEMSET : 0;
    case 19:
        return memcmp(cat.p, "gpu_user_annotation", 19) == 0 ? SLICE_GPU_ANNOTATION : 0;
    default:
        return 0;
    }
}

static char *dup_str(pq_str s)
{
    char *p = pq_malloc(s.n + 1);
    if (p) {
        if (s.n)
            memcpy(p, s.p, s.n);
        p[s.n] = '\0';
    }
    return p;
}

static pq_str view(const char *s)
{
    pq_str v = {s ? s : "", s ? strlen(s) : 0};
    return v;
}

static void free_open(open_b *o)
{
    pq_free(o->name);
    pq_free(o->tf_op);
    pq_free(o->source);
    pq_free(o->long_name);
    pq_free(o->run_id);
    pq_free(o->module);
}

/* Old Kineto traces write ids as strings ("25738", "stream 7"): a string of digits is
 * that integer; any other string gets a stable id above 2^40 in order of first sight. The
 * seed (which requires integers) would drop these events; profq keeps them. */
static int string_id(feed *f, pq_str raw, int64_t *out)
{
    if (raw.n && raw.n <= 15) {
        int64_t v = 0;
        size_t k = 0;
        for (; k < raw.n && raw.p[k] >= '0' && raw.p[k] <= '9'; k++)
            v = v * 10 + (raw.p[k] - '0');
        if (k == raw.n) {
            *out = v;
            return 1;
        }
    }
    for (size_t k = 0; k < f->sids.n; k++)
        if (strlen(f->sids.v[k]) == raw.n && memcmp(f->sids.v[k], raw.p, raw.n) == 0) {
            *out = ((int64_t)1 << 40) + (int64_t)k;
            return 1;
        }
    if (f->sids.n >= MAX_STRING_IDS ||
        str_vec_reserve(&f->sids, f->sids.n + 1, MAX_STRING_IDS) != 0)
        return 0;
    char *c = dup_str(raw);
    if (!c)
        return 0;
    *out = ((int64_t)1 << 40) + (int64_t)f->sids.n;
    f->sids.v[f->sids.n++] = c;
    return 1;
}

/* One element of deviceProperties: an object with an integer id, else skipped. */
static int feed_device(feed *f, const jval *o)
{
    const jval *id = jv_get(o, "id");
    if (o->t != JV_OBJ || !id || id->t != JV_INT)
        return 0;
    pq_device_cap_in caps[64];
    pq_device_in d = {id->i, jv_get(o, "computeMajor") ? "GPU" : "accelerator", {"", 0}, caps, 0};
    for (size_t k = 0; k < o->n && d.ncaps < sizeof caps / sizeof *caps; k++) {
        const jval *v = o->items[k];
        if (strcmp(o->keys[k], "id") == 0)
            continue;
        if (strcmp(o->keys[k], "name") == 0 && v->t == JV_STR) {
            d.name = (pq_str){v->s, v->sn};
            continue;
        }
        pq_device_cap_in *c = &caps[d.ncaps];
        memset(c, 0, sizeof *c);
        c->key = (pq_str){o->keys[k], strlen(o->keys[k])};
        if (v->t == JV_INT)
            c->v.kind = PQ_DEV_INT, c->v.i = v->i;
        else if (v->t == JV_NUM)
            c->v.kind = PQ_DEV_NUM, c->v.d = v->d;
        else if (v->t == JV_STR)
            c->v.kind = PQ_DEV_STR, c->v.s = (pq_str){v->s, v->sn};
        else if (v->t == JV_BOOL)
            c->v.kind = PQ_DEV_BOOL, c->v.i = v->b;
        else
            continue; /* null, arrays, objects: not a capability value */
        d.ncaps++;
    }
    return f->out->device(f->out->ctx, &d) != 0;
}

static int on_event(void *vctx, const tj_event *e0, pq_error *err)
{
    feed *f = vctx;
    (void)err;
    const tj_event *e = e0;
    tj_event ecopy;
    if (e0->pid_kind == TJ_STRING || e0->tid_kind == TJ_STRING) {
        /* String ids become integers on a copy (the usual event is read in place). */
        ecopy = *e0;
        e = &ecopy;
        if (e->pid_kind == TJ_STRING && e->pid_str.n && string_id(f, e->pid_str, &ecopy.pid))
            ecopy.pid_kind = TJ_INT;
        if (e->tid_kind == TJ_STRING && e->tid_str.n && string_id(f, e->tid_str, &ecopy.tid))
            ecopy.tid_kind = TJ_INT;
    }
    if (e->ph == 'M') {
        if (e->pid_kind != TJ_INT)
            return 0;
        char sb[4096];
        int is_proc = e->name.n == 12 && memcmp(e->name.p, "process_name", 12) == 0;
        int is_thread = e->name.n == 11 && memcmp(e->name.p, "thread_name", 11) == 0;
        if (!is_proc && !is_thread)
            return 0;
        pq_str raw = e->argv[A_NAME];
        if (!raw.n)
            return 0;
        long n = tj_string_value(raw, sb, sizeof sb);
        if (n < 0)
            return 0;
        pq_str nm = {sb, (size_t)n};
        if (is_proc)
            return f->out->process_name(f->out->ctx, e->pid, nm) != 0;
        if (e->tid_kind == TJ_INT)
            return f->out->thread_name(f->out->ctx, e->pid, e->tid, nm) != 0;
        return 0;
    }
    if (e->ph != 'X' && e->ph != 'B' && e->ph != 'E')
        return 0;
    if (e->pid_kind != TJ_INT || e->tid_kind != TJ_INT || e->pid < 0 || e->tid < 0 ||
        e->ts_kind != TJ_INT)
        return 0;
    if (e->ph == 'B') {
        open_b *o = open_vec_add(&f->open, MAX_OPEN);
        if (!o)
            return 1;
        o->pid = e->pid;
        o->tid = e->tid;
        o->ts = e->ts;
        o->name = dup_str(e->name);
        const pq_str *av = e->argv;
        o->tf_op = dup_str(arg_str(av[A_TF_OP], f->tmp[0], sizeof f->tmp[0]));
        o->source = dup_str(arg_str(av[A_SOURCE], f->tmp[1], sizeof f->tmp[1]));
        o->long_name = dup_str(arg_str(av[A_LONG_NAME], f->tmp[2], sizeof f->tmp[2]));
        o->run_id = dup_str(arg_run_id(av[A_RUN_ID], f->tmp[3], sizeof f->tmp[3]));
        o->has_step = arg_step(av[A_STEP_NUM], &o->step);
        o->xla_op = arg_str(av[A_HLO_OP], f->tmp[4], sizeof f->tmp[4]).n > 0;
        o->module = dup_str(arg_str(av[A_HLO_MODULE], f->tmp[5], sizeof f->tmp[5]));
        if (!o->name || !o->tf_op || !o->source || !o->long_name || !o->run_id || !o->module)
            return 1;
        return 0;
    }
    pq_slice_in ev;
    memset(&ev, 0, sizeof ev);
    ev.pid = e->pid;
    ev.tid = e->tid;
    ev.gpu = gpu_cat(e->cat);
    if (e->ph == 'E') {
        open_b *ob = f->open.v;
        size_t k = f->open.n;
        while (k > 0 && !(ob[k - 1].pid == e->pid && ob[k - 1].tid == e->tid))
            k--;
        if (k == 0)
            return 0; /* an E without its B: nothing to pair */
        open_b o = ob[k - 1];
        memmove(&ob[k - 1], &ob[k], (f->open.n - k) * sizeof *ob);
        f->open.n--;
        int64_t dur = (e->ts.us - o.ts.us) * 1000000 + (e->ts.frac_ps - o.ts.frac_ps);
        int rc = 0;
        if (dur > 0 && o.name[0]) {
            ev.name = view(o.name);
            ev.ts_us = o.ts.us;
            ev.ts_frac_ps = o.ts.frac_ps;
            ev.dur_ps = dur;
            ev.tf_op = view(o.tf_op);
            ev.source = view(o.source);
            ev.long_name = view(o.long_name);
            ev.run_id = view(o.run_id);
            ev.has_step_num = o.has_step;
            ev.step_num = o.step;
            ev.xla_op = o.xla_op;
            ev.module = view(o.module);
            rc = f->out->slice(f->out->ctx, &ev) != 0;
        }
        free_open(&o);
        return rc;
    }
    if (e->dur_kind != TJ_INT || e->name.n == 0)
        return 0;
    if (e->dur.us < 0 || (e->dur.us == 0 && e->dur.frac_ps == 0) || e->dur.us > INT64_MAX / 4000000)
        return 0;
    ev.name = e->name;
    ev.ts_us = e->ts.us;
    ev.ts_frac_ps = e->ts.frac_ps;
    ev.dur_ps = e->dur.us * 1000000 + e->dur.frac_ps;
    const pq_str *av = e->argv;
    ev.tf_op = arg_str(av[A_TF_OP], f->tmp[0], sizeof f->tmp[0]);
    ev.source = arg_str(av[A_SOURCE], f->tmp[1], sizeof f->tmp[1]);
    ev.long_name = arg_str(av[A_LONG_NAME], f->tmp[2], sizeof f->tmp[2]);
    ev.run_id = arg_run_id(av[A_RUN_ID], f->tmp[3], sizeof f->tmp[3]);
    ev.has_step_num = arg_step(av[A_STEP_NUM], &ev.step_num);
    ev.xla_op = arg_str(av[A_HLO_OP], f->tmp[4], sizeof f->tmp[4]).n > 0;
    ev.module = arg_str(av[A_HLO_MODULE], f->tmp[5], sizeof f->tmp[5]);
    return f->out->slice(f->out->ctx, &ev) != 0;
}

/* A top-level value: Kineto's deviceProperties (an array of objects, one per GPU or
 * accelerator: id, name, then what the runtime states, as totalGlobalMem, computeMajor,
 * numSms) becomes the model's devices, each key kept as stated. */
static int on_top_value(void *vctx, const char *key, pq_str raw, pq_error *err)
{
    feed *f = vctx;
    (void)err;
    if (strcmp(key, "deviceProperties") != 0 || !f->out->device)
        return 0;
    size_t off;
    const char *what = NULL;
    jval *root = jv_parse(raw.p, raw.n, &off, &what);
    if (!root)
        return what && strcmp(what, "out of memory") == 0;
    int rc = 0;
    for (size_t k = 0; root->t == JV_ARR && k < root->n && !rc; k++)
        rc = feed_device(f, root->items[k]);
    jv_free(root);
    return rc;
}

/* Reads from DATA (N bytes) when PATH is NULL, else from the file PATH. */
static pq_status feed_from(const char *path, const uint8_t *data, size_t n, const char *name,
                           const pq_events *out, tj_info *info, pq_error *err)
{
    feed *f = pq_calloc(1, sizeof *f);
    RETURN_ERROR_IF(!f, err, PQ_ERR_NOMEM, name, -1, "out of memory");
    f->out = out;
    pq_error local;
    memset(&local, 0, sizeof local);
    pq_error *e = err ? err : &local;
    pq_status st = path ? tj_read_file(path, &WANT, on_event, f, info, e)
                        : tj_read_memory_want(data, n, name, &WANT, on_event, f, info, e);
    if (st == PQ_ERR_INTERNAL)
        st = err_set(err, PQ_ERR_NOMEM, name, -1, "out of memory while reading events");
    for (size_t k = 0; k < f->open.n; k++)
        free_open(&f->open.v[k]);
    for (size_t k = 0; k < f->sids.n; k++)
        pq_free(f->sids.v[k]);
    str_vec_free(&f->sids);
    open_vec_free(&f->open);
    pq_free(f);
    return st;
}

pq_status trace_events_feed(const uint8_t *data, size_t n, const char *name, const pq_events *out,
                            tj_info *info, pq_error *err)
{
    return feed_from(NULL, data, n, name, out, info, err);
}

pq_status trace_events_feed_file(const char *path, const pq_events *out, tj_info *info,
                                 pq_error *err)
{
    return feed_from(path, NULL, 0, path, out, info, err);
}
