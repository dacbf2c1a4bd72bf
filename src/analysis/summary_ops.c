/* summary_ops.c - query / compare / track / history over profile_summary.v1 documents,
 * as the seed's query.py and tracking.py do (spec/seed-tools.md 1.20-1.22). */
#define _GNU_SOURCE
#include "summary_ops.h"

#include "core/alloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const jval *at(const jval *v, const char *a, const char *b)
{
    const jval *x = jv_get(v, a);
    return b ? jv_get(x, b) : x;
}

static int num(const jval *v, double *out)
{
    int ok;
    *out = jv_number(v, &ok);
    return ok;
}

static const jval *arr(const jval *v, const char *key)
{
    const jval *a = jv_get(v, key);
    return a && a->t == JV_ARR ? a : NULL;
}

static jval *first_k(const jval *a, int k)
{
    jval *out = jv_arr();
    for (size_t i = 0; a && i < a->n && (int)i < k; i++)
        jv_push(out, jv_copy(a->items[i]));
    return out;
}

static int word_at(const char *q, const char *p, size_t wl)
{
    int before_ok = p == q || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after_ok = !(isalnum((unsigned char)p[wl]) || p[wl] == '_');
    return before_ok && after_ok;
}

/* Text after the first whole word W (case-insensitive), or NULL. */
static const char *after_word(const char *q, const char *w)
{
    size_t wl = strlen(w);
    for (const char *p = q; *p; p++)
        if (strncasecmp(p, w, wl) == 0 && word_at(q, p, wl))
            return p + wl;
    return NULL;
}

static int is_strip(char c)
{
    return strchr("`\"'?.!, \t\n\r", c) != NULL && c != '\0';
}

