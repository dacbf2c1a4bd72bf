/* test_hlo.c - the HloProto decoder (formats/hlo.c) and the memory viewer
 * (analysis/memviewer.c) on synthesized HloProtos: XProf's worked examples (spec 3.8),
 * shape strings (spec 2.1), malformed input with byte offsets, and the real XLA dump. */
#include "testutil.h"

#include "analysis/memviewer.h"
#include "core/buf.h"
#include "formats/hlo.h"
#include "formats/pbwire.h"

static const double MIB = 1048576.0;

/* ShapeProto bytes: element type, dims, optional layout (minor_to_major descending). */
static void put_array_shape(tbuf *b, uint64_t field, int type, const int64_t *dims, int nd,
                            int layout)
{
    size_t m = msg_begin(b, field);
    put_varint_field(b, 2, (uint64_t)type);
    for (int i = 0; i < nd; i++)
        put_varint_field(b, 3, (uint64_t)dims[i]);
    if (layout) {
        size_t l = msg_begin(b, 5);
        for (int i = nd - 1; i >= 0; i--)
            put_varint_field(b, 1, (uint64_t)i);
        msg_end(b, l);
    }
    msg_end(b, m);
}

static void put_instruction(tbuf *b, const char *name, int64_t id)
{
    size_t m = msg_begin(b, 2);
    put_str_field(b, 1, name);
    put_str_field(b, 2, "fusion");
    size_t s = msg_begin(b, 3); /* (u64) */
    put_varint_field(b, 2, 13);
    put_array_shape(b, 4, 9, NULL, 0, 0);
    msg_end(b, s);
    size_t md = msg_begin(b, 7);
    put_str_field(b, 2, "jit(f)/op");
    msg_end(b, md);
    put_varint_field(b, 35, (uint64_t)id);
    msg_end(b, m);
}

static void put_lb(tbuf *b, int64_t id, int64_t size, int64_t instr)
{
    size_t m = msg_begin(b, 1);
    put_varint_field(b, 1, (uint64_t)id);
    put_varint_field(b, 2, (uint64_t)size);
    size_t d = msg_begin(b, 3);
    put_varint_field(b, 4, (uint64_t)instr);
    msg_end(b, d);
    msg_end(b, m);
}

static void put_alloc(tbuf *b, int64_t index, int64_t size, int constant, const int64_t *lbs,
                      const int64_t *sizes, int n)
{
    size_t m = msg_begin(b, 3);
    put_varint_field(b, 1, (uint64_t)index);
    put_varint_field(b, 2, (uint64_t)size);
    if (constant)
        put_varint_field(b, 12, 1);
    for (int i = 0; i < n; i++) {
        size_t a = msg_begin(b, 9);
        put_varint_field(b, 1, (uint64_t)lbs[i]);
        put_varint_field(b, 3, (uint64_t)sizes[i]);
        msg_end(b, a);
    }
    msg_end(b, m);
}

/* kinds: 0 ALLOC, 1 FREE, 2 SHARE_WITH (with share). */
static void put_trace(tbuf *b, const int *kinds, const int64_t *ids, const int64_t *share, int n)
{
    size_t t = msg_begin(b, 4);
    for (int i = 0; i < n; i++) {
        size_t e = msg_begin(b, 1);
        put_varint_field(b, 1, (uint64_t)kinds[i]);
        put_varint_field(b, 2, (uint64_t)ids[i]);
        put_str_field(b, 4, "fusion");
        if (kinds[i] == 2)
            put_varint_field(b, 5, (uint64_t)share[i]);
        msg_end(b, e);
    }
    msg_end(b, t);
}

static void put_module(tbuf *b)
{
    size_t m = msg_begin(b, 1);
    put_str_field(b, 1, "jit_f");
    put_str_field(b, 2, "main");
    size_t c = msg_begin(b, 3);
    put_str_field(b, 1, "main");
    put_instruction(b, "a", 1);
    put_instruction(b, "b", 2);
    put_instruction(b, "c", 3);
    msg_end(b, c);
    put_varint_field(b, 5, 7);
    msg_end(b, m);
}

static mv_result *compute(const tbuf *b, arena *a, int64_t color, const char **what)
{
    hlo_module *m = NULL;
    int64_t off;
    const char *w;
    assert_int_equal(hlo_decode(b->p, b->n, b->p, a, &m, &off, &w), PQ_OK);
    mv_result *r = NULL;
    pq_status st = memviewer_compute(m, color, a, &r, what);
    return st == PQ_OK ? r : NULL;
}

