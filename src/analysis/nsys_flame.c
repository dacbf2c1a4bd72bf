/* nsys_flame.c - the notebook's source and op_name flame graphs as folded stacks
 * (nsys_flame.h). Per thunk total: its instruction and the instructions of the computations
 * it calls (one level, as the notebook) give the candidate locations; the first non-empty
 * preference set gets the weight, split equally over its distinct members. A stack is a
 * sequence of interned frame names (each module's stack frame formatted once, on first
 * sight); equal stacks are merged by interning the id sequence.
 * Not here: the thunk totals (nsys_comm_stats.c), the drawing (render/nsys_flame.c). */
#include "nsys_flame.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/hash.h"

#include <stdio.h>
#include <string.h>

enum { MAX_FRAMES = 512, MAX_LOCS = 4096 };

static int graph_add(nsys_flame_graph *g, const uint32_t *f, uint32_t n, double ms)
{
    if (!n)
        return 0; /* no frame, no stack */
    uint32_t before = g->keys.n;
    /* Stack k is key k + 1: key 0 is the pool's "". */
    uint32_t id = intern_add(&g->keys, (const char *)f, n * sizeof *f) - 1;
    if (g->keys.failed)
        return -1;
    if (g->keys.n != before) { /* a new stack */
        if (g->n == g->cap) {
            size_t nc = g->cap ? g->cap * 2 : 64;
            nsys_flame_stack *s = pq_realloc_array(g->stacks, nc, sizeof *s);
            if (!s)
                return -1;
            g->stacks = s;
            g->cap = nc;
        }
        uint32_t *copy = pq_malloc_array(n, sizeof *copy);
        if (!copy)
            return -1;
        memcpy(copy, f, n * sizeof *f);
        g->stacks[g->n++] = (nsys_flame_stack){.frames = copy, .nframes = n, .ms = 0};
    }
    g->stacks[id].ms += ms;
    return 0;
}

/* One thunk's preference set: distinct frame-id sequences in order of first sight, at
 * most MAX_LOCS; emptied for the next thunk without freeing (a fresh intern pool per
 * thunk and set cost more than the rest of the flame analysis). */
typedef struct seqset {
    uint32_t *v; /* the sequences, concatenated */
    size_t nv, capv;
    uint32_t *at, *len; /* per sequence: start in v, length */
    uint32_t n, cap;
    pq_hmap index; /* hash of the sequence's bytes -> its index */
    int failed;
} seqset;

typedef struct seq_key {
    const seqset *s;
    const uint32_t *f;
    uint32_t n;
} seq_key;

static int same_seq(void *ctx, uint32_t v)
{
    const seq_key *k = ctx;
    return k->s->len[v] == k->n && memcmp(k->s->v + k->s->at[v], k->f, k->n * sizeof *k->f) == 0;
}

static int set_grow(seqset *s, uint32_t n)
{
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 16;
        uint32_t *at = pq_realloc_array(s->at, cap, sizeof *at);
        if (at)
            s->at = at;
        uint32_t *len = pq_realloc_array(s->len, cap, sizeof *len);
        if (len)
            s->len = len;
        if (!at || !len)
            return -1;
        s->cap = cap;
    }
    if (s->nv + n > s->capv) {
        size_t cap = s->capv ? s->capv * 2 : 256;
        while (cap < s->nv + n)
            cap *= 2;
        uint32_t *v = pq_realloc_array(s->v, cap, sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->capv = cap;
    }
    return pq_hmap_reserve(&s->index, (size_t)s->n + 1);
}

/* Adds F[0..N) to S unless S holds it (or MAX_LOCS sequences already). */
static void add_key(seqset *s, const uint32_t *f, uint32_t n)
{
    if (s->failed || s->n >= MAX_LOCS)
        return;
    if (set_grow(s, n) != 0) {
        s->failed = 1;
        return;
    }
    uint64_t h = hash_bytes((const char *)f, n * sizeof *f);
    seq_key k = {s, f, n};
    size_t slot = pq_hmap_probe(&s->index, h, same_seq, &k);
    if (pq_hmap_found(&s->index, slot))
        return;
    memcpy(s->v + s->nv, f, n * sizeof *f);
    s->at[s->n] = (uint32_t)s->nv;
    s->len[s->n] = n;
    s->nv += n;
    pq_hmap_put(&s->index, slot, h, s->n++);
}

static void set_clear(seqset *s)
{
    s->n = 0;
    s->nv = 0;
    if (s->index.cap > 256) /* a big set once: back to a small table */
        pq_hmap_free(&s->index);
    else if (s->index.cap)
        memset(s->index.val, 0, s->index.cap * sizeof *s->index.val);
    s->index.n = 0;
}

