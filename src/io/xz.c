/* xz.c - whole-buffer xz decompression with liblzma (stream decoder, any check type,
 * concatenated streams). The output doubles from 4x the input up to XZ_MAX_BYTES. */
#include "xz.h"
#include "core/alloc.h"
#include "core/err.h"

#include <lzma.h>
#include <string.h>

pq_status xz_decompress(const uint8_t *in, size_t n, const char *path, mapped_file *out,
                        pq_error *err)
{
    memset(out, 0, sizeof *out);
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory (xz decoder)");
    size_t cap = n < ((size_t)1 << 20) ? ((size_t)4 << 20) : 4 * n;
    if (cap > XZ_MAX_BYTES)
        cap = XZ_MAX_BYTES;
    uint8_t *b = pq_malloc(cap + MAPFILE_PADDING);
    pq_status st = PQ_OK;
    if (!b) {
        st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
        goto out;
    }
    s.next_in = in;
    s.avail_in = n;
    s.next_out = b;
    s.avail_out = cap;
    for (;;) {
        lzma_ret r = lzma_code(&s, LZMA_FINISH);
        if (r == LZMA_STREAM_END)
            break;
        if (r == LZMA_OK && s.avail_out == 0) {
            if (cap >= XZ_MAX_BYTES) {
                st = err_set(err, PQ_ERR_INPUT, path, (int64_t)(n - s.avail_in),
                             "expected an xz stream that decompresses to at most 4 GiB");
                goto out;
            }
            size_t ncap = cap * 2 > XZ_MAX_BYTES ? XZ_MAX_BYTES : cap * 2;
            uint8_t *nb = pq_realloc(b, ncap + MAPFILE_PADDING);
            if (!nb) {
                st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
                goto out;
            }
            b = nb;
            s.next_out = b + cap;
            s.avail_out = ncap - cap;
            cap = ncap;
            continue;
        }
        if (r == LZMA_MEM_ERROR) {
            st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory (xz)");
            goto out;
        }
        if (s.avail_in == 0)
            st = err_set(err, PQ_ERR_INPUT, path, (int64_t)n,
                         "expected the rest of the xz stream, found the end of the file");
        else
            st = err_set(err, PQ_ERR_INPUT, path, (int64_t)(n - s.avail_in),
                         "expected a valid xz stream (liblzma error %d)", (int)r);
        goto out;
    }
    out->size = cap - s.avail_out;
    memset(b + out->size, 0, MAPFILE_PADDING);
    out->data = b;
    b = NULL;
out:
    pq_free(b);
    lzma_end(&s);
    return st;
}
