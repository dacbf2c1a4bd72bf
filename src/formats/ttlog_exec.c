/* ttlog_exec.c - an "Executing operation:" line becomes an op: its text is split
 * (ttlog_optext.c), it is placed in its const-eval program, the live-tensor map (outputs in
 * DRAM or L1 keyed by SSA result, removed by deallocate) gives its running unpadded/padded
 * sums, and it waits for its per-op block (or takes the latest submit block's state). Also
 * the string map the reader keys by name. Not here: the memory blocks (ttlog_block.c). */
#define _GNU_SOURCE /* memmem */
#include "ttlog_parse.h"
#include "core/alloc.h"
#include "core/hash.h"

#include <stdint.h>

typedef struct smap_key {
    const smap *m;
    pq_str key;
} smap_key;

static int smap_same(void *ctx, uint32_t v)
{
    const smap_key *k = ctx;
    const pq_str *e = &k->m->e.v[v].key;
    return e->n == k->key.n && memcmp(e->p, k->key.p, k->key.n) == 0;
}

smap_entry *ttlog_smap_get(smap *m, pq_str key, int create)
{
    if (create && pq_hmap_reserve(&m->index, m->e.n + 1) != 0)
        return NULL;
    if (!m->index.cap)
        return NULL;
    uint64_t h = hash_bytes(key.p, key.n);
    smap_key k = {m, key};
    size_t s = pq_hmap_probe(&m->index, h, smap_same, &k);
    if (pq_hmap_found(&m->index, s))
        return &m->e.v[pq_hmap_value(&m->index, s)];
    if (!create)
        return NULL;
    smap_entry *e = smap_entries_add(&m->e, (size_t)1 << 31);
    if (!e)
        return NULL;
    e->key = key;
    pq_hmap_put(&m->index, s, h, (uint32_t)(m->e.n - 1));
    return e;
}

void ttlog_smap_free(smap *m)
{
    pq_hmap_free(&m->index);
    smap_entries_free(&m->e);
    memset(m, 0, sizeof *m);
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
    tt_op *e = tt_op_vec_add(&ps->exec_ops, TT_MAX_ELEMS);
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
