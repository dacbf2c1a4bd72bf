/* summary_tree.c - the profile_summary.v1 document of a computed summary: the result
 * structs (pq_summary_result, include/profq.h) as the jval tree of the document, which
 * core/jval.c writes as Python's json.dumps bytes and report/query/compare/track read as
 * they read a stored summary.
 * Not here: computing (analysis/summary*.c), writing bytes (core/jval.c), files. */
#include "analysis/summary.h"

#include <stddef.h>
#include <stdint.h>

static const char *const CATEGORY_KEYS[PQ_SM_NCATEGORIES] = {"compute", "communication", "host",
                                                             "stall", "other"};

static jval *run_metadata_tree(const pq_sm_run_metadata *m)
{
    static const char *const keys[] = {
        "run_path",         "run_id",  "artifact_ref", "artifact_name", "hardware_type",
        "mesh_or_topology", "git_sha", "config_hash",  "num_devices",   "num_hosts"};
    const char *const vals[] = {m->run_path, m->run_id, m->artifact_ref, m->artifact_name};
    jval *o = jv_obj();
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        jv_set(o, keys[k], jv_cstr(k < 4 ? vals[k] : NULL));
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

/* One key of a row of the document: its name, how the struct holds it, and where. */
typedef enum { F_STR, F_U64, F_I64, F_NUM } field_kind;
typedef struct field {
    const char *key;
    field_kind kind;
    size_t off;
} field;
#define FIELD(T, key, kind, member)                                                                \
    {                                                                                              \
        key, kind, offsetof(T, member)                                                             \
    }
#define NFIELDS(a) (sizeof(a) / sizeof *(a))

/* The object of ROW with FIELDS, in their order. */
static jval *row_tree(const void *row, const field *fields, size_t nfields)
{
    const char *p = row;
    jval *o = jv_obj();
    for (size_t j = 0; j < nfields; j++) {
        const void *at = p + fields[j].off;
        jval *v = NULL;
        switch (fields[j].kind) {
        case F_STR:
            v = jv_cstr(*(const char *const *)at);
            break;
        case F_U64:
            v = jv_int((int64_t) * (const uint64_t *)at);
            break;
        case F_I64:
            v = jv_int(*(const int64_t *)at);
            break;
        case F_NUM:
            v = jv_num(*(const double *)at);
            break;
        }
        jv_set(o, fields[j].key, v);
    }
    return o;
}

/* The array of N rows of SIZE bytes from ROWS, each with FIELDS. */
static jval *rows_tree(const void *rows, size_t n, size_t size, const field *fields, size_t nfields)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++)
        jv_push(a, row_tree((const char *)rows + k * size, fields, nfields));
    return a;
}

static jval *stats_tree(const pq_sm_duration_stats *d)
{
    static const field f[] = {FIELD(pq_sm_duration_stats, "count", F_U64, count),
                              FIELD(pq_sm_duration_stats, "mean", F_NUM, mean),
                              FIELD(pq_sm_duration_stats, "median", F_NUM, median),
                              FIELD(pq_sm_duration_stats, "p90", F_NUM, p90),
                              FIELD(pq_sm_duration_stats, "min", F_NUM, min),
                              FIELD(pq_sm_duration_stats, "max", F_NUM, max)};
    return row_tree(d, f, NFIELDS(f));
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
        jv_set(o, CATEGORY_KEYS[k], p);
    }
    return o;
}

static jval *hot_ops_tree(const pq_sm_hot_op *rows, size_t n)
{
    static const field f[] = {
        FIELD(pq_sm_hot_op, "name", F_STR, name),
        FIELD(pq_sm_hot_op, "canonical_name", F_STR, canonical_name),
        FIELD(pq_sm_hot_op, "category", F_STR, category),
        FIELD(pq_sm_hot_op, "count", F_U64, count),
        FIELD(pq_sm_hot_op, "total_duration", F_NUM, total_duration),
        FIELD(pq_sm_hot_op, "exclusive_duration", F_NUM, exclusive_duration),
        FIELD(pq_sm_hot_op, "avg_duration", F_NUM, avg_duration),
        FIELD(pq_sm_hot_op, "shape_signature", F_STR, shape_signature),
        FIELD(pq_sm_hot_op, "source_file", F_STR, source_file),
        FIELD(pq_sm_hot_op, "tf_op_path", F_STR, tf_op_path),
        FIELD(pq_sm_hot_op, "flop_proxy_per_invocation", F_NUM, flop_proxy_per_invocation)};
    return rows_tree(rows, n, sizeof *rows, f, NFIELDS(f));
}

static jval *families_tree(const pq_sm_family *rows, size_t n)
{
    static const field f[] = {
        FIELD(pq_sm_family, "family", F_STR, family),
        FIELD(pq_sm_family, "count", F_U64, count),
        FIELD(pq_sm_family, "total_duration", F_NUM, total_duration),
        FIELD(pq_sm_family, "exclusive_duration", F_NUM, exclusive_duration),
        FIELD(pq_sm_family, "share_of_total", F_NUM, share_of_total),
        FIELD(pq_sm_family, "avg_duration", F_NUM, avg_duration),
        FIELD(pq_sm_family, "avg_exclusive_duration", F_NUM, avg_exclusive_duration),
        FIELD(pq_sm_family, "example_op", F_STR, example_op),
        FIELD(pq_sm_family, "dominant_shape_signature", F_STR, dominant_shape_signature),
        FIELD(pq_sm_family, "flop_proxy_total", F_NUM, flop_proxy_total),
        FIELD(pq_sm_family, "time_per_flop_proxy", F_NUM, time_per_flop_proxy)};
    return rows_tree(rows, n, sizeof *rows, f, NFIELDS(f));
}

