/* fuzz_zip.c - libFuzzer target for the zip member walk (io/zip.c over libzip).
 *
 * Opens the input as an in-memory zip archive, lists its members and reads each of them
 * (up to 64 MiB in all), touching the first and last byte. Members named *.parquet are also
 * opened as parquet, so archive-embedded files reach that reader too. Each member is also
 * read by pqzip_peek (io/zip.c's own central directory walk and libdeflate, no libzip): when it
 * reads a member and its CRC matches, libzip must read the same bytes (else the target
 * traps: the nsys-jax reader takes a peeked report without reading it again). And each member
 * is read again through libzip's own inflate (pqzip_read_streamed): the status and the bytes
 * must be those of pqzip_read, which inflates with libdeflate. `make fuzz-zip`;
 * replayed over fuzz/corpus/zip by build/fuzz_replay_zip in `make test`.
 */
#include "core/alloc.h"
#include "formats/parquet.h"
#include "io/zip.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pqzip *z;
    pq_error err;
    if (pqzip_open_memory(data, size, "fuzz.zip", &z, &err) != PQ_OK)
        return 0;
    volatile unsigned sum = 0;
    uint64_t budget = (uint64_t)64 << 20;
    for (size_t i = 0; i < pqzip_count(z); i++) {
        const pqzip_member *m = pqzip_member_at(z, i);
        if (m->size > budget)
            continue;
        budget -= m->size;
        mapped_file mf;
        pqzip_peeked pk;
        int peeked = pqzip_peek(data, size, m->name, &pk) && pqzip_peek_crc_ok(&pk);
        pq_status st = pqzip_read(z, i, &mf, &err);
        if (peeked &&
            (st != PQ_OK || pk.index != i || pk.size != mf.size || pk.comp_size != m->comp_size ||
             pk.method != m->method || (mf.size && memcmp(pk.data, mf.data, mf.size) != 0)))
            __builtin_trap();
        pq_free(pk.owned);
        mapped_file lz;
        pq_error lerr;
        pq_status lst = pqzip_read_streamed(z, i, &lz, &lerr);
        if (lst != st || (st == PQ_OK && (lz.size != mf.size ||
                                          (mf.size && memcmp(lz.data, mf.data, mf.size) != 0))))
            __builtin_trap();
        if (lst == PQ_OK)
            mapfile_close(&lz);
        if (st != PQ_OK)
            continue;
        if (mf.size)
            sum += mf.data[0] + mf.data[mf.size - 1];
        size_t nl = strlen(m->name);
        parquet_file *f;
        if (nl > 8 && !strcmp(m->name + nl - 8, ".parquet") &&
            parquet_open(mf.data, mf.size, m->name, &f, &err) == PQ_OK) {
            for (size_t c = 0; c < parquet_num_columns(f); c++) {
                parquet_values v;
                (void)parquet_read_column(f, c, &v, &err);
                parquet_values_free(&v);
            }
            parquet_close(f);
        }
        mapfile_close(&mf);
    }
    pqzip_close(z);
    return 0;
}
