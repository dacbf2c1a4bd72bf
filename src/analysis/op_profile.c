/* op_profile.c - builds XProf's op_profile tree (spec/xprof-tools.md 5.9) from the op rows
 * of analysis/ops, by program, category or provenance, with or without IDLE.
 *
 * Tree: root -> [program "<module>(<id>)"] -> [provenance parts] -> category -> dedup
 * (deduplicated_name or name) -> leaf (the op, with its `xla` fields); IDLE is a leaf
 * under the root. The root and program/provenance nodes add each op's self time (and its
 * FLOPs/bytes when it has no children), the category, dedup and leaf nodes its whole
 * metrics; ops with children time stop at the program. Children are sorted by rawTime
 * (descending; ties keep first-seen order), nodes below the grouping levels keep the top
 * 100; a dedup node with one child is replaced by it, with several it is named "<first>
 * and its duplicate(s)" and takes the first child's xla fields. Each node then gets the
 * figures XProf fills (flops and uncappedFlops as utilisation x time fraction,
 * bandwidthUtils and raw bytes for HBM / on-chip read / on-chip write, average time,
 * normalized time). Under a TPU fusion leaf come the instructions fused into it (from the
 * HloProto, analysis/ops_fused.c), as XProf's InsertFusedInstructions: one node each with
 * 1 occurrence and nothing else, nested fusions with their own. Writing the JSON is
 * render/op_profile.c's. */
#include "analysis/op_profile.h"

#include "core/alloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_PROFILE_LIMIT = 100 };

typedef op_profile_node opn;
typedef op_profile_tree tree;

static uint32_t node_new(tree *t, pq_str name)
{
    if (t->nn == t->capn) {
        uint32_t cap = t->capn ? t->capn * 2 : 64;
        opn *nn = pq_realloc_array(t->n, cap, sizeof *nn);
        if (!nn) {
            t->oom = 1;
            return 0;
        }
        t->n = nn;
        t->capn = cap;
    }
    opn *x = &t->n[t->nn];
    memset(x, 0, sizeof *x);
    x->name = name;
    x->seq = t->nn;
    return t->nn++;
}

/* Appends S to t->names; its offset + 1, or 0 when memory ran out. */
static uint32_t names_add(tree *t, const char *s)
{
    size_t n = strlen(s);
    if (t->nnames + n + 1 > t->capnames) {
        size_t cap = t->capnames ? t->capnames * 2 : 4096;
        while (cap < t->nnames + n + 1)
            cap *= 2;
        char *p = pq_realloc(t->names, cap);
        if (!p) {
            t->oom = 1;
            return 0;
        }
        t->names = p;
        t->capnames = cap;
    }
    memcpy(t->names + t->nnames, s, n + 1);
    uint32_t off = (uint32_t)t->nnames + 1;
    t->nnames += n + 1;
    return off;
}

/* A name built here (program names), kept in t->names. */
static uint32_t node_new_owned(tree *t, const char *s)
{
    uint32_t off = names_add(t, s);
    if (!off)
        return 0;
    uint32_t id = node_new(t, pq_str_of("", 0));
    if (!t->oom)
        t->n[id].name_off = off;
    return id;
}

pq_str op_profile_node_name(const tree *t, const opn *x)
{
    if (x->name_off)
        return pq_str_of(t->names + x->name_off - 1, strlen(t->names + x->name_off - 1));
    return x->name;
}

static int add_kid(tree *t, uint32_t parent, uint32_t kid)
{
    opn *p = &t->n[parent];
    if (p->nkids == p->capkids) {
        uint32_t cap = p->capkids ? p->capkids * 2 : 4;
        uint32_t *k = pq_realloc_array(p->kids, cap, sizeof *k);
        if (!k)
            return t->oom = 1;
        p->kids = k;
        p->capkids = cap;
    }
    p->kids[p->nkids++] = kid;
    return 0;
}

