/* summary_outline.h - the layout of the compare, track and query text (issue 11, issue 16
 * item 10): "key: value" lines indented two spaces a level, nested blocks, lists of strings,
 * and arrays of rows as aligned tables (as lists of "- #i" blocks when a table does not
 * fit). The renderers of those commands (render/summary_compare.c, render/summary_query.c)
 * call these with the members of their result structs, in the order the text shows them
 * (a block's scalars first, then its lists and blocks). Formatting only. */
#ifndef PQ_RENDER_SUMMARY_OUTLINE_H
#define PQ_RENDER_SUMMARY_OUTLINE_H
#include "core/buf.h"
#include "render/summary_fields.h"
#include "render/summary_text.h"

#include <stddef.h>
#include <stdint.h>

/* One scalar of a result as the text shows it: absent (a NULL string, a NaN: "n/a"), a
 * string, an integer or a number. */
typedef enum { SU_V_NULL, SU_V_STR, SU_V_INT, SU_V_NUM } su_vkind;
typedef struct su_val {
    su_vkind t;
    const char *s;
    int64_t i;
    double d;
} su_val;

su_val su_vstr(const char *s);
su_val su_vint(int64_t i);
su_val su_vnum(double d);
/* Member F of ROW (a struct laid out as render/summary_fields.h says). */
su_val su_vfield(const void *row, const sm_field *f);

/* Where the text goes and its width (0: names whole). */
typedef struct su_outline {
    buf *b;
    size_t width;
} su_outline;

void su_outline_init(su_outline *o, buf *b, int wide);
/* "KEY: V" at DEPTH; V in the unit KEY names, else in INHERIT (the unit of the block
 * holding it); prose keys wrapped, other strings shortened in the middle. */
void su_line(const su_outline *o, size_t depth, const char *key, su_val v, su_unit inherit);
/* "KEY:" opening a block at DEPTH; returns the unit its members inherit. */
su_unit su_open(const su_outline *o, size_t depth, const char *key);
/* A list of N strings under KEY at DEPTH ("KEY: none" when empty). */
void su_strings(const su_outline *o, size_t depth, const char *key, const char *const *s, size_t n);

/* N rows of NCOLS values under KEYS: GET fills row I's values (in KEYS' order). */
typedef struct su_rowset {
    const char *const *keys;
    size_t ncols, n;
    void (*get)(const void *ctx, size_t i, su_val *vals);
    const void *ctx;
} su_rowset;
/* The rows R under KEY at DEPTH: one table (columns from the first row), or one "- #i"
 * block a row when the table does not fit; "KEY: none" when there are none. */
void su_rows(const su_outline *o, size_t depth, const char *key, const su_rowset *r);
/* The rows of an array of row structs laid out as D says (KEYS: its keys, D->nfields of
 * them). */
void su_rows_desc(const su_outline *o, size_t depth, const char *key, const void *rows, size_t n,
                  const sm_row_desc *d);
/* "- #I" (I counted from 0) opening the I-th block of a list at DEPTH. */
void su_item(const su_outline *o, size_t depth, size_t i);

#endif
