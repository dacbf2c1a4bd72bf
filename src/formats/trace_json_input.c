/* trace_json_input.c - the input layer of the trace-event JSON reader: where the window's
 * bytes come from (memory, a file read with read(), gzip inflated by zlib), the refill that
 * slides the current unit to the window's front, and the entry points tj_read_memory* and
 * tj_read_file. Not here: parsing (trace_json.c, trace_json_lex.h). */
#include "trace_json_reader.h"

#include "core/alloc.h"
#include "core/err.h"
#include "io/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes inflated per refill: TJ_CHUNK, or tiny in tests so every unit crosses a refill. */
static size_t g_chunk = TJ_CHUNK;
static int g_stream_plain;

void tj_debug_set_chunk(size_t n)
{
    g_chunk = n ? n : TJ_CHUNK;
}

void tj_debug_stream_plain(int on)
{
    g_stream_plain = on;
}

/* Makes raw input available in r->in: 1, or 0 at the end of the input (or on a read
 * error, r->io_errno set). */
static int pull_input(reader *r)
{
    if (r->in_n)
        return 1;
    if (r->fd < 0 || r->io_errno)
        return 0;
    for (;;) {
        ssize_t k = read(r->fd, r->inbuf, TJ_CHUNK);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            r->io_errno = errno ? errno : EIO;
        if (k <= 0)
            return 0;
        r->in = r->inbuf;
        r->in_n = (size_t)k;
        return 1;
    }
}

/* Sets r->what for a failed fill at AT. */
static long fill_failed(reader *r, char *at, const char *what)
{
    r->what = what;
    r->err_at = at;
    r->end = at;
    return -1;
}

/* Copies (or reads) up to ROOT bytes of plain JSON into FILL; returns how many. */
static long fill_plain(reader *r, char *fill, size_t room)
{
    size_t got = 0;
    while (got < room && r->more) {
        if (!r->in_n && r->fd >= 0 && !r->io_errno) {
            ssize_t k = read(r->fd, fill + got, room - got); /* straight into the window */
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                r->io_errno = errno ? errno : EIO;
            if (k <= 0)
                r->more = 0;
            else
                got += (size_t)k;
            continue;
        }
        if (!pull_input(r)) {
            r->more = 0;
            break;
        }
        size_t take = r->in_n < room - got ? r->in_n : room - got;
        memcpy(fill + got, r->in, take);
        r->in += take;
        r->in_n -= take;
        got += take;
    }
    if (r->io_errno)
        return fill_failed(r, fill + got, "expected the rest of the file (read error)");
    return (long)got;
}

/* Inflates up to ROOM bytes into FILL; returns how many. */
static long fill_gzip(reader *r, char *fill, size_t room)
{
    r->z.next_out = (Bytef *)fill;
    r->z.avail_out = (uInt)(room > 0x40000000 ? 0x40000000 : room);
    while (r->z.avail_out > 0 && r->more) {
        char *at = fill + (room - r->z.avail_out);
        if (r->z.avail_in == 0) {
            if (!pull_input(r)) {
                r->more = 0;
                if (r->io_errno)
                    return fill_failed(r, at, "expected the rest of the file (read error)");
                /* Input ran out inside a member: a truncated file, never a success. */
                if (!r->gz_ended)
                    return fill_failed(r, at,
                                       "expected the rest of the gzip stream (truncated file)");
                break;
            }
            size_t take = r->in_n > 0x40000000 ? 0x40000000 : r->in_n;
            r->z.next_in = (Bytef *)(uintptr_t)r->in;
            r->z.avail_in = (uInt)take;
            r->in += take;
            r->in_n -= take;
        }
        int zr = inflate(&r->z, Z_NO_FLUSH);
        r->gz_ended = zr == Z_STREAM_END;
        at = fill + (room - r->z.avail_out);
        if (zr == Z_STREAM_END) {
            /* Concatenated gzip members continue; trailing zeros end the stream. */
            if (r->z.avail_in == 0 && !pull_input(r)) {
                if (r->io_errno)
                    return fill_failed(r, at, "expected the rest of the file (read error)");
                r->more = 0;
                break;
            }
            const uint8_t *next = r->z.avail_in ? r->z.next_in : r->in;
            if (next[0] != 0x1f) {
                r->more = 0;
                break;
            }
            inflateReset(&r->z);
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            return fill_failed(r, at, "expected valid gzip data");
        } else if (zr == Z_BUF_ERROR && r->z.avail_in == 0 && !pull_input(r)) {
            return fill_failed(r, at, "expected the rest of the gzip stream (truncated file)");
        }
    }
    return (long)(room - r->z.avail_out);
}

