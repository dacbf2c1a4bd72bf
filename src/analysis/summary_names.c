/* summary_names.c - what the summary reads from a name (spec 1.3, 1.6, 1.10, 1.14):
 * stall and communication names, collective kinds, canonical op names, semantic
 * families, shape signatures and the FLOP proxy, the hierarchical parts of a tf_op path
 * or name, and the per-name caches of the op sections (signature and path ids).
 * Not here: anything that looks at times or tracks. */
#define _GNU_SOURCE
#include "summary_int.h"

#include "core/alloc.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
void sm_event_parts(const char *tf_op, const char *name, char *out, size_t cap, int *depth,
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

/* Name flags (1 stall, 2 comm, 4 known) of every name the events use, for the name ids
 * the pool holds now (it only grows from here). */
int sm_name_flags(ctx *c)
{
    sm_builder *b = c->b;
    c->name_flags = pq_calloc(b->names->n + 1, 1);
    if (!c->name_flags)
        return -1;
    for (size_t e = 0; e < b->m->n; e++) {
        uint32_t id = b->m->name[e];
        if ((c->name_flags[id] & 4) || !sm_work(b, e))
            continue;
        const char *nm = intern_str(b->names, id);
        c->name_flags[id] = (uint8_t)(4 | (is_stall(nm) ? 1 : 0) | (is_comm(nm) ? 2 : 0));
    }
    return 0;
}

const char *sm_op_category(uint8_t flags)
{
    return flags & 1 ? "stall" : flags & 2 ? "communication" : "compute";
}

/* sig_id (summary_int.h) past its cache. */
uint32_t sm_sig_id_slow(sm_builder *b, opstate *s, uint32_t ln)
{
    char sig[1024];
    const char *p = intern_str(b->names, ln);
    sm_shape_signature(p, strlen(p), sig, sizeof sig);
    uint32_t id = intern_cstr(b->names, sig);
    if (ln < s->npool)
        s->sig_of_long[ln] = id;
    return id;
}

/* event_path (summary_int.h) past its cache. */
uint32_t sm_event_path_slow(sm_builder *b, opstate *s, uint32_t e, int *depth)
{
    uint32_t tf = b->m->tf_op[e], nm = b->m->name[e];
    uint32_t key = tf ? tf : nm;
    char path[4096];
    int fb;
    sm_event_parts(tf ? intern_str(b->names, tf) : NULL, intern_str(b->names, nm), path,
                   sizeof path, depth, &fb);
    uint32_t id = *depth ? intern_cstr(b->names, path) : 0;
    if (key < s->npool) {
        (tf ? s->path_tf : s->path_nm)[key] = id + 1;
        (tf ? s->depth_tf : s->depth_nm)[key] = (uint8_t)(*depth > 255 ? 255 : *depth);
    }
    return id;
}

uint32_t sm_path_prefix(sm_builder *b, uint32_t path, int maxd)
{
    const char *p = intern_str(b->names, path), *q = p;
    for (int d = 0; d < maxd; d++) {
        const char *hit = strstr(q, "=>");
        if (!hit)
            return path;
        if (d == maxd - 1)
            return intern_add(b->names, p, (size_t)(hit - p));
        q = hit + 2;
    }
    return path;
}

size_t sm_nfamilies(void)
{
    return NFAMILIES;
}
