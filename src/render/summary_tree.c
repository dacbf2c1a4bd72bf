/* summary_tree.c - the profile_summary.v1 document of a computed summary: the result
 * structs (pq_summary_result, include/profq.h) as the jval tree of the document, which
 * core/jval.c writes as Python's json.dumps bytes and report/query/compare/track read as
 * they read a stored summary; and the metadata publish attaches to a summary's artifact.
 * Not here: computing (analysis/summary*.c), writing bytes (core/jval.c), files. */
#include "analysis/summary.h"
#include "render/summary_fields.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

const char *const SM_CATEGORY_KEYS[PQ_SM_NCATEGORIES] = {"compute", "communication", "host",
                                                         "stall", "other"};
const char *const SM_RUN_METADATA_KEYS[10] = {
    "run_path",         "run_id",  "artifact_ref", "artifact_name", "hardware_type",
    "mesh_or_topology", "git_sha", "config_hash",  "num_devices",   "num_hosts"};

static jval *run_metadata_tree(const pq_sm_run_metadata *m)
{
    const char *const vals[] = {m->run_path, m->run_id, m->artifact_ref, m->artifact_name};
    jval *o = jv_obj();
    for (size_t k = 0; k < 10; k++)
        jv_set(o, SM_RUN_METADATA_KEYS[k], jv_cstr(k < 4 ? vals[k] : NULL));
    return o;
}

static jval *strings_tree(const char *const *s, size_t n)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++)
        jv_push(a, jv_cstr(s[k]));
    return a;
}

static jval *overview_tree(const pq_sm_overview *ov)
{
    jval *o = jv_obj();
    jv_set(o, "display_time_unit", jv_cstr(ov->display_time_unit));
    jv_set(o, "num_events_total", jv_int((int64_t)ov->num_events_total));
    jv_set(o, "num_complete_events", jv_int((int64_t)ov->num_complete_events));
    jv_set(o, "num_processes", jv_int((int64_t)ov->num_processes));
    jv_set(o, "num_threads", jv_int((int64_t)ov->num_threads));
    jv_set(o, "profile_start_ts", jv_num(ov->profile_start_ts));
    jv_set(o, "profile_end_ts", jv_num(ov->profile_end_ts));
    jv_set(o, "duration_basis", jv_cstr(ov->duration_basis));
    jv_set(o, "suspected_truncation", jv_bool(ov->suspected_truncation));
    jv_set(o, "quality_warnings", strings_tree(ov->quality_warnings, ov->nquality_warnings));
    return o;
}

static jval *provenance_tree(const pq_sm_provenance *pv)
{
    jval *o = jv_obj();
    jv_set(o, "trace_sha256", jv_cstr(pv->trace_sha256));
    jv_set(o, "run_ids", strings_tree(pv->run_ids, pv->nrun_ids));
    jv_set(o, "source_file_hints", strings_tree(pv->source_file_hints, pv->nsource_file_hints));
    return o;
}

#define FIELD SM_FIELD
#define ROW   SM_ROW

static const sm_field STATS_F[] = {FIELD(pq_sm_duration_stats, "count", SM_F_U64, count),
                                   FIELD(pq_sm_duration_stats, "mean", SM_F_NUM, mean),
                                   FIELD(pq_sm_duration_stats, "median", SM_F_NUM, median),
                                   FIELD(pq_sm_duration_stats, "p90", SM_F_NUM, p90),
                                   FIELD(pq_sm_duration_stats, "min", SM_F_NUM, min),
                                   FIELD(pq_sm_duration_stats, "max", SM_F_NUM, max)};
const sm_row_desc SM_STATS_ROW = ROW(pq_sm_duration_stats, STATS_F);

static const sm_field HOT_OP_F[] = {
    FIELD(pq_sm_hot_op, "name", SM_F_STR, name),
    FIELD(pq_sm_hot_op, "canonical_name", SM_F_STR, canonical_name),
    FIELD(pq_sm_hot_op, "category", SM_F_STR, category),
    FIELD(pq_sm_hot_op, "count", SM_F_U64, count),
    FIELD(pq_sm_hot_op, "total_duration", SM_F_NUM, total_duration),
    FIELD(pq_sm_hot_op, "exclusive_duration", SM_F_NUM, exclusive_duration),
    FIELD(pq_sm_hot_op, "avg_duration", SM_F_NUM, avg_duration),
    FIELD(pq_sm_hot_op, "shape_signature", SM_F_STR, shape_signature),
    FIELD(pq_sm_hot_op, "source_file", SM_F_STR, source_file),
    FIELD(pq_sm_hot_op, "tf_op_path", SM_F_STR, tf_op_path),
    FIELD(pq_sm_hot_op, "flop_proxy_per_invocation", SM_F_NUM, flop_proxy_per_invocation)};
