/* report.c - the deterministic markdown root-cause report of a profile_summary.v1
 * (the seed's report.py, spec/seed-tools.md 1.23), for people (issue 16 items 10, 11):
 * times with their units (the summary's microseconds as µs/ms/s) or `n/a`, shares as
 * percentages with two decimals, code cells with ` and | escaped, TOP_K rows per table,
 * aligned tables and wrapped prose within 120 columns (long names shortened in the middle
 * with "…"; whole with the view's wide), region paths split from C++ names shown with their
 * "::" again. It formats the summary document; the document itself never changes. */
#include "core/buf.h"
#include "core/err.h"
#include "core/jval.h"
#include "profq.h"
#include "render/summary_doc.h"
#include "render/summary_text.h"
#include "render/text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const jval *get(const jval *v, const char *k)
{
    return jv_get(v, k);
}

/* A time of the summary (microseconds) with its unit, or n/a. */
static void fmt(buf *b, const jval *v)
{
    su_value(b, v, SU_TIME);
}

static void pct(buf *b, const jval *v)
{
    su_value(b, v, SU_SHARE);
}

static void text(buf *b, const jval *v, const char *dflt)
{
    const char *s = jv_string(v);
    if (s) {
        buf_puts(b, s);
    } else if (v && v->t == JV_INT) {
        buf_printf(b, "%lld", (long long)v->i);
    } else {
        buf_puts(b, dflt);
    }
}

static void count(buf *b, const jval *v)
{
    su_value(b, v, SU_COUNT);
}

/* The report's state: where it writes, rows per table, the width of its lines (0: whole
 * names) and the summary (whose op names tell which region paths were C++ names). */
typedef struct rep {
    buf *b;
    int k;
    size_t width;
    const jval *doc;
} rep;

/* How a table cell or list item prints its value. */
typedef enum {
    C_TEXT,    /* text, "" when absent */
    C_TEXT_NA, /* text, "n/a" when absent */
    C_CODE,
    C_CODE_OR_NAME, /* code of KEY, else of "name" */
    C_REGION,       /* code of a region path, with :: where the seed split a C++ name */
    C_COUNT,
    C_FMT,
    C_PCT,
    C_SCI,     /* %.3e or n/a */
    C_INV_SCI, /* %.3e of 1/value when positive, or n/a */
    C_INDEX    /* the row's number, from 1 */
} cell_kind;

typedef struct col {
    cell_kind kind;
    const char *key;
    const char *sub;   /* the value is get(get(row, key), sub) when set */
    const char *label; /* lists: the label; tables: the head */
} col;

/* The text of cell C of ROW (code cells without their backticks); 1 when it is "n/a"
 * standing for an absent code value (printed as is). */
static int cell(buf *b, const rep *r, const jval *row, const col *c)
{
    const jval *v = get(row, c->key);
    if (c->sub)
        v = get(v, c->sub);
    int ok;
    double d;
    switch (c->kind) {
    case C_TEXT:
        text(b, v, "");
        break;
    case C_TEXT_NA:
        text(b, v, "n/a");
        break;
    case C_CODE_OR_NAME:
    case C_CODE:
    case C_REGION:
        if (c->kind == C_CODE_OR_NAME && !v)
            v = get(row, "name");
        if (!jv_string(v)) {
            buf_puts(b, "n/a");
            return 1;
        }
        if (c->kind == C_REGION)
            su_region(b, r->doc, jv_string(v));
        else
            buf_puts(b, jv_string(v));
        break;
    case C_COUNT:
        count(b, v);
        break;
    case C_FMT:
        fmt(b, v);
        break;
    case C_PCT:
        pct(b, v);
        break;
    case C_INDEX:
        break; /* rows() numbers the rows */
    case C_SCI:
    case C_INV_SCI:
        d = jv_number(v, &ok);
        if (ok && c->kind == C_INV_SCI && d > 0)
            buf_printf(b, "%.3e", 1.0 / d);
        else if (ok && c->kind == C_SCI)
            buf_printf(b, "%.3e", d);
        else
            buf_puts(b, "n/a");
        break;
    }
    return 0;
}

