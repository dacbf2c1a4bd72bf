/* nsys_hlo.c - thunk -> after-optimisation HLO instruction for nsys-jax archives
 * (nsys_hlo.h). A program's dump member is found by its file name (module_NNNN.*, NNNN the
 * program id, as the loader globs), decompressed (io/xz.h; or taken from the reader's
 * pq_source.nsys_dumps) and decoded with hlo_decode_lazy on the first lookup or by
 * nsys_hlo_preload on another thread; its instructions are indexed by name and id, and each
 * is decoded on lookup as far as asked (fill): its own fields, then the fields the loader
 * reads that formats/hlo.c leaves out in lazy mode (operand and called computation ids,
 * channel id, replica groups, the iota device list; read here from the instruction's own
 * bytes), its shape. Not here: the thunk tables and their statistics (nsys_comm.c). */
#include "nsys_hlo.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/hmap.h"
#include "core/pairmap.h"
#include "formats/nsysjax.h"
#include "formats/pbwire.h"
#include "io/xz.h"
#include "model/members.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct program {
    int64_t id;
    long member;        /* index in the source's members, -1 when none */
    const uint8_t *raw; /* an XSpace's HloProto (no member), in its mapped file */
    size_t raw_len;
    /* 0 not read, 1 read, -1 failed: set under LOCK, read without it once not 0 (a
     * preloading thread may load the program, nsys_hlo_preload) */
    atomic_int state;
    pthread_mutex_t lock;
    pq_status load_st; /* the failed load's status and error, reported by the first lookup */
    pq_error load_err;
    int load_err_pending;
    mapped_file pb;       /* the decompressed HloProto, when decompressed here */
    const uint8_t *bytes; /* the HloProto: pb's, or the reader's (pq_source.nsys_dumps) */
    size_t nbytes;
    arena mem;
    hlo_module *m;
    nsys_hlo_inst *insts; /* in slot (file) order; only name and id until filled */
    uint8_t *filled;      /* per slot: what of insts[slot] is decoded (F_*; fill) */
    uint32_t n;
    char *where; /* "ARCHIVE:MEMBER" (or the XSpace's path) for errors */
    pq_hmap by_name;
    pairmap by_id; /* (id, 0) -> slot */
    /* nsys_hlo_comm_of's results by the thunk's slot: (slot, 0) -> index in MEMO; read and
     * written under LOCK (a thread may classify ahead, nsys_hlo_comm_ahead) */
    pairmap memo_ix;
    nsys_hlo_comm *memo;
    size_t nmemo, capmemo;
} program;

struct nsys_hlo {
    const pq_source *src;   /* its nsys_dumps: decompressed by the reader */
    model_members *members; /* NULL: the programs of an XSpace */
    const char *path;
    const uint8_t *base; /* an XSpace's mapped file, for error offsets */
    program *progs;
    size_t nprogs;
    pthread_mutex_t members_lock; /* reads of MEMBERS (a libzip handle is not shared) */
    int locks;                    /* the mutexes are initialised (init_locks) */
};

/* The locks of H, once its programs are in place (a mutex is not moved). */
static void init_locks(nsys_hlo *h)
{
    pthread_mutex_init(&h->members_lock, NULL);
    for (size_t i = 0; i < h->nprogs; i++)
        pthread_mutex_init(&h->progs[i].lock, NULL);
    h->locks = 1;
}

pq_status nsys_hlo_open(const pq_source *src, nsys_hlo **out, pq_error *err)
{
    *out = NULL;
    nsys_hlo *h = pq_calloc(1, sizeof *h);
    if (!h)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    h->path = src->path;
    h->src = src;
    /* The source's members (a .zip or an extracted directory) through the model. */
    pq_status st = model_members_open(src, &h->members, err);
    if (st != PQ_OK) {
        pq_free(h);
        return st;
    }
    size_t n = model_members_count(h->members);
    for (size_t i = 0; i < n; i++) {
        const char *name = model_members_name(h->members, i);
        int64_t p = name ? nsysjax_dump_program(name) : -1;
        if (p < 0)
            continue;
        program *np = pq_realloc(h->progs, (h->nprogs + 1) * sizeof *np);
        if (!np) {
            nsys_hlo_close(h);
            return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        }
        h->progs = np;
        np[h->nprogs++] = (program){.id = p, .member = (long)i};
    }
    init_locks(h);
    *out = h;
    return PQ_OK;
}

