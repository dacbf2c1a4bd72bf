/* xz.c - whole-buffer xz decompression: profq's own decoder (xzdec.c) when it can, else
 * liblzma (stream decoder, any check type, concatenated streams), which also names every
 * error: xzdec gives up on anything it does not do or finds corrupt, and liblzma decodes
 * again from the start (docs/internals/xz.md). The liblzma output buffer is sized once from the
 * stream's index when the input is one stream whose index says so (xz writes it: no regrowth, no
 * copy); otherwise, or when the index lied, it doubles from 4x the input up to XZ_MAX_BYTES.
 * xz_stream_* decode on a thread into that one buffer and tell a consumer how far the text goes
 * meanwhile. */
#include "xz.h"
#include "xzdec.h"
#include "core/alloc.h"
#include "core/err.h"

#include <lzma.h>
#include <stdint.h>
#include <string.h>

/* The uncompressed size the index of IN[0..N) records when IN is exactly one xz stream, 0
 * when that cannot be told. Only a first guess of the output size: the decoder checks. */
static uint64_t index_size(const uint8_t *in, size_t n)
{
    lzma_stream_flags footer;
    if (n < 2 * LZMA_STREAM_HEADER_SIZE ||
        lzma_stream_footer_decode(&footer, in + n - LZMA_STREAM_HEADER_SIZE) != LZMA_OK ||
        footer.backward_size > n - 2 * LZMA_STREAM_HEADER_SIZE)
        return 0;
    size_t bs = (size_t)footer.backward_size, pos = 0;
    lzma_index *idx = NULL;
    uint64_t memlimit = (uint64_t)1 << 24;
    if (lzma_index_buffer_decode(&idx, &memlimit, NULL, in + n - LZMA_STREAM_HEADER_SIZE - bs, &pos,
                                 bs) != LZMA_OK)
        return 0;
    uint64_t size = lzma_index_stream_size(idx) == n ? lzma_index_uncompressed_size(idx) : 0;
    lzma_index_end(idx, NULL);
    return size;
}

/* Big buffers (liblzma's dictionary, the output) come from pq_alloc_pages, which the kernel
 * may back with 2 MiB pages: the 9.7 MB push/pop report of the shared archive otherwise
 * costs some 5,000 page faults (dictionary and output). liblzma frees without a size, so
 * the big blocks it holds are remembered here. */
enum { BIG = 1 << 20, HUGE = 2 << 20, NBIG = 8 };

typedef struct big_blocks {
    int pages; /* the output is known to be big: the dictionary will be filled too */
    void *p[NBIG];
    size_t len[NBIG];
} big_blocks;

static size_t huge_round(size_t n)
{
    return n > SIZE_MAX - HUGE ? 0 : (n + HUGE - 1) / HUGE * HUGE;
}

static void *lz_alloc(void *opaque, size_t nmemb, size_t size)
{
    big_blocks *b = opaque;
    size_t n = size && nmemb > SIZE_MAX / size ? 0 : nmemb * size, len = huge_round(n);
    for (int k = 0; b->pages && n >= BIG && len && k < NBIG; k++)
        if (!b->p[k]) {
            if (!(b->p[k] = pq_alloc_pages(len)))
                return NULL;
            b->len[k] = len;
            return b->p[k];
        }
    return size && nmemb > SIZE_MAX / size ? NULL : pq_malloc(n);
}

static void lz_free(void *opaque, void *p)
{
    big_blocks *b = opaque;
    for (int k = 0; p && k < NBIG; k++)
        if (b->p[k] == p) {
            pq_free_pages(p, b->len[k]);
            b->p[k] = NULL;
            return;
        }
    pq_free(p);
}

/* An output buffer of N bytes and the padding, pages when PAGES; *LEN > 0 when it is. */
static uint8_t *out_alloc(size_t n, int pages, size_t *len)
{
    *len = pages && n >= BIG ? huge_round(n + MAPFILE_PADDING) : 0;
    return *len ? pq_alloc_pages(*len) : pq_malloc(n + MAPFILE_PADDING);
}