/* Writes table T (filled) in the report's width, else whole, then frees it. */
static void emit(const rep *r, su_table *t)
{
    if (su_table_emit(r->b, t, r->width, "") != 0)
        su_table_emit(r->b, t, 0, "");
    su_table_free(t);
}

/* The table heads of COLS: figures right-aligned, names and text shrinkable. */
static void heads(su_col *h, const col *cols, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        cell_kind k = cols[j].kind;
        int name = k == C_CODE || k == C_CODE_OR_NAME || k == C_REGION;
        h[j] = (su_col){cols[j].label, (unsigned char)(!name && k != C_TEXT && k != C_TEXT_NA),
                        (unsigned char)(name || k == C_TEXT), (unsigned char)name};
    }
}

/* One markdown table of the items of ARR (an array, else only the heads), K rows at most. */
static void rows(const rep *r, const jval *arr, const col *cols, size_t ncols, int k)
{
    su_col h[16];
    heads(h, cols, ncols);
    su_table t;
    su_table_init(&t, h, ncols, 1);
    buf c;
    buf_init(&c, NULL);
    for (size_t i = 0; arr && arr->t == JV_ARR && i < arr->n && (int)i < k; i++)
        for (size_t j = 0; j < ncols; j++) {
            int raw = cols[j].kind == C_INDEX ? 1 : cell(&c, r, arr->items[i], &cols[j]);
            if (cols[j].kind == C_INDEX)
                buf_printf(&c, "%zu", i + 1);
            su_table_add_buf(&t, &c, raw);
        }
    buf_release(&c);
    emit(r, &t);
}

/* "- <label>: <value>" lines. */
static void list(const rep *r, const jval *obj, const col *cols, size_t ncols)
{
    for (size_t j = 0; j < ncols; j++) {
        buf_printf(r->b, "- %s: ", cols[j].label);
        cell(r->b, r, obj, &cols[j]);
        buf_putc(r->b, '\n');
    }
}

/* A paragraph or list item of prose V, wrapped to the report's width. */
static void prose(const rep *r, const jval *v, const char *first, const char *rest)
{
    buf t;
    buf_init(&t, NULL);
    text(&t, v, "");
    buf_putc(&t, '\0');
    su_wrap(r->b, t.p ? t.p : "", r->width, first, rest);
    buf_release(&t);
}

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* ## Hierarchical Regions: the first K regions with their share of their root. */
static void regions_section(const rep *r, const jval *s, int k)
{
    const jval *rg = get(s, "hierarchical_regions");
    buf_puts(r->b, "\n## Hierarchical Regions\n\n");
    if (!rg || rg->t != JV_ARR || !rg->n) {
        buf_puts(r->b, "No hierarchical regions.\n");
        return;
    }
    double max_root = 0;
    for (size_t i = 0; i < rg->n; i++) {
        int ok1, ok2;
        double d = jv_number(get(rg->items[i], "depth"), &ok1);
        double inc = jv_number(get(rg->items[i], "inclusive_duration"), &ok2);
        if (ok1 && ok2 && d == 1 && inc > max_root)
            max_root = inc;
    }
    static const su_col h[] = {{"Region Path", 0, 1, 1}, {"Depth", 1, 0, 0},
                               {"Count", 1, 0, 0},       {"Inclusive", 1, 0, 0},
                               {"Inclusive %", 1, 0, 0}, {"Exclusive", 1, 0, 0},
                               {"Exclusive %", 1, 0, 0}};
    su_table t;
    su_table_init(&t, h, NCOLS(h), 1);
    buf c;
    buf_init(&c, NULL);
    for (size_t i = 0; i < rg->n && (int)i < k; i++) {
        const jval *g = rg->items[i];
        const char *path = jv_string(get(g, "path"));
        double root = max_root;
        if (path) {
            const char *sep = strstr(path, "=>");
            size_t rl = sep ? (size_t)(sep - path) : strlen(path);
            for (size_t j = 0; j < rg->n; j++) {
                const char *p2 = jv_string(get(rg->items[j], "path"));
                int ok;
                double inc = jv_number(get(rg->items[j], "inclusive_duration"), &ok);
                if (p2 && ok && strlen(p2) == rl && strncmp(p2, path, rl) == 0)
                    root = inc;
            }
            su_region(&c, r->doc, path);
        } else {
            buf_puts(&c, "n/a");
        }
        su_table_add_buf(&t, &c, !path);
        int ok1, ok2;
        double inc = jv_number(get(g, "inclusive_duration"), &ok1);
        double exc = jv_number(get(g, "exclusive_duration"), &ok2);
        count(&c, get(g, "depth"));
        su_table_add_buf(&t, &c, 1);
        count(&c, get(g, "count"));
        su_table_add_buf(&t, &c, 1);
        fmt(&c, get(g, "inclusive_duration"));
        su_table_add_buf(&t, &c, 1);
        buf_printf(&c, "%.2f%%", root > 0 && ok1 ? inc / root * 100 : 0.0);
        su_table_add_buf(&t, &c, 1);
        fmt(&c, get(g, "exclusive_duration"));
        su_table_add_buf(&t, &c, 1);
        buf_printf(&c, "%.2f%%", root > 0 && ok2 ? exc / root * 100 : 0.0);
        su_table_add_buf(&t, &c, 1);
    }
    buf_release(&c);
    emit(r, &t);
}