const sm_row_desc SM_HOT_OP_ROW = ROW(pq_sm_hot_op, HOT_OP_F);

static const sm_field FAMILY_F[] = {
    FIELD(pq_sm_family, "family", SM_F_STR, family),
    FIELD(pq_sm_family, "count", SM_F_U64, count),
    FIELD(pq_sm_family, "total_duration", SM_F_NUM, total_duration),
    FIELD(pq_sm_family, "exclusive_duration", SM_F_NUM, exclusive_duration),
    FIELD(pq_sm_family, "share_of_total", SM_F_NUM, share_of_total),
    FIELD(pq_sm_family, "avg_duration", SM_F_NUM, avg_duration),
    FIELD(pq_sm_family, "avg_exclusive_duration", SM_F_NUM, avg_exclusive_duration),
    FIELD(pq_sm_family, "example_op", SM_F_STR, example_op),
    FIELD(pq_sm_family, "dominant_shape_signature", SM_F_STR, dominant_shape_signature),
    FIELD(pq_sm_family, "flop_proxy_total", SM_F_NUM, flop_proxy_total),
    FIELD(pq_sm_family, "time_per_flop_proxy", SM_F_NUM, time_per_flop_proxy)};
const sm_row_desc SM_FAMILY_ROW = ROW(pq_sm_family, FAMILY_F);

static const sm_field COLLECTIVE_F[] = {
    FIELD(pq_sm_collective, "collective", SM_F_STR, collective),
    FIELD(pq_sm_collective, "count", SM_F_U64, count),
    FIELD(pq_sm_collective, "total_duration", SM_F_NUM, total_duration),
    FIELD(pq_sm_collective, "avg_duration", SM_F_NUM, avg_duration)};
const sm_row_desc SM_COLLECTIVE_ROW = ROW(pq_sm_collective, COLLECTIVE_F);

static const sm_field GAP_F[] = {
    FIELD(pq_sm_gap, "name", SM_F_STR, name),
    FIELD(pq_sm_gap, "count", SM_F_U64, count),
    FIELD(pq_sm_gap, "total_gap_duration", SM_F_NUM, total_gap_duration),
    FIELD(pq_sm_gap, "max_gap_duration", SM_F_NUM, max_gap_duration),
    FIELD(pq_sm_gap, "avg_gap_duration", SM_F_NUM, avg_gap_duration),
    FIELD(pq_sm_gap, "payload_op", SM_F_STR, name),
    FIELD(pq_sm_gap, "marker_op", SM_F_STR, marker_op)};
const sm_row_desc SM_GAP_ROW = ROW(pq_sm_gap, GAP_F);

static const sm_field CONTEXT_F[] = {
    FIELD(pq_sm_gap_context, "op_name", SM_F_STR, op_name),
    FIELD(pq_sm_gap_context, "region_path", SM_F_STR, region_path),
    FIELD(pq_sm_gap_context, "count", SM_F_U64, count),
    FIELD(pq_sm_gap_context, "total_gap_duration", SM_F_NUM, total_gap_duration),
    FIELD(pq_sm_gap_context, "avg_gap_duration", SM_F_NUM, avg_gap_duration)};
const sm_row_desc SM_CONTEXT_ROW = ROW(pq_sm_gap_context, CONTEXT_F);

static const sm_field REGION_F[] = {
    FIELD(pq_sm_region, "path", SM_F_STR, path), FIELD(pq_sm_region, "depth", SM_F_I64, depth),
    FIELD(pq_sm_region, "count", SM_F_U64, count),
    FIELD(pq_sm_region, "inclusive_duration", SM_F_NUM, inclusive_duration),
    FIELD(pq_sm_region, "exclusive_duration", SM_F_NUM, exclusive_duration)};
const sm_row_desc SM_REGION_ROW = ROW(pq_sm_region, REGION_F);

static const sm_field OP_REGION_F[] = {
    FIELD(pq_sm_op_region, "region_path", SM_F_STR, region_path),
    FIELD(pq_sm_op_region, "op_name", SM_F_STR, op_name),
    FIELD(pq_sm_op_region, "canonical_name", SM_F_STR, canonical_name),
    FIELD(pq_sm_op_region, "category", SM_F_STR, category),
    FIELD(pq_sm_op_region, "count", SM_F_U64, count),
    FIELD(pq_sm_op_region, "total_duration", SM_F_NUM, total_duration),
    FIELD(pq_sm_op_region, "exclusive_duration", SM_F_NUM, exclusive_duration),
    FIELD(pq_sm_op_region, "avg_duration", SM_F_NUM, avg_duration),
    FIELD(pq_sm_op_region, "shape_signature", SM_F_STR, shape_signature)};
