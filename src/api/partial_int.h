/* partial_int.h - what the partial kinds (api/partial*.c) share: the partial handle, the
 * table of kinds, and the little-endian writer and bounds-checked reader of partial bodies.
 * Not part of the library's API; the file format is in docs/internals/partial.md. */
#ifndef PQ_API_PARTIAL_INT_H
#define PQ_API_PARTIAL_INT_H
#include "core/arena.h"
#include "core/buf.h"
#include "profq.h"

#include <stdint.h>

/* The reader of one body: P moves from BASE towards END; errors name NAME and the offset of
 * P from the start of the file (BASE is the body's start, HEADER its offset in the file). */
typedef struct pt_reader {
    const uint8_t *base, *p, *end;
    size_t header;
    const char *name;
    pq_error *err;
    pq_status status; /* sticky: the first failure */
} pt_reader;

uint64_t pt_get_u64(pt_reader *r, const char *what);
double pt_get_f64(pt_reader *r, const char *what);
/* A string of the body, copied into A (NUL-terminated there). */
pq_str pt_get_str(pt_reader *r, arena *a, const char *what);
/* Fails R at its position: "PROBLEM: expected WHAT". */
void pt_fail(pt_reader *r, const char *problem, const char *what);

/* Byte order of two strings (a shorter prefix first): the order of source paths. */
int pt_str_cmp(pq_str a, pq_str b);
/* Room for item N in *V of *CAP items of SIZE bytes, growing it: 0 when out of memory. */
int pt_reserve(void **v, size_t n, size_t *cap, size_t size);

/* A pq_sink write into the buf CTX (sink-less: it grows), for rendering into memory. */
int pt_buf_write(void *ctx, const void *data, size_t n);

void pt_put_u64(buf *b, uint64_t v);
void pt_put_f64(buf *b, double v);
void pt_put_str(buf *b, pq_str s);

typedef struct pt_kind {
    pq_partial_kind kind;
    const char *name;
    void (*write)(const void *body, buf *b);
    /* Reads a body into a new body; NULL with R's status set on failure. */
    void *(*read)(pt_reader *r);
    pq_status (*merge)(void *into, const void *from, pq_error *err);
    pq_status (*render)(const void *body, const pq_ops_options *opts, pq_output fmt, pq_sink *sink,
                        pq_error *err);
    void (*free)(void *body);
} pt_kind;

struct pq_partial {
    const pt_kind *k;
    void *body;
};

/* The op metrics kinds (partial_ops.c): one body, two views. */
extern const pt_kind pt_kind_ops, pt_kind_roofline;
/* The kinds of one section per source (partial_sections.c). */
extern const pt_kind pt_kind_info, pt_kind_memory_profile;
/* The memory attribution rows (partial_memory.c). */
extern const pt_kind pt_kind_memory;
/* Each trace file's summary (partial_summary.c). */
extern const pt_kind pt_kind_summarize;
/* Each nsys-jax archive's or Nsight export's nsys model (partial_nsys.c). */
extern const pt_kind pt_kind_nsys;

/* Wraps BODY of kind K into a new partial (*OUT); frees BODY when out of memory. */
pq_status pt_new(const pt_kind *k, void *body, pq_partial **out, pq_error *err);

#endif