/* ## Gap Context (Region-First): gap contexts regrouped by region (first-seen order of the
 * sorted contexts), the first K regions. */
static void gap_context_section(const rep *r, const jval *s, int k)
{
    const jval *gc = get(s, "gap_region_contexts");
    buf_puts(r->b, "\n## Gap Context (Region-First)\n\n");
    if (!gc || gc->t != JV_ARR || !gc->n) {
        buf_puts(r->b, "No gap contexts.\n");
        return;
    }
    static const su_col h[] = {{"Region", 0, 1, 1},
                               {"Count", 1, 0, 0},
                               {"Total Gap", 1, 0, 0},
                               {"Avg Gap", 1, 0, 0},
                               {"Top Payload Ops", 0, 1, 1}};
    su_table t;
    su_table_init(&t, h, NCOLS(h), 1);
    buf c;
    buf_init(&c, NULL);
    int shown = 0;
    for (size_t i = 0; i < gc->n && shown < k; i++) {
        const char *reg = jv_string(get(gc->items[i], "region_path"));
        if (!reg)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            const char *r2 = jv_string(get(gc->items[j], "region_path"));
            seen = r2 && strcmp(r2, reg) == 0;
        }
        if (seen)
            continue;
        double cnt = 0, tot = 0;
        int nops = 0;
        buf tops;
        buf_init(&tops, NULL);
        for (size_t j = i; j < gc->n; j++) {
            const char *r2 = jv_string(get(gc->items[j], "region_path"));
            const char *op = jv_string(get(gc->items[j], "op_name"));
            if (!r2 || strcmp(r2, reg) != 0)
                continue;
            int ok;
            cnt += jv_number(get(gc->items[j], "count"), &ok);
            tot += jv_number(get(gc->items[j], "total_gap_duration"), &ok);
            if (nops < 3) {
                buf_printf(&tops, "%s%s", nops ? ", " : "", op ? op : "n/a");
                nops++;
            }
        }
        su_region(&c, r->doc, reg);
        su_table_add_buf(&t, &c, 0);
        buf_printf(&c, "%.0f", cnt);
        su_table_add_buf(&t, &c, 1);
        su_time(&c, tot);
        su_table_add_buf(&t, &c, 1);
        su_time(&c, cnt > 0 ? tot / cnt : 0.0);
        su_table_add_buf(&t, &c, 1);
        su_table_add_buf(&t, &tops, 0);
        buf_release(&tops);
        shown++;
    }
    buf_release(&c);
    emit(r, &t);
}

/* An evidence item: "Total gap: 1356122.000" (a time of the summary, in microseconds) with
 * its unit, "Total gap: 1.356 s"; other items as they are. */
