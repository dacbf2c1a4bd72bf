/* fuzz_sqlite.c - libFuzzer target for the Nsight SQLite export reader (formats/nsys_sqlite.c):
 * the input is a database image, deserialized read-only by SQLite, so that mutations reach
 * the reader's header check, table checks, row handling and the NVTX projection (SQLite
 * itself is the parser of the pages). `make fuzz-sqlite`; replayed over fuzz/corpus/sqlite
 * and the shared exports by build/fuzz_replay_sqlite in `make test`. Seeds: tiny exports from
 * fuzz/make_sqlite_seeds.py (kernels, memcpy, runtime calls, NVTX and XLA ranges).
 */
#include "core/arena.h"
#include "formats/nsys_sqlite.h"
#include "model/slices.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 24))
        return 0;
    model_slices m;
    arena a;
    arena_init(&a);
    if (slices_init(&m) == 0) {
        pq_events ev = slices_events(&m);
        pq_error err;
        model_nsys_export x;
        nsys_sqlite_feed_memory(data, size, "fuzz.sqlite", &ev, &a, &x, &err);
    }
    slices_free(&m);
    arena_release(&a);
    return 0;
}
