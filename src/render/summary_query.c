/* summary_query.c - query's document from its result struct (pq_summary_query_result,
 * include/profq.h): the keys each answer type has in the seed's query.py, the summary's rows
 * written as the summary document writes them (render/summary_fields.h); as the jval tree
 * the JSON is written from (core/jval.c) and as the text for people, written from the struct
 * directly (laid out by render/summary_outline.c).
 * Not here: routing the question (analysis/summary_query.c), writing bytes (core/jval.c). */
#include "render/summary_query.h"
#include "render/summary_fields.h"
#include "render/summary_outline.h"

static jval *contexts_tree(const pq_summary_query_result *q)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < q->ncontexts; k++)
        jv_push(a, sm_row_tree(q->contexts[k], &SM_CONTEXT_ROW));
    return a;
}

static jval *regions_tree(const pq_summary_query_result *q)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < q->nregions; k++) {
        jval *c = sm_row_tree(&q->regions[k], &SM_REGION_ROW);
        jv_set(c, "inclusive_share_of_total", jv_num(q->inclusive_share[k]));
        jv_set(c, "exclusive_share_of_total", jv_num(q->exclusive_share[k]));
        jv_push(a, c);
    }
    return a;
}

jval *su_query_tree(const pq_summary_query_result *q)
{
    jval *r = jv_obj();
    if (!r)
        return NULL;
    int bad = jv_set(r, "query_type", jv_cstr(q->query_type)) != 0;
    switch (q->type) {
    case PQ_QUERY_TOP_OPS:
        bad |= jv_set(r, "results", sm_rows_tree(q->hot_ops, q->nhot_ops, &SM_HOT_OP_ROW)) != 0;
        break;
    case PQ_QUERY_COMPUTE_VS_COMMUNICATION:
        bad |= jv_set(r, "dominant", jv_cstr(q->dominant)) != 0;
        bad |= jv_set(r, "compute_share", jv_num(q->compute_share)) != 0;
        bad |= jv_set(r, "communication_share", jv_num(q->communication_share)) != 0;
        bad |= jv_set(r, "communication_breakdown",
                      sm_rows_tree(q->collectives, q->ncollectives, &SM_COLLECTIVE_ROW)) != 0;
        break;
    case PQ_QUERY_COLLECTIVE_BREAKDOWN:
        bad |= jv_set(r, "results",
                      sm_rows_tree(q->collectives, q->ncollectives, &SM_COLLECTIVE_ROW)) != 0;
        break;
    case PQ_QUERY_PRE_OP_GAP:
        if (q->target) {
            bad |= jv_set(r, "target", jv_cstr(q->target)) != 0;
            bad |=
                jv_set(r, "match", q->match ? sm_row_tree(q->match, &SM_GAP_ROW) : jv_null()) != 0;
            bad |= jv_set(r, "context", contexts_tree(q)) != 0;
        }
        bad |= jv_set(r, "top_gaps", sm_rows_tree(q->gaps, q->ngaps, &SM_GAP_ROW)) != 0;
        break;
    case PQ_QUERY_GAP_REGION_CONTEXT:
        bad |= jv_set(r, "target", jv_cstr(q->target)) != 0;
        bad |= jv_set(r, "results", contexts_tree(q)) != 0;
        break;
    case PQ_QUERY_HIERARCHICAL_REGIONS:
        bad |= jv_set(r, "results", regions_tree(q)) != 0;
        break;
    case PQ_QUERY_BOUND_ANALYSIS:
        bad |= jv_set(r, "result", jv_cstr(q->result)) != 0;
        bad |= jv_set(r, "details", jv_cstr(q->details)) != 0;
        break;
    case PQ_QUERY_COMPARISON_HINT:
        bad |= jv_set(r, "details", jv_cstr(q->details)) != 0;
        break;
    case PQ_QUERY_OPTIMIZATION_CANDIDATES:
        bad |= jv_set(r, "results", sm_candidates_tree(q->candidates, q->ncandidates)) != 0;
        break;
    }
    if (bad) {
        jv_free(r);
        return NULL;
    }
    return r;
}

/* ---- text ---------------------------------------------------------------------------------- */

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

/* The rows of Q under KEY at depth 0: SM_REGION_ROW's or SM_CONTEXT_ROW's keys (REGIONS). */
static void rows_text(const su_outline *o, const char *key, const pq_summary_query_result *q,
                      int regions)
{
    const sm_row_desc *d = regions ? &SM_REGION_ROW : &SM_CONTEXT_ROW;
    const char *keys[16];
    size_t n = 0;
    for (; n < d->nfields && n < 14; n++)
        keys[n] = d->fields[n].key;
    if (regions) {
        keys[n++] = "inclusive_share_of_total";
        keys[n++] = "exclusive_share_of_total";
    }
    su_rowset r = {keys, n, regions ? q->nregions : q->ncontexts,
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
