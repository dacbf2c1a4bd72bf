/* xplane_xla.c - the ops of an XSpace's GPU kernels and XLA:CPU thunks, into the model
 * (model/ops.h), at load: on every GPU plane with an `hlo_op` stat (its raw lines: XProf's
 * derived lines, ids 0xdeadbeef and up, are left out), and on the /host:CPU planes with one
 * of a source that has no TPU or GPU plane (a CPU-only run: the ops analysis reads host
 * threads only then), each event whose metadata or own stats state hlo_op is an XLA op. Its
 * XLA stats (hlo_op, hlo_module, tf_op, program id, flops, bytes_accessed: xp_xla_class) are
 * kept once per distinct set per plane, each event pointing to its set (xp_line.xla), and
 * each set states its op, keyed by (program, the hlo_op after its last "::"): a custom-call
 * op (its figures come per event) with, on GPUs, tf_op as its provenance.
 *
 * Read during the walk that validates the lines (xplane.c's read_line_fast hands each event
 * of such a plane to xla_capture_event: no second walk); the ops are stated once every
 * plane is read (a program id may come from the name of an HloProto located last).
 * `profq scan` (which reads no op) captures nothing. Not here: TensorCore ops
 * (xplane_ops.c, from metadata), the times of the executions and the HloProto's
 * enrichments (analysis/ops_*.c). */
#include "xplane.h"

#include "core/alloc.h"
#include "core/hmap.h"
#include "xplane_opstats.h"
#include "xplane_walk.h"
#include "xplane_xla.h"

#include <stdint.h>
#include <string.h>

pq_str xp_last_hlo_op(pq_str s)
{
    for (size_t i = s.n; i >= 2; i--)
        if (s.p[i - 1] == ':' && s.p[i - 2] == ':')
            return pq_str_of(s.p + i, s.n - i);
    return s;
}

int xp_paren_id(pq_str s, uint64_t *out)
{
    if (s.n < 3 || s.p[s.n - 1] != ')')
        return 0;
    size_t i = s.n - 1;
    uint64_t v = 0, mul = 1;
    while (i > 0 && s.p[i - 1] >= '0' && s.p[i - 1] <= '9') {
        v += (uint64_t)(s.p[i - 1] - '0') * mul;
        mul *= 10;
        i--;
    }
    if (i == s.n - 1 || i == 0 || s.p[i - 1] != '(')
        return 0;
    *out = v;
    return 1;
}