/* Starts B with the module and opens its buffer assignment. */
static size_t begin_assignment(tbuf *b)
{
    tb_init(b);
    put_module(b);
    return msg_begin(b, 3);
}

/* Closes the buffer assignment BA of B after its heap trace of N events, and prepares the
 * arena A and *WHAT for compute. */
static void end_assignment(tbuf *b, size_t ba, const int *kinds, const int64_t *ids,
                           const int64_t *share, int n, arena *a, const char **what)
{
    put_trace(b, kinds, ids, share, n);
    msg_end(b, ba);
    arena_init(a);
    *what = NULL;
}

/* The trace of B (begun at BA) ended with N events, and the viewer's refusal of it: an
 * error whose text holds TEXT. */
static void assert_refused(tbuf *b, size_t ba, const int *kinds, const int64_t *ids,
                           const int64_t *share, int n, const char *text)
{
    arena a;
    const char *what;
    end_assignment(b, ba, kinds, ids, share, n, &a, &what);
    assert_null(compute(b, &a, 0, &what));
    assert_non_null(what);
    assert_non_null(strstr(what, text));
    arena_release(&a);
    tb_free(b);
}

/* XProf's test: ALLOC 1, SHARE 2->1, FREE 1, FREE 2 over a 1 MiB temporary holding two
 * 0.5 MiB buffers, plus a 1 MiB constant. */
static void worked_example(void **state)
{
    (void)state;
    tbuf b;
    size_t ba = begin_assignment(&b);
    put_lb(&b, 1, 524288, 1);
    put_lb(&b, 2, 524288, 2);
    put_lb(&b, 3, 1048576, 3);
    int64_t l01[] = {1, 2}, s01[] = {524288, 524288}, l1[] = {3}, s1[] = {1048576};
    put_alloc(&b, 0, 1048576, 0, l01, s01, 2);
    put_alloc(&b, 1, 1048576, 1, l1, s1, 1);
    int kinds[] = {0, 2, 1, 1};
    int64_t ids[] = {1, 2, 1, 2}, share[] = {0, 1, 0, 0};
    arena a;
    const char *what;
    end_assignment(&b, ba, kinds, ids, share, 4, &a, &what);
    mv_result *r = compute(&b, &a, 0, &what);
    assert_non_null(r);
    double add = (double)r->indefinite_bytes / MIB;
    assert_true((double)r->peak_bytes / MIB + add == 1.5);
    assert_true((double)r->peak_unpadded_bytes / MIB + add == 8.0 / MIB + 1.0);
    assert_int_equal(r->total_bytes, 2 * 1048576);
    assert_int_equal(r->indefinite_alloc_bytes, 1048576);
    assert_int_equal(r->ntimeline, 5);
    assert_int_equal(r->peak_position, 0);
    arena_release(&a);
    tb_free(&b);
}

/* ALLOC1, SHARE2->1, FREE1, FREE2, SHARE3->2, FREE3: peak 0.5 MiB, one heap object. */
static void share_chain(void **state)
{
    (void)state;
    tbuf b;
    size_t ba = begin_assignment(&b);
    put_lb(&b, 1, 524288, 1);
    put_lb(&b, 2, 524288, 2);
    put_lb(&b, 3, 524288, 3);
    int64_t l[] = {1, 2, 3}, s[] = {524288, 524288, 524288};
    put_alloc(&b, 0, 1048576, 0, l, s, 3);
    int kinds[] = {0, 2, 1, 1, 2, 1};
    int64_t ids[] = {1, 2, 1, 2, 3, 3}, share[] = {0, 1, 0, 0, 2, 0};
    arena a;
    const char *what;
    end_assignment(&b, ba, kinds, ids, share, 6, &a, &what);
    mv_result *r = compute(&b, &a, 0, &what);
    assert_non_null(r);
    assert_true((double)r->peak_bytes / MIB == 0.5);
    assert_int_equal(r->nobjects, 1);
    arena_release(&a);
    tb_free(&b);
}

/* FREE twice is refused, as XProf refuses it. */
static void double_free(void **state)
{
    (void)state;
    tbuf b;
    size_t ba = begin_assignment(&b);
    put_lb(&b, 1, 524288, 1);
    int64_t l[] = {1}, s[] = {524288};
    put_alloc(&b, 0, 1048576, 0, l, s, 1);
    int kinds[] = {0, 1, 1};
    int64_t ids[] = {1, 1, 1}, share[] = {0, 0, 0};
    assert_refused(&b, ba, kinds, ids, share, 3, "freed multiple times");
}