static void evidence(const rep *r, const jval *v)
{
    const char *s = jv_string(v), *sep = s ? strrchr(s, ':') : NULL;
    char *end = NULL;
    double d = sep && sep[1] == ' ' ? strtod(sep + 2, &end) : 0;
    size_t ln = sep ? (size_t)(sep - s) : 0;
    int time = end && end != sep + 2 && !*end && ln >= 3 &&
               (!strncmp(sep - 3, "gap", 3) || (ln >= 6 && !strncmp(sep - 6, "median", 6)));
    if (!time) {
        prose(r, v, "- ", "  ");
        return;
    }
    buf_printf(r->b, "- %.*s: ", (int)ln, s);
    su_time(r->b, d);
    buf_putc(r->b, '\n');
}

/* ## Optimization Candidates: title, rationale, evidence and suggestions of each. */
static void candidates_section(const rep *r, const jval *s)
{
    const jval *oc = get(s, "optimization_candidates");
    buf *b = r->b;
    buf_puts(b, "\n## Optimization Candidates\n");
    for (size_t i = 0; oc && oc->t == JV_ARR && i < oc->n; i++) {
        const jval *c = oc->items[i];
        buf_putc(b, '\n');
        prose(r, get(c, "title"), "### ", "");
        buf_putc(b, '\n');
        prose(r, get(c, "rationale"), "", "");
        buf_puts(b, "\nEvidence:\n");
        const jval *ev = get(c, "evidence");
        for (size_t j = 0; ev && ev->t == JV_ARR && j < ev->n; j++)
            evidence(r, ev->items[j]);
        buf_puts(b, "\nSuggestions:\n");
        const jval *sg = get(c, "suggestions");
        for (size_t j = 0; sg && sg->t == JV_ARR && j < sg->n; j++)
            prose(r, sg->items[j], "- ", "  ");
    }
}

/* Run metadata, provenance, overview and the steady-state step time. */
static void head_sections(const rep *r, const jval *s)
{
    buf *b = r->b;
    const jval *rm = get(s, "run_metadata"), *ov = get(s, "trace_overview"),
               *pv = get(s, "trace_provenance"), *st = get(s, "step_time");
    buf_puts(b, "# Profile Report (profile_summary.v1)\n\n## Run Metadata\n\n");
    static const struct {
        const char *label, *key;
    } meta[] = {{"Run", "run_path"},
                {"Artifact", "artifact_ref"},
                {"Hardware", "hardware_type"},
                {"Topology", "mesh_or_topology"},
                {"Git SHA", "git_sha"}};
    buf line;
    buf_init(&line, NULL);
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
        buf_printf(&line, "- %s: ", meta[i].label);
        text(&line, get(rm, meta[i].key), "unknown");
        buf_putc(&line, '\0');
        text_fit(b, line.p, line.n - 1, r->width, 0);
        buf_putc(b, '\n');
        line.n = 0;
    }
    buf_release(&line);
    buf_puts(b, "- Generated At (UTC): ");
    text(b, get(s, "generated_at_utc"), "unknown");
    buf_puts(b, "\n\n## Trace Provenance\n\n- SHA256: ");
    text(b, get(pv, "trace_sha256"), "unknown");
    buf_puts(b, "\n- Run IDs: ");
    const jval *ids = get(pv, "run_ids");
    if (!ids || ids->t != JV_ARR || ids->n == 0)
        buf_puts(b, "none");
    for (size_t i = 0; ids && ids->t == JV_ARR && i < ids->n && i < 8; i++) {
        if (i)
            buf_puts(b, ", ");
        text(b, ids->items[i], "");
    }
    buf_puts(b, "\n\n## Trace Overview\n\n");
    static const col overview[] = {{C_COUNT, "num_complete_events", NULL, "Complete events"},
                                   {C_COUNT, "num_events_total", NULL, "Total events"},
                                   {C_COUNT, "num_processes", NULL, "Processes"},
                                   {C_COUNT, "num_threads", NULL, "Threads"}};
    list(r, ov, overview, NCOLS(overview));
    const jval *tr = get(ov, "suspected_truncation");
    buf_printf(b, "- Suspected truncation: %s\n", tr && tr->t == JV_BOOL && tr->b ? "yes" : "no");
    const jval *qw = get(ov, "quality_warnings");
    if (qw && qw->t == JV_ARR && qw->n) {
        buf_puts(b, "- Quality warnings:\n");
        for (size_t i = 0; i < qw->n; i++)
            prose(r, qw->items[i], "  - ", "    ");
    }
    buf_puts(b, "\n## Step Time (Steady State)\n\n");
    static const col steady[] = {{C_COUNT, "count", NULL, "Count"},
                                 {C_FMT, "median", NULL, "Median"},
                                 {C_FMT, "p90", NULL, "P90"},
                                 {C_FMT, "mean", NULL, "Mean"}};
    list(r, get(st, "steady_state_steps"), steady, NCOLS(steady));
}

