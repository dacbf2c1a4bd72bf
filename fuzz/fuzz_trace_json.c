/* fuzz_trace_json.c - libFuzzer target for the trace-event JSON reader and the summary.
 *
 * Each input is read as trace JSON (plain, or gzip when it starts with the gzip magic)
 * into the model's slices, summarised into the result structs and written as the document
 * summarize writes (render/summary_write.c's sm_write) into a sink that collects it.
 * Differential: the same JSON is also gzip-compressed here and read back through the
 * streaming window with 1..64-byte refills, so every event crosses a refill boundary;
 * the status, the event count and the summary bytes must equal the whole-buffer read. The
 * plain JSON is also read through the refilled window as files are (read() into 1..64-byte
 * refills here), with the same check.
 * Built with -fsanitize=fuzzer by `make fuzz-trace-json`, and without libFuzzer (linked
 * with replay.c) for the corpus replay in `make test`.
 */
#include "analysis/summary.h"
#include "api/summary_int.h"
#include "core/buf.h"
#include "formats/trace_events.h"
#include "formats/trace_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct collect {
    char *p;
    size_t n, cap;
} collect;

static int collect_write(void *ctx, const void *d, size_t n)
{
    collect *c = ctx;
    if (c->n + n > c->cap) {
        size_t cap = (c->n + n) * 2;
        char *np = realloc(c->p, cap);
        if (!np)
            return -1;
        c->p = np;
        c->cap = cap;
    }
    memcpy(c->p + c->n, d, n);
    c->n += n;
    return 0;
}

/* Reads and summarises (the global breakdown when GLOBAL); the output (status, events,
 * summary text) goes into OUT. Every leg of one input uses the same options. */
static pq_status run(const uint8_t *data, size_t size, int global, collect *out, uint64_t *events)
{
    model_slices sl;
    if (slices_init(&sl) != 0)
        return PQ_ERR_NOMEM;
    pq_events ev = slices_events(&sl);
    tj_info info;
    pq_error err;
    memset(&err, 0, sizeof err);
    pq_status st = trace_events_feed(data, size, "fuzz.json", &ev, &info, &err);
    *events = st == PQ_OK ? info.num_events : 0;
    if (st == PQ_OK) {
        sm_options o = {2, 25, global, NULL, NULL, NULL, NULL};
        sm_source src = {"perfetto_trace_json",  "fuzz.json", "0", NULL, info.num_events,
                         "1970-01-01T00:00:00Z", NULL};
        pq_sink sink = {collect_write, out};
        buf w;
        buf_init(&w, &sink);
        if (summary_doc_of(&sl, &o, &src, &w) == 0) /* sm_compute, then sm_write */
            buf_flush(&w);
        buf_release(&w);
    }
    slices_free(&sl);
    return st;
}

static uint8_t *gzip_of(const uint8_t *data, size_t size, size_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong)size) + 32;
    uint8_t *out = malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Larger real traces are covered by tests/golden/summary.sh; 64 prefixes each of the
     * multi-MB ones would make the replay slow under the sanitizers. */
    if (size > (256u << 10))
        return 0;
    collect whole = {0}, chunked = {0};
    uint64_t ev1 = 0, ev2 = 0;
    int global = (int)(size & 1);
    pq_status st1 = run(data, size, global, &whole, &ev1);
    int is_gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    if (!is_gz && size > 0) {
        size_t gz_n;
        uint8_t *gz = gzip_of(data, size, &gz_n);
        if (gz) {
            tj_debug_set_chunk(1 + size % 64);
            pq_status st2 = run(gz, gz_n, global, &chunked, &ev2);
            tj_debug_set_chunk(0);
            /* A plain read that failed may have failed on something a byte-window read
             * reports at a different offset; the verdict and the results must agree. */
            if ((st1 == PQ_OK) != (st2 == PQ_OK) || ev1 != ev2 || whole.n != chunked.n ||
                (whole.n && memcmp(whole.p, chunked.p, whole.n) != 0))
                abort();
            free(gz);
        }
        /* The same bytes through the window as files are read (plain, refilled). */
        collect streamed = {0};
        uint64_t ev3 = 0;
        tj_debug_stream_plain(1);
        tj_debug_set_chunk(1 + (size / 64) % 64);
        pq_status st3 = run(data, size, global, &streamed, &ev3);
        tj_debug_set_chunk(0);
        tj_debug_stream_plain(0);
        if ((st1 == PQ_OK) != (st3 == PQ_OK) || ev1 != ev3 || whole.n != streamed.n ||
            (whole.n && memcmp(whole.p, streamed.p, whole.n) != 0))
            abort();
        free(streamed.p);
    }
    free(whole.p);
    free(chunked.p);
    return 0;
}