/* Fills more bytes into the window, keeping [keep, end). Returns 0, or -1 with r->what
 * set. */
int tj_refill(reader *r, const char *keep)
{
    size_t kept = keep ? (size_t)(r->end - keep) : 0;
    size_t pos = keep ? (size_t)(r->p - keep) : 0;
    if (kept + g_chunk > r->wcap) {
        if (kept >= TJ_MAX_UNIT) {
            r->what = "expected an event of at most 256 MiB";
            r->err_at = keep;
            return -1;
        }
        size_t ncap = r->wcap ? r->wcap : g_chunk * 2;
        while (kept + g_chunk > ncap)
            ncap *= 2;
        char *nb = pq_malloc(ncap + MAPFILE_PADDING);
        if (!nb) {
            r->what = "out of memory";
            r->err_at = keep;
            return -1;
        }
        if (kept)
            memcpy(nb, keep, kept);
        pq_free(r->wbuf);
        r->wbuf = nb;
        r->wcap = ncap;
        /* Scratch must hold any unit's unescaped strings: never larger than the window. */
        pq_free(r->scratch);
        r->scratch = pq_malloc(ncap);
        r->scratch_cap = r->scratch ? ncap : 0;
    } else if (kept && keep != r->wbuf) {
        memmove(r->wbuf, keep, kept);
    }
    if (keep)
        r->base_off += keep - r->base;
    r->base = r->wbuf;
    char *fill = r->wbuf + kept;
    size_t room = r->wcap - kept;
    if (room > g_chunk)
        room = g_chunk; /* never more than a chunk per refill */
    long got = r->gz ? fill_gzip(r, fill, room) : fill_plain(r, fill, room);
    if (got < 0)
        return -1;
    r->end = fill + got;
    r->p = r->wbuf + pos;
    /* Zero padding after the data keeps the scanners' memchr inside the buffer. */
    memset((char *)r->end, 0, MAPFILE_PADDING);
    return 0;
}

static void reader_init(reader *r, const char *name, const tj_want *want, pq_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = name;
    r->err = err;
    r->fd = -1;
    r->top_value = want ? want->top_value : NULL;
    if (want && want->arg_keys) {
        r->nakeys = want->n_arg_keys < 8 ? want->n_arg_keys : 8;
        r->akeys = want->arg_keys;
        for (size_t k = 0; k < r->nakeys; k++) {
            r->aklen[k] = strlen(r->akeys[k]);
            r->aklen_mask |= r->aklen[k] < 64 ? (uint64_t)1 << r->aklen[k] : 0;
            if (r->aklen[k] && r->aklen[k] < 16) {
                uint8_t *t = &r->aktab[r->aklen[k]][(unsigned char)r->akeys[k][0] & 31];
                *t = *t ? AK_MANY : (uint8_t)(k + 1);
            }
        }
    }
}

