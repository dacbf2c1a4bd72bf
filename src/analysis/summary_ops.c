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

static jval *num_or_null(int ok, double v)
{
    return ok ? jv_num(v) : jv_null();
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
 * compare (1.21) */

static jval *pct(int okb, double b, int oka, double a)
{
    if (!okb || !oka || b <= 0)
        return jv_null();
    return jv_num((a - b) / b * 100.0);
}

static const char *prov_str(const jval *s, const char *sec, const char *key)
{
    return jv_string(at(s, sec, key));
}

typedef struct fam_acc {
    const char *family;
    double excl[2], flops[2];
    int has_flop[2], present[2];
    const char *example[2], *shape[2];
} fam_acc;

static void add_families(const jval *s, int side, fam_acc *fa, size_t *nfa, size_t cap)
{
    const jval *fams = arr(s, "semantic_families");
    for (size_t i = 0; fams && i < fams->n; i++) {
        const jval *f = fams->items[i];
        const char *name = jv_string(jv_get(f, "family"));
        if (!name)
            continue;
        size_t j = 0;
        for (; j < *nfa; j++)
            if (strcmp(fa[j].family, name) == 0)
                break;
        if (j == *nfa) {
            if (*nfa >= cap)
                continue;
            memset(&fa[j], 0, sizeof fa[j]);
            fa[j].family = name;
            (*nfa)++;
        }
        double v;
        if (num(jv_get(f, "exclusive_duration"), &v))
            fa[j].excl[side] += v;
        if (num(jv_get(f, "flop_proxy_total"), &v)) {
            fa[j].flops[side] += v;
            fa[j].has_flop[side] = 1;
        }
        fa[j].present[side] = 1;
        fa[j].example[side] = jv_string(jv_get(f, "example_op"));
        fa[j].shape[side] = jv_string(jv_get(f, "dominant_shape_signature"));
    }
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(((const fam_acc *)a)->family, ((const fam_acc *)b)->family);
}

typedef struct opd {
    const char *name;
    double before, after, delta;
} opd;

static int cmp_reg(const void *a, const void *b)
{
    const opd *x = a, *y = b;
    if (x->delta != y->delta)
        return x->delta > y->delta ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_imp(const void *a, const void *b)
{
    const opd *x = a, *y = b;
    if (x->delta != y->delta)
        return x->delta < y->delta ? -1 : 1;
    return strcmp(x->name, y->name);
}

static jval *class_list(const jval *s)
{
    jval *out = jv_arr();
    const jval *cl = at(s, "step_time", "classes");
    for (size_t i = 0; cl && cl->t == JV_ARR && i < cl->n; i++) {
        const jval *c = cl->items[i];
        jval *o = jv_obj();
        jv_set(o, "name", jv_copy(jv_get(c, "name")));
        jv_set(o, "count", jv_copy(jv_get(c, "count")));
        jv_set(o, "fraction_of_steady", jv_copy(jv_get(c, "fraction_of_steady")));
        jv_set(o, "median_duration", jv_copy(jv_get(jv_get(c, "duration_stats"), "median")));
        jv_set(o, "p90_duration", jv_copy(jv_get(jv_get(c, "duration_stats"), "p90")));
        jv_set(o, "representative_step", jv_copy(jv_get(c, "representative_step")));
        jv_set(o, "representative_duration", jv_copy(jv_get(c, "representative_duration")));
        jv_set(o, "periodicity", jv_copy(jv_get(c, "periodicity")));
        for (size_t k = 0; k < o->n; k++)
            if (!o->items[k]) {
                o->items[k] = jv_null();
            }
        jv_push(out, o);
    }
    return out;
}

static jval *copy_or_null(const jval *v)
{
    return v ? jv_copy(v) : jv_null();
}

/* compare's provenance_checks: the same trace bytes fail, the same path, run or artifact
 * warn, a missing sha256 warns. */
static void compare_provenance(const jval *b, const jval *a, jval *r)
{
    jval *pv = jv_obj();
    jval *msgs = jv_arr();
    const char *shb = prov_str(b, "trace_provenance", "trace_sha256");
    const char *sha = prov_str(a, "trace_provenance", "trace_sha256");
    const char *status = "pass";
    if (shb && sha && strcmp(shb, sha) == 0) {
        status = "fail";
        jv_push(msgs, jv_cstr("Before and after summaries point to identical trace content "
                              "(matching SHA256)."));
    }
    const char *spb = jv_string(jv_get(b, "source_path")),
               *spa = jv_string(jv_get(a, "source_path"));
    if (spb && spa && strcmp(spb, spa) == 0) {
        if (strcmp(status, "fail") != 0)
            status = "warn";
        jv_push(msgs, jv_cstr("Before and after summaries have the same source_path."));
    }
    const char *rb = prov_str(b, "run_metadata", "run_id"),
               *ra = prov_str(a, "run_metadata", "run_id");
    if (rb && ra && strcmp(rb, ra) == 0) {
        if (strcmp(status, "fail") != 0)
            status = "warn";
        jv_push(msgs, jv_cstr("Before and after summaries have the same run_id."));
    }
    const char *ab = prov_str(b, "run_metadata", "artifact_ref"),
               *aa = prov_str(a, "run_metadata", "artifact_ref");
    if (ab && aa && strcmp(ab, aa) == 0) {
        if (strcmp(status, "fail") != 0)
            status = "warn";
        jv_push(msgs, jv_cstr("Before and after summaries have the same artifact_ref."));
    }
    if ((!shb || !sha) && strcmp(status, "pass") == 0) {
        status = "warn";
        jv_push(msgs, jv_cstr("Trace SHA256 is missing from one or both summaries."));
    }
    jv_set(pv, "status", jv_cstr(status));
    jv_set(pv, "messages", msgs);
    jv_set(pv, "before_trace_sha256", jv_cstr(shb));
    jv_set(pv, "after_trace_sha256", jv_cstr(sha));
    jv_set(pv, "before_run_id", jv_cstr(rb));
    jv_set(pv, "after_run_id", jv_cstr(ra));
    jv_set(r, "provenance_checks", pv);
}

/* compare's step_time (steady-state median and p90) and step_classes deltas. */
static void compare_steps(const jval *b, const jval *a, jval *r)
{
    jval *stp = jv_obj();
    const char *qs[2] = {"median", "p90"};
    for (int i = 0; i < 2; i++) {
        double vb = 0, va = 0;
        int okb = num(jv_get(at(b, "step_time", "steady_state_steps"), qs[i]), &vb);
        int oka = num(jv_get(at(a, "step_time", "steady_state_steps"), qs[i]), &va);
        char key[64];
        snprintf(key, sizeof key, "steady_state_%s_before", qs[i]);
        jv_set(stp, key, num_or_null(okb, vb));
        snprintf(key, sizeof key, "steady_state_%s_after", qs[i]);
        jv_set(stp, key, num_or_null(oka, va));
        snprintf(key, sizeof key, "steady_state_%s_delta", qs[i]);
        jv_set(stp, key, num_or_null(okb && oka, va - vb));
    }
    jv_set(r, "step_time", stp);
    /* step classes */
    jval *sc = jv_obj();
    jval *cb = class_list(b), *ca = class_list(a);
    jval *delta = jv_arr();
    const char *names[] = {"typical", "light", "heavy"};
    for (int n = 0; n < 3; n++) {
        const jval *xb = NULL, *xa = NULL;
        for (size_t i = 0; i < cb->n; i++)
            if (jv_string(jv_get(cb->items[i], "name")) &&
                strcmp(jv_string(jv_get(cb->items[i], "name")), names[n]) == 0)
                xb = cb->items[i];
        for (size_t i = 0; i < ca->n; i++)
            if (jv_string(jv_get(ca->items[i], "name")) &&
                strcmp(jv_string(jv_get(ca->items[i], "name")), names[n]) == 0)
                xa = ca->items[i];
        if (!xb && !xa)
            continue;
        jval *d = jv_obj();
        jv_set(d, "name", jv_cstr(names[n]));
        double v1 = 0, v2 = 0;
        jv_set(d, "before_count", xb ? jv_copy(jv_get(xb, "count")) : jv_int(0));
        jv_set(d, "after_count", xa ? jv_copy(jv_get(xa, "count")) : jv_int(0));
        jv_set(d, "before_fraction", xb ? jv_copy(jv_get(xb, "fraction_of_steady")) : jv_num(0));
        jv_set(d, "after_fraction", xa ? jv_copy(jv_get(xa, "fraction_of_steady")) : jv_num(0));
        int o1 = xb && num(jv_get(xb, "median_duration"), &v1);
        int o2 = xa && num(jv_get(xa, "median_duration"), &v2);
        jv_set(d, "median_before", num_or_null(o1, v1));
        jv_set(d, "median_after", num_or_null(o2, v2));
        jv_set(d, "median_delta", num_or_null(o1 && o2, v2 - v1));
        jv_set(d, "median_regression_pct", pct(o1, v1, o2, v2));
        jv_push(delta, d);
    }
    jv_set(sc, "before", cb);
    jv_set(sc, "after", ca);
    jv_set(sc, "delta", delta);
    jv_set(r, "step_classes", sc);
}

/* compare's semantic_family_delta, with the time-per-FLOP-proxy ratios; and the share
 * deltas of the time breakdown. */
static void compare_families(const jval *b, const jval *a, jval *r)
{
    jval *bd = jv_obj();
    const char *cats[] = {"compute", "communication", "host", "stall", "other"};
    for (int i = 0; i < 5; i++) {
        double vb = 0, va = 0;
        num(jv_get(at(b, "time_breakdown", cats[i]), "share_of_total"), &vb);
        num(jv_get(at(a, "time_breakdown", cats[i]), "share_of_total"), &va);
        jv_set(bd, cats[i], jv_num(va - vb));
    }
    jv_set(r, "time_breakdown_share_delta", bd);
    fam_acc fa[128];
    size_t nfa = 0;
    add_families(b, 0, fa, &nfa, 128);
    add_families(a, 1, fa, &nfa, 128);
    qsort(fa, nfa, sizeof *fa, cmp_cstr);
    jval *fd = jv_arr();
    for (size_t i = 0; i < nfa; i++) {
        jval *o = jv_obj();
        jv_set(o, "family", jv_cstr(fa[i].family));
        jv_set(o, "before_exclusive_duration", jv_num(fa[i].excl[0]));
        jv_set(o, "after_exclusive_duration", jv_num(fa[i].excl[1]));
        jv_set(o, "exclusive_duration_delta", jv_num(fa[i].excl[1] - fa[i].excl[0]));
        jv_set(o, "exclusive_regression_pct", pct(1, fa[i].excl[0], 1, fa[i].excl[1]));
        jv_set(o, "before_flop_proxy_total", num_or_null(fa[i].has_flop[0], fa[i].flops[0]));
        jv_set(o, "after_flop_proxy_total", num_or_null(fa[i].has_flop[1], fa[i].flops[1]));
        int fr = fa[i].has_flop[0] && fa[i].has_flop[1] && fa[i].flops[0] > 0;
        double flop_ratio = fr ? fa[i].flops[1] / fa[i].flops[0] : 0;
        jv_set(o, "flop_proxy_ratio", num_or_null(fr, flop_ratio));
        int tb = fa[i].has_flop[0] && fa[i].flops[0] > 0,
            ta = fa[i].has_flop[1] && fa[i].flops[1] > 0;
        double tpf_b = tb ? fa[i].excl[0] / fa[i].flops[0] : 0;
        double tpf_a = ta ? fa[i].excl[1] / fa[i].flops[1] : 0;
        jv_set(o, "before_time_per_flop_proxy", num_or_null(tb, tpf_b));
        jv_set(o, "after_time_per_flop_proxy", num_or_null(ta, tpf_a));
        jv_set(o, "time_per_flop_regression_pct", pct(tb, tpf_b, ta, tpf_a));
        int trk = fa[i].excl[0] > 0;
        double time_ratio = trk ? fa[i].excl[1] / fa[i].excl[0] : 0;
        jv_set(o, "time_ratio", num_or_null(trk, time_ratio));
        jv_set(o, "work_ratio", num_or_null(fr, flop_ratio));
        jv_set(
            o, "efficiency_ratio",
            num_or_null(trk && fr && flop_ratio > 0, flop_ratio > 0 ? time_ratio / flop_ratio : 0));
        jv_set(o, "example_before", jv_cstr(fa[i].example[0]));
        jv_set(o, "example_after", jv_cstr(fa[i].example[1]));
        jv_set(o, "shape_signature_before", jv_cstr(fa[i].shape[0]));
        jv_set(o, "shape_signature_after", jv_cstr(fa[i].shape[1]));
        jv_push(fd, o);
    }
    jv_set(r, "semantic_family_delta", fd);
}

/* compare's regressed_ops and improved_ops: the hot ops of both sides by exclusive time
 * delta, K of each. */
static void compare_ops(const jval *b, const jval *a, int k, jval *r)
{
    const jval *hb = arr(b, "hot_ops"), *ha = arr(a, "hot_ops");
    size_t cap = (hb ? hb->n : 0) + (ha ? ha->n : 0) + 1;
    opd *ops = pq_calloc(cap, sizeof *ops);
    size_t nops = 0;
    for (int side = 0; side < 2 && ops; side++) {
        const jval *h = side ? ha : hb;
        for (size_t i = 0; h && i < h->n; i++) {
            const char *name = jv_string(jv_get(h->items[i], "name"));
            double v = 0;
            if (!name)
                continue;
            num(jv_get(h->items[i], "exclusive_duration"), &v);
            size_t j = 0;
            for (; j < nops; j++)
                if (strcmp(ops[j].name, name) == 0)
                    break;
            if (j == nops)
                ops[nops++].name = name;
            if (side)
                ops[j].after = v;
            else
                ops[j].before = v;
        }
    }
    for (size_t j = 0; j < nops; j++)
        ops[j].delta = ops[j].after - ops[j].before;
    jval *reg = jv_arr(), *imp = jv_arr();
    if (ops) {
        qsort(ops, nops, sizeof *ops, cmp_reg);
        for (size_t j = 0; j < nops && (int)reg->n < k; j++)
            if (ops[j].delta > 0) {
                jval *o = jv_obj();
                jv_set(o, "name", jv_cstr(ops[j].name));
                jv_set(o, "before", jv_num(ops[j].before));
                jv_set(o, "after", jv_num(ops[j].after));
                jv_set(o, "delta", jv_num(ops[j].delta));
                jv_push(reg, o);
            }
        qsort(ops, nops, sizeof *ops, cmp_imp);
        for (size_t j = 0; j < nops && (int)imp->n < k; j++)
            if (ops[j].delta < 0) {
                jval *o = jv_obj();
                jv_set(o, "name", jv_cstr(ops[j].name));
                jv_set(o, "before", jv_num(ops[j].before));
                jv_set(o, "after", jv_num(ops[j].after));
                jv_set(o, "delta", jv_num(ops[j].delta));
                jv_push(imp, o);
            }
    }
    pq_free(ops);
    jv_set(r, "regressed_ops", reg);
    jv_set(r, "improved_ops", imp);
}

jval *summary_compare(const jval *b, const jval *a, int k)
{
    jval *r = jv_obj();
    jv_set(r, "before_source", copy_or_null(jv_get(b, "source_path")));
    jv_set(r, "after_source", copy_or_null(jv_get(a, "source_path")));
    compare_provenance(b, a, r);
    compare_steps(b, a, r);
    compare_families(b, a, r);
    compare_ops(b, a, k, r);
    return r;
}

/* ---------------------------------------------------------------------------------------
 * track (1.22) */

jval *summary_assess(const jval *cmp, const track_thresholds *t)
{
    jval *r = jv_obj();
    jval *fails = jv_arr(), *warns = jv_arr(), *m = jv_obj();
    const jval *st = jv_get(cmp, "step_time");
    double mb = 0, ma = 0, pb = 0, pa = 0;
    int okm = num(jv_get(st, "steady_state_median_before"), &mb) &&
              num(jv_get(st, "steady_state_median_after"), &ma) && mb > 0;
    int okp = num(jv_get(st, "steady_state_p90_before"), &pb) &&
              num(jv_get(st, "steady_state_p90_after"), &pa) && pb > 0;
    double mpct = okm ? (ma - mb) / mb * 100 : 0, ppct = okp ? (pa - pb) / pb * 100 : 0;
    double dcomm = 0, dstall = 0;
    num(jv_get(jv_get(cmp, "time_breakdown_share_delta"), "communication"), &dcomm);
    num(jv_get(jv_get(cmp, "time_breakdown_share_delta"), "stall"), &dstall);
    char msg[256];
    if (okm && mpct > t->max_step_median_regression_pct) {
        snprintf(msg, sizeof msg,
                 "Steady-state median step time regressed by %.2f%% (threshold %.2f%%).", mpct,
                 t->max_step_median_regression_pct);
        jv_push(fails, jv_cstr(msg));
    }
    if (okp && ppct > t->max_step_p90_regression_pct) {
        snprintf(msg, sizeof msg,
                 "Steady-state p90 step time regressed by %.2f%% (threshold %.2f%%).", ppct,
                 t->max_step_p90_regression_pct);
        jv_push(fails, jv_cstr(msg));
    }
    if (dcomm > t->max_communication_share_regression) {
        snprintf(msg, sizeof msg, "Communication share increased by %.4f (threshold %.4f).", dcomm,
                 t->max_communication_share_regression);
        jv_push(warns, jv_cstr(msg));
    }
    if (dstall > t->max_stall_share_regression) {
        snprintf(msg, sizeof msg, "Stall share increased by %.4f (threshold %.4f).", dstall,
                 t->max_stall_share_regression);
        jv_push(warns, jv_cstr(msg));
    }
    const char *status = fails->n ? "fail" : warns->n ? "warn" : "pass";
    jv_set(m, "steady_state_median_regression_pct", num_or_null(okm, mpct));
    jv_set(m, "steady_state_p90_regression_pct", num_or_null(okp, ppct));
    jv_set(m, "communication_share_delta", jv_num(dcomm));
    jv_set(m, "stall_share_delta", jv_num(dstall));
    jv_set(r, "status", jv_cstr(status));
    jv_set(r, "failures", fails);
    jv_set(r, "warnings", warns);
    jv_set(r, "metrics", m);
    jv_set(r, "comparison", jv_copy(cmp));
    return r;
}

static jval *side(const jval *s)
{
    jval *o = jv_obj();
    jv_set(o, "source_path", copy_or_null(jv_get(s, "source_path")));
    jv_set(o, "run_path", copy_or_null(at(s, "run_metadata", "run_path")));
    jv_set(o, "run_id", copy_or_null(at(s, "run_metadata", "run_id")));
    jv_set(o, "artifact_ref", copy_or_null(at(s, "run_metadata", "artifact_ref")));
    return o;
}

jval *summary_track_record(const jval *before, const jval *after, jval *assessment,
                           const char *label, const char *recorded_at_utc)
{
    jval *r = jv_obj();
    jv_set(r, "recorded_at_utc", jv_cstr(recorded_at_utc));
    jv_set(r, "label", jv_cstr(label));
    jv_set(r, "before", side(before));
    jv_set(r, "after", side(after));
    jv_set(r, "assessment", assessment);
    return r;
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
