/* report.c - the deterministic markdown root-cause report of a profile_summary.v1
 * (the seed's report.py, spec/seed-tools.md 1.23), for people (issue 16 items 10, 11):
 * times with their units (the summary's microseconds as µs/ms/s) or `n/a`, shares as
 * percentages with two decimals, code cells with ` and | escaped, TOP_K rows per table,
 * aligned tables and wrapped prose within 120 columns (long names shortened in the middle
 * with "…"; whole with the view's wide), region paths split from C++ names shown with their
 * "::" again. It formats the summary's result structs (pq_summary_result, computed or read
 * back from a saved document). */
#include "core/buf.h"
#include "core/err.h"
#include "profq.h"
#include "render/summary_doc.h"
#include "render/summary_fields.h"
#include "render/summary_outline.h"
#include "render/summary_text.h"
#include "render/text.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number of V, or NaN. */
static double number(su_val v)
{
    return v.t == SU_V_INT ? (double)v.i : v.t == SU_V_NUM ? v.d : NAN;
}

/* The member of ROW (laid out as D says) that the document writes under KEY. */
static su_val field(const void *row, const sm_row_desc *d, const char *key)
{
    for (size_t j = 0; key && j < d->nfields; j++)
        if (strcmp(d->fields[j].key, key) == 0)
            return su_vfield(row, &d->fields[j]);
    return su_vstr(NULL);
}

/* A time of the summary (microseconds) with its unit, or n/a. */
static void fmt(buf *b, su_val v)
{
    su_figure(b, number(v), SU_TIME);
}

static void pct(buf *b, su_val v)
{
    su_figure(b, number(v), SU_SHARE);
}

static void text(buf *b, su_val v, const char *dflt)
{
    if (v.t == SU_V_STR)
        buf_puts(b, v.s);
    else if (v.t == SU_V_INT)
        buf_printf(b, "%lld", (long long)v.i);
    else
        buf_puts(b, dflt);
}

static void count(buf *b, su_val v)
{
    su_figure(b, number(v), SU_COUNT);
}

/* The report's state: where it writes, rows per table, the width of its lines (0: whole
 * names) and the summary (whose op names tell which region paths were C++ names). */
typedef struct rep {
    buf *b;
    int k;
    size_t width;
    const pq_summary_result *s;
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
    const char *key;   /* the row's member the document writes under KEY */
    const char *label; /* lists: the label; tables: the head */
} col;

/* The text of cell C of ROW (laid out as D says; code cells without their backticks); 1
 * when it is "n/a" standing for an absent code value (printed as is). */
