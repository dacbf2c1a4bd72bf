/* xz.h - xz (LZMA2) decompression of a whole input into a padded heap buffer, through
 * liblzma. For XLA dumps such as *.hlo.pb.xz (nsys-jax archives ship them). */
#ifndef PQ_IO_XZ_H
#define PQ_IO_XZ_H
#include "mapfile.h"

/* Hard ceiling on the decompressed size (the buffer never grows past it). */
#define XZ_MAX_BYTES ((size_t)4 << 30)

/* Decompresses IN (N bytes, an .xz stream) into *out (a heap buffer followed by
 * MAPFILE_PADDING zero bytes; mapfile_close frees it). PATH is for error messages;
 * errors carry the offset in the compressed input where liblzma stopped. */
pq_status xz_decompress(const uint8_t *in, size_t n, const char *path, mapped_file *out,
                        pq_error *err);

#endif
