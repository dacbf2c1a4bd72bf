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
 * This is a walk of those planes' events after the one that validated them (the stat ids
 * and the programs the keys need are known only once every plane is read); `profq scan`
 * (which reads no op) skips it. GPU device planes hold kernels only, a small part of an
 * XSpace beside its host threads. Not here: TensorCore ops (xplane_ops.c, from metadata),
 * the times of the executions and the HloProto's enrichments (analysis/ops_*.c). */
#include "xplane.h"

#include "core/alloc.h"
#include "core/hmap.h"
#include "xplane_opstats.h"
#include "xplane_walk.h"

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

/* The classes of one plane while it is walked: a growable array and its hash index. */
typedef struct class_set {
    xp_xla_class *v;
    size_t n, cap;
    pq_hmap map;
} class_set;

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
    const class_set *set;
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
static uint32_t class_of(class_set *set, const xp_xla_class *c)
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

/* The XLA stats of event EV into C (the metadata's stats, MSTATS, read once per entry, then
 * the event's); 0 when it states no hlo_op. */
static int read_class(const pq_source *src, const xp_plane *pl, const stat_ids *ids,
                      const op_stats *mstats, const xp_event *ev, xp_xla_class *c)
{
    op_stats o = mstats ? *mstats : (op_stats){0};
    ops_read_op_stats(pl, ids, ev->stats, (uint32_t)ev->body_len, 4, &o);
    if (!o.hlo_op.n)
        return 0;
    *c = (xp_xla_class){o.hlo_op, o.module, o.tf_op, o.pid, o.flops, o.bytes, 0};
    if (!o.has_pid && o.module.n)
        c->pid = program_by_module(src, o.module, &o.has_pid);
    return 1;
}

/* Whether line LI of plane PL is walked: a GPU plane's raw lines, every host thread. */
static int walked_line(const xp_line *line, int gpu)
{
    return line->events && !(gpu && line->id >= 0xdeadbeefLL && line->id < 0xdeadbeefLL + 64);
}

/* The events of plane PL into SET and their lines' columns; 0 when out of memory. */
static int walk_plane(pq_source *src, xp_plane *pl, const stat_ids *ids, int gpu, class_set *set)
{
    /* the metadata entries' stats, read once each (0: not read yet, 1: read) */
    op_stats *ms = pq_malloc_array(pl->nemeta ? pl->nemeta : 1, sizeof *ms);
    unsigned char *read = pq_calloc(pl->nemeta ? pl->nemeta : 1, 1);
    int ok = ms && read;
    for (uint32_t li = 0; ok && li < pl->nlines; li++) {
        xp_line *line = &pl->lines[li];
        if (!walked_line(line, gpu))
            continue;
        uint32_t *col = NULL;
        uint64_t k = 0;
        xp_event_iter ei;
        xp_event ev;
        xp_events_begin(line, &ei);
        while (ok && k < line->events && xp_events_next(&ei, &ev)) {
            const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
            const op_stats *m = NULL;
            if (em) {
                size_t at = (size_t)(em - pl->emeta);
                if (!read[at]) {
                    memset(&ms[at], 0, sizeof ms[at]);
                    ops_read_op_stats(pl, ids, em->body, (uint32_t)em->body_len, 5, &ms[at]);
                    read[at] = 1;
                }
                m = &ms[at];
            }
            xp_xla_class c;
            if (read_class(src, pl, ids, m, &ev, &c)) {
                if (!col) {
                    col = arena_alloc(&src->mem, (size_t)line->events * sizeof *col);
                    ok = col != NULL;
                    if (ok)
                        memset(col, 0, (size_t)line->events * sizeof *col);
                    line->xla = col;
                }
                uint32_t at = ok ? class_of(set, &c) : 0;
                ok = at != 0;
                if (ok)
                    col[k] = at;
            }
            k++;
        }
    }
    pq_free(ms);
    pq_free(read);
    return ok;
}

/* Plane PL's classes into the source's arena and their ops into src->ops. */
static int state_plane(pq_source *src, xp_plane *pl, int gpu, const class_set *set)
{
    if (!set->n)
        return 1;
    pl->xla = arena_alloc(&src->mem, set->n * sizeof *pl->xla);
    if (!pl->xla)
        return 0;
    memcpy(pl->xla, set->v, set->n * sizeof *pl->xla);
    pl->nxla = (uint32_t)set->n;
    for (uint32_t i = 0; i < pl->nxla; i++) {
        xp_xla_class *c = &pl->xla[i];
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
        int gpu = xp_plane_is(src, pl, "GPU");
        if (!pl->events || !(gpu || (!device && xp_plane_is(src, pl, "CPU"))))
            continue;
        stat_ids ids;
        ops_stat_ids_init(pl, &ids);
        if (ids.id[S_HLO_OP] == INT64_MIN)
            continue;
        class_set set = {0};
        int ok = walk_plane(src, pl, &ids, gpu, &set) && state_plane(src, pl, gpu, &set);
        pq_free(set.v);
        pq_hmap_free(&set.map);
        if (!ok)
            return -1;
    }
    return 0;
}
