/* summary_text.c - the summary family's text for people (issue 16 items 10, 11, 13): units
 * of the figures of summaries (times are microseconds there), aligned tables that fit 120
 * columns by shortening names in the middle, wrapped paragraphs, region paths, and track's
 * failed-threshold lines (render/summary_text.h). It formats result structs; it computes
 * nothing and reads no file. Not the layout of the compare/track/query text
 * (render/summary_outline.c), not the markdown report (render/report.c, which uses these
 * tables) and not the JSON (api/summary_docs.c). */
#include "render/summary_text.h"

#include "core/alloc.h"
#include "render/text.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int has(const char *key, const char *part)
{
    return strstr(key, part) != NULL;
}

su_unit su_unit_of(const char *key)
{
    if (has(key, "share") || has(key, "fraction"))
        return SU_SHARE;
    if (has(key, "_pct"))
        return SU_PCT;
    if (has(key, "flop") || has(key, "_ratio") || has(key, "periodicity"))
        return has(key, "flop") ? SU_SCI : SU_PLAIN;
    if (has(key, "count") || !strcmp(key, "depth") || has(key, "step") || has(key, "rank"))
        return SU_COUNT;
    static const char *const times[] = {"duration", "median", "p90",   "mean", "gap", "before",
                                        "after",    "delta",  "total", "avg",  "max", "min"};
    for (size_t i = 0; i < sizeof times / sizeof *times; i++)
        if (has(key, times[i]))
            return SU_TIME;
    return SU_PLAIN;
}

void su_time(buf *b, double us)
{
    char t[32];
    buf_puts(b, us == 0 ? "0 \xC2\xB5s" : text_time(t, us * 1e6));
}

/* D (a number) in unit U. */
static void figure(buf *b, double d, su_unit u)
{
    switch (u) {
    case SU_TIME:
        su_time(b, d);
        break;
    case SU_SHARE:
        buf_printf(b, "%.2f%%", d * 100);
        break;
    case SU_PCT:
        buf_printf(b, "%.2f%%", d);
        break;
    case SU_COUNT:
        buf_printf(b, "%.0f", d);
        break;
    case SU_SCI:
        buf_printf(b, "%.3e", d);
        break;
    case SU_PLAIN:
        buf_printf(b, "%.3f", d);
        break;
    }
}

void su_figure(buf *b, double d, su_unit u)
{
    if (!isfinite(d))
        buf_puts(b, "n/a");
    else
        figure(b, d, u);
}

/* ---- tables ------------------------------------------------------------------------------ */

void su_table_init(su_table *t, const su_col *cols, size_t ncols, int md)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->ncols = ncols;
    t->md = md;
}

void su_table_add(su_table *t, const char *s, size_t n, int raw)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        su_cell *c = pq_realloc_array(t->cells, cap, sizeof *c);
        if (!c) {
            t->nomem = 1;
            return;
        }
        t->cells = c;
        t->cap = cap;
    }
    char *copy = pq_malloc(n + 1);
    if (!copy) {
        t->nomem = 1;
        return;
    }
    memcpy(copy, s, n);
    copy[n] = '\0';
    t->cells[t->n].s = copy;
    t->cells[t->n].raw = raw;
    t->n++;
}

void su_table_add_buf(su_table *t, buf *b, int raw)
{
    su_table_add(t, b->p ? b->p : "", b->p ? b->n : 0, raw);
    b->n = 0;
}

void su_table_free(su_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        pq_free(t->cells[i].s);
    pq_free(t->cells);
    memset(t, 0, sizeof *t);
}

/* A markdown code cell's text: newlines flattened, ` and | escaped. */
static void escape(buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '`' || *s == '|')
            buf_putc(b, '\\');
        buf_putc(b, *s == '\n' ? ' ' : *s);
    }
}

static int is_code(const su_table *t, size_t j, const su_cell *c)
{
    return t->md && t->cols[j].code && !c->raw;
}

/* Columns of cell C of column J as printed whole. */
static size_t cell_cols(const su_table *t, size_t j, const su_cell *c)
{
    if (!is_code(t, j, c))
        return text_cols(c->s, strlen(c->s));
    buf e;
    buf_init(&e, NULL);
    escape(&e, c->s);
    size_t w = (e.p ? text_cols(e.p, e.n) : 0) + 2;
    buf_release(&e);
    return w;
}

