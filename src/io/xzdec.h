/* xzdec.h - profq's own whole-buffer xz/LZMA2 decoder: the input fully in memory, the
 * output buffer is the dictionary (docs/internals/xz.md). It decodes the common case only
 * (xz streams, possibly concatenated and padded, whose blocks use the LZMA2 filter alone,
 * check none/CRC32/CRC64) and verifies everything liblzma verifies; anything else, and any
 * error, returns 0 and the caller decodes with liblzma, which then says what is wrong. */
#ifndef PQ_IO_XZDEC_H
#define PQ_IO_XZDEC_H
#include <stddef.h>
#include <stdint.h>

/* The uncompressed size of IN[0..N) summed over its streams' indexes, read backwards from
 * the end (footers, indexes, stream padding and headers checked); 0 when the input is not
 * such a sequence of streams (or has none, or one has a check other than none, CRC32 or
 * CRC64). Decoding checks the blocks against it. */
int xzdec_size(const uint8_t *in, size_t n, uint64_t *size);

/* Told, every PROGRESS_STEP bytes or so and once at the end, how many bytes of the output
 * are final (decoded and, when the block's check is done, verified or not yet). */
typedef void (*xzdec_progress)(void *arg, size_t done);
enum { XZDEC_PROGRESS_STEP = 256 << 10 };

/* Decodes IN[0..N) into OUT, which holds CAP writable bytes; 1 and *LEN (the output size)
 * when every stream decoded and verified (block header CRC32s, sizes, checks, indexes,
 * footers), 0 otherwise (unsupported, corrupt or larger than CAP: decode with liblzma).
 * OUT bytes past *LEN up to CAP may have been written. PROGRESS may be NULL. */
int xzdec_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *len,
                 xzdec_progress progress, void *arg);

#endif