pq_status nsys_hlo_open_xspace(const pq_source *src, nsys_hlo **out, pq_error *err)
{
    *out = NULL;
    nsys_hlo *h = pq_calloc(1, sizeof *h);
    program *pg = h ? pq_calloc(src->nprograms + 1, sizeof *pg) : NULL;
    if (!pg) {
        pq_free(h);
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    h->path = src->path;
    h->base = src->file.data;
    h->progs = pg;
    for (uint32_t i = 0; i < src->nprograms; i++) {
        const pq_program *p = &src->programs[i];
        if (p->hlo && p->hlo_len)
            pg[h->nprogs++] = (program){
                .id = (int64_t)p->program_id, .member = -1, .raw = p->hlo, .raw_len = p->hlo_len};
    }
    init_locks(h);
    *out = h;
    return PQ_OK;
}

void nsys_hlo_close(nsys_hlo *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->nprogs; i++) {
        program *p = &h->progs[i];
        mapfile_close(&p->pb);
        arena_release(&p->mem);
        pq_hmap_free(&p->by_name);
        pairmap_free(&p->by_id);
        pairmap_free(&p->memo_ix);
        pq_free(p->memo);
        if (h->locks)
            pthread_mutex_destroy(&p->lock);
    }
    if (h->locks)
        pthread_mutex_destroy(&h->members_lock);
    pq_free(h->progs);
    model_members_close(h->members);
    pq_free(h);
}

/* Counts (OUT NULL) or stores the int64 values of field NUM, packed or not, in P[0..N). */
static uint32_t read_ints(const uint8_t *p, size_t n, uint32_t num, int64_t *out)
{
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, p, n, p);
    uint32_t k = 0;
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != num)
            continue;
        if (f.wire == PB_VARINT) {
            if (out)
                out[k] = (int64_t)f.u;
            k++;
        } else if (f.wire == PB_LEN) {
            pb_cursor q;
            pb_init(&q, f.data, f.len, f.data);
            uint64_t v;
            while (q.p < q.end && pb_read_varint(&q, &v)) {
                if (out)
                    out[k] = (int64_t)v;
                k++;
            }
        }
    }
    return k;
}

/* How many int64 values field F holds as read_ints counts them. */
static uint32_t count_ints(const pb_field *f)
{
    if (f->wire == PB_VARINT)
        return 1;
    if (f->wire != PB_LEN)
        return 0;
    pb_cursor q;
    pb_init(&q, f->data, f->len, f->data);
    uint32_t k = 0;
    uint64_t v;
    while (q.p < q.end && pb_read_varint(&q, &v))
        k++;
    return k;
}

/* The *COUNT (counted before) int64 values of field NUM of P[0..N), in A. */
static int64_t *ints_field(arena *a, const uint8_t *p, size_t n, uint32_t num, uint32_t *count)
{
    if (!*count)
        return NULL;
    int64_t *v = arena_alloc(a, *count * sizeof *v);
    if (v)
        read_ints(p, n, num, v);
    return v;
}

/* One ReplicaGroup (replica_ids = 1) into the running count and uniform size. */
static void add_group(nsys_hlo_inst *in, const uint8_t *p, size_t n)
{
    int64_t size = read_ints(p, n, 1, NULL);
    if (in->nreplica_groups++ == 0)
        in->replica_group_size = size;
    else if (in->replica_group_size != size)
        in->replica_group_size = -1;
}

/* The fields formats/hlo.c does not decode lazily, from the instruction's bytes: one pass
 * for the scalar fields that also counts the operand (36) and called computation (38) ids,
 * then one pass storing the ids when there are some (five passes over every instruction
 * before). */