/* Cell C of column J in W columns (shortened in the middle when longer), padded when PAD. */
static void put_cell(buf *b, const su_table *t, size_t j, const su_cell *c, size_t w, int pad)
{
    size_t have = cell_cols(t, j, c);
    if (t->cols[j].right && pad)
        for (size_t k = have < w ? have : w; k < w; k++)
            buf_putc(b, ' ');
    if (is_code(t, j, c)) {
        buf e;
        buf_init(&e, NULL);
        escape(&e, c->s);
        buf_putc(b, '`');
        text_fit(b, e.p ? e.p : "", e.p ? e.n : 0, have > w ? w - 2 : 0, 0);
        buf_putc(b, '`');
        buf_release(&e);
    } else {
        text_fit(b, c->s, strlen(c->s), have > w ? w : 0, 0);
    }
    if (!t->cols[j].right && pad)
        for (size_t k = have < w ? have : w; k < w; k++)
            buf_putc(b, ' ');
}

static void put_row(buf *b, const su_table *t, const su_cell *row, const size_t *w,
                    const char *indent)
{
    buf_puts(b, indent);
    for (size_t j = 0; j < t->ncols; j++) {
        int last = j + 1 == t->ncols;
        if (t->md)
            buf_puts(b, j ? " | " : "| ");
        else if (j)
            buf_puts(b, "  ");
        put_cell(b, t, j, &row[j], w[j], t->md || !last || t->cols[j].right);
    }
    buf_puts(b, t->md ? " |\n" : "\n");
}

int su_table_emit(buf *b, const su_table *t, size_t width, const char *indent)
{
    size_t nc = t->ncols, nrows = nc ? t->n / nc : 0;
    size_t w[32], total = text_cols(indent, strlen(indent));
    if (nc == 0 || nc > 32)
        return -1;
    su_cell *heads = pq_calloc(nc, sizeof *heads);
    if (!heads)
        return -1;
    for (size_t j = 0; j < nc; j++) {
        heads[j].s = (char *)t->cols[j].head;
        heads[j].raw = 1;
        w[j] = text_cols(heads[j].s, strlen(heads[j].s));
        for (size_t i = 0; i < nrows; i++) {
            size_t c = cell_cols(t, j, &t->cells[i * nc + j]);
            if (c > w[j])
                w[j] = c;
        }
        total += w[j];
    }
    total += t->md ? 3 * nc + 1 : 2 * (nc - 1);
    /* Shorten the widest shrinkable column one column at a time until the table fits. */
    while (width && total > width) {
        size_t best = nc;
        for (size_t j = 0; j < nc; j++) {
            size_t floor = text_cols(t->cols[j].head, strlen(t->cols[j].head));
            floor = floor < 12 ? 12 : floor;
            if (t->cols[j].shrink && w[j] > floor && (best == nc || w[j] > w[best]))
                best = j;
        }
        if (best == nc) {
            pq_free(heads);
            return -1;
        }
        w[best]--;
        total--;
    }
    put_row(b, t, heads, w, indent);
    if (t->md) {
        buf_puts(b, indent);
        for (size_t j = 0; j < nc; j++) {
            buf_putc(b, '|');
            for (size_t k = 0; k < w[j] + 1; k++)
                buf_putc(b, '-');
            buf_putc(b, t->cols[j].right ? ':' : '-');
        }
        buf_puts(b, "|\n");
    }
    for (size_t i = 0; i < nrows; i++)
        put_row(b, t, &t->cells[i * nc], w, indent);
    pq_free(heads);
    return 0;
}

/* ---- paragraphs -------------------------------------------------------------------------- */

void su_wrap(buf *b, const char *s, size_t width, const char *first, const char *rest)
{
    size_t fc = text_cols(first, strlen(first)), rc = text_cols(rest, strlen(rest));
    size_t col = fc, start = fc;
    buf_puts(b, first);
    while (*s == ' ')
        s++;
    while (*s) {
        size_t n = strcspn(s, " \n"), c = text_cols(s, n);
        if (width && col > start && col + 1 + c > width) {
            buf_putc(b, '\n');
            buf_puts(b, rest);
            col = start = rc;
        } else if (col > start) {
            buf_putc(b, ' ');
            col++;
        }
        size_t room = width > col ? width - col : 0;
        text_fit(b, s, n, width && c > room ? (room < 12 ? 12 : room) : 0, 0);
        col += width && c > room ? (room < 12 ? 12 : room) : c;
        s += n;
        while (*s == ' ' || *s == '\n')
            s++;
    }
    buf_putc(b, '\n');
}

/* ---- region paths ------------------------------------------------------------------------ */

/* NAME split on "::" with each part trimmed of spaces and ':' (the seed's region parts of
 * a name, spec/seed-tools.md 1.14) and joined with "=>": is PATH that, or a prefix of it by
 * parts? */