/* Strips `"'?.!, and spaces at both ends, then a leading "op " / "operation ". */
static void clean_target(const char *s, char *out, size_t cap)
{
    while (*s && is_strip(*s))
        s++;
    size_t n = strlen(s);
    while (n && is_strip(s[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    const char *pre[] = {"operation ", "op "};
    for (int k = 0; k < 2; k++) {
        size_t pl = strlen(pre[k]);
        if (strncasecmp(out, pre[k], pl) == 0) {
            memmove(out, out + pl, strlen(out + pl) + 1);
            break;
        }
    }
}

static int field_eq(const jval *row, const char *key, const char *t)
{
    const char *s = jv_string(jv_get(row, key));
    return s && strcasecmp(s, t) == 0;
}

static int field_has(const jval *row, const char *key, const char *t)
{
    const char *s = jv_string(jv_get(row, key));
    return s && strcasestr(s, t) != NULL;
}

static jval *matching_contexts(const jval *ctxs, const char *target, int k)
{
    jval *out = jv_arr();
    for (int pass = 0; pass < 2 && out->n == 0; pass++)
        for (size_t i = 0; ctxs && i < ctxs->n && (int)out->n < k; i++)
            if (pass == 0 ? field_eq(ctxs->items[i], "op_name", target)
                          : field_has(ctxs->items[i], "op_name", target))
                jv_push(out, jv_copy(ctxs->items[i]));
    return out;
}

static int contains(const char *q, const char *w)
{
    return strstr(q, w) != NULL;
}

jval *summary_query(const jval *s, const char *question, int k)
{
    char q[4096];
    const char *st = question;
    while (isspace((unsigned char)*st))
        st++;
    snprintf(q, sizeof q, "%s", st);
    size_t ql = strlen(q);
    while (ql && isspace((unsigned char)q[ql - 1]))
        q[--ql] = '\0';
    for (char *p = q; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    jval *r = jv_obj();
    double comp = 0, comm = 0;
    num(at(s, "time_breakdown", "compute")
            ? jv_get(at(s, "time_breakdown", "compute"), "share_of_total")
            : NULL,
        &comp);
    num(at(s, "time_breakdown", "communication")
            ? jv_get(at(s, "time_breakdown", "communication"), "share_of_total")
            : NULL,
        &comm);
    if (contains(q, "top") && contains(q, "op")) {
        jv_set(r, "query_type", jv_cstr("top_ops"));
        jv_set(r, "results", first_k(arr(s, "hot_ops"), k));
    } else if ((contains(q, "comm") || contains(q, "collective")) &&
               (contains(q, "compute") || contains(q, "dominating") || contains(q, "dominant") ||
                contains(q, "worst"))) {
        jv_set(r, "query_type", jv_cstr("compute_vs_communication"));
        jv_set(r, "dominant", jv_cstr(comm > comp ? "communication" : "compute"));
        jv_set(r, "compute_share", jv_num(comp));
        jv_set(r, "communication_share", jv_num(comm));
        jv_set(r, "communication_breakdown", first_k(arr(s, "communication_ops"), k));
    } else if (contains(q, "collective") || contains(q, "communication")) {
        jv_set(r, "query_type", jv_cstr("collective_breakdown"));
        jv_set(r, "results", first_k(arr(s, "communication_ops"), k));
    } else if (contains(q, "gap") && contains(q, "before")) {
        jv_set(r, "query_type", jv_cstr("pre_op_gap"));
        const char *after = after_word(question, "before");
        char target[1024] = "";
        if (after)
            clean_target(after, target, sizeof target);
        const jval *gaps = arr(s, "gap_before_ops");
        if (target[0]) {
            jv_set(r, "target", jv_cstr(target));
            const jval *match = NULL;
            static const char *const keys[] = {"name", "payload_op", "marker_op"};
            for (int pass = 0; pass < 2 && !match; pass++)
                for (size_t i = 0; gaps && i < gaps->n && !match; i++)
                    for (int f = 0; f < 3 && !match; f++)
                        if (pass == 0 ? field_eq(gaps->items[i], keys[f], target)
                                      : field_has(gaps->items[i], keys[f], target))
                            match = gaps->items[i];
            jv_set(r, "match", match ? jv_copy(match) : jv_null());
            jv_set(r, "context", matching_contexts(arr(s, "gap_region_contexts"), target, k));
        }
        jv_set(r, "top_gaps", first_k(gaps, k));
    } else if (contains(q, "context") &&
               (contains(q, "gap") || contains(q, "op") || contains(q, "copy"))) {
        jv_set(r, "query_type", jv_cstr("gap_region_context"));
        const char *words[] = {"for", "of", "op"};
        const char *after = NULL;
        for (int w = 0; w < 3 && !after; w++)
            after = after_word(question, words[w]);
        char target[1024] = "";
        if (after) {
            clean_target(after, target, sizeof target);
        } else {
            /* first token like name.123 */
            for (const char *p = question; *p && !target[0]; p++) {
                if (!(isalpha((unsigned char)*p) || *p == '_') ||
                    (p > question && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
                    continue;
                const char *e = p;
                while (isalnum((unsigned char)*e) || *e == '_')
                    e++;
                if (*e != '.' || !isdigit((unsigned char)e[1]))
                    continue;
                e++;
                while (isdigit((unsigned char)*e))
                    e++;
                if (isalnum((unsigned char)*e) || *e == '_')
                    continue;
                snprintf(target, sizeof target, "%.*s", (int)(e - p), p);
            }
        }
        const jval *ctxs = arr(s, "gap_region_contexts");
        jv_set(r, "target", target[0] ? jv_cstr(target) : jv_null());
        jv_set(r, "results", target[0] ? matching_contexts(ctxs, target, k) : first_k(ctxs, k));
    } else if (contains(q, "region") || contains(q, "hierarch")) {
        jv_set(r, "query_type", jv_cstr("hierarchical_regions"));
        const jval *regs = arr(s, "hierarchical_regions");
        double max_root = 0;
        for (size_t i = 0; regs && i < regs->n; i++) {
            double d, inc;
            if (num(jv_get(regs->items[i], "depth"), &d) && d == 1 &&
                num(jv_get(regs->items[i], "inclusive_duration"), &inc) && inc > max_root)
                max_root = inc;
        }
        jval *out = jv_arr();
        for (size_t i = 0; regs && i < regs->n && (int)i < k; i++) {
            const jval *row = regs->items[i];
            const char *path = jv_string(jv_get(row, "path"));
            double root = max_root;
            if (path) {
                const char *sep = strstr(path, "=>");
                size_t rl = sep ? (size_t)(sep - path) : strlen(path);
                for (size_t j = 0; j < regs->n; j++) {
                    const char *p2 = jv_string(jv_get(regs->items[j], "path"));
                    double d, inc;
                    if (p2 && strlen(p2) == rl && strncmp(p2, path, rl) == 0 &&
                        num(jv_get(regs->items[j], "depth"), &d) && d == 1 &&
                        num(jv_get(regs->items[j], "inclusive_duration"), &inc))
                        root = inc;
                }
            }
            double inc = 0, exc = 0;
            num(jv_get(row, "inclusive_duration"), &inc);
            num(jv_get(row, "exclusive_duration"), &exc);
            jval *c = jv_copy(row);
            jv_set(c, "inclusive_share_of_total", jv_num(root > 0 ? inc / root : 0.0));
            jv_set(c, "exclusive_share_of_total", jv_num(root > 0 ? exc / root : 0.0));
            jv_push(out, c);
        }
        jv_set(r, "results", out);
    } else if (contains(q, "memory-bound") || contains(q, "compute-bound")) {
        jv_set(r, "query_type", jv_cstr("bound_analysis"));
        jv_set(r, "result", jv_cstr("unsupported_from_trace_only"));
        jv_set(r, "details",
               jv_cstr("Memory-bound vs compute-bound classification needs FLOP and byte "
                       "counts or hardware counters; a trace timeline alone does not carry "
                       "them. Use profq roofline on an XPlane with HLO costs."));
    } else if (contains(q, "improve") || contains(q, "regress") || contains(q, "compare")) {
        jv_set(r, "query_type", jv_cstr("comparison_hint"));
        jv_set(r, "details",
               jv_cstr("Comparing runs needs two summaries: run `profq compare BEFORE AFTER` "
                       "or `profq track BEFORE AFTER --label L --history H.jsonl`."));
    } else {
        jv_set(r, "query_type", jv_cstr("optimization_candidates"));
        jv_set(r, "results", jv_copy(arr(s, "optimization_candidates")));
        if (!jv_get(r, "results") || jv_get(r, "results")->t != JV_ARR)
            jv_set(r, "results", jv_arr());
    }
    return r;
}

/* ---------------------------------------------------------------------------------------
 * history (1.22): the digest of track records. */

static jval *copy_or_null(const jval *v)
{
    return v ? jv_copy(v) : jv_null();
}

typedef struct msgc {
    const char *msg;
    size_t count, first;
} msgc;

static int cmp_msgc(const void *a, const void *b)
{
    const msgc *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static jval *top_messages(jval *const *recs, size_t n, const char *key)
{
    size_t cap = 64, nm = 0;
    msgc *m = pq_calloc(cap, sizeof *m);
    size_t seq = 0;
    for (size_t i = 0; i < n && m; i++) {
        const jval *list = jv_get(jv_get(recs[i], "assessment"), key);
        for (size_t j = 0; list && list->t == JV_ARR && j < list->n; j++) {
            const char *s = jv_string(list->items[j]);
            if (!s)
                continue;
            size_t k = 0;
            for (; k < nm; k++)
                if (strcmp(m[k].msg, s) == 0)
                    break;
            if (k == nm) {
                if (nm == cap) {
                    msgc *nmm = pq_realloc_array(m, cap * 2, sizeof *m);
                    if (!nmm)
                        continue;
                    m = nmm;
                    cap *= 2;
                }
                m[nm].msg = s;
                m[nm].count = 0;
                m[nm].first = seq++;
                nm++;
            }
            m[k].count++;
        }
    }
    jval *out = jv_arr();
    if (m) {
        qsort(m, nm, sizeof *m, cmp_msgc);
        for (size_t k = 0; k < nm && k < 10; k++) {
            jval *o = jv_obj();
            jv_set(o, "message", jv_cstr(m[k].msg));
            jv_set(o, "count", jv_int((int64_t)m[k].count));
            jv_push(out, o);
        }
    }
    pq_free(m);
    return out;
}

jval *summary_history(const char *path, jval *const *recs, size_t n, int tail)
{
    jval *r = jv_obj();
    jv_set(r, "history_path", jv_cstr(path));
    jv_set(r, "num_records", jv_int((int64_t)n));
    jval *sc = jv_obj();
    for (size_t i = 0; i < n; i++) {
        const char *st = jv_string(jv_get(jv_get(recs[i], "assessment"), "status"));
        if (!st)
            st = "unknown";
        const jval *cur = jv_get(sc, st);
        jv_set(sc, st, jv_int(cur ? cur->i + 1 : 1));
    }
    jv_set(r, "status_counts", sc);
    jv_set(r, "top_failures", top_messages(recs, n, "failures"));
    jv_set(r, "top_warnings", top_messages(recs, n, "warnings"));
    jv_set(r, "latest_record", n ? jv_copy(recs[n - 1]) : jv_null());
    jval *recent = jv_arr();
    size_t from = tail <= 0 ? n : (n > (size_t)tail ? n - (size_t)tail : 0);
    for (size_t i = from; i < n; i++)
        jv_push(recent, jv_copy(recs[i]));
    jv_set(r, "recent_records", recent);
    return r;
}

/* ---------------------------------------------------------------------------------------
 * publish (1.25): the artifact metadata the seed attaches. */

jval *summary_publish_metadata(const jval *s)
{
    jval *m = jv_obj();
    jv_set(m, "schema_version", copy_or_null(jv_get(s, "schema_version")));
    jv_set(m, "source_format", copy_or_null(jv_get(s, "source_format")));
    jv_set(m, "source_path", copy_or_null(jv_get(s, "source_path")));
    static const char *const rm[] = {"run_path",         "run_id",  "hardware_type",
                                     "mesh_or_topology", "git_sha", "config_hash"};
    for (size_t k = 0; k < sizeof rm / sizeof *rm; k++)
        jv_set(m, rm[k], copy_or_null(at(s, "run_metadata", rm[k])));
    jv_set(m, "source_artifact_ref", copy_or_null(at(s, "run_metadata", "artifact_ref")));
    jv_set(m, "step_median",
           copy_or_null(at(s, "step_time", "steady_state_steps")
                            ? jv_get(at(s, "step_time", "steady_state_steps"), "median")
                            : NULL));
    jv_set(m, "step_p90",
           copy_or_null(at(s, "step_time", "steady_state_steps")
                            ? jv_get(at(s, "step_time", "steady_state_steps"), "p90")
                            : NULL));
    static const char *const cats[] = {"compute", "communication", "host", "stall"};
    for (int k = 0; k < 4; k++) {
        char key[64];
        snprintf(key, sizeof key, "%s_share", cats[k]);
        jv_set(m, key, copy_or_null(jv_get(at(s, "time_breakdown", cats[k]), "share_of_total")));
    }
    const jval *gaps = arr(s, "gap_before_ops");
    jv_set(m, "top_pre_gap_op",
           copy_or_null(gaps && gaps->n ? jv_get(gaps->items[0], "name") : NULL));
    jv_set(m, "top_pre_gap_total",
           copy_or_null(gaps && gaps->n ? jv_get(gaps->items[0], "total_gap_duration") : NULL));
    const jval *r = arr(s, "hierarchical_regions"), *g = arr(s, "gap_region_contexts");
    jv_set(m, "num_hierarchical_regions", jv_int(r ? (int64_t)r->n : 0));
    jv_set(m, "num_gap_region_contexts", jv_int(g ? (int64_t)g->n : 0));
    jv_set(m, "generated_at_utc", copy_or_null(jv_get(s, "generated_at_utc")));
    return m;
}
