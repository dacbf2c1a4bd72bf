/* nsys_flame.c - the flame section of `profq nsys` (analysis/nsys_flame.c): the folded
 * stacks with their weights (JSON "flame", text: the heaviest stacks of each graph) and
 * the two flame graphs as one self-contained SVG (no script, no external reference):
 * frames as rectangles stacked from the bottom, widths proportional to inclusive ms,
 * siblings in name order (as flamegraph.pl), a <title> tooltip per frame and the name
 * written in when it fits. Every profile string is escaped (render/svg.h). Formats only:
 * the tree built here is the layout of the drawing. */
#include "core/alloc.h"
#include "render/nsys_sections.h"
#include "render/svg.h"
#include "render/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const GRAPH_KEYS[NSYS_FLAME_NGRAPHS] = {"source", "op_name"};
static const char *const GRAPH_TITLES[NSYS_FLAME_NGRAPHS] = {"Source code flamegraph",
                                                             "op_name flamegraph"};

static const char *fname(const nsys_flame_result *r, uint32_t id)
{
    return intern_str(&r->names, id);
}

/* Frame names escaped once each (stacks repeat them: 14,292 frames of ~1,000 names on
 * the shared archive): per name id its escaped text's offset + 1 in ESC (0: not yet) and
 * length. Without memory, names are escaped where written (json_cstr), as before. */
typedef struct name_memo {
    size_t *at;
    uint32_t *n;
    buf esc;
} name_memo;

static void put_name(json_writer *w, const nsys_flame_result *r, name_memo *m, uint32_t id)
{
    const char *s = fname(r, id);
    if (!m->at || m->esc.status != PQ_OK) {
        json_cstr(w, s);
        return;
    }
    if (!m->at[id]) {
        size_t at = m->esc.n;
        json_escape_into(&m->esc, s, strlen(s)); /* json_cstr's bytes: up to a NUL */
        if (m->esc.status != PQ_OK || m->esc.n - at > UINT32_MAX) {
            json_cstr(w, s);
            return;
        }
        m->at[id] = at + 1;
        m->n[id] = (uint32_t)(m->esc.n - at);
    }
    json_str_escaped(w, m->esc.p + m->at[id] - 1, m->n[id]);
}

void nsys_flame_json(json_writer *w, const nsys_flame_result *r)
{
    name_memo m;
    m.at = pq_calloc(r->names.n ? r->names.n : 1, sizeof *m.at);
    m.n = pq_calloc(r->names.n ? r->names.n : 1, sizeof *m.n);
    buf_init(&m.esc, NULL);
    if (!m.n) {
        pq_free(m.at);
        m.at = NULL;
    }
    json_key(w, "flame");
    json_obj_begin(w);
    json_key(w, "unknown_thunks");
    json_uint(w, r->unknown_thunks);
    for (int g = 0; g < NSYS_FLAME_NGRAPHS; g++) {
        json_key(w, GRAPH_KEYS[g]);
        json_arr_begin(w);
        for (size_t k = 0; k < r->g[g].n; k++) {
            const nsys_flame_stack *s = &r->g[g].stacks[k];
            json_obj_begin(w);
            json_key(w, "stack");
            json_arr_begin(w);
            for (uint32_t q = 0; q < s->nframes; q++)
                put_name(w, r, &m, s->frames[q]);
            json_arr_end(w);
            json_key(w, "ms");
            json_double(w, s->ms);
            json_obj_end(w);
        }
        json_arr_end(w);
    }
    json_obj_end(w);
    pq_free(m.at);
    pq_free(m.n);
    buf_release(&m.esc);
}

static const nsys_flame_stack *sort_stacks;

static int cmp_heavy(const void *pa, const void *pb)
{
    double a = sort_stacks[*(const size_t *)pa].ms, b = sort_stacks[*(const size_t *)pb].ms;
    return a > b ? -1 : a < b;
}

