/* ops_fused.c - the instructions fused into each TPU fusion op, from its program's HloProto,
 * as XProf adds them to the op's OpMetrics.children for op_profile
 * (xprof/utils/op_utils.cc AddFusionChildrenToOpMetricsFromHloInstruction over
 * HloModuleWrapper::GatherFusionInstructions): for an op whose name is a fusion instruction
 * of its program, every instruction of the fused computation but parameters and tuples, in
 * the computation's order, each with its HLO text (analysis/hlo_text.c), its category
 * (XLA's ToCategory), its provenance "<op_name>:<op_type>" (TraceMeOp), and, for a nested
 * fusion, its own fused instructions after it. XProf does this on TPUs only (its GPU op
 * database does not carry children). Not here: the op_profile nodes they become
 * (analysis/op_profile.c). */
#include "analysis/hlo_text.h"
#include "analysis/ops_internal.h"

#include "core/alloc.h"
#include "core/buf.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_FUSION_DEPTH = 32 };

typedef struct fused_ctx {
    const hlo_module *m;
    arena *strings;
    pq_fused_op *v;
    uint32_t n, cap;
    int oom;
} fused_ctx;

static int name_cmp(const void *a, const void *b)
{
    const hlo_instruction *x = *(const hlo_instruction *const *)a,
                          *y = *(const hlo_instruction *const *)b;
    size_t k = x->name.n < y->name.n ? x->name.n : y->name.n;
    int c = k ? memcmp(x->name.p, y->name.p, k) : 0;
    return c ? c : (x->name.n > y->name.n) - (x->name.n < y->name.n);
}

static const hlo_instruction *find_by_name(hlo_instruction **sorted, uint32_t n, pq_str name)
{
    hlo_instruction key = {.name = name};
    const hlo_instruction *kp = &key;
    hlo_instruction **hit = bsearch(&kp, sorted, n, sizeof *sorted, name_cmp);
    return hit ? *hit : NULL;
}

static pq_str keep(fused_ctx *z, const char *p, size_t n)
{
    char *t = n ? arena_strndup(z->strings, p, n) : NULL;
    if (n && !t)
        z->oom = 1;
    return t ? pq_str_of(t, n) : pq_str_of("", 0);
}

/* One fused instruction INS appended to Z (its text built), or 0 when out of memory. */
static int push(fused_ctx *z, const hlo_instruction *ins)
{
    if (z->n == z->cap) {
        uint32_t cap = z->cap ? z->cap * 2 : 16;
        pq_fused_op *v = pq_realloc_array(z->v, cap, sizeof *v);
        if (!v)
            return 0;
        z->v = v;
        z->cap = cap;
    }
    pq_fused_op *f = &z->v[z->n++];
    memset(f, 0, sizeof *f);
    f->name = ins->name;
    f->category = ops_hlo_category(ins->opcode, ins->fusion_kind);
    buf b;
    buf_init(&b, NULL);
    hlo_text_instruction(&b, z->m, ins);
    size_t text = b.n;
    buf_put(&b, ins->op_name.p, ins->op_name.n);
    buf_putc(&b, ':');
    buf_put(&b, ins->op_type.p, ins->op_type.n);
    if (b.status != PQ_OK) {
        buf_release(&b);
        return 0;
    }
    pq_str all = keep(z, b.p, b.n);
    buf_release(&b);
    if (z->oom)
        return 0;
    f->expression = pq_str_of(all.p, text);
    f->provenance = pq_str_of(all.p + text, all.n - text);
    return 1;
}

/* Appends the fused instructions of fusion INS, each followed by its own; returns how many
 * INS has directly, -1 when out of memory. */
static int add_fused(fused_ctx *z, const hlo_instruction *ins, int depth)
{
    if (!pq_str_eq(ins->opcode, "fusion") || !ins->ncalled || depth > MAX_FUSION_DEPTH)
        return 0;
    const hlo_computation *c = NULL;
    for (uint32_t i = 0; i < z->m->ncomputations && !c; i++)
        if (z->m->computations[i].id == ins->called_computation_ids[0])
            c = &z->m->computations[i];
    if (!c)
        return 0;
    int n = 0;
    for (uint32_t i = 0; i < c->ninstructions; i++) {
        const hlo_instruction *k = &c->instructions[i];
        if (pq_str_eq(k->opcode, "parameter") || pq_str_eq(k->opcode, "tuple"))
            continue;
        uint32_t at = z->n;
        if (!push(z, k))
            return -1;
        int kids = add_fused(z, k, depth + 1);
        if (kids < 0)
            return -1;
        z->v[at].nkids = (uint32_t)kids;
        z->v[at].size = z->n - at;
        n++;
    }
    return n;
}

int ops_tpu_fused(model_ops *t, const pq_source *src, const pq_program *pg, arena *strings)
{
    arena a;
    arena_init(&a);
    hlo_module *m = NULL;
    int64_t off;
    const char *what;
    pq_status st = hlo_decode(pg->hlo, pg->hlo_len, src->file.data, &a, &m, &off, &what);
    if (st != PQ_OK) { /* a proto that does not decode only loses its annotations */
        arena_release(&a);
        return st != PQ_ERR_NOMEM;
    }
    uint32_t total = 0;
    for (uint32_t ci = 0; ci < m->ncomputations; ci++)
        total += m->computations[ci].ninstructions;
    hlo_instruction **sorted = pq_malloc_array(total ? total : 1, sizeof *sorted);
    fused_ctx z = {m, strings, NULL, 0, 0, 0};
    int ok = sorted != NULL;
    uint32_t n = 0;
    for (uint32_t ci = 0; ok && ci < m->ncomputations; ci++)
        for (uint32_t ii = 0; ii < m->computations[ci].ninstructions; ii++)
            sorted[n++] = &m->computations[ci].instructions[ii];
    if (ok)
        qsort(sorted, n, sizeof *sorted, name_cmp);
    for (size_t i = model_ops_next(t, pg->program_id, 0); ok && i < t->n;
         i = model_ops_next(t, pg->program_id, i + 1)) {
        model_op *r = &t->v[i];
        const hlo_instruction *ins = find_by_name(sorted, n, r->name);
        if (!ins)
            continue;
        z.n = 0;
        int kids = add_fused(&z, ins, 0);
        if (kids < 0) {
            ok = 0;
            break;
        }
        if (!kids)
            continue;
        pq_fused_op *copy = arena_alloc(strings, z.n * sizeof *copy);
        if (!copy) {
            ok = 0;
            break;
        }
        memcpy(copy, z.v, z.n * sizeof *copy);
        r->fused = copy;
        r->nfused = (uint32_t)kids;
    }
    pq_free(z.v);
    pq_free(sorted);
    arena_release(&a);
    return ok;
}
