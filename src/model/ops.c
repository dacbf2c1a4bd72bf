/* ops.c - the model's ops: records keyed by (program, symbol, name) through the one hash
 * index (core/hmap.h), and the call through which readers state them; see ops.h. Not here:
 * reading them from an input (formats/xplane_ops.c, analysis/ops_*.c), the times of their
 * executions. */
#include "model/ops.h"

#include "core/alloc.h"

#include <stdint.h>
#include <string.h>

static uint64_t hash_key(uint64_t pid, uint64_t sid, pq_str name)
{
    uint64_t h = 1469598103934665603ull ^ pid;
    h = (h ^ sid) * 1099511628211ull;
    h ^= h >> 29;
    for (size_t i = 0; i < name.n; i++)
        h = (h ^ (unsigned char)name.p[i]) * 1099511628211ull;
    return h ^ (h >> 32);
}

/* The key looked up in the index. */
typedef struct op_key {
    const model_ops *t;
    uint64_t pid, sid;
    pq_str name;
} op_key;

static int op_same(void *ctx, uint32_t v)
{
    const op_key *k = ctx;
    const model_op *o = &k->t->v[v];
    return o->program_id == k->pid && o->symbol_id == k->sid &&
           (k->sid != 0 ||
            (o->name.n == k->name.n && (!o->name.n || !memcmp(o->name.p, k->name.p, o->name.n))));
}

model_op *model_ops_get(model_ops *t, uint64_t pid, uint64_t sid, pq_str name, int *fresh)
{
    if (pq_hmap_reserve(&t->map, t->n < 512 ? 512 : t->n + 1) != 0) {
        t->oom = 1;
        return NULL;
    }
    uint64_t h = hash_key(pid, sid, name);
    op_key k = {t, pid, sid, name};
    size_t j = pq_hmap_probe(&t->map, h, op_same, &k);
    if (pq_hmap_found(&t->map, j)) {
        *fresh = 0;
        return &t->v[pq_hmap_value(&t->map, j)];
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        model_op *v = pq_realloc_array(t->v, cap, sizeof *v);
        if (!v) {
            t->oom = 1;
            return NULL;
        }
        t->v = v;
        t->cap = cap;
    }
    model_op *o = &t->v[t->n];
    memset(o, 0, sizeof *o);
    o->program_id = pid;
    o->symbol_id = sid;
    o->name = name;
    pq_hmap_put(&t->map, j, h, (uint32_t)t->n++);
    *fresh = 1;
    return o;
}

model_op *model_ops_lookup(const model_ops *t, uint64_t pid, uint64_t sid, pq_str name)
{
    if (!t->map.cap)
        return NULL;
    op_key k = {t, pid, sid, name};
    size_t j = pq_hmap_probe(&t->map, hash_key(pid, sid, name), op_same, &k);
    return pq_hmap_found(&t->map, j) ? &t->v[pq_hmap_value(&t->map, j)] : NULL;
}

model_op *model_ops_find(const model_ops *t, uint64_t pid, pq_str name)
{
    return model_ops_lookup(t, pid, 0, name);
}

size_t model_ops_state(model_ops *t, const model_op *stated)
{
    int fresh = 0;
    model_op *o = model_ops_get(t, stated->program_id, stated->symbol_id, stated->name, &fresh);
    if (!o)
        return SIZE_MAX;
    if (fresh)
        *o = *stated;
    return (size_t)(o - t->v);
}

size_t model_ops_next(const model_ops *t, uint64_t pid, size_t from)
{
    while (from < t->n && t->v[from].program_id != pid)
        from++;
    return from;
}

void model_ops_free(model_ops *t)
{
    pq_free(t->v);
    pq_hmap_free(&t->map);
    memset(t, 0, sizeof *t);
}
