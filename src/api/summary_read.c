/* summary_read.c - the reader of profile_summary.v1 documents: a saved summary (the JSON that
 * `profq summarize` writes, compare's BEFORE and AFTER, track's history inputs) read into the
 * result structs that the analysis computes (pq_summary_result, include/profq.h), so that
 * report, query, compare and track work on structs whatever the summary came from.
 * The keys of the rows are render/summary_fields.h's tables, the writer's own: what
 * render/summary_write.c writes, this reads back to the same struct. A key absent or of
 * another type reads as the document's null (NULL, NaN, 0). The JSON text is parsed by
 * core/jval.h and the tree dropped once the structs are filled.
 * Not here: computing a summary (analysis/summary*.c), writing one (render/summary_write.c). */
#include "api/summary_int.h"
#include "core/err.h"
#include "core/jval.h"
#include "render/summary_fields.h"

#include <math.h>
#include <string.h>

static const char *str_of(arena *mem, const jval *v)
{
    return v && v->t == JV_STR ? arena_strndup(mem, v->s, v->sn) : NULL;
}

static double num_of(const jval *v)
{
    int ok;
    double d = jv_number(v, &ok);
    return ok ? d : NAN;
}

static int64_t int_of(const jval *v)
{
    if (v && v->t == JV_INT)
        return v->i;
    double d = num_of(v);
    return d == d && fabs(d) < 9.2e18 ? (int64_t)d : 0;
}

/* The fields of ROW (laid out as D says) from the object O. */
static void row_read(arena *mem, const jval *o, const sm_row_desc *d, void *row)
{
    char *p = row;
    for (size_t j = 0; j < d->nfields; j++) {
        const sm_field *f = &d->fields[j];
        const jval *v = jv_get(o, f->key);
        void *at = p + f->off;
        switch (f->kind) {
        case SM_F_STR:
            if (strcmp(f->key, "payload_op") != 0) /* the gap's name, written twice */
                *(const char **)at = str_of(mem, v);
            break;
        case SM_F_U64:
            *(uint64_t *)at = (uint64_t)int_of(v);
            break;
        case SM_F_I64:
            *(int64_t *)at = int_of(v);
            break;
        case SM_F_NUM:
            *(double *)at = num_of(v);
            break;
        }
    }
}

/* The rows of the array under KEY of DOC; *N gets their count. */
static void *rows_read(arena *mem, const jval *doc, const char *key, const sm_row_desc *d,
                       size_t *n)
{
    const jval *a = jv_get(doc, key);
    *n = 0;
    if (!a || a->t != JV_ARR || a->n == 0)
        return NULL;
    char *rows = arena_alloc(mem, a->n * d->size);
    if (!rows)
        return NULL;
    for (size_t k = 0; k < a->n; k++)
        row_read(mem, a->items[k], d, rows + k * d->size);
    *n = a->n;
    return rows;
}

/* The strings of the array A (other values: null); *N gets their count. */
static const char *const *strings_read(arena *mem, const jval *a, size_t *n)
{
    *n = 0;
    if (!a || a->t != JV_ARR || a->n == 0)
        return NULL;
    const char **s = arena_alloc(mem, a->n * sizeof *s);
    if (!s)
        return NULL;
    for (size_t k = 0; k < a->n; k++)
        s[k] = str_of(mem, a->items[k]);
    *n = a->n;
    return s;
}

static void step_time_read(arena *mem, const jval *st, pq_sm_step_time *out)
{
    out->warmup_steps_ignored = int_of(jv_get(st, "warmup_steps_ignored"));
    row_read(mem, jv_get(st, "all_steps"), &SM_STATS_ROW, &out->all_steps);
    row_read(mem, jv_get(st, "steady_state_steps"), &SM_STATS_ROW, &out->steady_state_steps);
    const jval *cl = jv_get(st, "classes");
    if (!cl || cl->t != JV_ARR || cl->n == 0)
        return;
    pq_sm_step_class *c = arena_alloc(mem, cl->n * sizeof *c);
    if (!c)
        return;
    for (size_t k = 0; k < cl->n; k++) {
        const jval *o = cl->items[k];
        c[k].name = str_of(mem, jv_get(o, "name"));
        c[k].count = (uint64_t)int_of(jv_get(o, "count"));
        c[k].fraction_of_steady = num_of(jv_get(o, "fraction_of_steady"));
        row_read(mem, jv_get(o, "duration_stats"), &SM_STATS_ROW, &c[k].duration_stats);
        c[k].representative_step = int_of(jv_get(o, "representative_step"));
        c[k].representative_duration = num_of(jv_get(o, "representative_duration"));
        c[k].periodicity = int_of(jv_get(o, "periodicity"));
    }
    out->classes = c;
    out->nclasses = cl->n;
}

static void overview_read(arena *mem, const jval *o, pq_sm_overview *ov)
{
    ov->display_time_unit = str_of(mem, jv_get(o, "display_time_unit"));
    ov->num_events_total = (uint64_t)int_of(jv_get(o, "num_events_total"));
    ov->num_complete_events = (uint64_t)int_of(jv_get(o, "num_complete_events"));
    ov->num_processes = (uint64_t)int_of(jv_get(o, "num_processes"));
    ov->num_threads = (uint64_t)int_of(jv_get(o, "num_threads"));
    ov->profile_start_ts = num_of(jv_get(o, "profile_start_ts"));
    ov->profile_end_ts = num_of(jv_get(o, "profile_end_ts"));
    ov->duration_basis = str_of(mem, jv_get(o, "duration_basis"));
    const jval *t = jv_get(o, "suspected_truncation");
    ov->suspected_truncation = t && t->t == JV_BOOL && t->b;
    ov->quality_warnings = strings_read(mem, jv_get(o, "quality_warnings"), &ov->nquality_warnings);
}

