/* test_summary_text.c - the summary family's text helpers (src/render/summary_text.h):
 * units by key, tables that fit a width by shortening names in the middle (text and
 * markdown, code cells escaped), wrapped prose with over-long words shortened, the track
 * and query text written from their result structs (rows as tables, or as lists when a table
 * does not fit), the streaming JSON writer (the bytes of core/jval.c's) and the track
 * gate's failed-threshold lines.
 */
#include "testutil.h"

#include "analysis/summary.h"
#include "api/history_read.h"
#include "api/summary_int.h"
#include "core/buf.h"
#include "render/summary_compare.h"
#include "render/summary_fields.h"
#include "render/summary_query.h"
#include "render/summary_set.h"
#include "core/jval.h"
#include "render/summary_history.h"
#include "render/summary_json.h"
#include "render/summary_text.h"

#include <math.h>
#include <string.h>

/* B's bytes as a C string (B stays usable). */
static const char *str(buf *b)
{
    buf_putc(b, 0);
    b->n--;
    return b->p;
}

/* Widest line of S in characters (UTF-8 code points). */
static size_t widest(const char *s)
{
    size_t w = 0, c = 0;
    for (; *s; s++) {
        if (*s == '\n') {
            w = c > w ? c : w;
            c = 0;
        } else if (((unsigned char)*s & 0xC0) != 0x80) {
            c++;
        }
    }
    return c > w ? c : w;
}

static void test_units(void **state)
{
    (void)state;
    assert_int_equal(su_unit_of("median_duration"), SU_TIME); /* "duration" holds "ratio" */
    assert_int_equal(su_unit_of("steady_state_p90_after"), SU_TIME);
    assert_int_equal(su_unit_of("communication_share_delta"), SU_SHARE);
    assert_int_equal(su_unit_of("median_regression_pct"), SU_PCT);
    assert_int_equal(su_unit_of("after_count"), SU_COUNT);
    assert_int_equal(su_unit_of("time_ratio"), SU_PLAIN);
    assert_int_equal(su_unit_of("flop_proxy_total"), SU_SCI);
    buf b;
    buf_init(&b, NULL);
    su_figure(&b, 615120.0, SU_TIME);
    assert_string_equal(str(&b), "615.120 ms");
    b.n = 0;
    su_figure(&b, NAN, SU_TIME);
    assert_string_equal(str(&b), "n/a");
    b.n = 0;
    su_time(&b, 192.05);
    assert_string_equal(str(&b), "192.050 \xC2\xB5s");
    b.n = 0;
    su_time(&b, 0);
    assert_string_equal(str(&b), "0 \xC2\xB5s");
    buf_release(&b);
}

static void test_table_fits(void **state)
{
    (void)state;
    static const su_col cols[] = {{"Op", 0, 1, 1}, {"Count", 1, 0, 0}};
    char name[400];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = 0;
    name[0] = '|'; /* escaped in markdown */
    name[sizeof name - 2] = 'z';
    for (int md = 0; md < 2; md++) {
        su_table t;
        su_table_init(&t, cols, 2, md);
        su_table_add(&t, name, strlen(name), 0);
        su_table_add(&t, "12", 2, 1);
        su_table_add(&t, "n/a", 3, 1);
        su_table_add(&t, "7", 1, 1);
        buf b;
        buf_init(&b, NULL);
        assert_int_equal(su_table_emit(&b, &t, 60, ""), 0);
        const char *s = str(&b);
        assert_true(widest(s) <= 60);
        assert_non_null(strstr(s, "\xE2\x80\xA6")); /* … */
        assert_non_null(strstr(s, "z"));            /* the tail is kept */
        assert_non_null(strstr(s, md ? "`\\|aaa" : "|aaa"));
        if (md)
            assert_non_null(strstr(s, "-:|")); /* right-aligned figure column */
        /* whole when the width is 0 */
        b.n = 0;
        assert_int_equal(su_table_emit(&b, &t, 0, ""), 0);
        assert_null(strstr(str(&b), "\xE2\x80\xA6"));
        buf_release(&b);
        su_table_free(&t);
    }
    /* nothing shrinkable and too wide: -1, nothing written */
    static const su_col fixed[] = {{"A", 1, 0, 0}};
    su_table t;
    su_table_init(&t, fixed, 1, 0);
    su_table_add(&t, name, strlen(name), 1);
    buf b;
    buf_init(&b, NULL);
    assert_int_equal(su_table_emit(&b, &t, 60, ""), -1);
    assert_int_equal(b.n, 0);
    buf_release(&b);
    su_table_free(&t);
}