static int cell(buf *b, const rep *r, const void *row, const sm_row_desc *d, const col *c)
{
    su_val v = field(row, d, c->key);
    double x = number(v);
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
        if (c->kind == C_CODE_OR_NAME && v.t == SU_V_NULL)
            v = field(row, d, "name");
        if (v.t != SU_V_STR) {
            buf_puts(b, "n/a");
            return 1;
        }
        if (c->kind == C_REGION)
            su_region(b, r->s, v.s);
        else
            buf_puts(b, v.s);
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
        if (v.t != SU_V_NULL && c->kind == C_INV_SCI && x > 0)
            buf_printf(b, "%.3e", 1.0 / x);
        else if (v.t != SU_V_NULL && c->kind == C_SCI)
            buf_printf(b, "%.3e", x);
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

/* One markdown table of the first N rows of ROWS (laid out as D says), K rows at most. */
static void rows(const rep *r, const void *rows, size_t n, const sm_row_desc *d, const col *cols,
                 size_t ncols, int k)
{
    su_col h[16];
    heads(h, cols, ncols);
    su_table t;
    su_table_init(&t, h, ncols, 1);
    buf c;
    buf_init(&c, NULL);
    for (size_t i = 0; i < n && (int)i < k; i++)
        for (size_t j = 0; j < ncols; j++) {
            const void *row = (const char *)rows + i * d->size;
            int raw = cols[j].kind == C_INDEX ? 1 : cell(&c, r, row, d, &cols[j]);
            if (cols[j].kind == C_INDEX)
                buf_printf(&c, "%zu", i + 1);
            su_table_add_buf(&t, &c, raw);
        }
    buf_release(&c);
    emit(r, &t);
}

/* "- <label>: <value>" lines of the members of ROW (laid out as D says). */
static void list(const rep *r, const void *row, const sm_row_desc *d, const col *cols, size_t ncols)
{
    for (size_t j = 0; j < ncols; j++) {
        buf_printf(r->b, "- %s: ", cols[j].label);
        cell(r->b, r, row, d, &cols[j]);
        buf_putc(r->b, '\n');
    }
}

/* A paragraph or list item of prose V, wrapped to the report's width. */
static void prose(const rep *r, const char *v, const char *first, const char *rest)
{
    buf t;
    buf_init(&t, NULL);
    buf_puts(&t, v ? v : "");
    buf_putc(&t, '\0');
    su_wrap(r->b, t.p ? t.p : "", r->width, first, rest);
    buf_release(&t);
}

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* ## Hierarchical Regions: the first K regions with their share of their root. */
static void regions_section(const rep *r, const pq_summary_result *s, int k)
{
    const pq_sm_region *rg = s->hierarchical_regions;
    size_t n = s->nhierarchical_regions;
    buf_puts(r->b, "\n## Hierarchical Regions\n\n");
    if (!n) {
        buf_puts(r->b, "No hierarchical regions.\n");
        return;
    }
    double max_root = 0;
    for (size_t i = 0; i < n; i++)
        if (rg[i].depth == 1 && isfinite(rg[i].inclusive_duration) &&
            rg[i].inclusive_duration > max_root)
            max_root = rg[i].inclusive_duration;
    static const su_col h[] = {{"Region Path", 0, 1, 1}, {"Depth", 1, 0, 0},
                               {"Count", 1, 0, 0},       {"Inclusive", 1, 0, 0},
                               {"Inclusive %", 1, 0, 0}, {"Exclusive", 1, 0, 0},
                               {"Exclusive %", 1, 0, 0}};
    su_table t;
    su_table_init(&t, h, NCOLS(h), 1);
    buf c;
    buf_init(&c, NULL);
    for (size_t i = 0; i < n && (int)i < k; i++) {
        const pq_sm_region *g = &rg[i];
        const char *path = g->path;
        double root = max_root;
        if (path) {
            const char *sep = strstr(path, "=>");
            size_t rl = sep ? (size_t)(sep - path) : strlen(path);
            for (size_t j = 0; j < n; j++) {
                const char *p2 = rg[j].path;
                if (p2 && isfinite(rg[j].inclusive_duration) && strlen(p2) == rl &&
                    strncmp(p2, path, rl) == 0)
                    root = rg[j].inclusive_duration;
            }
            su_region(&c, r->s, path);
        } else {
            buf_puts(&c, "n/a");
        }
        su_table_add_buf(&t, &c, !path);
        int ok1 = isfinite(g->inclusive_duration), ok2 = isfinite(g->exclusive_duration);
        count(&c, su_vint(g->depth));
        su_table_add_buf(&t, &c, 1);
        count(&c, su_vint((int64_t)g->count));
        su_table_add_buf(&t, &c, 1);
        fmt(&c, su_vnum(g->inclusive_duration));
        su_table_add_buf(&t, &c, 1);
        buf_printf(&c, "%.2f%%", root > 0 && ok1 ? g->inclusive_duration / root * 100 : 0.0);
        su_table_add_buf(&t, &c, 1);
        fmt(&c, su_vnum(g->exclusive_duration));
        su_table_add_buf(&t, &c, 1);
        buf_printf(&c, "%.2f%%", root > 0 && ok2 ? g->exclusive_duration / root * 100 : 0.0);
        su_table_add_buf(&t, &c, 1);
    }
    buf_release(&c);
    emit(r, &t);
}

/* X, or 0 for the document's null. */
static double or0(double x)
{
    return isfinite(x) ? x : 0.0;
}

/* ## Gap Context (Region-First): gap contexts regrouped by region (first-seen order of the
 * sorted contexts), the first K regions. */
static void gap_context_section(const rep *r, const pq_summary_result *s, int k)
{
    const pq_sm_gap_context *gc = s->gap_region_contexts;
    size_t n = s->ngap_region_contexts;
    buf_puts(r->b, "\n## Gap Context (Region-First)\n\n");
    if (!n) {
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
    for (size_t i = 0; i < n && shown < k; i++) {
        const char *reg = gc[i].region_path;
        if (!reg)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = gc[j].region_path && strcmp(gc[j].region_path, reg) == 0;
        if (seen)
            continue;
        double cnt = 0, tot = 0;
        int nops = 0;
        buf tops;
        buf_init(&tops, NULL);
        for (size_t j = i; j < n; j++) {
            const char *r2 = gc[j].region_path, *op = gc[j].op_name;
            if (!r2 || strcmp(r2, reg) != 0)
                continue;
            cnt += (double)(int64_t)gc[j].count;
            tot += or0(gc[j].total_gap_duration);
            if (nops < 3) {
                buf_printf(&tops, "%s%s", nops ? ", " : "", op ? op : "n/a");
                nops++;
            }
        }
        su_region(&c, r->s, reg);
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
static void evidence(const rep *r, const char *s)
{
    const char *sep = s ? strrchr(s, ':') : NULL;
    char *end = NULL;
    double d = sep && sep[1] == ' ' ? strtod(sep + 2, &end) : 0;
    size_t ln = sep ? (size_t)(sep - s) : 0;
    int time = end && end != sep + 2 && !*end && ln >= 3 &&
               (!strncmp(sep - 3, "gap", 3) || (ln >= 6 && !strncmp(sep - 6, "median", 6)));
    if (!time) {
        prose(r, s, "- ", "  ");
        return;
    }
    buf_printf(r->b, "- %.*s: ", (int)ln, s);
    su_time(r->b, d);
    buf_putc(r->b, '\n');
}

/* ## Optimization Candidates: title, rationale, evidence and suggestions of each. */
static void candidates_section(const rep *r, const pq_summary_result *s)
{
    buf *b = r->b;
    buf_puts(b, "\n## Optimization Candidates\n");
    for (size_t i = 0; i < s->noptimization_candidates; i++) {
        const pq_sm_candidate *c = &s->optimization_candidates[i];
        buf_putc(b, '\n');
        prose(r, c->title, "### ", "");
        buf_putc(b, '\n');
        prose(r, c->rationale, "", "");
        buf_puts(b, "\nEvidence:\n");
        for (size_t j = 0; j < c->nevidence; j++)
            evidence(r, c->evidence[j]);
        buf_puts(b, "\nSuggestions:\n");
        for (size_t j = 0; c->suggestions && c->suggestions[j]; j++)
            prose(r, c->suggestions[j], "- ", "  ");
    }
}

/* Run metadata, provenance, overview and the steady-state step time. */
static void head_sections(const rep *r, const pq_summary_result *s)
{
    buf *b = r->b;
    const pq_sm_overview *ov = &s->trace_overview;
    const pq_sm_provenance *pv = &s->trace_provenance;
    buf_puts(b, "# Profile Report (profile_summary.v1)\n\n## Run Metadata\n\n");
    /* hardware_type, mesh_or_topology and git_sha are always null in a summary */
    const struct {
        const char *label, *value;
    } meta[] = {{"Run", s->run_metadata.run_path},
                {"Artifact", s->run_metadata.artifact_ref},
                {"Hardware", NULL},
                {"Topology", NULL},
                {"Git SHA", NULL}};
    buf line;
    buf_init(&line, NULL);
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
        buf_printf(&line, "- %s: ", meta[i].label);
        text(&line, su_vstr(meta[i].value), "unknown");
        buf_putc(&line, '\0');
        text_fit(b, line.p, line.n - 1, r->width, 0);
        buf_putc(b, '\n');
        line.n = 0;
    }
    buf_release(&line);
    buf_puts(b, "- Generated At (UTC): ");
    text(b, su_vstr(s->generated_at_utc), "unknown");
    buf_puts(b, "\n\n## Trace Provenance\n\n- SHA256: ");
    text(b, su_vstr(pv->trace_sha256), "unknown");
    buf_puts(b, "\n- Run IDs: ");
    if (pv->nrun_ids == 0)
        buf_puts(b, "none");
    for (size_t i = 0; i < pv->nrun_ids && i < 8; i++) {
        if (i)
            buf_puts(b, ", ");
        text(b, su_vstr(pv->run_ids[i]), "");
    }
    buf_puts(b, "\n\n## Trace Overview\n\n");
    const struct {
        const char *label;
        uint64_t n;
    } overview[] = {{"Complete events", ov->num_complete_events},
                    {"Total events", ov->num_events_total},
                    {"Processes", ov->num_processes},
                    {"Threads", ov->num_threads}};
    for (size_t i = 0; i < sizeof overview / sizeof *overview; i++) {
        buf_printf(b, "- %s: ", overview[i].label);
        count(b, su_vint((int64_t)overview[i].n));
        buf_putc(b, '\n');
    }
    buf_printf(b, "- Suspected truncation: %s\n", ov->suspected_truncation ? "yes" : "no");
    if (ov->nquality_warnings) {
        buf_puts(b, "- Quality warnings:\n");
        for (size_t i = 0; i < ov->nquality_warnings; i++)
            prose(r, ov->quality_warnings[i], "  - ", "    ");
    }
    buf_puts(b, "\n## Step Time (Steady State)\n\n");
    static const col steady[] = {{C_COUNT, "count", "Count"},
                                 {C_FMT, "median", "Median"},
                                 {C_FMT, "p90", "P90"},
                                 {C_FMT, "mean", "Mean"}};
    list(r, &s->step_time.steady_state_steps, &SM_STATS_ROW, steady, NCOLS(steady));
}

/* ## Step Classes: each class of steady-state steps. */
static void classes_section(const rep *r, const pq_sm_step_time *st)
{
    static const su_col h[] = {{"Class", 0, 1, 0},      {"Count", 1, 0, 0},
                               {"Fraction", 1, 0, 0},   {"Median", 1, 0, 0},
                               {"P90", 1, 0, 0},        {"Representative Step", 1, 0, 0},
                               {"Periodicity", 0, 0, 0}};
    buf_puts(r->b, "\n## Step Classes\n\n");
    su_table t;
    su_table_init(&t, h, NCOLS(h), 1);
    buf c;
    buf_init(&c, NULL);
    for (size_t i = 0; i < st->nclasses; i++) {
        const pq_sm_step_class *x = &st->classes[i];
        text(&c, su_vstr(x->name), "");
        su_table_add_buf(&t, &c, 0);
        count(&c, su_vint((int64_t)x->count));
        su_table_add_buf(&t, &c, 0);
        pct(&c, su_vnum(x->fraction_of_steady));
        su_table_add_buf(&t, &c, 0);
        fmt(&c, su_vnum(x->duration_stats.median));
        su_table_add_buf(&t, &c, 0);
        fmt(&c, su_vnum(x->duration_stats.p90));
        su_table_add_buf(&t, &c, 0);
        count(&c, su_vint(x->representative_step));
        su_table_add_buf(&t, &c, 0);
        text(&c, x->periodicity ? su_vint(x->periodicity) : su_vstr(NULL), "n/a");
        su_table_add_buf(&t, &c, 0);
    }
    buf_release(&c);
    emit(r, &t);
}

/* ## Time Breakdown: the five categories' time and share. */
static void breakdown_section(const rep *r, const pq_sm_breakdown *tb)
{
    static const su_col h[] = {{"Category", 0, 1, 0}, {"Duration", 1, 0, 0}, {"Share", 1, 0, 0}};
    buf_puts(r->b, "\n## Time Breakdown (`");
    text(r->b, su_vstr(tb->duration_basis), "unknown");
    buf_puts(r->b, "`)\n\n");
    su_table t;
    su_table_init(&t, h, NCOLS(h), 1);
    buf c;
    buf_init(&c, NULL);
    for (int i = 0; i < PQ_SM_NCATEGORIES; i++) {
        su_table_add(&t, SM_CATEGORY_KEYS[i], strlen(SM_CATEGORY_KEYS[i]), 0);
        fmt(&c, su_vnum(tb->category_total[i]));
        su_table_add_buf(&t, &c, 0);
        pct(&c, su_vnum(tb->category_share[i]));
        su_table_add_buf(&t, &c, 0);
    }
    buf_release(&c);
    emit(r, &t);
}

static void render(const rep *r, const pq_summary_result *s, int k)
{
    buf *b = r->b;
    head_sections(r, s);
    if (s->step_time.nclasses)
        classes_section(r, &s->step_time);
    breakdown_section(r, &s->time_breakdown);
    regions_section(r, s, k);
    buf_puts(b, "\n## Top Ops\n\n");
    static const col hot[] = {{C_CODE, "name", "Op"},
                              {C_CODE, "canonical_name", "Canonical"},
                              {C_TEXT_NA, "category", "Category"},
                              {C_COUNT, "count", "Count"},
                              {C_FMT, "exclusive_duration", "Exclusive"},
                              {C_FMT, "avg_duration", "Avg"},
                              {C_CODE, "shape_signature", "Shape Signature"},
                              {C_CODE, "tf_op_path", "HLO/TF Path"}};
    /* In 120 columns, the op's figures first and its other names in a second table. */
    static const col hot1[] = {{C_INDEX, NULL, "#"},
                               {C_CODE, "name", "Op"},
                               {C_TEXT_NA, "category", "Category"},
                               {C_COUNT, "count", "Count"},
                               {C_FMT, "exclusive_duration", "Exclusive"},
                               {C_FMT, "avg_duration", "Avg"}};
    static const col hot2[] = {{C_INDEX, NULL, "#"},
                               {C_CODE, "canonical_name", "Canonical"},
                               {C_CODE, "shape_signature", "Shape Signature"},
                               {C_CODE, "tf_op_path", "HLO/TF Path"}};
    if (!r->width) {
        rows(r, s->hot_ops, s->nhot_ops, &SM_HOT_OP_ROW, hot, NCOLS(hot), k);
    } else {
        rows(r, s->hot_ops, s->nhot_ops, &SM_HOT_OP_ROW, hot1, NCOLS(hot1), k);
        buf_putc(b, '\n');
        rows(r, s->hot_ops, s->nhot_ops, &SM_HOT_OP_ROW, hot2, NCOLS(hot2), k);
    }
    if (s->ndevice_op_region_aggregates) {
        buf_puts(b, "\n## Device Ops by Semantic Region\n\n");
        static const col dev[] = {{C_REGION, "region_path", "Region"},
                                  {C_CODE, "op_name", "Op"},
                                  {C_COUNT, "count", "Count"},
                                  {C_FMT, "exclusive_duration", "Exclusive"},
                                  {C_FMT, "avg_duration", "Avg"}};
        rows(r, s->device_op_region_aggregates, s->ndevice_op_region_aggregates, &SM_OP_REGION_ROW,
             dev, NCOLS(dev), k);
    }
    buf_puts(b, "\n## Semantic Families\n\n");
    su_wrap(b,
            "Families group the top ops by name and framework path; FLOP proxies are "
            "shape-based estimates, not measured FLOPs.",
            r->width, "", "");
    buf_putc(b, '\n');
    static const col fam[] = {{C_TEXT, "family", "Family"},
                              {C_COUNT, "count", "Count"},
                              {C_FMT, "exclusive_duration", "Exclusive"},
                              {C_PCT, "share_of_total", "Share"},
                              {C_FMT, "avg_exclusive_duration", "Avg Exclusive"},
                              {C_SCI, "flop_proxy_total", "FLOP Proxy Total"},
                              {C_INV_SCI, "time_per_flop_proxy", "FLOP Proxy/s"},
                              {C_CODE, "example_op", "Example Op"}};
    rows(r, s->semantic_families, s->nsemantic_families, &SM_FAMILY_ROW, fam, NCOLS(fam), k);
    buf_puts(b, "\n## Communication Collectives\n\n");
    static const col coll[] = {{C_TEXT, "collective", "Collective"},
                               {C_COUNT, "count", "Count"},
                               {C_FMT, "total_duration", "Total"},
                               {C_FMT, "avg_duration", "Avg"}};
    if (!s->ncommunication_ops)
        buf_puts(b, "No communication collectives.\n");
    else
        rows(r, s->communication_ops, s->ncommunication_ops, &SM_COLLECTIVE_ROW, coll, NCOLS(coll),
             k);
    buf_puts(b, "\n## Pre-Op Gaps\n\n");
    static const col gaps[] = {{C_CODE_OR_NAME, "payload_op", "Payload Op"},
                               {C_CODE, "marker_op", "Marker Op"},
                               {C_COUNT, "count", "Count"},
                               {C_FMT, "total_gap_duration", "Total"},
                               {C_FMT, "max_gap_duration", "Max"},
                               {C_FMT, "avg_gap_duration", "Avg"}};
    if (!s->ngap_before_ops)
        buf_puts(b, "No pre-op gaps.\n");
    else
        rows(r, s->gap_before_ops, s->ngap_before_ops, &SM_GAP_ROW, gaps, NCOLS(gaps), k);
    gap_context_section(r, s, k);
    candidates_section(r, s);
}

pq_status pq_summary_report_view(const pq_summary *s, int top_k, const pq_summary_view *view,
                                 pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    rep r = {&b, top_k, view && view->wide ? 0 : TEXT_COLS, s->r};
    render(&r, s->r, top_k);
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
