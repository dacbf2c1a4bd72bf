/* gen_kineto.c - writes a large, realistic, deterministic PyTorch/Kineto trace (trace-event
 * JSON) for the trace-summary benchmark (bench/summary.sh).
 *
 *   gen_kineto OUT [SIZE_BYTES [SEED]]     SIZE accepts K/M/G suffixes; default 1G, seed 1
 *
 * The trace looks like what torch.profiler writes for data-parallel training on one GPU of
 * a node: the top-level Kineto keys (schemaVersion, deviceProperties, distributedInfo,
 * traceEvents, traceName, displayTimeUnit, baseTimeNanoseconds) laid out as Kineto
 * indents them; per step a ProfilerStep#N user annotation on the main thread holding
 * nested cpu_op events (forward layers: aten::linear > aten::t / aten::addmm >
 * cudaLaunchKernel, relu, dropout, layer norm), a backward pass on the autograd thread
 * (autograd::engine::evaluate_function: ...Backward0 > aten::mm > cudaLaunchKernel), NCCL
 * all-reduce buckets (record_param_comms > nccl:all_reduce > cudaLaunchKernel) whose
 * ncclDevKernel_* kernels run on a communication stream, an optimizer step with
 * multi_tensor_apply kernels, host-to-device copies, a data-loader thread and a closing
 * cudaStreamSynchronize; every launch has its GPU kernel on a stream (cat kernel,
 * gpu_memcpy) with the kernel args Kineto writes (grid, block, registers, occupancy), an
 * ac2g flow pair (ph s / f) from launch to kernel, and gpu_user_annotation ranges; M
 * metadata (process/thread names, labels, sort indexes) at the end. Times are µs with
 * three decimals, as Kineto writes them.
 *
 * It writes OUT.tmp and renames it to OUT when complete, then prints one line with the
 * byte and event counts. Memory is constant: events are written as they are made. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PID = 2712, TID_MAIN = 2712, TID_BWD = 2790, TID_LOADER = 2801, GPU_PID = 0 };
enum { STREAM_COMPUTE = 7, STREAM_NCCL = 20, STREAM_COPY = 24, LAYERS = 24, BUCKETS = 6 };

static FILE *g_out;
static uint64_t g_bytes, g_events, g_rng, g_ext, g_corr;

static void die(const char *what)
{
    fprintf(stderr, "gen_kineto: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

/* A duration in ns around MEAN (+-25%). */
static int64_t jitter(int64_t mean)
{
    return mean - mean / 4 + (int64_t)(rnd() % (uint32_t)(mean / 2 + 1));
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(g_out, fmt, ap);
    va_end(ap);
    if (n < 0)
        die("write");
    g_bytes += (uint64_t)n;
}

