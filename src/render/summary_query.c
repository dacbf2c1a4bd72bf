/* summary_query.c - query's document from its result struct (pq_summary_query_result,
 * include/profq.h): the keys each answer type has in the seed's query.py, the summary's rows
 * written as the summary document writes them (render/summary_fields.h).
 * Not here: routing the question (analysis/summary_query.c), writing bytes (core/jval.c). */
#include "render/summary_query.h"
#include "render/summary_fields.h"

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
