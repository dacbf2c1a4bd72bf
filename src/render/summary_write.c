/* summary_write.c - the profile_summary.v1 document of a computed summary (pq_summary_result,
 * include/profq.h), and publish's plan with the metadata it attaches to a summary's artifact:
 * written as they go by the streaming json.dumps writer (sm_write, sm_publish_plan_write;
 * render/summary_json.c), no document tree. The row tables (render/summary_fields.h) are
 * shared with the reader, api/summary_read.c.
 * Not here: computing (analysis/summary*.c), files. */
#include "analysis/summary.h"
#include "render/summary_fields.h"
#include "render/summary_json.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

const char *const SM_CATEGORY_KEYS[PQ_SM_NCATEGORIES] = {"compute", "communication", "host",
                                                         "stall", "other"};
const char *const SM_RUN_METADATA_KEYS[10] = {
    "run_path",         "run_id",  "artifact_ref", "artifact_name", "hardware_type",
    "mesh_or_topology", "git_sha", "config_hash",  "num_devices",   "num_hosts"};

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

/* The documents, streamed (render/summary_json.h): each object's keys are written in
 * sorted order, as json.dumps(sort_keys=True) writes them. */

static void strings_write(sj_writer *w, const char *key, const char *const *s, size_t n)
{
    sj_key(w, key);
    sj_strings(w, s, n);
}

static void rows_write(sj_writer *w, const char *key, const void *rows, size_t n,
                       const sm_row_desc *d)
{
    sj_key(w, key);
    sj_rows(w, rows, n, d);
}

static void overview_write(sj_writer *w, const pq_sm_overview *ov)
{
    sj_open(w, '{');
    sj_field(w, "display_time_unit", su_vstr(ov->display_time_unit));
    sj_field(w, "duration_basis", su_vstr(ov->duration_basis));
    sj_field(w, "num_complete_events", su_vint((int64_t)ov->num_complete_events));
    sj_field(w, "num_events_total", su_vint((int64_t)ov->num_events_total));
    sj_field(w, "num_processes", su_vint((int64_t)ov->num_processes));
    sj_field(w, "num_threads", su_vint((int64_t)ov->num_threads));
    sj_field(w, "profile_end_ts", su_vnum(ov->profile_end_ts));
    sj_field(w, "profile_start_ts", su_vnum(ov->profile_start_ts));
    strings_write(w, "quality_warnings", ov->quality_warnings, ov->nquality_warnings);
    sj_key(w, "suspected_truncation");
    sj_bool(w, ov->suspected_truncation);
    sj_close(w, '}');
}

static void step_time_write(sj_writer *w, const pq_sm_step_time *st)
{
    sj_open(w, '{');
    sj_key(w, "all_steps");
    sj_row(w, &st->all_steps, &SM_STATS_ROW);
    sj_key(w, "classes");
    sj_open(w, '[');
    for (size_t k = 0; k < st->nclasses; k++) {
        const pq_sm_step_class *x = &st->classes[k];
        sj_item(w);
        sj_open(w, '{');
        sj_field(w, "count", su_vint((int64_t)x->count));
        sj_key(w, "duration_stats");
        sj_row(w, &x->duration_stats, &SM_STATS_ROW);
        sj_field(w, "fraction_of_steady", su_vnum(x->fraction_of_steady));
        sj_field(w, "name", su_vstr(x->name));
        sj_field(w, "periodicity", x->periodicity ? su_vint(x->periodicity) : su_vstr(NULL));
        sj_field(w, "representative_duration", su_vnum(x->representative_duration));
        sj_field(w, "representative_step", su_vint(x->representative_step));
        sj_close(w, '}');
    }
    sj_close(w, ']');
    sj_key(w, "steady_state_steps");
    sj_row(w, &st->steady_state_steps, &SM_STATS_ROW);
    sj_field(w, "warmup_steps_ignored", su_vint(st->warmup_steps_ignored));
    sj_close(w, '}');
}

static void breakdown_write(sj_writer *w, const pq_sm_breakdown *b)
{
    /* sorted: communication, compute, duration_basis, host, other, stall, total_duration */
    static const int order[] = {PQ_SM_COMMUNICATION, PQ_SM_COMPUTE, -1, PQ_SM_HOST,
                                PQ_SM_OTHER,         PQ_SM_STALL,   -2};
    sj_open(w, '{');
    for (size_t j = 0; j < sizeof order / sizeof *order; j++) {
        int k = order[j];
        if (k == -1) {
            sj_field(w, "duration_basis", su_vstr(b->duration_basis));
        } else if (k == -2) {
            sj_field(w, "total_duration", su_vnum(b->total_duration));
        } else {
            sj_key(w, SM_CATEGORY_KEYS[k]);
            sj_open(w, '{');
            sj_field(w, "share_of_total", su_vnum(b->category_share[k]));
            sj_field(w, "total_duration", su_vnum(b->category_total[k]));
            sj_close(w, '}');
        }
    }
    sj_close(w, '}');
}

void sm_candidates_write(sj_writer *w, const pq_sm_candidate *rows, size_t n)
{
    sj_open(w, '[');
    for (size_t k = 0; k < n; k++) {
        const pq_sm_candidate *x = &rows[k];
        size_t ns = 0;
        while (x->suggestions && x->suggestions[ns])
            ns++;
        sj_item(w);
        sj_open(w, '{');
        sj_field(w, "candidate_id", su_vstr(x->candidate_id));
        strings_write(w, "evidence", x->evidence, x->nevidence);
        sj_field(w, "rationale", su_vstr(x->rationale));
        strings_write(w, "suggestions", x->suggestions, ns);
        sj_field(w, "title", su_vstr(x->title));
        sj_close(w, '}');
    }
    sj_close(w, ']');
}