static void set_free(seqset *s)
{
    pq_free(s->v);
    pq_free(s->at);
    pq_free(s->len);
    pq_hmap_free(&s->index);
    memset(s, 0, sizeof *s);
}

/* Adds MS split over the distinct sequences of SET to G. */
static int add_set(nsys_flame_graph *g, const seqset *set, double ms)
{
    for (uint32_t k = 0; k < set->n; k++)
        if (graph_add(g, set->v + set->at[k], set->len[k], ms / set->n) != 0)
            return -1;
    return 0;
}

/* The name ids of one module's stack frames, each formatted on first sight only. */
typedef struct frame_memo {
    const hlo_module *m;
    uint32_t *ids; /* per stack frame: its name id + 1; 0 not formatted yet */
} frame_memo;

typedef struct fctx {
    nsys_flame_result *out;
    const hlo_module *m;
    uint32_t *frame_ids; /* m's frame_memo ids */
    frame_memo *memo;
    size_t nmemo;
    uint32_t active, unknown;
    seqset pref[3]; /* source: frames+op_name, unknown+op_name, unknown */
    seqset opn[2];  /* op_name: split path, unknown */
    uint32_t buf[MAX_FRAMES + 4];
    /* The previous op_name path (a copy) and its segments' ends and name ids: a path's
     * leading segments equal to the previous path's reuse their ids (same pool, same ids). */
    char *prev;
    size_t nprev, capprev;
    uint32_t prev_op, nseg, seg_end[MAX_FRAMES], seg_id[MAX_FRAMES];
    /* The previous instruction's stack (module, frame id, frames): consecutive
     * instructions often share it. */
    const hlo_module *last_m;
    int32_t last_frame;
    uint32_t nlast, last[MAX_FRAMES];
} fctx;

static uint32_t name_id(fctx *c, const char *p, size_t n)
{
    return intern_add(&c->out->names, p, n);
}

/* "file:line[:column][function]" of stack frame FRAME (1-based) of the module. */
static uint32_t frame_name(fctx *c, const hlo_stack_frame *fr)
{
    const hlo_module *m = c->m;
    int32_t li = fr->file_location_id - 1;
    if (li < 0 || (uint32_t)li >= m->nfile_locations)
        return name_id(c, "[bad stack frame]", 17);
    const hlo_file_location *fl = &m->file_locations[li];
    pq_str file = {"", 0}, fn = {"", 0};
    if (fl->file_name_id >= 1 && (uint32_t)fl->file_name_id <= m->nfile_names)
        file = m->file_names[fl->file_name_id - 1];
    if (fl->function_name_id >= 1 && (uint32_t)fl->function_name_id <= m->nfunction_names)
        fn = m->function_names[fl->function_name_id - 1];
    size_t need = file.n + fn.n + 48;
    char small[512];
    char *s = need <= sizeof small ? small : pq_malloc(need);
    if (!s)
        return 0;
    int k = snprintf(s, need, "%.*s:%d", (int)file.n, file.p ? file.p : "", (int)fl->line);
    if (fl->column)
        k += snprintf(s + k, need - (size_t)k, ":%d", (int)fl->column);
    k += snprintf(s + k, need - (size_t)k, "[%.*s]", (int)fn.n, fn.p ? fn.p : "");
    uint32_t id = name_id(c, s, (size_t)k);
    if (s != small)
        pq_free(s);
    return id;
}

/* Makes M the current module (c->m) with its frame name memo; -1 out of memory. */
static int use_module(fctx *c, const hlo_module *m)
{
    if (c->m == m && c->frame_ids)
        return 0;
    c->m = m;
    for (size_t k = 0; k < c->nmemo; k++)
        if (c->memo[k].m == m) {
            c->frame_ids = c->memo[k].ids;
            return 0;
        }
    frame_memo *fm = pq_realloc_array(c->memo, c->nmemo + 1, sizeof *fm);
    if (!fm)
        return -1;
    c->memo = fm;
    uint32_t *ids = pq_calloc(m->nstack_frames ? m->nstack_frames : 1, sizeof *ids);
    if (!ids)
        return -1;
    c->memo[c->nmemo++] = (frame_memo){m, ids};
    c->frame_ids = ids;
    return 0;
}