static jval *collectives_tree(const pq_sm_collective *rows, size_t n)
{
    static const field f[] = {FIELD(pq_sm_collective, "collective", F_STR, collective),
                              FIELD(pq_sm_collective, "count", F_U64, count),
                              FIELD(pq_sm_collective, "total_duration", F_NUM, total_duration),
                              FIELD(pq_sm_collective, "avg_duration", F_NUM, avg_duration)};
    return rows_tree(rows, n, sizeof *rows, f, NFIELDS(f));
}

static jval *gaps_tree(const pq_sm_gap *rows, size_t n)
{
    static const field f[] = {FIELD(pq_sm_gap, "name", F_STR, name),
                              FIELD(pq_sm_gap, "count", F_U64, count),
                              FIELD(pq_sm_gap, "total_gap_duration", F_NUM, total_gap_duration),
                              FIELD(pq_sm_gap, "max_gap_duration", F_NUM, max_gap_duration),
                              FIELD(pq_sm_gap, "avg_gap_duration", F_NUM, avg_gap_duration),
                              FIELD(pq_sm_gap, "payload_op", F_STR, name),
                              FIELD(pq_sm_gap, "marker_op", F_STR, marker_op)};
    return rows_tree(rows, n, sizeof *rows, f, NFIELDS(f));
}

static jval *contexts_tree(const pq_sm_gap_context *rows, size_t n)
{
    static const field f[] = {
        FIELD(pq_sm_gap_context, "op_name", F_STR, op_name),
        FIELD(pq_sm_gap_context, "region_path", F_STR, region_path),
        FIELD(pq_sm_gap_context, "count", F_U64, count),
        FIELD(pq_sm_gap_context, "total_gap_duration", F_NUM, total_gap_duration),
        FIELD(pq_sm_gap_context, "avg_gap_duration", F_NUM, avg_gap_duration)};
    return rows_tree(rows, n, sizeof *rows, f, NFIELDS(f));
}

static jval *regions_tree(const pq_sm_region *rows, size_t n)
{
    static const field f[] = {FIELD(pq_sm_region, "path", F_STR, path),
                              FIELD(pq_sm_region, "depth", F_I64, depth),
                              FIELD(pq_sm_region, "count", F_U64, count),
                              FIELD(pq_sm_region, "inclusive_duration", F_NUM, inclusive_duration),
                              FIELD(pq_sm_region, "exclusive_duration", F_NUM, exclusive_duration)};
    return rows_tree(rows, n, sizeof *rows, f, NFIELDS(f));
}

static jval *op_regions_tree(const pq_sm_op_region *rows, size_t n)
{
    static const field f[] = {
        FIELD(pq_sm_op_region, "region_path", F_STR, region_path),
        FIELD(pq_sm_op_region, "op_name", F_STR, op_name),
        FIELD(pq_sm_op_region, "canonical_name", F_STR, canonical_name),
        FIELD(pq_sm_op_region, "category", F_STR, category),
        FIELD(pq_sm_op_region, "count", F_U64, count),
        FIELD(pq_sm_op_region, "total_duration", F_NUM, total_duration),
        FIELD(pq_sm_op_region, "exclusive_duration", F_NUM, exclusive_duration),
        FIELD(pq_sm_op_region, "avg_duration", F_NUM, avg_duration),
        FIELD(pq_sm_op_region, "shape_signature", F_STR, shape_signature)};
    return rows_tree(rows, n, sizeof *rows, f, NFIELDS(f));
}

static jval *candidates_tree(const pq_sm_candidate *rows, size_t n)
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

jval *sm_tree(const sm_result *res)
{
    const pq_summary_result *r = &res->r;
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
    bad |= jv_set(doc, "hot_ops", hot_ops_tree(r->hot_ops, r->nhot_ops)) != 0;
    bad |= jv_set(doc, "semantic_families",
                  families_tree(r->semantic_families, r->nsemantic_families)) != 0;
    bad |= jv_set(doc, "communication_ops",
                  collectives_tree(r->communication_ops, r->ncommunication_ops)) != 0;
    bad |= jv_set(doc, "gap_before_ops", gaps_tree(r->gap_before_ops, r->ngap_before_ops)) != 0;
    bad |= jv_set(doc, "hierarchical_regions",
                  regions_tree(r->hierarchical_regions, r->nhierarchical_regions)) != 0;
    bad |= jv_set(doc, "gap_region_contexts",
                  contexts_tree(r->gap_region_contexts, r->ngap_region_contexts)) != 0;
    bad |= jv_set(doc, "device_op_region_aggregates",
                  op_regions_tree(r->device_op_region_aggregates,
                                  r->ndevice_op_region_aggregates)) != 0;
    bad |= jv_set(doc, "optimization_candidates",
                  candidates_tree(r->optimization_candidates, r->noptimization_candidates)) != 0;
    if (bad) {
        jv_free(doc);
        return NULL;
    }
    return doc;
}