static void test_wrap(void **state)
{
    (void)state;
    buf b;
    buf_init(&b, NULL);
    char text[600] = "short words then ";
    size_t n = strlen(text);
    memset(text + n, 'x', 300);
    strcpy(text + n + 300, " end");
    su_wrap(&b, text, 40, "- ", "  ");
    const char *s = str(&b);
    assert_true(widest(s) <= 40);
    assert_int_equal(strncmp(s, "- short words then", 18), 0);
    assert_non_null(strstr(s, "\n  "));
    assert_non_null(strstr(s, "\xE2\x80\xA6"));
    b.n = 0;
    su_wrap(&b, text, 0, "", ""); /* 0: one line, whole */
    assert_int_equal(b.n, strlen(text) + 1);
    buf_release(&b);
}

static void test_track_text_and_gate(void **state)
{
    (void)state;
    buf b;
    buf_init(&b, NULL);
    pq_summary_comparison c;
    memset(&c, 0, sizeof c);
    c.steady_before[0] = 1000.0;
    c.steady_after[0] = 1125.0;
    c.steady_before[1] = 2000.0;
    c.steady_after[1] = 2060.0;
    c.steady_delta[0] = c.steady_delta[1] = NAN; /* the document's null */
    c.provenance_status = "warn";
    c.provenance_messages[0] = "Before and after summaries have the same source_path.";
    c.nprovenance_messages = 1;
    pq_sm_op_delta improved = {"a", 2.0, 1.0, -1.0};
    c.improved_ops = &improved;
    c.nimproved_ops = 1;
    pq_track_assessment as;
    memset(&as, 0, sizeof as);
    as.status = PQ_TRACK_FAIL;
    as.median_regression_pct = 12.5;
    as.p90_regression_pct = 3.0;
    as.communication_share_delta = 0.0125;
    as.stall_share_delta = NAN;
    snprintf(as.failures[0], sizeof as.failures[0], "Steady-state median regressed.");
    as.nfailures = 1;
    as.comparison = &c;
    su_track_gate(&b, &as, 5.0, 10.0);
    assert_string_equal(str(&b), "track: fail: steady-state median step time "
                                 "(steady_state_median_regression_pct) regressed +12.50%, "
                                 "threshold 5.00%; baseline 1.000 ms, after 1.125 ms\n");
    b.n = 0;
    su_track_gate(&b, &as, 20.0, 1.0);
    assert_non_null(strstr(str(&b), "p90 step time"));
    assert_null(strstr(str(&b), "median step time"));
    b.n = 0;
    as.median_regression_pct = NAN; /* the document's null: no line */
    su_track_gate(&b, &as, 5.0, 10.0);
    assert_int_equal(b.n, 0);
    as.median_regression_pct = 12.5;
    pq_summary_result before, after;
    memset(&before, 0, sizeof before);
    memset(&after, 0, sizeof after);
    before.source_path = "b.json";
    after.source_path = "a.json";
    su_track_text(&b, &before, &after, &as, "L", "1970-01-01T00:00:00Z", 0);
    const char *s = str(&b);
    /* a block's scalars first, then its lists and blocks, each indented two spaces a level */
    assert_int_equal(strncmp(s,
                             "recorded_at_utc: 1970-01-01T00:00:00Z\nlabel: L\nbefore:\n"
                             "  source_path: b.json\n  run_path: n/a\n",
                             88),
                     0);
    assert_non_null(strstr(s, "assessment:\n  status: fail\n  failures:\n"
                              "    - Steady-state median regressed.\n  warnings: none\n"));
    assert_non_null(strstr(s, "    steady_state_median_regression_pct: 12.50%\n"));
    assert_non_null(strstr(s, "    communication_share_delta: 1.25%\n"));
    assert_non_null(strstr(s, "    stall_share_delta: n/a\n"));
    assert_non_null(strstr(s, "      steady_state_median_before: 1.000 ms\n"));
    assert_non_null(strstr(s, "      steady_state_median_delta: n/a\n"));
    assert_non_null(strstr(s, "      status: warn\n"));
    assert_non_null(strstr(s, "      messages:\n        - Before and after"));
    assert_non_null(strstr(s, "      before: none\n")); /* no step classes */
    assert_non_null(strstr(s, "    regressed_ops: none\n    improved_ops:\n"));
    /* the rows as a table: a name column, then figures right-aligned with their units */
    assert_non_null(strstr(s, "      name    before     after      delta\n"
                              "      a     2.000 \xC2\xB5s  1.000 \xC2\xB5s  -1.000 \xC2\xB5s\n"));
    buf_release(&b);
}

