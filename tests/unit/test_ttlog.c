/* test_ttlog.c - the Tenstorrent log reader, analysis and renderers on hand-written log
 * snippets: the three log shapes, ANSI codes and interleaved lines, op text parsing (result,
 * operands, attributes, types, shapes, tiled layouts, loc), const-eval and cache misses,
 * exclusion of deallocate/get_device, live-tensor sums, every malformed block case (counted,
 * never fatal), bad input (exit-3 errors with offsets), escaping in the HTML report, JSON
 * read-back, allocation failures, and the real logs of ../shared/data/tenstorrent. */
#define _GNU_SOURCE /* memmem */
#include "testutil.h"

#include "analysis/ttmem.h"
#include "core/buf.h"
#include "formats/ttlog.h"

/* The log snippets below are long literals (a block is ~1.3 KB); C11 compilers take them. */
#pragma GCC diagnostic ignored "-Woverlength-strings"

/* Runtime line helpers: the real header, with the colour codes tt-mlir writes. */
#define A_HDR "\x1b[32m                 Always\x1b[0m | \x1b[1m\x1b[38;5;69m    INFO\x1b[0m | "
#define R_HDR "            RuntimeTTNN |    DEBUG | "
#define MV(alloc, freemb, largest)                                                                 \
    "MemoryView{numBanks: 12, totalBytesPerBank: 1024.000 MB, totalBytesAllocatedPerBank: " alloc  \
    " MB, totalBytesFreePerBank: " freemb " MB, largestContiguousBytesFreePerBank: " largest       \
    " MB}\n"
#define SMALLS                                                                                     \
    A_HDR "Device L1 memory state: MemoryView{numBanks: 64, totalBytesPerBank: 1.269 MB, "         \
          "totalBytesAllocatedPerBank: 0.100 MB, totalBytesFreePerBank: 1.169 MB, "                \
          "largestContiguousBytesFreePerBank: 1.000 MB}\n" A_HDR                                   \
          "Device L1_SMALL memory state: MemoryView{numBanks: 64, totalBytesPerBank: 0.062 MB, "   \
          "totalBytesAllocatedPerBank: 0.000 MB, totalBytesFreePerBank: 0.062 MB, "                \
          "largestContiguousBytesFreePerBank: 0.062 MB}\n" A_HDR                                   \
          "Device TRACE memory state: MemoryView{numBanks: 12, totalBytesPerBank: 0.000 MB, "      \
          "totalBytesAllocatedPerBank: 0.000 MB, totalBytesFreePerBank: 0.000 MB, "                \
          "largestContiguousBytesFreePerBank: 0.000 MB}\n"
#define BLOCK(hdr, alloc, freemb, largest)                                                         \
    A_HDR hdr "\n" A_HDR "Device DRAM memory state: " MV(alloc, freemb, largest) SMALLS

#define LAYOUT_DRAM_TILE(dims)                                                                     \
    "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<" dims                                  \
    "x!ttcore.tile<32x32, bf16>, #ttnn.buffer_type<dram>>, <interleaved>>"

/* The seed's shape: op text, then its per-op block; const-eval program with a cache miss. */
static const char SHAPE_A[] =
    "Python says hello\n" A_HDR
    "Cache miss or invalid cache for function: main_const_eval_0\n" R_HDR
    "Starting execution of program: main_const_eval_0\n" R_HDR
    "Executing operation: %0 = \"ttnn.get_device\"() <{mesh_offset = #ttnn<mesh_offset 0x0>}> : "
    "() -> !ttnn.device loc(unknown)\n" BLOCK("Device memory state before operation GetDeviceOp",
                                              "0.000", "1024.000", "1024.000") R_HDR
    "Executing operation: %1 = \"ttnn.full\"(%0) <{dtype = #ttcore.supportedDataTypes<bf16>, "
    "fill_value = 1.0 : f32}> : (!ttnn.device) -> tensor<4x32xbf16, " LAYOUT_DRAM_TILE(
        "1x1") "> loc(\"full.1\")\n" BLOCK("Device memory state before operation FullOp", "1.000",
                                           "1023.000", "1023.000") R_HDR
    "Finished execution of program: main_const_eval_0\n" R_HDR
    "Starting execution of program: main\n"
    "an interleaved line | with | pipes\n" R_HDR
    "Executing operation: %2 = \"ttnn.add\"(%1, %arg0) <{dtype = "
    "#ttcore.supportedDataTypes<bf16>}> "
    ": (tensor<4x32xbf16, " LAYOUT_DRAM_TILE("1x1") ">, tensor<4x32xbf16, " LAYOUT_DRAM_TILE(
        "1x1") ">) -> tensor<64x128xbf16, " LAYOUT_DRAM_TILE("2x4") "> loc(\"add.2\")\n"
                                                                    "another interleaved python "
                                                                    "line\n" BLOCK(
                                                                        "Device memory state "
                                                                        "before operation "
                                                                        "EltwiseBinaryOp",
                                                                        "3.500", "1020.500",
                                                                        "1000.000") R_HDR
    "Executing operation: \"ttnn.deallocate\"(%1) <{force = false}> : "
    "(tensor<4x32xbf16, " LAYOUT_DRAM_TILE("1x1") ">) -> () loc(unknown)\n" BLOCK(
        "Device memory state before operation DeallocateOp", "3.500", "1020.500", "1000.000") R_HDR
    "Executing operation: %3 = ttcore.load_cached(@main_const_eval_0, []) "
    ": () -> tensor<4x32xbf16, " LAYOUT_DRAM_TILE("1x1") "> loc(unknown)\n" BLOCK(
        "Device memory state before operation LoadCachedOp", "2.000", "1022.000", "1022.000") R_HDR
    "Finished execution of program: main\n";