void nsys_flame_text(const nsys_flame_result *r, buf *b)
{
    for (int g = 0; g < NSYS_FLAME_NGRAPHS; g++) {
        const nsys_flame_graph *fg = &r->g[g];
        buf_printf(b, "\nflame (%s): %zu stacks; the heaviest (ms, folded stack)\n", GRAPH_KEYS[g],
                   fg->n);
        size_t *ix = pq_malloc_array(fg->n ? fg->n : 1, sizeof *ix);
        if (!ix)
            continue;
        for (size_t k = 0; k < fg->n; k++)
            ix[k] = k;
        sort_stacks = fg->stacks;
        qsort(ix, fg->n, sizeof *ix, cmp_heavy);
        /* A stack runs to thousands of columns: text shows it shortened in the middle to
         * fit the terminal (the leaf stays readable); JSON and the SVG keep it whole. */
        buf line;
        buf_init(&line, NULL);
        for (size_t k = 0; k < fg->n && k < 10; k++) {
            const nsys_flame_stack *s = &fg->stacks[ix[k]];
            buf_printf(b, "%12.3f  ", s->ms);
            line.n = 0;
            for (uint32_t q = 0; q < s->nframes; q++) {
                const char *n = fname(r, s->frames[q]);
                if (q)
                    buf_putc(&line, ';');
                json_escape_into(&line, n, strlen(n));
            }
            text_fit(b, line.p, line.n, TEXT_COLS - 14, 0);
            buf_putc(b, '\n');
        }
        buf_release(&line);
        pq_free(ix);
    }
}

/* The drawing's tree: first child / next sibling, inclusive ms. */
typedef struct fnode {
    uint32_t name, child, next; /* child/next: index + 1, 0 none */
    double ms;
} fnode;

typedef struct ftree {
    fnode *n;
    size_t len, cap;
    uint32_t depth;
} ftree;

static uint32_t child_of(ftree *t, uint32_t parent, uint32_t name)
{
    for (uint32_t c = t->n[parent].child; c; c = t->n[c - 1].next)
        if (t->n[c - 1].name == name)
            return c - 1;
    if (t->len == t->cap) {
        size_t nc = t->cap * 2;
        fnode *m = pq_realloc_array(t->n, nc, sizeof *m);
        if (!m)
            return UINT32_MAX;
        t->n = m;
        t->cap = nc;
    }
    uint32_t id = (uint32_t)t->len++;
    t->n[id] = (fnode){.name = name, .next = t->n[parent].child};
    t->n[parent].child = id + 1;
    return id;
}

static int build(ftree *t, const nsys_flame_graph *g)
{
    t->cap = 256;
    t->n = pq_calloc(t->cap, sizeof *t->n);
    if (!t->n)
        return -1;
    t->len = 1;
    for (size_t k = 0; k < g->n; k++) {
        const nsys_flame_stack *s = &g->stacks[k];
        uint32_t at = 0;
        t->n[0].ms += s->ms;
        for (uint32_t q = 0; q < s->nframes; q++) {
            at = child_of(t, at, s->frames[q]);
            if (at == UINT32_MAX)
                return -1;
            t->n[at].ms += s->ms;
        }
        if (s->nframes > t->depth)
            t->depth = s->nframes;
    }
    return 0;
}

enum { FW = 1200, ROW = 17, PAD = 10, HEAD = 28 };

typedef struct draw {
    buf *b;
    const nsys_flame_result *r;
    const ftree *t;
    double scale, total;
    int y0; /* the baseline of depth 1 */
} draw;

static int cmp_name(const void *pa, const void *pb, const nsys_flame_result *r)
{
    return strcmp(fname(r, *(const uint32_t *)pa), fname(r, *(const uint32_t *)pb));
}

static const nsys_flame_result *cmp_r;
static const ftree *cmp_t;

static int cmp_child(const void *pa, const void *pb)
{
    uint32_t a = cmp_t->n[*(const uint32_t *)pa].name, b = cmp_t->n[*(const uint32_t *)pb].name;
    return cmp_name(&a, &b, cmp_r);
}