static int name_has_path(const char *name, const char *path)
{
    size_t pl = strlen(path), o = 0;
    const char *p = name;
    while (*p) {
        const char *e = strstr(p, "::");
        const char *end = e ? e : p + strlen(p);
        const char *s = p;
        while (s < end && (*s == ' ' || *s == ':'))
            s++;
        while (end > s && (end[-1] == ' ' || end[-1] == ':'))
            end--;
        size_t n = (size_t)(end - s);
        if (n) {
            if (o) {
                if (o + 2 > pl || strncmp(path + o, "=>", 2) != 0)
                    return 0;
                o += 2;
            }
            if (o + n > pl || strncmp(path + o, s, n) != 0)
                return 0;
            o += n;
            if (o == pl)
                return 1;
        }
        if (!e)
            break;
        p = e + 2;
    }
    return 0;
}

/* Does an op name of the summary, split on "::", give PATH? (The seed splits a name without
 * "=>" on "::" into region parts; the summary keeps its paths so, and the report shows
 * such a path with "::" again: `void at::native`, not `void at=>native`.) */
static int op_gives_path(const char *n, const char *path)
{
    return n && strstr(n, "::") && !strstr(n, "=>") && name_has_path(n, path);
}

static int cxx_path(const pq_summary_result *s, const char *path)
{
    if (!strstr(path, "=>"))
        return 0;
#define OPS(list, T, member)                                                                       \
    {                                                                                              \
        s ? s->list : NULL, s ? s->n##list : 0, sizeof(T), offsetof(T, member)                     \
    }
    const struct {
        const void *rows;
        size_t n, size, off;
    } where[] = {OPS(hot_ops, pq_sm_hot_op, name),
                 OPS(device_op_region_aggregates, pq_sm_op_region, op_name),
                 OPS(gap_region_contexts, pq_sm_gap_context, op_name),
                 OPS(gap_before_ops, pq_sm_gap, name),
                 OPS(semantic_families, pq_sm_family, example_op)};
#undef OPS
    for (size_t w = 0; w < sizeof where / sizeof *where; w++)
        for (size_t i = 0; i < where[w].n; i++) {
            const char *row = (const char *)where[w].rows + i * where[w].size;
            if (op_gives_path(*(const char *const *)(row + where[w].off), path))
                return 1;
        }
    /* A part with a C++ signature's characters, or a C++ namespace first: a name too. */
    for (const char *p = path; *p; p++) {
        if (p[0] == '=' && p[1] == '>')
            p++;
        else if (strchr(" <>(),*&", *p))
            return 1;
    }
    static const char *const ns[] = {"aten", "c10", "c10d", "at", "torch", "std"};
    size_t first = strcspn(path, "=");
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        if (strlen(ns[i]) == first && strncmp(path, ns[i], first) == 0)
            return 1;
    return 0;
}

/* A region path as people read it (see cxx_path). */
void su_region(buf *b, const pq_summary_result *s, const char *path)
{
    if (!cxx_path(s, path)) {
        buf_puts(b, path);
        return;
    }
    for (const char *p = path; *p; p++) {
        if (p[0] == '=' && p[1] == '>') {
            buf_puts(b, "::");
            p++;
        } else {
            buf_putc(b, *p);
        }
    }
}

/* One line per threshold the gate failed on (the assessment's rule: a steady-state median
 * or p90 regression past its threshold): metric, value, threshold, baseline and after. */
void su_track_gate(buf *b, const pq_track_assessment *as, double max_median_pct, double max_p90_pct)
{
    static const struct {
        const char *metric, *what;
    } g[] = {{"steady_state_median_regression_pct", "steady-state median step time"},
             {"steady_state_p90_regression_pct", "steady-state p90 step time"}};
    const pq_summary_comparison *c = as->comparison;
    for (size_t i = 0; i < 2; i++) {
        double v = i ? as->p90_regression_pct : as->median_regression_pct;
        double max = i ? max_p90_pct : max_median_pct;
        if (!isfinite(v) || !(v > max))
            continue;
        buf_printf(b, "track: fail: %s (%s) regressed %+.2f%%, threshold %.2f%%; baseline ",
                   g[i].what, g[i].metric, v, max);
        su_figure(b, c ? c->steady_before[i] : NAN, SU_TIME);
        buf_puts(b, ", after ");
        su_figure(b, c ? c->steady_after[i] : NAN, SU_TIME);
        buf_putc(b, '\n');
    }
}