/* The child of PARENT named NAME (no xla), created when absent; 0 on allocation failure
 * (node 0 is the root, never a child). */
static uint32_t child_named(tree *t, uint32_t parent, pq_str name)
{
    for (uint32_t i = 0; i < t->n[parent].nkids; i++) {
        const opn *k = &t->n[t->n[parent].kids[i]];
        pq_str kn = op_profile_node_name(t, k);
        if (!k->sym && kn.n == name.n && (name.n == 0 || memcmp(kn.p, name.p, name.n) == 0))
            return t->n[parent].kids[i];
    }
    uint32_t id = node_new(t, name);
    if (t->oom || add_kid(t, parent, id))
        return 0;
    return id;
}

/* FLOPs, bytes and DMA stall of S into D. */
static void add_amounts(pq_op_row *d, const pq_op_row *s)
{
    d->flops += s->flops;
    d->model_flops += s->model_flops;
    d->bytes_accessed += s->bytes_accessed;
    d->dma_stall_ps += s->dma_stall_ps;
    d->bd_hbm += s->bd_hbm;
    d->bd_onchip_rd += s->bd_onchip_rd;
    d->bd_onchip_wr += s->bd_onchip_wr;
}

/* XProf's UpdateNodeMetrics: self time as time; FLOPs and bytes only from ops without
 * children (theirs are counted in the children). */
static void update_metrics(pq_op_row *d, const pq_op_row *s)
{
    d->time_ps += s->self_time_ps;
    d->self_time_ps += s->self_time_ps;
    d->normalized_time_ps += s->normalized_time_ps;
    if (s->time_ps - s->self_time_ps == 0)
        add_amounts(d, s);
}

/* XProf's CombineOpMetrics: everything summed. */
static void combine_metrics(pq_op_row *d, const pq_op_row *s)
{
    d->occurrences += s->occurrences;
    d->time_ps += s->time_ps;
    d->self_time_ps += s->self_time_ps;
    d->normalized_time_ps += s->normalized_time_ps;
    add_amounts(d, s);
}