/* Rows that do not fit the width as a table are listed as "- #i" blocks; --wide keeps them
 * one table with the names whole. */
static void test_rows_fallback(void **state)
{
    (void)state;
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    pq_sm_region regions[2] = {{NULL, 1, 3, 10.0, 5.0}, {longname, 2, 1, 4.0, 4.0}};
    double incl[2] = {1.0, 0.4}, excl[2] = {0.5, 0.4};
    pq_summary_query_result q;
    memset(&q, 0, sizeof q);
    q.type = PQ_QUERY_HIERARCHICAL_REGIONS;
    q.query_type = "hierarchical_regions";
    q.regions = regions;
    q.inclusive_share = incl;
    q.exclusive_share = excl;
    q.nregions = 2;
    buf b;
    buf_init(&b, NULL);
    /* the first row's path is null: the column may not be shortened, and the table is too
     * wide for 120 columns */
    su_query_text(&b, &q, 0);
    const char *s = str(&b);
    assert_non_null(strstr(s, "query_type: hierarchical_regions\nresults:\n  - #1\n"
                              "    path: n/a\n    depth: 1\n    count: 3\n"
                              "    inclusive_duration: 10.000 \xC2\xB5s\n"));
    assert_non_null(strstr(s, "    inclusive_share_of_total: 100.00%\n"));
    assert_non_null(strstr(s, "  - #2\n    path: nnn"));
    assert_true(widest(s) <= 120);
    b.n = 0;
    su_query_text(&b, &q, 1);
    s = str(&b);
    assert_non_null(strstr(s, "results:\n  path "));
    assert_non_null(strstr(s, longname));
    assert_null(strstr(s, "- #"));
    buf_release(&b);
}

/* The streaming writer gives jv_write's bytes (json.dumps, indent 2 and one line) for the
 * same document parsed from text with its keys out of order: sorted keys, empty
 * containers, nulls, ints, Python float reprs, escapes. */
static void test_json_writer(void **state)
{
    (void)state;
    static const char *const keys[] = {"zeta", "alpha", "mid", "n", "s"};
    const su_val v[] = {su_vnum(0.1), su_vint(-3), su_vnum(NAN), su_vnum(1e16),
                        su_vstr("\xC3\xA9\"\\\n\x01")};
    const char *strs[] = {"a", "b"};
    for (int indent = -1; indent <= 2; indent += 3) {
        buf a, b;
        buf_init(&a, NULL);
        buf_init(&b, NULL);
        sj_writer w;
        sj_init(&w, &a, indent);
        sj_open(&w, '{');
        sj_key(&w, "a_list");
        sj_strings(&w, strs, 2);
        sj_key(&w, "b_empty");
        sj_open(&w, '[');
        sj_close(&w, ']');
        sj_key(&w, "c_obj");
        sj_scalars(&w, keys, v, 5);
        sj_key(&w, "d_empty");
        sj_scalars(&w, keys, v, 0);
        sj_field(&w, "e_null", su_vstr(NULL));
        sj_close(&w, '}');
        /* the same document, keys out of order, parsed and written by core/jval.c */
        static const char text[] =
            "{\"e_null\": null, \"d_empty\": {}, \"c_obj\": {\"zeta\": 0.1, \"s\": "
            "\"\\u00e9\\\"\\\\\\n\\u0001\", \"n\": 1e16, \"mid\": null, \"alpha\": -3}, "
            "\"b_empty\": [], \"a_list\": [\"a\", \"b\"]}";
        size_t off = 0;
        const char *what = "";
        jval *doc = jv_parse(text, sizeof text - 1, &off, &what);
        assert_non_null(doc);
        jv_write(&b, doc, indent);
        jv_free(doc);
        assert_string_equal(str(&a), str(&b));
        assert_non_null(strstr(str(&a), "\"alpha\": -3")); /* sorted first */
        assert_non_null(strstr(str(&a), "\"\\u00e9\\\"\\\\\\n\\u0001\""));
        buf_release(&a);
        buf_release(&b);
    }
}