static int same_str(pq_str a, pq_str b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

/* The program id of MODULE: its "(N)" suffix, else the id of the HloProto of that name. */
static uint64_t program_by_module(const pq_source *src, pq_str module, int *found)
{
    uint64_t id;
    if (xp_paren_id(module, &id)) {
        *found = 1;
        return id;
    }
    for (uint32_t i = 0; i < src->nprograms; i++)
        if (same_str(src->programs[i].name, module)) {
            *found = 1;
            return src->programs[i].program_id;
        }
    *found = 0;
    return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* Cheap on purpose (one per event): the figures, the lengths and the last bytes of hlo_op,
 * which tell XLA's op names apart (".123"); the equality compares everything. */
static uint64_t class_hash(const xp_xla_class *c)
{
    uint64_t f, b, tail = 0;
    memcpy(&f, &c->flops, sizeof f);
    memcpy(&b, &c->bytes, sizeof b);
    size_t n = c->hlo_op.n < 8 ? c->hlo_op.n : 8;
    if (n)
        memcpy(&tail, c->hlo_op.p + c->hlo_op.n - n, n);
    uint64_t h = mix(mix(mix(c->pid, f), b), tail);
    return mix(h, (uint64_t)c->hlo_op.n << 40 ^ (uint64_t)c->module.n << 20 ^ c->tf_op.n);
}

typedef struct class_key {
    const xla_class_set *set;
    const xp_xla_class *c;
} class_key;

static int class_same(void *ctx, uint32_t v)
{
    const class_key *k = ctx;
    const xp_xla_class *a = &k->set->v[v], *b = k->c;
    return a->pid == b->pid && !memcmp(&a->flops, &b->flops, sizeof a->flops) &&
           !memcmp(&a->bytes, &b->bytes, sizeof a->bytes) && same_str(a->hlo_op, b->hlo_op) &&
           same_str(a->module, b->module) && same_str(a->tf_op, b->tf_op);
}

/* The index + 1 of C in SET, added when new; 0 when out of memory. */
static uint32_t class_of(xla_class_set *set, const xp_xla_class *c)
{
    if (pq_hmap_reserve(&set->map, set->n + 1) != 0)
        return 0;
    uint64_t h = class_hash(c);
    class_key k = {set, c};
    size_t j = pq_hmap_probe(&set->map, h, class_same, &k);
    if (pq_hmap_found(&set->map, j))
        return pq_hmap_value(&set->map, j) + 1;
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 64;
        xp_xla_class *v = pq_realloc_array(set->v, cap, sizeof *v);
        if (!v || set->n >= UINT32_MAX - 1)
            return 0;
        set->v = v;
        set->cap = cap;
    }
    set->v[set->n] = *c;
    pq_hmap_put(&set->map, j, h, (uint32_t)set->n);
    return (uint32_t)++set->n;
}

/* The XLA stats of the event of metadata id MID at BODY (LEN bytes) into C (its metadata's
 * stats, read once per entry, then its own); 0 when it states no hlo_op. */
static int read_class(xla_capture *cp, int64_t mid, const uint8_t *body, size_t len,
                      xp_xla_class *c)
{
    const xp_plane *pl = cp->pl;
    op_stats o;
    const xp_event_meta *em = xp_event_meta_find(pl, mid);
    if (em) {
        size_t at = (size_t)(em - pl->emeta);
        if (!cp->mread[at]) {
            memset(&cp->ms[at], 0, sizeof cp->ms[at]);
            ops_read_op_stats(pl, &cp->ids, em->body, (uint32_t)em->body_len, 5, &cp->ms[at]);
            cp->mread[at] = 1;
        }
        o = cp->ms[at];
    } else {
        memset(&o, 0, sizeof o);
    }
    ops_read_op_stats(pl, &cp->ids, body, (uint32_t)len, 4, &o);
    if (!o.hlo_op.n)
        return 0;
    *c = (xp_xla_class){o.hlo_op, o.module, o.tf_op, o.pid, o.flops, o.bytes, 0, o.has_pid};
    return 1;
}

int xla_capture_begin(xla_capture *cp, pq_source *src, xp_plane *pl, int host_threads)
{
    memset(cp, 0, sizeof *cp);
    device_kind kind = device_kind_of_plane(pl->name);
    if (kind != DEV_GPU && (kind != DEV_HOST_THREADS || !host_threads))
        return 0;
    ops_stat_ids_init(pl, &cp->ids);
    if (cp->ids.id[S_HLO_OP] == INT64_MIN)
        return 0;
    cp->src = src;
    cp->pl = pl;
    cp->gpu = kind == DEV_GPU;
    cp->ms = pq_malloc_array(pl->nemeta ? pl->nemeta : 1, sizeof *cp->ms);
    cp->mread = pq_calloc(pl->nemeta ? pl->nemeta : 1, 1);
    cp->oom = !cp->ms || !cp->mread;
    return 1;
}

void xla_capture_event(xla_capture *cp, int64_t mid, const uint8_t *body, size_t len,
                       uint64_t index)
{
    xp_xla_class c;
    if (cp->oom || !read_class(cp, mid, body, len, &c))
        return;
    uint32_t at = class_of(&cp->set, &c);
    if (!at || index >= UINT32_MAX) {
        cp->oom = 1;
        return;
    }
    if (cp->npend == cp->cappend) {
        size_t cap = cp->cappend ? cp->cappend * 2 : 256;
        uint32_t *v = pq_realloc_array(cp->pend, cap, 2 * sizeof *v);
        if (!v) {
            cp->oom = 1;
            return;
        }
        cp->pend = v;
        cp->cappend = cap;
    }
    cp->pend[2 * cp->npend] = (uint32_t)index;
    cp->pend[2 * cp->npend + 1] = at;
    cp->npend++;
}

int xla_capture_line(xla_capture *cp, xp_line *line)
{
    size_t n = cp->npend;
    cp->npend = 0;
    if (cp->oom)
        return 0;
    if (!n || (cp->gpu && line->id >= 0xdeadbeefLL && line->id < 0xdeadbeefLL + 64))
        return 1; /* no XLA op, or one of XProf's derived lines */
    uint32_t *col = arena_alloc(&cp->src->mem, (size_t)line->events * sizeof *col);
    if (!col)
        return 0;
    memset(col, 0, (size_t)line->events * sizeof *col);
    for (size_t i = 0; i < n; i++)
        if (cp->pend[2 * i] < line->events)
            col[cp->pend[2 * i]] = cp->pend[2 * i + 1];
    line->xla = col;
    return 1;
}

int xla_capture_end(xla_capture *cp)
{
    int ok = !cp->oom;
    if (ok && cp->set.n) {
        xp_plane *pl = cp->pl;
        pl->xla = arena_alloc(&cp->src->mem, cp->set.n * sizeof *pl->xla);
        ok = pl->xla != NULL;
        if (ok) {
            memcpy(pl->xla, cp->set.v, cp->set.n * sizeof *pl->xla);
            pl->nxla = (uint32_t)cp->set.n;
        }
    }
    pq_free(cp->ms);
    pq_free(cp->mread);
    pq_free(cp->pend);
    pq_free(cp->set.v);
    pq_hmap_free(&cp->set.map);
    memset(cp, 0, sizeof *cp);
    return ok;
}

/* Plane PL's XLA stats state their ops into src->ops (their program ids resolved first). */
static int state_plane(pq_source *src, xp_plane *pl, int gpu)
{
    for (uint32_t i = 0; i < pl->nxla; i++) {
        xp_xla_class *c = &pl->xla[i];
        if (!c->pid_stated && c->module.n)
            c->pid = program_by_module(src, c->module, &c->pid_stated);
        model_op op;
        memset(&op, 0, sizeof op);
        op.program_id = c->pid;
        op.name = xp_last_hlo_op(c->hlo_op);
        op.custom_call = 1; /* the event stats are per occurrence: summed, not scaled */
        if (gpu)
            op.provenance = c->tf_op;
        size_t at = model_ops_state(&src->ops, &op);
        if (at == SIZE_MAX || at >= UINT32_MAX)
            return 0;
        c->op = (uint32_t)at + 1;
    }
    return 1;
}

int xplane_xla_ops(pq_source *src)
{
    int device = 0;
    for (uint32_t pi = 0; pi < src->nplanes; pi++)
        device |=
            xp_plane_is(src, &src->planes[pi], "TPU") || xp_plane_is(src, &src->planes[pi], "GPU");
    for (uint32_t pi = 0; pi < src->nplanes; pi++) {
        xp_plane *pl = &src->planes[pi];
        if (!pl->nxla)
            continue;
        int gpu = xp_plane_is(src, pl, "GPU");
        if (!gpu && (device || !xp_plane_is(src, pl, "CPU"))) {
            /* host threads beside a device: the ops analysis does not read them */
            pl->xla = NULL;
            pl->nxla = 0;
            for (uint32_t li = 0; li < pl->nlines; li++)
                pl->lines[li].xla = NULL;
            continue;
        }
        if (!state_plane(src, pl, gpu))
            return -1;
    }
    return 0;
}