/* The frames of stack frame FRAME_ID into c->buf[1..], outermost first; their count. */
static uint32_t stack_of(fctx *c, int32_t frame_id)
{
    if (c->last_m == c->m && c->last_frame == frame_id) {
        memcpy(c->buf + 1, c->last, c->nlast * sizeof *c->last);
        return c->nlast;
    }
    uint32_t n = 0, tmp[MAX_FRAMES];
    c->last_frame = frame_id;
    while (frame_id > 0 && (uint32_t)frame_id <= c->m->nstack_frames && n < MAX_FRAMES) {
        const hlo_stack_frame *fr = &c->m->stack_frames[frame_id - 1];
        uint32_t *memo = &c->frame_ids[frame_id - 1];
        if (!*memo)
            *memo = frame_name(c, fr) + 1;
        tmp[n++] = *memo - 1;
        frame_id = fr->parent_frame_id;
    }
    for (uint32_t k = 0; k < n; k++)
        c->buf[1 + k] = tmp[n - 1 - k];
    memcpy(c->last, c->buf + 1, n * sizeof *c->last);
    c->nlast = n;
    c->last_m = c->m;
    return n;
}

/* Length of the common prefix of A[0..NA) and B[0..NB). */
static size_t common_prefix(const char *a, size_t na, const char *b, size_t nb)
{
    size_t n = na < nb ? na : nb, k = 0;
    while (k + 8 <= n && memcmp(a + k, b + k, 8) == 0)
        k += 8;
    while (k < n && a[k] == b[k])
        k++;
    return k;
}

/* The name ids of the '/'-separated segments of op_name path S[0..N) (its id OP; SAME
 * bytes in common with the previous path) into IDS (at most MAX_FRAMES - 1 segments
 * interned, as many ids); their count. A segment that ends where the previous path's
 * segment of the same rank ends, within their common prefix, is the same text: its id is
 * reused, not interned again (the pool and its order unchanged). */
static uint32_t op_path(fctx *c, const char *s, size_t n, uint32_t op, size_t same, uint32_t *ids)
{
    uint32_t k = 0;
    const char *p = s, *end = s + n;
    for (;;) {
        const char *q = memchr(p, '/', (size_t)(end - p));
        const char *e = q ? q : end;
        uint32_t at = (uint32_t)(e - s);
        if (k < MAX_FRAMES - 1) {
            if (!(k < c->nseg && c->seg_end[k] == at && at <= same))
                c->seg_id[k] = name_id(c, p, (size_t)(e - p));
            c->seg_end[k] = at;
            ids[k] = c->seg_id[k];
            k++;
        }
        if (!q)
            break;
        p = q + 1;
    }
    c->nseg = k;
    c->prev_op = op;
    if (n > c->capprev) {
        char *b = pq_realloc(c->prev, n);
        if (!b) { /* no memo: the next path interns every segment */
            c->nseg = 0;
            return k;
        }
        c->prev = b;
        c->capprev = n;
    }
    if (n)
        memcpy(c->prev, s, n);
    c->nprev = n;
    return k;
}

/* The locations of one instruction, into the preference sets. */
static void instruction_locs(fctx *c, const nsys_hlo_inst *in)
{
    uint32_t nf = stack_of(c, in->stack_frame_id);
    int has_op = in->op_name.n > 0;
    const char *s = in->op_name.p;
    size_t ns = in->op_name.n;
    size_t same = has_op && c->prev ? common_prefix(s, ns, c->prev, c->nprev) : 0;
    uint32_t op = !has_op                                   ? 0
                  : c->nseg && same == ns && ns == c->nprev ? c->prev_op /* the same path */
                                                            : name_id(c, s, ns);
    c->buf[0] = c->active;
    if (nf) {
        c->buf[1 + nf] = op;
        add_key(&c->pref[0], c->buf, 1 + nf + (has_op ? 1 : 0));
    }
    if (!has_op)
        return;
    uint32_t u[3] = {c->active, c->unknown, op};
    add_key(&c->pref[1], u, 3);
    c->buf[0] = c->active;
    add_key(&c->opn[0], c->buf, 1 + op_path(c, s, ns, op, same, c->buf + 1));
}

static void reset_sets(fctx *c)
{
    for (int k = 0; k < 3; k++)
        set_clear(&c->pref[k]);
    for (int k = 0; k < 2; k++)
        set_clear(&c->opn[k]);
}

static int sets_failed(const fctx *c)
{
    int f = 0;
    for (int k = 0; k < 3; k++)
        f |= c->pref[k].failed;
    for (int k = 0; k < 2; k++)
        f |= c->opn[k].failed;
    return f;
}