static void render(const rep *r, const jval *s, int k)
{
    buf *b = r->b;
    const jval *st = get(s, "step_time"), *tb = get(s, "time_breakdown");
    head_sections(r, s);
    const jval *cl = get(st, "classes");
    if (cl && cl->t == JV_ARR && cl->n) {
        buf_puts(b, "\n## Step Classes\n\n");
        static const col classes[] = {{C_TEXT, "name", NULL, "Class"},
                                      {C_COUNT, "count", NULL, "Count"},
                                      {C_PCT, "fraction_of_steady", NULL, "Fraction"},
                                      {C_FMT, "duration_stats", "median", "Median"},
                                      {C_FMT, "duration_stats", "p90", "P90"},
                                      {C_COUNT, "representative_step", NULL, "Representative Step"},
                                      {C_TEXT_NA, "periodicity", NULL, "Periodicity"}};
        rows(r, cl, classes, NCOLS(classes), INT_MAX);
    }
    buf_puts(b, "\n## Time Breakdown (`");
    text(b, get(tb, "duration_basis"), "unknown");
    buf_puts(b, "`)\n\n");
    static const col breakdown[] = {{C_TEXT, "category", NULL, "Category"},
                                    {C_FMT, "total_duration", NULL, "Duration"},
                                    {C_PCT, "share_of_total", NULL, "Share"}};
    const char *cats[] = {"compute", "communication", "host", "stall", "other"};
    jval *bt = jv_arr();
    for (int i = 0; bt && i < 5; i++) {
        jval *row = jv_copy(get(tb, cats[i]));
        if (!row || row->t != JV_OBJ) {
            jv_free(row);
            row = jv_obj();
        }
        jv_set(row, "category", jv_cstr(cats[i]));
        jv_push(bt, row);
    }
    rows(r, bt, breakdown, NCOLS(breakdown), 5);
    jv_free(bt);
    regions_section(r, s, k);
    buf_puts(b, "\n## Top Ops\n\n");
    static const col hot[] = {{C_CODE, "name", NULL, "Op"},
                              {C_CODE, "canonical_name", NULL, "Canonical"},
                              {C_TEXT_NA, "category", NULL, "Category"},
                              {C_COUNT, "count", NULL, "Count"},
                              {C_FMT, "exclusive_duration", NULL, "Exclusive"},
                              {C_FMT, "avg_duration", NULL, "Avg"},
                              {C_CODE, "shape_signature", NULL, "Shape Signature"},
                              {C_CODE, "tf_op_path", NULL, "HLO/TF Path"}};
    /* In 120 columns, the op's figures first and its other names in a second table. */
    static const col hot1[] = {{C_INDEX, NULL, NULL, "#"},
                               {C_CODE, "name", NULL, "Op"},
                               {C_TEXT_NA, "category", NULL, "Category"},
                               {C_COUNT, "count", NULL, "Count"},
                               {C_FMT, "exclusive_duration", NULL, "Exclusive"},
                               {C_FMT, "avg_duration", NULL, "Avg"}};
    static const col hot2[] = {{C_INDEX, NULL, NULL, "#"},
                               {C_CODE, "canonical_name", NULL, "Canonical"},
                               {C_CODE, "shape_signature", NULL, "Shape Signature"},
                               {C_CODE, "tf_op_path", NULL, "HLO/TF Path"}};
    if (!r->width) {
        rows(r, get(s, "hot_ops"), hot, NCOLS(hot), k);
    } else {
        rows(r, get(s, "hot_ops"), hot1, NCOLS(hot1), k);
        buf_putc(b, '\n');
        rows(r, get(s, "hot_ops"), hot2, NCOLS(hot2), k);
    }
    const jval *da = get(s, "device_op_region_aggregates");
    if (da && da->t == JV_ARR && da->n) {
        buf_puts(b, "\n## Device Ops by Semantic Region\n\n");
        static const col dev[] = {{C_REGION, "region_path", NULL, "Region"},
                                  {C_CODE, "op_name", NULL, "Op"},
                                  {C_COUNT, "count", NULL, "Count"},
                                  {C_FMT, "exclusive_duration", NULL, "Exclusive"},
                                  {C_FMT, "avg_duration", NULL, "Avg"}};
        rows(r, da, dev, NCOLS(dev), k);
    }
    buf_puts(b, "\n## Semantic Families\n\n");
    su_wrap(b,
            "Families group the top ops by name and framework path; FLOP proxies are "
            "shape-based estimates, not measured FLOPs.",
            r->width, "", "");
    buf_putc(b, '\n');
    static const col fam[] = {{C_TEXT, "family", NULL, "Family"},
                              {C_COUNT, "count", NULL, "Count"},
                              {C_FMT, "exclusive_duration", NULL, "Exclusive"},
                              {C_PCT, "share_of_total", NULL, "Share"},
                              {C_FMT, "avg_exclusive_duration", NULL, "Avg Exclusive"},
                              {C_SCI, "flop_proxy_total", NULL, "FLOP Proxy Total"},
                              {C_INV_SCI, "time_per_flop_proxy", NULL, "FLOP Proxy/s"},
                              {C_CODE, "example_op", NULL, "Example Op"}};
    rows(r, get(s, "semantic_families"), fam, NCOLS(fam), k);
    const jval *co = get(s, "communication_ops");
    buf_puts(b, "\n## Communication Collectives\n\n");
    static const col coll[] = {{C_TEXT, "collective", NULL, "Collective"},
                               {C_COUNT, "count", NULL, "Count"},
                               {C_FMT, "total_duration", NULL, "Total"},
                               {C_FMT, "avg_duration", NULL, "Avg"}};
    if (!co || co->t != JV_ARR || !co->n)
        buf_puts(b, "No communication collectives.\n");
    else
        rows(r, co, coll, NCOLS(coll), k);
    const jval *gp = get(s, "gap_before_ops");
    buf_puts(b, "\n## Pre-Op Gaps\n\n");
    static const col gaps[] = {{C_CODE_OR_NAME, "payload_op", NULL, "Payload Op"},
                               {C_CODE, "marker_op", NULL, "Marker Op"},
                               {C_COUNT, "count", NULL, "Count"},
                               {C_FMT, "total_gap_duration", NULL, "Total"},
                               {C_FMT, "max_gap_duration", NULL, "Max"},
                               {C_FMT, "avg_gap_duration", NULL, "Avg"}};
    if (!gp || gp->t != JV_ARR || !gp->n)
        buf_puts(b, "No pre-op gaps.\n");
    else
        rows(r, gp, gaps, NCOLS(gaps), k);
    gap_context_section(r, s, k);
    candidates_section(r, s);
}

pq_status pq_summary_report_view(const pq_summary *s, int top_k, const pq_summary_view *view,
                                 pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    rep r = {&b, top_k, view && view->wide ? 0 : TEXT_COLS, s->doc};
    render(&r, s->doc, top_k);
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (st != PQ_OK)
        return err_set(err, st, "", -1, st == PQ_ERR_OUTPUT ? "write failed" : "out of memory");
    return PQ_OK;
}

pq_status pq_summary_report(const pq_summary *s, int top_k, pq_sink *sink, pq_error *err)
{
    return pq_summary_report_view(s, top_k, NULL, sink, err);
}