static void raw_fields(nsys_hlo_inst *in, const uint8_t *p, size_t n, arena *a)
{
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, p, n, p);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num == 2 && f.wire == PB_LEN) /* as hlo_instruction_decode: the last one */
            in->opcode = pq_str_of((const char *)f.data, f.len);
        else if (f.num == 36)
            in->noperands += count_ints(&f);
        else if (f.num == 38)
            in->ncalled += count_ints(&f);
        else if (f.num == 26 && f.wire == PB_VARINT)
            in->channel_id = (int64_t)f.u;
        else if (f.num == 49 && f.wire == PB_LEN)
            add_group(in, f.data, f.len);
        else if (f.num == 87 && f.wire == PB_LEN) { /* collective_device_list */
            pb_cursor q;
            pb_field g = {0};
            pb_init(&q, f.data, f.len, f.data);
            while (pb_next(&q, &g) == PB_FIELD) {
                if (g.num == 1 && g.wire == PB_LEN)
                    add_group(in, g.data, g.len);
                else if (g.num == 2 && g.wire == PB_LEN) { /* IotaReplicaGroupListProto */
                    pb_cursor r;
                    pb_field e = {0};
                    pb_init(&r, g.data, g.len, g.data);
                    while (pb_next(&r, &e) == PB_FIELD) {
                        if (e.num == 1 && e.wire == PB_VARINT)
                            in->iota_groups = (int64_t)e.u;
                        else if (e.num == 2 && e.wire == PB_VARINT)
                            in->iota_devices_per_group = (int64_t)e.u;
                    }
                }
            }
        }
    }
    in->operand_ids = ints_field(a, p, n, 36, &in->noperands);
    in->called_ids = ints_field(a, p, n, 38, &in->ncalled);
}

/* What of an instruction is decoded (program.filled; name, id and computation always are):
 * its own fields (hlo_instruction_decode), its opcode and raw ids (operands, called
 * computations, channel, replica groups; read from its bytes), its shape (needs F_OWN). */
enum { F_OWN = 1, F_RAW = 2, F_SHAPE = 4, F_ALL = 7 };

/* Decodes the parts WANT (F_*) of instruction REF into *IN that *STATE lacks. */
static pq_status fill_inst(program *pg, hlo_instruction_ref *ref, nsys_hlo_inst *in, unsigned want,
                           uint8_t *state, int64_t *off, const char **what)
{
    if (want & F_SHAPE)
        want |= F_OWN;
    if ((want & F_OWN) && !(*state & F_OWN)) {
        pq_status st = hlo_instruction_decode(pg->m, ref, &pg->mem, off, what);
        if (st != PQ_OK)
            return st;
        const hlo_instruction *d = ref->decoded;
        /* A nameless instruction (no field 1) gets "" rather than a NULL pointer, which the
         * name index would hash and compare with memcpy/memcmp (fuzz-nsyshlo). */
        in->name = d->name.p ? d->name : pq_str_of("", 0);
        in->opcode = d->opcode;
        in->op_type = d->op_type;
        in->op_name = d->op_name;
        in->stack_frame_id = d->stack_frame_id;
        *state |= F_OWN;
    }
    if ((want & F_SHAPE) && !(*state & F_SHAPE)) {
        hlo_shape *sh = NULL;
        pq_status st =
            hlo_decode_shape(ref->decoded->shape_bytes, pg->m->base, 0, &pg->mem, &sh, off, what);
        if (st != PQ_OK)
            return st;
        in->element_type = sh->element_type;
        for (uint32_t k = 0; k < sh->ndims; k++)
            in->elements *= sh->dims[k];
        in->memory_space = sh->has_layout ? sh->layout.memory_space : 0;
        *state |= F_SHAPE;
    }
    if ((want & F_RAW) && !(*state & F_RAW)) {
        raw_fields(in, ref->p, ref->len, &pg->mem);
        *state |= F_RAW;
    }
    return arena_failed(&pg->mem) ? PQ_ERR_NOMEM : PQ_OK;
}

typedef struct name_key {
    const program *pg;
    const char *p;
    size_t n;
} name_key;

static int same_name(void *ctx, uint32_t v)
{
    const name_key *k = ctx;
    pq_str s = k->pg->insts[v].name;
    return s.n == k->n && memcmp(s.p, k->p, k->n) == 0;
}

/* The name of the instruction serialized at REF (its last field 1, as formats/hlo.c keeps),
 * NULL .p when it has none; -1 when its fields do not parse (fill_inst then tells why). */
static int ref_name(const hlo_instruction_ref *ref, pq_str *name)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    *name = (pq_str){0};
    pb_init(&c, ref->p, ref->len, ref->p);
    while ((k = pb_next(&c, &f)) == PB_FIELD)
        if (f.num == 1 && f.wire == PB_LEN)
            *name = pq_str_of((const char *)f.data, f.len);
    return k == PB_ERROR ? -1 : 0;
}

/* Indexes every instruction by name and id; an instruction's other fields are decoded on
 * its first lookup (fill): the communication tables and flame read a few thousand of the
 * 17,269 instructions of the shared archive's program 16. */
