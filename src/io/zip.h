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
    uint32_t crc; /* the CRC-32 the central directory states, when plain (zip) */
    int plain;    /* zip: the CRC is known and the member is not encrypted */
} pqzip_member;

/* Opens PATH: a zip file (mapped, read in place) or a directory (walked recursively). */
pq_status pqzip_open(const char *path, pqzip **out, pq_error *err);
/* Opens the zip archive DATA[0..N) (kept, not copied: it must outlive the handle). NAME is
 * used in errors. */
pq_status pqzip_open_memory(const void *data, size_t n, const char *name, pqzip **out,
                            pq_error *err);
void pqzip_close(pqzip *z);
/* pqzip_open and pqzip_open_memory in two steps: pqzip_map maps PATH (a zip file) or
 * borrows DATA[0..N) (PATH NULL; NAME is used in errors), or walks a directory, and
 * pqzip_load then opens the zip with libzip (no-op for a directory), with the errors of
 * pqzip_open. In between, pqzip_bytes gives the archive's bytes (NULL for a directory). */
pq_status pqzip_map(const char *path, const void *data, size_t n, const char *name, pqzip **out,
                    pq_error *err);
const uint8_t *pqzip_bytes(const pqzip *z, size_t *n);
pq_status pqzip_load(pqzip *z, pq_error *err);

int pqzip_is_directory(const pqzip *z);
size_t pqzip_count(const pqzip *z);
const pqzip_member *pqzip_member_at(const pqzip *z, size_t i);
/* The index of the member named NAME (a trailing '/' of directories is optional), or -1. */
long pqzip_find(const pqzip *z, const char *name);
/* Reads member I whole into *OUT (a padded heap buffer; mapfile_close frees it). The error
 * path is "ARCHIVE:MEMBER". Directories are PQ_ERR_USAGE. */
pq_status pqzip_read(pqzip *z, size_t i, mapped_file *out, pq_error *err);
/* pqzip_read through libzip's own inflate (zlib, streamed) for every member, where
 * pqzip_read inflates a plain deflated member with libdeflate: the fuzz target and the tests
 * compare the two. */
pq_status pqzip_read_streamed(pqzip *z, size_t i, mapped_file *out, pq_error *err);

/* 0 when NAME is a safe relative member name (no absolute path, drive letter, backslash,
 * `..` component or empty name). */
int pqzip_name_is_safe(const char *name, size_t n);

/* A member read by pqzip_peek: its central directory index (pqzip_member_at's), its bytes
 * (in the archive when stored, else OWNED, padded by MAPFILE_PADDING, for pq_free) and the
 * CRC-32 its central directory entry states. */
typedef struct pqzip_peeked {
    size_t index;
    const uint8_t *data;
    size_t size;
    uint64_t comp_size;
    int method;
    uint32_t crc;
    uint8_t *owned;
} pqzip_peeked;
/* Reads the member NAME (not a directory) of the zip archive D[0..N) without libzip: 1 when
 * the archive's central directory (not zip64) names it exactly once (and not NAME/), as a plain
 * stored or deflated file whose local header agrees, whose data lies inside the archive and
 * inflates to exactly its size; else 0, and nothing is said (libzip reads it then, with its own
 * errors). The bytes are not yet checked: pqzip_peek_crc_ok must say 1 before anything read
 * from them is used (a caller may start on them first and check beside). */
int pqzip_peek(const uint8_t *d, size_t n, const char *name, pqzip_peeked *out);
int pqzip_peek_crc_ok(const pqzip_peeked *pk);
/* 0 when the central directory of D[0..N) walks and names no NAME nor NAME/; else 1. */
int pqzip_peek_has(const uint8_t *d, size_t n, const char *name);

#endif