static void frame_rect(draw *d, uint32_t id, double x, uint32_t depth)
{
    const fnode *f = &d->t->n[id];
    double w = f->ms * d->scale;
    const char *name = fname(d->r, f->name);
    unsigned h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    int y = d->y0 - (int)depth * ROW;
    buf_puts(d->b, "<g><title>");
    html_escape(d->b, name, strlen(name));
    buf_printf(d->b, " (%.3f ms, %.2f%%)</title><rect x=\"", f->ms,
               d->total > 0 ? 100 * f->ms / d->total : 0);
    fmt_fixed(d->b, PAD + x, 2);
    buf_printf(d->b, "\" y=\"%d\" width=\"", y);
    fmt_fixed(d->b, w, 2);
    buf_printf(d->b, "\" height=\"%d\" rx=\"2\" fill=\"rgb(%u,%u,%u)\"/>", ROW - 1, 205 + h % 50,
               80 + (h >> 8) % 130, 30 + (h >> 16) % 50);
    size_t fit = w > 24 ? (size_t)((w - 6) / 7) : 0;
    if (fit >= 2) {
        size_t n = strlen(name);
        buf_puts(d->b, "<text x=\"");
        fmt_fixed(d->b, PAD + x + 3, 2);
        buf_printf(d->b, "\" y=\"%d\">", y + ROW - 5);
        html_escape(d->b, name, n <= fit ? n : fit - 2);
        if (n > fit)
            buf_puts(d->b, "..");
        buf_puts(d->b, "</text>");
    }
    buf_puts(d->b, "</g>\n");
}

/* Draws the children of node ID from X at DEPTH + 1, in name order (recursive: depth is
 * bounded by the stack length, MAX_FRAMES in the analysis). */
static void children(draw *d, uint32_t id, double x, uint32_t depth)
{
    uint32_t n = 0, small[64], *ix = small;
    for (uint32_t c = d->t->n[id].child; c; c = d->t->n[c - 1].next)
        n++;
    if (n > 64 && !(ix = pq_malloc_array(n, sizeof *ix)))
        return;
    n = 0;
    for (uint32_t c = d->t->n[id].child; c; c = d->t->n[c - 1].next)
        ix[n++] = c - 1;
    cmp_r = d->r;
    cmp_t = d->t;
    qsort(ix, n, sizeof *ix, cmp_child);
    for (uint32_t k = 0; k < n; k++) {
        double w = d->t->n[ix[k]].ms * d->scale;
        if (w >= 0.1) {
            frame_rect(d, ix[k], x, depth + 1);
            children(d, ix[k], x, depth + 1);
        }
        x += w;
    }
    if (ix != small)
        pq_free(ix);
}

void nsys_flame_svg(const nsys_flame_result *r, buf *b)
{
    ftree t[NSYS_FLAME_NGRAPHS] = {{0}};
    int height = 0, ok = 1;
    for (int g = 0; g < NSYS_FLAME_NGRAPHS; g++) {
        ok = ok && build(&t[g], &r->g[g]) == 0;
        height += HEAD + (int)(t[g].depth + 1) * ROW + PAD;
    }
    buf_printf(b,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"Verdana,sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdf5\"/>\n",
               FW + 2 * PAD, height, FW + 2 * PAD, height);
    int top = 0;
    for (int g = 0; ok && g < NSYS_FLAME_NGRAPHS; g++) {
        int gh = HEAD + (int)(t[g].depth + 1) * ROW + PAD;
        buf_printf(b,
                   "<g id=\"flame-%s\">\n<text x=\"%d\" y=\"%d\" font-size=\"16\" "
                   "text-anchor=\"middle\">%s (",
                   GRAPH_KEYS[g], (FW + 2 * PAD) / 2, top + 20, GRAPH_TITLES[g]);
        fmt_fixed(b, t[g].n[0].ms, 3);
        buf_puts(b, " ms)</text>\n");
        draw d = {b,
                  r,
                  &t[g],
                  t[g].n[0].ms > 0 ? FW / t[g].n[0].ms : 0,
                  t[g].n[0].ms,
                  top + gh - PAD - ROW};
        children(&d, 0, 0, 0);
        buf_puts(b, "</g>\n");
        top += gh;
    }
    buf_puts(b, "</svg>\n");
    for (int g = 0; g < NSYS_FLAME_NGRAPHS; g++)
        pq_free(t[g].n);
}
