/* append.h - whole-line appends to history files (DESIGN.md 7). */
#ifndef PQ_IO_APPEND_H
#define PQ_IO_APPEND_H
#include "profq.h"

#include <stddef.h>

/* Appends LINE (N bytes ending in '\n') to PATH, creating its parent directories: an
 * exclusive flock, a '\n' first when a killed writer left the file without one, the line in
 * one write(2), then fsync. PQ_ERR_OUTPUT with the system's reason on failure. */
pq_status io_append_line(const char *path, const char *line, size_t n, pq_error *err);

#endif