static void candidates_read(arena *mem, const jval *a, pq_summary_result *r)
{
    if (!a || a->t != JV_ARR || a->n == 0)
        return;
    pq_sm_candidate *c = arena_alloc(mem, a->n * sizeof *c);
    if (!c)
        return;
    for (size_t k = 0; k < a->n; k++) {
        const jval *o = a->items[k];
        c[k].candidate_id = str_of(mem, jv_get(o, "candidate_id"));
        c[k].title = str_of(mem, jv_get(o, "title"));
        c[k].rationale = str_of(mem, jv_get(o, "rationale"));
        const jval *e = jv_get(o, "evidence");
        for (size_t j = 0; e && e->t == JV_ARR && j < e->n && j < 4; j++)
            c[k].evidence[c[k].nevidence++] = str_of(mem, e->items[j]);
        const jval *s = jv_get(o, "suggestions");
        size_t ns = s && s->t == JV_ARR ? s->n : 0;
        const char **sug = arena_alloc(mem, (ns + 1) * sizeof *sug);
        for (size_t j = 0; sug && j < ns; j++)
            sug[j] = str_of(mem, s->items[j]);
        if (sug)
            sug[ns] = NULL; /* the list's end */
        c[k].suggestions = sug;
    }
    r->optimization_candidates = c;
    r->noptimization_candidates = a->n;
}

/* Every section of DOC into R. */
static void doc_read(arena *mem, const jval *doc, pq_summary_result *r)
{
    r->schema_version = str_of(mem, jv_get(doc, "schema_version"));
    r->generated_at_utc = str_of(mem, jv_get(doc, "generated_at_utc"));
    r->source_format = str_of(mem, jv_get(doc, "source_format"));
    r->source_path = str_of(mem, jv_get(doc, "source_path"));
    const jval *rm = jv_get(doc, "run_metadata");
    const char **meta[4] = {&r->run_metadata.run_path, &r->run_metadata.run_id,
                            &r->run_metadata.artifact_ref, &r->run_metadata.artifact_name};
    for (size_t k = 0; k < 4; k++)
        *meta[k] = str_of(mem, jv_get(rm, SM_RUN_METADATA_KEYS[k]));
    overview_read(mem, jv_get(doc, "trace_overview"), &r->trace_overview);
    const jval *pv = jv_get(doc, "trace_provenance");
    r->trace_provenance.trace_sha256 = str_of(mem, jv_get(pv, "trace_sha256"));
    r->trace_provenance.run_ids =
        strings_read(mem, jv_get(pv, "run_ids"), &r->trace_provenance.nrun_ids);
    r->trace_provenance.source_file_hints =
        strings_read(mem, jv_get(pv, "source_file_hints"), &r->trace_provenance.nsource_file_hints);
    step_time_read(mem, jv_get(doc, "step_time"), &r->step_time);
    const jval *tb = jv_get(doc, "time_breakdown");
    r->time_breakdown.duration_basis = str_of(mem, jv_get(tb, "duration_basis"));
    r->time_breakdown.total_duration = num_of(jv_get(tb, "total_duration"));
    for (int k = 0; k < PQ_SM_NCATEGORIES; k++) {
        const jval *c = jv_get(tb, SM_CATEGORY_KEYS[k]);
        r->time_breakdown.category_total[k] = num_of(jv_get(c, "total_duration"));
        r->time_breakdown.category_share[k] = num_of(jv_get(c, "share_of_total"));
    }
    r->hot_ops = rows_read(mem, doc, "hot_ops", &SM_HOT_OP_ROW, &r->nhot_ops);
    r->semantic_families =
        rows_read(mem, doc, "semantic_families", &SM_FAMILY_ROW, &r->nsemantic_families);
    r->communication_ops =
        rows_read(mem, doc, "communication_ops", &SM_COLLECTIVE_ROW, &r->ncommunication_ops);
    r->gap_before_ops = rows_read(mem, doc, "gap_before_ops", &SM_GAP_ROW, &r->ngap_before_ops);
    r->gap_region_contexts =
        rows_read(mem, doc, "gap_region_contexts", &SM_CONTEXT_ROW, &r->ngap_region_contexts);
    r->hierarchical_regions =
        rows_read(mem, doc, "hierarchical_regions", &SM_REGION_ROW, &r->nhierarchical_regions);
    r->device_op_region_aggregates = rows_read(mem, doc, "device_op_region_aggregates",
                                               &SM_OP_REGION_ROW, &r->ndevice_op_region_aggregates);
    candidates_read(mem, jv_get(doc, "optimization_candidates"), r);
}

pq_status summary_read(const char *path, const char *text, size_t n, arena *mem,
                       pq_summary_result *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    size_t off;
    const char *what;
    jval *doc = jv_parse(text, n, &off, &what);
    RETURN_ERROR_IF(!doc, err, PQ_ERR_INPUT, path, (int64_t)off, "%s", what);
    const char *sv = jv_string(jv_get(doc, "schema_version"));
    if (doc->t != JV_OBJ || !sv || strcmp(sv, "profile_summary.v1") != 0) {
        jv_free(doc);
        return err_set(err, PQ_ERR_INPUT, path, 0,
                       "expected a profile_summary.v1 document (schema_version)");
    }
    doc_read(mem, doc, out);
    jv_free(doc);
    RETURN_ERROR_IF(arena_failed(mem), err, PQ_ERR_NOMEM, path, -1, "out of memory");
    return PQ_OK;
}
