/* ttlog_exec.c - an "Executing operation:" line becomes an op: its text is split
 * (ttlog_optext.c), it is placed in its const-eval program, the live-tensor map (outputs in
 * DRAM or L1 keyed by SSA result, removed by deallocate) gives its running unpadded/padded
 * sums, and it waits for its per-op block (or takes the latest submit block's state). Also
 * the string map the reader keys by name. Not here: the memory blocks (ttlog_block.c). */
#define _GNU_SOURCE /* memmem */
#include "ttlog_parse.h"
#include "core/alloc.h"

#include <stdint.h>

static uint64_t hash_str(pq_str s)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < s.n; i++)
        h = (h ^ (unsigned char)s.p[i]) * 1099511628211ull;
    return h;
}

smap_entry *ttlog_smap_get(smap *m, pq_str key, int create)
{
    if (create && (m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        smap_entry *e = pq_calloc(cap, sizeof *e);
        if (!e)
            return NULL;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].key.p)
                continue;
            size_t j = hash_str(m->e[i].key) & (cap - 1);
            while (e[j].key.p)
                j = (j + 1) & (cap - 1);
            e[j] = m->e[i];
        }
        pq_free(m->e);
        m->e = e;
        m->cap = cap;
    }
    if (!m->cap)
        return NULL;
    size_t j = hash_str(key) & (m->cap - 1);
    while (m->e[j].key.p) {
        if (m->e[j].key.n == key.n && memcmp(m->e[j].key.p, key.p, key.n) == 0)
            return &m->e[j];
        j = (j + 1) & (m->cap - 1);
    }
    if (!create)
        return NULL;
    m->e[j].key = key;
    m->n++;
    return &m->e[j];
}

/* Records the running live-tensor sums of DRAM and L1 into OP. */
void ttlog_const_eval_of(parser *ps, tt_op *op)
{
    if (ps->nprograms && find(ps->programs[ps->nprograms - 1], "const_eval")) {
        op->const_eval = ps->programs[ps->nprograms - 1];
        op->is_weight = 1;
        op->cache_miss = ttlog_smap_get(&ps->missed, op->const_eval, 0) != NULL;
    }
}

static void live_update(parser *ps, tt_op *op)
{
    if (ttlog_op_text_excluded(op)) {
        if (ttlog_name_ends(op->name, "deallocate") && op->operands.n) {
            pq_str first = op->operands;
            const char *c = memchr(first.p, ',', first.n);
            if (c)
                first.n = (size_t)(c - first.p);
            first = trim(first);
            smap_entry *e = ttlog_smap_get(&ps->live, first, 0);
            if (e && e->live) {
                e->live = 0;
                ps->totals[e->c].unpadded_bytes -= e->a;
                ps->totals[e->c].padded_bytes -= e->b;
                ps->totals[e->c].num_tensors--;
            }
        }
        return;
    }
    if (op->result.n && op->out.present && op->out.buffer_type.n) {
        int bt = -1;
        if (op->out.buffer_type.n == 4 && memcmp(op->out.buffer_type.p, "dram", 4) == 0)
            bt = 0;
        else if (op->out.buffer_type.n == 2 && memcmp(op->out.buffer_type.p, "l1", 2) == 0)
            bt = 1;
        if (bt >= 0) {
            smap_entry *e = ttlog_smap_get(&ps->live, op->result, 1);
            if (!e) {
                ps->nomem = 1;
                return;
            }
            if (e->live) {
                ps->totals[e->c].unpadded_bytes -= e->a;
                ps->totals[e->c].padded_bytes -= e->b;
                ps->totals[e->c].num_tensors--;
            }
            e->a = op->out.unpadded_bytes;
            e->b = op->out.padded_bytes;
            e->c = bt;
            e->live = 1;
            ps->totals[bt].unpadded_bytes += e->a;
            ps->totals[bt].padded_bytes += e->b;
            ps->totals[bt].num_tensors++;
        }
    }
}

/* The running sums over the live map (the seed's unpadded_memory of an emitted op). */
static void live_sums(parser *ps, tt_op *op)
{
    memcpy(op->live, ps->totals, sizeof op->live);
}

void ttlog_on_exec(parser *ps, pq_str msg, int64_t off)
{
    tt_log *log = ps->log;
    log->executed_ops++;
    tt_op op;
    memset(&op, 0, sizeof op);
    op.text = trim(msg);
    op.offset = off;
    op.submit = ps->has_submit ? (int64_t)ps->submit_number : -1;
    ttlog_parse_op_text(&op);
    ttlog_const_eval_of(ps, &op);
    live_update(ps, &op);
    if (ttlog_op_text_excluded(&op))
        return;
    if (ps->has_pending)
        log->ops_without_block++;
    live_sums(ps, &op);
    op.op_type = op.name;
    ps->pending = op;
    ps->has_pending = 1;
    tt_op *e = ttlog_vec_push(&ps->exec_ops, sizeof *e);
    if (!e) {
        ps->nomem = 1;
        return;
    }
    *e = op;
    if (ps->has_submit) {
        memcpy(e->mem, ps->submit_mem, sizeof e->mem);
        e->mem_source = ps->submit_after ? TT_MEM_AFTER_SUBMIT : TT_MEM_BEFORE_SUBMIT;
    }
}
