/* fuzz_xspace.c - libFuzzer target for the XSpace reader.
 *
 * Loads the input as one in-memory source named "fuzz.xplane.pb" (so detection takes the
 * XSpace path), and when it loads, walks it the ways the CLI does: the full scan of every
 * event and stat, then info and tools rendered as JSON into a sink that discards. Built
 * with -fsanitize=fuzzer by `make fuzz`, and without libFuzzer (linked with replay.c) for
 * the corpus replay in `make test`.
 */
#include "profq.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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
    pq_profile *prof = NULL;
    pq_error err;
    pq_status st = pq_profile_open_memory(data, size, "fuzz.xplane.pb", &prof, &err);
    if (st != PQ_OK) {
        /* A rejected input must come back with a consistent error record (DESIGN.md 7):
         * no profile, the same status, and an offset inside the input or -1. */
        if (prof || err.status != st || err.offset < -1 || err.offset > (int64_t)size ||
            !err.message[0])
            abort();
        return 0;
    }
    unsigned char sum = 0;
    pq_sink sink = {discard_write, &sum};
    pq_scan_totals totals;
    if (pq_profile_scan(prof, &totals, &err) == PQ_OK)
        (void)pq_render_scan(prof, &totals, PQ_OUT_JSON, &sink, &err);
    (void)pq_render_info(prof, PQ_OUT_JSON, &sink, &err);
    (void)pq_render_tools(prof, PQ_OUT_JSON, &sink, &err);
    pq_profile_free(prof);
    return 0;
}