static int starts_with(pq_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static int is_fusion(pq_str cat)
{
    return cat.n >= 7 && memcmp(cat.p + cat.n - 7, " fusion", 7) == 0;
}

static int has_xla(const opn *x)
{
    return x->sym || x->fused;
}

/* The N fused instructions at F (preorder subtrees) as children of PARENT. */
static void add_fused(tree *t, uint32_t parent, const pq_fused_op *f, uint32_t n)
{
    for (uint32_t i = 0; i < n && !t->oom; i++) {
        uint32_t id = node_new(t, f->name);
        if (t->oom || add_kid(t, parent, id))
            return;
        t->n[id].fused = f;
        t->n[id].m.occurrences = 1;
        add_fused(t, id, f + 1, f->nkids);
        f += f->size ? f->size : 1;
    }
}

static void add_op(tree *t, const pq_ops_result *r, const pq_op_row *m, int group)
{
    uint32_t root = 0, program = 0;
    update_metrics(&t->n[root].m, m);
    if (!m->is_idle && group != OP_PROFILE_BY_CATEGORY) {
        pq_str pn = ops_program_name(r, m->program_id);
        char name[1024];
        if (pn.n)
            snprintf(name, sizeof name, "%.*s(%" PRIu64 ")", (int)(pn.n < 900 ? pn.n : 900), pn.p,
                     m->program_id);
        else
            snprintf(name, sizeof name, "main");
        /* Programs are keyed by id: two ids may share "main". */
        for (uint32_t i = 0; i < t->n[root].nkids && !program; i++) {
            const opn *k = &t->n[t->n[root].kids[i]];
            if (!k->sym && k->m.program_id == m->program_id && k->name_off)
                program = t->n[root].kids[i];
        }
        if (!program) {
            program = node_new_owned(t, name);
            if (t->oom || add_kid(t, root, program))
                return;
            t->n[program].m.program_id = m->program_id;
        }
        update_metrics(&t->n[program].m, m);
    }
    if (m->time_ps - m->self_time_ps > 0)
        return; /* its children carry its time (SparseCore children are not modelled) */
    uint32_t chain[4];
    int nchain = 0;
    if (m->is_idle) {
        uint32_t leaf = node_new(t, m->name);
        if (t->oom || add_kid(t, root, leaf))
            return;
        t->n[leaf].sym = m;
        chain[nchain++] = leaf;
    } else {
        uint32_t parent = program;
        if (group == OP_PROFILE_BY_PROVENANCE && m->provenance.n) {
            /* Provenance parts: split on '/', empty parts skipped, the last cut at ':'. */
            size_t i = 0;
            while (i < m->provenance.n) {
                size_t j = i;
                while (j < m->provenance.n && m->provenance.p[j] != '/')
                    j++;
                pq_str part = pq_str_of(m->provenance.p + i, j - i);
                if (j == m->provenance.n)
                    for (size_t k = 0; k < part.n; k++)
                        if (part.p[k] == ':') {
                            part.n = k;
                            break;
                        }
                if (part.n) {
                    parent = child_named(t, parent, part);
                    if (!parent)
                        return;
                    update_metrics(&t->n[parent].m, m);
                }
                i = j + 1;
            }
        }
        uint32_t cat = child_named(t, parent, m->category);
        if (!cat)
            return;
        chain[nchain++] = cat;
        uint32_t dedup = child_named(t, cat, m->dedup_name.n ? m->dedup_name : m->name);
        if (!dedup)
            return;
        chain[nchain++] = dedup;
        uint32_t leaf = node_new(t, m->name);
        if (t->oom || add_kid(t, dedup, leaf))
            return;
        t->n[leaf].sym = m;
        chain[nchain++] = leaf;
        add_fused(t, leaf, m->fused, m->nfused);
        if (t->oom)
            return;
    }
    for (int i = 0; i < nchain; i++)
        combine_metrics(&t->n[chain[i]].m, m);
}

/* ---- finalize: sort, prune, deduplicate ---- */

static const tree *g_sort_tree;
static int g_sort_by_flops;

static int kid_cmp(const void *a, const void *b)
{
    const opn *x = &g_sort_tree->n[*(const uint32_t *)a],
              *y = &g_sort_tree->n[*(const uint32_t *)b];
    double vx = g_sort_by_flops ? x->m.model_flops : (double)x->m.time_ps;
    double vy = g_sort_by_flops ? y->m.model_flops : (double)y->m.time_ps;
    if (vx != vy)
        return vx > vy ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sort_prune(tree *t, uint32_t id, int level)
{
    opn *x = &t->n[id];
    for (uint32_t i = 0; i < x->nkids; i++)
        sort_prune(t, x->kids[i], level - 1);
    x = &t->n[id];
    if (x->nkids > 1) {
        g_sort_tree = t;
        g_sort_by_flops =
            (x->sym && is_fusion(x->sym->category)) || (x->fused && is_fusion(x->fused->category));
        qsort(x->kids, x->nkids, sizeof *x->kids, kid_cmp);
    }
    if (level <= 0 && x->nkids > OP_PROFILE_LIMIT)
        x->nkids = OP_PROFILE_LIMIT;
}

/* Replaces single-op dedup groups by their op; names the others after their top op. */
static void dedup_finalize(tree *t, uint32_t id)
{
    opn *x = &t->n[id];
    int group = x->nkids > 0 && !has_xla(x);
    for (uint32_t i = 0; group && i < x->nkids; i++)
        if (!has_xla(&t->n[x->kids[i]]))
            group = 0;
    if (!group) {
        for (uint32_t i = 0; i < x->nkids; i++)
            dedup_finalize(t, t->n[id].kids[i]);
        return;
    }
    if (x->nkids == 1) {
        uint32_t seq = x->seq, *kids = x->kids;
        *x = t->n[kids[0]];
        x->seq = seq;
        t->n[kids[0]].kids = NULL; /* now owned by X */
        t->n[kids[0]].nkids = 0;
        pq_free(kids);
        return;
    }
    const opn *top = &t->n[x->kids[0]];
    x->sym = top->sym;
    x->dedup_of_fusion = 1 + is_fusion(top->sym->category);
    char dn[1200];
    snprintf(dn, sizeof dn, "%.*s and its duplicate(s)",
             (int)(top->name.n < 1000 ? top->name.n : 1000), top->name.p);
    uint32_t off = names_add(t, dn);
    t->n[id].name_off = off;
}

static double sdiv(double a, double b)
{
    return fabs(b) < 1e-10 ? 0.0 : a / b;
}

/* XProf's op_profile metrics of every node below ID; TOTAL is the root's time. */
static void fill_figures(tree *t, uint32_t id, const pq_ops_result *r, int64_t total)
{
    opn *x = &t->n[id];
    const pq_op_row *m = &x->m;
    op_profile_figures *f = &x->f;
    double tm = (double)m->time_ps, ns = tm / 1e3;
    /* XProf sets a DVFS-normalized time on TPU only ("Time Scale Multiplier"). */
    f->normalized_time_ps = r->hw == PQ_OPS_HW_TPU ? m->normalized_time_ps : 0;
    double rate = sdiv(m->flops, ns);
    if (f->normalized_time_ps != 0)
        rate *= sdiv(tm, f->normalized_time_ps);
    double u = sdiv(rate, r->peaks.tflops * 1000);
    double frac = sdiv(tm, (double)total);
    double bytes[3] = {m->bd_hbm, m->bd_onchip_rd, m->bd_onchip_wr};
    f->flops = (u < 1 ? u : 1) * frac;
    f->uncapped_flops = u * frac;
    for (int i = 0; i < 3; i++) {
        double gib = ops_giga_to_gibi(sdiv(bytes[i], ns));
        double util = sdiv(gib, ops_giga_to_gibi(r->peaks.bws[i]));
        f->bandwidth_utils[i] = util < 1 ? util : 1;
        f->raw_bytes[i] = sdiv(bytes[i], ns) * ns;
    }
    f->avg_time_ps = sdiv(tm, (double)m->occurrences);
    for (uint32_t i = 0; i < x->nkids; i++)
        fill_figures(t, t->n[id].kids[i], r, total);
}

void op_profile_free(tree *t)
{
    for (uint32_t i = 0; i < t->nn; i++)
        pq_free(t->n[i].kids);
    pq_free(t->n);
    pq_free(t->names);
    memset(t, 0, sizeof *t);
}

int op_profile_build(const pq_ops_result *r, int group, int exclude_idle, tree *t)
{
    static const char *const root_names[] = {"by_program", "by_category", "by_provenance"};
    memset(t, 0, sizeof *t);
    node_new(t, pq_str_of(root_names[group], strlen(root_names[group])));
    for (size_t i = 0; i < r->nops && !t->oom; i++) {
        const pq_op_row *m = &r->ops[i];
        if (starts_with(m->name, "region") || (exclude_idle && m->is_idle))
            continue;
        add_op(t, r, m, group);
    }
    if (!t->oom) {
        int64_t total = exclude_idle ? r->total_op_time_ps : r->total_time_ps;
        t->n[0].m.time_ps = total;
        int level = group == OP_PROFILE_BY_PROGRAM ? 2 : group == OP_PROFILE_BY_CATEGORY ? 1 : 100;
        sort_prune(t, 0, level);
        dedup_finalize(t, 0);
        fill_figures(t, 0, r, total);
    }
    if (t->oom) {
        op_profile_free(t);
        return -1;
    }
    return 0;
}
