/* test_summary_text.c - the summary family's text helpers (src/render/summary_text.h):
 * units by key, tables that fit a width by shortening names in the middle (text and
 * markdown, code cells escaped), wrapped prose with over-long words shortened, the generic
 * document text and the track gate's failed-threshold lines.
 */
#include "testutil.h"

#include "api/history_read.h"
#include "core/buf.h"
#include "core/jval.h"
#include "render/summary_history.h"
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
    jval *v = jv_num(615120.0);
    su_value(&b, v, SU_TIME);
    assert_string_equal(str(&b), "615.120 ms");
    b.n = 0;
    su_time(&b, 192.05);
    assert_string_equal(str(&b), "192.050 \xC2\xB5s");
    b.n = 0;
    su_time(&b, 0);
    assert_string_equal(str(&b), "0 \xC2\xB5s");
    b.n = 0;
    su_value(&b, NULL, SU_TIME);
    assert_string_equal(str(&b), "n/a");
    jv_free(v);
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

static void test_doc_and_gate(void **state)
{
    (void)state;
    const char *rec = "{\"label\": \"L\", \"assessment\": {\"status\": \"fail\", "
                      "\"metrics\": {\"steady_state_median_regression_pct\": 12.5, "
                      "\"steady_state_p90_regression_pct\": 3.0}, \"comparison\": "
                      "{\"step_time\": {\"steady_state_median_before\": 1000.0, "
                      "\"steady_state_median_after\": 1125.0, \"steady_state_p90_before\": "
                      "2000.0, \"steady_state_p90_after\": 2060.0}, \"improved_ops\": "
                      "[{\"name\": \"a\", \"before\": 2.0, \"after\": 1.0}]}}}";
    size_t off;
    const char *what;
    jval *doc = jv_parse(rec, strlen(rec), &off, &what);
    assert_non_null(doc);
    buf b;
    buf_init(&b, NULL);
    pq_summary_comparison c;
    memset(&c, 0, sizeof c);
    c.steady_before[0] = 1000.0;
    c.steady_after[0] = 1125.0;
    c.steady_before[1] = 2000.0;
    c.steady_after[1] = 2060.0;
    pq_track_assessment as;
    memset(&as, 0, sizeof as);
    as.status = PQ_TRACK_FAIL;
    as.median_regression_pct = 12.5;
    as.p90_regression_pct = 3.0;
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
    b.n = 0;
    su_render_doc(&b, doc, 0);
    const char *s = str(&b);
    assert_non_null(strstr(s, "label: L\n"));
    assert_non_null(strstr(s, "steady_state_median_regression_pct: 12.50%\n"));
    assert_non_null(strstr(s, "steady_state_p90_before: 2.000 ms\n"));
    assert_non_null(strstr(s, "improved_ops:\n"));
    assert_non_null(strstr(s, "2.000 \xC2\xB5s")); /* the table's before */
    buf_release(&b);
    jv_free(doc);
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
        cmocka_unit_test(test_units),          cmocka_unit_test(test_table_fits),
        cmocka_unit_test(test_wrap),           cmocka_unit_test(test_doc_and_gate),
        cmocka_unit_test(test_history_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
