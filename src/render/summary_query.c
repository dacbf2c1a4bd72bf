/* summary_query.c - query's document written from its result struct
 * (pq_summary_query_result, include/profq.h): the keys each answer type has in the seed's
 * query.py, the summary's rows with the keys the summary document gives them
 * (render/summary_fields.h); as JSON (keys sorted, the seed's json.dumps bytes:
 * render/summary_json.c) and as text for people (laid out by render/summary_outline.c).
 * No document tree is built. Not here: routing the question (analysis/summary_query.c). */
#include "render/summary_query.h"
#include "render/summary_fields.h"
#include "render/summary_json.h"
#include "render/summary_outline.h"

/* ---- JSON ---------------------------------------------------------------------------------- */

/* The keys of Q's context rows (SM_CONTEXT_ROW's) or region rows (SM_REGION_ROW's and the
 * two shares: REGIONS) into KEYS; returns how many. */
static size_t row_keys(int regions, const char **keys)
{
    const sm_row_desc *d = regions ? &SM_REGION_ROW : &SM_CONTEXT_ROW;
    size_t n = 0;
    for (; n < d->nfields && n < 14; n++)
        keys[n] = d->fields[n].key;
    if (regions) {
        keys[n++] = "inclusive_share_of_total";
        keys[n++] = "exclusive_share_of_total";
    }
    return n;
}

static void context_get(const void *ctx, size_t i, su_val *v)
{
    const pq_summary_query_result *q = ctx;
    for (size_t j = 0; j < SM_CONTEXT_ROW.nfields; j++)
        v[j] = su_vfield(q->contexts[i], &SM_CONTEXT_ROW.fields[j]);
}

static void region_get(const void *ctx, size_t i, su_val *v)
{
    const pq_summary_query_result *q = ctx;
    size_t n = SM_REGION_ROW.nfields;
    for (size_t j = 0; j < n; j++)
        v[j] = su_vfield(&q->regions[i], &SM_REGION_ROW.fields[j]);
    v[n] = su_vnum(q->inclusive_share[i]);
    v[n + 1] = su_vnum(q->exclusive_share[i]);
}

/* Q's context rows or region rows (REGIONS) as a JSON array. */
static void rows_json(sj_writer *w, const pq_summary_query_result *q, int regions)
{
    const char *keys[16];
    su_val v[16];
    size_t nk = row_keys(regions, keys), n = regions ? q->nregions : q->ncontexts;
    sj_open(w, '[');
    for (size_t i = 0; i < n; i++) {
        (regions ? region_get : context_get)(q, i, v);
        sj_item(w);
        sj_scalars(w, keys, v, nk);
    }
    sj_close(w, ']');
}

static void candidates_json(sj_writer *w, const pq_sm_candidate *c, size_t n)
{
    sj_open(w, '[');
    for (size_t i = 0; i < n; i++) {
        size_t ns = 0;
        while (c[i].suggestions && c[i].suggestions[ns])
            ns++;
        sj_item(w);
        sj_open(w, '{');
        sj_field(w, "candidate_id", su_vstr(c[i].candidate_id));
        sj_key(w, "evidence");
        sj_strings(w, c[i].evidence, c[i].nevidence);
        sj_field(w, "rationale", su_vstr(c[i].rationale));
        sj_key(w, "suggestions");
        sj_strings(w, c[i].suggestions, ns);
        sj_field(w, "title", su_vstr(c[i].title));
        sj_close(w, '}');
    }
    sj_close(w, ']');
}

/* pre_op_gap's answer: the target, its gap row and contexts (when asked about an op), and
 * the top gaps; keys sorted. */
static void gap_json(sj_writer *w, const pq_summary_query_result *q)
{
    if (q->target) {
        sj_key(w, "context");
        rows_json(w, q, 0);
        sj_key(w, "match");
        if (q->match)
            sj_row(w, q->match, &SM_GAP_ROW);
        else
            sj_val(w, su_vstr(NULL));
    }
    sj_field(w, "query_type", su_vstr(q->query_type));
    if (q->target)
        sj_field(w, "target", su_vstr(q->target));
    sj_key(w, "top_gaps");
    sj_rows(w, q->gaps, q->ngaps, &SM_GAP_ROW);
}

void su_query_json(sj_writer *w, const pq_summary_query_result *q)
{
    sj_open(w, '{');
    switch (q->type) {
    case PQ_QUERY_TOP_OPS:
        sj_field(w, "query_type", su_vstr(q->query_type));
        sj_key(w, "results");
        sj_rows(w, q->hot_ops, q->nhot_ops, &SM_HOT_OP_ROW);
        break;
    case PQ_QUERY_COMPUTE_VS_COMMUNICATION:
        sj_key(w, "communication_breakdown");
        sj_rows(w, q->collectives, q->ncollectives, &SM_COLLECTIVE_ROW);
        sj_field(w, "communication_share", su_vnum(q->communication_share));
        sj_field(w, "compute_share", su_vnum(q->compute_share));
        sj_field(w, "dominant", su_vstr(q->dominant));
        sj_field(w, "query_type", su_vstr(q->query_type));
        break;
    case PQ_QUERY_COLLECTIVE_BREAKDOWN:
        sj_field(w, "query_type", su_vstr(q->query_type));
        sj_key(w, "results");
        sj_rows(w, q->collectives, q->ncollectives, &SM_COLLECTIVE_ROW);
        break;
    case PQ_QUERY_PRE_OP_GAP:
        gap_json(w, q);
        break;
    case PQ_QUERY_GAP_REGION_CONTEXT:
    case PQ_QUERY_HIERARCHICAL_REGIONS:
        sj_field(w, "query_type", su_vstr(q->query_type));
        sj_key(w, "results");
        rows_json(w, q, q->type == PQ_QUERY_HIERARCHICAL_REGIONS);
        if (q->type == PQ_QUERY_GAP_REGION_CONTEXT)
            sj_field(w, "target", su_vstr(q->target));
        break;
    case PQ_QUERY_BOUND_ANALYSIS:
    case PQ_QUERY_COMPARISON_HINT:
        sj_field(w, "details", su_vstr(q->details));
        sj_field(w, "query_type", su_vstr(q->query_type));
        if (q->type == PQ_QUERY_BOUND_ANALYSIS)
            sj_field(w, "result", su_vstr(q->result));
        break;
    case PQ_QUERY_OPTIMIZATION_CANDIDATES:
        sj_field(w, "query_type", su_vstr(q->query_type));
        sj_key(w, "results");
        candidates_json(w, q->candidates, q->ncandidates);
        break;
    }
    sj_close(w, '}');
}