static tt_log *open_str(const char *s, size_t n, pq_status want, pq_error *err)
{
    pq_ttlog *log = NULL;
    pq_status st = pq_ttlog_open_memory(s, n, "snippet.log", &log, err);
    assert_int_equal(st, want);
    return log;
}

/* Opens S (which must load) and gets its info. */
static tt_log *open_ok(const char *s, size_t n, pq_ttlog_info *info)
{
    pq_error err;
    tt_log *log = open_str(s, n, PQ_OK, &err);
    pq_ttlog_get_info(log, info);
    return log;
}

static void test_shape_op_text(void **state)
{
    (void)state;
    pq_ttlog_info info;
    tt_log *log = open_ok(SHAPE_A, sizeof SHAPE_A - 1, &info);
    assert_string_equal(info.shape, "op_text");
    assert_int_equal(info.operations, 3);
    assert_int_equal(info.executed_ops, 5);
    assert_int_equal(info.op_blocks, 5);
    assert_int_equal(info.excluded_ops, 2);
    assert_int_equal(info.malformed_blocks, 0);
    assert_int_equal(info.programs, 2);
    assert_int_equal(info.const_eval_programs, 1);
    assert_int_equal(info.cache_misses, 1);

    const tt_op *full = &log->ops[0], *add = &log->ops[1], *lc = &log->ops[2];
    assert_memory_equal(full->op_type.p, "FullOp", 6);
    assert_int_equal(full->name.n, 9);
    assert_memory_equal(full->name.p, "ttnn.full", 9);
    assert_memory_equal(full->result.p, "%1", 2);
    assert_memory_equal(full->operands.p, "%0", 2);
    assert_true(full->is_weight);
    assert_true(full->cache_miss);
    assert_int_equal(full->const_eval.n, 17);
    assert_memory_equal(full->loc.p, "full.1", 6);
    assert_true(full->mem[TT_DRAM].alloc_mb == 1.0);
    assert_int_equal(full->mem_source, TT_MEM_OPERATION);
    /* output 4x32 bf16 in one 32x32 tile: 256 bytes unpadded, 2048 padded */
    assert_true(full->out.tiled);
    assert_int_equal(full->out.unpadded_bytes, 256);
    assert_int_equal(full->out.padded_bytes, 2048);
    assert_int_equal(full->out.buffer_type.n, 4);
    assert_int_equal(full->live[0].num_tensors, 1);
    assert_int_equal(full->live[0].padded_bytes, 2048);

    assert_false(add->is_weight);
    assert_null(add->const_eval.p);
    assert_int_equal(add->operands.n, 9); /* "%1, %arg0" */
    assert_memory_equal(add->attributes.p, "dtype = #ttcore.supportedDataTypes<bf16>", 40);
    assert_memory_equal(add->loc.p, "add.2", 5);
    assert_true(add->mem[TT_DRAM].alloc_mb == 3.5);
    assert_true(add->mem[TT_DRAM].largest_free_mb == 1000.0);
    assert_true(add->mem[TT_L1].alloc_mb == 0.1);
    assert_int_equal(add->mem[TT_L1].num_banks, 64);
    /* output 64x128 bf16 = 16384 bytes, memref 2x4 tiles = the same: no padding */
    assert_int_equal(add->out.unpadded_bytes, 16384);
    assert_int_equal(add->out.padded_bytes, 16384);
    assert_int_equal(add->live[0].num_tensors, 2);
    size_t pos = 0;
    pq_str shape, dtype;
    int ninputs = 0;
    while (ttlog_next_tensor(add->input_types, &pos, &shape, &dtype)) {
        assert_int_equal(shape.n, 4);
        assert_memory_equal(shape.p, "4x32", 4);
        assert_memory_equal(dtype.p, "bf16", 4);
        ninputs++;
    }
    assert_int_equal(ninputs, 2);

    /* load_cached with loc(unknown): the loc is the function name; %1 was deallocated */
    assert_memory_equal(lc->loc.p, "main_const_eval_0", 17);
    assert_int_equal(lc->live[0].num_tensors, 2);

    /* the public analysis: peaks, growth, weights, fragmentation and one row per op */
    pq_tt_memory r;
    pq_error err;
    assert_int_equal(pq_ttlog_analyze(log, &r, &err), PQ_OK);
    assert_int_equal(r.type[TT_DRAM].peak_op, 1);
    assert_true(r.type[TT_DRAM].peak_mb == 3.5);
    assert_int_equal(r.ngrowth, 1);
    assert_int_equal(r.growth_op[0], 1);
    assert_true(r.has_weights);
    assert_int_equal(r.baseline_op, 1);
    assert_true(r.type[TT_DRAM].frag_mb == 20.5);
    assert_int_equal(r.type[TT_DRAM].frag_op, 1);
    assert_int_equal(r.nrows, 3);
    assert_true(r.rows[0].dram_delta_mb == 0);
    assert_true(r.rows[1].dram_delta_mb == 3.5 - log->ops[0].mem[TT_DRAM].alloc_mb);
    assert_true(r.rows[1].alloc_mb[TT_DRAM] == 3.5);
    /* op 0 is a const-eval (weight) op: all its DRAM is weights */
    assert_true(r.rows[0].weights_mb == log->ops[0].mem[TT_DRAM].alloc_mb);
    assert_true(r.rows[0].activations_mb == 0);
    assert_int_equal(r.rows[2].live_unpadded_bytes, lc->live[0].unpadded_bytes);
    /* tiny live tensors: padding is in bytes, the ratio is not shown under 1 MiB */
    double pct;
    assert_true(r.has_padding);
    assert_int_equal(
        ttmem_pad_ratio(r.peak_pad_unpadded, r.peak_pad_unpadded + r.peak_pad_bytes, &pct),
        r.peak_pad_unpadded >= PQ_TT_PAD_RATIO_MIN_BYTES);
    assert_int_equal(ttmem_pad_ratio((uint64_t)1 << 20, (uint64_t)3 << 19, &pct), 1);
    assert_true(pct == 50.0);
    assert_int_equal(ttmem_pad_ratio(256, 2048, &pct), 0);
    pq_tt_memory_release(&r);
    pq_ttlog_free(log);
}