/* SHARE 1->2 then SHARE 2->1 would make the two buffers each other's canonical buffer (a
 * damaged trace; found by fuzz-hlo: the viewer looped for ever): refused at the second. A
 * buffer sharing with itself too. */
static void share_cycle(void **state)
{
    (void)state;
    for (int self = 0; self < 2; self++) {
        tbuf b;
        size_t ba = begin_assignment(&b);
        put_lb(&b, 1, 524288, 1);
        put_lb(&b, 2, 524288, 2);
        int64_t l[] = {1, 2}, s[] = {524288, 524288};
        put_alloc(&b, 0, 1048576, 0, l, s, 2);
        int kinds[] = {0, 2, 2, 1};
        int64_t ids[] = {2, 1, 2, 1}, share[] = {0, 2, 1, 0};
        int64_t self_ids[] = {1, 1, 1, 1}, self_share[] = {0, 1, 0, 0};
        arena a;
        const char *what;
        end_assignment(&b, ba, kinds, self ? self_ids : ids, self ? self_share : share, 4, &a,
                       &what);
        assert_null(compute(&b, &a, 0, &what));
        assert_non_null(what);
        assert_non_null(strstr(what, "a cycle of share-with events"));
        arena_release(&a);
        tb_free(&b);
    }
}

/* Allocation sizes whose sums leave int64 (total bytes: 2^63 - 16 KiB + 128 KiB; found by
 * fuzz-hlo as a signed overflow under UBSan): refused as bad input, not summed. */
static void allocation_sum_overflow(void **state)
{
    (void)state;
    tbuf b;
    size_t ba = begin_assignment(&b);
    put_lb(&b, 1, 524288, 1);
    put_lb(&b, 2, 524288, 2);
    int64_t l1[] = {1}, l2[] = {2}, s[] = {524288};
    put_alloc(&b, 0, INT64_MAX - 16383, 0, l1, s, 1);
    put_alloc(&b, 1, 131072 * 8, 0, l2, s, 1);
    int kinds[] = {0, 1};
    int64_t ids[] = {1, 1}, share[] = {0, 0};
    assert_refused(&b, ba, kinds, ids, share, 2, "sum past 2^63 - 1 bytes");
}

/* hlo_shape_print_bytes on BYTES: FAST (whether it prints them itself) and, when it does,
 * the same text and unpadded size as decoding with hlo_decode_shape and printing. */
static void shape_bytes_check(const uint8_t *p, size_t n, int fast)
{
    arena a;
    arena_init(&a);
    buf got, want;
    buf_init(&got, NULL);
    buf_init(&want, NULL);
    buf_puts(&got, "x");
    int64_t unpadded = -1, off;
    const char *what;
    int r = hlo_shape_print_bytes(&got, (pq_str){(const char *)p, n}, 0, &unpadded);
    if (fast >= 0)
        assert_int_equal(r, fast);
    if (!r) {
        assert_int_equal(got.n, 1); /* nothing appended */
    } else {
        hlo_shape *sh = NULL;
        assert_int_equal(hlo_decode_shape((pq_str){(const char *)p, n}, p, 0, &a, &sh, &off, &what),
                         PQ_OK);
        buf_puts(&want, "x");
        hlo_shape_print(&want, sh);
        assert_int_equal(got.n, want.n);
        assert_memory_equal(got.p, want.p, got.n);
        assert_int_equal(unpadded, hlo_shape_unpadded_bytes(sh));
    }
    buf_release(&got);
    buf_release(&want);
    arena_release(&a);
}

static void shape_string(const tbuf *shape, const char *want)
{
    arena a;
    arena_init(&a);
    tbuf ins;
    tb_init(&ins);
    size_t m = msg_begin(&ins, 1);
    size_t c = msg_begin(&ins, 3);
    size_t i = msg_begin(&ins, 2);
    put_len_field(&ins, 3, shape->p, shape->n);
    msg_end(&ins, i);
    msg_end(&ins, c);
    msg_end(&ins, m);
    hlo_module *mod = NULL;
    int64_t off;
    const char *what;
    assert_int_equal(hlo_decode(ins.p, ins.n, ins.p, &a, &mod, &off, &what), PQ_OK);
    buf out;
    buf_init(&out, NULL);
    hlo_shape_print(&out, &mod->computations[0].instructions[0].shape);
    buf_putc(&out, 0);
    assert_string_equal(out.p, want);
    buf_release(&out);
    tb_free(&ins);
    arena_release(&a);
}