/* ---- text ---------------------------------------------------------------------------------- */

/* The context rows or region rows (REGIONS) of Q under KEY at depth 0. */
static void rows_text(const su_outline *o, const char *key, const pq_summary_query_result *q,
                      int regions)
{
    const char *keys[16];
    su_rowset r = {keys, row_keys(regions, keys), regions ? q->nregions : q->ncontexts,
                   regions ? region_get : context_get, q};
    su_rows(o, 0, key, &r);
}

/* The optimization candidates as "- #i" blocks (their evidence and suggestions are lists). */
static void candidates_text(const su_outline *o, const pq_sm_candidate *c, size_t n)
{
    if (n == 0) {
        su_strings(o, 0, "results", NULL, 0);
        return;
    }
    su_open(o, 0, "results");
    for (size_t i = 0; i < n; i++) {
        su_item(o, 1, i);
        su_line(o, 2, "candidate_id", su_vstr(c[i].candidate_id), SU_PLAIN);
        su_line(o, 2, "title", su_vstr(c[i].title), SU_PLAIN);
        su_line(o, 2, "rationale", su_vstr(c[i].rationale), SU_PLAIN);
        su_strings(o, 2, "evidence", c[i].evidence, c[i].nevidence);
        size_t ns = 0;
        while (c[i].suggestions && c[i].suggestions[ns])
            ns++;
        su_strings(o, 2, "suggestions", c[i].suggestions, ns);
    }
}

/* pre_op_gap's answer: the target, its gap row and contexts (when asked about an op), and
 * the top gaps. */
static void gap_text(const su_outline *o, const pq_summary_query_result *q)
{
    if (q->target) {
        su_line(o, 0, "target", su_vstr(q->target), SU_PLAIN);
        if (!q->match) {
            su_line(o, 0, "match", su_vstr(NULL), SU_PLAIN);
        } else {
            su_unit u = su_open(o, 0, "match");
            for (size_t j = 0; j < SM_GAP_ROW.nfields; j++)
                su_line(o, 1, SM_GAP_ROW.fields[j].key, su_vfield(q->match, &SM_GAP_ROW.fields[j]),
                        u);
        }
        rows_text(o, "context", q, 0);
    }
    su_rows_desc(o, 0, "top_gaps", q->gaps, q->ngaps, &SM_GAP_ROW);
}

void su_query_text(buf *b, const pq_summary_query_result *q, int wide)
{
    su_outline o;
    su_outline_init(&o, b, wide);
    su_line(&o, 0, "query_type", su_vstr(q->query_type), SU_PLAIN);
    switch (q->type) {
    case PQ_QUERY_TOP_OPS:
        su_rows_desc(&o, 0, "results", q->hot_ops, q->nhot_ops, &SM_HOT_OP_ROW);
        break;
    case PQ_QUERY_COMPUTE_VS_COMMUNICATION:
        su_line(&o, 0, "dominant", su_vstr(q->dominant), SU_PLAIN);
        su_line(&o, 0, "compute_share", su_vnum(q->compute_share), SU_PLAIN);
        su_line(&o, 0, "communication_share", su_vnum(q->communication_share), SU_PLAIN);
        su_rows_desc(&o, 0, "communication_breakdown", q->collectives, q->ncollectives,
                     &SM_COLLECTIVE_ROW);
        break;
    case PQ_QUERY_COLLECTIVE_BREAKDOWN:
        su_rows_desc(&o, 0, "results", q->collectives, q->ncollectives, &SM_COLLECTIVE_ROW);
        break;
    case PQ_QUERY_PRE_OP_GAP:
        gap_text(&o, q);
        break;
    case PQ_QUERY_GAP_REGION_CONTEXT:
        su_line(&o, 0, "target", su_vstr(q->target), SU_PLAIN);
        rows_text(&o, "results", q, 0);
        break;
    case PQ_QUERY_HIERARCHICAL_REGIONS:
        rows_text(&o, "results", q, 1);
        break;
    case PQ_QUERY_BOUND_ANALYSIS:
        su_line(&o, 0, "result", su_vstr(q->result), SU_PLAIN);
        su_line(&o, 0, "details", su_vstr(q->details), SU_PLAIN);
        break;
    case PQ_QUERY_COMPARISON_HINT:
        su_line(&o, 0, "details", su_vstr(q->details), SU_PLAIN);
        break;
    case PQ_QUERY_OPTIMIZATION_CANDIDATES:
        candidates_text(&o, q->candidates, q->ncandidates);
        break;
    }
}
