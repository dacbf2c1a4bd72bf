/* lazylib.h - libzip and libsnappy, loaded with dlopen on first use (see lazylib.c). */
#ifndef PROFQ_IO_LAZYLIB_H
#define PROFQ_IO_LAZYLIB_H

#include "core/err.h"

#include <snappy-c.h>
#include <zip.h>

/* The libzip functions zip.c calls, typed from <zip.h> so the calls are checked. */
typedef struct lazy_zip {
    __typeof__(zip_open_from_source) *zip_open_from_source;
    __typeof__(zip_source_buffer_create) *zip_source_buffer_create;
    __typeof__(zip_source_free) *zip_source_free;
    __typeof__(zip_discard) *zip_discard;
    __typeof__(zip_get_num_entries) *zip_get_num_entries;
    __typeof__(zip_stat_index) *zip_stat_index;
    __typeof__(zip_file_get_external_attributes) *zip_file_get_external_attributes;
    __typeof__(zip_fopen_index) *zip_fopen_index;
    __typeof__(zip_fread) *zip_fread;
    __typeof__(zip_fclose) *zip_fclose;
    __typeof__(zip_file_strerror) *zip_file_strerror;
    __typeof__(zip_get_error) *zip_get_error;
    __typeof__(zip_error_init) *zip_error_init;
    __typeof__(zip_error_init_with_code) *zip_error_init_with_code;
    __typeof__(zip_error_code_zip) *zip_error_code_zip;
    __typeof__(zip_error_strerror) *zip_error_strerror;
    __typeof__(zip_error_fini) *zip_error_fini;
} lazy_zip;

/* The snappy C API functions parquet.c calls, typed from <snappy-c.h>. */
typedef struct lazy_snappy {
    __typeof__(snappy_uncompressed_length) *snappy_uncompressed_length;
    __typeof__(snappy_uncompress) *snappy_uncompress;
} lazy_snappy;

/* Load libzip.so.4 (once per process, thread-safe) and set *OUT to its function table. If it
 * cannot be loaded: PQ_ERR_UNSUPPORTED naming the library and its Debian package, with PATH
 * (the file being read) in ERR. */
pq_status lazylib_zip(const lazy_zip **out, const char *path, pq_error *err);

/* The same for libsnappy.so.1. */
pq_status lazylib_snappy(const lazy_snappy **out, const char *path, pq_error *err);

#endif