static pq_status index_program(program *pg, int64_t *off, const char **what)
{
    hlo_module *m = pg->m;
    pg->n = m->nrefs;
    pg->insts = arena_alloc(&pg->mem, (pg->n ? pg->n : 1) * sizeof *pg->insts);
    pg->filled = arena_alloc(&pg->mem, pg->n ? pg->n : 1);
    if (!pg->insts || !pg->filled || pq_hmap_reserve(&pg->by_name, pg->n + 1) != 0)
        return PQ_ERR_NOMEM;
    for (uint32_t i = 0; i < pg->n; i++) {
        nsys_hlo_inst *in = &pg->insts[i];
        in->id = m->refs[i]->id;
        in->computation = m->refs[i]->computation;
        in->elements = 1;
        pq_str name;
        if (ref_name(m->refs[i], &name) != 0) {
            FORWARD_IF_ERROR(fill_inst(pg, m->refs[i], in, F_ALL, &pg->filled[i], off, what));
            name = in->name;
        }
        in->name = name.p ? name : pq_str_of("", 0); /* as fill_inst */
        name_key k = {pg, in->name.p, in->name.n};
        uint64_t hv = hash_bytes(in->name.p, in->name.n);
        size_t s = pq_hmap_probe(&pg->by_name, hv, same_name, &k);
        if (!pq_hmap_found(&pg->by_name, s))
            pq_hmap_put(&pg->by_name, s, hv, i);
        int fresh;
        uint32_t *slot = pairmap_slot(&pg->by_id, in->id, 0, &fresh);
        if (!slot)
            return PQ_ERR_NOMEM;
        *slot = i;
    }
    return PQ_OK;
}

/* Decodes the parts WANT (F_*) of instructions [FROM, FROM+N) of PG where not done yet;
 * errors name the dump. */
static pq_status fill(program *pg, uint32_t from, uint32_t n, unsigned want, pq_error *err)
{
    for (uint32_t i = from; i < from + n; i++) {
        if ((pg->filled[i] & want) == want)
            continue;
        int64_t off = -1;
        const char *what = "";
        pq_status st =
            fill_inst(pg, pg->m->refs[i], &pg->insts[i], want, &pg->filled[i], &off, &what);
        if (st == PQ_ERR_NOMEM)
            return err_set(err, st, NULL, -1, "out of memory");
        if (st != PQ_OK)
            return err_set(err, st, pg->where, off, "expected %s", what);
    }
    return PQ_OK;
}

static pq_status load_program(nsys_hlo *h, program *pg, pq_error *err)
{
    char where[1024];
    pq_status st = PQ_OK;
    if (pg->raw) {
        snprintf(where, sizeof where, "%s", h->path);
    } else {
        const char *name = model_members_name(h->members, (size_t)pg->member);
        snprintf(where, sizeof where, "%s:%s", h->path, name);
        for (uint32_t i = 0; i < h->src->nnsys_dumps && !pg->bytes; i++)
            if (strcmp(h->src->nsys_dumps[i].member, name) == 0) {
                pg->bytes = h->src->nsys_dumps[i].pb.data;
                pg->nbytes = h->src->nsys_dumps[i].pb.size;
            }
        if (!pg->bytes) {
            mapped_file xz = {0};
            pthread_mutex_lock(&h->members_lock);
            st = model_members_read(h->members, (size_t)pg->member, &xz, err);
            pthread_mutex_unlock(&h->members_lock);
            FORWARD_IF_ERROR(st);
            st = xz_decompress(xz.data, xz.size, where, &pg->pb, err);
            mapfile_close(&xz);
            if (st != PQ_OK)
                return st;
            pg->bytes = pg->pb.data;
            pg->nbytes = pg->pb.size;
        }
    }
    arena_init(&pg->mem);
    if (!(pg->where = arena_strndup(&pg->mem, where, strlen(where))))
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    int64_t off = -1;
    const char *what = "";
    st = pg->raw ? hlo_decode_lazy(pg->raw, pg->raw_len, h->base, &pg->mem, &pg->m, &off, &what)
                 : hlo_decode_lazy(pg->bytes, pg->nbytes, pg->bytes, &pg->mem, &pg->m, &off, &what);
    if (st == PQ_OK)
        st = index_program(pg, &off, &what);
    if (st == PQ_ERR_NOMEM)
        return err_set(err, st, NULL, -1, "out of memory");
    if (st != PQ_OK)
        return err_set(err, st, where, off, "expected %s", what);
    return PQ_OK;
}

