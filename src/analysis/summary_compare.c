/* summary_compare.c - compare (spec/seed-tools.md 1.21) and track's assessment (1.22) over
 * the result structs of two summaries, as the seed's tracking.py computes them: provenance
 * checks, steady-state step time and step-class deltas, time-breakdown share deltas,
 * semantic-family deltas with the time-per-FLOP-proxy ratios, the regressed and improved hot
 * ops; then pass/warn/fail against thresholds. NaN is the document's null throughout.
 * Not here: reading or writing documents (api/summary_read.c, render/summary_compare.c). */
#include "analysis/summary_compare.h"
#include "core/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int have(double v)
{
    return !isnan(v);
}

/* (A - B) / B * 100, or null when either is null or B is not positive. */
static double pct(double b, double a)
{
    return have(b) && have(a) && b > 0 ? (a - b) / b * 100.0 : NAN;
}

static int same(const char *x, const char *y)
{
    return x && y && strcmp(x, y) == 0;
}

/* The same trace bytes fail; the same path, run or artifact warn; a missing sha256 warns. */
static void compare_provenance(const pq_summary_result *b, const pq_summary_result *a,
                               pq_summary_comparison *c)
{
    const char *shb = b->trace_provenance.trace_sha256, *sha = a->trace_provenance.trace_sha256;
    int fail = 0, warn = 0;
    if (same(shb, sha)) {
        fail = 1;
        c->provenance_messages[c->nprovenance_messages++] =
            "Before and after summaries point to identical trace content (matching SHA256).";
    }
    static const char *const what[] = {"Before and after summaries have the same source_path.",
                                       "Before and after summaries have the same run_id.",
                                       "Before and after summaries have the same artifact_ref."};
    const char *pairs[3][2] = {{b->source_path, a->source_path},
                               {b->run_metadata.run_id, a->run_metadata.run_id},
                               {b->run_metadata.artifact_ref, a->run_metadata.artifact_ref}};
    for (int k = 0; k < 3; k++)
        if (same(pairs[k][0], pairs[k][1])) {
            warn = 1;
            c->provenance_messages[c->nprovenance_messages++] = what[k];
        }
    if ((!shb || !sha) && !fail && !warn) {
        warn = 1;
        c->provenance_messages[c->nprovenance_messages++] =
            "Trace SHA256 is missing from one or both summaries.";
    }
    c->provenance_status = fail ? "fail" : warn ? "warn" : "pass";
    c->before_trace_sha256 = shb;
    c->after_trace_sha256 = sha;
    c->before_run_id = b->run_metadata.run_id;
    c->after_run_id = a->run_metadata.run_id;
}

/* The last class of ST named NAME, as the seed's dict of classes keeps it. */
static const pq_sm_step_class *class_named(const pq_sm_step_time *st, const char *name)
{
    const pq_sm_step_class *x = NULL;
    for (size_t i = 0; i < st->nclasses; i++)
        if (same(st->classes[i].name, name))
            x = &st->classes[i];
    return x;
}

static void compare_steps(const pq_summary_result *b, const pq_summary_result *a,
                          pq_summary_comparison *c)
{
    const pq_sm_duration_stats *sb = &b->step_time.steady_state_steps,
                               *sa = &a->step_time.steady_state_steps;
    c->steady_before[0] = sb->median;
    c->steady_after[0] = sa->median;
    c->steady_before[1] = sb->p90;
    c->steady_after[1] = sa->p90;
    for (int i = 0; i < 2; i++)
        c->steady_delta[i] = c->steady_after[i] - c->steady_before[i]; /* NaN when either is */
    c->classes_before = b->step_time.classes;
    c->nclasses_before = b->step_time.nclasses;
    c->classes_after = a->step_time.classes;
    c->nclasses_after = a->step_time.nclasses;
    static const char *const names[] = {"typical", "light", "heavy"};
    for (int n = 0; n < 3; n++) {
        const pq_sm_step_class *xb = class_named(&b->step_time, names[n]),
                               *xa = class_named(&a->step_time, names[n]);
        if (!xb && !xa)
            continue;
        pq_sm_class_delta *d = &c->class_delta[c->nclass_delta++];
        d->name = names[n];
        d->before_count = xb ? xb->count : 0;
        d->after_count = xa ? xa->count : 0;
        d->before_fraction = xb ? xb->fraction_of_steady : 0;
        d->after_fraction = xa ? xa->fraction_of_steady : 0;
        d->median_before = xb ? xb->duration_stats.median : NAN;
        d->median_after = xa ? xa->duration_stats.median : NAN;
        d->median_delta = d->median_after - d->median_before;
        d->median_regression_pct = pct(d->median_before, d->median_after);
    }
}

/* One family's sums on each side while the families of both summaries are gathered. */
typedef struct fam_acc {
    const char *family;
    double excl[2], flops[2];
    int has_flop[2];
    const char *example[2], *shape[2];
} fam_acc;

