/* zip.h - the members of a .zip archive (nsys-jax) read in place into memory, or of an
 * extracted archive directory through the same calls. Nothing is ever extracted to disk.
 *
 * Opening refuses (PQ_ERR_INPUT naming the member) any member whose name is absolute, holds
 * a `..` component or a backslash/drive prefix, and any symlink member; a truncated or
 * corrupt archive is PQ_ERR_INPUT. In directory mode symlinks are not followed: a symlink
 * member is refused when read, and folders reached through symlinks are not listed.
 */
#ifndef PQ_IO_ZIP_H
#define PQ_IO_ZIP_H
#include "mapfile.h"
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pqzip pqzip;

typedef struct pqzip_member {
    const char *name; /* relative path with '/' separators, NUL-terminated */
    uint64_t size;    /* uncompressed bytes */
    uint64_t comp_size;
    int method; /* 0 stored, 8 deflate (zip); -1 for a file of a directory */
    int is_dir;
} pqzip_member;

/* Opens PATH: a zip file (mapped, read in place) or a directory (walked recursively). */
pq_status pqzip_open(const char *path, pqzip **out, pq_error *err);
/* Opens the zip archive DATA[0..N) (kept, not copied: it must outlive the handle). NAME is
 * used in errors. */
pq_status pqzip_open_memory(const void *data, size_t n, const char *name, pqzip **out,
                            pq_error *err);
void pqzip_close(pqzip *z);

int pqzip_is_directory(const pqzip *z);
size_t pqzip_count(const pqzip *z);
const pqzip_member *pqzip_member_at(const pqzip *z, size_t i);
/* The index of the member named NAME (a trailing '/' of directories is optional), or -1. */
long pqzip_find(const pqzip *z, const char *name);
/* Reads member I whole into *OUT (a padded heap buffer; mapfile_close frees it). The error
 * path is "ARCHIVE:MEMBER". Directories are PQ_ERR_USAGE. */
pq_status pqzip_read(pqzip *z, size_t i, mapped_file *out, pq_error *err);

/* 0 when NAME is a safe relative member name (no absolute path, drive letter, backslash,
 * `..` component or empty name). */
int pqzip_name_is_safe(const char *name, size_t n);

#endif