void sm_write(sj_writer *w, const pq_summary_result *r)
{
    const pq_sm_run_metadata *m = &r->run_metadata;
    const pq_sm_provenance *pv = &r->trace_provenance;
    sj_open(w, '{');
    rows_write(w, "communication_ops", r->communication_ops, r->ncommunication_ops,
               &SM_COLLECTIVE_ROW);
    rows_write(w, "device_op_region_aggregates", r->device_op_region_aggregates,
               r->ndevice_op_region_aggregates, &SM_OP_REGION_ROW);
    rows_write(w, "gap_before_ops", r->gap_before_ops, r->ngap_before_ops, &SM_GAP_ROW);
    rows_write(w, "gap_region_contexts", r->gap_region_contexts, r->ngap_region_contexts,
               &SM_CONTEXT_ROW);
    sj_field(w, "generated_at_utc", su_vstr(r->generated_at_utc));
    rows_write(w, "hierarchical_regions", r->hierarchical_regions, r->nhierarchical_regions,
               &SM_REGION_ROW);
    rows_write(w, "hot_ops", r->hot_ops, r->nhot_ops, &SM_HOT_OP_ROW);
    sj_key(w, "optimization_candidates");
    sm_candidates_write(w, r->optimization_candidates, r->noptimization_candidates);
    sj_key(w, "run_metadata");
    su_val meta[10];
    const char *const vals[] = {m->run_path, m->run_id, m->artifact_ref, m->artifact_name};
    for (size_t k = 0; k < 10; k++)
        meta[k] = su_vstr(k < 4 ? vals[k] : NULL);
    sj_scalars(w, SM_RUN_METADATA_KEYS, meta, 10);
    sj_field(w, "schema_version", su_vstr(r->schema_version));
    rows_write(w, "semantic_families", r->semantic_families, r->nsemantic_families, &SM_FAMILY_ROW);
    sj_field(w, "source_format", su_vstr(r->source_format));
    sj_field(w, "source_path", su_vstr(r->source_path));
    sj_key(w, "step_time");
    step_time_write(w, &r->step_time);
    sj_key(w, "time_breakdown");
    breakdown_write(w, &r->time_breakdown);
    sj_key(w, "trace_overview");
    overview_write(w, &r->trace_overview);
    sj_key(w, "trace_provenance");
    sj_open(w, '{');
    strings_write(w, "run_ids", pv->run_ids, pv->nrun_ids);
    strings_write(w, "source_file_hints", pv->source_file_hints, pv->nsource_file_hints);
    sj_field(w, "trace_sha256", su_vstr(pv->trace_sha256));
    sj_close(w, '}');
    sj_close(w, '}');
}

void sm_publish_plan_write(sj_writer *w, const pq_summary_result *r, const sm_publish_plan *p)
{
    const pq_sm_run_metadata *rm = &r->run_metadata;
    const pq_sm_gap *gap = r->ngap_before_ops ? &r->gap_before_ops[0] : NULL;
    sj_open(w, '{');
    strings_write(w, "aliases", p->aliases, p->naliases);
    sj_field(w, "artifact_name", su_vstr(p->artifact_name));
    sj_field(w, "artifact_type", su_vstr("profile_summary"));
    sj_field(w, "entity", su_vstr(p->entity));
    sj_key(w, "metadata");
    /* hardware_type, mesh_or_topology, git_sha and config_hash: null in every summary */
    char share[PQ_SM_OTHER][64];
    const char *keys[32] = {"schema_version",
                            "source_format",
                            "source_path",
                            "run_path",
                            "run_id",
                            "hardware_type",
                            "mesh_or_topology",
                            "git_sha",
                            "config_hash",
                            "source_artifact_ref",
                            "step_median",
                            "step_p90",
                            "top_pre_gap_op",
                            "top_pre_gap_total",
                            "num_hierarchical_regions",
                            "num_gap_region_contexts",
                            "generated_at_utc"};
    su_val v[32] = {su_vstr(r->schema_version),
                    su_vstr(r->source_format),
                    su_vstr(r->source_path),
                    su_vstr(rm->run_path),
                    su_vstr(rm->run_id),
                    su_vstr(NULL),
                    su_vstr(NULL),
                    su_vstr(NULL),
                    su_vstr(NULL),
                    su_vstr(rm->artifact_ref),
                    su_vnum(r->step_time.steady_state_steps.median),
                    su_vnum(r->step_time.steady_state_steps.p90),
                    su_vstr(gap ? gap->name : NULL),
                    gap ? su_vnum(gap->total_gap_duration) : su_vstr(NULL),
                    su_vint((int64_t)r->nhierarchical_regions),
                    su_vint((int64_t)r->ngap_region_contexts),
                    su_vstr(r->generated_at_utc)};
    size_t n = 17;
    for (int k = 0; k < PQ_SM_OTHER; k++, n++) {
        snprintf(share[k], sizeof share[k], "%s_share", SM_CATEGORY_KEYS[k]);
        keys[n] = share[k];
        v[n] = su_vnum(r->time_breakdown.category_share[k]);
    }
    sj_scalars(w, keys, v, n);
    sj_field(w, "project", su_vstr(p->project));
    sj_field(w, "report_path", su_vstr(p->report_path));
    sj_field(w, "status", su_vstr(p->status));
    sj_field(w, "summary_path", su_vstr(p->summary_path));
    sj_close(w, '}');
}
