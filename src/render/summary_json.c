/* summary_json.c - a streaming writer of the bytes Python's json.dumps(obj, indent=N,
 * sort_keys=True) gives (render/summary_json.h), for the summary family's documents (compare,
 * track, query, history, publish's plan, the summary and summary sets) written from their
 * result structs without a tree: separators and indentation as Python
 * writes them, strings ASCII-escaped and floats as Python's repr (core/jtext.h), objects of
 * scalars sorted by key. Formatting only. The documents' layouts are their renderers'
 * (render/summary_write.c, summary_set.c, summary_history.c, summary_compare.c, ...). */
#include "render/summary_json.h"

#include "core/jtext.h"

#include <stdlib.h>
#include <string.h>

void sj_init(sj_writer *w, buf *b, int indent)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->indent = indent;
}

void sj_init_at(sj_writer *w, buf *b, int indent, int level)
{
    sj_init(w, b, indent);
    w->level = level;
}

static void newline(sj_writer *w)
{
    if (w->indent < 0)
        return;
    buf_putc(w->b, '\n');
    for (int k = 0; k < w->indent * w->level; k++)
        buf_putc(w->b, ' ');
}

/* The separator before the next key or item of the open container. */
static void next(sj_writer *w)
{
    unsigned char *has = &w->items[w->level < SJ_MAX_DEPTH ? w->level : SJ_MAX_DEPTH - 1];
    if (*has)
        buf_puts(w->b, w->indent < 0 ? ", " : ",");
    *has = 1;
    newline(w);
}

void sj_open(sj_writer *w, char c)
{
    buf_putc(w->b, c);
    w->level++;
    if (w->level < SJ_MAX_DEPTH)
        w->items[w->level] = 0;
}

void sj_close(sj_writer *w, char c)
{
    int had = w->items[w->level < SJ_MAX_DEPTH ? w->level : SJ_MAX_DEPTH - 1];
    w->level--;
    if (had)
        newline(w);
    buf_putc(w->b, c);
}

void sj_key(sj_writer *w, const char *key)
{
    next(w);
    jv_write_str(w->b, key, strlen(key));
    buf_puts(w->b, ": ");
}

void sj_item(sj_writer *w)
{
    next(w);
}

void sj_val(sj_writer *w, su_val v)
{
    char tmp[64];
    switch (v.t) {
    case SU_V_NULL:
        buf_puts(w->b, "null");
        break;
    case SU_V_STR:
        jv_write_str(w->b, v.s, strlen(v.s));
        break;
    case SU_V_INT:
        buf_printf(w->b, "%lld", (long long)v.i);
        break;
    case SU_V_NUM:
        py_float_repr(tmp, sizeof tmp, v.d);
        buf_puts(w->b, tmp);
        break;
    }
}

void sj_bool(sj_writer *w, int b)
{
    buf_puts(w->b, b ? "true" : "false");
}

void sj_field(sj_writer *w, const char *key, su_val v)
{
    sj_key(w, key);
    sj_val(w, v);
}

void sj_scalars(sj_writer *w, const char *const *keys, const su_val *v, size_t n)
{
    size_t order[32];
    n = n < 32 ? n : 32;
    for (size_t i = 0; i < n; i++) { /* insertion sort by key: a few dozen keys at most */
        size_t j = i;
        for (; j > 0 && strcmp(keys[order[j - 1]], keys[i]) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    sj_open(w, '{');
    for (size_t i = 0; i < n; i++)
        sj_field(w, keys[order[i]], v[order[i]]);
    sj_close(w, '}');
}

void sj_strings(sj_writer *w, const char *const *s, size_t n)
{
    sj_open(w, '[');
    for (size_t i = 0; i < n; i++) {
        sj_item(w);
        sj_val(w, su_vstr(s[i]));
    }
    sj_close(w, ']');
}

void sj_row(sj_writer *w, const void *row, const sm_row_desc *d)
{
    const char *keys[32];
    su_val v[32];
    size_t nc = d->nfields < 32 ? d->nfields : 32;
    for (size_t j = 0; j < nc; j++) {
        keys[j] = d->fields[j].key;
        v[j] = su_vfield(row, &d->fields[j]);
    }
    sj_scalars(w, keys, v, nc);
}

void sj_rows(sj_writer *w, const void *rows, size_t n, const sm_row_desc *d)
{
    sj_open(w, '[');
    for (size_t i = 0; i < n; i++) {
        sj_item(w);
        sj_row(w, (const char *)rows + i * d->size, d);
    }
    sj_close(w, ']');
}
