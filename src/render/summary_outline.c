/* summary_outline.c - the layout of the compare, track and query text (render/
 * summary_outline.h): "key: value" lines with the unit the key names (times are
 * microseconds in a summary), blocks indented two spaces a level, lists of strings, and rows
 * as aligned tables within the width (names shortened in the middle) or, when a table does
 * not fit, as "- #i" blocks. Its callers pass the members of result structs; it computes
 * nothing and reads no file. Not the tables themselves (render/summary_text.c). */
#include "render/summary_outline.h"

#include "render/text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

su_val su_vstr(const char *s)
{
    return (su_val){s ? SU_V_STR : SU_V_NULL, s, 0, 0};
}

su_val su_vint(int64_t i)
{
    return (su_val){SU_V_INT, NULL, i, 0};
}

su_val su_vnum(double d)
{
    return (su_val){isfinite(d) ? SU_V_NUM : SU_V_NULL, NULL, 0, d};
}

su_val su_vfield(const void *row, const sm_field *f)
{
    const void *at = (const char *)row + f->off;
    switch (f->kind) {
    case SM_F_STR:
        return su_vstr(*(const char *const *)at);
    case SM_F_U64:
        return su_vint((int64_t) * (const uint64_t *)at);
    case SM_F_I64:
        return su_vint(*(const int64_t *)at);
    case SM_F_NUM:
        return su_vnum(*(const double *)at);
    }
    return su_vstr(NULL);
}

void su_outline_init(su_outline *o, buf *b, int wide)
{
    o->b = b;
    o->width = wide ? 0 : TEXT_COLS;
}

/* V of KEY as text with its unit (INHERIT when KEY names none: the shares of
 * time_breakdown_share_delta), NUL-terminated for su_wrap (the NUL not counted). */
static void scalar_text(buf *b, const char *key, su_val v, su_unit inherit)
{
    su_unit u = su_unit_of(key) != SU_PLAIN ? su_unit_of(key) : inherit;
    if (v.t == SU_V_NULL)
        buf_puts(b, "n/a");
    else if (v.t == SU_V_STR && (!strcmp(key, "path") || !strcmp(key, "region_path")))
        su_region(b, NULL, v.s);
    else if (v.t == SU_V_STR)
        buf_puts(b, v.s);
    else if (v.t == SU_V_INT && u == SU_PLAIN)
        buf_printf(b, "%lld", (long long)v.i);
    else
        su_figure(b, v.t == SU_V_INT ? (double)v.i : v.d, u);
    buf_putc(b, '\0');
    b->n--;
}

/* Keys whose strings are prose (wrapped at spaces); other strings are names (shortened). */
static int prose(const char *key)
{
    static const char *const k[] = {"details",     "rationale", "title",    "evidence",
                                    "suggestions", "messages",  "failures", "warnings"};
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        if (!strcmp(key, k[i]))
            return 1;
    return 0;
}

/* DEPTH levels of indent (two spaces each) into IND, with room for two more spaces;
 * returns its length. */
static size_t indent(char ind[64], size_t depth)
{
    size_t d = depth * 2 < 64 - 3 ? depth * 2 : 64 - 3;
    memset(ind, ' ', d);
    ind[d] = '\0';
    return d;
}

/* S (NUL-terminated) after a head of HC columns, shortened to the rest of the width. */
static void fit_rest(const su_outline *o, const buf *s, size_t hc)
{
    size_t w = o->width;
    text_fit(o->b, s->p ? s->p : "", s->n, w ? (w > hc + 12 ? w - hc : 12) : 0, 0);
    buf_putc(o->b, '\n');
}

void su_line(const su_outline *o, size_t depth, const char *key, su_val v, su_unit inherit)
{
    char ind[64], head[320];
    size_t d = indent(ind, depth);
    buf s;
    buf_init(&s, NULL);
    scalar_text(&s, key, v, inherit);
    snprintf(head, sizeof head, "%s%s: ", ind, key);
    if (prose(key)) {
        ind[d] = ' ', ind[d + 1] = ' ', ind[d + 2] = '\0';
        su_wrap(o->b, s.p ? s.p : "", o->width, head, ind);
    } else {
        buf_puts(o->b, head);
        fit_rest(o, &s, text_cols(head, strlen(head)));
    }
    buf_release(&s);
}

su_unit su_open(const su_outline *o, size_t depth, const char *key)
{
    char ind[64];
    indent(ind, depth);
    buf_printf(o->b, "%s%s:\n", ind, key);
    return su_unit_of(key);
}

/* "KEY: none" at DEPTH when N is 0 (then 1), else "KEY:" (then 0). */
static int open_list(const su_outline *o, size_t depth, const char *key, size_t n)
{
    if (n)
        return su_open(o, depth, key), 0;
    char ind[64];
    indent(ind, depth);
    buf_printf(o->b, "%s%s: none\n", ind, key);
    return 1;
}

