/* summary.c - profile_summary.v1, every section, from complete events; see summary.h.
 * The algorithms are the seed's (spec/seed-tools.md 1.3-1.19), cited per function.
 * Not here: reading traces (formats/), writing files (cli/). */
#define _GNU_SOURCE
#include "summary.h"

#include "core/alloc.h"
#include "core/pairmap.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS_PER_US 1000000.0

/* "Counter" over (key, value) pairs: counts and first-seen order, for most_common. */
typedef struct counter {
    pairmap map;
    int64_t *key, *value;
    uint64_t *count;
    double *weight;
    uint32_t n, cap;
    int failed;
} counter;

static void counter_free(counter *c)
{
    pairmap_free(&c->map);
    pq_free(c->key);
    pq_free(c->value);
    pq_free(c->count);
    pq_free(c->weight);
    memset(c, 0, sizeof *c);
}

static void counter_add(counter *c, int64_t key, int64_t value, uint64_t n, double w)
{
    int fresh;
    uint32_t *slot = pairmap_slot(&c->map, key, value, &fresh);
    if (!slot) {
        c->failed = 1;
        return;
    }
    if (fresh) {
        if (c->n == c->cap) {
            uint32_t cap = c->cap ? c->cap * 2 : 256;
            int64_t *nk = pq_realloc_array(c->key, cap, sizeof *nk);
            if (nk)
                c->key = nk;
            int64_t *nv = pq_realloc_array(c->value, cap, sizeof *nv);
            if (nv)
                c->value = nv;
            uint64_t *nc = pq_realloc_array(c->count, cap, sizeof *nc);
            if (nc)
                c->count = nc;
            double *nw = pq_realloc_array(c->weight, cap, sizeof *nw);
            if (nw)
                c->weight = nw;
            if (!nk || !nv || !nc || !nw) {
                c->failed = 1;
                *slot = 0;
                return;
            }
            c->cap = cap;
        }
        *slot = c->n;
        c->key[c->n] = key;
        c->value[c->n] = value;
        c->count[c->n] = 0;
        c->weight[c->n] = 0;
        c->n++;
    }
    c->count[*slot] += n;
    c->weight[*slot] += w;
}

/* ---------------------------------------------------------------------------------------
 * The summary's view of the model's slices: each track with its classes (spec 1.4). */

typedef struct track {
    int64_t pid, tid;
    int has_kernel;
    int device, host, device_op, steps;
} track;

typedef struct sm_builder {
    model_slices
        *m; /* the timeline; the summary interns the strings it derives into its intern_pool */
    track *tracks;
    uint32_t ntracks;
    int cpu_ops; /* no device-op track: XLA ops on host threads stand in for device ops */
} sm_builder;

/* ---------------------------------------------------------------------------------------
 * Name semantics (spec 1.3, 1.6, 1.10). */

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, n) == 0)
            return 1;
    return 0;
}

static int is_stall(const char *name)
{
    static const char *const pats[] = {"wait",           "barrier",   "dependency-wait",
                                       "donation holds", "semaphore", "acquire",
                                       "idle",           "blocked",   "sleep"};
    for (size_t k = 0; k < sizeof pats / sizeof *pats; k++)
        if (contains_ci(name, pats[k]))
            return 1;
    return 0;
}

static int is_comm(const char *name)
{
    static const char *const pats[] = {
        "all-reduce", "all_gather", "all-gather", "reduce-scatter",
        "all-to-all", "alltoall",   "collective", "collective-permute",
        "permute",    "psum",       "send",       "recv",
        "nccl",       "allgather",  "allreduce",  "reducescatter"};
    for (size_t k = 0; k < sizeof pats / sizeof *pats; k++)
        if (contains_ci(name, pats[k]))
            return 1;
    return 0;
}

const char *sm_collective_kind(const char *n)
{
    if (contains_ci(n, "all-reduce") || contains_ci(n, "allreduce") || contains_ci(n, "psum"))
        return "all-reduce";
    if (contains_ci(n, "all-gather") || contains_ci(n, "all_gather") || contains_ci(n, "allgather"))
        return "all-gather";
    if (contains_ci(n, "reduce-scatter") || contains_ci(n, "reducescatter"))
        return "reduce-scatter";
    if (contains_ci(n, "all-to-all") || contains_ci(n, "alltoall"))
        return "all-to-all";
    if (contains_ci(n, "collective-permute") || contains_ci(n, "permute"))
        return "collective-permute";
    if (contains_ci(n, "async-collective"))
        return "async-collective";
    if (contains_ci(n, "send") || contains_ci(n, "recv"))
        return "send-recv";
    return "other-collective";
}