static const char SHAPE_B[] = BLOCK("Device memory state before operation GetDeviceOp", "0.000",
                                    "1024.000", "1024.000")
    BLOCK("Device memory state before operation FullOp", "0.000", "1024.000", "1024.000") BLOCK(
        "Device memory state before operation DeallocateOp", "2.000", "1022.000", "1022.000")
        BLOCK("Device memory state before operation ReshapeOp", "2.000", "1022.000", "1022.000");

static void test_shape_op_type(void **state)
{
    (void)state;
    pq_ttlog_info info;
    tt_log *log = open_ok(SHAPE_B, sizeof SHAPE_B - 1, &info);
    assert_string_equal(info.shape, "op_type");
    assert_int_equal(info.operations, 2);
    assert_int_equal(info.excluded_ops, 2);
    assert_memory_equal(log->ops[1].op_type.p, "ReshapeOp", 9);
    assert_int_equal(log->ops[1].text.n, 0);
    pq_ttlog_free(log);
}

static const char SHAPE_C[] =
    BLOCK("Device memory state before submit", "3.000", "1021.000", "1021.000") R_HDR
    "Starting execution of program: main\n" R_HDR
    "Executing operation: %0 = \"ttnn.to_layout\"(%arg0) <{layout = #ttnn.layout<tile>}> : "
    "(tensor<4x32xbf16, " LAYOUT_DRAM_TILE("1x1") ">) -> tensor<4x32xbf16, " LAYOUT_DRAM_TILE(
        "1x1") "> loc(\"a\")\n" R_HDR
               "Executing operation: \"ttnn.deallocate\"(%arg0) <{force = false}> : "
               "(tensor<4x32xbf16, " LAYOUT_DRAM_TILE(
                   "1x1") ">) -> () loc(unknown)\n" R_HDR
                          "Executing operation: %1 = \"ttnn.relu\"(%0) : "
                          "(tensor<4x32xbf16, " LAYOUT_DRAM_TILE(
                              "1x1") ">) -> "
                                     "tensor<4x32xbf16,"
                                     " " LAYOUT_DRAM_TILE("1x1") "> "
                                                                 "loc(\"b\")"
                                                                 "\n" R_HDR "Finished "
                                                                 "execution of "
                                                                 "program: "
                                                                 "main\n" BLOCK("Device "
                                                                                "memory "
                                                                                "state "
                                                                                "after "
                                                                                "submit",
                                                                                "9.000", "1015.000",
                                                                                "1015.000")
                                                                     BLOCK("Device "
                                                                           "memory "
                                                                           "state "
                                                                           "before "
                                                                           "submit",
                                                                           "9.000",
                                                                           "1015."
                                                                           "000",
                                                                           "1015."
                                                                           "000") R_HDR
    "Executing operation: %0 = \"ttnn.neg\"(%arg0) : (tensor<4x32xbf16, " LAYOUT_DRAM_TILE(
        "1x1") ">) -> tensor<4x32xbf16, " LAYOUT_DRAM_TILE("1x1") "> loc(\"c\")\n" BLOCK("Device "
                                                                                         "memory "
                                                                                         "state "
                                                                                         "after "
                                                                                         "submit",
                                                                                         "7.000",
                                                                                         "1017.000",
                                                                                         "1017."
                                                                                         "000");