/* Loads PG under its lock unless done; a failure is kept for the first lookup to report. */
static void load_locked(nsys_hlo *h, program *pg)
{
    if (atomic_load(&pg->state) != 0)
        return;
    pthread_mutex_lock(&pg->lock);
    if (atomic_load(&pg->state) == 0) {
        pg->load_st = load_program(h, pg, &pg->load_err);
        pg->load_err_pending = pg->load_st != PQ_OK;
        atomic_store(&pg->state, pg->load_st == PQ_OK ? 1 : -1);
    }
    pthread_mutex_unlock(&pg->lock);
}

void nsys_hlo_preload(nsys_hlo *h)
{
    for (size_t i = 0; h && i < h->nprogs; i++)
        load_locked(h, &h->progs[i]);
}

static pq_status get_program(nsys_hlo *h, int64_t id, program **out, pq_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < h->nprogs; i++) {
        program *pg = &h->progs[i];
        if (pg->id != id)
            continue;
        load_locked(h, pg);
        if (atomic_load(&pg->state) < 0) {
            pthread_mutex_lock(&pg->lock);
            pq_status st = pg->load_err_pending ? pg->load_st : PQ_OK;
            if (st != PQ_OK)
                *err = pg->load_err;
            pg->load_err_pending = 0;
            pthread_mutex_unlock(&pg->lock);
            if (st != PQ_OK)
                return st;
            return err_set(err, PQ_ERR_INPUT, h->path, -1, "a readable HLO dump for program %lld",
                           (long long)id);
        }
        *out = pg;
        return PQ_OK;
    }
    return PQ_OK;
}

pq_status nsys_hlo_module(nsys_hlo *h, int64_t program_id, const hlo_module **out, pq_error *err)
{
    program *pg;
    *out = NULL;
    FORWARD_IF_ERROR(get_program(h, program_id, &pg, err));
    if (pg)
        *out = pg->m;
    return PQ_OK;
}

/* The slot of the instruction NAME[0..LEN) of PG, UINT32_MAX when none. */
static uint32_t slot_of(program *pg, const char *name, size_t len)
{
    name_key k = {pg, name, len};
    size_t s = pq_hmap_probe(&pg->by_name, hash_bytes(name, len), same_name, &k);
    return pq_hmap_found(&pg->by_name, s) ? (uint32_t)pq_hmap_value(&pg->by_name, s) : UINT32_MAX;
}

pq_status nsys_hlo_find(nsys_hlo *h, int64_t program_id, const char *name, size_t len,
                        const nsys_hlo_inst **out, pq_error *err)
{
    program *pg;
    *out = NULL;
    FORWARD_IF_ERROR(get_program(h, program_id, &pg, err));
    uint32_t v = pg ? slot_of(pg, name, len) : UINT32_MAX;
    if (v == UINT32_MAX)
        return PQ_OK;
    FORWARD_IF_ERROR(fill(pg, v, 1, F_ALL, err));
    *out = &pg->insts[v];
    return PQ_OK;
}

pq_status nsys_hlo_by_id(nsys_hlo *h, int64_t program_id, int64_t id, const nsys_hlo_inst **out,
                         pq_error *err)
{
    program *pg;
    *out = NULL;
    FORWARD_IF_ERROR(get_program(h, program_id, &pg, err));
    uint32_t v = pg ? pairmap_get(&pg->by_id, id, 0) : UINT32_MAX;
    if (v == UINT32_MAX)
        return PQ_OK;
    FORWARD_IF_ERROR(fill(pg, v, 1, F_ALL, err));
    *out = &pg->insts[v];
    return PQ_OK;
}

uint32_t nsys_hlo_computation_index(const hlo_module *m, int64_t id)
{
    for (uint32_t c = 0; c < m->ncomputations; c++)
        if (m->computations[c].id == id)
            return c;
    return UINT32_MAX;
}

/* Computation COMP of PROGRAM_ID with the parts WANT (F_*) of its instructions; *PG (may be
 * NULL) gets its program. */
