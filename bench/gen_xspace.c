/* gen_xspace.c - writes a large, realistic, deterministic XSpace for the benchmarks.
 *
 *   gen_xspace OUT [SIZE_BYTES [SEED [JOB]]]   SIZE accepts K/M/G suffixes; default 1G, seed 1
 *
 * JOB (default: SEED) seeds the programs (op names, FLOPs, bytes, categories), SEED the rest
 * (timings, host threads): the hosts of one job, as an SPMD pod runs them, are files with one
 * JOB and different SEEDs.
 *
 * The file looks like a JAX run on one host with four TPU cores: a /host:metadata plane
 * with fake "Hlo Proto" bytes per program; four /device:TPU:N planes with device
 * capabilities, per-HLO-op event metadata (display_name, program_id, symbol_id, flops,
 * bytes_accessed, hlo_category and tf_op as str or ref values) and the lines "Steps",
 * "XLA Modules" and "XLA Ops" (ops carry device_offset_ps / device_duration_ps, as libtpu
 * writes them); and a /host:CPU plane with 64 thread lines of TraceMe events carrying
 * group_id, step_num, ref-valued and double stats. Field numbers: spec/xprof-tools.md 1.
 *
 * A tool, not part of libprofq: it has its own tiny protobuf writer. It streams with
 * bounded memory: every line is generated twice from the same seeded RNG state, once to
 * measure it (so the plane's length prefix can be written first) and once to write it.
 * It writes OUT.tmp and renames it to OUT when complete, then prints the event count.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W_VARINT = 0, W_FIXED64 = 1, W_LEN = 2 };
enum { NTPU = 4, NTHREADS = 64, NPROGRAMS = 4 };

static void die(const char *what)
{
    fprintf(stderr, "gen_xspace: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

/* ---- a growable byte buffer with protobuf encoders ---- */

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
} wbuf;

