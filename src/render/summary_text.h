/* summary_text.h - what the summary family's text shares (issue 16 items 10, 11, 13): figures
 * of summaries with their units (times are microseconds in a summary), aligned tables (text
 * or markdown) that fit a width by shortening names in the middle, wrapped paragraphs, region
 * paths and track's failed thresholds. Formatting only; the compare/track/query text is laid
 * out by render/summary_outline.h. */
#ifndef PQ_RENDER_SUMMARY_TEXT_H
#define PQ_RENDER_SUMMARY_TEXT_H
#include "core/buf.h"
#include "profq.h"

#include <stddef.h>

/* How a figure reads: the unit a key of a summary document implies. */
typedef enum {
    SU_PLAIN, /* %.3f, or the integer */
    SU_TIME,  /* microseconds: "192.050 µs", "615.120 ms", "10.027 s" */
    SU_SHARE, /* a fraction: "12.34%" */
    SU_PCT,   /* already a percentage: "12.34%" */
    SU_COUNT, /* "%.0f" */
    SU_SCI    /* "%.3e" */
} su_unit;

su_unit su_unit_of(const char *key);
/* D in unit U (SU_PLAIN: %.3f), or "n/a" when it is NaN or infinite (the document's null). */
void su_figure(buf *b, double d, su_unit u);
/* US microseconds as a time with its unit. */
void su_time(buf *b, double us);

/* A table filled cell by cell, row after row; emitted aligned in WIDTH columns (0: names
 * whole) by shortening the shrinkable columns' cells in the middle with "…". */
typedef struct su_col {
    const char *head;
    unsigned char right;  /* right-aligned (figures) */
    unsigned char shrink; /* may be shortened (names) */
    unsigned char code;   /* markdown: `code` cell (backticks, | escaped) */
} su_col;
typedef struct su_cell {
    char *s;
    int raw; /* printed as is, not as code (n/a) */
} su_cell;
typedef struct su_table {
    const su_col *cols;
    size_t ncols, n, cap; /* n cells */
    su_cell *cells;
    int md;
    int nomem;
} su_table;

void su_table_init(su_table *t, const su_col *cols, size_t ncols, int md);
/* The next cell: S[0..N) (RAW: never as code). */
void su_table_add(su_table *t, const char *s, size_t n, int raw);
/* The next cell: what B holds (then emptied). */
void su_table_add_buf(su_table *t, buf *b, int raw);
/* Writes the table, each line opening with INDENT; 0, or -1 (nothing written) when even the
 * shortest cells do not fit WIDTH. */
int su_table_emit(buf *b, const su_table *t, size_t width, const char *indent);
void su_table_free(su_table *t);

/* S as lines of at most WIDTH columns (0: one line) broken at spaces; the first line opens
 * with FIRST, the next with REST; a word longer than a line is shortened in the middle. */
void su_wrap(buf *b, const char *s, size_t width, const char *first, const char *rest);

/* Region PATH ("a=>b") with "::" between its parts when the seed split it from a C++ name
 * on "::" (an op name of the summary S, when not NULL, gives that path; else a part with
 * a C++ signature's characters or a C++ namespace first says so): `void at::native`. */
void su_region(buf *b, const pq_summary_result *s, const char *path);

/* The failed thresholds of track's assessment AS (one line each, "track: fail: ..."): the
 * metric, its value, the threshold, the baseline and the after figure with their units. */
void su_track_gate(buf *b, const pq_track_assessment *as, double max_median_pct,
                   double max_p90_pct);

#endif
