/* fuzz_ttlog.c - libFuzzer target for the Tenstorrent log reader (formats/ttlog.c).
 *
 * Reads the input as one in-memory log, then renders every output the CLI writes (memory and
 * operations JSON, markdown summary, HTML report) into a sink that discards. Built with
 * -fsanitize=fuzzer by `make fuzz-ttlog`, and without libFuzzer (linked with replay.c as
 * build/fuzz_replay_ttlog) for the corpus replay in `make test`.
 */
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Discards the bytes, touching the first and last so a bad span still trips ASan. */
static int discard_write(void *ctx, const void *data, size_t n)
{
    volatile unsigned char *sum = ctx;
    if (n) {
        const unsigned char *p = data;
        *sum ^= (unsigned char)(p[0] ^ p[n - 1]);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_ttlog *log = NULL;
    pq_error err;
    if (pq_ttlog_open_memory(data, size, "fuzz.log", &log, &err) != PQ_OK)
        return 0;
    unsigned char sum = 0;
    pq_sink sink = {discard_write, &sum};
    for (int k = PQ_TT_MEMORY_JSON; k <= PQ_TT_REPORT_HTML; k++)
        (void)pq_ttlog_render(log, (pq_tt_output)k, "fuzz", &sink, &err);
    pq_ttlog_free(log);
    return 0;
}