static void test_shape_submit(void **state)
{
    (void)state;
    pq_ttlog_info info;
    tt_log *log = open_ok(SHAPE_C, sizeof SHAPE_C - 1, &info);
    assert_string_equal(info.shape, "submit");
    assert_int_equal(info.operations, 3);
    assert_int_equal(info.executed_ops, 4);
    assert_int_equal(info.submit_blocks, 4);
    assert_int_equal(log->submits[3].number, 1);
    assert_true(log->submits[3].after);
    assert_int_equal(log->ops[0].mem_source, TT_MEM_BEFORE_SUBMIT);
    assert_true(log->ops[0].mem[TT_DRAM].alloc_mb == 3.0);
    assert_true(log->ops[2].mem[TT_DRAM].alloc_mb == 9.0);
    assert_int_equal(log->ops[2].submit, 1);
    ttmem_result r;
    ttmem_analyze(log, &r);
    assert_true(r.has_submit_peak);
    assert_true(r.submit_peak_mb == 9.0);
    assert_int_equal(r.submit_peak, 1); /* the first block at 9.000: after submit 0 */
    ttmem_release(&r);
    pq_ttlog_free(log);
}

/* Each malformed case, followed by one good block: the bad one is counted, the good one read. */
static void check_malformed(const char *bad, uint64_t want_malformed)
{
    char text[8192];
    int n = snprintf(
        text, sizeof text, "%s%s", bad,
        BLOCK("Device memory state before operation FullOp", "5.000", "1019.000", "1019.000"));
    assert_true(n > 0 && (size_t)n < sizeof text);
    pq_ttlog_info info;
    tt_log *log = open_ok(text, (size_t)n, &info);
    if (info.malformed_blocks != want_malformed)
        fail_msg("case %.60s: %llu malformed, want %llu", bad,
                 (unsigned long long)info.malformed_blocks, (unsigned long long)want_malformed);
    assert_int_equal(info.operations, 1);
    assert_true(log->ops[0].mem[TT_DRAM].alloc_mb == 5.0);
    assert_true(info.first_warning_offset >= 0);
    assert_non_null(info.first_warning);
    pq_ttlog_free(log);
}

static void test_malformed_blocks(void **state)
{
    (void)state;
    /* header then only three of the four lines */
    check_malformed(A_HDR "Device memory state before operation AddOp\n" A_HDR
                          "Device DRAM memory state: " MV("1.000", "1.000", "1.000") A_HDR
                    "Device L1 memory state: " MV("1.000", "1.000", "1.000") A_HDR
                    "Device L1_SMALL memory state: " MV("1.000", "1.000", "1.000"),
                    1);
    /* a key missing */
    check_malformed(A_HDR "Device memory state before operation AddOp\n" A_HDR
                          "Device DRAM memory state: MemoryView{numBanks: 12, totalBytesPerBank: "
                          "1.000 MB}\n",
                    1);
    /* a value that is not a number */
    check_malformed(A_HDR "Device memory state before operation AddOp\n" A_HDR
                          "Device DRAM memory state: " MV("x.000", "1.000", "1.000"),
                    1);
    /* no closing brace */
    check_malformed(A_HDR "Device memory state before operation AddOp\n" A_HDR
                          "Device DRAM memory state: MemoryView{numBanks: 12\n",
                    1);
    /* the same memory type twice */
    check_malformed(A_HDR "Device memory state before operation AddOp\n" A_HDR
                          "Device DRAM memory state: " MV("1.000", "1.000", "1.000") A_HDR
                    "Device DRAM memory state: " MV("1.000", "1.000", "1.000"),
                    1);
    /* a MemoryView line with no header */
    check_malformed(A_HDR "Device DRAM memory state: " MV("1.000", "1.000", "1.000"), 1);
    /* a block broken by an op line */
    check_malformed(A_HDR "Device memory state before operation AddOp\n" R_HDR
                          "Executing operation: %9 = \"ttnn.neg\"(%8) : (tensor<2xf32>) -> "
                          "tensor<2xf32> loc(\"x\")\n",
                    1);
    /* a block broken by a program line */
    check_malformed(A_HDR "Device memory state before submit\n" R_HDR
                          "Finished execution of program: main\n",
                    1);
    /* too many unrelated lines inside a block */
    {
        char big[6000];
        int n = snprintf(big, sizeof big, "%s", A_HDR "Device memory state before operation X\n");
        for (int i = 0; i < 70; i++)
            n += snprintf(big + n, sizeof big - (size_t)n, "noise line %d\n", i);
        check_malformed(big, 1);
    }
}

