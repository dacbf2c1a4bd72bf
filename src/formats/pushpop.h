/* pushpop.h - the NVTX push/pop report of an nsys-jax archive (host ranges: compilation),
 * `nsys stats --report nvtx_pushpop_trace`, as columns: from report_nvtx_pushpop_trace.csv.xz
 * (archive era), its plain csv, or report_nvtx_pushpop_trace.parquet (nsys-jax >= 2024-12,
 * written by pandas without the PID, Lvl and NameTree columns). NameTree (the indented name)
 * is not kept: it repeats Name.
 *
 * Everything a pushpop owns lives in its arena (arrays) and its text buffer (the csv text,
 * decompressed or copied, which the csv strings point into); pushpop_free releases both,
 * also after an error.
 */
#ifndef PQ_FORMATS_PUSHPOP_H
#define PQ_FORMATS_PUSHPOP_H
#include "core/arena.h"
#include "io/mapfile.h"
#include "io/xz.h"
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

/* Every array has n entries; one is NULL when the input has no such column, or when it was
 * not asked for (pushpop_read_fed). */
typedef struct pushpop {
    size_t n; /* rows */
    int64_t *start_ns, *end_ns, *dur_ns, *dur_child_ns, *dur_nonchild_ns;
    pq_str *name; /* NVTX text, e.g. "TSL:XlaCompile:#module=jit_f#" */
    int64_t *tid;
    int64_t *pid, *lvl; /* NULL when the input has no such column (the parquet form) */
    int64_t *num_child;
    int64_t *range_id;
    int64_t *parent_id;    /* 0 where parent_valid[i] == 0 (a root range) */
    uint8_t *parent_valid; /* 1 when the range has a parent */
    pq_str *range_stack;   /* ":8333:8334" */
    arena a;
    mapped_file text; /* the csv forms: the text the strings point into (NUL-terminated) */
} pushpop;

/* Reads DATA[0..N): parquet (PAR1), xz-compressed csv, or csv; PATH names it in errors
 * (csv offsets are offsets in the decompressed text). A missing column, a non-integer
 * number or a malformed row is PQ_ERR_INPUT naming the column and row. */
pq_status pushpop_read(const uint8_t *data, size_t n, const char *path, pushpop *out,
                       pq_error *err);
/* The same with only the columns formats/nsysjax.c feeds parsed: Start, Duration, Name, PID
 * and TID (the other arrays NULL, their cells not checked; the required columns must still
 * be there). The report of the shared archive is 9.7 MB of csv, parsed on the reader's
 * critical path. */
pq_status pushpop_read_fed(const uint8_t *data, size_t n, const char *path, pushpop *out,
                           pq_error *err);
/* The fed columns of an xz-compressed csv read while it decodes (1 MiB and more, with the
 * size in the stream's index): pushpop_stream_start starts the decoder thread (0: not
 * such a report; then pushpop_read_fed); pushpop_stream_step reads the rows decoded so far
 * (WAIT: first waits for more text), 1 while the decoder runs; pushpop_stream_end
 * finishes and gives what pushpop_read_fed gives (also its errors), whatever the steps
 * before and the thread timing. OUT (zeroed by start) is pushpop_free's after start.
 * Rows [0, finished) are final after each step (values, and names as spans: NUL-terminated
 * only after the end, since the text is the decoder's dictionary until then). */
typedef struct pushpop_csv {
    uint8_t *base, *p, *end;
} pushpop_csv;
typedef struct pushpop_stream {
    xz_stream x;
    pushpop *out;
    const char *path;
    unsigned want;
    int state, head_tried, head; /* head: 1 read, 0 not (parse_text at the end), -1 no memory */
    int idx[64], have[16];
    size_t done, nfields, cap, row, finished;
    pushpop_csv c;
} pushpop_stream;
int pushpop_stream_start(pushpop_stream *ps, const uint8_t *data, size_t n, const char *path,
                         pushpop *out);
int pushpop_stream_step(pushpop_stream *ps, int wait);
pq_status pushpop_stream_end(pushpop_stream *ps, pq_error *err);
/* The csv text itself. */
pq_status pushpop_parse_csv(const uint8_t *text, size_t n, const char *path, pushpop *out,
                            pq_error *err);
pq_status pushpop_read_parquet(const uint8_t *data, size_t n, const char *path, pushpop *out,
                               pq_error *err);
void pushpop_free(pushpop *p);

#endif
