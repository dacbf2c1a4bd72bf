/* summary_quality.c - what the summary says about the trace and what to do next: the
 * trace overview with its quality warnings (spec 1.17, 1.19), the provenance (run ids and
 * source hints), and the optimisation candidates (1.18) from the shares, hot op, gaps and
 * step jitter the other sections left in ctx. Not here: computing those. */
#include "summary_int.h"

#include "core/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* trace_overview (1.17, 1.19) */
int sm_trace_overview(ctx *c, const sm_source *src)
{
    sm_builder *b = c->b;
    size_t n = b->m->n;
    pq_sm_overview *ov = &c->res->r.trace_overview;
    ov->display_time_unit = sm_keep(c, src->display_time_unit);
    ov->num_events_total = src->num_events_total;
    ov->num_complete_events = n;
    ov->num_processes = b->m->proc_names.n;
    ov->num_threads = b->m->thread_names.n;
    ov->profile_start_ts = ov->profile_end_ts = NAN;
    if (n) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t e = 0; e < n; e++) {
            lo = b->m->start_ps[e] < lo ? b->m->start_ps[e] : lo;
            hi =
                b->m->start_ps[e] + b->m->dur_ps[e] > hi ? b->m->start_ps[e] + b->m->dur_ps[e] : hi;
        }
        ov->profile_start_ts = abs_us(b->m->base_us, lo);
        ov->profile_end_ts = abs_us(b->m->base_us, hi);
    }
    ov->duration_basis = "exclusive_duration_per_track";
    ov->suspected_truncation = n == 1000000;
    size_t nw = ov->suspected_truncation;
    for (int k = 0; src->extra_warnings && src->extra_warnings[k]; k++)
        nw++;
    const char **qw = arena_alloc(&c->res->mem, (nw + 1) * sizeof *qw);
    if (!qw)
        return -1;
    size_t at = 0;
    if (ov->suspected_truncation)
        qw[at++] = "Trace contains exactly 1,000,000 complete events; this often "
                   "indicates export truncation at a collector cap.";
    for (int k = 0; src->extra_warnings && src->extra_warnings[k]; k++)
        qw[at++] = sm_keep(c, src->extra_warnings[k]);
    ov->quality_warnings = qw;
    ov->nquality_warnings = at;
    return 0;
}

/* The values of C's counter rows, most common first (ties: first seen), at most 20, into
 * *OUT (*N of them). */
static int top20(ctx *c, const counter *cs, const char *const **out, size_t *n)
{
    const char **arr = arena_alloc(&c->res->mem, 21 * sizeof *arr);
    uint8_t *used = pq_calloc(cs->n + 1, 1);
    *out = arr;
    *n = 0;
    for (int k = 0; k < 20 && used && arr; k++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t r = 0; r < cs->n; r++)
            if (!used[r] && (best == UINT32_MAX || cs->count[r] > cs->count[best]))
                best = r;
        if (best == UINT32_MAX)
            break;
        used[best] = 1;
        arr[(*n)++] = sm_keep_id(c, (uint32_t)cs->value[best]);
    }
    int rc = used && arr ? 0 : -1;
    pq_free(used);
    return rc;
}

/* trace_provenance: top-20 run ids and source hints, most common first. */
int sm_trace_provenance(ctx *c, const sm_source *src)
{
    sm_builder *b = c->b;
    size_t n = b->m->n;
    counter rid = {0}, srch = {0};
    for (size_t e = 0; e < n; e++) {
        if (b->m->run_id[e])
            counter_add(&rid, 0, b->m->run_id[e], 1, 0);
        if (b->m->source[e])
            counter_add(&srch, 0, b->m->source[e], 1, 0);
    }
    pq_sm_provenance *pv = &c->res->r.trace_provenance;
    pv->trace_sha256 = sm_keep(c, src->sha256);
    int rc = top20(c, &rid, &pv->run_ids, &pv->nrun_ids) |
             top20(c, &srch, &pv->source_file_hints, &pv->nsource_file_hints);
    counter_free(&rid);
    counter_free(&srch);
    return rc ? -1 : 0;
}

/* The candidates of 1.18: id and title are the seed's; rationale and suggestions profq's. */
enum { CD_COMM, CD_STALL, CD_HOT, CD_GAP, CD_JITTER, CD_NONE };

typedef struct cand_def {
    const char *id, *title, *rationale;
    const char *const suggestions[4]; /* NULL-terminated */
} cand_def;