static void test_block_cut_by_eof_and_unknown_level(void **state)
{
    (void)state;
    static const char text[] =
        BLOCK("Device memory state before operation FullOp", "5.000", "1019.000", "1019.000") A_HDR
        "Device memory state before operation AddOp\n"
        "   Always | NOTALEVEL | Device memory state before operation Ignored\n";
    pq_ttlog_info info;
    tt_log *log = open_ok(text, sizeof text - 1, &info);
    assert_int_equal(info.operations, 1);
    assert_int_equal(info.malformed_blocks, 1);
    /* the AddOp block is cut by the end of the log: said as such, at the header's offset */
    assert_non_null(info.truncated);
    assert_non_null(strstr(info.truncated, "ends inside the block"));
    assert_int_equal(info.truncated_offset,
                     strstr(text, A_HDR "Device memory state before operation AddOp") - text);
    pq_ttlog_free(log);
}

static void test_op_without_block(void **state)
{
    (void)state;
    static const char text[] =
        R_HDR "Executing operation: %1 = \"ttnn.neg\"(%0) : (tensor<2xf32>) -> tensor<2xf32> "
              "loc(\"x\")\n" R_HDR
              "Executing operation: %2 = \"ttnn.neg\"(%1) : (tensor<2xf32>) -> tensor<2xf32> "
              "loc(\"y\")\n" BLOCK("Device memory state before operation NegOp", "1.000", "1.000",
                                   "1.000");
    pq_ttlog_info info;
    tt_log *log = open_ok(text, sizeof text - 1, &info);
    assert_int_equal(info.operations, 1);
    assert_int_equal(info.ops_without_block, 1);
    assert_memory_equal(log->ops[0].loc.p, "y", 1);
    pq_ttlog_free(log);
}

/* Found by fuzz_ttlog: ": loc(" right after the operands (an empty type signature). */
static void test_empty_signature(void **state)
{
    (void)state;
    static const char text[] =
        R_HDR "Executing operation: %1 = \"ttnn.x\"(%0) : loc(\"a\")\n" BLOCK(
            "Device memory state before operation XOp", "1.000", "1.000", "1.000");
    pq_error err;
    tt_log *log = open_str(text, sizeof text - 1, PQ_OK, &err);
    assert_int_equal(log->nops, 1);
    assert_int_equal(log->ops[0].output_type.n, 0);
    assert_memory_equal(log->ops[0].loc.p, "a", 1);
    pq_ttlog_free(log);
}

static void test_bad_input(void **state)
{
    (void)state;
    pq_error err;
    open_str("", 0, PQ_ERR_INPUT, &err);
    assert_int_equal(err.offset, 0);
    assert_string_equal(err.path, "snippet.log");
    assert_true(tu_starts_with(err.message, "expected"));
    open_str("just text\nno runtime lines\n", 26, PQ_ERR_INPUT, &err);
    assert_int_equal(err.offset, 26);
    open_str("ab\0cd", 5, PQ_ERR_INPUT, &err);
    assert_int_equal(err.offset, 2);
    static const char all_bad[] = "xx\n" A_HDR "Device memory state before operation AddOp\n";
    open_str(all_bad, sizeof all_bad - 1, PQ_ERR_INPUT, &err);
    assert_int_equal(err.offset, 3);
    /* a missing file is an io error naming it */
    pq_ttlog *log;
    assert_int_equal(pq_ttlog_open("/nonexistent/x.log", &log, &err), PQ_ERR_IO);
    assert_null(log);
}

typedef struct membuf {
    char *p;
    size_t n;
} membuf;

