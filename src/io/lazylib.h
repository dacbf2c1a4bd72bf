/* lazylib.h - libzip, libsnappy and libsqlite3, loaded with dlopen on first use (see lazylib.c). */
#ifndef PROFQ_IO_LAZYLIB_H
#define PROFQ_IO_LAZYLIB_H

#include "core/err.h"

#include <snappy-c.h>
#include <sqlite3.h>
#include <zip.h>

/* The functions each table holds, in field order (an X-macro: lazylib.c takes the symbol
 * names from the same list, so names and fields cannot disagree). */
#define LAZY_ZIP_FUNCS(X)                                                                          \
    X(zip_open_from_source)                                                                        \
    X(zip_source_buffer_create)                                                                    \
    X(zip_source_free)                                                                             \
    X(zip_discard)                                                                                 \
    X(zip_get_num_entries)                                                                         \
    X(zip_stat_index)                                                                              \
    X(zip_file_get_external_attributes)                                                            \
    X(zip_fopen_index)                                                                             \
    X(zip_fread)                                                                                   \
    X(zip_fclose)                                                                                  \
    X(zip_file_strerror)                                                                           \
    X(zip_get_error)                                                                               \
    X(zip_error_init)                                                                              \
    X(zip_error_init_with_code)                                                                    \
    X(zip_error_code_zip)                                                                          \
    X(zip_error_strerror)                                                                          \
    X(zip_error_fini)
#define LAZY_SNAPPY_FUNCS(X)                                                                       \
    X(snappy_uncompressed_length)                                                                  \
    X(snappy_uncompress)
#define LAZY_SQLITE_FUNCS(X)                                                                       \
    X(sqlite3_open_v2)                                                                             \
    X(sqlite3_close_v2)                                                                            \
    X(sqlite3_deserialize)                                                                         \
    X(sqlite3_prepare_v2)                                                                          \
    X(sqlite3_step)                                                                                \
    X(sqlite3_finalize)                                                                            \
    X(sqlite3_column_type)                                                                         \
    X(sqlite3_column_int64)                                                                        \
    X(sqlite3_column_blob)                                                                         \
    X(sqlite3_column_bytes)                                                                        \
    X(sqlite3_errmsg)

/* A field: a pointer typed from the function's declaration in the -dev header. */
#define LAZY_FIELD(fn) __typeof__(fn) *fn;

/* The libzip functions zip.c calls, typed from <zip.h> so the calls are checked. */
typedef struct lazy_zip {
    LAZY_ZIP_FUNCS(LAZY_FIELD)
} lazy_zip;

/* The snappy C API functions parquet.c calls, typed from <snappy-c.h>. */
typedef struct lazy_snappy {
    LAZY_SNAPPY_FUNCS(LAZY_FIELD)
} lazy_snappy;

/* The SQLite functions formats/nsys_sqlite.c calls, typed from <sqlite3.h>. */
typedef struct lazy_sqlite {
    LAZY_SQLITE_FUNCS(LAZY_FIELD)
} lazy_sqlite;

/* Load libzip.so.4 (once per process, thread-safe) and set *OUT to its function table. If it
 * cannot be loaded: PQ_ERR_UNSUPPORTED naming the library and its Debian package, with PATH
 * (the file being read) in ERR. */
pq_status lazylib_zip(const lazy_zip **out, const char *path, pq_error *err);

/* The same for libsnappy.so.1. */
pq_status lazylib_snappy(const lazy_snappy **out, const char *path, pq_error *err);

/* The same for libsqlite3.so.0 (Nsight Systems SQLite exports). */
pq_status lazylib_sqlite(const lazy_sqlite **out, const char *path, pq_error *err);

#endif
