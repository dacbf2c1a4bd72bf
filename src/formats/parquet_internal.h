/* parquet_internal.h - the thrift compact protocol reader and the RLE/bit-packed hybrid
 * decoder shared by parquet.c and parquet_meta.c (and unit-tested on hand-built bytes).
 * Not part of the reader's API. */
#ifndef PQ_FORMATS_PARQUET_INTERNAL_H
#define PQ_FORMATS_PARQUET_INTERNAL_H
#include "parquet.h"

#include <stddef.h>
#include <stdint.h>

/* Thrift compact protocol element types. */
enum {
    TC_STOP = 0,
    TC_TRUE = 1,
    TC_FALSE = 2,
    TC_BYTE = 3,
    TC_I16 = 4,
    TC_I32 = 5,
    TC_I64 = 6,
    TC_DOUBLE = 7,
    TC_BINARY = 8,
    TC_LIST = 9,
    TC_SET = 10,
    TC_MAP = 11,
    TC_STRUCT = 12
};

/* A cursor over thrift compact bytes. BASE is offset 0 of the file, so error offsets are
 * file offsets. On the first failure FAILED is set, BAD_AT holds the offset and WHAT what
 * was expected; every later call fails too. */
typedef struct thrift_reader {
    const uint8_t *base, *p, *end;
    int failed;
    int64_t bad_at;
    const char *what;
} thrift_reader;

void thrift_init(thrift_reader *r, const uint8_t *base, const uint8_t *p, const uint8_t *end);
int thrift_varint(thrift_reader *r, uint64_t *v);
int64_t thrift_zigzag(thrift_reader *r); /* an i16/i32/i64 value */
/* The next field header of the struct being read: returns 1 with *TYPE and *ID, 0 at the
 * struct's stop byte, -1 on error. *LAST_ID is the previous field id (start at 0). Boolean
 * fields carry their value in *TYPE (TC_TRUE / TC_FALSE). */
int thrift_field(thrift_reader *r, int16_t *last_id, int *type, int16_t *id);
/* A list/set header: element type and count (count checked against the bytes left). */
int thrift_list(thrift_reader *r, int *elem_type, uint32_t *count);
/* A binary/string: a view into the buffer. */
int thrift_binary(thrift_reader *r, const uint8_t **s, size_t *n);
/* Skips one value of TYPE (nested at most 32 deep). */
int thrift_skip(thrift_reader *r, int type);
/* Marks the reader failed at its position; returns -1. */
int thrift_fail(thrift_reader *r, const char *what);

/* Decodes COUNT values of the RLE/bit-packed hybrid encoding (BIT_WIDTH 0..32) from
 * [P, END) into OUT. Returns 0, or -1 with *BAD (bytes from P) and *WHAT set. A last
 * bit-packed run may be cut short once COUNT values are read. */
int parquet_rle_decode(const uint8_t *p, const uint8_t *end, int bit_width, uint32_t *out,
                       size_t count, size_t *bad, const char **what);

/* One leaf column of the schema, and its chunk in each row group. */
typedef struct parquet_chunk {
    int has_meta;
    int type, codec;
    int64_t num_values, data_page_offset, dict_page_offset, total_compressed;
} parquet_chunk;

struct parquet_file {
    const uint8_t *data;
    size_t n;
    const char *path;
    arena a;
    int64_t num_rows;
    size_t ncols, nrg;
    parquet_column_info *cols;
    int64_t *rg_rows;      /* nrg */
    parquet_chunk *chunks; /* nrg * ncols, row group major */
};

/* Parses the footer (parquet_meta.c). */
pq_status parquet_parse_footer(parquet_file *f, pq_error *err);

#endif