void sm_canonical_op_name(const char *name, size_t n, char *out, size_t cap)
{
    const char *s = name, *e = name + n;
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    while (s < e && *s == '%')
        s++;
    /* one trailing \.\d+ */
    const char *d = e;
    while (d > s && isdigit((unsigned char)d[-1]))
        d--;
    if (d < e && d > s && d[-1] == '.')
        e = d - 1;
    size_t len = (size_t)(e - s) < cap - 1 ? (size_t)(e - s) : cap - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

static const struct {
    const char *family, *re;
} FAMILIES[] = {
    {"optimizer_muon", "muon|newton_schulz|zeropower|orthogonalize"},
    {"optimizer_adam", "adamh|adam|update_(first|second)_moment"},
    {"optimizer_apply", "optimizer_update|apply_updates|apply_qb_betas"},
    {"moe", "moe|ragged|expert"},
    {"attention_splash", "splash_mha|splash_attention"},
    {"attention_flash", "flash_attention|fused_attention|fa4_cute"},
    {"attention_dense", "CausalSelfAttention|apply_rotary_embedding"},
    {"dense_mlp", "DenseMLP"},
    {"norm_gating", "RMSNorm|GatedNorm|jit\\\\(silu\\\\)"},
    {"loss_xent", "linear_softmax_cross_entropy_loss|softmax_cross_entropy|xent"},
    {"fusion", "(^|\\b)(fusion\\.|exponential_reduce_fusion)"},
    {"copy", "(^|\\b)copy(\\.|-|$)"},
    {"convert", "convert_element_type"},
    {"collective", "all-reduce|all_gather|all-gather|reduce-scatter|all-to-all|alltoall|"
                   "collective|nccl|allgather|allreduce|reducescatter"},
};
enum { NFAMILIES = sizeof FAMILIES / sizeof FAMILIES[0] };

const char *sm_semantic_family(const char *text)
{
    for (int k = 0; k < NFAMILIES; k++) {
        regex_t re;
        if (regcomp(&re, FAMILIES[k].re, REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
            continue;
        int hit = regexec(&re, text, 0, NULL, 0) == 0;
        regfree(&re);
        if (hit)
            return FAMILIES[k].family;
    }
    return "other";
}

/* dtype[dims] tokens: bf16 f32 f16 s32 u32 s8 u8 pred (case-insensitive). Appends the
 * space-free dims of each token found in [s,e) to OUT joined by '|', at most MAX. */
static int dtype_at(const char *p, const char *e, size_t *len)
{
    static const char *const dt[] = {"bf16", "f32", "f16", "s32", "u32", "s8", "u8", "pred"};
    for (size_t k = 0; k < sizeof dt / sizeof *dt; k++) {
        size_t n = strlen(dt[k]);
        if ((size_t)(e - p) > n && strncasecmp(p, dt[k], n) == 0 && p[n] == '[') {
            *len = n;
            return 1;
        }
    }
    return 0;
}

static int collect_shapes(const char *s, const char *e, char *out, size_t cap, int max)
{
    size_t o = strlen(out);
    int found = 0;
    for (const char *p = s; p < e && found < max; p++) {
        size_t dl;
        if (!dtype_at(p, e, &dl))
            continue;
        const char *q = p + dl + 1, *close = memchr(q, ']', (size_t)(e - q));
        if (!close || close == q)
            continue;
        if (found && o + 1 < cap)
            out[o++] = '|';
        for (const char *c = q; c < close && o + 1 < cap; c++)
            if (*c != ' ')
                out[o++] = *c;
        out[o] = '\0';
        found++;
        p = close;
    }
    return found;
}

void sm_shape_signature(const char *ln, size_t n, char *out, size_t cap)
{
    out[0] = '\0';
    const char *e = ln + n;
    /* (1) tuple output: '=' spaces '(' ... ')' spaces opname '(' */
    for (const char *p = ln; p < e; p++) {
        if (*p != '=')
            continue;
        const char *q = p + 1;
        while (q < e && isspace((unsigned char)*q))
            q++;
        if (q >= e || *q != '(')
            continue;
        /* Non-greedy: the first ')' followed by spaces, an op name and '('. */
        for (const char *c = q + 1; c < e; c++) {
            if (*c != ')')
                continue;
            const char *r = c + 1;
            while (r < e && isspace((unsigned char)*r))
                r++;
            const char *nm = r;
            while (r < e && (isalnum((unsigned char)*r) || *r == '_' || *r == '.' || *r == '-'))
                r++;
            if (r > nm && r < e && *r == '(') {
                collect_shapes(q + 1, c, out, cap, 1 << 30);
                return;
            }
        }
        break;
    }
    /* (2) single output: '=' spaces word '[' ... ']' */
    for (const char *p = ln; p < e; p++) {
        if (*p != '=')
            continue;
        const char *q = p + 1;
        while (q < e && isspace((unsigned char)*q))
            q++;
        const char *w = q;
        while (q < e && (isalnum((unsigned char)*q) || *q == '_'))
            q++;
        if (q > w && q < e && *q == '[') {
            const char *close = memchr(q + 1, ']', (size_t)(e - q - 1));
            if (close && close > q + 1) {
                size_t dl;
                if (dtype_at(w, e, &dl) && w + dl == q) {
                    collect_shapes(w, close + 1, out, cap, 1);
                } else {
                    size_t o = 0;
                    for (const char *c = q + 1; c < close && o + 1 < cap; c++)
                        if (*c != ' ')
                            out[o++] = *c;
                    out[o] = '\0';
                }
                return;
            }
        }
        break;
    }
    /* (3) first 8 dtype shapes anywhere */
    collect_shapes(ln, e, out, cap, 8);
}

/* Parses "a,b,c|d,e" into shapes; returns the FLOP proxy of spec 1.10, or -1 (null). */
double sm_flop_proxy(const char *family, const char *sig)
{
    if (!sig || !*sig)
        return -1;
    enum { MAXS = 64, MAXD = 8 };
    long long dims[MAXS][MAXD];
    int rank[MAXS], ns = 0;
    const char *p = sig;
    while (*p && ns < MAXS) {
        rank[ns] = 0;
        while (*p && *p != '|') {
            char *endp;
            long long v = strtoll(p, &endp, 10);
            if (endp == p) { /* not an int: skip the token char */
                while (*p && *p != ',' && *p != '|')
                    p++;
                v = 0;
            } else {
                p = endp;
            }
            if (rank[ns] < MAXD)
                dims[ns][rank[ns]++] = v;
            while (*p && *p != ',' && *p != '|')
                p++;
            if (*p == ',')
                p++;
        }
        ns++;
        if (*p == '|')
            p++;
    }
    if (strncmp(family, "attention", 9) == 0) {
        long long B = 0, H = 0, S = 0, hd[MAXS];
        int nh = 0, any = 0;
        for (int s = 0; s < ns; s++) {
            if (rank[s] < 4)
                continue;
            any = 1;
            if (dims[s][0] > B)
                B = dims[s][0];
            if (dims[s][1] > H)
                H = dims[s][1];
            if (dims[s][2] > S)
                S = dims[s][2];
            if (dims[s][3] > 0) {
                int seen = 0;
                for (int k = 0; k < nh; k++)
                    seen |= hd[k] == dims[s][3];
                if (!seen)
                    hd[nh++] = dims[s][3];
            }
        }
        if (any && nh > 0 && B > 0 && H > 0 && S > 0) {
            long long mx = hd[0], mn = hd[0];
            for (int k = 1; k < nh; k++) {
                mx = hd[k] > mx ? hd[k] : mx;
                mn = hd[k] < mn ? hd[k] : mn;
            }
            double v = 2.0 * (double)B * (double)H * (double)S * (double)S * (double)(mx + mn);
            return v > 0 ? v : -1;
        }
        if (any)
            return -1;
    } else if (strcmp(family, "loss_xent") == 0) {
        long long rows = 0, cols = 0;
        int any = 0;
        for (int s = 0; s < ns; s++) {
            if (rank[s] < 2)
                continue;
            any = 1;
            rows = dims[s][0] > rows ? dims[s][0] : rows;
            cols = dims[s][1] > cols ? dims[s][1] : cols;
        }
        if (any) {
            double v = 2.0 * (double)rows * (double)cols;
            return v > 0 ? v : -1;
        }
    }
    double best = 0;
    for (int s = 0; s < ns; s++) {
        double prod = 1;
        for (int k = 0; k < rank[s]; k++)
            prod = dims[s][k] <= 0 ? 0 : prod * (double)dims[s][k];
        if (rank[s] == 0)
            prod = 0;
        best = prod > best ? prod : best;
    }
    return best > 0 ? best : -1;
}

/* ---------------------------------------------------------------------------------------
 * Hierarchical parts (spec 1.14). */

static const char *const WRAPPERS[] = {"jit",  "jvp",        "transpose", "vmap",
                                       "pjit", "named_call", "remat",     "checkpoint"};

static int is_wrapper(const char *s, size_t n)
{
    for (size_t k = 0; k < sizeof WRAPPERS / sizeof *WRAPPERS; k++)
        if (strlen(WRAPPERS[k]) == n && memcmp(WRAPPERS[k], s, n) == 0)
            return 1;
    return 0;
}

static int blacklisted(const char *s, size_t n)
{
    char norm[512];
    size_t o = 0;
    int under = 0;
    for (size_t k = 0; k < n && o + 1 < sizeof norm; k++) {
        char c = (char)tolower((unsigned char)s[k]);
        if (isalnum((unsigned char)c) || c == '_') {
            norm[o++] = c;
            under = 0;
        } else if (!under) {
            norm[o++] = '_';
            under = 1;
        }
    }
    norm[o] = '\0';
    char *b = norm;
    while (*b == '_')
        b++;
    size_t bl = strlen(b);
    while (bl && b[bl - 1] == '_')
        b[--bl] = '\0';
    if (!bl)
        return 1;
    static const char *const exact[] = {
        "xla",       "xla_ops", "xla_modules", "xla_traceme", "xla_trace_me", "pallas_call",
        "shard_map", "call",    "execute",     "launch",      "tpu_launch",   "command_buffer"};
    for (size_t k = 0; k < sizeof exact / sizeof *exact; k++)
        if (strcmp(b, exact[k]) == 0)
            return 1;
    static const char *const pre[] = {"pjrt", "xla_", "tpu_", "stream_executor"};
    for (size_t k = 0; k < sizeof pre / sizeof *pre; k++)
        if (strncmp(b, pre[k], strlen(pre[k])) == 0)
            return 1;
    static const char *const sub[] = {"launch", "execute", "thunk", "runtime"};
    for (size_t k = 0; k < sizeof sub / sizeof *sub; k++)
        if (strstr(b, sub[k]))
            return 1;
    return 0;
}

/* Canonicalises one part in place into OUT; returns its length, 0 when dropped. */
static size_t canon_part(const char *s, size_t n, char *out, size_t cap)
{
    const char *e = s + n;
    while (s < e && (isspace((unsigned char)*s) || *s == ':'))
        s++;
    while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == ':'))
        e--;
    for (;;) {
        /* wrapper(inner) */
        const char *q = s;
        if (q < e && (isalpha((unsigned char)*q) || *q == '_')) {
            while (q < e && (isalnum((unsigned char)*q) || *q == '_'))
                q++;
            if (q < e && *q == '(' && e[-1] == ')' && is_wrapper(s, (size_t)(q - s))) {
                s = q + 1;
                e = e - 1;
                continue;
            }
        }
        break;
    }
    if (is_wrapper(s, (size_t)(e - s)))
        return 0;
    if ((size_t)(e - s) >= 15 && strncmp(s, "dynamic_donated", 15) == 0) {
        const char *dot = memchr(s, '.', (size_t)(e - s));
        if (dot)
            s = dot + 1;
    }
    if (s >= e || blacklisted(s, (size_t)(e - s)))
        return 0;
    size_t len = (size_t)(e - s) < cap - 1 ? (size_t)(e - s) : cap - 1;
    memcpy(out, s, len);
    out[len] = '\0';
    return len;
}

/* Builds the parts path of an event into OUT as "a=>b=>c"; *depth = number of parts;
 * *fallback = 1 when the parts came from the op name alone. */
static void event_parts(const char *tf_op, const char *name, char *out, size_t cap, int *depth,
                        int *fallback)
{
    out[0] = '\0';
    *depth = 0;
    *fallback = 0;
    size_t o = 0;
    char part[1024];
    const char *sep = NULL;
    size_t seplen = 0;
    const char *src;
    if (tf_op && *tf_op) {
        src = tf_op;
        sep = "/";
        seplen = 1;
    } else if (strstr(name, "=>")) {
        src = name;
        sep = "=>";
        seplen = 2;
    } else if (strstr(name, "::")) {
        src = name;
        sep = "::";
        seplen = 2;
    } else {
        char canon[1024];
        sm_canonical_op_name(name, strlen(name), canon, sizeof canon);
        size_t l = canon_part(canon, strlen(canon), part, sizeof part);
        if (l) {
            snprintf(out, cap, "%s", part);
            *depth = 1;
        }
        *fallback = 1;
        return;
    }
    const char *p = src;
    for (;;) {
        const char *hit = strstr(p, sep);
        const char *e = hit ? hit : p + strlen(p);
        size_t l = e > p ? canon_part(p, (size_t)(e - p), part, sizeof part) : 0;
        if (l) {
            int w = snprintf(out + o, cap - o, "%s%s", *depth ? "=>" : "", part);
            if (w > 0 && (size_t)w < cap - o)
                o += (size_t)w;
            (*depth)++;
        }
        if (!hit)
            break;
        p = hit + seplen;
    }
}

/* ---------------------------------------------------------------------------------------
 * Statistics. */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, size_t n, double q)
{
    if (n == 1)
        return sorted[0];
    double pos = (double)(n - 1) * q;
    size_t lo = (size_t)floor(pos), hi = (size_t)ceil(pos);
    double frac = pos - (double)lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

static jval *duration_stats(const double *vals, size_t n)
{
    jval *o = jv_obj();
    jv_set(o, "count", jv_int((int64_t)n));
    if (n == 0) {
        const char *keys[] = {"mean", "median", "p90", "min", "max"};
        for (int k = 0; k < 5; k++)
            jv_set(o, keys[k], jv_null());
        return o;
    }
    double *s = pq_malloc_array(n, sizeof *s);
    if (!s) {
        jv_free(o);
        return NULL;
    }
    memcpy(s, vals, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += vals[k];
    jv_set(o, "mean", jv_num(sum / (double)n));
    jv_set(o, "median", jv_num(quantile(s, n, 0.5)));
    jv_set(o, "p90", jv_num(quantile(s, n, 0.9)));
    jv_set(o, "min", jv_num(s[0]));
    jv_set(o, "max", jv_num(s[n - 1]));
    pq_free(s);
    return o;
}

static double us_of(int64_t ps)
{
    return (double)ps / PS_PER_US;
}

/* BASE_US + REL_PS/1e6 with one rounding: whole µs first, then the sub-µs part. */
static double abs_us(int64_t base_us, int64_t rel_ps)
{
    int64_t whole = rel_ps / 1000000, frac = rel_ps % 1000000;
    if (frac < 0) {
        frac += 1000000;
        whole--;
    }
    if (frac == 0)
        return (double)(base_us + whole);
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%lld.%06lld", (long long)(base_us + whole), (long long)frac);
    return strtod(tmp, NULL);
}

/* ---------------------------------------------------------------------------------------
 * sm_build. */

typedef struct ctx {
    sm_builder *b;
    const sm_options *o;
    int64_t *excl;
    uint32_t *order;     /* events sorted by (track, ts, -end) */
    uint8_t *name_flags; /* per name id: 1 stall, 2 comm */
    double total;        /* breakdown total (trace units) */
    double shares[5];
} ctx;

enum { CAT_COMPUTE, CAT_COMM, CAT_HOST, CAT_STALL, CAT_OTHER };
static const char *const CAT_NAMES[5] = {"compute", "communication", "host", "stall", "other"};

/* Sorting. Event orders are (track, ts, end, index) with end descending (enclosing events
 * first) or ascending; the sweep of 1.16 orders points by (time, kind, index). All are
 * total orders, so any correct sort gives the same result. Events: a bottom-up merge
 * sort of 16-byte records that skips merging runs already in order, so the usual trace,
 * nearly sorted per track, costs about one pass per level instead of qsort's indirect
 * comparisons. Points: a natural merge sort (points_sort), as the caller lays them out in
 * a few ascending runs. */
typedef struct srec {
    int64_t t;
    uint32_t idx;
    uint32_t kind; /* SORT_POINTS: the tie-break before idx */
} srec;

enum { SORT_END_DESC, SORT_END_ASC, SORT_POINTS };

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

/* Sorts the event indices IDX[0..n) (ascending on entry) by (track, ts, end, index):
 * grouped by track with a stable counting pass, then each track merge-sorted. */
static int sort_by_track(const sm_builder *b, int mode, uint32_t *idx, size_t n)
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
    size_t n = b->m->n;
    uint32_t *stack = pq_malloc_array(n + 1, sizeof *stack);
    int64_t *child = pq_calloc(n + 1, sizeof *child);
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

static const char *pname(const sm_builder *b, int64_t pid)
{
    uint32_t id = pairmap_get(&b->m->proc_names, pid, 0);
    return id == UINT32_MAX ? "" : intern_str(&b->m->names, id);
}

static const char *tname(const sm_builder *b, int64_t pid, int64_t tid)
{
    uint32_t id = pairmap_get(&b->m->thread_names, pid, tid);
    return id == UINT32_MAX ? "" : intern_str(&b->m->names, id);
}

/* Spec 1.4, plus Kineto: without any /device: or /host: process, a process whose threads
 * carry GPU kernels is a device, its kernel streams are device-op threads, and every
 * other process is host. */
static void classify_tracks(sm_builder *b)
{
    int seed_names = 0;
    for (uint32_t t = 0; t < b->ntracks; t++) {
        const char *p = pname(b, b->tracks[t].pid);
        if (strncmp(p, "/device:", 8) == 0 || strncmp(p, "/host:", 6) == 0)
            seed_names = 1;
    }
    for (uint32_t t = 0; t < b->ntracks; t++) {
        track *tr = &b->tracks[t];
        const char *p = pname(b, tr->pid), *th = tname(b, tr->pid, tr->tid);
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
    b->cpu_ops = 1;
    for (uint32_t t = 0; t < b->ntracks; t++)
        if (b->tracks[t].device_op)
            b->cpu_ops = 0;
}

/* A device op event (spec 1.4); on a CPU-only run, an XLA op on a host thread. */
static int dev_op(const sm_builder *b, size_t e)
{
    return b->tracks[b->m->track[e]].device_op || (b->cpu_ops && (b->m->flags[e] & SLICE_XLA_OP));
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
static jval *time_breakdown(ctx *c)
{
    sm_builder *b = c->b;
    double parts[5] = {0};
    const char *basis;
    double total = 0;
    if (!c->o->global_breakdown) {
        basis = "exclusive_duration_per_track";
        int64_t ps[5] = {0};
        for (size_t e = 0; e < b->m->n; e++)
            if (!b->tracks[b->m->track[e]].steps)
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
            if (!tr->device || tr->steps)
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
                return NULL;
            size_t k = 0;
            for (size_t e = 0; e < b->m->n; e++) {
                const track *tr = &b->tracks[b->m->track[e]];
                if (!tr->device || tr->steps)
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
    jval *o = jv_obj();
    jv_set(o, "duration_basis", jv_cstr(basis));
    jv_set(o, "total_duration", jv_num(total));
    for (int k = 0; k < 5; k++) {
        c->shares[k] = total > 0 ? parts[k] / total : 0.0;
        jval *p = jv_obj();
        jv_set(p, "total_duration", jv_num(parts[k]));
        jv_set(p, "share_of_total", jv_num(c->shares[k]));
        jv_set(o, CAT_NAMES[k], p);
    }
    return o;
}

/* Python int(): optional spaces, sign, digits (underscores between digits allowed). */
static int parse_py_int(const char *s, int64_t *out)
{
    while (isspace((unsigned char)*s))
        s++;
    int neg = 0;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (!isdigit((unsigned char)*s))
        return 0;
    int64_t v = 0;
    while (isdigit((unsigned char)*s) || (*s == '_' && isdigit((unsigned char)s[1]))) {
        if (*s != '_') {
            if (v > (INT64_MAX - 9) / 10)
                return 0;
            v = v * 10 + (*s - '0');
        }
        s++;
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s)
        return 0;
    *out = neg ? -v : v;
    return 1;
}

typedef struct step_rec {
    int64_t num;
    double sum;
    long n;
} step_rec;

static int cmp_step(const void *a, const void *b)
{
    int64_t x = ((const step_rec *)a)->num, y = ((const step_rec *)b)->num;
    return x < y ? -1 : x > y;
}

static jval *step_class(const char *name, const int64_t *nums, const double *durs, size_t n,
                        size_t nsteady, jval *periodicity)
{
    jval *o = jv_obj();
    jv_set(o, "name", jv_cstr(name));
    jv_set(o, "count", jv_int((int64_t)n));
    jv_set(o, "fraction_of_steady", jv_num((double)n / (double)nsteady));
    jv_set(o, "duration_stats", duration_stats(durs, n));
    double *s = pq_malloc_array(n, sizeof *s);
    if (s) {
        memcpy(s, durs, n * sizeof *s);
        qsort(s, n, sizeof *s, cmp_double);
        double med = quantile(s, n, 0.5);
        size_t best = 0;
        for (size_t k = 1; k < n; k++) {
            double d1 = fabs(durs[k] - med), d0 = fabs(durs[best] - med);
            if (d1 < d0 || (d1 == d0 && nums[k] < nums[best]))
                best = k;
        }
        jv_set(o, "representative_step", jv_int(nums[best]));
        jv_set(o, "representative_duration", jv_num(durs[best]));
        pq_free(s);
    }
    jv_set(o, "periodicity", periodicity ? periodicity : jv_null());
    return o;
}

static double median_of(const double *v, size_t n)
{
    double *s = pq_malloc_array(n, sizeof *s);
    if (!s)
        return 0;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = quantile(s, n, 0.5);
    pq_free(s);
    return m;
}

/* Spec 1.8 classes: 2-means on log(duration). */
static jval *step_classes(const int64_t *nums, const double *durs, size_t n)
{
    jval *arr = jv_arr();
    if (n == 0)
        return arr;
    double mn = durs[0], mx = durs[0];
    for (size_t k = 1; k < n; k++) {
        mn = durs[k] < mn ? durs[k] : mn;
        mx = durs[k] > mx ? durs[k] : mx;
    }
    int split = 0;
    uint8_t *lab = pq_calloc(n, 1);
    if (n >= 6 && mn > 0 && mx / mn >= 1.25 && lab) {
        double c0 = log(mn), c1 = log(mx);
        int ok = 1;
        for (int it = 0; it < 40; it++) {
            int changed = 0;
            for (size_t k = 0; k < n; k++) {
                double x = log(durs[k]);
                uint8_t l = fabs(x - c0) <= fabs(x - c1) ? 0 : 1;
                if (it == 0 || l != lab[k])
                    changed = 1;
                lab[k] = l;
            }
            double s0 = 0, s1 = 0;
            size_t n0 = 0, n1 = 0;
            for (size_t k = 0; k < n; k++) {
                if (lab[k])
                    s1 += log(durs[k]), n1++;
                else
                    s0 += log(durs[k]), n0++;
            }
            if (!n0 || !n1) {
                ok = 0;
                break;
            }
            double nc0 = s0 / (double)n0, nc1 = s1 / (double)n1;
            double move = fabs(nc0 - c0) + fabs(nc1 - c1);
            c0 = nc0;
            c1 = nc1;
            if (!changed && move < 1e-9)
                break;
        }
        size_t n0 = 0, n1 = 0;
        for (size_t k = 0; k < n; k++)
            lab[k] ? n1++ : n0++;
        if (ok && n0 >= 2 && n1 >= 2 && (double)n0 >= 0.1 * (double)n &&
            (double)n1 >= 0.1 * (double)n) {
            int hi_lab = c1 > c0 ? 1 : 0;
            double *dl = pq_malloc_array(n, sizeof *dl), *dh = pq_malloc_array(n, sizeof *dh);
            int64_t *nl = pq_malloc_array(n, sizeof *nl), *nh = pq_malloc_array(n, sizeof *nh);
            size_t kl = 0, kh = 0;
            if (dl && dh && nl && nh) {
                for (size_t k = 0; k < n; k++) {
                    if (lab[k] == hi_lab) {
                        dh[kh] = durs[k];
                        nh[kh++] = nums[k];
                    } else {
                        dl[kl] = durs[k];
                        nl[kl++] = nums[k];
                    }
                }
                if (median_of(dh, kh) / median_of(dl, kl) >= 1.5) {
                    split = 1;
                    jv_push(arr, step_class("light", nl, dl, kl, n, NULL));
                    /* periodicity: most common gap > 1 between sorted heavy steps. */
                    jval *per = NULL;
                    if (kh >= 3) {
                        int64_t *sn = pq_malloc_array(kh, sizeof *sn);
                        if (sn) {
                            memcpy(sn, nh, kh * sizeof *sn);
                            for (size_t x = 1; x < kh; x++)
                                for (size_t y = x; y > 0 && sn[y - 1] > sn[y]; y--) {
                                    int64_t t = sn[y];
                                    sn[y] = sn[y - 1];
                                    sn[y - 1] = t;
                                }
                            size_t ngaps = 0;
                            int64_t best = 0;
                            size_t bestc = 0;
                            for (size_t x = 1; x < kh; x++) {
                                int64_t g = sn[x] - sn[x - 1];
                                if (g <= 1)
                                    continue;
                                ngaps++;
                                size_t cnt = 0;
                                for (size_t y = 1; y < kh; y++)
                                    cnt += sn[y] - sn[y - 1] == g;
                                if (cnt > bestc || (cnt == bestc && g < best)) {
                                    bestc = cnt;
                                    best = g;
                                }
                            }
                            if (ngaps >= 2 && bestc >= 2)
                                per = jv_int(best);
                            pq_free(sn);
                        }
                    }
                    jv_push(arr, step_class("heavy", nh, dh, kh, n, per));
                }
            }
            pq_free(dl);
            pq_free(dh);
            pq_free(nl);
            pq_free(nh);
        }
    }
    pq_free(lab);
    if (!split)
        jv_push(arr, step_class("typical", nums, durs, n, n, NULL));
    return arr;
}

/* Spec 1.8. */
static jval *step_time(ctx *c, double *steady_median, double *steady_p90, size_t *nsteady)
{
    sm_builder *b = c->b;
    step_rec *st = NULL;
    size_t ns = 0, cap = 0;
    /* Per name id: 0 not looked at yet, 1 not a ProfilerStep#N, 2 one (its N in knum). */
    uint32_t npool = b->m->names.n;
    uint8_t *kstep = pq_calloc(npool + 1, 1);
    int64_t *knum = pq_malloc_array(npool + 1, sizeof *knum);
    if (!kstep || !knum) {
        pq_free(kstep);
        pq_free(knum);
        return NULL;
    }
    for (int pass = 0; pass < 3 && ns == 0; pass++) {
        for (size_t e = 0; e < b->m->n; e++) {
            const track *tr = &b->tracks[b->m->track[e]];
            int64_t num;
            if (pass == 0) {
                if (!(tr->device && tr->steps &&
                      parse_py_int(intern_str(&b->m->names, b->m->name[e]), &num)))
                    continue;
            } else if (pass == 1) {
                if (!((b->m->flags[e] & SLICE_HAS_STEP) &&
                      strcmp(intern_str(&b->m->names, b->m->name[e]), "train") == 0 &&
                      strncmp(pname(b, tr->pid), "/host:", 6) == 0))
                    continue;
                num = b->m->step[e];
            } else {
                /* Kineto: ProfilerStep#N annotations, recognised once per name. */
                uint32_t id = b->m->name[e];
                const char *nm = intern_str(&b->m->names, id);
                if (!kstep[id])
                    kstep[id] =
                        strncmp(nm, "ProfilerStep#", 13) == 0 && parse_py_int(nm + 13, &knum[id])
                            ? 2
                            : 1;
                if (kstep[id] != 2)
                    continue;
                num = knum[id];
            }
            size_t k = 0;
            for (; k < ns; k++)
                if (st[k].num == num)
                    break;
            if (k == ns) {
                if (ns == cap) {
                    cap = cap ? cap * 2 : 64;
                    step_rec *nst = pq_realloc_array(st, cap, sizeof *nst);
                    if (!nst) {
                        pq_free(st);
                        pq_free(kstep);
                        pq_free(knum);
                        return NULL;
                    }
                    st = nst;
                }
                st[ns++] = (step_rec){num, 0, 0};
            }
            st[k].sum += us_of(b->m->dur_ps[e]);
            st[k].n++;
        }
    }
    pq_free(kstep);
    pq_free(knum);
    if (ns)
        qsort(st, ns, sizeof *st, cmp_step);
    double *all = pq_malloc_array(ns + 1, sizeof *all),
           *steady = pq_malloc_array(ns + 1, sizeof *all);
    int64_t *snums = pq_malloc_array(ns + 1, sizeof *snums);
    size_t nst = 0;
    for (size_t k = 0; k < ns && all && steady && snums; k++) {
        all[k] = st[k].sum / (double)st[k].n;
        if (st[k].num >= c->o->warmup_steps) {
            snums[nst] = st[k].num;
            steady[nst++] = all[k];
        }
    }
    jval *o = jv_obj();
    jv_set(o, "warmup_steps_ignored", jv_int(c->o->warmup_steps));
    jv_set(o, "all_steps", duration_stats(all, ns));
    jv_set(o, "steady_state_steps", duration_stats(steady, nst));
    jv_set(o, "classes", step_classes(snums, steady, nst));
    *nsteady = nst;
    *steady_median = *steady_p90 = NAN;
    if (nst) {
        qsort(steady, nst, sizeof *steady, cmp_double);
        *steady_median = quantile(steady, nst, 0.5);
        *steady_p90 = quantile(steady, nst, 0.9);
    }
    pq_free(all);
    pq_free(steady);
    pq_free(snums);
    pq_free(st);
    return o;
}

/* Index of the most common value per key in a counter (ties: first seen). OUT[key] gets
 * the counter row, UINT32_MAX when the key has no value. */
static void most_common(const counter *cn, uint32_t *out, size_t nkeys)
{
    for (size_t k = 0; k < nkeys; k++)
        out[k] = UINT32_MAX;
    for (uint32_t r = 0; r < cn->n; r++) {
        size_t key = (size_t)cn->key[r];
        if (key >= nkeys)
            continue;
        if (out[key] == UINT32_MAX || cn->count[r] > cn->count[out[key]])
            out[key] = r;
    }
}

typedef struct agg {
    uint32_t name;
    uint64_t count;
    int64_t total, excl;
    double dtotal; /* float totals where the seed sums floats */
    double key2;
    uint32_t aux, aux2;
} agg;

static const intern_pool *g_pool;

/* Appends a zeroed row {NAME, AUX} to *ARR (N rows, room for CAP) and stores its index in
 * *SLOT. NULL when memory ran out. */
static agg *agg_new(agg **arr, size_t *n, size_t *cap, uint32_t *slot, uint32_t name, uint32_t aux)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        agg *na = pq_realloc_array(*arr, nc, sizeof *na);
        if (!na)
            return NULL;
        *arr = na;
        *cap = nc;
    }
    agg *r = &(*arr)[*n];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->aux = aux;
    *slot = (uint32_t)(*n)++;
    return r;
}

/* The aggregate orders of the spec are lists of keys compared in turn: totals descending,
 * names ascending. */
enum { BY_TOTAL, BY_EXCL, BY_NAME, BY_AUX, BY_END };

static int cmp_agg_by(const agg *a, const agg *b, const int *keys)
{
    for (; *keys != BY_END; keys++) {
        int64_t x = *keys == BY_TOTAL ? a->total : a->excl,
                y = *keys == BY_TOTAL ? b->total : b->excl;
        int c;
        if (*keys == BY_NAME)
            c = strcmp(intern_str(g_pool, a->name), intern_str(g_pool, b->name));
        else if (*keys == BY_AUX)
            c = strcmp(intern_str(g_pool, a->aux), intern_str(g_pool, b->aux));
        else
            c = x != y ? (x > y ? -1 : 1) : 0;
        if (c)
            return c;
    }
    return 0;
}

#define AGG_ORDER(fn, ...)                                                                         \
    static int fn(const void *pa, const void *pb)                                                  \
    {                                                                                              \
        static const int keys[] = {__VA_ARGS__, BY_END};                                           \
        return cmp_agg_by(pa, pb, keys);                                                           \
    }

AGG_ORDER(cmp_hot, BY_EXCL, BY_TOTAL, BY_NAME)
AGG_ORDER(cmp_gap, BY_TOTAL, BY_EXCL, BY_NAME) /* excl holds the max gap */
AGG_ORDER(cmp_ctx, BY_TOTAL, BY_NAME, BY_AUX)
AGG_ORDER(cmp_region, BY_TOTAL, BY_EXCL, BY_NAME) /* total is inclusive */
AGG_ORDER(cmp_opreg, BY_EXCL, BY_TOTAL, BY_AUX, BY_NAME)

static const char *op_category(uint8_t flags)
{
    return flags & 1 ? "stall" : flags & 2 ? "communication" : "compute";
}

static jval *str_or_null(const intern_pool *pl, uint32_t id)
{
    return id && id != UINT32_MAX ? jv_cstr(intern_str(pl, id)) : jv_null();
}

/* State shared by the op sections. */
typedef struct opstate {
    uint32_t npool;
    uint32_t *sig_of_long;       /* long_name id -> signature id */
    uint32_t *path_tf, *path_nm; /* cache: tf_op id / name id -> path id (+1), 0 unknown */
    uint8_t *depth_tf, *depth_nm;
    uint8_t *name_sep; /* name id -> 1 + (the name holds "=>" or "::"), 0 unknown */
} opstate;

/* Whether the name NM holds a path separator ("=>" or "::"), once per name. */
static int name_has_sep(const sm_builder *b, opstate *s, uint32_t nm)
{
    if (nm < s->npool && s->name_sep[nm])
        return s->name_sep[nm] - 1;
    const char *p = intern_str(&b->m->names, nm);
    int has = strstr(p, "=>") || strstr(p, "::");
    if (nm < s->npool)
        s->name_sep[nm] = (uint8_t)(1 + has);
    return has;
}

static uint32_t sig_id(sm_builder *b, opstate *s, uint32_t ln)
{
    if (!ln)
        return 0;
    if (ln < s->npool && s->sig_of_long[ln] != UINT32_MAX)
        return s->sig_of_long[ln];
    char sig[1024];
    const char *p = intern_str(&b->m->names, ln);
    sm_shape_signature(p, strlen(p), sig, sizeof sig);
    uint32_t id = intern_cstr(&b->m->names, sig);
    if (ln < s->npool)
        s->sig_of_long[ln] = id;
    return id;
}

/* Path of an event (spec 1.14) as a pool id (0 = no parts), its depth, and whether it is
 * the name fallback. */
static uint32_t event_path(sm_builder *b, opstate *s, uint32_t e, int *depth, int *fallback)
{
    uint32_t tf = b->m->tf_op[e], nm = b->m->name[e];
    *fallback = tf == 0 && !name_has_sep(b, s, nm);
    uint32_t *cache = tf ? s->path_tf : s->path_nm;
    uint8_t *dcache = tf ? s->depth_tf : s->depth_nm;
    uint32_t key = tf ? tf : nm;
    if (key < s->npool && cache[key]) {
        *depth = dcache[key];
        return cache[key] - 1;
    }
    char path[4096];
    int fb;
    event_parts(tf ? intern_str(&b->m->names, tf) : NULL, intern_str(&b->m->names, nm), path,
                sizeof path, depth, &fb);
    uint32_t id = *depth ? intern_cstr(&b->m->names, path) : 0;
    if (key < s->npool) {
        cache[key] = id + 1;
        dcache[key] = (uint8_t)(*depth > 255 ? 255 : *depth);
    }
    return id;
}

/* The first MAXD parts of PATH joined by "=>". */
static uint32_t path_prefix(sm_builder *b, uint32_t path, int maxd)
{
    const char *p = intern_str(&b->m->names, path), *q = p;
    for (int d = 0; d < maxd; d++) {
        const char *hit = strstr(q, "=>");
        if (!hit)
            return path;
        if (d == maxd - 1)
            return intern_add(&b->m->names, p, (size_t)(hit - p));
        q = hit + 2;
    }
    return path;
}

static int is_gap_marker(const sm_builder *b, uint32_t e)
{
    char canon[512];
    const char *nm = intern_str(&b->m->names, b->m->name[e]);
    sm_canonical_op_name(nm, strlen(nm), canon, sizeof canon);
    for (char *q = canon; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    static const char *const m[] = {"iota",      "constant", "bitcast",  "get-tuple-element",
                                    "parameter", "tuple",    "after-all"};
    for (size_t k = 0; k < sizeof m / sizeof *m; k++)
        if (strcmp(canon, m[k]) == 0)
            return 1;
    return strncmp(canon, "copy-start", 10) == 0 || strncmp(canon, "copy-done", 9) == 0;
}

typedef struct family_row {
    const char *family;
    uint64_t count;
    double total, excl, flop_total;
    int has_flop;
    uint32_t example;
    counter *shapes;
} family_row;

static int cmp_family(const void *pa, const void *pb)
{
    const family_row *a = pa, *b = pb;
    if (a->excl != b->excl)
        return a->excl > b->excl ? -1 : 1;
    return strcmp(a->family, b->family);
}

typedef struct window {
    int64_t start2, end2; /* doubled times (midpoints are half-units) */
    uint32_t path;
    int depth;
    int64_t dur;
    uint32_t trk;
} window;

typedef srec wpt; /* t, index (window or event), kind: 0 start, 1 midpoint, 2 end */

static jval *candidate(const char *id, const char *title, const char *rationale, jval *evidence,
                       const char *const *suggestions)
{
    jval *o = jv_obj();
    jv_set(o, "candidate_id", jv_cstr(id));
    jv_set(o, "title", jv_cstr(title));
    jv_set(o, "rationale", jv_cstr(rationale));
    jv_set(o, "evidence", evidence);
    jval *s = jv_arr();
    for (int k = 0; suggestions[k]; k++)
        jv_push(s, jv_cstr(suggestions[k]));
    jv_set(o, "suggestions", s);
    return o;
}

static jval *ev_list(const char *a, const char *b2, const char *c, const char *d)
{
    jval *e = jv_arr();
    const char *x[] = {a, b2, c, d};
    for (int k = 0; k < 4; k++)
        if (x[k])
            jv_push(e, jv_cstr(x[k]));
    return e;
}

jval *sm_build(model_slices *m, const sm_options *o, const sm_source *src)
{
    if (m->failed)
        return NULL;
    sm_builder bs = {m, NULL, 0, 0}, *b = &bs;
    b->tracks = pq_calloc(m->ntracks + 1, sizeof *b->tracks);
    if (!b->tracks)
        return NULL;
    b->ntracks = m->ntracks;
    for (uint32_t t = 0; t < m->ntracks; t++) {
        b->tracks[t].pid = m->tracks[t].pid;
        b->tracks[t].tid = m->tracks[t].tid;
        b->tracks[t].has_kernel = m->tracks[t].has_kernel;
    }
    ctx c = {0};
    c.b = b;
    c.o = o;
    size_t n = b->m->n;
    jval *doc = NULL;
    opstate s = {0};
    c.excl = pq_calloc(n + 1, sizeof *c.excl);
    c.order = pq_malloc_array(n + 1, sizeof *c.order);
    if (!c.excl || !c.order)
        goto out;
    for (size_t k = 0; k < n; k++)
        c.order[k] = (uint32_t)k;
    g_pool = &b->m->names;
    if (sort_by_track(b, SORT_END_DESC, c.order, n) != 0 || compute_exclusive(&c) != 0)
        goto out;
    classify_tracks(b);
    /* Name flags for every name seen so far (the pool only grows from here). */
    c.name_flags = pq_calloc(b->m->names.n + 1, 1);
    if (!c.name_flags)
        goto out;
    for (size_t e = 0; e < n; e++) {
        uint32_t id = b->m->name[e];
        if (c.name_flags[id] & 4)
            continue;
        const char *nm = intern_str(&b->m->names, id);
        c.name_flags[id] = (uint8_t)(4 | (is_stall(nm) ? 1 : 0) | (is_comm(nm) ? 2 : 0));
    }

    doc = jv_obj();
    jv_set(doc, "schema_version", jv_cstr("profile_summary.v1"));
    jv_set(doc, "generated_at_utc", jv_cstr(src->generated_at_utc));
    jv_set(doc, "source_format", jv_cstr(src->source_format));
    jv_set(doc, "source_path", jv_cstr(src->source_path));
    jval *rm = jv_obj();
    static const char *const rmk[] = {
        "run_path",         "run_id",  "artifact_ref", "artifact_name", "hardware_type",
        "mesh_or_topology", "git_sha", "config_hash",  "num_devices",   "num_hosts"};
    const char *const rmv[] = {o->run_path, o->run_id, o->artifact_ref, o->artifact_name};
    for (size_t k = 0; k < sizeof rmk / sizeof *rmk; k++)
        jv_set(rm, rmk[k], k < 4 && rmv[k] ? jv_cstr(rmv[k]) : jv_null());
    jv_set(doc, "run_metadata", rm);

    /* trace_overview (1.17, 1.19) */
    jval *ov = jv_obj();
    jv_set(ov, "display_time_unit", jv_cstr(src->display_time_unit));
    jv_set(ov, "num_events_total", jv_int((int64_t)src->num_events_total));
    jv_set(ov, "num_complete_events", jv_int((int64_t)n));
    jv_set(ov, "num_processes", jv_int((int64_t)b->m->proc_names.n));
    jv_set(ov, "num_threads", jv_int((int64_t)b->m->thread_names.n));
    if (n) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t e = 0; e < n; e++) {
            lo = b->m->start_ps[e] < lo ? b->m->start_ps[e] : lo;
            hi =
                b->m->start_ps[e] + b->m->dur_ps[e] > hi ? b->m->start_ps[e] + b->m->dur_ps[e] : hi;
        }
        jv_set(ov, "profile_start_ts", jv_num(abs_us(b->m->base_us, lo)));
        jv_set(ov, "profile_end_ts", jv_num(abs_us(b->m->base_us, hi)));
    } else {
        jv_set(ov, "profile_start_ts", jv_null());
        jv_set(ov, "profile_end_ts", jv_null());
    }
    jv_set(ov, "duration_basis", jv_cstr("exclusive_duration_per_track"));
    int trunc = n == 1000000;
    jv_set(ov, "suspected_truncation", jv_bool(trunc));
    jval *qw = jv_arr();
    if (trunc)
        jv_push(qw, jv_cstr("Trace contains exactly 1,000,000 complete events; this often "
                            "indicates export truncation at a collector cap."));
    for (int k = 0; src->extra_warnings && src->extra_warnings[k]; k++)
        jv_push(qw, jv_cstr(src->extra_warnings[k]));
    jv_set(ov, "quality_warnings", qw);
    jv_set(doc, "trace_overview", ov);

    /* trace_provenance: top-20 run ids and source hints, most common first. */
    {
        counter rid = {0}, srch = {0};
        for (size_t e = 0; e < n; e++) {
            if (b->m->run_id[e])
                counter_add(&rid, 0, b->m->run_id[e], 1, 0);
            if (b->m->source[e])
                counter_add(&srch, 0, b->m->source[e], 1, 0);
        }
        jval *pv = jv_obj();
        jv_set(pv, "trace_sha256", jv_cstr(src->sha256));
        counter *cs[2] = {&rid, &srch};
        const char *keys[2] = {"run_ids", "source_file_hints"};
        for (int q = 0; q < 2; q++) {
            jval *arr = jv_arr();
            uint8_t *used = pq_calloc(cs[q]->n + 1, 1);
            for (int k = 0; k < 20 && used; k++) {
                uint32_t best = UINT32_MAX;
                for (uint32_t r = 0; r < cs[q]->n; r++)
                    if (!used[r] && (best == UINT32_MAX || cs[q]->count[r] > cs[q]->count[best]))
                        best = r;
                if (best == UINT32_MAX)
                    break;
                used[best] = 1;
                jv_push(arr, jv_cstr(intern_str(&b->m->names, (uint32_t)cs[q]->value[best])));
            }
            pq_free(used);
            jv_set(pv, keys[q], arr);
        }
        counter_free(&rid);
        counter_free(&srch);
        jv_set(doc, "trace_provenance", pv);
    }

    double steady_median = NAN, steady_p90 = NAN;
    size_t nsteady = 0;
    jv_set(doc, "step_time", step_time(&c, &steady_median, &steady_p90, &nsteady));
    jv_set(doc, "time_breakdown", time_breakdown(&c));

    /* Op sections work on device-op events. */
    s.npool = b->m->names.n;
    s.sig_of_long = pq_malloc_array(s.npool + 1, sizeof *s.sig_of_long);
    s.path_tf = pq_calloc(s.npool + 1, sizeof *s.path_tf);
    s.path_nm = pq_calloc(s.npool + 1, sizeof *s.path_nm);
    s.depth_tf = pq_calloc(s.npool + 1, 1);
    s.depth_nm = pq_calloc(s.npool + 1, 1);
    s.name_sep = pq_calloc(s.npool + 1, 1);
    if (!s.sig_of_long || !s.path_tf || !s.path_nm || !s.depth_tf || !s.depth_nm || !s.name_sep)
        goto fail;
    for (uint32_t k = 0; k < s.npool; k++)
        s.sig_of_long[k] = UINT32_MAX;

    /* hot_ops (1.9) */
    agg *hot = pq_calloc(s.npool + 1, sizeof *hot);
    uint32_t *slot = pq_malloc_array(s.npool + 1, sizeof *slot);
    counter sigc = {0}, srcc = {0}, tfc = {0};
    size_t nhot = 0;
    if (!hot || !slot) {
        pq_free(hot);
        pq_free(slot);
        goto fail;
    }
    for (uint32_t k = 0; k < s.npool; k++)
        slot[k] = UINT32_MAX;
    for (size_t e = 0; e < n; e++) {
        if (!dev_op(b, e))
            continue;
        uint32_t nm = b->m->name[e];
        if (slot[nm] == UINT32_MAX) {
            slot[nm] = (uint32_t)nhot;
            hot[nhot].name = nm;
            nhot++;
        }
        agg *a = &hot[slot[nm]];
        a->count++;
        a->total += b->m->dur_ps[e];
        a->excl += c.excl[e];
        uint32_t sg = sig_id(b, &s, b->m->long_name[e]);
        if (sg)
            counter_add(&sigc, nm, sg, 1, 0);
        if (b->m->source[e])
            counter_add(&srcc, nm, b->m->source[e], 1, 0);
        if (b->m->tf_op[e])
            counter_add(&tfc, nm, b->m->tf_op[e], 1, 0);
    }
    uint32_t *mc_sig = pq_malloc_array(s.npool + 1, sizeof *mc_sig);
    uint32_t *mc_src = pq_malloc_array(s.npool + 1, sizeof *mc_src);
    uint32_t *mc_tf = pq_malloc_array(s.npool + 1, sizeof *mc_tf);
    if (!mc_sig || !mc_src || !mc_tf) {
        pq_free(hot);
        pq_free(slot);
        pq_free(mc_sig);
        pq_free(mc_src);
        pq_free(mc_tf);
        goto fail;
    }
    most_common(&sigc, mc_sig, s.npool);
    most_common(&srcc, mc_src, s.npool);
    most_common(&tfc, mc_tf, s.npool);
    qsort(hot, nhot, sizeof *hot, cmp_hot);
    size_t hlimit = o->hot_op_limit > 0 ? (size_t)o->hot_op_limit : 0;
    size_t nh = nhot < hlimit ? nhot : hlimit;
    jval *hot_arr = jv_arr();
    family_row *fam = pq_calloc(NFAMILIES + 2, sizeof *fam);
    size_t nfam = 0;
    double sum_excl = 0;
    for (size_t k = 0; k < nh && fam; k++) {
        agg *a = &hot[k];
        const char *nm = intern_str(&b->m->names, a->name);
        char canon[1024];
        sm_canonical_op_name(nm, strlen(nm), canon, sizeof canon);
        uint32_t tf = mc_tf[a->name] == UINT32_MAX ? 0 : (uint32_t)tfc.value[mc_tf[a->name]];
        uint32_t sg = mc_sig[a->name] == UINT32_MAX ? 0 : (uint32_t)sigc.value[mc_sig[a->name]];
        uint32_t sr = mc_src[a->name] == UINT32_MAX ? 0 : (uint32_t)srcc.value[mc_src[a->name]];
        char text[2048];
        snprintf(text, sizeof text, "%s %s", canon, tf ? intern_str(&b->m->names, tf) : "");
        const char *family = sm_semantic_family(text);
        /* Mean of per-event proxies over the events that have one. */
        double psum = 0;
        uint64_t pn = 0;
        for (uint32_t r = 0; r < sigc.n; r++) {
            if ((uint32_t)sigc.key[r] != a->name)
                continue;
            double px = sm_flop_proxy(family, intern_str(&b->m->names, (uint32_t)sigc.value[r]));
            if (px > 0) {
                psum += px * (double)sigc.count[r];
                pn += sigc.count[r];
            }
        }
        jval *h = jv_obj();
        jv_set(h, "name", jv_cstr(nm));
        jv_set(h, "canonical_name", jv_cstr(canon));
        jv_set(h, "category", jv_cstr(op_category(c.name_flags[a->name])));
        jv_set(h, "count", jv_int((int64_t)a->count));
        jv_set(h, "total_duration", jv_num(us_of(a->total)));
        jv_set(h, "exclusive_duration", jv_num(us_of(a->excl)));
        jv_set(h, "avg_duration", jv_num(us_of(a->total) / (double)a->count));
        jv_set(h, "shape_signature", str_or_null(&b->m->names, sg));
        jv_set(h, "source_file", str_or_null(&b->m->names, sr));
        jv_set(h, "tf_op_path", str_or_null(&b->m->names, tf));
        jv_set(h, "flop_proxy_per_invocation", pn ? jv_num(psum / (double)pn) : jv_null());
        jv_push(hot_arr, h);
        sum_excl += us_of(a->excl);
        /* semantic families (1.11) from the truncated list */
        size_t f = 0;
        for (; f < nfam; f++)
            if (strcmp(fam[f].family, family) == 0)
                break;
        if (f == nfam) {
            fam[nfam].family = family;
            fam[nfam].example = a->name;
            fam[nfam].shapes = pq_calloc(1, sizeof(counter));
            nfam++;
        }
        fam[f].count += a->count;
        fam[f].total += us_of(a->total);
        fam[f].excl += us_of(a->excl);
        if (pn) {
            fam[f].flop_total += psum / (double)pn * (double)a->count;
            fam[f].has_flop = 1;
        }
        if (sg && fam[f].shapes)
            counter_add(fam[f].shapes, 0, sg, a->count, 0);
    }
    jv_set(doc, "hot_ops", hot_arr);
    {
        double D = c.total > 0 && sum_excl > 0 ? (c.total > sum_excl ? c.total : sum_excl)
                   : c.total > 0               ? c.total
                                               : sum_excl;
        if (fam)
            qsort(fam, nfam, sizeof *fam, cmp_family);
        size_t flimit = hlimit > 50 ? hlimit : 50;
        jval *fa = jv_arr();
        for (size_t f = 0; f < nfam && f < flimit; f++) {
            jval *r = jv_obj();
            jv_set(r, "family", jv_cstr(fam[f].family));
            jv_set(r, "count", jv_int((int64_t)fam[f].count));
            jv_set(r, "total_duration", jv_num(fam[f].total));
            jv_set(r, "exclusive_duration", jv_num(fam[f].excl));
            jv_set(r, "share_of_total", jv_num(D > 0 ? fam[f].excl / D : 0.0));
            jv_set(r, "avg_duration", jv_num(fam[f].total / (double)fam[f].count));
            jv_set(r, "avg_exclusive_duration", jv_num(fam[f].excl / (double)fam[f].count));
            jv_set(r, "example_op", jv_cstr(intern_str(&b->m->names, fam[f].example)));
            uint32_t best = UINT32_MAX;
            for (uint32_t q = 0; fam[f].shapes && q < fam[f].shapes->n; q++)
                if (best == UINT32_MAX || fam[f].shapes->count[q] > fam[f].shapes->count[best])
                    best = q;
            jv_set(r, "dominant_shape_signature",
                   best == UINT32_MAX
                       ? jv_null()
                       : jv_cstr(intern_str(&b->m->names, (uint32_t)fam[f].shapes->value[best])));
            jv_set(r, "flop_proxy_total", fam[f].has_flop ? jv_num(fam[f].flop_total) : jv_null());
            jv_set(r, "time_per_flop_proxy",
                   fam[f].has_flop && fam[f].flop_total > 0
                       ? jv_num(fam[f].excl / fam[f].flop_total)
                       : jv_null());
            jv_push(fa, r);
        }
        jv_set(doc, "semantic_families", fa);
        for (size_t f = 0; f < nfam; f++) {
            if (fam[f].shapes)
                counter_free(fam[f].shapes);
            pq_free(fam[f].shapes);
        }
        pq_free(fam);
    }
    /* A copy: the pool may move as later sections intern paths. */
    char top_hot_name[1024] = "";
    if (nh)
        snprintf(top_hot_name, sizeof top_hot_name, "%s", intern_str(&b->m->names, hot[0].name));
    double top_hot_excl = nh ? us_of(hot[0].excl) : 0;
    pq_free(hot);
    pq_free(slot);
    pq_free(mc_sig);
    pq_free(mc_src);
    pq_free(mc_tf);
    counter_free(&sigc);
    counter_free(&srcc);
    counter_free(&tfc);

    /* communication_ops (1.12) */
    static const char *const KINDS[] = {"all-reduce", "all-gather",         "reduce-scatter",
                                        "all-to-all", "collective-permute", "async-collective",
                                        "send-recv",  "other-collective"};
    enum { NKINDS = 8 };
    uint64_t kc[NKINDS] = {0};
    int64_t kt[NKINDS] = {0};
    uint8_t *kind_of = pq_calloc(b->m->names.n + 1, 1); /* name id -> 1 + kind, 0 unknown */
    if (!kind_of)
        goto fail;
    for (size_t e = 0; e < n; e++) {
        uint32_t nm = b->m->name[e];
        if (!dev_op(b, e) || !(c.name_flags[nm] & 2))
            continue;
        if (!kind_of[nm]) {
            const char *kind = sm_collective_kind(intern_str(&b->m->names, nm));
            kind_of[nm] = NKINDS + 1;
            for (int k = 0; k < NKINDS; k++)
                if (strcmp(kind, KINDS[k]) == 0)
                    kind_of[nm] = (uint8_t)(k + 1);
        }
        if (kind_of[nm] <= NKINDS) {
            kc[kind_of[nm] - 1]++;
            kt[kind_of[nm] - 1] += c.excl[e];
        }
    }
    pq_free(kind_of);
    jval *comm = jv_arr();
    const char *top_collective = NULL;
    {
        int used[NKINDS] = {0};
        for (;;) {
            int best = -1;
            for (int k = 0; k < NKINDS; k++)
                if (kc[k] && !used[k] &&
                    (best < 0 || kt[k] > kt[best] ||
                     (kt[k] == kt[best] && strcmp(KINDS[k], KINDS[best]) < 0)))
                    best = k;
            if (best < 0)
                break;
            used[best] = 1;
            if (!top_collective)
                top_collective = KINDS[best];
            jval *r = jv_obj();
            jv_set(r, "collective", jv_cstr(KINDS[best]));
            jv_set(r, "count", jv_int((int64_t)kc[best]));
            jv_set(r, "total_duration", jv_num(us_of(kt[best])));
            jv_set(r, "avg_duration", jv_num(us_of(kt[best]) / (double)kc[best]));
            jv_push(comm, r);
        }
    }
    jv_set(doc, "communication_ops", comm);

    /* Pre-op gaps (1.13), gap contexts (1.15). */
    size_t big_limit = hlimit > 500 ? hlimit : 500;
    uint32_t *go = pq_malloc_array(n + 1, sizeof *go);
    size_t ng = 0;
    if (!go)
        goto fail;
    for (size_t e = 0; e < n; e++)
        if (dev_op(b, e))
            go[ng++] = (uint32_t)e;
    if (sort_by_track(b, SORT_END_ASC, go, ng) != 0) {
        pq_free(go);
        goto fail;
    }
    /* Preferred ≤4-deep tf_op path per op name, for fallback payloads. */
    counter pref = {0};
    for (size_t k = 0; k < ng; k++) {
        uint32_t e = go[k];
        if (!b->m->tf_op[e])
            continue;
        int d, fb;
        uint32_t path = event_path(b, &s, e, &d, &fb);
        if (d > 0)
            counter_add(&pref, b->m->name[e], path_prefix(b, path, 4), 1, 0);
    }
    agg *gaps = NULL, *ctxs = NULL;
    size_t ngaps = 0, nctx = 0, capg = 0, capc = 0;
    pairmap gmap = {0}, cmap = {0};
    counter markers = {0};
    /* Linear pass with the running max end. */
    {
        int64_t run_end = 0;
        for (size_t k = 0; k < ng; k++) {
            uint32_t e = go[k];
            int first = k == 0 || b->m->track[go[k - 1]] != b->m->track[e];
            if (!first && b->m->start_ps[e] > run_end) {
                int64_t gap = b->m->start_ps[e] - run_end;
                uint32_t payload = e;
                if (is_gap_marker(b, e)) {
                    int64_t chain_end = b->m->start_ps[e] + b->m->dur_ps[e];
                    for (size_t j = k + 1;
                         j < ng && j <= k + 8 && b->m->track[go[j]] == b->m->track[e]; j++) {
                        uint32_t cnd = go[j];
                        if (b->m->start_ps[cnd] > chain_end)
                            break;
                        if (is_gap_marker(b, cnd)) {
                            int64_t ce = b->m->start_ps[cnd] + b->m->dur_ps[cnd];
                            chain_end = ce > chain_end ? ce : chain_end;
                            continue;
                        }
                        payload = cnd;
                        break;
                    }
                }
                int fresh;
                uint32_t *gs = pairmap_slot(&gmap, b->m->name[payload], 0, &fresh);
                if (!gs)
                    break;
                if (fresh && !agg_new(&gaps, &ngaps, &capg, gs, b->m->name[payload], 0))
                    break;
                agg *g = &gaps[*gs];
                g->count++;
                g->total += gap;
                g->excl = gap > g->excl ? gap : g->excl;
                counter_add(&markers, *gs, b->m->name[e], 1, 0);
                /* gap region context of the payload */
                int d, fb;
                uint32_t path = event_path(b, &s, payload, &d, &fb);
                uint32_t region = 0;
                if (fb) {
                    uint32_t best = UINT32_MAX;
                    for (uint32_t r = 0; r < pref.n; r++) {
                        if ((uint32_t)pref.key[r] != b->m->name[payload])
                            continue;
                        if (best == UINT32_MAX || pref.count[r] > pref.count[best] ||
                            (pref.count[r] == pref.count[best] &&
                             strcmp(intern_str(&b->m->names, (uint32_t)pref.value[r]),
                                    intern_str(&b->m->names, (uint32_t)pref.value[best])) < 0))
                            best = r;
                    }
                    if (best != UINT32_MAX)
                        region = (uint32_t)pref.value[best];
                }
                if (!region)
                    region = d > 0 ? path_prefix(b, path, 4) : intern_cstr(&b->m->names, "unknown");
                char canon[1024];
                const char *pn = intern_str(&b->m->names, b->m->name[payload]);
                sm_canonical_op_name(pn, strlen(pn), canon, sizeof canon);
                for (char *q = canon; *q; q++)
                    *q = (char)tolower((unsigned char)*q);
                if (strncmp(canon, "copy", 4) == 0) {
                    const char *rp = intern_str(&b->m->names, region);
                    char lab[4200];
                    if (!*rp || strcmp(rp, "copy") == 0)
                        snprintf(lab, sizeof lab, "copy");
                    else if (strncmp(rp, "copy(", 5) == 0)
                        snprintf(lab, sizeof lab, "%s", rp);
                    else
                        snprintf(lab, sizeof lab, "copy(%s)", rp);
                    region = intern_cstr(&b->m->names, lab);
                }
                uint32_t *cs = pairmap_slot(&cmap, b->m->name[payload], region, &fresh);
                if (!cs)
                    break;
                if (fresh && !agg_new(&ctxs, &nctx, &capc, cs, b->m->name[payload], region))
                    break;
                ctxs[*cs].count++;
                ctxs[*cs].total += gap;
            }
            int64_t en = b->m->start_ps[e] + b->m->dur_ps[e];
            run_end = first ? en : (en > run_end ? en : run_end);
        }
    }
    /* marker per gap row: most frequent, tie alphabetical */
    for (size_t k = 0; k < ngaps; k++)
        gaps[k].aux = 0;
    for (uint32_t r = 0; r < markers.n; r++) {
        agg *g = &gaps[markers.key[r]];
        uint32_t mk = (uint32_t)markers.value[r];
        if (!g->aux || markers.count[r] > (uint64_t)g->key2 ||
            (markers.count[r] == (uint64_t)g->key2 &&
             strcmp(intern_str(&b->m->names, mk), intern_str(&b->m->names, g->aux)) < 0)) {
            g->aux = mk;
            g->key2 = (double)markers.count[r];
        }
    }
    g_pool = &b->m->names;
    if (gaps)
        qsort(gaps, ngaps, sizeof *gaps, cmp_gap);
    jval *garr = jv_arr();
    for (size_t k = 0; k < ngaps && k < big_limit; k++) {
        jval *r = jv_obj();
        jv_set(r, "name", jv_cstr(intern_str(&b->m->names, gaps[k].name)));
        jv_set(r, "count", jv_int((int64_t)gaps[k].count));
        jv_set(r, "total_gap_duration", jv_num(us_of(gaps[k].total)));
        jv_set(r, "max_gap_duration", jv_num(us_of(gaps[k].excl)));
        jv_set(r, "avg_gap_duration", jv_num(us_of(gaps[k].total) / (double)gaps[k].count));
        jv_set(r, "payload_op", jv_cstr(intern_str(&b->m->names, gaps[k].name)));
        jv_set(r, "marker_op", jv_cstr(intern_str(&b->m->names, gaps[k].aux)));
        jv_push(garr, r);
    }
    jv_set(doc, "gap_before_ops", garr);
    double top_gap_total = ngaps ? us_of(gaps[0].total) : 0;
    double top_gap_max = ngaps ? us_of(gaps[0].excl) : 0;
    char top_gap_name[512] = "";
    if (ngaps)
        snprintf(top_gap_name, sizeof top_gap_name, "%s", intern_str(&b->m->names, gaps[0].name));
    if (ctxs)
        qsort(ctxs, nctx, sizeof *ctxs, cmp_ctx);
    jval *carr = jv_arr();
    for (size_t k = 0; k < nctx && k < big_limit; k++) {
        jval *r = jv_obj();
        jv_set(r, "op_name", jv_cstr(intern_str(&b->m->names, ctxs[k].name)));
        jv_set(r, "region_path", jv_cstr(intern_str(&b->m->names, ctxs[k].aux)));
        jv_set(r, "count", jv_int((int64_t)ctxs[k].count));
        jv_set(r, "total_gap_duration", jv_num(us_of(ctxs[k].total)));
        jv_set(r, "avg_gap_duration", jv_num(us_of(ctxs[k].total) / (double)ctxs[k].count));
        jv_push(carr, r);
    }
    pq_free(gaps);
    pq_free(ctxs);
    pairmap_free(&gmap);
    pairmap_free(&cmap);
    counter_free(&markers);
    counter_free(&pref);

    /* hierarchical_regions (1.14) */
    {
        pairmap rmap = {0}, parent = {0};
        agg *reg = NULL;
        size_t nreg = 0, capr = 0;
        int oom = 0;
        for (size_t k = 0; k < ng && !oom; k++) {
            uint32_t e = go[k];
            int d, fb;
            uint32_t path = event_path(b, &s, e, &d, &fb);
            if (!d)
                continue;
            uint32_t p = path;
            for (int depth = d; depth >= 1; depth--) {
                int fresh;
                uint32_t *rs = pairmap_slot(&rmap, p, 0, &fresh);
                if (!rs) {
                    oom = 1;
                    break;
                }
                if (fresh) {
                    agg *nr = agg_new(&reg, &nreg, &capr, rs, p, 0);
                    if (!nr) {
                        oom = 1;
                        break;
                    }
                    nr->aux2 = (uint32_t)depth;
                }
                agg *r = &reg[*rs];
                r->count++;
                r->total += c.excl[e];
                if (depth == d)
                    r->excl += c.excl[e];
                if (depth > 1) {
                    uint32_t par = pairmap_get(&parent, p, 0);
                    if (par == UINT32_MAX) {
                        par = path_prefix(b, p, depth - 1);
                        uint32_t *ps = pairmap_slot(&parent, p, 0, &fresh);
                        if (ps)
                            *ps = par;
                    }
                    p = par;
                }
            }
        }
        /* prune: depth>1 with exactly one child of (almost) equal inclusive */
        uint32_t *nchild = pq_calloc(nreg + 1, sizeof *nchild);
        uint32_t *onechild = pq_calloc(nreg + 1, sizeof *onechild);
        for (size_t k = 0; k < nreg && nchild && onechild; k++) {
            if (reg[k].aux2 <= 1)
                continue;
            uint32_t par = pairmap_get(&parent, reg[k].name, 0);
            uint32_t pi = par == UINT32_MAX ? UINT32_MAX : pairmap_get(&rmap, par, 0);
            if (pi != UINT32_MAX) {
                nchild[pi]++;
                onechild[pi] = (uint32_t)k;
            }
        }
        size_t w = 0;
        for (size_t k = 0; k < nreg; k++) {
            int drop = 0;
            if (nchild && onechild && reg[k].aux2 > 1 && nchild[k] == 1) {
                double a = us_of(reg[k].total), ch = us_of(reg[onechild[k]].total);
                double diff = fabs(a - ch), mx = fabs(a) > fabs(ch) ? fabs(a) : fabs(ch);
                drop = diff <= 1e-9 * mx || diff <= 1e-6;
            }
            reg[k].key2 = drop;
        }
        for (size_t k = 0; k < nreg; k++)
            if (!reg[k].key2)
                reg[w++] = reg[k];
        nreg = w;
        if (reg)
            qsort(reg, nreg, sizeof *reg, cmp_region);
        jval *rarr = jv_arr();
        for (size_t k = 0; k < nreg && k < big_limit; k++) {
            jval *r = jv_obj();
            jv_set(r, "path", jv_cstr(intern_str(&b->m->names, reg[k].name)));
            jv_set(r, "depth", jv_int(reg[k].aux2));
            jv_set(r, "count", jv_int((int64_t)reg[k].count));
            jv_set(r, "inclusive_duration", jv_num(us_of(reg[k].total)));
            jv_set(r, "exclusive_duration", jv_num(us_of(reg[k].excl)));
            jv_push(rarr, r);
        }
        jv_set(doc, "hierarchical_regions", rarr);
        pq_free(nchild);
        pq_free(onechild);
        pq_free(reg);
        pairmap_free(&rmap);
        pairmap_free(&parent);
    }
    jv_set(doc, "gap_region_contexts", carr);

    /* device_op_region_aggregates (1.16) */
    {
        window *win = NULL;
        size_t nw = 0, capw = 0, nmid = 0;
        /* In the events' order by (track, start): the windows' starts and the midpoints
         * then come as one ascending run per track, which the points' sort merges. */
        for (size_t k = 0; k < n; k++) {
            uint32_t e = c.order[k];
            if (dev_op(b, e)) {
                nmid++;
                continue;
            }
            int d, fb;
            if (!b->m->tf_op[e] && !name_has_sep(b, &s, b->m->name[e]))
                continue;
            uint32_t path = event_path(b, &s, e, &d, &fb);
            if (fb || !d)
                continue;
            if (nw == capw) {
                capw = capw ? capw * 2 : 256;
                window *nw2 = pq_realloc_array(win, capw, sizeof *nw2);
                if (!nw2)
                    break;
                win = nw2;
            }
            win[nw++] = (window){2 * b->m->start_ps[e],
                                 2 * (b->m->start_ps[e] + b->m->dur_ps[e]),
                                 path,
                                 d,
                                 b->m->dur_ps[e],
                                 b->m->track[e]};
        }
        jval *oarr = jv_arr();
        if (nw && nmid) {
            wpt *pts = pq_malloc_array(2 * nw + nmid + 1, sizeof *pts);
            wpt *ptmp = pq_malloc_array(2 * nw + nmid + 1, sizeof *ptmp);
            uint32_t *active = pq_malloc_array(nw + 1, sizeof *active);
            uint32_t *apos = pq_malloc_array(nw + 1, sizeof *apos);
            agg *ag = NULL;
            size_t nag = 0, capa = 0, na = 0, np = 0;
            pairmap amap = {0};
            counter shp = {0};
            if (pts && ptmp && active && apos) {
                for (size_t k = 0; k < nw; k++)
                    pts[np++] = (wpt){win[k].start2, (uint32_t)k, 0};
                /* The ends through a stack of open windows per track (active[] serves):
                 * properly nested windows give their ends in ascending order. */
                size_t sp = 0;
                for (size_t k = 0; k <= nw; k++) {
                    while (sp && (k == nw || win[k].trk != win[active[sp - 1]].trk ||
                                  win[active[sp - 1]].end2 <= win[k].start2)) {
                        uint32_t w = active[--sp];
                        pts[np++] = (wpt){win[w].end2, w, 2};
                    }
                    if (k < nw)
                        active[sp++] = (uint32_t)k;
                }
                for (size_t k = 0; k < n; k++)
                    if (dev_op(b, c.order[k]))
                        pts[np++] = (wpt){2 * b->m->start_ps[c.order[k]] + b->m->dur_ps[c.order[k]],
                                          c.order[k], 1};
                srec_sort(b, SORT_POINTS, pts, ptmp, np);
                for (size_t k = 0; k < np; k++) {
                    wpt *q = &pts[k];
                    if (q->kind == 0) {
                        apos[q->idx] = (uint32_t)na;
                        active[na++] = q->idx;
                    } else if (q->kind == 2) {
                        uint32_t at = apos[q->idx];
                        active[at] = active[--na];
                        apos[active[at]] = at;
                    } else if (na) {
                        uint32_t best = active[0];
                        for (size_t a = 1; a < na; a++) {
                            window *x = &win[active[a]], *y = &win[best];
                            if (x->depth > y->depth ||
                                (x->depth == y->depth &&
                                 (x->dur < y->dur ||
                                  (x->dur == y->dur &&
                                   strcmp(intern_str(&b->m->names, x->path),
                                          intern_str(&b->m->names, y->path)) > 0))))
                                best = active[a];
                        }
                        uint32_t e = q->idx;
                        int fresh;
                        uint32_t *as = pairmap_slot(&amap, win[best].path, b->m->name[e], &fresh);
                        if (!as)
                            break;
                        if (fresh && !agg_new(&ag, &nag, &capa, as, b->m->name[e], win[best].path))
                            break;
                        ag[*as].count++;
                        ag[*as].total += b->m->dur_ps[e];
                        ag[*as].excl += c.excl[e];
                        uint32_t sg = sig_id(b, &s, b->m->long_name[e]);
                        if (sg)
                            counter_add(&shp, *as, sg, 1, 0);
                    }
                }
                uint32_t *mcs = pq_malloc_array(nag + 1, sizeof *mcs);
                if (mcs)
                    most_common(&shp, mcs, nag);
                for (size_t k = 0; k < nag; k++)
                    ag[k].aux2 = mcs && mcs[k] != UINT32_MAX ? (uint32_t)shp.value[mcs[k]] : 0;
                pq_free(mcs);
                if (ag)
                    qsort(ag, nag, sizeof *ag, cmp_opreg);
                for (size_t k = 0; k < nag && k < big_limit; k++) {
                    const char *nm = intern_str(&b->m->names, ag[k].name);
                    char canon[1024];
                    sm_canonical_op_name(nm, strlen(nm), canon, sizeof canon);
                    jval *r = jv_obj();
                    jv_set(r, "region_path", jv_cstr(intern_str(&b->m->names, ag[k].aux)));
                    jv_set(r, "op_name", jv_cstr(nm));
                    jv_set(r, "canonical_name", jv_cstr(canon));
                    jv_set(r, "category", jv_cstr(op_category(c.name_flags[ag[k].name])));
                    jv_set(r, "count", jv_int((int64_t)ag[k].count));
                    jv_set(r, "total_duration", jv_num(us_of(ag[k].total)));
                    jv_set(r, "exclusive_duration", jv_num(us_of(ag[k].excl)));
                    jv_set(r, "avg_duration", jv_num(us_of(ag[k].total) / (double)ag[k].count));
                    jv_set(r, "shape_signature", str_or_null(&b->m->names, ag[k].aux2));
                    jv_push(oarr, r);
                }
            }
            pq_free(pts);
            pq_free(ptmp);
            pq_free(active);
            pq_free(apos);
            pq_free(ag);
            pairmap_free(&amap);
            counter_free(&shp);
        }
        pq_free(win);
        jv_set(doc, "device_op_region_aggregates", oarr);
    }
    pq_free(go);

    /* optimization_candidates (1.18) */
    {
        double T = c.total > 0 ? c.total : 1.0;
        jval *ca = jv_arr();
        char e1[512], e2[512], e3[512], e4[512];
        int any = 0;
        if (c.shares[CAT_COMM] >= 0.15) {
            snprintf(e1, sizeof e1, "Communication share: %.1f%%", c.shares[CAT_COMM] * 100);
            snprintf(e2, sizeof e2, "Top collective: %s",
                     top_collective ? top_collective : "collectives");
            static const char *const sg[] = {
                "Overlap collectives with compute (async collectives, latency-hiding scheduler).",
                "Reduce communication volume (sharding layout, gradient accumulation, "
                "lower-precision reductions).",
                "Check the mesh/topology mapping so collectives stay on fast links.", NULL};
            jv_push(ca, candidate("communication-heavy", "Communication appears dominant",
                                  "A large share of traced time is spent in collectives.",
                                  ev_list(e1, e2, NULL, NULL), sg));
            any = 1;
        }
        if (c.shares[CAT_STALL] >= 0.20) {
            snprintf(e1, sizeof e1, "Stall share: %.1f%%", c.shares[CAT_STALL] * 100);
            static const char *const sg[] = {
                "Look for host-device synchronisation points and blocking waits.",
                "Check input pipeline and data loading for starvation.",
                "Inspect dependency waits between streams or cores.", NULL};
            jv_push(ca, candidate("stall-heavy", "Stall/wait time is significant",
                                  "Waiting, barriers or idle time take a large share of the trace.",
                                  ev_list(e1, NULL, NULL, NULL), sg));
            any = 1;
        }
        if (nh && top_hot_excl / T >= 0.08) {
            snprintf(e1, sizeof e1, "Top op: %s", top_hot_name);
            snprintf(e2, sizeof e2, "Exclusive share: %.1f%%", top_hot_excl / T * 100);
            static const char *const sg[] = {
                "Inspect the op's shapes and layout; consider a fused or tuned kernel.",
                "Check whether the op can be removed, batched or rematerialised differently.",
                NULL};
            jv_push(ca, candidate("single-hot-op", "Single op has outsized exclusive time",
                                  "One op accounts for a large part of exclusive time.",
                                  ev_list(e1, e2, NULL, NULL), sg));
            any = 1;
        }
        if (top_gap_total > 0 && (top_gap_total / T >= 0.05 || top_gap_max >= 1000.0)) {
            snprintf(e1, sizeof e1, "Top pre-op gap: %s", top_gap_name);
            snprintf(e2, sizeof e2, "Total gap: %.3f", top_gap_total);
            snprintf(e3, sizeof e3, "Max gap: %.3f", top_gap_max);
            static const char *const sg[] = {
                "Check host-side work or synchronisation before the op.",
                "Prefetch inputs or overlap transfers (copy-start/copy-done) with compute.", NULL};
            jv_push(ca, candidate("pre-op-gap", "Large idle gaps appear before specific ops",
                                  "Device-op tracks sit idle before some ops.",
                                  ev_list(e1, e2, e3, NULL), sg));
            any = 1;
        }
        if (nsteady >= 4 && steady_median > 0 && steady_p90 / steady_median >= 1.4) {
            snprintf(e1, sizeof e1, "Steady median: %.3f", steady_median);
            snprintf(e2, sizeof e2, "Steady p90: %.3f", steady_p90);
            static const char *const sg[] = {
                "Look for periodic work (checkpointing, logging, evaluation) in heavy steps.",
                "Check for recompilation or host-side variance between steps.", NULL};
            jv_push(ca, candidate("step-jitter", "Steady-state step time has high jitter",
                                  "The p90 step time is well above the median.",
                                  ev_list(e1, e2, NULL, NULL), sg));
            any = 1;
        }
        if (!any) {
            snprintf(e1, sizeof e1, "Compute share: %.1f%%", c.shares[CAT_COMPUTE] * 100);
            snprintf(e2, sizeof e2, "Communication share: %.1f%%", c.shares[CAT_COMM] * 100);
            snprintf(e3, sizeof e3, "Host share: %.1f%%", c.shares[CAT_HOST] * 100);
            snprintf(e4, sizeof e4, "Stall share: %.1f%%", c.shares[CAT_STALL] * 100);
            static const char *const sg[] = {
                "Profile more steps or a heavier workload to expose a bottleneck.",
                "Compare against a baseline run with profq compare.", NULL};
            jv_push(ca, candidate("no-dominant-bottleneck", "No single dominant bottleneck found",
                                  "No category or op crosses the thresholds.",
                                  ev_list(e1, e2, e3, e4), sg));
        }
        jv_set(doc, "optimization_candidates", ca);
    }
    if (b->m->names.failed)
        goto fail;
    goto out;
fail:
    jv_free(doc);
    doc = NULL;
out:
    pq_free(b->tracks);
    pq_free(c.excl);
    pq_free(c.order);
    pq_free(c.name_flags);
    pq_free(s.sig_of_long);
    pq_free(s.path_tf);
    pq_free(s.path_nm);
    pq_free(s.depth_tf);
    pq_free(s.depth_nm);
    pq_free(s.name_sep);
    return doc;
}
