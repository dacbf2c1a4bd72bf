/* report.c - the deterministic markdown root-cause report of a profile_summary.v1
 * (the seed's report.py, spec/seed-tools.md 1.23): `%.3f` numbers or `n/a`, shares as
 * percentages with two decimals, code cells with ` and | escaped, TOP_K rows per table. */
#include "core/buf.h"
#include "core/err.h"
#include "core/jval.h"
#include "profq.h"
#include "render/summary_doc.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const jval *get(const jval *v, const char *k)
{
    return jv_get(v, k);
}

static void fmt(buf *b, const jval *v)
{
    int ok;
    double d = jv_number(v, &ok);
    if (ok)
        buf_printf(b, "%.3f", d);
    else
        buf_puts(b, "n/a");
}

static void pct(buf *b, const jval *v)
{
    int ok;
    double d = jv_number(v, &ok);
    if (ok)
        buf_printf(b, "%.2f%%", d * 100);
    else
        buf_puts(b, "n/a");
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

/* `code` cell: backticks and pipes escaped, newlines flattened. */
static void code(buf *b, const jval *v)
{
    const char *s = jv_string(v);
    if (!s) {
        buf_puts(b, "n/a");
        return;
    }
    buf_putc(b, '`');
    for (; *s; s++) {
        if (*s == '`' || *s == '|')
            buf_putc(b, '\\');
        buf_putc(b, *s == '\n' ? ' ' : *s);
    }
    buf_putc(b, '`');
}

static void count(buf *b, const jval *v)
{
    int ok;
    double d = jv_number(v, &ok);
    if (ok)
        buf_printf(b, "%.0f", d);
    else
        buf_puts(b, "n/a");
}

/* How a table cell or list item prints its value. */
typedef enum {
    C_TEXT,    /* text, "" when absent */
    C_TEXT_NA, /* text, "n/a" when absent */
    C_CODE,
    C_CODE_OR_NAME, /* code of KEY, else of "name" */
    C_COUNT,
    C_FMT,
    C_PCT,
    C_SCI,    /* %.3e or n/a */
    C_INV_SCI /* %.3e of 1/value when positive, or n/a */
} cell_kind;

typedef struct col {
    cell_kind kind;
    const char *key;
    const char *sub;   /* the value is get(get(row, key), sub) when set */
    const char *label; /* lists only */
} col;

static void cell(buf *b, const jval *row, const col *c)
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
        code(b, v ? v : get(row, "name"));
        break;
    case C_CODE:
        code(b, v);
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
}

/* One markdown table row per item of ARR (an array, else none), K rows at most. */
static void rows(buf *b, const jval *arr, const col *cols, size_t ncols, int k)
{
    for (size_t i = 0; arr && arr->t == JV_ARR && i < arr->n && (int)i < k; i++) {
        buf_puts(b, "| ");
        for (size_t j = 0; j < ncols; j++) {
            if (j)
                buf_puts(b, " | ");
            cell(b, arr->items[i], &cols[j]);
        }
        buf_puts(b, " |\n");
    }
}