static const cand_def cand_defs[] = {
    [CD_COMM] = {"communication-heavy",
                 "Communication appears dominant",
                 "A large share of traced time is spent in collectives.",
                 {"Overlap collectives with compute (async collectives, latency-hiding scheduler).",
                  "Reduce communication volume (sharding layout, gradient accumulation, "
                  "lower-precision reductions).",
                  "Check the mesh/topology mapping so collectives stay on fast links.", NULL}},
    [CD_STALL] = {"stall-heavy",
                  "Stall/wait time is significant",
                  "Waiting, barriers or idle time take a large share of the trace.",
                  {"Look for host-device synchronisation points and blocking waits.",
                   "Check input pipeline and data loading for starvation.",
                   "Inspect dependency waits between streams or cores.", NULL}},
    [CD_HOT] = {"single-hot-op",
                "Single op has outsized exclusive time",
                "One op accounts for a large part of exclusive time.",
                {"Inspect the op's shapes and layout; consider a fused or tuned kernel.",
                 "Check whether the op can be removed, batched or rematerialised differently.",
                 NULL}},
    [CD_GAP] = {"pre-op-gap",
                "Large idle gaps appear before specific ops",
                "Device-op tracks sit idle before some ops.",
                {"Check host-side work or synchronisation before the op.",
                 "Prefetch inputs or overlap transfers (copy-start/copy-done) with compute.",
                 NULL}},
    [CD_JITTER] = {"step-jitter",
                   "Steady-state step time has high jitter",
                   "The p90 step time is well above the median.",
                   {"Look for periodic work (checkpointing, logging, evaluation) in heavy steps.",
                    "Check for recompilation or host-side variance between steps.", NULL}},
    [CD_NONE] = {"no-dominant-bottleneck",
                 "No single dominant bottleneck found",
                 "No category or op crosses the thresholds.",
                 {"Profile more steps or a heavier workload to expose a bottleneck.",
                  "Compare against a baseline run with profq compare.", NULL}},
};

/* Appends to ROWS candidate WHICH (CD_*) with the evidence lines EV[0..n) (C counts the
 * rows). */
static void candidate(ctx *c, pq_sm_candidate *rows, int which, char (*ev)[512], int n)
{
    const cand_def *d = &cand_defs[which];
    pq_sm_candidate *o = &rows[c->res->r.noptimization_candidates++];
    o->candidate_id = d->id;
    o->title = d->title;
    o->rationale = d->rationale;
    for (int k = 0; k < n; k++)
        o->evidence[o->nevidence++] = sm_keep(c, ev[k]);
    o->suggestions = d->suggestions;
}

/* OUT = LABEL VALUE, cut to CAP - 1 bytes as snprintf would. */
static void labelled(char *out, size_t cap, const char *label, const char *value)
{
    size_t a = strlen(label), b = strlen(value);
    a = a < cap - 1 ? a : cap - 1;
    b = b < cap - 1 - a ? b : cap - 1 - a;
    memcpy(out, label, a);
    memcpy(out + a, value, b);
    out[a + b] = 0;
}

/* optimization_candidates (1.18) */
int sm_candidates(ctx *c)
{
    double T = c->total > 0 ? c->total : 1.0;
    /* At most the five candidates of the thresholds, or the one without. */
    pq_sm_candidate *rows = arena_alloc(&c->res->mem, 6 * sizeof *rows);
    if (!rows)
        return -1;
    c->res->r.optimization_candidates = rows;
    char ev[4][512];
    if (c->shares[CAT_COMM] >= 0.15) {
        snprintf(ev[0], sizeof ev[0], "Communication share: %.1f%%", c->shares[CAT_COMM] * 100);
        snprintf(ev[1], sizeof ev[1], "Top collective: %s",
                 c->top_collective ? c->top_collective : "collectives");
        candidate(c, rows, CD_COMM, ev, 2);
    }
    if (c->shares[CAT_STALL] >= 0.20) {
        snprintf(ev[0], sizeof ev[0], "Stall share: %.1f%%", c->shares[CAT_STALL] * 100);
        candidate(c, rows, CD_STALL, ev, 1);
    }
    if (c->nhot && c->top_hot_excl / T >= 0.08) {
        labelled(ev[0], sizeof ev[0], "Top op: ", c->top_hot_name);
        snprintf(ev[1], sizeof ev[1], "Exclusive share: %.1f%%", c->top_hot_excl / T * 100);
        candidate(c, rows, CD_HOT, ev, 2);
    }
    if (c->top_gap_total > 0 && (c->top_gap_total / T >= 0.05 || c->top_gap_max >= 1000.0)) {
        labelled(ev[0], sizeof ev[0], "Top pre-op gap: ", c->top_gap_name);
        snprintf(ev[1], sizeof ev[1], "Total gap: %.3f", c->top_gap_total);
        snprintf(ev[2], sizeof ev[2], "Max gap: %.3f", c->top_gap_max);
        candidate(c, rows, CD_GAP, ev, 3);
    }
    if (c->nsteady >= 4 && c->steady_median > 0 && c->steady_p90 / c->steady_median >= 1.4) {
        snprintf(ev[0], sizeof ev[0], "Steady median: %.3f", c->steady_median);
        snprintf(ev[1], sizeof ev[1], "Steady p90: %.3f", c->steady_p90);
        candidate(c, rows, CD_JITTER, ev, 2);
    }
    if (!c->res->r.noptimization_candidates) {
        static const char *const label[] = {"Compute", "Communication", "Host", "Stall"};
        for (int k = 0; k < 4; k++) /* CAT_COMPUTE .. CAT_STALL */
            snprintf(ev[k], sizeof ev[k], "%s share: %.1f%%", label[k], c->shares[k] * 100);
        candidate(c, rows, CD_NONE, ev, 4);
    }
    return 0;
}
