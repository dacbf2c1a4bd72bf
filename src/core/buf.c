/* buf.c - growable output buffer; see buf.h. */
#include "buf.h"
#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void buf_init(buf *b, pq_sink *sink)
{
    memset(b, 0, sizeof *b);
    b->sink = sink;
}

void buf_release(buf *b)
{
    pq_free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static int buf_reserve(buf *b, size_t extra)
{
    if (b->status != PQ_OK)
        return 0;
    if (extra > BUF_MAX_BYTES - b->n) {
        b->status = PQ_ERR_OUTPUT;
        return 0;
    }
    if (b->n + extra <= b->cap)
        return 1;
    /* a buffer with a sink (an output) starts at 32 KiB: fewer copies to grow, and still
     * small enough that freeing it does not make glibc trim and regrow the heap each time
     * in a long-lived process (68 KiB did, beside a 64 KiB arena block) */
    size_t cap = b->cap ? b->cap : b->sink ? (size_t)32768 : 4096;
    while (cap < b->n + extra)
        cap *= 2;
    char *p = pq_realloc(b->p, cap);
    if (!p) {
        b->status = PQ_ERR_NOMEM;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

pq_status buf_flush(buf *b)
{
    if (b->status == PQ_OK && b->sink && b->n) {
        if (b->sink->write(b->sink->ctx, b->p, b->n) != 0)
            b->status = PQ_ERR_OUTPUT;
        b->n = 0;
    }
    return b->status;
}

void buf_put(buf *b, const void *p, size_t n)
{
    if (n == 0) /* empty views may have a NULL pointer; memcpy must not see it */
        return;
    if (!buf_reserve(b, n))
        return;
    memcpy(b->p + b->n, p, n);
    b->n += n;
    if (b->sink && b->n >= BUF_FLUSH_BYTES)
        buf_flush(b);
}

void buf_puts(buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

void buf_putc(buf *b, char c)
{
    if (b->n < b->cap && b->status == PQ_OK && (!b->sink || b->n + 1 < BUF_FLUSH_BYTES)) {
        b->p[b->n++] = c; /* the common case, without a call */
        return;
    }
    buf_put(b, &c, 1);
}

void buf_printf(buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0) {
        b->status = PQ_ERR_INTERNAL;
        return;
    }
    if ((size_t)k < sizeof tmp) {
        buf_put(b, tmp, (size_t)k);
        return;
    }
    if (!buf_reserve(b, (size_t)k + 1))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
    if (b->sink && b->n >= BUF_FLUSH_BYTES)
        buf_flush(b);
}