static void shape_strings(void **state)
{
    (void)state;
    tbuf s;
    /* bf16[4096,2048]{1,0:T(8,128)(2,1)} */
    tb_init(&s);
    put_varint_field(&s, 2, 16);
    put_varint_field(&s, 3, 4096);
    put_varint_field(&s, 3, 2048);
    size_t l = msg_begin(&s, 5);
    put_varint_field(&s, 1, 1);
    put_varint_field(&s, 1, 0);
    size_t t = msg_begin(&s, 6);
    put_varint_field(&s, 1, 8);
    put_varint_field(&s, 1, 128);
    msg_end(&s, t);
    t = msg_begin(&s, 6);
    put_varint_field(&s, 1, 2);
    put_varint_field(&s, 1, 1);
    msg_end(&s, t);
    put_varint_field(&s, 8, 5);
    msg_end(&s, l);
    shape_string(&s, "bf16[4096,2048]{1,0:T(8,128)(2,1)S(5)}");
    tb_free(&s);
    /* scalar with an empty layout prints no layout */
    tb_init(&s);
    put_varint_field(&s, 2, 11);
    l = msg_begin(&s, 5);
    msg_end(&s, l);
    shape_string(&s, "f32[]");
    tb_free(&s);
    /* a dynamic dimension */
    tb_init(&s);
    put_varint_field(&s, 2, 4);
    put_varint_field(&s, 3, 8);
    put_varint_field(&s, 3, 3);
    put_varint_field(&s, 6, 0);
    put_varint_field(&s, 6, 1);
    shape_string(&s, "s32[8,<=3]");
    tb_free(&s);
    /* a tuple of six marks the fifth index */
    tb_init(&s);
    put_varint_field(&s, 2, 13);
    for (int i = 0; i < 6; i++)
        put_array_shape(&s, 4, 1, NULL, 0, 0);
    shape_string(&s, "(pred[], pred[], pred[], pred[], pred[], /*index=5*/pred[])");
    shape_bytes_check(s.p, s.n, 1);
    tb_free(&s);
}

/* Shapes printed straight from their bytes (the lazy memory viewer's shape strings): the
 * common forms are printed so, the others refused with nothing appended, and every
 * truncation either refused or printed as the decoder prints it. */
static void shape_from_bytes(void **state)
{
    (void)state;
    tbuf s;
    /* (f32[3,8]{1,0}, bf16[2]{0}, s8[4,5]{0,1}, f32[]) as XLA writes it: packed dims and
     * minor_to_major, tail_padding_alignment_in_elements 1, dynamic flags all false */
    tb_init(&s);
    put_varint_field(&s, 2, 13);
    size_t e = msg_begin(&s, 4);
    put_varint_field(&s, 2, 11);
    const uint8_t dims[] = {3, 8}, m2m[] = {1, 0}, no[] = {0, 0};
    put_len_field(&s, 3, dims, 2);
    size_t l = msg_begin(&s, 5);
    put_len_field(&s, 1, m2m, 2);
    put_varint_field(&s, 16, 1);
    msg_end(&s, l);
    put_len_field(&s, 6, no, 2);
    msg_end(&s, e);
    put_array_shape(&s, 4, 16, (const int64_t[]){2}, 1, 1);
    put_array_shape(&s, 4, 2, (const int64_t[]){4, 5}, 2, 0);
    put_array_shape(&s, 4, 11, NULL, 0, 1); /* a scalar's "{}" is not printed */
    shape_bytes_check(s.p, s.n, 1);
    for (size_t cut = 0; cut < s.n; cut++)
        shape_bytes_check(s.p, cut, -1);
    tb_free(&s);
    /* s8[4,5]{0,1}: a layout that is not descending */
    tb_init(&s);
    put_varint_field(&s, 2, 2);
    put_varint_field(&s, 3, 4);
    put_varint_field(&s, 3, 5);
    l = msg_begin(&s, 5);
    put_varint_field(&s, 1, 0);
    put_varint_field(&s, 1, 1);
    msg_end(&s, l);
    shape_bytes_check(s.p, s.n, 1);
    tb_free(&s);
    /* refused: a dynamic dimension, a tail alignment of 2, a token, fields out of order */
    tb_init(&s);
    put_varint_field(&s, 2, 4);
    put_varint_field(&s, 3, 3);
    put_varint_field(&s, 6, 1);
    shape_bytes_check(s.p, s.n, 0);
    tb_free(&s);
    tb_init(&s);
    put_varint_field(&s, 2, 4);
    l = msg_begin(&s, 5);
    put_varint_field(&s, 16, 2);
    msg_end(&s, l);
    shape_bytes_check(s.p, s.n, 0);
    tb_free(&s);
    tb_init(&s);
    put_varint_field(&s, 2, 17);
    shape_bytes_check(s.p, s.n, 0);
    tb_free(&s);
    tb_init(&s);
    put_varint_field(&s, 3, 4);
    put_varint_field(&s, 2, 4);
    shape_bytes_check(s.p, s.n, 0);
    tb_free(&s);
}

