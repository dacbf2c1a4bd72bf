/* summary_query.c - query over a summary's result structs, routed as the seed's query.py
 * routes a question (spec/seed-tools.md 1.20): top ops, compute vs communication,
 * collectives, the gap before an op, the region context of a gap, hierarchical regions
 * (with each one's share of its root), bound analysis and comparison hints (what a trace
 * cannot answer), optimization candidates. The rows answered point into the summary.
 * Not here: the document of the answer (render/summary_query.c). */
#define _GNU_SOURCE
#include "analysis/summary_query.h"
#include "core/alloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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

/* PASS 0: S equals T (case-insensitive); pass 1: S holds T. */
static int matches(const char *s, const char *t, int pass)
{
    return s && (pass == 0 ? strcasecmp(s, t) == 0 : strcasestr(s, t) != NULL);
}

static int contains(const char *q, const char *w)
{
    return strstr(q, w) != NULL;
}

static size_t first_k(size_t n, int k)
{
    return k <= 0 ? 0 : n < (size_t)k ? n : (size_t)k;
}

/* The contexts of op TARGET (exactly, else by substring), at most K; with no target, the
 * first K contexts. */
static int pick_contexts(const pq_summary_result *s, const char *target, int k, sm_query *q)
{
    size_t lim = first_k(s->ngap_region_contexts, k);
    q->contexts = pq_calloc(lim + 1, sizeof *q->contexts);
    if (!q->contexts)
        return -1;
    size_t n = 0;
    if (!target) {
        for (; n < lim; n++)
            q->contexts[n] = &s->gap_region_contexts[n];
    }
    for (int pass = 0; target && pass < 2 && n == 0; pass++)
        for (size_t i = 0; i < s->ngap_region_contexts && n < lim; i++)
            if (matches(s->gap_region_contexts[i].op_name, target, pass))
                q->contexts[n++] = &s->gap_region_contexts[i];
    q->r.contexts = q->contexts;
    q->r.ncontexts = n;
    return 0;
}

static int pre_op_gap(const pq_summary_result *s, const char *question, int k, sm_query *q)
{
    const char *after = after_word(question, "before");
    if (after)
        clean_target(after, q->target, sizeof q->target);
    q->r.gaps = s->gap_before_ops;
    q->r.ngaps = first_k(s->ngap_before_ops, k);
    if (!q->target[0])
        return 0;
    q->r.target = q->target;
    for (int pass = 0; pass < 2 && !q->r.match; pass++)
        for (size_t i = 0; i < s->ngap_before_ops && !q->r.match; i++) {
            const pq_sm_gap *g = &s->gap_before_ops[i];
            /* name, payload_op (the same), marker_op */
            if (matches(g->name, q->target, pass) || matches(g->marker_op, q->target, pass))
                q->r.match = g;
        }
    return pick_contexts(s, q->target, k, q);
}

/* The first token like name.123 of QUESTION into OUT. */
static void numbered_token(const char *question, char *out, size_t cap)
{
    for (const char *p = question; *p && !out[0]; p++) {
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
        snprintf(out, cap, "%.*s", (int)(e - p), p);
    }
}

static int gap_context(const pq_summary_result *s, const char *question, int k, sm_query *q)
{
    static const char *const words[] = {"for", "of", "op"};
    const char *after = NULL;
    for (int w = 0; w < 3 && !after; w++)
        after = after_word(question, words[w]);
    if (after)
        clean_target(after, q->target, sizeof q->target);
    else
        numbered_token(question, q->target, sizeof q->target);
    q->r.target = q->target[0] ? q->target : NULL;
    return pick_contexts(s, q->r.target, k, q);
}

/* The first K regions, each with its inclusive and exclusive time as a share of its root
 * (the depth-1 region its path starts with; else the largest depth-1 region). */
