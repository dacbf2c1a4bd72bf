/* summary_tree.c - the profile_summary.v1 document of a computed summary: the result
 * structs of the converted sections (pq_summary_result, include/profq.h) as the jval
 * keys of today's document (core/jval.c then writes Python's json.dumps bytes), merged
 * with the sections the analysis still hands over as JSON. Also sm_build, the whole
 * document in one call, for the callers of the summary (analysis/summary.h).
 * Not here: computing (analysis/summary*.c), writing bytes (core/jval.c), files. */
#include "analysis/summary.h"

#include <stddef.h>

static const char *const CATEGORY_KEYS[PQ_SM_NCATEGORIES] = {"compute", "communication", "host",
                                                             "stall", "other"};

static jval *breakdown_tree(const pq_sm_breakdown *b)
{
    jval *o = jv_obj();
    jv_set(o, "duration_basis", jv_cstr(b->duration_basis));
    jv_set(o, "total_duration", jv_num(b->total_duration));
    for (int k = 0; k < PQ_SM_NCATEGORIES; k++) {
        jval *p = jv_obj();
        jv_set(p, "total_duration", jv_num(b->category_total[k]));
        jv_set(p, "share_of_total", jv_num(b->category_share[k]));
        jv_set(o, CATEGORY_KEYS[k], p);
    }
    return o;
}

static jval *hot_ops_tree(const pq_sm_hot_op *rows, size_t n)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++) {
        const pq_sm_hot_op *h = &rows[k];
        jval *o = jv_obj();
        jv_set(o, "name", jv_cstr(h->name));
        jv_set(o, "canonical_name", jv_cstr(h->canonical_name));
        jv_set(o, "category", jv_cstr(h->category));
        jv_set(o, "count", jv_int((int64_t)h->count));
        jv_set(o, "total_duration", jv_num(h->total_duration));
        jv_set(o, "exclusive_duration", jv_num(h->exclusive_duration));
        jv_set(o, "avg_duration", jv_num(h->avg_duration));
        jv_set(o, "shape_signature", jv_cstr(h->shape_signature));
        jv_set(o, "source_file", jv_cstr(h->source_file));
        jv_set(o, "tf_op_path", jv_cstr(h->tf_op_path));
        jv_set(o, "flop_proxy_per_invocation", jv_num(h->flop_proxy_per_invocation));
        jv_push(a, o);
    }
    return a;
}

static jval *families_tree(const pq_sm_family *rows, size_t n)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++) {
        const pq_sm_family *f = &rows[k];
        jval *r = jv_obj();
        jv_set(r, "family", jv_cstr(f->family));
        jv_set(r, "count", jv_int((int64_t)f->count));
        jv_set(r, "total_duration", jv_num(f->total_duration));
        jv_set(r, "exclusive_duration", jv_num(f->exclusive_duration));
        jv_set(r, "share_of_total", jv_num(f->share_of_total));
        jv_set(r, "avg_duration", jv_num(f->avg_duration));
        jv_set(r, "avg_exclusive_duration", jv_num(f->avg_exclusive_duration));
        jv_set(r, "example_op", jv_cstr(f->example_op));
        jv_set(r, "dominant_shape_signature", jv_cstr(f->dominant_shape_signature));
        jv_set(r, "flop_proxy_total", jv_num(f->flop_proxy_total));
        jv_set(r, "time_per_flop_proxy", jv_num(f->time_per_flop_proxy));
        jv_push(a, r);
    }
    return a;
}

static jval *collectives_tree(const pq_sm_collective *rows, size_t n)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++) {
        jval *r = jv_obj();
        jv_set(r, "collective", jv_cstr(rows[k].collective));
        jv_set(r, "count", jv_int((int64_t)rows[k].count));
        jv_set(r, "total_duration", jv_num(rows[k].total_duration));
        jv_set(r, "avg_duration", jv_num(rows[k].avg_duration));
        jv_push(a, r);
    }
    return a;
}

/* The document of RES; takes RES->doc (the sections still in JSON) and adds the
 * converted ones. NULL when memory ran out. */
static jval *summary_tree(sm_result *res)
{
    jval *doc = res->doc;
    const pq_summary_result *r = &res->r;
    res->doc = NULL;
    int bad = jv_set(doc, "time_breakdown", breakdown_tree(&r->time_breakdown)) != 0;
    bad |= jv_set(doc, "hot_ops", hot_ops_tree(r->hot_ops, r->nhot_ops)) != 0;
    bad |= jv_set(doc, "semantic_families",
                  families_tree(r->semantic_families, r->nsemantic_families)) != 0;
    bad |= jv_set(doc, "communication_ops",
                  collectives_tree(r->communication_ops, r->ncommunication_ops)) != 0;
    if (bad) {
        jv_free(doc);
        return NULL;
    }
    return doc;
}

jval *sm_build(model_slices *m, const sm_options *opts, const sm_source *src)
{
    sm_result res;
    if (sm_compute(m, opts, src, &res) != 0)
        return NULL;
    jval *doc = summary_tree(&res);
    sm_result_free(&res);
    return doc;
}