static void malformed(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    put_module(&b);
    arena a;
    arena_init(&a);
    hlo_module *m;
    int64_t off = -1;
    const char *what = NULL;
    /* every truncation inside the module is refused with an offset within the input */
    for (size_t cut = 1; cut < b.n; cut++) {
        pq_status st = hlo_decode(b.p, cut, b.p, &a, &m, &off, &what);
        if (st != PQ_OK) {
            assert_int_equal(st, PQ_ERR_INPUT);
            assert_true(off >= 0 && off <= (int64_t)cut);
            assert_non_null(what);
        }
    }
    tb_free(&b);
    /* shapes nested 100 deep exceed the bound */
    tb_init(&b);
    tbuf inner;
    tb_init(&inner);
    put_varint_field(&inner, 2, 1);
    for (int d = 0; d < 100; d++) {
        tbuf outer;
        tb_init(&outer);
        put_varint_field(&outer, 2, 13);
        put_len_field(&outer, 4, inner.p, inner.n);
        tb_free(&inner);
        inner = outer;
    }
    size_t mm = msg_begin(&b, 1);
    size_t c = msg_begin(&b, 3);
    size_t i = msg_begin(&b, 2);
    put_len_field(&b, 3, inner.p, inner.n);
    msg_end(&b, i);
    msg_end(&b, c);
    msg_end(&b, mm);
    assert_int_equal(hlo_decode(b.p, b.n, b.p, &a, &m, &off, &what), PQ_ERR_INPUT);
    assert_non_null(strstr(what, "nested"));
    /* the lazy decode does not read the shape; decoding it on demand finds the same error,
     * at an offset inside the shape's bytes */
    tb_reserve(&b, 16); /* the padding hlo_decode_lazy reads on */
    assert_int_equal(hlo_decode_lazy(b.p, b.n, b.p, &a, &m, &off, &what), PQ_OK);
    assert_int_equal(m->ncomputations, 1);
    assert_int_equal(m->computations[0].ninstructions, 1);
    assert_null(m->computations[0].instructions);
    assert_int_equal(hlo_instruction_decode(m, &m->computations[0].refs[0], &a, &off, &what),
                     PQ_OK);
    const hlo_instruction *deep = m->computations[0].refs[0].decoded;
    assert_int_equal(deep->shape.ntuple, 0);
    hlo_shape *sh = NULL;
    off = -1;
    assert_int_equal(hlo_decode_shape(deep->shape_bytes, b.p, 0, &a, &sh, &off, &what),
                     PQ_ERR_INPUT);
    assert_non_null(strstr(what, "nested"));
    assert_true(off >= (int64_t)((const uint8_t *)deep->shape_bytes.p - b.p) &&
                off < (int64_t)((const uint8_t *)deep->shape_bytes.p - b.p + deep->shape_bytes.n));
    pq_str *elems = NULL;
    uint32_t nelems = 0;
    assert_int_equal(hlo_shape_elements(deep->shape_bytes, b.p, &a, &elems, &nelems, &off, &what),
                     PQ_OK);
    assert_int_equal(nelems, 1);
    tb_free(&inner);
    tb_free(&b);
    /* a repeated varint field (dimensions) with a fixed64 wire type is skipped as unknown,
     * by both decoders, beside a packed one that is kept */
    tb_init(&b);
    tbuf shape;
    tb_init(&shape);
    put_varint_field(&shape, 2, 11);
    put_fixed64_field(&shape, 3, 5);
    put_varint_field(&shape, 3, 7);
    mm = msg_begin(&b, 1);
    c = msg_begin(&b, 3);
    i = msg_begin(&b, 2);
    put_len_field(&b, 3, shape.p, shape.n);
    msg_end(&b, i);
    msg_end(&b, c);
    msg_end(&b, mm);
    assert_int_equal(hlo_decode(b.p, b.n, b.p, &a, &m, &off, &what), PQ_OK);
    assert_int_equal(m->computations[0].instructions[0].shape.ndims, 1);
    assert_int_equal(m->computations[0].instructions[0].shape.dims[0], 7);
    tb_reserve(&b, 16); /* the padding hlo_decode_lazy reads on */
    assert_int_equal(hlo_decode_lazy(b.p, b.n, b.p, &a, &m, &off, &what), PQ_OK);
    hlo_instruction_ref *ref = NULL;
    assert_int_equal(hlo_instruction_lazy(m, 0, &a, &ref, &off, &what), PQ_OK);
    assert_non_null(ref);
    assert_int_equal(hlo_decode_shape(ref->decoded->shape_bytes, b.p, 0, &a, &sh, &off, &what),
                     PQ_OK);
    assert_int_equal(hlo_instruction_lazy(m, 1, &a, &ref, &off, &what), PQ_OK);
    assert_null(ref);
    assert_int_equal(sh->ndims, 1);
    assert_int_equal(sh->dims[0], 7);
    tb_free(&shape);
    tb_free(&b);
    arena_release(&a);
}