static pq_status computation(nsys_hlo *h, int64_t program_id, uint32_t comp, unsigned want,
                             program **pgo, const nsys_hlo_inst **out, uint32_t *n, pq_error *err)
{
    program *pg;
    *out = NULL;
    *n = 0;
    FORWARD_IF_ERROR(get_program(h, program_id, &pg, err));
    if (pgo)
        *pgo = pg;
    if (!pg || comp >= pg->m->ncomputations || !pg->m->computations[comp].ninstructions)
        return PQ_OK;
    const hlo_computation *c = &pg->m->computations[comp];
    FORWARD_IF_ERROR(fill(pg, c->refs[0].slot, c->ninstructions, want, err));
    *out = &pg->insts[c->refs[0].slot];
    *n = c->ninstructions;
    return PQ_OK;
}

pq_status nsys_hlo_computation(nsys_hlo *h, int64_t program_id, uint32_t comp,
                               const nsys_hlo_inst **out, uint32_t *n, pq_error *err)
{
    return computation(h, program_id, comp, F_ALL, NULL, out, n, err);
}

pq_status nsys_hlo_computation_meta(nsys_hlo *h, int64_t program_id, uint32_t comp,
                                    const nsys_hlo_inst **out, uint32_t *n, pq_error *err)
{
    return computation(h, program_id, comp, F_OWN, NULL, out, n, err);
}

int nsys_hlo_type_bits(int32_t type)
{
    const char *t = hlo_type_name(type);
    if (!strcmp(t, "pred") || !strncmp(t, "f8", 2))
        return 8;
    const char *d = t;
    while (*d >= 'a' && *d <= 'z')
        d++;
    if (d == t || !*d || (strncmp(t, "bf", 2) && !strchr("cfsu", t[0])) || d - t > 2)
        return 0;
    return atoi(d);
}

/* ---- communication (the HEAD loader's HloInstruction.communication_proto) ---- */

static const char *const COLL_NAMES[NSYS_COLL_NKINDS] = {"",
                                                         "all-gather",
                                                         "all-reduce",
                                                         "all-to-all",
                                                         "collective-broadcast",
                                                         "collective-permute",
                                                         "reduce-scatter",
                                                         "device-to-host",
                                                         "host-to-device"};

const char *nsys_coll_name(nsys_coll_kind k)
{
    return (unsigned)k < NSYS_COLL_NKINDS ? COLL_NAMES[k] : "";
}

static int str_is(pq_str s, const char *c)
{
    return s.n == strlen(c) && memcmp(s.p, c, s.n) == 0;
}

/* The collective kind of a collective opcode (START: also the -start forms the loader
 * accepts at top level), NONE otherwise. */
static nsys_coll_kind coll_opcode(pq_str op, int start)
{
    for (int k = NSYS_COLL_ALL_GATHER; k <= NSYS_COLL_REDUCE_SCATTER; k++) {
        const char *n = COLL_NAMES[k];
        size_t ln = strlen(n);
        if (op.n == ln && !memcmp(op.p, n, ln))
            return (nsys_coll_kind)k;
        if (start && op.n == ln + 6 && !memcmp(op.p, n, ln) && !memcmp(op.p + ln, "-start", 6) &&
            (k == NSYS_COLL_ALL_GATHER || k == NSYS_COLL_ALL_REDUCE || k == NSYS_COLL_PERMUTE))
            return (nsys_coll_kind)k;
    }
    return NSYS_COLL_NONE;
}

static int on_host(const nsys_hlo_inst *in)
{
    return in && in->memory_space == 5;
}

/* Operand I of IN in PROGRAM (NULL when absent). */
static pq_status operand(nsys_hlo *h, int64_t prog, const nsys_hlo_inst *in, uint32_t i,
                         const nsys_hlo_inst **out, pq_error *err)
{
    *out = NULL;
    return i < in->noperands ? nsys_hlo_by_id(h, prog, in->operand_ids[i], out, err) : PQ_OK;
}

/* A host offload: dynamic-slice whose result and operand 0 differ in host placement, or
 * dynamic-update-slice into a host (device) buffer from a device (host) one. */
