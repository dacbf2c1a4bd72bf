/* fuzz_parquet.c - libFuzzer target for profq's parquet reader (formats/parquet*.c).
 *
 * Opens the input as a parquet file, lists its columns and reads every one of them,
 * touching each value so that a bad span trips ASan. Built with -fsanitize=fuzzer by
 * `make fuzz-parquet`, and linked with replay.c as build/fuzz_replay_parquet for the
 * corpus replay (fuzz/corpus/parquet) in `make test`.
 */
#include "formats/parquet.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parquet_file *f;
    pq_error err;
    if (parquet_open(data, size, "fuzz.parquet", &f, &err) != PQ_OK)
        return 0;
    volatile unsigned sum = 0;
    for (size_t c = 0; c < parquet_num_columns(f); c++) {
        parquet_values v;
        if (parquet_read_column(f, c, &v, &err) == PQ_OK) {
            for (size_t i = 0; i < v.n; i++) {
                if (v.str && v.str[i].n)
                    sum += (unsigned char)v.str[i].p[0] + (unsigned char)v.str[i].p[v.str[i].n - 1];
                if (v.i64)
                    sum += (unsigned)v.i64[i];
                if (v.valid)
                    sum += v.valid[i];
            }
        }
        parquet_values_free(&v);
    }
    parquet_close(f);
    return 0;
}
