/* trace_json_reader.h - the state shared by the files of the trace-event JSON reader
 * (internal to src/formats/trace_json*.c): the window, its source, the wanted args keys,
 * and the two calls between the event loop (trace_json.c) and the input layer
 * (trace_json_input.c). Not a public interface: use trace_json.h. */
#ifndef PQ_FORMATS_TRACE_JSON_READER_H
#define PQ_FORMATS_TRACE_JSON_READER_H
#include "trace_json.h"

#include "core/err.h"

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define TJ_MAX_UNIT ((size_t)256 << 20)
enum { TJ_CHUNK = 1 << 20, TJ_MAX_DEPTH = 512, AK_MANY = 0xFF };

typedef enum { TJR_OK, TJR_MORE, TJR_ERR } rres;

typedef struct reader {
    const char *path;
    /* window */
    const char *p, *end; /* cursor and end of valid bytes */
    const char *base;    /* first byte of the window */
    int64_t base_off;    /* stream offset of base */
    int more;            /* more bytes may come (gzip not finished) */
    int gz_ended;        /* the last gzip member reached its end-of-stream marker */
    /* the source of a refilled window: gzip and/or raw bytes from memory or a file */
    int stream; /* the window is refilled (else it is the whole input) */
    int gz;
    z_stream z;
    char *wbuf;
    size_t wcap;
    const uint8_t *in; /* raw input not consumed yet */
    size_t in_n;
    int fd;         /* >= 0: raw input comes from read(fd) into inbuf */
    uint8_t *inbuf; /* TJ_CHUNK bytes */
    int io_errno;   /* read() failed */
    /* the args keys the caller wants */
    const char *const *akeys;
    size_t nakeys;
    int (*top_value)(void *ctx, const char *key, pq_str raw, pq_error *err); /* tj_want's */
    size_t aklen[8];
    uint64_t aklen_mask; /* bit N: some wanted key is N bytes long (N < 64) */
    /* [length][first byte & 31] of a key shorter than 16 bytes: 0 no wanted key, k + 1 the
     * only candidate, AK_MANY several (then the list is searched) */
    uint8_t aktab[16][32];
    /* error */
    const char *what;
    const char *err_at;
    /* scratch for unescaped strings */
    char *scratch;
    size_t scratch_cap, scratch_used;
    pq_error *err;
} reader;

static inline int64_t off_of(const reader *r, const char *at)
{
    return r->base_off + (at - r->base);
}

/* Fills more bytes into the window, keeping [keep, end) (trace_json_input.c). Returns 0, or
 * -1 with r->what set. */
int tj_refill(reader *r, const char *keep);

/* Parses the document in the window, refilling it as units need (trace_json.c). */
pq_status tj_run(reader *r, tj_event_fn fn, void *ctx, tj_info *info);

#endif
