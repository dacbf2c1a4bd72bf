/* fuzz_xz.c - differential libFuzzer target for profq's own xz decoder (io/xzdec.c): the
 * input decoded by xzdec and by liblzma; whenever xzdec succeeds, liblzma must succeed with
 * the same bytes, and the size xzdec_size read from the indexes must be the output's.
 * (xzdec may refuse what liblzma decodes: the caller then uses liblzma.) The output buffer
 * is exactly the index's size, so the sanitizers see a write past it. `make fuzz-xz`;
 * replayed over fuzz/corpus/xz by build/fuzz_replay_xz in `make test`.
 */
#include "io/xzdec.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_OUT = 8 << 20 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t want = 0;
    if (!xzdec_size(data, size, &want) || want > MAX_OUT)
        return 0;
    uint8_t *out = malloc(want ? (size_t)want : 1), *ref = malloc(MAX_OUT + 1);
    size_t len = 0, ip = 0, op = 0;
    if (!out || !ref)
        abort();
    if (xzdec_decode(data, size, out, (size_t)want, &len, NULL, NULL)) {
        uint64_t mem = UINT64_MAX;
        lzma_ret r = lzma_stream_buffer_decode(&mem, LZMA_CONCATENATED, NULL, data, &ip, size, ref,
                                               &op, MAX_OUT + 1);
        if (r != LZMA_OK || op != len || len != want || ip != size ||
            (len && memcmp(out, ref, len) != 0))
            abort();
    }
    free(out);
    free(ref);
    return 0;
}
