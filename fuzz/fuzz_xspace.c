/* fuzz_xspace.c - libFuzzer target for the XSpace reader.
 *
 * Loads the input as one in-memory source named "fuzz.xplane.pb" (so detection takes the
 * XSpace path) with both decoder builds (portable and BMI2) and checks they agree, then
 * walks it the ways the CLI does: the full scan of every event and stat (which must equal
 * the single-pass scan of the load), then info and tools rendered as JSON into a sink
 * that discards. Built
 * with -fsanitize=fuzzer by `make fuzz`, and without libFuzzer (linked with replay.c) for
 * the corpus replay in `make test`.
 */
#include "profq.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Loads with one decoder build, scanning in the same pass. */
static pq_status load(const uint8_t *data, size_t size, int decoder, pq_profile **prof,
                      pq_scan_totals *totals, pq_error *err)
{
    pq_open_options opts = {0};
    opts.skip_sha256 = 1;
    opts.scan = totals;
    memset(totals, 0, sizeof *totals);
    pq_debug_force_decoder(decoder);
    pq_status st = pq_profile_open_memory(data, size, "fuzz.xplane.pb", &opts, prof, err);
    pq_debug_force_decoder(0);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_profile *prof = NULL, *prof2 = NULL;
    pq_error err, err2;
    pq_scan_totals once, twice, walk;
    /* Differential: the portable and the BMI2 decoder builds must agree on every input
     * (status, error offset and text, scan totals). Where the CPU lacks BMI2, decoder 2
     * falls back to the portable build and the comparison is trivially true. */
    pq_status st = load(data, size, 1, &prof, &once, &err);
    pq_status st2 = load(data, size, 2, &prof2, &twice, &err2);
    if (st != st2)
        abort();
    pq_profile_free(prof2);
    if (st != PQ_OK) {
        /* A rejected input must come back with a consistent error record (DESIGN.md 7):
         * no profile, the same status, and an offset inside the input or -1. */
        if (prof || err.status != st || err.offset < -1 || err.offset > (int64_t)size ||
            !err.message[0] || err.offset != err2.offset || strcmp(err.message, err2.message))
            abort();
        return 0;
    }
    if (memcmp(&once, &twice, sizeof once) != 0)
        abort();
    unsigned char sum = 0;
    pq_sink sink = {discard_write, &sum};
    /* The walk over the loaded profile must see what the single pass saw. */
    if (pq_profile_scan(prof, &walk, &err) != PQ_OK || memcmp(&walk, &once, sizeof walk) != 0)
        abort();
    (void)pq_render_scan(prof, &walk, PQ_OUT_JSON, &sink, &err);
    (void)pq_render_info(prof, PQ_OUT_JSON, &sink, &err);
    (void)pq_render_tools(prof, PQ_OUT_JSON, &sink, &err);
    pq_profile_free(prof);
    return 0;
}