/* One thunk total: its locations, then the weight into both graphs. */
static pq_status one_thunk(fctx *c, nsys_hlo *h, const nsys_thunk_total *t, pq_error *err)
{
    reset_sets(c);
    const nsys_hlo_inst *in = NULL;
    if (h)
        FORWARD_IF_ERROR(nsys_hlo_find(h, t->program_id, t->name, strlen(t->name), &in, err));
    if (in) {
        const hlo_module *m;
        FORWARD_IF_ERROR(nsys_hlo_module(h, t->program_id, &m, err));
        if (use_module(c, m) != 0)
            return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        instruction_locs(c, in);
        for (uint32_t k = 0; k < in->ncalled; k++) {
            uint32_t ci = nsys_hlo_computation_index(c->m, in->called_ids[k]);
            const nsys_hlo_inst *insts;
            uint32_t n = 0;
            if (ci == UINT32_MAX)
                continue;
            FORWARD_IF_ERROR(nsys_hlo_computation_meta(h, t->program_id, ci, &insts, &n, err));
            for (uint32_t q = 0; q < n; q++)
                instruction_locs(c, &insts[q]);
        }
    } else {
        c->out->unknown_thunks++;
    }
    uint32_t u[2] = {c->active, c->unknown};
    add_key(&c->pref[2], u, 2);
    add_key(&c->opn[1], u, 2);
    if (sets_failed(c))
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    double ms = (double)t->ns / 1e6;
    const seqset *src = c->pref[0].n ? &c->pref[0] : c->pref[1].n ? &c->pref[1] : &c->pref[2];
    const seqset *opn = c->opn[0].n ? &c->opn[0] : &c->opn[1];
    if (add_set(&c->out->g[NSYS_FLAME_SOURCE], src, ms) != 0 ||
        add_set(&c->out->g[NSYS_FLAME_OP_NAME], opn, ms) != 0)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    return PQ_OK;
}

static nsys_hlo *dump_for(nsys_hlo *const *dumps, size_t ndumps, int64_t program, pq_error *err,
                          pq_status *st)
{
    for (size_t d = 0; d < ndumps; d++) {
        const hlo_module *m = NULL;
        if (!dumps[d])
            continue;
        *st = nsys_hlo_module(dumps[d], program, &m, err);
        if (*st != PQ_OK)
            return NULL;
        if (m)
            return dumps[d];
    }
    return NULL;
}

static int add_idle(nsys_flame_result *out, double inside_ms, double between_ms)
{
    static const char in_s[] = "[GPU idle during module execution]",
                      bt_s[] = "[GPU idle between module executions]";
    uint32_t in = intern_add(&out->names, in_s, sizeof in_s - 1);
    uint32_t bt = intern_add(&out->names, bt_s, sizeof bt_s - 1);
    for (int g = 0; g < NSYS_FLAME_NGRAPHS; g++)
        if (graph_add(&out->g[g], &in, 1, inside_ms > 0 ? inside_ms : 0) != 0 ||
            graph_add(&out->g[g], &bt, 1, between_ms > 0 ? between_ms : 0) != 0)
            return -1;
    return out->names.failed ? -1 : 0;
}

pq_status nsys_flame_compute(const nsys_comm_result *comm, nsys_hlo *const *dumps, size_t ndumps,
                             nsys_flame_result *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    fctx c = {.out = out};
    int ok = intern_init(&out->names) == 0;
    for (int g = 0; g < NSYS_FLAME_NGRAPHS; g++)
        ok = ok && intern_init(&out->g[g].keys) == 0;
    c.active = intern_add(&out->names, "[GPU active]", 12);
    c.unknown = intern_add(&out->names, "[Unknown]", 9);
    pq_status st = ok ? PQ_OK : err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t k = 0; k < comm->nthunks && st == PQ_OK; k++) {
        const nsys_thunk_total *t = &comm->thunks[k];
        nsys_hlo *h = dump_for(dumps, ndumps, t->program_id, err, &st);
        if (st == PQ_OK)
            st = one_thunk(&c, h, t, err);
    }
    if (st == PQ_OK && (add_idle(out, (double)(comm->modules_ns - comm->thunks_ns) / 1e6,
                                 (comm->wall_ns - (double)comm->modules_ns) / 1e6) != 0 ||
                        out->names.failed))
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (int k = 0; k < 3; k++)
        set_free(&c.pref[k]);
    for (int k = 0; k < 2; k++)
        set_free(&c.opn[k]);
    for (size_t k = 0; k < c.nmemo; k++)
        pq_free(c.memo[k].ids);
    pq_free(c.memo);
    pq_free(c.prev);
    if (st != PQ_OK)
        nsys_flame_free(out);
    return st;
}

void nsys_flame_free(nsys_flame_result *r)
{
    for (int g = 0; g < NSYS_FLAME_NGRAPHS; g++) {
        for (size_t k = 0; k < r->g[g].n; k++)
            pq_free(r->g[g].stacks[k].frames);
        pq_free(r->g[g].stacks);
        intern_free(&r->g[g].keys);
    }
    intern_free(&r->names);
    memset(r, 0, sizeof *r);
}