const sm_row_desc SM_OP_REGION_ROW = ROW(pq_sm_op_region, OP_REGION_F);

jval *sm_row_tree(const void *row, const sm_row_desc *d)
{
    const char *p = row;
    jval *o = jv_obj();
    for (size_t j = 0; j < d->nfields; j++) {
        const void *at = p + d->fields[j].off;
        jval *v = NULL;
        switch (d->fields[j].kind) {
        case SM_F_STR:
            v = jv_cstr(*(const char *const *)at);
            break;
        case SM_F_U64:
            v = jv_int((int64_t) * (const uint64_t *)at);
            break;
        case SM_F_I64:
            v = jv_int(*(const int64_t *)at);
            break;
        case SM_F_NUM:
            v = jv_num(*(const double *)at);
            break;
        }
        jv_set(o, d->fields[j].key, v);
    }
    return o;
}

/* The array of N rows from ROWS, each as D says. */
jval *sm_rows_tree(const void *rows, size_t n, const sm_row_desc *d)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++)
        jv_push(a, sm_row_tree((const char *)rows + k * d->size, d));
    return a;
}

static jval *stats_tree(const pq_sm_duration_stats *d)
{
    return sm_row_tree(d, &SM_STATS_ROW);
}

static jval *step_time_tree(const pq_sm_step_time *st)
{
    jval *o = jv_obj();
    jv_set(o, "warmup_steps_ignored", jv_int(st->warmup_steps_ignored));
    jv_set(o, "all_steps", stats_tree(&st->all_steps));
    jv_set(o, "steady_state_steps", stats_tree(&st->steady_state_steps));
    jval *a = jv_arr();
    for (size_t k = 0; k < st->nclasses; k++) {
        const pq_sm_step_class *x = &st->classes[k];
        jval *c = jv_obj();
        jv_set(c, "name", jv_cstr(x->name));
        jv_set(c, "count", jv_int((int64_t)x->count));
        jv_set(c, "fraction_of_steady", jv_num(x->fraction_of_steady));
        jv_set(c, "duration_stats", stats_tree(&x->duration_stats));
        jv_set(c, "representative_step", jv_int(x->representative_step));
        jv_set(c, "representative_duration", jv_num(x->representative_duration));
        jv_set(c, "periodicity", x->periodicity ? jv_int(x->periodicity) : jv_null());
        jv_push(a, c);
    }
    jv_set(o, "classes", a);
    return o;
}

static jval *breakdown_tree(const pq_sm_breakdown *b)
{
    jval *o = jv_obj();
    jv_set(o, "duration_basis", jv_cstr(b->duration_basis));
    jv_set(o, "total_duration", jv_num(b->total_duration));
    for (int k = 0; k < PQ_SM_NCATEGORIES; k++) {
        jval *p = jv_obj();
        jv_set(p, "total_duration", jv_num(b->category_total[k]));
        jv_set(p, "share_of_total", jv_num(b->category_share[k]));
        jv_set(o, SM_CATEGORY_KEYS[k], p);
    }
    return o;
}

jval *sm_candidates_tree(const pq_sm_candidate *rows, size_t n)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++) {
        const pq_sm_candidate *x = &rows[k];
        jval *o = jv_obj();
        jv_set(o, "candidate_id", jv_cstr(x->candidate_id));
        jv_set(o, "title", jv_cstr(x->title));
        jv_set(o, "rationale", jv_cstr(x->rationale));
        jval *e = jv_arr();
        for (size_t j = 0; j < x->nevidence; j++)
            jv_push(e, jv_cstr(x->evidence[j]));
        jv_set(o, "evidence", e);
        jval *s = jv_arr();
        for (size_t j = 0; x->suggestions && x->suggestions[j]; j++)
            jv_push(s, jv_cstr(x->suggestions[j]));
        jv_set(o, "suggestions", s);
        jv_push(a, o);
    }
    return a;
}