static int mem_write(void *ctx, const void *data, size_t n)
{
    membuf *m = ctx;
    char *p = realloc(m->p, m->n + n + 1);
    if (!p)
        return -1;
    memcpy(p + m->n, data, n);
    m->p = p;
    m->n += n;
    m->p[m->n] = 0;
    return 0;
}

static char *render(const tt_log *log, pq_tt_output what)
{
    membuf m = {NULL, 0};
    pq_sink sink = {mem_write, &m};
    pq_error err;
    assert_int_equal(pq_ttlog_render(log, what, "snip<b>", &sink, &err), PQ_OK);
    return m.p;
}

static void test_html_escapes_log_strings(void **state)
{
    (void)state;
    static const char text[] =
        R_HDR "Executing operation: %1 = \"ttnn.neg\"(%0) <{note = \"<script>alert(1)</script>\"}> "
              ": (tensor<2xf32>) -> tensor<2xf32> loc(\"<script>alert(1)</script>\")\n" BLOCK(
                  "Device memory state before operation NegOp", "1.000", "1.000", "1.000");
    pq_error err;
    tt_log *log = open_str(text, sizeof text - 1, PQ_OK, &err);
    char *html = render(log, PQ_TT_REPORT_HTML);
    assert_null(strstr(html, "<script>alert"));
    assert_null(strstr(html, "snip<b>"));
    assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(html, "snip&lt;b&gt;"));
    assert_null(strstr(html, "src=\"http")); /* nothing loaded from the network */
    assert_null(strstr(html, "href=\"http"));
    assert_int_equal(strstr(html, "<script>") != NULL, 1); /* profq's own inline script */
    free(html);
    char *md = render(log, PQ_TT_SUMMARY_MD);
    assert_null(strstr(md, "<script>"));
    free(md);
    pq_ttlog_free(log);
}

static void test_json_is_deterministic_and_reads_back(void **state)
{
    (void)state;
    pq_error err;
    tt_log *log = open_str(SHAPE_A, sizeof SHAPE_A - 1, PQ_OK, &err);
    char *mem = render(log, PQ_TT_MEMORY_JSON), *ops = render(log, PQ_TT_OPERATIONS_JSON);
    char *mem2 = render(log, PQ_TT_MEMORY_JSON);
    assert_string_equal(mem, mem2);
    assert_non_null(strstr(mem, "\"total_operations\": 3"));
    assert_non_null(strstr(ops, "\"padded_shape\": [\n        64,\n        128\n      ]"));
    char *dir = tu_mkdtemp(), mp[PATH_MAX], op[PATH_MAX];
    snprintf(mp, sizeof mp, "%s/x_memory.json", dir);
    snprintf(op, sizeof op, "%s/x_operations.json", dir);
    tu_write_file(mp, mem, strlen(mem));
    tu_write_file(op, ops, strlen(ops));
    pq_ttlog *back;
    assert_int_equal(pq_ttlog_open_json(mp, op, &back, &err), PQ_OK);
    assert_int_equal(back->nops, 3);
    assert_true(back->ops[1].mem[TT_DRAM].alloc_mb == 3.5);
    assert_memory_equal(back->ops[1].loc.p, "add.2", 5);
    char *mem3 = render(back, PQ_TT_MEMORY_JSON);
    /* everything but the per-op byte offsets survives the round trip */
    assert_int_equal(strlen(mem3), strlen(mem));
    free(mem3);
    pq_ttlog_free(back);
    /* broken JSON: exit-3 error with an offset */
    tu_write_file(op, "[1, 2", 5);
    assert_int_equal(pq_ttlog_open_json(mp, op, &back, &err), PQ_ERR_INPUT);
    assert_int_equal(err.offset, 5);
    tu_write_file(op, "[]", 2);
    assert_int_equal(pq_ttlog_open_json(mp, op, &back, &err), PQ_ERR_INPUT);
    tu_rm_rf(dir);
    free(dir);
    free(mem);
    free(mem2);
    free(ops);
    pq_ttlog_free(log);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    for (long k = 1; k < 400; k++) {
        pq_debug_fail_alloc_after(k);
        pq_ttlog *log = NULL;
        pq_error err;
        pq_status st = pq_ttlog_open_memory(SHAPE_A, sizeof SHAPE_A - 1, "a.log", &log, &err);
        if (st == PQ_OK) {
            membuf m = {NULL, 0};
            pq_sink sink = {mem_write, &m};
            (void)pq_ttlog_render(log, PQ_TT_REPORT_HTML, "a", &sink, &err);
            free(m.p);
            pq_ttlog_free(log);
        } else {
            assert_int_equal(st, PQ_ERR_NOMEM);
            assert_null(log);
        }
    }
    pq_debug_fail_alloc_after(0);
}

