/* nsys_comm_stats.c - the notebook's summaries of the steady frame over the row tables of
 * nsys_comm.c (nsys_comm_int.h): per-thunk totals and runtime by HLO opcode over the top
 * modules (cell 16-17), collectives per instance, kind and message size (cell 20, spec
 * section 6 table), thunk variability (cell 21) and per-device bias of the top modules
 * (cell 22). Every string the result keeps is copied into its arena. */
#include "nsys_comm_int.h"

#include "core/alloc.h"
#include "core/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *dup_str(nsys_comm_result *r, const char *p, size_t n)
{
    const char *s = arena_strndup(&r->mem, p ? p : "", p ? n : 0);
    return s ? s : "";
}

static const char *op_str(nsys_comm_result *r, const nc_tables *t, uint32_t op)
{
    return dup_str(r, intern_str(&t->ops, op), intern_len(&t->ops, op));
}

/* Indexes of the thunks KEEP accepts, sorted stably by CMP (its context: the tables), with
 * room for as many again as scratch. Inlined into each caller so that the comparator is
 * too (qsort's comparator calls were most of nc_thunk_totals and nc_variability). */
PQ_SORT_INLINE size_t *select_rows(const nc_tables *t,
                                   int (*keep)(const nc_tables *, const nc_thunk *), pq_cmp_fn cmp,
                                   size_t *n)
{
    size_t *v = pq_malloc_array(t->nth + 1, 2 * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < t->nth; i++)
        if (keep(t, &t->th[i]))
            v[(*n)++] = i;
    pq_sort_inline(v, v + t->nth + 1, *n, sizeof *v, cmp, (void *)t);
    return v;
}

