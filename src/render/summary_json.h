/* summary_json.h - the summary family's JSON written from their result structs
 * as they go, byte for byte as Python's json.dumps(obj, indent=N, sort_keys=True) writes
 * the seed's documents (the bytes core/jval.c's jv_write gives a parsed tree): the caller
 * gives each object's keys in sorted order, or a whole object of scalars to sort. */
#ifndef PQ_RENDER_SUMMARY_JSON_H
#define PQ_RENDER_SUMMARY_JSON_H
#include "core/buf.h"
#include "render/summary_outline.h"

#include <stddef.h>

enum { SJ_MAX_DEPTH = 32 };

typedef struct sj_writer {
    buf *b;
    int indent; /* < 0: one line, ", " and ": " between items */
    int level;
    unsigned char items[SJ_MAX_DEPTH]; /* has the open container at each level an item? */
} sj_writer;

void sj_init(sj_writer *w, buf *b, int indent);
/* The same, for a value nested LEVEL containers deep in a document written apart. */
void sj_init_at(sj_writer *w, buf *b, int indent, int level);
/* Opens an object ('{') or array ('['), as the value of the last key or item. */
void sj_open(sj_writer *w, char c);
/* Closes it ('}' or ']'); an empty one is written "{}" / "[]". */
void sj_close(sj_writer *w, char c);
/* The next key of the open object (keys in sorted order: the caller's order). */
void sj_key(sj_writer *w, const char *key);
/* The next item of the open array. */
void sj_item(sj_writer *w);
/* A scalar value (SU_V_NULL: null; integers without a fraction; numbers as Python's repr). */
void sj_val(sj_writer *w, su_val v);
/* true or false. */
void sj_bool(sj_writer *w, int b);
/* KEY: V. */
void sj_field(sj_writer *w, const char *key, su_val v);
/* An object of N scalars under KEYS, written with its keys sorted. */
void sj_scalars(sj_writer *w, const char *const *keys, const su_val *v, size_t n);
/* An array of N strings. */
void sj_strings(sj_writer *w, const char *const *s, size_t n);
/* The row ROW laid out as D says, as an object of scalars. */
void sj_row(sj_writer *w, const void *row, const sm_row_desc *d);
/* An array of the N rows of ROWS laid out as D says, each an object of scalars. */
void sj_rows(sj_writer *w, const void *rows, size_t n, const sm_row_desc *d);

/* The profile_summary.v1 document of R (render/summary_write.c). */
void sm_write(sj_writer *w, const pq_summary_result *r);
/* The array of N optimization candidates. */
void sm_candidates_write(sj_writer *w, const pq_sm_candidate *rows, size_t n);
/* Publish's plan P for summary R, with the metadata the seed attaches to the artifact. */
void sm_publish_plan_write(sj_writer *w, const pq_summary_result *r, const sm_publish_plan *p);

#endif