/* The real XLA dump: the counts data/INDEX.md states. */
static void real_dump(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    size_t n = 0;
    uint8_t *data = tu_read_file(
        shared_path(
            "hlo/"
            "h100_maxtext_fsdp4__module_0016.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb"),
        &n);
    assert_non_null(data);
    uint8_t *padded = calloc(1, n + 16);
    memcpy(padded, data, n);
    arena a;
    arena_init(&a);
    hlo_module *m;
    int64_t off;
    const char *what;
    assert_int_equal(hlo_decode(padded, n, padded, &a, &m, &off, &what), PQ_OK);
    assert_int_equal(m->ncomputations, 564);
    assert_int_equal(m->nby_id, 7757);
    assert_int_equal(m->nallocations, 202);
    assert_int_equal(m->nlogical_buffers, 1732);
    assert_int_equal(m->ntraces, 1);
    arena_release(&a);
    free(padded);
    free(data);
}

/* Instructions found by id, the last of a duplicated id winning, by both decoders (the
 * lazy one through its hash table), over two computations and 300 ids. */
static void instruction_ids(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t mm = msg_begin(&b, 1);
    char name[32];
    for (int c = 0; c < 2; c++) {
        size_t comp = msg_begin(&b, 3);
        for (int i = 0; i < 150; i++) {
            int64_t id = c ? 1000 - i : (int64_t)i << 40; /* ids 0..149 << 40 and 1000..851 */
            snprintf(name, sizeof name, "i%d_%d", c, i);
            put_instruction(&b, name, id);
        }
        put_instruction(&b, c ? "dup1000" : "dup0", c ? 1000 : 0);
        msg_end(&b, comp);
    }
    msg_end(&b, mm);
    tb_reserve(&b, 16); /* the padding hlo_decode_lazy reads on */
    arena a;
    arena_init(&a);
    hlo_module *full, *lazy;
    int64_t off;
    const char *what;
    assert_int_equal(hlo_decode(b.p, b.n, b.p, &a, &full, &off, &what), PQ_OK);
    assert_int_equal(hlo_decode_lazy(b.p, b.n, b.p, &a, &lazy, &off, &what), PQ_OK);
    assert_int_equal(lazy->nrefs, 302);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 150; i++) {
            int64_t id = c ? 1000 - i : (int64_t)i << 40;
            snprintf(name, sizeof name,
                     (id == 0 || id == 1000) ? (c ? "dup1000" : "dup0") : "i%d_%d", c, i);
            const hlo_instruction *f = hlo_instruction_by_id(full, id);
            hlo_instruction_ref *r = NULL;
            assert_int_equal(hlo_instruction_lazy(lazy, id, &a, &r, &off, &what), PQ_OK);
            assert_non_null(f);
            assert_non_null(r);
            assert_int_equal(f->name.n, strlen(name));
            assert_memory_equal(f->name.p, name, f->name.n);
            assert_int_equal(r->decoded->name.n, strlen(name));
            assert_memory_equal(r->decoded->name.p, name, r->decoded->name.n);
        }
    hlo_instruction_ref *r = (hlo_instruction_ref *)1;
    assert_int_equal(hlo_instruction_lazy(lazy, 1, &a, &r, &off, &what), PQ_OK);
    assert_null(r);
    assert_null(hlo_instruction_by_id(full, 1));
    arena_release(&a);
    tb_free(&b);
}

/* An instruction's fields and id as pb_next reads them (the decoders' grammar): 1 and the
 * last id when every field is well-formed, else 0. */
static int reference_id(const uint8_t *p, size_t n, const uint8_t *base, int64_t *id)
{
    pb_cursor c;
    pb_field f = {0};
    int k;
    *id = 0;
    pb_init(&c, p, n, base);
    while ((k = pb_next(&c, &f)) == PB_FIELD)
        if (f.num == 35 && f.wire == PB_VARINT)
            *id = (int64_t)f.u;
    return k == PB_END;
}

