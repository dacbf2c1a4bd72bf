/* jval.h - a small JSON reader: a parsed document as a tree, for documents profq reads
 * back (profile_summary.v1, track history records, Tenstorrent JSON outputs, Kineto's
 * deviceProperties): a few hundred KB at most. Traces are never loaded this way
 * (formats/trace_json.h streams them), and nothing builds a tree to write it: documents
 * are written from result structs (render/summary_json.h).
 *
 * jv_write writes a parsed value back as Python's json.dumps(obj, indent=2,
 * sort_keys=True) byte for byte (ASCII-escaped strings, floats as Python's repr, ints
 * without a fraction), the serialisation of the seed tool whose documents profq
 * reproduces; its string escapes and float repr are the streaming writer's too. */
#ifndef PQ_CORE_JVAL_H
#define PQ_CORE_JVAL_H
#include "buf.h"
#include "jtext.h" /* py_float_repr, jv_write_str */
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

typedef enum jv_type { JV_NULL, JV_BOOL, JV_INT, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_type;

typedef struct jval jval;
struct jval {
    jv_type t;
    int b;
    int64_t i;
    double d;
    char *s; /* NUL-terminated copy (STR) */
    size_t sn;
    jval **items; /* ARR and OBJ values */
    char **keys;  /* OBJ keys, NUL-terminated */
    size_t n, cap;
};

void jv_free(jval *v);

/* Lookups: NULL when absent or of another type. */
const jval *jv_get(const jval *obj, const char *key);
double jv_number(const jval *v, int *ok); /* INT or NUM */
const char *jv_string(const jval *v);     /* STR, else NULL */

/* Parses N bytes of JSON text. On failure returns NULL and sets *err_off (byte offset) and
 * err_what (static text). Depth is bounded (256). */
jval *jv_parse(const char *p, size_t n, size_t *err_off, const char **err_what);

/* Writes the parsed V as Python's json.dumps(v, indent=INDENT, sort_keys=True) would (INDENT < 0:
 * compact "sort_keys" form with ", " and ": " separators, as Python's default). */
void jv_write(buf *b, const jval *v, int indent);

#endif
