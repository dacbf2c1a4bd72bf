/* html_tree.c - the op_profile hierarchy of the HTML report ("Where time goes"): XProf's op
 * tree by program (analysis/op_profile.c builds it, IDLE left out) as nested details/summary
 * elements, each node with its time, share of the root and occurrences; the first level
 * open. At most max_rows nodes are written (preorder, children in the tree's order, by time);
 * the page says how many were left out. Formats only: the tree and its figures are the
 * analysis's. */
#include "render/html.h"

#include "analysis/op_profile.h"

#include <inttypes.h>
#include <stdio.h>

typedef struct tree_walk {
    const op_profile_tree *t;
    double root_ps;
    size_t budget, written, total;
} tree_walk;

static size_t subtree_size(const op_profile_tree *t, uint32_t i, int depth)
{
    size_t n = 1;
    for (uint32_t k = 0; depth < 64 && k < t->n[i].nkids; k++)
        n += subtree_size(t, t->n[i].kids[k], depth + 1);
    return n;
}

static void node_line(buf *b, const tree_walk *w, const op_profile_node *x)
{
    double ps = (double)x->m.time_ps;
    buf_puts(b, "<span class=\"tn\">");
    html_str(b, op_profile_node_name(w->t, x));
    buf_printf(b, "</span> <span class=\"tt\" data-ps=\"%.0f\">", ps);
    html_time(b, ps);
    buf_printf(b, "</span> <span class=\"ts\">%.2f%%</span>",
               w->root_ps > 0 ? ps / w->root_ps * 100 : 0);
    if (x->m.occurrences > 0) /* XProf's program nodes count none */
        buf_printf(b, " <span class=\"note\">%" PRId64 " occurrence(s)</span>", x->m.occurrences);
}

/* Node I at DEPTH and its subtree while the budget lasts (depth bounded for the stack). */
static void node(buf *b, tree_walk *w, uint32_t i, int depth)
{
    const op_profile_node *x = &w->t->n[i];
    if (w->written >= w->budget || depth >= 64)
        return;
    w->written++;
    if (!x->nkids) {
        buf_puts(b, "<div class=\"tleaf\">");
        node_line(b, w, x);
        buf_puts(b, "</div>\n");
        return;
    }
    buf_printf(b, "<details class=\"tnode\"%s><summary>", depth < 1 ? " open" : "");
    node_line(b, w, x);
    buf_puts(b, "</summary>\n");
    for (uint32_t k = 0; k < x->nkids; k++)
        node(b, w, x->kids[k], depth + 1);
    buf_puts(b, "</details>\n");
}

void html_op_tree(buf *b, const op_profile_tree *t, size_t max_nodes)
{
    buf_puts(b, "<h3>Op profile</h3>");
    if (!t || !t->nn || !t->n[0].nkids) {
        buf_puts(b, "<p class=\"note\">No op to group.</p>");
        return;
    }
    tree_walk w = {t, (double)t->n[0].m.time_ps, max_nodes, 0, 0};
    w.total = subtree_size(t, 0, 0) - 1;
    buf_puts(b, "<p class=\"note\">XProf's op_profile by program (IDLE left out): programs, "
                "their categories and ops, by time; click a node to open it. Shares are of "
                "the time in ops (");
    html_time(b, w.root_ps);
    buf_puts(b, ").</p><div class=\"tree\" id=\"op-tree\">\n");
    for (uint32_t k = 0; k < t->n[0].nkids; k++)
        node(b, &w, t->n[0].kids[k], 0);
    buf_puts(b, "</div>");
    if (w.written < w.total)
        buf_printf(b,
                   "<p class=\"note dropped\">%zu of %zu nodes shown; the rest (after them in "
                   "preorder by time) are left out of this page.</p>",
                   w.written, w.total);
    buf_putc(b, '\n');
}
