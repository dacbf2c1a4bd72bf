/* report.c - the deterministic markdown root-cause report of a profile_summary.v1
 * (the seed's report.py, spec/seed-tools.md 1.23): `%.3f` numbers or `n/a`, shares as
 * percentages with two decimals, code cells with ` and | escaped, TOP_K rows per table. */
#include "core/buf.h"
#include "core/err.h"
#include "core/jval.h"
#include "profq.h"
#include "summary_doc.h"

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
    buf_puts(b, "\n\n## Trace Overview\n\n- Complete events: ");
    count(b, get(ov, "num_complete_events"));
    buf_puts(b, "\n- Total events: ");
    count(b, get(ov, "num_events_total"));
    buf_puts(b, "\n- Processes: ");
    count(b, get(ov, "num_processes"));
    buf_puts(b, "\n- Threads: ");
    count(b, get(ov, "num_threads"));
    const jval *tr = get(ov, "suspected_truncation");
    buf_printf(b, "\n- Suspected truncation: %s\n", tr && tr->t == JV_BOOL && tr->b ? "yes" : "no");
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
    buf_puts(b, "\n## Step Time (Steady State)\n\n- Count: ");
    count(b, get(ss, "count"));
    buf_puts(b, "\n- Median: ");
    fmt(b, get(ss, "median"));
    buf_puts(b, "\n- P90: ");
    fmt(b, get(ss, "p90"));
    buf_puts(b, "\n- Mean: ");
    fmt(b, get(ss, "mean"));
    buf_puts(b, "\n");
    const jval *cl = get(st, "classes");
    if (cl && cl->t == JV_ARR && cl->n) {
        buf_puts(b, "\n## Step Classes\n\n| Class | Count | Fraction | Median | P90 | "
                    "Representative Step | Periodicity |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < cl->n; i++) {
            const jval *c = cl->items[i];
            buf_puts(b, "| ");
            text(b, get(c, "name"), "");
            buf_puts(b, " | ");
            count(b, get(c, "count"));
            buf_puts(b, " | ");
            pct(b, get(c, "fraction_of_steady"));
            buf_puts(b, " | ");
            fmt(b, get(get(c, "duration_stats"), "median"));
            buf_puts(b, " | ");
            fmt(b, get(get(c, "duration_stats"), "p90"));
            buf_puts(b, " | ");
            text(b, get(c, "representative_step"), "n/a");
            buf_puts(b, " | ");
            text(b, get(c, "periodicity"), "n/a");
            buf_puts(b, " |\n");
        }
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
    const jval *ho = get(s, "hot_ops");
    buf_puts(b, "\n## Top Ops\n\n| Op | Canonical | Category | Count | Exclusive | Avg | Shape "
                "Signature | HLO/TF Path |\n|---|---|---|---:|---:|---:|---|---|\n");
    for (size_t i = 0; ho && ho->t == JV_ARR && i < ho->n && (int)i < k; i++) {
        const jval *h = ho->items[i];
        buf_puts(b, "| ");
        code(b, get(h, "name"));
        buf_puts(b, " | ");
        code(b, get(h, "canonical_name"));
        buf_puts(b, " | ");
        text(b, get(h, "category"), "n/a");
        buf_puts(b, " | ");
        count(b, get(h, "count"));
        buf_puts(b, " | ");
        fmt(b, get(h, "exclusive_duration"));
        buf_puts(b, " | ");
        fmt(b, get(h, "avg_duration"));
        buf_puts(b, " | ");
        code(b, get(h, "shape_signature"));
        buf_puts(b, " | ");
        code(b, get(h, "tf_op_path"));
        buf_puts(b, " |\n");
    }
    const jval *da = get(s, "device_op_region_aggregates");
    if (da && da->t == JV_ARR && da->n) {
        buf_puts(b, "\n## Device Ops by Semantic Region\n\n| Region | Op | Count | Exclusive | "
                    "Avg |\n|---|---|---:|---:|---:|\n");
        for (size_t i = 0; i < da->n && (int)i < k; i++) {
            const jval *r = da->items[i];
            buf_puts(b, "| ");
            code(b, get(r, "region_path"));
            buf_puts(b, " | ");
            code(b, get(r, "op_name"));
            buf_puts(b, " | ");
            count(b, get(r, "count"));
            buf_puts(b, " | ");
            fmt(b, get(r, "exclusive_duration"));
            buf_puts(b, " | ");
            fmt(b, get(r, "avg_duration"));
            buf_puts(b, " |\n");
        }
    }
    const jval *sf = get(s, "semantic_families");
    buf_puts(b, "\n## Semantic Families\n\nFamilies group the top ops by name and framework "
                "path; FLOP proxies are shape-based estimates, not measured FLOPs.\n\n"
                "| Family | Count | Exclusive | Share | Avg Exclusive | FLOP Proxy Total | FLOP "
                "Proxy/s | Example Op |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; sf && sf->t == JV_ARR && i < sf->n && (int)i < k; i++) {
        const jval *f = sf->items[i];
        buf_puts(b, "| ");
        text(b, get(f, "family"), "");
        buf_puts(b, " | ");
        count(b, get(f, "count"));
        buf_puts(b, " | ");
        fmt(b, get(f, "exclusive_duration"));
        buf_puts(b, " | ");
        pct(b, get(f, "share_of_total"));
        buf_puts(b, " | ");
        fmt(b, get(f, "avg_exclusive_duration"));
        buf_puts(b, " | ");
        int ok;
        double ft = jv_number(get(f, "flop_proxy_total"), &ok);
        if (ok)
            buf_printf(b, "%.3e", ft);
        else
            buf_puts(b, "n/a");
        buf_puts(b, " | ");
        double tpf = jv_number(get(f, "time_per_flop_proxy"), &ok);
        if (ok && tpf > 0)
            buf_printf(b, "%.3e", 1.0 / tpf);
        else
            buf_puts(b, "n/a");
        buf_puts(b, " | ");
        code(b, get(f, "example_op"));
        buf_puts(b, " |\n");
    }
    const jval *co = get(s, "communication_ops");
    buf_puts(b, "\n## Communication Collectives\n\n");
    if (!co || co->t != JV_ARR || !co->n)
        buf_puts(b, "No communication collectives.\n");
    else
        buf_puts(b, "| Collective | Count | Total | Avg |\n|---|---:|---:|---:|\n");
    for (size_t i = 0; co && co->t == JV_ARR && i < co->n && (int)i < k; i++) {
        const jval *c = co->items[i];
        buf_puts(b, "| ");
        text(b, get(c, "collective"), "");
        buf_puts(b, " | ");
        count(b, get(c, "count"));
        buf_puts(b, " | ");
        fmt(b, get(c, "total_duration"));
        buf_puts(b, " | ");
        fmt(b, get(c, "avg_duration"));
        buf_puts(b, " |\n");
    }
    const jval *gp = get(s, "gap_before_ops");
    buf_puts(b, "\n## Pre-Op Gaps\n\n");
    if (!gp || gp->t != JV_ARR || !gp->n)
        buf_puts(b, "No pre-op gaps.\n");
    else
        buf_puts(b, "| Payload Op | Marker Op | Count | Total | Max | Avg |\n"
                    "|---|---|---:|---:|---:|---:|\n");
    for (size_t i = 0; gp && gp->t == JV_ARR && i < gp->n && (int)i < k; i++) {
        const jval *g = gp->items[i];
        buf_puts(b, "| ");
        code(b, get(g, "payload_op") ? get(g, "payload_op") : get(g, "name"));
        buf_puts(b, " | ");
        code(b, get(g, "marker_op"));
        buf_puts(b, " | ");
        count(b, get(g, "count"));
        buf_puts(b, " | ");
        fmt(b, get(g, "total_gap_duration"));
        buf_puts(b, " | ");
        fmt(b, get(g, "max_gap_duration"));
        buf_puts(b, " | ");
        fmt(b, get(g, "avg_gap_duration"));
        buf_puts(b, " |\n");
    }
    /* Gap contexts regrouped by region (first-seen order of the sorted contexts). */
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
