/* op_profile.c - XProf's op_profile JSON (spec/xprof-tools.md 5.9) from analysis/ops:
 * the tree by program, category or provenance, with and without IDLE, each node with the
 * metrics XProf fills (rawTime, rawFlops, bf16Flops, occurrences, avgTimePs,
 * normalizedTimePs, flops and uncappedFlops as utilisation x time fraction,
 * bandwidthUtils and rawBytesAccessedArray for HBM / on-chip read / on-chip write).
 *
 * Tree: root -> [program "<module>(<id>)"] -> [provenance parts] -> category -> dedup
 * (deduplicated_name or name) -> leaf (the op, with its `xla` fields); IDLE is a leaf
 * under the root. The root and program/provenance nodes add each op's self time (and its
 * FLOPs/bytes when it has no children), the category, dedup and leaf nodes its whole
 * metrics; ops with children time stop at the program. Children are sorted by rawTime
 * (descending; ties keep first-seen order), nodes below the grouping levels keep the top
 * 100; a dedup node with one child is replaced by it, with several it is named "<first>
 * and its duplicate(s)" and takes the first child's xla fields. Not produced: the fused
 * instructions XProf adds under a fusion leaf from the HloProto (their time is 0), layout
 * and xprofKernelMetadata (written ""). */
#include "op_profile.h"

#include "core/alloc.h"
#include "core/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_PROFILE_LIMIT = 100 };

typedef struct opn {
    pq_str name;
    uint32_t name_off;     /* into tree.names when the name is built here (+1; 0: none) */
    op_metrics m;          /* accumulated */
    const op_metrics *sym; /* the op whose xla fields the node shows; NULL: no xla */
    int dedup_of_fusion;   /* a "... and its duplicate(s)" node copying a fusion */
    uint32_t *kids;
    uint32_t nkids, capkids;
    uint32_t seq; /* creation order: the tie-break of the sorts */
} opn;

typedef struct tree {
    opn *n;
    uint32_t nn, capn;
    char *names;
    size_t nnames, capnames;
    int oom;
} tree;

static uint32_t node_new(tree *t, pq_str name)
{
    if (t->nn == t->capn) {
        uint32_t cap = t->capn ? t->capn * 2 : 64;
        opn *nn = pq_realloc(t->n, cap * sizeof *nn);
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

/* A name built here (program names), kept in t->names. */
static uint32_t node_new_owned(tree *t, const char *s)
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
    uint32_t id = node_new(t, pq_str_of("", 0));
    if (!t->oom)
        t->n[id].name_off = (uint32_t)t->nnames + 1;
    t->nnames += n + 1;
    return id;
}

static pq_str node_name(const tree *t, const opn *x)
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
        uint32_t *k = pq_realloc(p->kids, cap * sizeof *k);
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
        pq_str kn = node_name(t, k);
        if (!k->sym && kn.n == name.n && (name.n == 0 || memcmp(kn.p, name.p, name.n) == 0))
            return t->n[parent].kids[i];
    }
    uint32_t id = node_new(t, name);
    if (t->oom || add_kid(t, parent, id))
        return 0;
    return id;
}

/* FLOPs, bytes and DMA stall of S into D. */
static void add_amounts(op_metrics *d, const op_metrics *s)
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
static void update_metrics(op_metrics *d, const op_metrics *s)
{
    d->time_ps += s->self_time_ps;
    d->self_time_ps += s->self_time_ps;
    d->normalized_time_ps += s->normalized_time_ps;
    if (s->time_ps - s->self_time_ps == 0)
        add_amounts(d, s);
}

/* XProf's CombineOpMetrics: everything summed. */
static void combine_metrics(op_metrics *d, const op_metrics *s)
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

static void add_op(tree *t, const ops_result *r, const op_metrics *m, int group)
{
    uint32_t root = 0, program = 0;
    update_metrics(&t->n[root].m, m);
    if (!m->is_idle && group != OP_PROFILE_BY_CATEGORY) {
        pq_str pn = pq_str_of("", 0);
        for (size_t i = 0; i < r->nprograms; i++)
            if (r->programs[i].program_id == m->program_id)
                pn = r->programs[i].name;
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
        g_sort_by_flops = x->sym && is_fusion(x->sym->category);
        qsort(x->kids, x->nkids, sizeof *x->kids, kid_cmp);
    }
    if (level <= 0 && x->nkids > OP_PROFILE_LIMIT)
        x->nkids = OP_PROFILE_LIMIT;
}

