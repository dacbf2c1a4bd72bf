/* buf.h - growable byte buffer with a hard maximum, flushed to a pq_sink.
 * Renderers append here; when the buffer passes a threshold it is written to
 * the sink, so output of any size streams in bounded memory. Errors are sticky. */
#ifndef PQ_CORE_BUF_H
#define PQ_CORE_BUF_H
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

typedef struct buf {
    char *p;
    size_t n, cap;
    pq_sink *sink; /* NULL: accumulate only (bounded by BUF_MAX_BYTES) */
    pq_status status;
} buf;

enum { BUF_FLUSH_BYTES = 1 << 16 };
#define BUF_MAX_BYTES ((size_t)1 << 30)

void buf_init(buf *b, pq_sink *sink);
void buf_release(buf *b);
void buf_put(buf *b, const void *p, size_t n);
void buf_puts(buf *b, const char *s);
void buf_putc(buf *b, char c);
void buf_printf(buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Writes what is buffered to the sink; returns the sticky status. */
pq_status buf_flush(buf *b);

#endif