static int cmp_prog_op(const void *pa, const void *pb, void *ctx)
{
    const nc_tables *sort_ctx = ctx;
    const nc_thunk *a = &sort_ctx->th[*(const size_t *)pa], *b = &sort_ctx->th[*(const size_t *)pb];
    if (a->program != b->program)
        return a->program < b->program ? -1 : 1;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* Indexes of the thunks KEEP accepts in cmp_prog_op's order (program, op, index). The rows
 * come sorted by program (sort_thunks), so within each run of one program a counting sort by
 * op id (dense: t->ops) keeps the index order: linear, where the merge sort was most of
 * nc_thunk_totals and nc_variability. Rows not sorted by program take select_rows. */
static size_t *select_by_prog_op(const nc_tables *t,
                                 int (*keep)(const nc_tables *, const nc_thunk *), size_t *n)
{
    size_t nops = t->ops.n, *v = pq_malloc_array(t->nth + 1, 2 * sizeof *v);
    uint32_t *count = v ? pq_malloc_array(nops + 1, sizeof *count) : NULL;
    *n = 0;
    if (!count) {
        pq_free(v);
        return NULL;
    }
    int sorted = 1;
    for (size_t i = 0; i < t->nth; i++)
        if (keep(t, &t->th[i])) {
            sorted = sorted && (!*n || t->th[v[*n - 1]].program <= t->th[i].program);
            v[(*n)++] = i;
        }
    if (!sorted) {
        pq_free(v);
        pq_free(count);
        return select_rows(t, keep, cmp_prog_op, n);
    }
    size_t *tmp = v + t->nth + 1;
    for (size_t a = 0, b; a < *n; a = b) {
        int64_t prog = t->th[v[a]].program;
        for (b = a; b < *n && t->th[v[b]].program == prog; b++)
            ;
        memset(count, 0, (nops + 1) * sizeof *count);
        for (size_t i = a; i < b; i++)
            count[t->th[v[i]].op + 1]++;
        for (size_t k = 1; k <= nops; k++)
            count[k] += count[k - 1];
        for (size_t i = a; i < b; i++)
            tmp[count[t->th[v[i]].op]++] = v[i];
        memcpy(v + a, tmp, (b - a) * sizeof *v);
    }
    pq_free(count);
    return v;
}

static int keep_top(const nc_tables *t, const nc_thunk *h)
{
    return h->frame == FR_STEADY && nc_is_top(t, h->program);
}

static int cmp_total(const void *pa, const void *pb)
{
    const nsys_thunk_total *a = pa, *b = pb;
    if (a->ns != b->ns)
        return a->ns > b->ns ? -1 : 1;
    if (a->program_id != b->program_id)
        return a->program_id < b->program_id ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_opcode(const void *pa, const void *pb)
{
    const nsys_opcode_row *a = pa, *b = pb;
    if (a->ns != b->ns)
        return a->ns > b->ns ? -1 : 1;
    return strcmp(a->opcode, b->opcode);
}

static int opcodes(nsys_comm_result *r)
{
    r->opcodes = arena_alloc(&r->mem, (r->nthunks + 2) * sizeof *r->opcodes);
    if (!r->opcodes)
        return -1;
    for (size_t k = 0; k < r->nthunks; k++) {
        const nsys_thunk_total *x = &r->thunks[k];
        if (x->program_id == -1)
            continue;
        const char *op = *x->opcode ? x->opcode : "[unknown]";
        size_t j = 0;
        while (j < r->nopcodes && strcmp(r->opcodes[j].opcode, op))
            j++;
        if (j == r->nopcodes)
            r->opcodes[r->nopcodes++] = (nsys_opcode_row){op, 0, 0};
        r->opcodes[j].ns += x->ns;
    }
    if (r->nopcodes)
        qsort(r->opcodes, r->nopcodes, sizeof *r->opcodes, cmp_opcode);
    r->opcodes[r->nopcodes++] =
        (nsys_opcode_row){"GPU idle during modules", r->modules_ns - r->thunks_ns, 0};
    for (size_t j = 0; j < r->nopcodes; j++)
        r->opcodes[j].share = r->modules_ns ? (double)r->opcodes[j].ns / (double)r->modules_ns : 0;
    return 0;
}

int nc_thunk_totals(const nc_tables *t, nsys_comm_result *r)
{
    size_t n;
    size_t *v = select_by_prog_op(t, keep_top, &n);
    if (!v)
        return -1;
    r->thunks = arena_alloc(&r->mem, (n + 1) * sizeof *r->thunks);
    if (!r->thunks) {
        pq_free(v);
        return -1;
    }
    for (size_t i = 0, e; i < n; i = e) {
        const nc_thunk *h = &t->th[v[i]];
        int64_t ns = 0;
        for (e = i; e < n && t->th[v[e]].program == h->program && t->th[v[e]].op == h->op; e++)
            ns += t->th[v[e]].dur;
        const nsys_hlo_comm *c = &t->infos[h->info].c;
        r->thunks[r->nthunks++] = (nsys_thunk_total){
            .program_id = h->program,
            .name = op_str(r, t, h->op),
            .opcode = c->inst ? dup_str(r, c->inst->opcode.p, c->inst->opcode.n) : "",
            .op_name = c->inst ? dup_str(r, c->inst->op_name.p, c->inst->op_name.n) : "",
            .ns = ns,
            .communication = h->comm};
    }
    pq_free(v);
    if (r->nthunks)
        qsort(r->thunks, r->nthunks, sizeof *r->thunks, cmp_total);
    return opcodes(r);
}

/* ---- collectives ---- */

static int keep_comm(const nc_tables *t, const nc_thunk *h)
{
    (void)t;
    return h->comm && h->frame == FR_STEADY;
}

static int cmp_instance(const void *pa, const void *pb, void *ctx)
{
    const nc_tables *sort_ctx = ctx;
    const nc_thunk *a = &sort_ctx->th[*(const size_t *)pa], *b = &sort_ctx->th[*(const size_t *)pb];
    int ka = sort_ctx->infos[a->info].c.kind, kb = sort_ctx->infos[b->info].c.kind;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    if (a->program != b->program)
        return a->program < b->program ? -1 : 1;
    if (a->exec != b->exec)
        return a->exec < b->exec ? -1 : 1;
    if (a->tidx != b->tidx)
        return a->tidx < b->tidx ? -1 : 1;
    return a->dev < b->dev ? -1 : a->dev > b->dev;
}

static int cmp_size(const void *pa, const void *pb, void *ctx)
{
    const nc_tables *sort_ctx = ctx;
    const nc_thunk *a = &sort_ctx->th[*(const size_t *)pa], *b = &sort_ctx->th[*(const size_t *)pb];
    const nsys_hlo_comm *x = &sort_ctx->infos[a->info].c, *y = &sort_ctx->infos[b->info].c;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->message_bytes != y->message_bytes)
        return x->message_bytes < y->message_bytes ? -1 : 1;
    if (x->collective_size != y->collective_size)
        return x->collective_size < y->collective_size ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static nsys_coll_instance instance(const nc_tables *t, nsys_comm_result *r, const size_t *v,
                                   size_t i, size_t e)
{
    const nc_thunk *h = &t->th[v[i]];
    const nsys_hlo_comm *c = &t->infos[h->info].c;
    nsys_coll_instance in = {.kind = c->kind,
                             .program_id = h->program,
                             .execution = h->exec,
                             .thunk_index = h->tidx,
                             .devices = (uint32_t)(e - i),
                             .name = op_str(r, t, h->op),
                             .op_name =
                                 c->comm ? dup_str(r, c->comm->op_name.p, c->comm->op_name.n) : "",
                             .message_bytes = c->message_bytes,
                             .collective_size = c->collective_size,
                             .busbw_gbps = -INFINITY};
    double first = INFINITY, last = -INFINITY, fastest = INFINITY;
    for (size_t k = i; k < e; k++) {
        const nc_thunk *x = &t->th[v[k]];
        int64_t mb = t->infos[x->info].c.message_bytes;
        in.message_bytes = mb < in.message_bytes ? mb : in.message_bytes;
        in.busbw_gbps = fmax(in.busbw_gbps, x->busbw);
        double full = (double)(x->dur + x->hidden);
        first = fmin(first, x->start);
        last = fmax(last, x->start + full);
        fastest = fmin(fastest, full);
    }
    in.wait_ns = last - first - fastest;
    return in;
}

static int kind_rows(nsys_comm_result *r)
{
    size_t cap = NSYS_COLL_NKINDS;
    r->kinds = arena_alloc(&r->mem, cap * sizeof *r->kinds);
    double *bw = pq_malloc((r->ninstances + 1) * sizeof *bw);
    double *wt = pq_malloc((r->ninstances + 1) * sizeof *wt);
    if (!r->kinds || !bw || !wt) {
        pq_free(bw);
        pq_free(wt);
        return -1;
    }
    for (size_t i = 0, e; i < r->ninstances; i = e) {
        nsys_coll_kind_row k = {
            .kind = r->instances[i].kind, .busbw_max = -INFINITY, .wait_max_ms = -INFINITY};
        double sb = 0, sw = 0;
        for (e = i; e < r->ninstances && r->instances[e].kind == k.kind; e++) {
            const nsys_coll_instance *x = &r->instances[e];
            bw[e - i] = x->busbw_gbps;
            wt[e - i] = x->wait_ns / 1e6;
            sb += x->busbw_gbps;
            sw += x->wait_ns / 1e6;
            k.busbw_max = fmax(k.busbw_max, x->busbw_gbps);
            k.wait_max_ms = fmax(k.wait_max_ms, x->wait_ns / 1e6);
            k.rows += x->devices;
        }
        k.instances = e - i;
        k.busbw_mean = sb / (double)k.instances;
        k.wait_mean_ms = sw / (double)k.instances;
        k.busbw_median = nc_median(bw, k.instances);
        k.wait_median_ms = nc_median(wt, k.instances);
        r->kinds[r->nkinds++] = k;
    }
    pq_free(bw);
    pq_free(wt);
    return 0;
}

static int size_rows(const nc_tables *t, nsys_comm_result *r)
{
    size_t n;
    size_t *v = select_rows(t, keep_comm, cmp_size, &n);
    r->sizes = v ? arena_alloc(&r->mem, (n + 1) * sizeof *r->sizes) : NULL;
    if (!r->sizes) {
        pq_free(v);
        return -1;
    }
    for (size_t i = 0, e; i < n; i = e) {
        const nsys_hlo_comm *c = &t->infos[t->th[v[i]].info].c;
        nsys_coll_size_row s = {c->kind, c->message_bytes, c->collective_size, 0, 0, -INFINITY};
        for (e = i; e < n; e++) {
            const nsys_hlo_comm *x = &t->infos[t->th[v[e]].info].c;
            if (x->kind != c->kind || x->message_bytes != c->message_bytes ||
                x->collective_size != c->collective_size)
                break;
            s.busbw_mean += t->th[v[e]].busbw;
            s.busbw_max = fmax(s.busbw_max, t->th[v[e]].busbw);
        }
        s.rows = e - i;
        s.busbw_mean /= (double)s.rows;
        r->sizes[r->nsizes++] = s;
    }
    pq_free(v);
    return 0;
}

int nc_collectives(const nc_tables *t, nsys_comm_result *r)
{
    size_t n;
    size_t *v = select_rows(t, keep_comm, cmp_instance, &n);
    r->instances = v ? arena_alloc(&r->mem, (n + 1) * sizeof *r->instances) : NULL;
    if (!r->instances) {
        pq_free(v);
        return -1;
    }
    for (size_t i = 0, e; i < n; i = e) {
        const nc_thunk *h = &t->th[v[i]];
        for (e = i; e < n; e++) {
            const nc_thunk *x = &t->th[v[e]];
            if (x->program != h->program || x->exec != h->exec || x->tidx != h->tidx ||
                t->infos[x->info].c.kind != t->infos[h->info].c.kind)
                break;
        }
        r->instances[r->ninstances++] = instance(t, r, v, i, e);
    }
    pq_free(v);
    return kind_rows(r) || size_rows(t, r) ? -1 : 0;
}

/* ---- variability ---- */

static int keep_compute(const nc_tables *t, const nc_thunk *h)
{
    (void)t;
    return !h->comm && h->frame == FR_STEADY;
}

static int cmp_var(const void *pa, const void *pb)
{
    const nsys_var_row *a = pa, *b = pb;
    if (a->mean_ns != b->mean_ns)
        return a->mean_ns > b->mean_ns ? -1 : 1;
    if (a->program_id != b->program_id)
        return a->program_id < b->program_id ? -1 : 1;
    return strcmp(a->name, b->name);
}

int nc_variability(const nc_tables *t, nsys_comm_result *r)
{
    size_t n;
    size_t *v = select_by_prog_op(t, keep_compute, &n);
    nsys_var_row *over = v ? pq_malloc((n + 1) * sizeof *over) : NULL;
    if (!over) {
        pq_free(v);
        return -1;
    }
    for (size_t i = 0, e; i < n; i = e) {
        const nc_thunk *h = &t->th[v[i]];
        double s = 0, s2 = 0;
        for (e = i; e < n && t->th[v[e]].program == h->program && t->th[v[e]].op == h->op; e++)
            s += (double)t->th[v[e]].dur;
        double k = (double)(e - i), mean = s / k;
        for (size_t j = i; j < e; j++) {
            double d = (double)t->th[v[j]].dur - mean;
            s2 += d * d;
        }
        double sd = e - i > 1 ? sqrt(s2 / (k - 1)) : NAN;
        r->var_groups++;
        if (sd / mean > 0.10) /* NaN compares false */
            over[r->var_over++] =
                (nsys_var_row){h->program, op_str(r, t, h->op), e - i, mean, sd, sd / mean};
    }
    pq_free(v);
    if (r->var_over)
        qsort(over, r->var_over, sizeof *over, cmp_var);
    r->ntop = r->var_over < NSYS_VAR_TOP ? r->var_over : NSYS_VAR_TOP;
    memcpy(r->top, over, r->ntop * sizeof *over);
    double th = 0;
    for (size_t k = NSYS_VAR_TOP - 1; k < r->var_over && k <= NSYS_VAR_TOP; k++)
        th += over[k].mean_ns;
    r->var_mean_threshold_ns = th / 2;
    pq_free(over);
    return 0;
}