static int regions(const pq_summary_result *s, int k, sm_query *q)
{
    const pq_sm_region *regs = s->hierarchical_regions;
    double max_root = 0;
    for (size_t i = 0; i < s->nhierarchical_regions; i++)
        if (regs[i].depth == 1 && !isnan(regs[i].inclusive_duration) &&
            regs[i].inclusive_duration > max_root)
            max_root = regs[i].inclusive_duration;
    size_t n = first_k(s->nhierarchical_regions, k);
    q->shares = pq_calloc(2 * n + 1, sizeof *q->shares);
    if (!q->shares)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *path = regs[i].path;
        double root = max_root;
        if (path) {
            const char *sep = strstr(path, "=>");
            size_t rl = sep ? (size_t)(sep - path) : strlen(path);
            for (size_t j = 0; j < s->nhierarchical_regions; j++) {
                const char *p2 = regs[j].path;
                if (p2 && strlen(p2) == rl && strncmp(p2, path, rl) == 0 && regs[j].depth == 1 &&
                    !isnan(regs[j].inclusive_duration))
                    root = regs[j].inclusive_duration;
            }
        }
        double inc = isnan(regs[i].inclusive_duration) ? 0 : regs[i].inclusive_duration;
        double exc = isnan(regs[i].exclusive_duration) ? 0 : regs[i].exclusive_duration;
        q->shares[i] = root > 0 ? inc / root : 0.0;
        q->shares[n + i] = root > 0 ? exc / root : 0.0;
    }
    q->r.regions = regs;
    q->r.nregions = n;
    q->r.inclusive_share = q->shares;
    q->r.exclusive_share = q->shares + n;
    return 0;
}

static void set_type(sm_query *q, pq_query_type t)
{
    static const char *const names[] = {
        "top_ops",        "compute_vs_communication", "collective_breakdown",
        "pre_op_gap",     "gap_region_context",       "hierarchical_regions",
        "bound_analysis", "comparison_hint",          "optimization_candidates"};
    q->r.type = t;
    q->r.query_type = names[t];
}

int sm_query_run(const pq_summary_result *s, const char *question, int k, sm_query *out)
{
    memset(out, 0, sizeof *out);
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
    double comp = s->time_breakdown.category_share[PQ_SM_COMPUTE];
    double comm = s->time_breakdown.category_share[PQ_SM_COMMUNICATION];
    comp = isnan(comp) ? 0 : comp;
    comm = isnan(comm) ? 0 : comm;
    int rc = 0;
    if (contains(q, "top") && contains(q, "op")) {
        set_type(out, PQ_QUERY_TOP_OPS);
        out->r.hot_ops = s->hot_ops;
        out->r.nhot_ops = first_k(s->nhot_ops, k);
    } else if ((contains(q, "comm") || contains(q, "collective")) &&
               (contains(q, "compute") || contains(q, "dominating") || contains(q, "dominant") ||
                contains(q, "worst"))) {
        set_type(out, PQ_QUERY_COMPUTE_VS_COMMUNICATION);
        out->r.dominant = comm > comp ? "communication" : "compute";
        out->r.compute_share = comp;
        out->r.communication_share = comm;
        out->r.collectives = s->communication_ops;
        out->r.ncollectives = first_k(s->ncommunication_ops, k);
    } else if (contains(q, "collective") || contains(q, "communication")) {
        set_type(out, PQ_QUERY_COLLECTIVE_BREAKDOWN);
        out->r.collectives = s->communication_ops;
        out->r.ncollectives = first_k(s->ncommunication_ops, k);
    } else if (contains(q, "gap") && contains(q, "before")) {
        set_type(out, PQ_QUERY_PRE_OP_GAP);
        rc = pre_op_gap(s, question, k, out);
    } else if (contains(q, "context") &&
               (contains(q, "gap") || contains(q, "op") || contains(q, "copy"))) {
        set_type(out, PQ_QUERY_GAP_REGION_CONTEXT);
        rc = gap_context(s, question, k, out);
    } else if (contains(q, "region") || contains(q, "hierarch")) {
        set_type(out, PQ_QUERY_HIERARCHICAL_REGIONS);
        rc = regions(s, k, out);
    } else if (contains(q, "memory-bound") || contains(q, "compute-bound")) {
        set_type(out, PQ_QUERY_BOUND_ANALYSIS);
        out->r.result = "unsupported_from_trace_only";
        out->r.details = "Memory-bound vs compute-bound classification needs FLOP and byte "
                         "counts or hardware counters; a trace timeline alone does not carry "
                         "them. Use profq roofline on an XPlane with HLO costs.";
    } else if (contains(q, "improve") || contains(q, "regress") || contains(q, "compare")) {
        set_type(out, PQ_QUERY_COMPARISON_HINT);
        out->r.details = "Comparing runs needs two summaries: run `profq compare BEFORE AFTER` "
                         "or `profq track BEFORE AFTER --label L --history H.jsonl`.";
    } else {
        set_type(out, PQ_QUERY_OPTIMIZATION_CANDIDATES);
        out->r.candidates = s->optimization_candidates;
        out->r.ncandidates = s->noptimization_candidates;
    }
    if (rc != 0)
        sm_query_release(out);
    return rc;
}

void sm_query_release(sm_query *q)
{
    pq_free(q->contexts);
    pq_free(q->shares);
    memset(q, 0, sizeof *q);
}