/* Real logs: operation counts against an independent count (grep-like, here in C over the
 * raw bytes), and the DRAM peak checked by hand (recorded below). */
/* Lines holding NEEDLE and none of the EXCLUDE strings (NULL-terminated list). */
static size_t count_lines(const char *data, size_t n, const char *needle,
                          const char *const *exclude)
{
    size_t c = 0;
    const char *p = data, *end = data + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)((nl ? nl : end) - p);
        char *line = strndup(p, len);
        if (strstr(line, needle)) {
            int ex = 0;
            for (int i = 0; exclude && exclude[i]; i++)
                ex |= strstr(line, exclude[i]) != NULL;
            c += !ex;
        }
        free(line);
        p = nl ? nl + 1 : end;
    }
    return c;
}

static size_t count(const char *data, size_t n, const char *needle)
{
    size_t c = 0, k = strlen(needle);
    for (const char *p = data; (p = memmem(p, (size_t)(data + n - p), needle, k)); p += k)
        c++;
    return c;
}

static void test_real_logs(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    size_t n = 0;
    /* qwen: 14 per-op blocks, 4 DeallocateOp and 1 GetDeviceOp; DRAM peak 15.121 MB/bank
     * first reached before the 2nd ReshapeOp (op #7; by hand from lines 784-785 of the log). */
    uint8_t *d = tu_read_file(shared_path("tenstorrent/qwen_run_noconsteval.log"), &n);
    assert_non_null(d);
    size_t blocks = count((char *)d, n, "Device memory state before operation ");
    size_t excl = count((char *)d, n, "before operation DeallocateOp") +
                  count((char *)d, n, "before operation GetDeviceOp");
    pq_ttlog *log;
    pq_error err;
    assert_int_equal(pq_ttlog_open_memory(d, n, "qwen.log", &log, &err), PQ_OK);
    assert_int_equal(log->nops, blocks - excl);
    assert_int_equal(log->nops, 9);
    ttmem_result r;
    ttmem_analyze(log, &r);
    assert_int_equal(r.type[TT_DRAM].peak_op, 7);
    assert_true(r.type[TT_DRAM].peak_mb == 15.121);
    assert_memory_equal(log->ops[7].op_type.p, "ReshapeOp", 9);
    ttmem_release(&r);
    pq_ttlog_free(log);
    free(d);
    /* mochi: per-submit blocks; 68 executed ops of which 35 deallocate/get_device; DRAM peak
     * 36.303 MB/bank after submit 2 (line 826 of the log). */
    d = tu_read_file(shared_path("tenstorrent/mochi_only_norm2.log"), &n);
    assert_non_null(d);
    static const char *const EXCL[] = {"\"ttnn.deallocate\"", "\"ttnn.get_device\"", NULL};
    size_t exec = count_lines((char *)d, n, "Executing operation:", EXCL);
    assert_int_equal(pq_ttlog_open_memory(d, n, "mochi.log", &log, &err), PQ_OK);
    assert_int_equal(log->nops, exec);
    assert_int_equal(log->nops, 33);
    ttmem_analyze(log, &r);
    assert_true(r.has_submit_peak);
    assert_true(r.submit_peak_mb == 36.303);
    assert_true(log->submits[r.submit_peak].after);
    assert_int_equal(log->submits[r.submit_peak].number, 2);
    ttmem_release(&r);
    pq_ttlog_free(log);
    free(d);
}

/* ---------------------------------------------------------------------------------------
 * Truncation (issue 16 item 18): every prefix of a log either reads completely (the ops
 * that started before the cut, each equal to the whole log's) or says where it was cut. */