/* Reads the document from the reader's source: r->in/in_n (memory) or r->fd. */
static pq_status read_source(reader *r, tj_event_fn fn, void *ctx, tj_info *info)
{
    const char *name = r->path;
    pq_error *err = r->err;
    pq_status st;
    memset(info, 0, sizeof *info);
    if (r->fd >= 0 && pull_input(r)) {
        /* The gzip magic needs two bytes; a short first read() gets more. */
        while (r->in_n < 2) {
            ssize_t k = read(r->fd, r->inbuf + r->in_n, TJ_CHUNK - r->in_n);
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                r->io_errno = errno ? errno : EIO;
            if (k <= 0)
                break;
            r->in_n += (size_t)k;
        }
    }
    RETURN_ERROR_IF(r->io_errno, err, PQ_ERR_IO, name, -1, "cannot read: %s",
                    strerror(r->io_errno));
    r->gz = r->in_n >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
    r->stream = r->gz || r->fd >= 0 || g_stream_plain;
    RETURN_ERROR_IF(r->gz && inflateInit2(&r->z, 16 + MAX_WBITS) != Z_OK, err, PQ_ERR_NOMEM, name,
                    -1, "out of memory (zlib)");
    if (r->stream) {
        r->more = 1;
        if (tj_refill(r, NULL) != 0) {
            st = err_set(err, PQ_ERR_INPUT, name, off_of(r, r->err_at), "%s", r->what);
            goto out;
        }
    } else {
        /* Plain JSON in memory: the bytes are the window. Scratch holds one event's
         * strings. */
        size_t n = r->in_n;
        r->base = r->p = (const char *)r->in;
        r->end = r->base + n;
        size_t cap = n < TJ_MAX_UNIT ? n + 1 : TJ_MAX_UNIT;
        r->scratch = pq_malloc(cap);
        r->scratch_cap = r->scratch ? cap : 0;
        RETURN_ERROR_IF(!r->scratch, err, PQ_ERR_NOMEM, name, -1, "out of memory");
    }
    if (r->gz && r->end == r->p && !r->more) {
        st = err_set(err, PQ_ERR_INPUT, name, 0, "expected a JSON object with traceEvents");
        goto out;
    }
    st = tj_run(r, fn, ctx, info);
    if (st != PQ_OK && r->io_errno) {
        st = err_set(err, PQ_ERR_IO, name, -1, "cannot read: %s", strerror(r->io_errno));
    } else if (st != PQ_OK && r->what) {
        int64_t off = r->err_at ? off_of(r, r->err_at) : 0;
        if (st == PQ_ERR_UNSUPPORTED)
            st = err_set(err, st, name, 0, "expected Chrome trace events; this is %s", r->what);
        else
            st = err_set(err, st, name, off, "%s", r->what);
    }
out:
    if (r->gz)
        inflateEnd(&r->z);
    pq_free(r->wbuf);
    pq_free(r->scratch);
    return st;
}

pq_status tj_read_memory_want(const uint8_t *data, size_t n, const char *name, const tj_want *want,
                              tj_event_fn fn, void *ctx, tj_info *info, pq_error *err)
{
    reader r;
    reader_init(&r, name, want, err);
    r.in = data;
    r.in_n = n;
    return read_source(&r, fn, ctx, info);
}

pq_status tj_read_memory(const uint8_t *data, size_t n, const char *name, tj_event_fn fn, void *ctx,
                         tj_info *info, pq_error *err)
{
    return tj_read_memory_want(data, n, name, NULL, fn, ctx, info, err);
}

pq_status tj_read_file(const char *path, const tj_want *want, tj_event_fn fn, void *ctx,
                       tj_info *info, pq_error *err)
{
    reader r;
    reader_init(&r, path, want, err);
    r.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block the open */
    RETURN_ERROR_IF(r.fd < 0, err, PQ_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
    struct stat fst;
    if (fstat(r.fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
        /* A pipe or device may never end; the CLI copies such input to a file first. */
        close(r.fd);
        return err_set(err, PQ_ERR_IO, path, -1,
                       "not a regular file (a pipe, FIFO or device): give the trace as a file");
    }
    fcntl(r.fd, F_SETFL, fcntl(r.fd, F_GETFL) & ~O_NONBLOCK);
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(r.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    r.inbuf = pq_malloc(TJ_CHUNK);
    pq_status st = r.inbuf ? read_source(&r, fn, ctx, info)
                           : err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    pq_free(r.inbuf);
    close(r.fd);
    return st;
}
