/* json.h - a deterministic streaming JSON writer over a buf.
 * Commas and indentation are automatic; strings are escaped and invalid UTF-8
 * is replaced by U+FFFD so the output is always valid JSON; doubles use the
 * shortest of %.15g/%.17g that reads back exactly, so output is byte-stable. */
#ifndef PQ_CORE_JSON_H
#define PQ_CORE_JSON_H
#include "buf.h"
#include "profq.h"

#include <stdint.h>

enum { JSON_MAX_DEPTH = 64 };

typedef struct json_writer {
    buf *b;
    int depth;
    int pretty;
    unsigned char has_items[JSON_MAX_DEPTH];
    int after_key;
} json_writer;

void json_init(json_writer *w, buf *b, int pretty);
void json_obj_begin(json_writer *w);
void json_obj_end(json_writer *w);
void json_arr_begin(json_writer *w);
void json_arr_end(json_writer *w);
void json_key(json_writer *w, const char *key);
/* A key that needs no escaping given as its JSON text, quotes and colon included (N bytes):
 * json_key's bytes without a look at each one. JSON_KEY("name") gives a literal key so:
 * json_key_text(w, JSON_KEY("name")). */
void json_key_text(json_writer *w, const char *text, size_t n);
#define JSON_KEY(lit) "\"" lit "\":", sizeof("\"" lit "\":") - 1
/* A key in json_key_text's form and its value in one call: json_key_text then json_int,
 * json_str or json_str_escaped, the same bytes (compact output: one step). */
void json_key_int(json_writer *w, const char *key, size_t kn, int64_t v);
void json_key_str(json_writer *w, const char *key, size_t kn, const char *p, size_t n);
void json_key_str_escaped(json_writer *w, const char *key, size_t kn, const char *p, size_t n);
void json_str(json_writer *w, const char *p, size_t n);
void json_cstr(json_writer *w, const char *s);
/* A string whose content P (N bytes) json_escape_into already escaped: written as is. */
void json_str_escaped(json_writer *w, const char *p, size_t n);
void json_int(json_writer *w, int64_t v);
void json_uint(json_writer *w, uint64_t v);
void json_double(json_writer *w, double v); /* NaN and infinities are written as null */
/* A value that a compact writer (pretty 0) of its own wrote as P (N bytes), written as is
 * after the separator; W must be compact too. */
void json_raw(json_writer *w, const char *p, size_t n);
void json_bool(json_writer *w, int v);
void json_null(json_writer *w);

/* buf_put with its common case inline (room in the buffer, no flush due): the same bytes
 * and the same flushes, for texts a renderer builds or copies in pieces. */
void json_put(buf *b, const void *p, size_t n);
/* Appends S escaped as JSON string content (no quotes). Shared with other escapers. */
void json_escape_into(buf *b, const char *p, size_t n);
/* Appends the decimal text of V to B (no separator: a building block for keys and names). */
void json_put_i64(buf *b, int64_t v);
/* Formats V as the shortest round-tripping decimal; returns the length. */
int json_format_double(char *out, size_t cap, double v);

#endif