/* ns as Kineto's µs with three decimals. */
static const char *us3(int64_t ns, char *buf)
{
    snprintf(buf, 32, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
    return buf;
}

static int g_first = 1;
static void open_event(void)
{
    emit(g_first ? "\n  {\n" : ",\n  {\n");
    g_first = 0;
    g_events++;
}

static void x_event(const char *cat, const char *name, int pid, int tid, int64_t ts, int64_t dur,
                    const char *args)
{
    char a[32], b[32];
    open_event();
    emit("    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n"
         "    \"ts\": %s, \"dur\": %s,\n    \"args\": {\n      %s\n    }\n  }",
         cat, name, pid, tid, us3(ts, a), us3(dur, b), args);
}

static void flow(char ph, uint64_t id, int pid, int tid, int64_t ts)
{
    char a[32];
    open_event();
    emit("    \"ph\": \"%c\", \"id\": %" PRIu64 ", \"pid\": %d, \"tid\": %d, \"ts\": %s,\n"
         "    \"cat\": \"ac2g\", \"name\": \"ac2g\"%s\n  }",
         ph, id, pid, tid, us3(ts, a), ph == 'f' ? ", \"bp\": \"e\"" : "");
}

static void meta(const char *name, int pid, int tid, const char *args)
{
    open_event();
    emit("    \"name\": \"%s\", \"ph\": \"M\", \"ts\": 5873021488.466, \"pid\": %d, \"tid\": %d,\n"
         "    \"args\": {\n      %s\n    }\n  }",
         name, pid, tid, args);
}

/* GPU stream clocks (ns). */
static int64_t g_stream[3];

static int stream_index(int stream)
{
    return stream == STREAM_COMPUTE ? 0 : stream == STREAM_NCCL ? 1 : 2;
}

/* A cpu_op with Kineto's usual args. */
static void cpu_op(const char *name, int tid, int64_t ts, int64_t dur, const char *dims)
{
    char args[512];
    uint64_t ext = ++g_ext;
    snprintf(args, sizeof args,
             "\"External id\": %" PRIu64 ",\"Record function id\": 0, \"Sequence number\": %" PRIu64
             ", \"Fwd thread id\": 0, \"Ev Idx\": %" PRIu64 ", \"Input Dims\": %s",
             ext, ext / 3, g_events, dims);
    x_event("cpu_op", name, PID, tid, ts, dur, args);
}

/* cudaLaunchKernel at TS on TID, its kernel NAME on STREAM, the flow between them. */
static int64_t launch(int tid, int64_t ts, const char *kernel, int stream, int64_t kdur,
                      const char *kcat)
{
    char args[512];
    uint64_t corr = ++g_corr, ext = ++g_ext;
    int64_t ldur = jitter(4500);
    int memcpy_ = kcat[4] == 'm';
    snprintf(args, sizeof args,
             "\"External id\": %" PRIu64 ",\"cbid\": %d, \"correlation\": %" PRIu64, ext,
             memcpy_ ? 41 : 211, corr);
    x_event("cuda_runtime", memcpy_ ? "cudaMemcpyAsync" : "cudaLaunchKernel", PID, tid, ts, ldur,
            args);
    flow('s', corr, PID, tid, ts);
    int64_t *clk = &g_stream[stream_index(stream)];
    int64_t start = ts + ldur + jitter(6000);
    if (*clk > start)
        start = *clk;
    int64_t kd = jitter(kdur);
    if (memcpy_)
        snprintf(args, sizeof args,
                 "\"External id\": %" PRIu64 ",\"device\": 0, \"context\": 1, \"stream\": %d, "
                 "\"correlation\": %" PRIu64
                 ", \"bytes\": %u, \"memory bandwidth (GB/s)\": %u.%02u",
                 ext, stream, corr, 1u << (12 + rnd() % 12), 5 + rnd() % 20, rnd() % 100);
    else
        snprintf(
            args, sizeof args,
            "\"External id\": %" PRIu64 ",\"queued\": 0, \"device\": 0, \"context\": 1, "
            "\"stream\": %d, \"correlation\": %" PRIu64
            ", \"registers per thread\": %u, \"shared memory\": %u, \"blocks per SM\": %u.%03u, "
            "\"warps per SM\": %u.%03u, \"grid\": [%u, 1, 1], \"block\": [%u, 1, 1], "
            "\"est. achieved occupancy %%\": %u",
            ext, stream, corr, 32 + rnd() % 96, (rnd() % 4) * 16384, rnd() % 64, rnd() % 1000,
            rnd() % 64, rnd() % 1000, 1 + rnd() % 8192, 64u << (rnd() % 4), rnd() % 100);
    x_event(kcat, kernel, GPU_PID, stream, start, kd, args);
    flow('f', corr, GPU_PID, stream, start);
    *clk = start + kd;
    return ldur;
}

static const char *const FWD_KERNELS[] = {
    "ampere_sgemm_128x64_tn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
    "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda(float)#1}, "
    "at::detail::Array<char*, 2> >(int, float, at::detail::Array<char*, 2>)",
    "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, "
    "1, 4, bool>(at::cuda::detail::TensorInfo<float const, unsigned int>, "
    "at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<bool, "
    "unsigned int>, unsigned int, float, at::PhiloxCudaState)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, "
    "float, float const*, float const*, float const*, float*, float*, float*)",
};

/* One cpu_op that launches one kernel: returns its duration. */
static int64_t op_with_kernel(const char *op, int tid, int64_t ts, const char *kernel, int64_t kdur,
                              const char *dims)
{
    int64_t pre = jitter(3000), post = jitter(2000);
    int64_t ld = launch(tid, ts + pre, kernel, STREAM_COMPUTE, kdur, "kernel");
    int64_t dur = pre + ld + post;
    cpu_op(op, tid, ts, dur, dims);
    return dur;
}

static int64_t forward_layer(int64_t t)
{
    const char *dims = "[[64, 4096], [4096, 4096], [4096]]";
    int64_t t0 = t;
    /* aten::linear > aten::t, aten::addmm > cudaLaunchKernel */
    int64_t td = jitter(2500);
    cpu_op("aten::t", TID_MAIN, t + 1000, td, "[[4096, 4096]]");
    int64_t ad =
        op_with_kernel("aten::addmm", TID_MAIN, t + 1000 + td + 500, FWD_KERNELS[0], 180000, dims);
    int64_t ld = 1000 + td + 500 + ad + 800;
    cpu_op("aten::linear", TID_MAIN, t, ld, dims);
    t += ld + jitter(1500);
    t += op_with_kernel("aten::relu", TID_MAIN, t, FWD_KERNELS[1], 20000, "[[64, 4096]]") +
         jitter(1000);
    t += op_with_kernel("aten::dropout", TID_MAIN, t, FWD_KERNELS[2], 25000,
                        "[[64, 4096], [], []]") +
         jitter(1000);
    t += op_with_kernel("aten::layer_norm", TID_MAIN, t, FWD_KERNELS[3], 30000,
                        "[[64, 4096], [], [4096], [4096], [], []]") +
         jitter(1000);
    return t - t0;
}

static int64_t backward_layer(int64_t t)
{
    int64_t t0 = t, inner = t + jitter(2000);
    int64_t m1 = op_with_kernel("aten::mm", TID_BWD, inner, "ampere_sgemm_128x64_nn", 190000,
                                "[[64, 4096], [4096, 4096]]");
    int64_t m2 = op_with_kernel("aten::mm", TID_BWD, inner + m1 + 600, "ampere_sgemm_64x64_nt",
                                170000, "[[4096, 64], [64, 4096]]");
    int64_t bd = m1 + m2 + 600 + jitter(1500);
    cpu_op("AddmmBackward0", TID_BWD, t + 1000, bd, "[]");
    cpu_op("autograd::engine::evaluate_function: AddmmBackward0", TID_BWD, t, bd + 2500, "[]");
    t += bd + 2500 + jitter(1200);
    int64_t rd = op_with_kernel("autograd::engine::evaluate_function: ReluBackward0", TID_BWD, t,
                                "void at::native::vectorized_elementwise_kernel<4, "
                                "at::native::threshold_kernel_impl<float>>(int, float, float)",
                                22000, "[]");
    t += rd + jitter(1200);
    return t - t0;
}

static int64_t allreduce(int64_t t, int bucket)
{
    static const char *const kernels[] = {
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL128(ncclDevComm*, unsigned long, ncclWork*)",
    };
    int64_t pre = jitter(8000);
    int64_t ld =
        launch(TID_BWD, t + pre + 3000, kernels[bucket & 1], STREAM_NCCL, 900000, "kernel");
    int64_t nd = 3000 + ld + jitter(2000);
    cpu_op("nccl:all_reduce", TID_BWD, t + pre, nd, "[[25000000]]");
    int64_t rd = pre + nd + jitter(3000);
    cpu_op("record_param_comms", TID_BWD, t, rd, "[[25000000], [], [], [], [], [], [], []]");
    return rd + jitter(1000);
}

static void step(int n, int64_t *clock)
{
    char name[64], args[128];
    int64_t s0 = *clock, t = s0 + jitter(20000);
    /* the data loader */
    int64_t dl = jitter(400000);
    cpu_op("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", TID_LOADER, t, dl,
           "[]");
    t += dl + jitter(5000);
    t += launch(TID_MAIN, t, "Memcpy HtoD (Pageable -> Device)", STREAM_COPY, 60000, "gpu_memcpy") +
         jitter(3000);
    for (int l = 0; l < LAYERS; l++)
        t += forward_layer(t);
    int64_t tb = t + jitter(10000);
    for (int l = 0; l < LAYERS; l++) {
        tb += backward_layer(tb);
        if (l % (LAYERS / BUCKETS) == LAYERS / BUCKETS - 1)
            tb += allreduce(tb, l);
    }
    t = tb + jitter(10000);
    int64_t o0 = t;
    for (int k = 0; k < 8; k++)
        t += op_with_kernel("aten::_foreach_add_", TID_MAIN, t,
                            "void at::native::(anonymous namespace)::multi_tensor_apply_kernel",
                            40000, "[[], [], []]") +
             jitter(800);
    cpu_op("Optimizer.step#AdamW.step", TID_MAIN, o0 - 1000, t - o0 + 2000, "[]");
    /* wait for the GPU */
    int64_t gpu_end = g_stream[0] > g_stream[1] ? g_stream[0] : g_stream[1];
    int64_t sync = gpu_end > t ? gpu_end - t + jitter(8000) : jitter(8000);
    snprintf(args, sizeof args,
             "\"External id\": %" PRIu64 ",\"cbid\": 131, \"correlation\": %" PRIu64, ++g_ext,
             ++g_corr);
    x_event("cuda_runtime", "cudaStreamSynchronize", PID, TID_MAIN, t, sync, args);
    t += sync + jitter(4000);
    snprintf(name, sizeof name, "ProfilerStep#%d", n);
    snprintf(args, sizeof args,
             "\"External id\": %" PRIu64 ",\"Record function id\": 0, \"Ev Idx\": %" PRIu64,
             ++g_ext, g_events);
    x_event("user_annotation", name, PID, TID_MAIN, s0, t - s0, args);
    x_event("gpu_user_annotation", name, GPU_PID, STREAM_COMPUTE, s0 + 30000, gpu_end - s0 - 30000,
            args);
    *clock = t + jitter(15000);
}

static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    if (*end == 'K' || *end == 'k')
        v <<= 10;
    else if (*end == 'M' || *end == 'm')
        v <<= 20;
    else if (*end == 'G' || *end == 'g')
        v <<= 30;
    else if (*end)
        return 0;
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: gen_kineto OUT [SIZE_BYTES [SEED]]\n");
        return 2;
    }
    uint64_t size = argc > 2 ? parse_size(argv[2]) : (uint64_t)1 << 30;
    if (!size) {
        fprintf(stderr, "gen_kineto: bad size '%s'\n", argv[2]);
        return 2;
    }
    g_rng = 0x9E3779B97F4A7C15ull ^ (argc > 3 ? strtoull(argv[3], NULL, 10) : 1);
    if (!g_rng)
        g_rng = 1;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    g_out = fopen(tmp, "w");
    if (!g_out)
        die(tmp);
    static char iobuf[1 << 20];
    setvbuf(g_out, iobuf, _IOFBF, sizeof iobuf);
    emit("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, "
         "\"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n      "
         "\"computeMajor\": 8, \"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024, "
         "\"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, "
         "\"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n      \"sharedMemPerBlock\": "
         "49152, \"sharedMemPerMultiprocessor\": 167936,\n      \"numSms\": 108, "
         "\"sharedMemPerBlockOptin\": 166912\n    }\n  ],\n  \"distributedInfo\": "
         "{\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8, \"pg_count\": 1, "
         "\"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": "
         "\"cuda:nccl\", \"pg_size\": 8, \"ranks\": [0, 1, 2, 3, 4, 5, 6, 7]}], "
         "\"nccl_version\": \"2.20.5\"},\n  \"record_shapes\": 1,\n  \"with_stack\": 0,\n"
         "  \"traceEvents\": [");
    /* The trailer (metadata and top-level keys) is small; keep room for it. */
    uint64_t budget = size > 8192 ? size - 8192 : 0;
    int64_t clock = 5873021488466000LL;
    g_stream[0] = g_stream[1] = g_stream[2] = clock;
    int n = 0;
    while (g_bytes < budget || n == 0)
        step(n++, &clock);
    meta("process_name", PID, 0, "\"name\": \"python\"");
    meta("process_labels", PID, 0, "\"labels\": \"CPU\"");
    meta("process_sort_index", PID, 0, "\"sort_index\": 2712");
    meta("process_name", GPU_PID, 0, "\"name\": \"python\"");
    meta("process_labels", GPU_PID, 0, "\"labels\": \"GPU 0\"");
    meta("process_sort_index", GPU_PID, 0, "\"sort_index\": 16777216");
    static const struct {
        int pid, tid;
        const char *name;
    } threads[] = {{PID, TID_MAIN, "thread 2712 (python)"},
                   {PID, TID_BWD, "thread 2790 (pt_autograd_0)"},
                   {PID, TID_LOADER, "thread 2801 (pt_data_worker)"},
                   {GPU_PID, STREAM_COMPUTE, "stream 7 "},
                   {GPU_PID, STREAM_NCCL, "stream 20 "},
                   {GPU_PID, STREAM_COPY, "stream 24 "}};
    for (size_t k = 0; k < sizeof threads / sizeof *threads; k++) {
        char a[128];
        snprintf(a, sizeof a, "\"name\": \"%s\"", threads[k].name);
        meta("thread_name", threads[k].pid, threads[k].tid, a);
        snprintf(a, sizeof a, "\"sort_index\": %d", threads[k].tid);
        meta("thread_sort_index", threads[k].pid, threads[k].tid, a);
    }
    emit("\n],\n  \"traceName\": \"%s\",\n  \"displayTimeUnit\": \"ms\",\n"
         "  \"baseTimeNanoseconds\": 1727000000000000000\n}\n",
         "node0_2712.1727000000000.pt.trace.json");
    if (fflush(g_out) != 0 || fclose(g_out) != 0)
        die(tmp);
    if (rename(tmp, argv[1]) != 0)
        die(argv[1]);
    printf("gen_kineto: %s: %" PRIu64 " bytes, %" PRIu64 " events, %d steps\n", argv[1], g_bytes,
           g_events, n);
    return 0;
}