/* Replaces single-op dedup groups by their op; names the others after their top op. */
static void dedup_finalize(tree *t, uint32_t id)
{
    opn *x = &t->n[id];
    int group = x->nkids > 0 && !x->sym;
    for (uint32_t i = 0; group && i < x->nkids; i++)
        if (!t->n[x->kids[i]].sym)
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
}

/* ---- JSON ---- */

static void put_num(json_writer *w, const char *key, double v)
{
    json_key(w, key);
    json_double(w, v);
}

static double sdiv(double a, double b)
{
    return fabs(b) < 1e-10 ? 0.0 : a / b;
}

static void put_metrics(json_writer *w, const ops_result *r, const op_metrics *m, int64_t total)
{
    double t = (double)m->time_ps, ns = t / 1e3;
    /* XProf sets a DVFS-normalized time on TPU only ("Time Scale Multiplier"). */
    double norm = r->hw == OPS_HW_TPU ? m->normalized_time_ps : 0;
    double rate = sdiv(m->flops, ns);
    if (norm != 0)
        rate *= sdiv(t, norm);
    double u = sdiv(rate, r->peaks.tflops * 1000);
    double frac = sdiv(t, (double)total);
    double bytes[3] = {m->bd_hbm, m->bd_onchip_rd, m->bd_onchip_wr};
    json_key(w, "metrics");
    json_obj_begin(w);
    put_num(w, "flops", (u < 1 ? u : 1) * frac);
    json_key(w, "bandwidthUtils");
    json_arr_begin(w);
    for (int i = 0; i < 3; i++) {
        double gib = ops_giga_to_gibi(sdiv(bytes[i], ns));
        double util = sdiv(gib, ops_giga_to_gibi(r->peaks.bws[i]));
        json_double(w, util < 1 ? util : 1);
    }
    json_arr_end(w);
    put_num(w, "rawTime", t);
    put_num(w, "rawFlops", m->model_flops);
    json_key(w, "rawBytesAccessedArray");
    json_arr_begin(w);
    for (int i = 0; i < 3; i++)
        json_double(w, sdiv(bytes[i], ns) * ns);
    json_arr_end(w);
    json_key(w, "occurrences");
    json_int(w, m->occurrences);
    put_num(w, "avgTimePs", sdiv(t, (double)m->occurrences));
    put_num(w, "bf16Flops", m->flops);
    put_num(w, "uncappedFlops", u * frac);
    put_num(w, "normalizedTimePs", norm);
    json_obj_end(w);
}

static void put_pstr(json_writer *w, const char *key, pq_str s)
{
    json_key(w, key);
    json_str(w, s.p ? s.p : "", s.n);
}

static void put_xla(json_writer *w, const opn *x)
{
    const op_metrics *m = x->sym;
    json_key(w, "xla");
    json_obj_begin(w);
    put_pstr(w, "op", pq_str_of("", 0));
    put_pstr(w, "expression", m->long_name);
    json_key(w, "provenance");
    if (x->dedup_of_fusion == 2) {
        json_cstr(w, "");
    } else if (m->provenance_from_hlo && m->provenance.n) {
        char pv[2048];
        int n = snprintf(pv, sizeof pv, "%.*s:%.*s", (int)m->provenance.n, m->provenance.p,
                         (int)m->op_type.n, m->op_type.p);
        json_str(w, pv, n < (int)sizeof pv ? (size_t)n : sizeof pv - 1);
    } else {
        json_str(w, m->provenance.p ? m->provenance.p : "", m->provenance.n);
    }
    put_pstr(w, "category", m->category);
    if (x->dedup_of_fusion == 1) {
        /* A non-fusion dedup node copies its top op's layout, set even when empty. */
        json_key(w, "layout");
        json_obj_begin(w);
        json_key(w, "dimensions");
        json_arr_begin(w);
        json_arr_end(w);
        json_obj_end(w);
    }
    json_key(w, "computationPrimitiveSize");
    json_int(w, 0);
    json_key(w, "fingerprint");
    json_cstr(w, "0");
    char id[24];
    snprintf(id, sizeof id, "%" PRIu64, m->is_idle ? 0 : m->program_id);
    json_key(w, "programId");
    json_cstr(w, id);
    /* sourceInfo: "file:line" split at its last ':', the stack as stackFrame. */
    pq_str file = m->source, line = pq_str_of("", 0);
    size_t k = file.n;
    while (k > 0 && file.p[k - 1] != ':')
        k--;
    if (k > 1 && k < file.n) {
        line = pq_str_of(file.p + k, file.n - k);
        file.n = k - 1;
    } else {
        file.n = 0;
    }
    json_key(w, "sourceInfo");
    json_obj_begin(w);
    put_pstr(w, "fileName", file);
    json_key(w, "lineNumber");
    /* no source: XProf's OpSourceInfo default (-1) for ops described by the HloProto (GPU),
     * 0 for TPU op metadata without a source stat */
    json_int(w, line.n ? strtoll(line.p, NULL, 10) : m->provenance_from_hlo ? -1 : 0);
    put_pstr(w, "stackFrame", file.n ? m->source_stack : pq_str_of("", 0));
    json_obj_end(w);
    put_pstr(w, "xprofKernelMetadata", pq_str_of("", 0));
    json_obj_end(w);
}