static pq_status offload_kind(nsys_hlo *h, int64_t prog, const nsys_hlo_inst *in,
                              nsys_coll_kind *out, pq_error *err)
{
    const nsys_hlo_inst *a, *b;
    *out = NSYS_COLL_NONE;
    int dest = on_host(in);
    if (str_is(in->opcode, "dynamic-slice")) {
        FORWARD_IF_ERROR(operand(h, prog, in, 0, &a, err));
        if (a && dest != on_host(a))
            *out = dest ? NSYS_COLL_D2H : NSYS_COLL_H2D;
    } else if (str_is(in->opcode, "dynamic-update-slice")) {
        FORWARD_IF_ERROR(operand(h, prog, in, 0, &a, err));
        FORWARD_IF_ERROR(operand(h, prog, in, 1, &b, err));
        if (a && b && dest == on_host(a) && dest != on_host(b))
            *out = dest ? NSYS_COLL_D2H : NSYS_COLL_H2D;
    }
    return PQ_OK;
}

/* Walks the computation COMP_ID (and the ones its instructions call, DEPTH bounded) for
 * the first collective or offload instruction. *BUDGET bounds the instructions looked at
 * (computations called from many places would otherwise be walked once per path). */
static pq_status visit(nsys_hlo *h, int64_t prog, const hlo_module *m, int64_t comp_id, int depth,
                       uint32_t *budget, nsys_hlo_comm *out, pq_error *err)
{
    uint32_t c = nsys_hlo_computation_index(m, comp_id), n;
    const nsys_hlo_inst *v;
    program *pg;
    if (c == UINT32_MAX || depth > 32 || !*budget)
        return PQ_OK;
    /* The walk reads opcodes and called computations; the rest only of an offload candidate
     * (offload_kind) and of the collective found (size_comm). */
    FORWARD_IF_ERROR(computation(h, prog, c, F_RAW, &pg, &v, &n, err));
    for (uint32_t i = 0; i < n && !out->comm && *budget; i++, --*budget) {
        for (uint32_t k = 0; k < v[i].ncalled && !out->comm; k++)
            FORWARD_IF_ERROR(visit(h, prog, m, v[i].called_ids[k], depth + 1, budget, out, err));
        if (out->comm)
            break;
        nsys_coll_kind kind = coll_opcode(v[i].opcode, 0);
        uint32_t slot = (uint32_t)(&v[i] - pg->insts);
        if (kind == NSYS_COLL_NONE &&
            (str_is(v[i].opcode, "dynamic-slice") || str_is(v[i].opcode, "dynamic-update-slice"))) {
            FORWARD_IF_ERROR(fill(pg, slot, 1, F_ALL, err));
            FORWARD_IF_ERROR(offload_kind(h, prog, &v[i], &kind, err));
        }
        if (kind != NSYS_COLL_NONE) {
            FORWARD_IF_ERROR(fill(pg, slot, 1, F_ALL, err));
            out->kind = kind;
            out->comm = &v[i];
        }
    }
    return PQ_OK;
}

static int64_t inst_bytes(const nsys_hlo_inst *in)
{
    int bits = in ? nsys_hlo_type_bits(in->element_type) : 0;
    return bits ? in->elements * bits / 8 : -1;
}

/* Message size and collective size of OUT->comm (spec section 4). */
static pq_status size_comm(nsys_hlo *h, int64_t prog, nsys_hlo_comm *out, pq_error *err)
{
    const nsys_hlo_inst *c = out->comm, *src;
    if (out->kind == NSYS_COLL_D2H || out->kind == NSYS_COLL_H2D) {
        int dus = str_is(c->opcode, "dynamic-update-slice");
        FORWARD_IF_ERROR(operand(h, prog, c, dus ? 1 : 0, &src, err));
        out->message_bytes = inst_bytes(dus ? src : c);
        out->collective_size = 1;
        out->bw_corr = out->bus_corr = 1;
        return PQ_OK;
    }
    if (out->kind == NSYS_COLL_PERMUTE)
        out->collective_size = 2;
    else if (c->nreplica_groups)
        out->collective_size = c->replica_group_size;
    else
        out->collective_size = c->iota_devices_per_group > 0 ? c->iota_devices_per_group : -1;
    int64_t n = out->collective_size, total = 0;
    for (uint32_t i = 0; i < c->noperands && total >= 0; i++) {
        FORWARD_IF_ERROR(operand(h, prog, c, i, &src, err));
        int64_t b = inst_bytes(src);
        if (b >= 0 && out->kind == NSYS_COLL_REDUCE_SCATTER)
            b = n > 0 ? b / n : -1;
        total = b < 0 ? -1 : total + b;
    }
    out->message_bytes = total;
    double dn = (double)n;
    switch (out->kind) {
    case NSYS_COLL_ALL_GATHER:
    case NSYS_COLL_REDUCE_SCATTER:
        out->bw_corr = dn;
        out->bus_corr = (dn - 1) / dn;
        break;
    case NSYS_COLL_ALL_REDUCE:
        out->bw_corr = 1;
        out->bus_corr = 2 * (dn - 1) / dn;
        break;
    case NSYS_COLL_ALL_TO_ALL:
        out->bw_corr = 1;
        out->bus_corr = (dn - 1) / dn;
        break;
    default:
        out->bw_corr = out->bus_corr = 1;
    }
    return PQ_OK;
}

