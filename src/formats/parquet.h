/* parquet.h - profq's own reader of Apache Parquet files (flat schemas), over a buffer.
 *
 * Debian ships no C parquet library (docs/internals/parquet.md), so this reads what
 * nsys-jax archives hold: the thrift compact footer and page headers, data pages v1 and
 * v2 and dictionary pages, PLAIN and RLE_DICTIONARY/PLAIN_DICTIONARY values, RLE/bit-packed
 * definition levels of optional columns, codecs UNCOMPRESSED, SNAPPY and ZSTD. Anything
 * else (another codec, encoding, physical type or any nesting) is PQ_ERR_INPUT naming the
 * column, the byte offset and what was expected: never a wrong number.
 *
 * Ownership: parquet_open keeps a pointer to DATA (which must outlive the handle) and
 * copies nothing of it; parquet_values own their arrays and the bytes their strings view.
 */
#ifndef PQ_FORMATS_PARQUET_H
#define PQ_FORMATS_PARQUET_H
#include "core/arena.h"
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

/* Physical types (parquet.thrift Type). */
enum {
    PARQUET_BOOLEAN = 0,
    PARQUET_INT32 = 1,
    PARQUET_INT64 = 2,
    PARQUET_INT96 = 3,
    PARQUET_FLOAT = 4,
    PARQUET_DOUBLE = 5,
    PARQUET_BYTE_ARRAY = 6,
    PARQUET_FIXED_LEN_BYTE_ARRAY = 7
};

/* Logical types (the LogicalType union's field ids: 1 STRING, 8 TIMESTAMP, 10 INTEGER...). */
enum { PARQUET_LOGICAL_NONE = 0, PARQUET_LOGICAL_STRING = 1 };
/* Converted types (ConvertedType; 0 = UTF8), -1 when absent. */
enum { PARQUET_CONVERTED_NONE = -1, PARQUET_CONVERTED_UTF8 = 0 };

typedef struct parquet_column_info {
    const char *name; /* the leaf's path, components joined with '.' (NUL-terminated) */
    int physical;     /* PARQUET_BOOLEAN...; -1 when the schema gave none */
    int logical;      /* LogicalType field id, PARQUET_LOGICAL_NONE when absent */
    int converted;    /* ConvertedType, PARQUET_CONVERTED_NONE when absent */
    int optional;     /* 1: may hold nulls (definition level 1) */
    int flat;         /* 1: a top-level REQUIRED/OPTIONAL leaf this reader can read */
} parquet_column_info;

typedef struct parquet_file parquet_file;

/* Parses the footer of the parquet file DATA[0..N) (PATH names it in errors; both are kept
 * by the handle). PQ_ERR_INPUT on a bad magic, footer or schema. */
pq_status parquet_open(const uint8_t *data, size_t n, const char *path, parquet_file **out,
                       pq_error *err);
void parquet_close(parquet_file *f);

int64_t parquet_num_rows(const parquet_file *f);
size_t parquet_num_columns(const parquet_file *f);
size_t parquet_num_row_groups(const parquet_file *f);
/* Column I (0 <= I < parquet_num_columns), in schema (= column chunk) order. */
const parquet_column_info *parquet_column(const parquet_file *f, size_t i);
/* The index of the column named NAME, or -1. */
long parquet_find_column(const parquet_file *f, const char *name);
/* "INT64", "BYTE_ARRAY"...; "?" for an unknown value. */
const char *parquet_type_name(int physical);

/* One column of every row group, one entry per row. Exactly one array is set, the one of
 * the column's physical type (b for BOOLEAN: 0 or 1). Null rows hold 0 / an empty string
 * and valid[i] == 0; valid is NULL when the column has no null. Strings view bytes owned
 * by STRINGS (the dictionary or a copy of the page values). */
typedef struct parquet_values {
    size_t n;
    int physical;
    int32_t *i32;
    int64_t *i64;
    float *f32;
    double *f64;
    uint8_t *b;
    pq_str *str;
    uint8_t *valid;
    size_t null_count;
    arena strings;
} parquet_values;

/* Reads column COL into *OUT (freed with parquet_values_free, also after an error). */
pq_status parquet_read_column(const parquet_file *f, size_t col, parquet_values *out,
                              pq_error *err);
void parquet_values_free(parquet_values *v);

#endif