/* The lazy decode's framing of instructions (hlo.c's inline walk over one- and two-byte
 * tags and lengths) against pb_next, on 40 instructions of every wire type, tag and length
 * size, with bytes overwritten at random (the lengths of the computation kept, so the
 * instructions alone may be malformed) and random bytes after the end. */
static void lazy_framing_mutations(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t mm = msg_begin(&b, 1);
    size_t comp = msg_begin(&b, 3);
    put_str_field(&b, 1, "c");
    uint32_t rng = 12345;
    char big[300];
    memset(big, 'x', sizeof big);
    for (int i = 0; i < 40; i++) {
        size_t m = msg_begin(&b, 2);
        put_str_field(&b, 1, "op");
        if (i % 3 == 0)
            put_varint_field(&b, 9, (uint64_t)i);
        if (i % 4 == 1)
            put_fixed64_field(&b, 20, 7);
        if (i % 5 == 2)
            put_fixed32_field(&b, 21, 7);
        if (i % 2)
            put_len_field(&b, 43, big, 130 + (size_t)i * 4);        /* a two-byte length */
        put_varint_field(&b, 35, (uint64_t)i * 977 << (i % 4 * 9)); /* 1 to 6 bytes */
        if (i % 6 == 5)
            put_varint_field(&b, 35, (uint64_t)i); /* a second id: the last wins */
        put_len_field(&b, 36, "\x01\x02", 2);
        put_str_field(&b, 68, "backend");
        msg_end(&b, m);
    }
    msg_end(&b, comp);
    msg_end(&b, mm);
    tb_reserve(&b, 16);
    /* the instructions' bytes, found in the valid buffer */
    size_t at[40], len[40], ni = 0;
    pb_cursor c1, c2, c3;
    pb_field f1 = {0}, f2 = {0}, f3 = {0};
    pb_init(&c1, b.p, b.n, b.p);
    assert_int_equal(pb_next(&c1, &f1), PB_FIELD);
    pb_init(&c2, f1.data, f1.len, b.p);
    assert_int_equal(pb_next(&c2, &f2), PB_FIELD);
    pb_init(&c3, f2.data, f2.len, b.p);
    while (pb_next(&c3, &f3) == PB_FIELD)
        if (f3.num == 2 && ni < 40) {
            at[ni] = (size_t)(f3.data - b.p);
            len[ni++] = f3.len;
        }
    assert_int_equal(ni, 40);
    static const uint8_t picks[] = {0x00, 0x01, 0x02, 0x05, 0x07, 0x08, 0x0a, 0x12, 0x7f,
                                    0x80, 0x81, 0x98, 0xff, 0x1b, 0x1d, 0xa2, 0x02, 0x03};
    uint8_t *copy = malloc(b.n + 16);
    assert_non_null(copy);
    int ok_seen = 0, bad_seen = 0;
    for (int round = 0; round < 4000; round++) {
        memcpy(copy, b.p, b.n);
        for (int k = 0; k < 16; k++) {
            rng = rng * 1103515245u + 12345u;
            copy[b.n + k] = (uint8_t)(rng >> 16);
        }
        rng = rng * 1103515245u + 12345u;
        int nmut = 1 + (int)(rng >> 16) % 3;
        for (int k = 0; k < nmut; k++) {
            rng = rng * 1103515245u + 12345u;
            size_t i = (rng >> 16) % 40;
            rng = rng * 1103515245u + 12345u;
            size_t off = at[i] + (rng >> 16) % len[i];
            rng = rng * 1103515245u + 12345u;
            copy[off] = (rng >> 16) % 4 ? picks[(rng >> 18) % sizeof picks] : (uint8_t)(rng >> 20);
        }
        int want_ok = 1;
        int64_t want[40];
        for (size_t i = 0; i < 40; i++)
            want_ok &= reference_id(copy + at[i], len[i], copy, &want[i]);
        arena a;
        arena_init(&a);
        hlo_module *m = NULL;
        int64_t off = -1;
        const char *what = NULL;
        pq_status st = hlo_decode_lazy(copy, b.n, copy, &a, &m, &off, &what);
        if (want_ok) {
            ok_seen++;
            assert_int_equal(st, PQ_OK);
            assert_int_equal(m->computations[0].ninstructions, 40);
            for (size_t i = 0; i < 40; i++)
                assert_int_equal(m->computations[0].refs[i].id, want[i]);
        } else {
            bad_seen++;
            assert_int_equal(st, PQ_ERR_INPUT);
        }
        arena_release(&a);
    }
    assert_true(ok_seen > 200 && bad_seen > 200);
    free(copy);
    tb_free(&b);
}