/* A summary with a row of each kind and the edge values (true, NaN and NULL as null, a
 * periodicity of 0 and not, empty lists) written by the streaming writer: json.dumps's bytes
 * (core/jval.c writes the parsed text back the same), read back by api/summary_read.c into
 * structs that write the same text; publish's plan has its metadata keys sorted. */
static void test_summary_document_writer(void **state)
{
    (void)state;
    static const char *const warn[] = {"w\"1", "w2"}, *const ids[] = {"r1"};
    static const char *const sugg[] = {"do x", "do y", NULL};
    const pq_sm_step_class cls[] = {{"typical", 7, 0.5, {7, 1.5, 1, 2, 0.5, 3}, 4, 1.25, 0},
                                    {"heavy", 2, 0.25, {2, NAN, 2, 2, 2, 2}, 9, 2.0, 3}};
    const pq_sm_hot_op hot = {"op\xC3\xA9", "op", "compute", 3,     1e16, 0.1,
                              1.0 / 3,      NULL, "f.py",    "a/b", NAN};
    const pq_sm_family fam = {"matmul", 3, 1, 2, 0.5, 1, 2, "op", NULL, NAN, 4};
    const pq_sm_collective col = {"all-reduce", 1, 2, 2};
    const pq_sm_gap gap = {"g", 2, 4, 3, 2, "m"};
    const pq_sm_gap_context ctx = {"g", "a/b", 2, 4, 2};
    const pq_sm_region reg = {"a/b", -1, 2, 5, 4};
    const pq_sm_op_region opr = {"a", "op", "op", "stall", 1, 1, 1, 1, "s"};
    const pq_sm_candidate cand[] = {{"c1", "t", "r", {"e1", "e2"}, 2, sugg},
                                    {"c2", "t2", "r2", {NULL}, 0, NULL}};
    pq_summary_result r;
    memset(&r, 0, sizeof r);
    r.schema_version = "profile_summary.v1";
    r.generated_at_utc = "now";
    r.source_format = "perfetto_trace_json";
    r.run_metadata.run_id = "id";
    r.run_metadata.artifact_ref = "e/p/a:v1";
    r.trace_overview = (pq_sm_overview){NULL, 5, 4, 1, 2, NAN, 7.5, "basis", 1, warn, 2};
    r.trace_provenance = (pq_sm_provenance){"abc", ids, 1, NULL, 0};
    r.step_time.warmup_steps_ignored = 5;
    r.step_time.all_steps = (pq_sm_duration_stats){0, NAN, NAN, NAN, NAN, NAN};
    r.step_time.steady_state_steps = cls[0].duration_stats;
    r.step_time.classes = cls;
    r.step_time.nclasses = 2;
    r.time_breakdown = (pq_sm_breakdown){"b", 10, {1, 2, 3, 4, 0}, {0.1, 0.2, 0.3, 0.4, NAN}};
    r.hot_ops = &hot, r.nhot_ops = 1;
    r.semantic_families = &fam, r.nsemantic_families = 1;
    r.communication_ops = &col, r.ncommunication_ops = 1;
    r.gap_region_contexts = &ctx, r.ngap_region_contexts = 1;
    r.hierarchical_regions = &reg, r.nhierarchical_regions = 1;
    r.device_op_region_aggregates = &opr, r.ndevice_op_region_aggregates = 1;
    r.optimization_candidates = cand, r.noptimization_candidates = 2;
    for (int with_gap = 0; with_gap < 2; with_gap++) {
        r.gap_before_ops = with_gap ? &gap : NULL, r.ngap_before_ops = (size_t)with_gap;
        buf a, b;
        buf_init(&a, NULL);
        buf_init(&b, NULL);
        sj_writer w;
        sj_init(&w, &a, 2);
        sm_write(&w, &r);
        /* json.dumps's bytes: parsed and written again by core/jval.c, the same text */
        size_t off = 0;
        const char *what = "";
        jval *doc = jv_parse(a.p, a.n, &off, &what);
        assert_non_null(doc);
        jv_write(&b, doc, 2);
        jv_free(doc);
        assert_string_equal(str(&a), str(&b));
        /* the reader's inverse: read back into structs, written again, the same text */
        arena mem;
        arena_init(&mem);
        pq_summary_result back;
        pq_error err;
        assert_int_equal(summary_read("s.json", a.p, a.n, &mem, &back, &err), PQ_OK);
        buf c;
        buf_init(&c, NULL);
        sj_init(&w, &c, 2);
        sm_write(&w, &back);
        assert_string_equal(str(&a), str(&c));
        buf_release(&c);
        arena_release(&mem);
        assert_non_null(strstr(str(&a), "\"suspected_truncation\": true"));
        assert_non_null(strstr(str(&a), "\"periodicity\": 3,"));
        buf_release(&a);
        buf_release(&b);
        static const char *const al[] = {"a1"};
        sm_publish_plan p = {"dry_run", NULL, "proj", "art", al, 1, "s.json", NULL};
        buf_init(&a, NULL);
        sj_init(&w, &a, 2);
        sm_publish_plan_write(&w, &r, &p);
        const char *s = str(&a);
        assert_non_null(strstr(s, "\"communication_share\": 0.2,\n    \"compute_share\": 0.1,\n"
                                  "    \"config_hash\": null,\n"));
        assert_non_null(strstr(s, with_gap ? "\"top_pre_gap_total\": 4.0\n  },\n"
                                           : "\"top_pre_gap_total\": null\n  },\n"));
        assert_non_null(strstr(s, "\"aliases\": [\n    \"a1\"\n  ],\n  \"artifact_name\""));
        assert_non_null(strstr(s, "\"status\": \"dry_run\",\n  \"summary_path\": \"s.json\"\n}"));
        buf_release(&a);
    }
}