static void out_free(uint8_t *p, size_t len)
{
    if (len)
        pq_free_pages(p, len);
    else
        pq_free(p);
}

/* xzdec into a buffer of the size the indexes give: 1 and *OUT when it decoded; 0 when it
 * did not (liblzma then decodes). The same ceilings as liblzma's path: under XZ_MAX_BYTES, and
 * an index claiming more than 256x the input is not believed. */
static int fast_decompress(const uint8_t *in, size_t n, mapped_file *out)
{
    uint64_t size;
    if (!xzdec_size(in, n, &size) || size >= XZ_MAX_BYTES || size / 256 > n)
        return 0;
    size_t len, got;
    uint8_t *b = out_alloc((size_t)size, size >= BIG, &len);
    if (!b)
        return 0;
    if (!xzdec_decode(in, n, b, (size_t)size + MAPFILE_PADDING, &got, NULL, NULL) || got != size) {
        out_free(b, len);
        return 0;
    }
    memset(b + got, 0, MAPFILE_PADDING);
    out->data = b;
    out->size = got;
    out->map_len = len;
    return 1;
}

pq_status xz_decompress(const uint8_t *in, size_t n, const char *path, mapped_file *out,
                        pq_error *err)
{
    memset(out, 0, sizeof *out);
    if (fast_decompress(in, n, out))
        return PQ_OK;
    big_blocks big = {0};
    lzma_allocator al = {lz_alloc, lz_free, &big};
    lzma_stream s = LZMA_STREAM_INIT;
    s.allocator = &al;
    RETURN_ERROR_IF(lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK, err,
                    PQ_ERR_NOMEM, path, -1, "out of memory (xz decoder)");
    size_t cap = n < ((size_t)1 << 20) ? ((size_t)4 << 20) : 4 * n, len;
    uint64_t hint = index_size(in, n);
    /* One byte over, so that the decoder ends (index, check) with room left; a hint far
     * beyond what LZMA2 can expand N bytes to is not believed. */
    if (hint && hint < XZ_MAX_BYTES && hint / 256 <= n)
        cap = (size_t)hint + 1;
    /* A small dump's 8 MiB dictionary stays mostly untouched: small pages then. */
    big.pages = hint >= BIG;
    if (cap > XZ_MAX_BYTES)
        cap = XZ_MAX_BYTES;
    uint8_t *b = out_alloc(cap, big.pages, &len);
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
            size_t ncap = cap * 2 > XZ_MAX_BYTES ? XZ_MAX_BYTES : cap * 2, nlen;
            uint8_t *nb = out_alloc(ncap, big.pages, &nlen);
            if (!nb) {
                st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
                goto out;
            }
            memcpy(nb, b, cap);
            out_free(b, len);
            b = nb;
            len = nlen;
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
    out->map_len = len; /* pages: mapfile_close unmaps them */
    b = NULL;
out:
    if (b)
        out_free(b, len);
    lzma_end(&s);
    return st;
}

/* ---- streaming (xz_stream_*) ---- */

/* Output chunks between two signals to the consumer: about 40 for the 9.7 MB report. */
enum { STREAM_CHUNK = 256 << 10 };