/* An instruction whose metadata is malformed (a field longer than the message): the full
 * decoder refuses the module; the lazy one indexes it, and memory-viewer refuses it, with
 * an offset inside it, only when a logical buffer names it. */
static void lazy_instruction_errors(void **state)
{
    (void)state;
    for (int named = 0; named < 2; named++) {
        tbuf b;
        tb_init(&b);
        size_t mm = msg_begin(&b, 1);
        put_str_field(&b, 1, "jit_f");
        put_str_field(&b, 2, "main");
        size_t c = msg_begin(&b, 3);
        put_str_field(&b, 1, "main");
        put_instruction(&b, "a", 1);
        size_t ins = msg_begin(&b, 2);
        size_t bad_at = b.n;
        put_str_field(&b, 1, "bad");
        size_t md = msg_begin(&b, 7);
        put_tag(&b, 2, 2);
        put_varint(&b, 100);
        put_bytes(&b, "abc", 3);
        msg_end(&b, md);
        put_varint_field(&b, 35, 2);
        msg_end(&b, ins);
        msg_end(&b, c);
        msg_end(&b, mm);
        size_t ba = msg_begin(&b, 3);
        put_lb(&b, 1, 1024, named ? 2 : 1);
        int64_t l[] = {1}, sz[] = {1024};
        put_alloc(&b, 0, 1024, 0, l, sz, 1);
        int kinds[] = {0, 1};
        int64_t ids[] = {1, 1}, share[] = {0, 0};
        arena a;
        const char *what;
        end_assignment(&b, ba, kinds, ids, share, 2, &a, &what);
        tb_reserve(&b, 16); /* the padding hlo_decode_lazy reads on */
        hlo_module *m = NULL;
        int64_t off = -1;
        assert_int_equal(hlo_decode(b.p, b.n, b.p, &a, &m, &off, &what), PQ_ERR_INPUT);
        assert_true(off > (int64_t)bad_at && off < (int64_t)bad_at + 16);
        assert_int_equal(hlo_decode_lazy(b.p, b.n, b.p, &a, &m, &off, &what), PQ_OK);
        mv_result *r = NULL;
        off = -1;
        what = NULL;
        pq_status st = memviewer_compute_lazy(m, b.p, 0, &a, &r, &what, &off);
        if (!named) {
            assert_int_equal(st, PQ_OK);
        } else {
            assert_int_equal(st, PQ_ERR_INPUT);
            assert_non_null(what);
            assert_true(off > (int64_t)bad_at && off < (int64_t)bad_at + 16);
        }
        arena_release(&a);
        tb_free(&b);
    }
}

/* hlo_sort_ids against an insertion sort, stable, for small and large N and id ranges
 * that need one, several or all radix passes (negative ids too). */
static void sort_ids(void **state)
{
    (void)state;
    static const size_t sizes[] = {2, 5, 16, 17, 33, 100, 1000, 2047, 5000};
    static const int64_t spans[] = {3, 1000, 1 << 22, INT64_MAX};
    uint64_t x = 88172645463325252ull;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t pi = 0; pi < sizeof spans / sizeof *spans; pi++) {
            size_t n = sizes[si];
            hlo_id_seq *v = calloc(3 * n, sizeof *v), *want = v + 2 * n;
            assert_non_null(v);
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                int64_t id = (int64_t)(x % (uint64_t)spans[pi]);
                if (spans[pi] == INT64_MAX && (x & 256))
                    id = -id;
                v[i] = (hlo_id_seq){id, (uint32_t)i, NULL};
                size_t j = i;
                for (; j > 0 && want[j - 1].id > id; j--)
                    want[j] = want[j - 1];
                want[j] = v[i];
            }
            hlo_sort_ids(v, v + n, n);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(v[i].id, want[i].id);
                assert_int_equal(v[i].seq, want[i].seq);
            }
            free(v);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(worked_example),
        cmocka_unit_test(share_chain),
        cmocka_unit_test(double_free),
        cmocka_unit_test(share_cycle),
        cmocka_unit_test(allocation_sum_overflow),
        cmocka_unit_test(shape_strings),
        cmocka_unit_test(shape_from_bytes),
        cmocka_unit_test(malformed),
        cmocka_unit_test(real_dump),
        cmocka_unit_test(sort_ids),
        cmocka_unit_test(instruction_ids),
        cmocka_unit_test(lazy_instruction_errors),
        cmocka_unit_test(lazy_framing_mutations),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