void su_strings(const su_outline *o, size_t depth, const char *key, const char *const *s, size_t n)
{
    if (open_list(o, depth, key, n))
        return;
    char ind[64], head[72], rest[72];
    size_t d = indent(ind, depth + 1);
    snprintf(head, sizeof head, "%s- ", ind);
    snprintf(rest, sizeof rest, "%s  ", ind);
    buf t;
    buf_init(&t, NULL);
    for (size_t i = 0; i < n; i++) {
        t.n = 0;
        scalar_text(&t, key, su_vstr(s[i]), SU_PLAIN);
        if (prose(key)) {
            su_wrap(o->b, t.p ? t.p : "", o->width, head, rest);
        } else {
            buf_puts(o->b, head);
            fit_rest(o, &t, d + 2);
        }
    }
    buf_release(&t);
}

/* KEY as a short table head: "inclusive_share_of_total" -> "incl share". */
static void short_head(char *out, size_t cap, const char *key)
{
    static const char *const from[] = {"share_of_total", "duration", "exclusive", "inclusive",
                                       "representative", "fraction", "_"};
    static const char *const to[] = {"share", "dur", "excl", "incl", "repr", "frac", " "};
    size_t o = 0;
    while (*key && o + 1 < cap) {
        size_t i = 0, n = 0;
        for (; i < sizeof from / sizeof *from; i++)
            if (!strncmp(key, from[i], n = strlen(from[i])))
                break;
        const char *put = i < sizeof from / sizeof *from ? to[i] : NULL;
        if (put) {
            o += (size_t)snprintf(out + o, cap - o, "%s", put);
            o = o < cap ? o : cap - 1;
            key += n;
        } else {
            out[o++] = *key++;
        }
    }
    out[o] = '\0';
}

/* The rows R as one table at indent IND (columns and their alignment from the first row: a
 * number or a key with a unit is right-aligned, a string may be shortened); 0, or -1 (nothing
 * written) when it does not fit. */
static int rows_table(const su_outline *o, const su_rowset *r, const char *ind)
{
    size_t nc = r->ncols;
    if (nc == 0 || nc > 32)
        return -1;
    su_val v[32];
    su_col cols[32];
    char heads[32][48];
    r->get(r->ctx, 0, v);
    for (size_t j = 0; j < nc; j++) {
        short_head(heads[j], sizeof heads[j], r->keys[j]);
        int num = v[j].t == SU_V_INT || v[j].t == SU_V_NUM;
        cols[j] = (su_col){heads[j], (unsigned char)(num || su_unit_of(r->keys[j]) != SU_PLAIN),
                           (unsigned char)(v[j].t == SU_V_STR), 0};
    }
    su_table t;
    su_table_init(&t, cols, nc, 0);
    buf cell;
    buf_init(&cell, NULL);
    for (size_t i = 0; i < r->n; i++) {
        r->get(r->ctx, i, v);
        for (size_t j = 0; j < nc; j++) {
            scalar_text(&cell, r->keys[j], v[j], SU_PLAIN);
            su_table_add_buf(&t, &cell, 1);
        }
    }
    buf_release(&cell);
    int rc = !t.nomem ? su_table_emit(o->b, &t, o->width, ind) : -1;
    su_table_free(&t);
    return rc;
}

void su_item(const su_outline *o, size_t depth, size_t i)
{
    char ind[64];
    indent(ind, depth);
    buf_printf(o->b, "%s- #%zu\n", ind, i + 1);
}

void su_rows(const su_outline *o, size_t depth, const char *key, const su_rowset *r)
{
    if (open_list(o, depth, key, r->n))
        return;
    char ind[64];
    indent(ind, depth + 1);
    if (rows_table(o, r, ind) == 0 || r->ncols > 32)
        return;
    su_val v[32];
    for (size_t i = 0; i < r->n; i++) {
        su_item(o, depth + 1, i);
        r->get(r->ctx, i, v);
        for (size_t j = 0; j < r->ncols; j++)
            su_line(o, depth + 2, r->keys[j], v[j], SU_PLAIN);
    }
}

typedef struct desc_rows {
    const void *rows;
    const sm_row_desc *d;
} desc_rows;

static void desc_get(const void *ctx, size_t i, su_val *vals)
{
    const desc_rows *r = ctx;
    const char *row = (const char *)r->rows + i * r->d->size;
    for (size_t j = 0; j < r->d->nfields; j++)
        vals[j] = su_vfield(row, &r->d->fields[j]);
}

void su_rows_desc(const su_outline *o, size_t depth, const char *key, const void *rows, size_t n,
                  const sm_row_desc *d)
{
    const char *keys[32];
    size_t nc = d->nfields < 32 ? d->nfields : 32;
    for (size_t j = 0; j < nc; j++)
        keys[j] = d->fields[j].key;
    desc_rows ctx = {rows, d};
    su_rowset r = {keys, nc, n, desc_get, &ctx};
    su_rows(o, depth, key, &r);
}