/* A summary set streamed (the summaries written apart at depth 2): json.dumps's bytes, its
 * rows those of sm_source_row_of, and each summary in it the document written alone. */
static void test_summary_set_writer(void **state)
{
    (void)state;
    pq_summary_result r;
    memset(&r, 0, sizeof r);
    r.schema_version = "profile_summary.v1";
    r.source_path = "a.json";
    r.trace_overview.profile_start_ts = NAN;
    r.step_time.steady_state_steps = (pq_sm_duration_stats){2, 1, 1.5, 2, 1, 2};
    r.time_breakdown.category_share[PQ_SM_HOST] = NAN;
    sm_source_row rows[2];
    sm_source_row_of("a.json", &r, &rows[0]);
    rows[1] = (sm_source_row){"b\xC3\xA9.json", 0, NAN, NAN, NAN, {0, 0, NAN, 0}, 0};
    buf one;
    buf_init(&one, NULL);
    sj_writer w;
    sj_init(&w, &one, 2);
    sm_write(&w, &r);
    for (size_t n = 0; n <= 2; n++) {
        sm_summary_set set;
        sm_summary_set_of(rows, n, &set);
        buf a, b, t[2];
        buf_init(&a, NULL);
        buf_init(&b, NULL);
        const char *texts[2];
        for (size_t k = 0; k < n; k++) {
            buf_init(&t[k], NULL);
            sj_writer tw;
            sj_init_at(&tw, &t[k], 2, 2);
            sm_write(&tw, &r);
            texts[k] = str(&t[k]);
        }
        sj_init(&w, &a, 2);
        su_summary_set_write(&w, &set, texts, n);
        size_t off = 0;
        const char *what = "";
        jval *doc = jv_parse(a.p, a.n, &off, &what);
        assert_non_null(doc);
        jv_write(&b, doc, 2);
        assert_string_equal(str(&a), str(&b));
        assert_string_equal(jv_string(jv_get(doc, "schema")), "profq.summary_set.v1");
        const jval *cross = jv_get(doc, "cross_source");
        const jval *srcs = jv_get(cross, "sources"), *sums = jv_get(doc, "summaries");
        assert_int_equal(srcs->n, n);
        assert_int_equal(sums->n, n);
        const char *slowest = jv_string(jv_get(cross, "slowest_source"));
        if (n)
            assert_string_equal(slowest, "a.json"); /* b has no median */
        else
            assert_null(slowest);
        for (size_t k = 0; k < n; k++) {
            const jval *row = srcs->items[k];
            int ok = 0;
            assert_string_equal(jv_string(jv_get(row, "path")), rows[k].path);
            assert_true(jv_number(jv_get(row, "steady_steps"), &ok) ==
                        (double)rows[k].steady_steps);
            double med = jv_number(jv_get(row, "step_median_us"), &ok);
            assert_true(ok ? med == rows[k].step_median_us : isnan(rows[k].step_median_us));
            const jval *host = jv_get(jv_get(row, "shares"), "host");
            assert_true(host && host->t == JV_NULL); /* NaN: null */
            buf_release(&b);
            buf_init(&b, NULL);
            jv_write(&b, sums->items[k], 2);
            assert_string_equal(str(&b), str(&one)); /* the document of the file alone */
        }
        jv_free(doc);
        buf_release(&a);
        buf_release(&b);
        for (size_t k = 0; k < n; k++)
            buf_release(&t[k]);
    }
    buf_release(&one);
}