static void put_node(json_writer *w, const tree *t, uint32_t id, const ops_result *r, int64_t total)
{
    const opn *x = &t->n[id];
    json_obj_begin(w);
    pq_str name = node_name(t, x);
    char dn[1200];
    if (x->dedup_of_fusion) {
        pq_str top = t->n[x->kids[0]].name;
        int n = snprintf(dn, sizeof dn, "%.*s and its duplicate(s)",
                         (int)(top.n < 1000 ? top.n : 1000), top.p);
        name = pq_str_of(dn, (size_t)n);
    }
    put_pstr(w, "name", name);
    put_metrics(w, r, &x->m, total);
    json_key(w, "children");
    json_arr_begin(w);
    for (uint32_t i = 0; i < x->nkids; i++)
        put_node(w, t, x->kids[i], r, total);
    json_arr_end(w);
    if (x->sym)
        put_xla(w, x);
    json_key(w, "numChildren");
    json_int(w, x->nkids);
    json_obj_end(w);
}

static void tree_free(tree *t)
{
    for (uint32_t i = 0; i < t->nn; i++)
        pq_free(t->n[i].kids);
    pq_free(t->n);
    pq_free(t->names);
    memset(t, 0, sizeof *t);
}

/* One tree (with or without IDLE) as the value of the current key; -1 on allocation
 * failure. */
static int put_tree(json_writer *w, const ops_result *r, int group, int exclude_idle)
{
    static const char *const root_names[] = {"by_program", "by_category", "by_provenance"};
    tree t = {0};
    node_new(&t, pq_str_of(root_names[group], strlen(root_names[group])));
    for (size_t i = 0; i < r->nops && !t.oom; i++) {
        const op_metrics *m = &r->ops[i];
        if (starts_with(m->name, "region") || (exclude_idle && m->is_idle))
            continue;
        add_op(&t, r, m, group);
    }
    if (t.oom) {
        tree_free(&t);
        return -1;
    }
    int64_t total = exclude_idle ? r->total_op_time_ps : r->total_time_ps;
    t.n[0].m.time_ps = total;
    int level = group == OP_PROFILE_BY_PROGRAM ? 2 : group == OP_PROFILE_BY_CATEGORY ? 1 : 100;
    sort_prune(&t, 0, level);
    dedup_finalize(&t, 0);
    put_node(w, &t, 0, r, total);
    tree_free(&t);
    return 0;
}

int op_profile_json(buf *b, const ops_result *r, int group)
{
    static const char *const keys[][2] = {{"byProgram", "byProgramExcludeIdle"},
                                          {"byCategory", "byCategoryExcludeIdle"},
                                          {"byProvenance", "byProvenanceExcludeIdle"}};
    json_writer w;
    json_init(&w, b, 0);
    json_obj_begin(&w);
    int rc = 0;
    /* Field-number order, as protobuf's JSON printer writes them. */
    if (group == OP_PROFILE_BY_CATEGORY) {
        json_key(&w, keys[group][0]);
        rc |= put_tree(&w, r, group, 0);
    } else if (group == OP_PROFILE_BY_PROGRAM) {
        json_key(&w, keys[group][0]);
        rc |= put_tree(&w, r, group, 0);
    }
    json_key(&w, "deviceType");
    json_cstr(&w, r->hw == OPS_HW_TPU   ? "TPU"
                  : r->hw == OPS_HW_GPU ? "GPU"
                                        : "CPU_ONLY"); /* XProf: no device planes */
    if (group == OP_PROFILE_BY_PROVENANCE) {
        json_key(&w, keys[group][0]);
        rc |= put_tree(&w, r, group, 0);
    }
    json_key(&w, keys[group][1]);
    rc |= put_tree(&w, r, group, 1);
    json_key(&w, "aggDvfsTimeScaleMultiplier");
    json_double(&w, r->hw == OPS_HW_TPU
                        ? sdiv(r->normalized_total_op_time_ps, (double)r->total_op_time_ps)
                        : 0);
    json_obj_end(&w);
    buf_putc(b, '\n');
    return rc;
}