/* "- <label>: <value>" lines. */
static void list(buf *b, const jval *obj, const col *cols, size_t ncols)
{
    for (size_t j = 0; j < ncols; j++) {
        buf_printf(b, "- %s: ", cols[j].label);
        cell(b, obj, &cols[j]);
        buf_putc(b, '\n');
    }
}

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* ## Hierarchical Regions: the first K regions with their share of their root. */
static void regions_section(buf *b, const jval *s, int k)
{
    const jval *rg = get(s, "hierarchical_regions");
    buf_puts(b, "\n## Hierarchical Regions\n\n");
    if (!rg || rg->t != JV_ARR || !rg->n) {
        buf_puts(b, "No hierarchical regions.\n");
    } else {
        double max_root = 0;
        for (size_t i = 0; i < rg->n; i++) {
            int ok1, ok2;
            double d = jv_number(get(rg->items[i], "depth"), &ok1);
            double inc = jv_number(get(rg->items[i], "inclusive_duration"), &ok2);
            if (ok1 && ok2 && d == 1 && inc > max_root)
                max_root = inc;
        }
        buf_puts(b, "| Region Path | Depth | Count | Inclusive | Inclusive % | Exclusive | "
                    "Exclusive % |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < rg->n && (int)i < k; i++) {
            const jval *r = rg->items[i];
            const char *path = jv_string(get(r, "path"));
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
            }
            int ok1, ok2;
            double inc = jv_number(get(r, "inclusive_duration"), &ok1);
            double exc = jv_number(get(r, "exclusive_duration"), &ok2);
            buf_puts(b, "| ");
            code(b, get(r, "path"));
            buf_puts(b, " | ");
            count(b, get(r, "depth"));
            buf_puts(b, " | ");
            count(b, get(r, "count"));
            buf_puts(b, " | ");
            fmt(b, get(r, "inclusive_duration"));
            buf_printf(b, " | %.2f%% | ", root > 0 && ok1 ? inc / root * 100 : 0.0);
            fmt(b, get(r, "exclusive_duration"));
            buf_printf(b, " | %.2f%% |\n", root > 0 && ok2 ? exc / root * 100 : 0.0);
        }
    }
}

/* ## Gap Context (Region-First): gap contexts regrouped by region (first-seen order of the
 * sorted contexts), the first K regions. */
static void gap_context_section(buf *b, const jval *s, int k)
{
    const jval *gc = get(s, "gap_region_contexts");
    buf_puts(b, "\n## Gap Context (Region-First)\n\n");
    if (!gc || gc->t != JV_ARR || !gc->n) {
        buf_puts(b, "No gap contexts.\n");
    } else {
        buf_puts(b, "| Region | Count | Total Gap | Avg Gap | Top Payload Ops |\n"
                    "|---|---:|---:|---:|---|\n");
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
                if (!r2 || strcmp(r2, reg) != 0)
                    continue;
                int ok;
                cnt += jv_number(get(gc->items[j], "count"), &ok);
                tot += jv_number(get(gc->items[j], "total_gap_duration"), &ok);
                if (nops < 3) {
                    if (nops)
                        buf_puts(&tops, ", ");
                    code(&tops, get(gc->items[j], "op_name"));
                    nops++;
                }
            }
            buf_puts(b, "| ");
            code(b, get(gc->items[i], "region_path"));
            buf_printf(b, " | %.0f | %.3f | %.3f | ", cnt, tot, cnt > 0 ? tot / cnt : 0.0);
            if (tops.p)
                buf_put(b, tops.p, tops.n);
            buf_puts(b, " |\n");
            buf_release(&tops);
            shown++;
        }
    }
}

/* ## Optimization Candidates: title, rationale, evidence and suggestions of each. */
static void candidates_section(buf *b, const jval *s)
{
    const jval *oc = get(s, "optimization_candidates");
    buf_puts(b, "\n## Optimization Candidates\n");
    for (size_t i = 0; oc && oc->t == JV_ARR && i < oc->n; i++) {
        const jval *c = oc->items[i];
        buf_puts(b, "\n### ");
        text(b, get(c, "title"), "");
        buf_puts(b, "\n\n");
        text(b, get(c, "rationale"), "");
        buf_puts(b, "\n\nEvidence:\n");
        const jval *ev = get(c, "evidence");
        for (size_t j = 0; ev && ev->t == JV_ARR && j < ev->n; j++) {
            buf_puts(b, "- ");
            text(b, ev->items[j], "");
            buf_putc(b, '\n');
        }
        buf_puts(b, "\nSuggestions:\n");
        const jval *sg = get(c, "suggestions");
        for (size_t j = 0; sg && sg->t == JV_ARR && j < sg->n; j++) {
            buf_puts(b, "- ");
            text(b, sg->items[j], "");
            buf_putc(b, '\n');
        }
    }
}