static void stream_set(xz_stream *x, size_t done, int state)
{
    pthread_mutex_lock(&x->mu);
    x->done = done;
    x->state = state;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

/* xzdec's progress: the bytes so far are final. */
static void stream_progress(void *arg, size_t done)
{
    xz_stream *x = arg;
    if (done < x->cap)
        stream_set(x, done, XZS_RUNNING);
}

/* The decoding thread: xzdec when xz_stream_start saw a stream it does (xzdec_size agrees with
 * the index), else the same liblzma decoder as xz_decompress, the output given STREAM_CHUNK at
 * a time into the fixed buffer. xzdec failing before its first progress (a filter it does
 * not do) falls back to liblzma here; anything else but a clean end within the buffer (an
 * error, a stream larger than its index said) stops it: xz_stream_finish then decodes again
 * the plain way, so that errors are those of xz_decompress. */
static void *stream_run(void *arg)
{
    xz_stream *x = arg;
    if (x->fast) {
        size_t got;
        uint8_t *out = (uint8_t *)x->buf;
        if (xzdec_decode(x->in, x->n, out, x->cap + MAPFILE_PADDING, &got, stream_progress, x) &&
            got < x->cap) {
            memset(out + got, 0, MAPFILE_PADDING);
            stream_set(x, got, XZS_END);
            return NULL;
        }
        if (x->done > 0) { /* the consumer has read from it */
            stream_set(x, x->done, XZS_FAILED);
            return NULL;
        }
    }
    big_blocks big = {.pages = 1};
    lzma_allocator al = {lz_alloc, lz_free, &big};
    lzma_stream s = LZMA_STREAM_INIT;
    s.allocator = &al;
    uint8_t *b = (uint8_t *)x->buf;
    int state = XZS_FAILED;
    if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
        stream_set(x, 0, state);
        return NULL;
    }
    s.next_in = x->in;
    s.avail_in = x->n;
    s.next_out = b;
    s.avail_out = x->cap < STREAM_CHUNK ? x->cap : STREAM_CHUNK;
    for (;;) {
        lzma_ret r = lzma_code(&s, LZMA_FINISH);
        size_t done = (size_t)(s.next_out - b);
        if (r == LZMA_STREAM_END) {
            memset(b + done, 0, MAPFILE_PADDING);
            state = XZS_END;
            stream_set(x, done, state);
            break;
        }
        if (r != LZMA_OK || s.avail_out != 0) /* an error: xz_decompress says which */
            break;
        if (done == x->cap) { /* the index lied */
            state = XZS_OVER;
            break;
        }
        stream_set(x, done, XZS_RUNNING);
        s.avail_out = x->cap - done < STREAM_CHUNK ? x->cap - done : STREAM_CHUNK;
    }
    if (state != XZS_END)
        stream_set(x, x->done, state);
    lzma_end(&s);
    return NULL;
}

int xz_stream_start(xz_stream *x, const uint8_t *in, size_t n, const char *path, size_t min)
{
    memset(x, 0, sizeof *x);
    uint64_t hint = index_size(in, n);
    if (!hint || hint < min || hint < BIG || hint >= XZ_MAX_BYTES || hint / 256 > n)
        return 0;
    x->in = in;
    x->n = n;
    x->path = path;
    x->cap = (size_t)hint + 1; /* as xz_decompress: one byte over */
    uint64_t size;
    x->fast = xzdec_size(in, n, &size) && size == hint;
    x->buf = out_alloc(x->cap, 1, &x->len);
    if (!x->buf)
        return 0;
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->cv, NULL);
    if (pthread_create(&x->thread, NULL, stream_run, x) != 0) {
        pthread_mutex_destroy(&x->mu);
        pthread_cond_destroy(&x->cv);
        out_free((uint8_t *)x->buf, x->len);
        return 0;
    }
    return 1;
}

size_t xz_stream_wait(xz_stream *x, size_t seen, int *state)
{
    pthread_mutex_lock(&x->mu);
    while (x->done <= seen && x->state == XZS_RUNNING)
        pthread_cond_wait(&x->cv, &x->mu);
    size_t done = x->done;
    *state = x->state;
    pthread_mutex_unlock(&x->mu);
    return done;
}

size_t xz_stream_poll(xz_stream *x, int *state)
{
    pthread_mutex_lock(&x->mu);
    size_t done = x->done;
    *state = x->state;
    pthread_mutex_unlock(&x->mu);
    return done;
}

pq_status xz_stream_finish(xz_stream *x, mapped_file *out, int *over, pq_error *err)
{
    pthread_join(x->thread, NULL);
    pthread_mutex_destroy(&x->mu);
    pthread_cond_destroy(&x->cv);
    memset(out, 0, sizeof *out);
    *over = x->state != XZS_END;
    if (*over) {
        out_free((uint8_t *)x->buf, x->len);
        return xz_decompress(x->in, x->n, x->path, out, err);
    }
    out->data = x->buf;
    out->size = x->done;
    out->map_len = x->len;
    return PQ_OK;
}
