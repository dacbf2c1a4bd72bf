/* mapfile.h - read-only memory mapping of an input file, and run-directory discovery. */
#ifndef PQ_IO_MAPFILE_H
#define PQ_IO_MAPFILE_H
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Every buffer profq decodes is followed by at least MAPFILE_PADDING readable bytes, so
 * the fast protobuf decoders (pbwire.h, pb_fast_*) may load 8 bytes at any position before
 * the end without a bounds check per byte (the simdjson approach). Regular files over
 * MAPFILE_READ_MAX bytes are mapped into a reservation one page longer than the file; other
 * inputs are read into a heap buffer with zeroed padding.
 */
enum { MAPFILE_PADDING = 16, MAPFILE_READ_MAX = 64 << 10 /* read, not mapped, up to this */ };
/* A pipe or device (not a regular file) is read at most this far, then refused. */
#define MAPFILE_STREAM_MAX ((uint64_t)4 << 30)

typedef struct mapped_file {
    const uint8_t *data;
    size_t size;
    size_t map_len; /* > 0: munmap(data, map_len) on close; 0: heap buffer (or empty) */
} mapped_file;

/* Maps PATH read-only. Empty files give data == NULL, size 0 and PQ_OK. */
pq_status mapfile_open(const char *path, mapped_file *out, pq_error *err);
/* Copies N bytes into a padded heap buffer (allocated even when N is 0). */
pq_status mapfile_copy(const void *data, size_t n, const char *name, mapped_file *out,
                       pq_error *err);
void mapfile_close(mapped_file *m);
/* Hints that the mapping will be read front to back once. */
void mapfile_advise_sequential(const mapped_file *m);
/* Unmaps the file's pages from the process (they stay in the page cache): a later read of
 * the mapping faults them in again from the file. For a reader done with a pass over the
 * whole file that will read only part of it next. No-op for a heap copy. */
void mapfile_drop_resident(const mapped_file *m);

/* A list of paths owned by the caller (free with pathlist_free). */
typedef struct pathlist {
    char **items;
    size_t n, cap;
} pathlist;

void pathlist_free(pathlist *l);
/* Appends a copy of S; 0 when memory ran out. */
int pathlist_push(pathlist *l, const char *s);
/* Sorts the paths (strcmp order). */
void pathlist_sort(pathlist *l);
/* Appends the files (regular or symlinks) under DIR, recursively to depth 8 without
 * following symlinked folders, whose name KEEP(name, ctx) accepts; names starting with '.'
 * are passed over when SKIP_HIDDEN (else only "." and ".."). Unreadable folders are
 * skipped. Returns 0 when memory ran out. */
int pathlist_walk(const char *dir, int skip_hidden, int (*keep)(const char *name, const void *ctx),
                  const void *ctx, pathlist *out);

/*
 * Expands one user argument into profile files. A regular file is itself. A
 * directory is searched recursively (symlinked directories are not followed,
 * depth at most 8) for *.xplane.pb; when the matches sit in more than one
 * folder (several plugins/profile/<timestamp>/ runs), the folder that sorts
 * last (the newest timestamp) is chosen. Without XSpaces, the nsys-jax archives
 * of the directory (discover_nsysjax), else its trace JSON files (discover_traces: a
 * folder of ranks is one source per file). Paths come back sorted. A directory
 * without profiles is PQ_ERR_NOT_FOUND ("is a directory holding no profile ...").
 */
pq_status discover_profiles(const char *arg, pathlist *out, pq_error *err);

/* Lowercase hex SHA-256 of N bytes into out[65]. */
void sha256_hex(const void *data, size_t n, char out[65]);
/* The same of the file PATH, read in 1 MiB chunks (memory stays small). 0, or -1 with
 * out[0] = 0 when it cannot be read. */
int sha256_file_hex(const char *path, char out[65]);

#endif