static int str_eq(pq_str a, pq_str b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static int op_eq(const tt_op *a, const tt_op *b)
{
    return str_eq(a->text, b->text) && str_eq(a->op_type, b->op_type) && str_eq(a->name, b->name) &&
           str_eq(a->loc, b->loc) && str_eq(a->output_type, b->output_type) &&
           str_eq(a->const_eval, b->const_eval) && memcmp(a->mem, b->mem, sizeof a->mem) == 0 &&
           a->mem_source == b->mem_source && memcmp(a->live, b->live, sizeof a->live) == 0 &&
           a->submit == b->submit && a->offset == b->offset && a->is_weight == b->is_weight &&
           a->cache_miss == b->cache_miss;
}

/* Checks every cut point 1..n-1 of D; returns how many cuts reported a truncation. */
static size_t check_every_cut(const char *d, size_t n, const char *name)
{
    pq_ttlog *full;
    pq_error err;
    assert_int_equal(pq_ttlog_open_memory(d, n, name, &full, &err), PQ_OK);
    assert_null(full->truncated);
    size_t reported = 0, k = 0;
    for (size_t c = 1; c < n; c++) {
        while (k < full->nops && full->ops[k].offset < (int64_t)c)
            k++; /* the ops that started before the cut */
        pq_ttlog *g;
        if (pq_ttlog_open_memory(d, c, name, &g, &err) != PQ_OK) {
            /* no op at all: fine before the first op starts, else it must say "ends" */
            if (k && !strstr(err.message, "the log ends at byte"))
                fail_msg("%s cut at %zu: %s (offset %lld)", name, c, err.message,
                         (long long)err.offset);
            reported += k > 0;
            continue;
        }
        for (size_t i = 0; i < g->nops; i++)
            if (i >= full->nops || !op_eq(&g->ops[i], &full->ops[i]))
                fail_msg("%s cut at %zu: op %zu differs from the whole log's", name, c, i);
        if (g->truncated) {
            reported++;
            assert_true(g->truncated_offset <= (int64_t)c);
            char want[64];
            snprintf(want, sizeof want, "the log ends at byte %zu", c);
            assert_non_null(strstr(g->truncated, want));
            int listed = 0;
            for (size_t w = 0; w < g->nwarnings; w++)
                listed |= g->warnings[w].what == g->truncated &&
                          g->warnings[w].offset == g->truncated_offset;
            assert_true(listed);
        } else if (g->nops != k) {
            fail_msg("%s cut at %zu: %zu ops and no truncation reported; %zu ops started", name, c,
                     g->nops, k);
        }
        pq_ttlog_free(g);
    }
    pq_ttlog_free(full);
    return reported;
}

/* A submit-shaped log of NOPS ops (three submits), op lines long as real ones. */
static char *submit_log(int nops, size_t *n)
{
    buf b;
    buf_init(&b, NULL);
    static const char LAY[] = "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<2x2x!ttcore."
                              "tile<32x32, bf16>, #ttnn.buffer_type<dram>>, <interleaved>>";
    int k = 0;
    for (int s = 0; s < 3; s++) {
        for (int after = 0; after < 2; after++) {
            buf_printf(&b, A_HDR "Device memory state %s submit\n", after ? "after" : "before");
            buf_printf(&b, A_HDR "Device DRAM memory state: " MV("%d.%d00", "1000.000", "999.000"),
                       s + 1, after * 5);
            buf_puts(&b, SMALLS);
            if (after)
                break;
            buf_puts(&b, R_HDR "Starting execution of program: main\n");
            for (int i = 0; i < nops / 3 + (s < nops % 3); i++, k++)
                buf_printf(&b,
                           R_HDR "Executing operation: %%%d = \"ttnn.add\"(%%%d, %%arg0) : "
                                 "(tensor<64x64xbf16, %s>, tensor<64x64xbf16, %s>) -> "
                                 "tensor<64x64xbf16, %s> loc(\"add.%d\")\n",
                           k + 1, k, LAY, LAY, LAY, k);
            buf_puts(&b, R_HDR "Finished execution of program: main\n");
        }
    }
    *n = b.n;
    char *out = malloc(b.n);
    assert_non_null(out);
    memcpy(out, b.p, b.n);
    buf_release(&b);
    return out;
}

static void test_every_cut_point(void **state)
{
    (void)state;
    size_t n;
    char *d = submit_log(34, &n);
    size_t rep = check_every_cut(d, n, "submit34.log");
    assert_true(rep > 0);
    free(d);
    rep = check_every_cut(SHAPE_A, sizeof SHAPE_A - 1, "shape_a.log");
    assert_true(rep > 0);
    REQUIRE_SHARED();
    static const char *const LOGS[] = {"tenstorrent/qwen_run_noconsteval.log",
                                       "tenstorrent/mochi_only_norm2.log"};
    for (size_t i = 0; i < 2; i++) {
        uint8_t *f = tu_read_file(shared_path(LOGS[i]), &n);
        assert_non_null(f);
        rep = check_every_cut((const char *)f, n, LOGS[i]);
        assert_true(rep > 0);
        free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_op_text),
        cmocka_unit_test(test_shape_op_type),
        cmocka_unit_test(test_shape_submit),
        cmocka_unit_test(test_malformed_blocks),
        cmocka_unit_test(test_block_cut_by_eof_and_unknown_level),
        cmocka_unit_test(test_op_without_block),
        cmocka_unit_test(test_empty_signature),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_html_escapes_log_strings),
        cmocka_unit_test(test_json_is_deterministic_and_reads_back),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_real_logs),
        cmocka_unit_test(test_every_cut_point),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