jval *sm_tree(const pq_summary_result *r)
{
    jval *doc = jv_obj();
    if (!doc)
        return NULL;
    int bad = jv_set(doc, "schema_version", jv_cstr(r->schema_version)) != 0;
    bad |= jv_set(doc, "generated_at_utc", jv_cstr(r->generated_at_utc)) != 0;
    bad |= jv_set(doc, "source_format", jv_cstr(r->source_format)) != 0;
    bad |= jv_set(doc, "source_path", jv_cstr(r->source_path)) != 0;
    bad |= jv_set(doc, "run_metadata", run_metadata_tree(&r->run_metadata)) != 0;
    bad |= jv_set(doc, "trace_overview", overview_tree(&r->trace_overview)) != 0;
    bad |= jv_set(doc, "trace_provenance", provenance_tree(&r->trace_provenance)) != 0;
    bad |= jv_set(doc, "step_time", step_time_tree(&r->step_time)) != 0;
    bad |= jv_set(doc, "time_breakdown", breakdown_tree(&r->time_breakdown)) != 0;
    bad |= jv_set(doc, "hot_ops", sm_rows_tree(r->hot_ops, r->nhot_ops, &SM_HOT_OP_ROW)) != 0;
    bad |= jv_set(doc, "semantic_families",
                  sm_rows_tree(r->semantic_families, r->nsemantic_families, &SM_FAMILY_ROW)) != 0;
    bad |=
        jv_set(doc, "communication_ops",
               sm_rows_tree(r->communication_ops, r->ncommunication_ops, &SM_COLLECTIVE_ROW)) != 0;
    bad |= jv_set(doc, "gap_before_ops",
                  sm_rows_tree(r->gap_before_ops, r->ngap_before_ops, &SM_GAP_ROW)) != 0;
    bad |= jv_set(doc, "hierarchical_regions",
                  sm_rows_tree(r->hierarchical_regions, r->nhierarchical_regions,
                               &SM_REGION_ROW)) != 0;
    bad |=
        jv_set(doc, "gap_region_contexts",
               sm_rows_tree(r->gap_region_contexts, r->ngap_region_contexts, &SM_CONTEXT_ROW)) != 0;
    bad |= jv_set(doc, "device_op_region_aggregates",
                  sm_rows_tree(r->device_op_region_aggregates, r->ndevice_op_region_aggregates,
                               &SM_OP_REGION_ROW)) != 0;
    bad |= jv_set(doc, "optimization_candidates",
                  sm_candidates_tree(r->optimization_candidates, r->noptimization_candidates)) != 0;
    if (bad) {
        jv_free(doc);
        return NULL;
    }
    return doc;
}

static jval *publish_metadata_tree(const pq_summary_result *r)
{
    const pq_sm_run_metadata *rm = &r->run_metadata;
    const pq_sm_gap *gap = r->ngap_before_ops ? &r->gap_before_ops[0] : NULL;
    jval *m = jv_obj();
    jv_set(m, "schema_version", jv_cstr(r->schema_version));
    jv_set(m, "source_format", jv_cstr(r->source_format));
    jv_set(m, "source_path", jv_cstr(r->source_path));
    /* hardware_type, mesh_or_topology, git_sha and config_hash: null in every summary */
    const char *const meta[][2] = {{"run_path", rm->run_path},
                                   {"run_id", rm->run_id},
                                   {"hardware_type", NULL},
                                   {"mesh_or_topology", NULL},
                                   {"git_sha", NULL},
                                   {"config_hash", NULL},
                                   {"source_artifact_ref", rm->artifact_ref}};
    for (size_t k = 0; k < sizeof meta / sizeof *meta; k++)
        jv_set(m, meta[k][0], jv_cstr(meta[k][1]));
    jv_set(m, "step_median", jv_num(r->step_time.steady_state_steps.median));
    jv_set(m, "step_p90", jv_num(r->step_time.steady_state_steps.p90));
    for (int k = 0; k < PQ_SM_OTHER; k++) {
        char key[64];
        snprintf(key, sizeof key, "%s_share", SM_CATEGORY_KEYS[k]);
        jv_set(m, key, jv_num(r->time_breakdown.category_share[k]));
    }
    jv_set(m, "top_pre_gap_op", jv_cstr(gap ? gap->name : NULL));
    jv_set(m, "top_pre_gap_total", gap ? jv_num(gap->total_gap_duration) : jv_null());
    jv_set(m, "num_hierarchical_regions", jv_int((int64_t)r->nhierarchical_regions));
    jv_set(m, "num_gap_region_contexts", jv_int((int64_t)r->ngap_region_contexts));
    jv_set(m, "generated_at_utc", jv_cstr(r->generated_at_utc));
    return m;
}

jval *sm_publish_plan_tree(const pq_summary_result *r, const sm_publish_plan *p)
{
    jval *o = jv_obj();
    jv_set(o, "status", jv_cstr(p->status));
    jv_set(o, "entity", jv_cstr(p->entity));
    jv_set(o, "project", jv_cstr(p->project));
    jv_set(o, "artifact_name", jv_cstr(p->artifact_name));
    jv_set(o, "artifact_type", jv_cstr("profile_summary"));
    jval *al = jv_arr();
    for (size_t k = 0; k < p->naliases; k++)
        jv_push(al, jv_cstr(p->aliases[k]));
    jv_set(o, "aliases", al);
    jv_set(o, "summary_path", jv_cstr(p->summary_path));
    jv_set(o, "report_path", jv_cstr(p->report_path));
    jv_set(o, "metadata", publish_metadata_tree(r));
    return o;
}
