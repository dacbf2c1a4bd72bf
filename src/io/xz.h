/* xz.h - xz (LZMA2) decompression of a whole input into a padded heap buffer, through
 * profq's own decoder (xzdec.h) or liblzma. For XLA dumps such as *.hlo.pb.xz (nsys-jax archives
 * ship them). */
#ifndef PQ_IO_XZ_H
#define PQ_IO_XZ_H
#include "mapfile.h"

#include <pthread.h>

/* Hard ceiling on the decompressed size (the buffer never grows past it). */
#define XZ_MAX_BYTES ((size_t)4 << 30)

/* Decompresses IN (N bytes, an .xz stream) into *out (a heap buffer followed by
 * MAPFILE_PADDING zero bytes; mapfile_close frees it). PATH is for error messages;
 * errors carry the offset in the compressed input where liblzma stopped. */
pq_status xz_decompress(const uint8_t *in, size_t n, const char *path, mapped_file *out,
                        pq_error *err);

/* Streaming: the stream is decoded on a thread of its own into one buffer that never moves
 * (sized from the stream's index), so that a consumer reads the text while it is decoded
 * (the push/pop report: 9.7 MB of csv, one xz block). The fields are the consumer's to
 * read under mu (xz_stream_wait does). The consumer reads buf[0, done) and must not write
 * it before xz_stream_finish: xzdec reads its matches from the output (its dictionary). */
typedef struct xz_stream {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const uint8_t *buf; /* the output, fixed; bytes [0, done) are decoded */
    size_t done;
    int state; /* XZS_RUNNING, XZS_END (done is the whole output), XZS_FAILED, XZS_OVER */
    /* the thread's own */
    const uint8_t *in;
    size_t n, cap, len;
    const char *path;
    pthread_t thread;
    int fast; /* decoded by xzdec (xzdec.h) */
    pq_status st;
    pq_error err;
} xz_stream;
enum { XZS_RUNNING, XZS_END, XZS_FAILED, XZS_OVER };

/* Starts decoding IN[0..N) on a thread; 0 when it cannot be streamed (the index gives no
 * size, or under MIN bytes; no thread): then use xz_decompress. PATH must outlive it. */
int xz_stream_start(xz_stream *x, const uint8_t *in, size_t n, const char *path, size_t min);
/* Blocks until more than SEEN bytes are decoded or the decoding stopped; returns done
 * and sets *STATE. */
size_t xz_stream_wait(xz_stream *x, size_t seen, int *state);
/* How far the decoding is, without waiting. */
size_t xz_stream_poll(xz_stream *x, int *state);
/* Joins the thread. XZS_END: *OUT is the buffer (padded, as xz_decompress gives it);
 * XZS_FAILED: the error xz_decompress gives; XZS_OVER (the output is larger than the index
 * said): PQ_OK, *OUT empty, *OVER set, and the caller decodes again with xz_decompress. */
pq_status xz_stream_finish(xz_stream *x, mapped_file *out, int *over, pq_error *err);

#endif