/* A history file read into records (objects only), digested and written back. */
static void test_history_digest(void **state)
{
    (void)state;
    const char *text = "{\"assessment\": {\"status\": \"fail\", \"failures\": [\"a\", \"b\", "
                       "\"a\", 3]}, \"x\": 1.50}\n\n[1]\n  {\"assessment\": {\"status\": "
                       "\"pass\", \"warnings\": [\"w\"]}}\n{\"assessment\": {}}\n{\"partial\": ";
    history_records h;
    assert_int_equal(history_read(text, strlen(text), &h), 0);
    assert_int_equal(h.n, 3);
    assert_string_equal(h.recs[0].status, "fail");
    assert_int_equal(h.recs[0].nfailures, 3); /* the 3 is not a message */
    assert_null(h.recs[2].status);
    sm_history_digest d;
    assert_int_equal(sm_history_digest_of(h.recs, h.n, 2, &d), 0);
    assert_int_equal(d.nstatus, 3);
    assert_string_equal(d.status_counts[2].key, "unknown");
    assert_int_equal(d.nfailures, 2);
    assert_string_equal(d.top_failures[0].key, "a");
    assert_int_equal(d.top_failures[0].count, 2);
    assert_int_equal(d.nrecent, 2);
    assert_ptr_equal(d.latest, &h.recs[2]);
    buf b;
    buf_init(&b, NULL);
    su_history_write(&b, "h.jsonl", &d);
    const char *s = str(&b);
    assert_non_null(strstr(s, "\"latest_record\": {\n    \"assessment\": {}\n  },\n"));
    assert_non_null(strstr(s, "\"recent_records\": [\n    {\n      \"assessment\": {\n"));
    assert_non_null(strstr(s, "\"status_counts\": {\n    \"fail\": 1,\n    \"pass\": 1,\n"));
    assert_non_null(strstr(s, "\"num_records\": 3,\n"));
    buf_release(&b);
    sm_history_release(&d);
    history_records_release(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_table_fits),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_track_text_and_gate),
        cmocka_unit_test(test_rows_fallback),
        cmocka_unit_test(test_json_writer),
        cmocka_unit_test(test_summary_document_writer),
        cmocka_unit_test(test_summary_set_writer),
        cmocka_unit_test(test_history_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