/* nsys_hlo_comm_of for the instruction IN of PG (its lock held). */
static pq_status classify(nsys_hlo *h, int64_t prog, const nsys_hlo_inst *in, nsys_hlo_comm *out,
                          pq_error *err)
{
    out->known = 1;
    out->inst = in;
    out->kind = coll_opcode(in->opcode, 1);
    if (out->kind != NSYS_COLL_NONE) {
        out->comm = in;
    } else if (str_is(in->opcode, "async-start") || str_is(in->opcode, "fusion")) {
        const hlo_module *m;
        FORWARD_IF_ERROR(nsys_hlo_module(h, prog, &m, err));
        uint32_t budget = 1u << 20;
        for (uint32_t k = 0; k < in->ncalled && !out->comm; k++)
            FORWARD_IF_ERROR(visit(h, prog, m, in->called_ids[k], 0, &budget, out, err));
    }
    return out->comm ? size_comm(h, prog, out, err) : PQ_OK;
}

/* nsys_hlo_comm_of on the loaded PG (state 1): the memo, else the instruction classified
 * and its result kept (not a failure: whoever asks again gets the error again). */
static pq_status comm_locked(nsys_hlo *h, program *pg, const char *name, size_t len,
                             nsys_hlo_comm *out, pq_error *err)
{
    uint32_t v = slot_of(pg, name, len);
    if (v == UINT32_MAX)
        return PQ_OK;
    uint32_t m = pairmap_get(&pg->memo_ix, v, 0);
    if (m != UINT32_MAX) {
        *out = pg->memo[m];
        return PQ_OK;
    }
    FORWARD_IF_ERROR(fill(pg, v, 1, F_ALL, err));
    FORWARD_IF_ERROR(classify(h, pg->id, &pg->insts[v], out, err));
    if (pg->nmemo == pg->capmemo) {
        size_t cap = pg->capmemo ? 2 * pg->capmemo : 64;
        nsys_hlo_comm *nm = pq_realloc_array(pg->memo, cap, sizeof *nm);
        if (!nm)
            return PQ_OK; /* only not kept */
        pg->memo = nm;
        pg->capmemo = cap;
    }
    int fresh;
    uint32_t *slot = pairmap_slot(&pg->memo_ix, v, 0, &fresh);
    if (slot) {
        *slot = (uint32_t)pg->nmemo;
        pg->memo[pg->nmemo++] = *out;
    }
    return PQ_OK;
}

static void comm_init(nsys_hlo_comm *out)
{
    memset(out, 0, sizeof *out);
    out->message_bytes = out->collective_size = -1;
}

pq_status nsys_hlo_comm_of(nsys_hlo *h, int64_t prog, const char *name, size_t len,
                           nsys_hlo_comm *out, pq_error *err)
{
    comm_init(out);
    program *pg;
    FORWARD_IF_ERROR(get_program(h, prog, &pg, err));
    if (!pg)
        return PQ_OK;
    pthread_mutex_lock(&pg->lock);
    pq_status st = comm_locked(h, pg, name, len, out, err);
    pthread_mutex_unlock(&pg->lock);
    return st;
}

void nsys_hlo_comm_ahead(nsys_hlo *h, int64_t prog, const char *name, size_t len)
{
    for (size_t i = 0; h && i < h->nprogs; i++) {
        program *pg = &h->progs[i];
        if (pg->id != prog)
            continue;
        /* A failed load stays for the first lookup to report (get_program would take it). */
        load_locked(h, pg);
        if (atomic_load(&pg->state) != 1)
            return;
        nsys_hlo_comm c;
        pq_error ignored;
        comm_init(&c);
        pthread_mutex_lock(&pg->lock);
        (void)comm_locked(h, pg, name, len, &c, &ignored);
        pthread_mutex_unlock(&pg->lock);
        return;
    }
}