static void wb_reserve(wbuf *b, size_t more)
{
    if (b->n + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        die("out of memory");
    b->p = p;
    b->cap = cap;
}

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

static void wb_varint(wbuf *b, uint64_t v)
{
    wb_reserve(b, 10);
    b->n += put_varint(b->p + b->n, v);
}

static void wb_raw(wbuf *b, const void *p, size_t n)
{
    wb_reserve(b, n);
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void wb_tag(wbuf *b, uint32_t num, uint32_t wire)
{
    wb_varint(b, (uint64_t)num << 3 | wire);
}

static void wb_uint(wbuf *b, uint32_t num, uint64_t v)
{
    wb_tag(b, num, W_VARINT);
    wb_varint(b, v);
}

static void wb_bytes(wbuf *b, uint32_t num, const void *p, size_t n)
{
    wb_tag(b, num, W_LEN);
    wb_varint(b, n);
    wb_raw(b, p, n);
}

static void wb_str(wbuf *b, uint32_t num, const char *s)
{
    wb_bytes(b, num, s, strlen(s));
}

/* ENTRY := a map<int64, message> entry {key KEY, value VALUE}. */
static void wb_map_entry(wbuf *entry, uint64_t key, const wbuf *value)
{
    entry->n = 0;
    wb_uint(entry, 1, key);
    wb_bytes(entry, 2, value->p, value->n);
}

/* M := an event or stat metadata message {id ID, name NAME}, to be extended. */
static void wb_named_meta(wbuf *m, uint64_t id, const char *name)
{
    m->n = 0;
    wb_uint(m, 1, id);
    wb_str(m, 2, name);
}

/* XStat: metadata_id 1; double 2, uint64 3, int64 4, str 5, bytes 6, ref 7. */
static void wb_stat_u(wbuf *b, uint32_t field, int64_t mid, uint32_t kind, uint64_t v)
{
    uint8_t tmp[32];
    size_t n = 0;
    n += put_varint(tmp + n, 1 << 3 | W_VARINT);
    n += put_varint(tmp + n, (uint64_t)mid);
    n += put_varint(tmp + n, kind << 3 | W_VARINT);
    n += put_varint(tmp + n, v);
    wb_bytes(b, field, tmp, n);
}

static void wb_stat_d(wbuf *b, uint32_t field, int64_t mid, double d)
{
    uint8_t tmp[32];
    uint64_t bits;
    size_t n = 0;
    memcpy(&bits, &d, 8);
    n += put_varint(tmp + n, 1 << 3 | W_VARINT);
    n += put_varint(tmp + n, (uint64_t)mid);
    tmp[n++] = 2 << 3 | W_FIXED64;
    for (int i = 0; i < 8; i++)
        tmp[n++] = (uint8_t)(bits >> (8 * i));
    wb_bytes(b, field, tmp, n);
}

static void wb_stat_s(wbuf *b, uint32_t field, int64_t mid, uint32_t kind, const void *p, size_t n)
{
    wbuf s = {0};
    wb_uint(&s, 1, (uint64_t)mid);
    wb_bytes(&s, kind, p, n);
    wb_bytes(b, field, s.p, s.n);
    free(s.p);
}

enum { K_DOUBLE = 2, K_UINT = 3, K_INT = 4, K_STR = 5, K_BYTES = 6, K_REF = 7 };

/* ---- output: counting or writing ---- */

typedef struct sink {
    FILE *f; /* NULL: count only */
    uint64_t n;
} sink;

static void sink_put(sink *s, const void *p, size_t n)
{
    if (s->f && n && fwrite(p, 1, n, s->f) != n)
        die("write");
    s->n += n;
}

/* Writes tag + length + the buffer as field NUM. */
static void sink_msg(sink *s, uint32_t num, const wbuf *b)
{
    uint8_t hdr[16];
    size_t h = put_varint(hdr, (uint64_t)num << 3 | W_LEN);
    h += put_varint(hdr + h, b->n);
    sink_put(s, hdr, h);
    sink_put(s, b->p, b->n);
}

/* Writes only the header of a length-delimited field whose LEN body bytes follow. */
static void sink_hdr(sink *s, uint32_t num, uint64_t len)
{
    uint8_t hdr[16];
    size_t h = put_varint(hdr, (uint64_t)num << 3 | W_LEN);
    h += put_varint(hdr + h, len);
    sink_put(s, hdr, h);
}

static uint64_t field_size(uint64_t len)
{
    return 1 + varint_size(len) + len; /* field numbers here are < 16: one tag byte */
}

/* ---- deterministic randomness ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static rng rng_for(uint64_t seed, uint64_t a, uint64_t b)
{
    rng r = {mix64(seed ^ mix64(a * 0x9e3779b97f4a7c15ULL ^ mix64(b + 0x632be59bd9b4e019ULL)))};
    return r;
}

static uint64_t rnd(rng *r)
{
    r->s += 0x9e3779b97f4a7c15ULL; /* splitmix64 */
    return mix64(r->s);
}

static uint64_t rnd_below(rng *r, uint64_t n)
{
    return n ? rnd(r) % n : 0;
}

/* ---- the shape of the run ---- */

typedef struct program {
    const char *name;
    uint64_t id;
    uint32_t nops;      /* HLO ops executed per run */
    uint32_t first_emd; /* event metadata id of op 0 on device planes */
} program;

static program programs[NPROGRAMS] = {
    {"jit_train_step", 1001, 2400, 0},
    {"jit_eval_step", 1002, 700, 0},
    {"jit_init", 1003, 120, 0},
    {"jit_convert_element_type", 1004, 2, 0},
};

static const char *const opcodes[] = {"fusion",
                                      "fusion",
                                      "fusion",
                                      "convolution",
                                      "dot",
                                      "copy",
                                      "all-reduce",
                                      "reduce",
                                      "add",
                                      "custom-call",
                                      "dynamic-update-slice",
                                      "transpose",
                                      "broadcast",
                                      "while"};
static const char *const categories[] = {
    "loop fusion",     "output fusion", "convolution fusion",     "convolution",
    "data formatting", "all-reduce",    "non-fusion elementwise", "custom-call"};
static const char *const tf_ops[] = {"jit(train_step)/jit(main)/dot_general",
                                     "jit(train_step)/jit(main)/transpose(jvp(attention))/mul",
                                     "jit(train_step)/jit(main)/mlp/add",
                                     "jit(train_step)/jit(main)/optimizer/adam/sqrt",
                                     "jit(train_step)/jit(main)/psum",
                                     "jit(eval_step)/jit(main)/reduce_sum",
                                     "jit(train_step)/jit(main)/conv_general_dilated",
                                     "jit(train_step)/jit(main)/layer_norm/rsqrt"};
static const char *const shapes[] = {"bf16[8,128,1024]{2,1,0:T(8,128)(2,1)}",
                                     "f32[1024]{0:T(1024)}",
                                     "bf16[4096,1024]{1,0:T(8,128)(2,1)}",
                                     "f32[8,128]{1,0:T(8,128)}",
                                     "s32[]",
                                     "bf16[8,2048,128]{2,1,0:T(8,128)(2,1)}"};
enum {
    NOPCODES = sizeof opcodes / sizeof *opcodes,
    NCATS = sizeof categories / sizeof *categories,
    NTFOPS = sizeof tf_ops / sizeof *tf_ops,
    NSHAPES = sizeof shapes / sizeof *shapes
};

/* Stat metadata of the device planes: these names, then the ref targets (categories and
 * tf ops) as further stat metadata, ids in order from 1. */
enum {
    D_PEAK_TFLOPS = 1,
    D_PEAK_HBM,
    D_PEAK_VMEM_RD,
    D_PEAK_VMEM_WR,
    D_MEMORY_SIZE,
    D_MEMORY_BW,
    D_CLOCK_RATE,
    D_CORE_COUNT,
    D_DEVICE_TYPE,
    D_HAS_MEGACORE,
    D_PROGRAM_ID,
    D_SYMBOL_ID,
    D_FLOPS,
    D_BYTES_ACCESSED,
    D_HLO_CATEGORY,
    D_TF_OP,
    D_RUN_ID,
    D_REPLICA_ID,
    D_QUEUE_ID,
    D_CORE_TYPE,
    D_CT,
    D_C,
    D_GROUP_ID,
    D_STEP_NUM,
    D_DEVICE_OFFSET,
    D_DEVICE_DURATION,
    D_ALL_REDUCE_ID,
    D_NAMED, /* first ref target */
};
static const char *const device_stat_names[] = {
    "",
    "peak_teraflops_per_second",
    "peak_hbm_bw_gigabytes_per_second",
    "peak_vmem_rd_bw_gigabytes_per_second",
    "peak_vmem_wr_bw_gigabytes_per_second",
    "memory_size",
    "memory_bandwidth",
    "clock_rate",
    "core_count",
    "device_type_string",
    "has_megacore",
    "program_id",
    "symbol_id",
    "flops",
    "bytes_accessed",
    "hlo_category",
    "tf_op",
    "run_id",
    "replica_id",
    "queue_id",
    "core_type",
    "_ct",
    "_c",
    "group_id",
    "step_num",
    "device_offset_ps",
    "device_duration_ps",
    "all_reduce_unique_id",
};

_Static_assert(sizeof device_stat_names / sizeof *device_stat_names == D_NAMED,
               "one name per device stat id");

/* Stat metadata of /host:CPU. */
enum {
    H_GROUP_ID = 1,
    H_STEP_NUM,
    H_PT,
    H_P,
    H_CT,
    H_C,
    H_SHAPE,
    H_LAYOUT,
    H_FRAGMENTATION,
    H_DURATION_US,
    H_BYTES_ALLOCATED,
    H_DEVICE_ORDINAL,
    H_NAMED, /* first ref target (the shapes) */
};
static const char *const host_stat_names[] = {
    "",
    "group_id",
    "step_num",
    "_pt",
    "_p",
    "_ct",
    "_c",
    "shape",
    "layout",
    "fragmentation",
    "duration_us",
    "bytes_allocated",
    "device_ordinal",
};

_Static_assert(sizeof host_stat_names / sizeof *host_stat_names == H_NAMED,
               "one name per host stat id");

static const char *const host_events[] = {
    "PjitFunction(train_step)",
    "PjRtStreamExecutorLoadedExecutable::Execute",
    "TpuExecutable::ExecuteAsync",
    "ThunkExecutor::Execute",
    "MemoryAllocation",
    "MemoryDeallocation",
    "BufferFromPyval",
    "TransferToDevice",
    "TransferFromDevice",
    "ParseArguments",
    "ExecuteHelper",
    "$core.py:1123 _pjit_call_impl",
    "$pjit.py:1250 cache_miss",
    "$train.py:88 train_step",
    "$dataset.py:40 __next__",
    "EventPool::AllocateEvent",
    "LocalDeviceState::ThenExecute",
    "XlaCompile",
    "tpu::System::Allocate",
    "TpuCompiler::RunHloPasses",
};
enum { NHOSTEVENTS = sizeof host_events / sizeof *host_events };

typedef struct gen {
    uint64_t seed, job; /* job: the programs' seed (see the top) */
    uint64_t target;
    uint64_t events, stats; /* counted while writing */
    uint32_t nplanes, nlines;
    wbuf ev, tmp;
} gen;

/* ---- /host:metadata ---- */

/* A small HloProto: hlo_module {name, entry_computation_name, computations, id}. */
static void fake_hlo(wbuf *out, const program *p)
{
    wbuf mod = {0}, comp = {0}, ins = {0};
    char name[96];
    wb_str(&mod, 1, p->name);
    wb_str(&mod, 2, "main");
    uint32_t ncomp = 1 + p->nops / 200;
    for (uint32_t c = 0; c < ncomp; c++) {
        comp.n = 0;
        if (c + 1 == ncomp)
            snprintf(name, sizeof name, "main");
        else
            snprintf(name, sizeof name, "fused_computation.%u", c);
        wb_str(&comp, 1, name);
        uint32_t nins = 1 + (p->nops / ncomp < 40 ? p->nops / ncomp : 40);
        for (uint32_t i = 0; i < nins; i++) {
            ins.n = 0;
            snprintf(name, sizeof name, "%s.%u", opcodes[(c + i) % NOPCODES], c * 100 + i);
            wb_str(&ins, 1, name);
            wb_str(&ins, 2, opcodes[(c + i) % NOPCODES]);
            wb_uint(&ins, 35, (uint64_t)c * 100 + i + 1);
            wb_bytes(&comp, 2, ins.p, ins.n);
        }
        wb_uint(&comp, 5, c + 1);
        wb_uint(&comp, 6, (uint64_t)c * 100 + nins);
        wb_bytes(&mod, 3, comp.p, comp.n);
    }
    wb_uint(&mod, 5, p->id);
    wb_uint(&mod, 6, ncomp);
    out->n = 0;
    wb_bytes(out, 1, mod.p, mod.n);
    free(mod.p);
    free(comp.p);
    free(ins.p);
}

static void metadata_plane(gen *g, wbuf *pl)
{
    wbuf em = {0}, entry = {0}, hlo = {0};
    char name[128];
    pl->n = 0;
    wb_uint(pl, 1, 1);
    wb_str(pl, 2, "/host:metadata");
    for (uint32_t i = 0; i < NPROGRAMS; i++) {
        const program *p = &programs[i];
        snprintf(name, sizeof name, "%s(%llu)", p->name, (unsigned long long)p->id);
        wb_named_meta(&em, i + 1, name);
        wb_str(&em, 4, name);
        fake_hlo(&hlo, p);
        wb_stat_s(&em, 5, 1, K_BYTES, hlo.p, hlo.n);
        wb_stat_u(&em, 5, 2, K_UINT, p->id);
        wb_map_entry(&entry, i + 1, &em);
        wb_bytes(pl, 4, entry.p, entry.n);
        g->stats += 2;
    }
    const char *snames[] = {"Hlo Proto", "program_id"};
    for (uint32_t i = 0; i < 2; i++) {
        wb_named_meta(&em, i + 1, snames[i]);
        wb_map_entry(&entry, i + 1, &em);
        wb_bytes(pl, 5, entry.p, entry.n);
    }
    free(em.p);
    free(entry.p);
    free(hlo.p);
}

/* ---- /device:TPU:N ---- */

typedef struct step_span {
    int64_t start_ps;
    int64_t train_end_ps;
    int64_t eval_start_ps, eval_end_ps; /* 0 when the step runs no eval */
} step_span;

typedef struct tpu_plane {
    uint32_t ordinal;
    uint64_t ops_budget;
    uint32_t nsteps;
    step_span *spans;
    uint64_t line_size[3]; /* Steps, XLA Modules, XLA Ops bodies */
} tpu_plane;

static const int64_t STEP_PERIOD_PS = 32000000000LL;  /* 32 ms per training step */
static const int64_t FIRST_STEP_PS = 5353251593250LL; /* session start to the first step */

/* Event metadata ids on device planes: op ids per program, then modules, then steps. */
static uint32_t total_ops(void)
{
    uint32_t n = 0;
    for (int i = 0; i < NPROGRAMS; i++)
        n += programs[i].nops;
    return n;
}

static uint32_t module_emd(uint32_t prog)
{
    return total_ops() + 1 + prog;
}

static uint32_t step_emd(uint32_t step)
{
    return total_ops() + NPROGRAMS + 1 + step;
}

/* One XEvent of the "XLA Ops" line into g->ev (the body), with stats. */
static void op_event(gen *g, uint32_t emd, int64_t off_ps, int64_t dur_ps, int extra, int count)
{
    wbuf *e = &g->ev;
    e->n = 0;
    wb_uint(e, 1, emd);
    wb_uint(e, 2, (uint64_t)off_ps);
    wb_uint(e, 3, (uint64_t)dur_ps);
    wb_stat_u(e, 4, D_DEVICE_OFFSET, K_UINT, (uint64_t)off_ps - 1234567);
    wb_stat_u(e, 4, D_DEVICE_DURATION, K_UINT, (uint64_t)dur_ps);
    if (extra)
        wb_stat_u(e, 4, D_ALL_REDUCE_ID, K_UINT, (uint64_t)extra);
    if (count) {
        g->events++;
        g->stats += 2 + (extra != 0);
    }
}

/* Emits the ops of one program run starting at T; returns the end time. */
static int64_t run_program(gen *g, sink *s, rng *r, uint32_t prog, int64_t t, int count)
{
    const program *p = &programs[prog];
    for (uint32_t i = 0; i < p->nops; i++) {
        uint64_t x = rnd(r);
        int64_t gap = (int64_t)(x & 0x3FFF) * 8;                /* up to 131 ns */
        int64_t dur = 100000 + (int64_t)((x >> 16) % 12000000); /* 0.1 .. 12 us */
        if ((x >> 40) % 16 == 0)
            dur *= 3; /* a few long convolutions */
        t += gap;
        int extra = i % 97 == 13 ? (int)(1 + i) : 0; /* the all-reduces carry an id */
        op_event(g, p->first_emd + i + 1, t, dur, extra, count);
        sink_msg(s, 4, &g->ev);
        t += dur;
    }
    return t;
}

/* The ops of step STEP (its own RNG stream, so each step can be generated alone). */
static step_span ops_step(gen *g, const tpu_plane *tp, uint32_t step, sink *s, int count)
{
    rng r = rng_for(g->seed, 100 + tp->ordinal, step);
    step_span sp = {0, 0, 0, 0};
    sp.start_ps = FIRST_STEP_PS + (int64_t)step * STEP_PERIOD_PS + (int64_t)rnd_below(&r, 50000);
    sp.train_end_ps = run_program(g, s, &r, 0, sp.start_ps, count);
    if (step % 10 == 9) {
        sp.eval_start_ps = sp.train_end_ps + 2000000;
        sp.eval_end_ps = run_program(g, s, &r, 1, sp.eval_start_ps, count);
    }
    return sp;
}

static void line_header(wbuf *b, int64_t id, const char *name, int64_t ts_ns)
{
    b->n = 0;
    wb_uint(b, 1, (uint64_t)id);
    wb_str(b, 2, name);
    wb_uint(b, 3, (uint64_t)ts_ns);
}

/* Decides how many steps fit the budget and measures the ops line. */
static void plan_tpu(gen *g, tpu_plane *tp)
{
    sink count = {NULL, 0};
    size_t cap = 64;
    tp->spans = malloc(cap * sizeof *tp->spans);
    if (!tp->spans)
        die("out of memory");
    line_header(&g->tmp, 2, "XLA Ops", 0);
    count.n = g->tmp.n;
    tp->nsteps = 0;
    do {
        if (tp->nsteps == cap) {
            cap *= 2;
            step_span *ns = realloc(tp->spans, cap * sizeof *ns);
            if (!ns)
                die("out of memory");
            tp->spans = ns;
        }
        tp->spans[tp->nsteps] = ops_step(g, tp, tp->nsteps, &count, 0);
        tp->nsteps++;
    } while (count.n < tp->ops_budget);
    tp->line_size[2] = count.n;
}

static void steps_line(gen *g, const tpu_plane *tp, sink *s, int count)
{
    line_header(&g->tmp, 3, "Steps", 0);
    sink_put(s, g->tmp.p, g->tmp.n);
    for (uint32_t k = 0; k < tp->nsteps; k++) {
        const step_span *sp = &tp->spans[k];
        int64_t end = sp->eval_end_ps ? sp->eval_end_ps : sp->train_end_ps;
        wbuf *e = &g->ev;
        e->n = 0;
        wb_uint(e, 1, step_emd(k));
        wb_uint(e, 2, (uint64_t)sp->start_ps);
        wb_uint(e, 3, (uint64_t)(end - sp->start_ps));
        wb_stat_u(e, 4, D_GROUP_ID, K_INT, k);
        wb_stat_u(e, 4, D_STEP_NUM, K_INT, k);
        sink_msg(s, 4, e);
        if (count) {
            g->events++;
            g->stats += 2;
        }
    }
}

static void modules_line(gen *g, const tpu_plane *tp, sink *s, int count)
{
    line_header(&g->tmp, 1, "XLA Modules", 0);
    sink_put(s, g->tmp.p, g->tmp.n);
    for (uint32_t k = 0; k < tp->nsteps; k++) {
        const step_span *sp = &tp->spans[k];
        for (int which = 0; which < 2; which++) {
            int64_t a = which ? sp->eval_start_ps : sp->start_ps;
            int64_t b = which ? sp->eval_end_ps : sp->train_end_ps;
            if (!b)
                continue;
            wbuf *e = &g->ev;
            e->n = 0;
            wb_uint(e, 1, module_emd((uint32_t)which));
            wb_uint(e, 2, (uint64_t)a);
            wb_uint(e, 3, (uint64_t)(b - a));
            wb_stat_u(e, 4, D_RUN_ID, K_UINT, 1000000 + k);
            wb_stat_u(e, 4, D_REPLICA_ID, K_INT, tp->ordinal);
            wb_stat_u(e, 4, D_QUEUE_ID, K_UINT, 0);
            wb_stat_u(e, 4, D_CORE_TYPE, K_UINT, 0);
            wb_stat_u(e, 4, D_CT, K_INT, 12);
            wb_stat_u(e, 4, D_C, K_INT, 0x5a00000000ULL + k * 8 + (uint64_t)which);
            sink_msg(s, 4, e);
            if (count) {
                g->events++;
                g->stats += 6;
            }
        }
    }
}

static void tpu_line(gen *g, const tpu_plane *tp, int which, sink *s, int count)
{
    if (which == 0) {
        steps_line(g, tp, s, count);
    } else if (which == 1) {
        modules_line(g, tp, s, count);
    } else {
        line_header(&g->tmp, 2, "XLA Ops", 0);
        sink_put(s, g->tmp.p, g->tmp.n);
        for (uint32_t k = 0; k < tp->nsteps; k++)
            ops_step(g, tp, k, s, count);
    }
}

/* The HLO text XLA writes as the event metadata name of a TPU op. */
static void op_text(char *out, size_t cap, rng *r, uint32_t i, const char **opcode)
{
    const char *op = opcodes[rnd_below(r, NOPCODES)];
    const char *sh = shapes[rnd_below(r, NSHAPES)];
    *opcode = op;
    if (strcmp(op, "fusion") == 0)
        snprintf(out, cap,
                 "%%fusion.%u = %s fusion(%s %%param.%u, %s %%get-tuple-element.%u), "
                 "kind=kLoop, calls=%%fused_computation.%u",
                 i, sh, shapes[rnd_below(r, NSHAPES)], i % 97, sh, i % 31, i);
    else
        snprintf(out, cap, "%%%s.%u = %s %s(%s %%p.%u)", op, i, sh, op,
                 shapes[rnd_below(r, NSHAPES)], i % 53);
}

/* Plane body minus lines: event metadata, stat metadata, plane stats. */
static void tpu_tail(gen *g, const tpu_plane *tp, sink *s)
{
    wbuf em = {0}, entry = {0};
    char name[512], disp[64];
    for (uint32_t prog = 0; prog < NPROGRAMS; prog++) {
        const program *p = &programs[prog];
        rng r = rng_for(g->job, 7, prog); /* same program on every core (and host of a job) */
        for (uint32_t i = 0; i < p->nops; i++) {
            const char *op;
            op_text(name, sizeof name, &r, i, &op);
            snprintf(disp, sizeof disp, "%s.%u", op, i);
            uint64_t id = p->first_emd + i + 1;
            wb_named_meta(&em, id, name);
            wb_str(&em, 4, disp);
            wb_stat_u(&em, 5, D_PROGRAM_ID, K_UINT, p->id);
            wb_stat_u(&em, 5, D_SYMBOL_ID, K_INT, i + 1);
            wb_stat_u(&em, 5, D_FLOPS, K_UINT, rnd_below(&r, 1ULL << 34));
            wb_stat_u(&em, 5, D_BYTES_ACCESSED, K_UINT, rnd_below(&r, 1ULL << 26));
            uint32_t cat = (uint32_t)rnd_below(&r, NCATS), tf = (uint32_t)rnd_below(&r, NTFOPS);
            if (i % 2)
                wb_stat_u(&em, 5, D_HLO_CATEGORY, K_REF, D_NAMED + cat);
            else
                wb_stat_s(&em, 5, D_HLO_CATEGORY, K_STR, categories[cat], strlen(categories[cat]));
            if (i % 3)
                wb_stat_u(&em, 5, D_TF_OP, K_REF, D_NAMED + NCATS + tf);
            else
                wb_stat_s(&em, 5, D_TF_OP, K_STR, tf_ops[tf], strlen(tf_ops[tf]));
            wb_map_entry(&entry, id, &em);
            sink_msg(s, 4, &entry);
            g->stats += s->f ? 6 : 0;
        }
    }
    for (uint32_t k = 0; k < NPROGRAMS + tp->nsteps; k++) {
        uint64_t id;
        if (k < NPROGRAMS) {
            id = module_emd(k);
            snprintf(name, sizeof name, "%s(%llu)", programs[k].name,
                     (unsigned long long)programs[k].id);
        } else {
            id = step_emd(k - NPROGRAMS);
            snprintf(name, sizeof name, "%u", k - NPROGRAMS);
        }
        wb_named_meta(&em, id, name);
        wb_map_entry(&entry, id, &em);
        sink_msg(s, 4, &entry);
    }
    uint32_t nnamed = D_NAMED + NCATS + NTFOPS;
    for (uint32_t id = 1; id < nnamed; id++) {
        const char *nm = id < D_NAMED           ? device_stat_names[id]
                         : id < D_NAMED + NCATS ? categories[id - D_NAMED]
                                                : tf_ops[id - D_NAMED - NCATS];
        wb_named_meta(&em, id, nm);
        wb_map_entry(&entry, id, &em);
        sink_msg(s, 5, &entry);
    }
    /* Device capabilities (a TPU v4 core). */
    entry.n = 0;
    wb_stat_d(&entry, 6, D_PEAK_TFLOPS, 275.0);
    wb_stat_d(&entry, 6, D_PEAK_HBM, 1228.8);
    wb_stat_d(&entry, 6, D_PEAK_VMEM_RD, 22118.4);
    wb_stat_d(&entry, 6, D_PEAK_VMEM_WR, 11059.2);
    wb_stat_u(&entry, 6, D_MEMORY_SIZE, K_UINT, 34359738368ULL);
    wb_stat_u(&entry, 6, D_MEMORY_BW, K_UINT, 1228800000000ULL);
    wb_stat_u(&entry, 6, D_CLOCK_RATE, K_UINT, 1050000);
    wb_stat_u(&entry, 6, D_CORE_COUNT, K_UINT, 2);
    wb_stat_s(&entry, 6, D_DEVICE_TYPE, K_STR, "TPU v4", 6);
    wb_stat_u(&entry, 6, D_HAS_MEGACORE, K_INT, 1);
    sink_put(s, entry.p, entry.n);
    g->stats += s->f ? 10 : 0;
    free(em.p);
    free(entry.p);
}

static void tpu_body(gen *g, tpu_plane *tp, sink *s)
{
    char name[32];
    snprintf(name, sizeof name, "/device:TPU:%u", tp->ordinal);
    g->tmp.n = 0;
    wb_uint(&g->tmp, 1, 100 + tp->ordinal);
    wb_str(&g->tmp, 2, name);
    sink_put(s, g->tmp.p, g->tmp.n);
    for (int k = 0; k < 3; k++) {
        sink_hdr(s, 3, tp->line_size[k]);
        if (s->f) {
            uint64_t before = s->n;
            tpu_line(g, tp, k, s, 1);
            if (s->n - before != tp->line_size[k])
                die("internal: a line changed size between passes");
        } else {
            s->n += tp->line_size[k];
        }
    }
    tpu_tail(g, tp, s);
}

static void write_tpu(gen *g, FILE *f, uint32_t ordinal, uint64_t budget)
{
    tpu_plane tp = {ordinal, 0, 0, NULL, {0, 0, 0}};
    tp.ops_budget = budget;
    plan_tpu(g, &tp);
    /* The small lines are a fraction of the budget; count them too. */
    for (int k = 0; k < 2; k++) {
        sink count = {NULL, 0};
        tpu_line(g, &tp, k, &count, 0);
        tp.line_size[k] = count.n;
    }
    sink count = {NULL, 0};
    tpu_body(g, &tp, &count);
    sink out = {f, 0};
    sink_hdr(&out, 1, count.n);
    out.n = 0;
    tpu_body(g, &tp, &out);
    if (out.n != count.n)
        die("internal: a plane changed size between passes");
    g->nplanes++;
    g->nlines += 3;
    free(tp.spans);
}

/* ---- /host:CPU ---- */

static const char *const thread_names[] = {
    "python3",          "py_xla_execute",     "pjrt-tpu-tasks",
    "tf_XLAEigen",      "EventFDAsyncWorker", "tpu_host_to_device",
    "grpc_global_timer"};
enum { NTHREADNAMES = sizeof thread_names / sizeof *thread_names };

/* One thread's line: events until the line body reaches BUDGET bytes. */
static void host_line(gen *g, uint32_t t, uint64_t budget, sink *s, int count)
{
    rng r = rng_for(g->seed, 1000, t);
    char name[64];
    snprintf(name, sizeof name, "%s/%u", thread_names[t % NTHREADNAMES], 3116817 + t);
    line_header(&g->tmp, 3116817 + t, name, 0);
    sink_put(s, g->tmp.p, g->tmp.n);
    uint64_t written = g->tmp.n;
    int64_t tps = 5000000000000LL + (int64_t)rnd_below(&r, 1000000000);
    uint64_t k = 0;
    while (written < budget) {
        uint64_t x = rnd(&r);
        uint32_t emd = 1 + (uint32_t)((x & 0xFFFF) % NHOSTEVENTS);
        int64_t dur = 200000 + (int64_t)((x >> 16) % 40000000); /* 0.2 .. 40 us */
        tps += 50000 + (int64_t)((x >> 32) % 5000000);
        uint32_t kind = (uint32_t)((x >> 56) % 20);
        uint64_t step = k / 4096, group = step * 4 + (k % 4);
        wbuf *e = &g->ev;
        e->n = 0;
        wb_uint(e, 1, emd);
        wb_uint(e, 2, (uint64_t)tps);
        wb_uint(e, 3, (uint64_t)dur);
        int nstats = 0;
        if (kind >= 4) { /* 80%: grouped */
            wb_stat_u(e, 4, H_GROUP_ID, K_INT, group);
            nstats++;
        }
        if (kind >= 4 && kind < 15) {
            wb_stat_u(e, 4, H_STEP_NUM, K_INT, step);
            nstats++;
        }
        if (kind >= 10) { /* 50%: a ref-valued stat and a double */
            wb_stat_u(e, 4, kind % 2 ? H_SHAPE : H_LAYOUT, K_REF, H_NAMED + (x >> 8) % NSHAPES);
            wb_stat_d(e, 4, kind % 2 ? H_FRAGMENTATION : H_DURATION_US,
                      (double)((x >> 20) % 100000) / 1000.0);
            nstats += 2;
        }
        if (kind >= 15) { /* 25%: flow ids */
            wb_stat_u(e, 4, H_CT, K_INT, 2);
            wb_stat_u(e, 4, H_C, K_INT, 0x7f0000000000ULL + (x >> 24));
            nstats += 2;
        }
        sink_msg(s, 4, e);
        written += field_size(e->n);
        tps += dur;
        k++;
        if (count) {
            g->events++;
            g->stats += (uint64_t)nstats;
        }
    }
}

static void host_tail(gen *g, sink *s)
{
    wbuf em = {0}, entry = {0};
    for (uint32_t i = 0; i < NHOSTEVENTS; i++) {
        wb_named_meta(&em, i + 1, host_events[i]);
        wb_map_entry(&entry, i + 1, &em);
        sink_msg(s, 4, &entry);
    }
    uint32_t nstat = H_NAMED + NSHAPES;
    for (uint32_t id = 1; id < nstat; id++) {
        wb_named_meta(&em, id, id < H_NAMED ? host_stat_names[id] : shapes[id - H_NAMED]);
        wb_map_entry(&entry, id, &em);
        sink_msg(s, 5, &entry);
    }
    free(em.p);
    free(entry.p);
    (void)g;
}

static void write_host(gen *g, FILE *f, uint64_t budget)
{
    uint64_t sizes[NTHREADS];
    uint64_t per = budget / NTHREADS, body = 0;
    g->tmp.n = 0;
    wb_uint(&g->tmp, 1, 2);
    wb_str(&g->tmp, 2, "/host:CPU");
    body += g->tmp.n;
    for (uint32_t t = 0; t < NTHREADS; t++) {
        sink count = {NULL, 0};
        /* Threads are unequal, as on a real host: a few busy ones, many quiet ones. */
        uint64_t b = t < 8 ? per * 5 : (per * NTHREADS - per * 40) / (NTHREADS - 8);
        host_line(g, t, b, &count, 0);
        sizes[t] = count.n;
        body += field_size(count.n);
    }
    sink count = {NULL, 0};
    host_tail(g, &count);
    body += count.n;

    sink out = {f, 0};
    sink_hdr(&out, 1, body);
    out.n = 0;
    g->tmp.n = 0;
    wb_uint(&g->tmp, 1, 2);
    wb_str(&g->tmp, 2, "/host:CPU");
    sink_put(&out, g->tmp.p, g->tmp.n);
    for (uint32_t t = 0; t < NTHREADS; t++) {
        uint64_t b = t < 8 ? per * 5 : (per * NTHREADS - per * 40) / (NTHREADS - 8);
        sink_hdr(&out, 3, sizes[t]);
        uint64_t before = out.n;
        host_line(g, t, b, &out, 1);
        if (out.n - before != sizes[t])
            die("internal: a host line changed size between passes");
    }
    host_tail(g, &out);
    if (out.n != body)
        die("internal: the host plane changed size between passes");
    g->nplanes++;
    g->nlines += NTHREADS;
}

/* ---- main ---- */

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ULL << 10;
    else if (*end == 'M' || *end == 'm')
        mul = 1ULL << 20;
    else if (*end == 'G' || *end == 'g')
        mul = 1ULL << 30;
    else if (*end)
        return 0;
    if (mul != 1 && end[1])
        return 0;
    *out = (uint64_t)v * mul;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: gen_xspace OUT [SIZE_BYTES (default 1G) [SEED (default 1) [JOB "
                        "(default SEED)]]]\n");
        return 2;
    }
    gen g;
    memset(&g, 0, sizeof g);
    g.target = 1ULL << 30;
    g.seed = 1;
    if (argc > 2 && !parse_size(argv[2], &g.target)) {
        fprintf(stderr, "gen_xspace: bad size %s\n", argv[2]);
        return 2;
    }
    if (argc > 3 && !parse_size(argv[3], &g.seed)) {
        fprintf(stderr, "gen_xspace: bad seed %s\n", argv[3]);
        return 2;
    }
    g.job = g.seed;
    if (argc > 4 && !parse_size(argv[4], &g.job)) {
        fprintf(stderr, "gen_xspace: bad job seed %s\n", argv[4]);
        return 2;
    }
    uint32_t first = 0;
    for (int i = 0; i < NPROGRAMS; i++) {
        programs[i].first_emd = first;
        first += programs[i].nops;
    }

    size_t plen = strlen(argv[1]);
    char *tmp = malloc(plen + 5);
    if (!tmp)
        die("out of memory");
    memcpy(tmp, argv[1], plen);
    memcpy(tmp + plen, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        die(tmp);
    static char iobuf[1 << 22];
    setvbuf(f, iobuf, _IOFBF, sizeof iobuf);

    /* Metadata first (as XProf files have it), then the devices, then the host. */
    wbuf pl = {0};
    metadata_plane(&g, &pl);
    sink out = {f, 0};
    sink_msg(&out, 1, &pl);
    free(pl.p);
    g.nplanes++;
    uint64_t used = out.n + 4096;
    uint64_t rest = g.target > used ? g.target - used : 0;
    /* The device planes' metadata (thousands of HLO ops) comes out of their budget. */
    tpu_plane probe = {0, 0, 0, NULL, {0, 0, 0}};
    sink tail = {NULL, 0};
    tpu_tail(&g, &probe, &tail);
    uint64_t dev = rest / 10 * 6 / NTPU;
    uint64_t tpu_budget = dev > 2 * tail.n ? dev - tail.n : dev / 2;
    uint64_t host_budget = rest - dev * NTPU;
    for (uint32_t d = 0; d < NTPU; d++)
        write_tpu(&g, f, d, tpu_budget);
    write_host(&g, f, host_budget);

    wbuf h = {0};
    wb_str(&h, 4, "bench-host-0");
    if (fwrite(h.p, 1, h.n, f) != h.n)
        die("write");
    free(h.p);
    if (fflush(f) != 0 || ferror(f))
        die("write");
    long long size = ftell(f);
    if (fclose(f) != 0)
        die("close");
    if (rename(tmp, argv[1]) != 0)
        die("rename");
    free(tmp);
    free(g.ev.p);
    free(g.tmp.p);
    printf("gen_xspace: %s: %lld bytes, %llu planes, %llu lines, %llu events, %llu stats "
           "(seed %llu)\n",
           argv[1], size, (unsigned long long)g.nplanes, (unsigned long long)g.nlines,
           (unsigned long long)g.events, (unsigned long long)g.stats, (unsigned long long)g.seed);
    return 0;
}