static int cmp_family(const void *x, const void *y)
{
    return strcmp(((const fam_acc *)x)->family, ((const fam_acc *)y)->family);
}

static size_t add_families(const pq_summary_result *s, int side, fam_acc *fa, size_t nfa,
                           size_t cap)
{
    for (size_t i = 0; i < s->nsemantic_families; i++) {
        const pq_sm_family *f = &s->semantic_families[i];
        if (!f->family)
            continue;
        size_t j = 0;
        while (j < nfa && strcmp(fa[j].family, f->family) != 0)
            j++;
        if (j == nfa) {
            if (nfa >= cap)
                continue;
            memset(&fa[j], 0, sizeof fa[j]);
            fa[j].family = f->family;
            nfa++;
        }
        if (have(f->exclusive_duration))
            fa[j].excl[side] += f->exclusive_duration;
        if (have(f->flop_proxy_total)) {
            fa[j].flops[side] += f->flop_proxy_total;
            fa[j].has_flop[side] = 1;
        }
        fa[j].example[side] = f->example_op;
        fa[j].shape[side] = f->dominant_shape_signature;
    }
    return nfa;
}

static void family_delta(const fam_acc *f, pq_sm_family_delta *o)
{
    o->family = f->family;
    o->before_exclusive_duration = f->excl[0];
    o->after_exclusive_duration = f->excl[1];
    o->exclusive_duration_delta = f->excl[1] - f->excl[0];
    o->exclusive_regression_pct = pct(f->excl[0], f->excl[1]);
    o->before_flop_proxy_total = f->has_flop[0] ? f->flops[0] : NAN;
    o->after_flop_proxy_total = f->has_flop[1] ? f->flops[1] : NAN;
    int fr = f->has_flop[0] && f->has_flop[1] && f->flops[0] > 0;
    o->flop_proxy_ratio = fr ? f->flops[1] / f->flops[0] : NAN;
    int tb = f->has_flop[0] && f->flops[0] > 0, ta = f->has_flop[1] && f->flops[1] > 0;
    o->before_time_per_flop_proxy = tb ? f->excl[0] / f->flops[0] : NAN;
    o->after_time_per_flop_proxy = ta ? f->excl[1] / f->flops[1] : NAN;
    o->time_per_flop_regression_pct =
        tb && ta ? pct(o->before_time_per_flop_proxy, o->after_time_per_flop_proxy) : NAN;
    o->time_ratio = f->excl[0] > 0 ? f->excl[1] / f->excl[0] : NAN;
    o->work_ratio = o->flop_proxy_ratio;
    o->efficiency_ratio =
        f->excl[0] > 0 && fr && o->flop_proxy_ratio > 0 ? o->time_ratio / o->flop_proxy_ratio : NAN;
    o->example_before = f->example[0];
    o->example_after = f->example[1];
    o->shape_signature_before = f->shape[0];
    o->shape_signature_after = f->shape[1];
}

/* The share deltas of the time breakdown and the semantic-family deltas (at most 128
 * families, as the seed's fixed table). */
static int compare_families(const pq_summary_result *b, const pq_summary_result *a,
                            pq_summary_comparison *c)
{
    for (int i = 0; i < PQ_SM_NCATEGORIES; i++) {
        double vb = b->time_breakdown.category_share[i], va = a->time_breakdown.category_share[i];
        c->share_delta[i] = (have(va) ? va : 0) - (have(vb) ? vb : 0);
    }
    enum { CAP = 128 };
    fam_acc *fa = pq_calloc(CAP, sizeof *fa);
    if (!fa)
        return -1;
    size_t nfa = add_families(b, 0, fa, 0, CAP);
    nfa = add_families(a, 1, fa, nfa, CAP);
    qsort(fa, nfa, sizeof *fa, cmp_family);
    c->families = nfa ? pq_calloc(nfa, sizeof *c->families) : NULL;
    if (nfa && !c->families) {
        pq_free(fa);
        return -1;
    }
    for (size_t i = 0; i < nfa; i++)
        family_delta(&fa[i], &c->families[i]);
    c->nfamilies = nfa;
    pq_free(fa);
    return 0;
}

static int cmp_regressed(const void *x, const void *y)
{
    const pq_sm_op_delta *p = x, *q = y;
    if (p->delta != q->delta)
        return p->delta > q->delta ? -1 : 1;
    return strcmp(p->name, q->name);
}

static int cmp_improved(const void *x, const void *y)
{
    const pq_sm_op_delta *p = x, *q = y;
    if (p->delta != q->delta)
        return p->delta < q->delta ? -1 : 1;
    return strcmp(p->name, q->name);
}

/* The hot ops of both sides by exclusive time delta: the K largest increases and the K
 * largest decreases. */