static void render(buf *b, const jval *s, int k)
{
    const jval *rm = get(s, "run_metadata"), *ov = get(s, "trace_overview"),
               *pv = get(s, "trace_provenance"), *st = get(s, "step_time"),
               *tb = get(s, "time_breakdown");
    buf_puts(b, "# Profile Report (profile_summary.v1)\n\n## Run Metadata\n\n");
    static const struct {
        const char *label, *key;
    } meta[] = {{"Run", "run_path"},
                {"Artifact", "artifact_ref"},
                {"Hardware", "hardware_type"},
                {"Topology", "mesh_or_topology"},
                {"Git SHA", "git_sha"}};
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
        buf_printf(b, "- %s: ", meta[i].label);
        text(b, get(rm, meta[i].key), "unknown");
        buf_putc(b, '\n');
    }
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
    list(b, ov, overview, NCOLS(overview));
    const jval *tr = get(ov, "suspected_truncation");
    buf_printf(b, "- Suspected truncation: %s\n", tr && tr->t == JV_BOOL && tr->b ? "yes" : "no");
    const jval *qw = get(ov, "quality_warnings");
    if (qw && qw->t == JV_ARR && qw->n) {
        buf_puts(b, "- Quality warnings:\n");
        for (size_t i = 0; i < qw->n; i++) {
            buf_puts(b, "  - ");
            text(b, qw->items[i], "");
            buf_putc(b, '\n');
        }
    }
    const jval *ss = get(st, "steady_state_steps");
    buf_puts(b, "\n## Step Time (Steady State)\n\n");
    static const col steady[] = {{C_COUNT, "count", NULL, "Count"},
                                 {C_FMT, "median", NULL, "Median"},
                                 {C_FMT, "p90", NULL, "P90"},
                                 {C_FMT, "mean", NULL, "Mean"}};
    list(b, ss, steady, NCOLS(steady));
    const jval *cl = get(st, "classes");
    if (cl && cl->t == JV_ARR && cl->n) {
        buf_puts(b, "\n## Step Classes\n\n| Class | Count | Fraction | Median | P90 | "
                    "Representative Step | Periodicity |\n|---|---:|---:|---:|---:|---:|---:|\n");
        static const col classes[] = {{C_TEXT, "name", NULL, NULL},
                                      {C_COUNT, "count", NULL, NULL},
                                      {C_PCT, "fraction_of_steady", NULL, NULL},
                                      {C_FMT, "duration_stats", "median", NULL},
                                      {C_FMT, "duration_stats", "p90", NULL},
                                      {C_TEXT_NA, "representative_step", NULL, NULL},
                                      {C_TEXT_NA, "periodicity", NULL, NULL}};
        rows(b, cl, classes, NCOLS(classes), INT_MAX);
    }
    buf_puts(b, "\n## Time Breakdown (`");
    text(b, get(tb, "duration_basis"), "unknown");
    buf_puts(b, "`)\n\n| Category | Duration | Share |\n|---|---:|---:|\n");
    const char *cats[] = {"compute", "communication", "host", "stall", "other"};
    for (int i = 0; i < 5; i++) {
        buf_printf(b, "| %s | ", cats[i]);
        fmt(b, get(get(tb, cats[i]), "total_duration"));
        buf_puts(b, " | ");
        pct(b, get(get(tb, cats[i]), "share_of_total"));
        buf_puts(b, " |\n");
    }
    regions_section(b, s, k);
    const jval *ho = get(s, "hot_ops");
    buf_puts(b, "\n## Top Ops\n\n| Op | Canonical | Category | Count | Exclusive | Avg | Shape "
                "Signature | HLO/TF Path |\n|---|---|---|---:|---:|---:|---|---|\n");
    static const col hot[] = {{C_CODE, "name", NULL, NULL},
                              {C_CODE, "canonical_name", NULL, NULL},
                              {C_TEXT_NA, "category", NULL, NULL},
                              {C_COUNT, "count", NULL, NULL},
                              {C_FMT, "exclusive_duration", NULL, NULL},
                              {C_FMT, "avg_duration", NULL, NULL},
                              {C_CODE, "shape_signature", NULL, NULL},
                              {C_CODE, "tf_op_path", NULL, NULL}};
    rows(b, ho, hot, NCOLS(hot), k);
    const jval *da = get(s, "device_op_region_aggregates");
    if (da && da->t == JV_ARR && da->n) {
        buf_puts(b, "\n## Device Ops by Semantic Region\n\n| Region | Op | Count | Exclusive | "
                    "Avg |\n|---|---|---:|---:|---:|\n");
        static const col dev[] = {{C_CODE, "region_path", NULL, NULL},
                                  {C_CODE, "op_name", NULL, NULL},
                                  {C_COUNT, "count", NULL, NULL},
                                  {C_FMT, "exclusive_duration", NULL, NULL},
                                  {C_FMT, "avg_duration", NULL, NULL}};
        rows(b, da, dev, NCOLS(dev), k);
    }
    const jval *sf = get(s, "semantic_families");
    buf_puts(b, "\n## Semantic Families\n\nFamilies group the top ops by name and framework "
                "path; FLOP proxies are shape-based estimates, not measured FLOPs.\n\n"
                "| Family | Count | Exclusive | Share | Avg Exclusive | FLOP Proxy Total | FLOP "
                "Proxy/s | Example Op |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
    static const col fam[] = {{C_TEXT, "family", NULL, NULL},
                              {C_COUNT, "count", NULL, NULL},
                              {C_FMT, "exclusive_duration", NULL, NULL},
                              {C_PCT, "share_of_total", NULL, NULL},
                              {C_FMT, "avg_exclusive_duration", NULL, NULL},
                              {C_SCI, "flop_proxy_total", NULL, NULL},
                              {C_INV_SCI, "time_per_flop_proxy", NULL, NULL},
                              {C_CODE, "example_op", NULL, NULL}};
    rows(b, sf, fam, NCOLS(fam), k);
    const jval *co = get(s, "communication_ops");
    buf_puts(b, "\n## Communication Collectives\n\n");
    if (!co || co->t != JV_ARR || !co->n)
        buf_puts(b, "No communication collectives.\n");
    else
        buf_puts(b, "| Collective | Count | Total | Avg |\n|---|---:|---:|---:|\n");
    static const col coll[] = {{C_TEXT, "collective", NULL, NULL},
                               {C_COUNT, "count", NULL, NULL},
                               {C_FMT, "total_duration", NULL, NULL},
                               {C_FMT, "avg_duration", NULL, NULL}};
    rows(b, co, coll, NCOLS(coll), k);
    const jval *gp = get(s, "gap_before_ops");
    buf_puts(b, "\n## Pre-Op Gaps\n\n");
    if (!gp || gp->t != JV_ARR || !gp->n)
        buf_puts(b, "No pre-op gaps.\n");
    else
        buf_puts(b, "| Payload Op | Marker Op | Count | Total | Max | Avg |\n"
                    "|---|---|---:|---:|---:|---:|\n");
    static const col gaps[] = {{C_CODE_OR_NAME, "payload_op", NULL, NULL},
                               {C_CODE, "marker_op", NULL, NULL},
                               {C_COUNT, "count", NULL, NULL},
                               {C_FMT, "total_gap_duration", NULL, NULL},
                               {C_FMT, "max_gap_duration", NULL, NULL},
                               {C_FMT, "avg_gap_duration", NULL, NULL}};
    rows(b, gp, gaps, NCOLS(gaps), k);
    gap_context_section(b, s, k);
    candidates_section(b, s);
}

pq_status pq_summary_report(const pq_summary *s, int top_k, pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    render(&b, s->doc, top_k);
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (st != PQ_OK)
        return err_set(err, st, "", -1, st == PQ_ERR_OUTPUT ? "write failed" : "out of memory");
    return PQ_OK;
}

pq_status pq_summary_report_view(const pq_summary *s, int top_k, const pq_summary_view *view,
                                 pq_sink *sink, pq_error *err)
{
    (void)view;
    return pq_summary_report(s, top_k, sink, err);
}