static int compare_ops(const pq_summary_result *b, const pq_summary_result *a, int k,
                       pq_summary_comparison *c)
{
    size_t cap = b->nhot_ops + a->nhot_ops + 1;
    pq_sm_op_delta *ops = pq_calloc(cap, sizeof *ops);
    if (!ops)
        return -1;
    size_t nops = 0;
    for (int side = 0; side < 2; side++) {
        const pq_summary_result *s = side ? a : b;
        for (size_t i = 0; i < s->nhot_ops; i++) {
            const pq_sm_hot_op *h = &s->hot_ops[i];
            if (!h->name)
                continue;
            double v = have(h->exclusive_duration) ? h->exclusive_duration : 0;
            size_t j = 0;
            while (j < nops && strcmp(ops[j].name, h->name) != 0)
                j++;
            if (j == nops)
                ops[nops++].name = h->name;
            if (side)
                ops[j].after = v;
            else
                ops[j].before = v;
        }
    }
    for (size_t j = 0; j < nops; j++)
        ops[j].delta = ops[j].after - ops[j].before;
    size_t lim = k > 0 ? (size_t)k : 0;
    c->regressed_ops = pq_calloc(lim + 1, sizeof *ops);
    c->improved_ops = pq_calloc(lim + 1, sizeof *ops);
    if (!c->regressed_ops || !c->improved_ops) {
        pq_free(ops);
        return -1;
    }
    qsort(ops, nops, sizeof *ops, cmp_regressed);
    for (size_t j = 0; j < nops && c->nregressed_ops < lim; j++)
        if (ops[j].delta > 0)
            c->regressed_ops[c->nregressed_ops++] = ops[j];
    qsort(ops, nops, sizeof *ops, cmp_improved);
    for (size_t j = 0; j < nops && c->nimproved_ops < lim; j++)
        if (ops[j].delta < 0)
            c->improved_ops[c->nimproved_ops++] = ops[j];
    pq_free(ops);
    return 0;
}

int sm_compare(const pq_summary_result *b, const pq_summary_result *a, int k,
               pq_summary_comparison *out)
{
    memset(out, 0, sizeof *out);
    out->before_source = b->source_path;
    out->after_source = a->source_path;
    compare_provenance(b, a, out);
    compare_steps(b, a, out);
    if (compare_families(b, a, out) != 0 || compare_ops(b, a, k, out) != 0) {
        sm_compare_release(out);
        return -1;
    }
    return 0;
}

void sm_compare_release(pq_summary_comparison *c)
{
    pq_free(c->families);
    pq_free(c->regressed_ops);
    pq_free(c->improved_ops);
    memset(c, 0, sizeof *c);
}

void sm_assess(const pq_summary_comparison *c, const track_thresholds *t, pq_track_assessment *out)
{
    memset(out, 0, sizeof *out);
    out->comparison = c;
    double mb = c->steady_before[0], ma = c->steady_after[0];
    double pb = c->steady_before[1], pa = c->steady_after[1];
    int okm = have(mb) && have(ma) && mb > 0, okp = have(pb) && have(pa) && pb > 0;
    double mpct = okm ? (ma - mb) / mb * 100 : 0, ppct = okp ? (pa - pb) / pb * 100 : 0;
    double dcomm = c->share_delta[PQ_SM_COMMUNICATION], dstall = c->share_delta[PQ_SM_STALL];
    if (okm && mpct > t->max_step_median_regression_pct)
        snprintf(out->failures[out->nfailures++], sizeof out->failures[0],
                 "Steady-state median step time regressed by %.2f%% (threshold %.2f%%).", mpct,
                 t->max_step_median_regression_pct);
    if (okp && ppct > t->max_step_p90_regression_pct)
        snprintf(out->failures[out->nfailures++], sizeof out->failures[0],
                 "Steady-state p90 step time regressed by %.2f%% (threshold %.2f%%).", ppct,
                 t->max_step_p90_regression_pct);
    if (dcomm > t->max_communication_share_regression)
        snprintf(out->warnings[out->nwarnings++], sizeof out->warnings[0],
                 "Communication share increased by %.4f (threshold %.4f).", dcomm,
                 t->max_communication_share_regression);
    if (dstall > t->max_stall_share_regression)
        snprintf(out->warnings[out->nwarnings++], sizeof out->warnings[0],
                 "Stall share increased by %.4f (threshold %.4f).", dstall,
                 t->max_stall_share_regression);
    out->status = out->nfailures ? PQ_TRACK_FAIL : out->nwarnings ? PQ_TRACK_WARN : PQ_TRACK_PASS;
    out->median_regression_pct = okm ? mpct : NAN;
    out->p90_regression_pct = okp ? ppct : NAN;
    out->communication_share_delta = dcomm;
    out->stall_share_delta = dstall;
}
