/* discover.h - finding the trace inside a jax_profile artifact directory
 * (spec/seed-tools.md 1.2). */
#ifndef PQ_IO_DISCOVER_H
#define PQ_IO_DISCOVER_H
#include "mapfile.h"

/* Recursively (depth <= 8, symlinked folders not followed) collects files under DIR
 * whose name is exactly NAME (when EXACT) or ends with NAME; sorted. */
int discover_files(const char *dir, const char *name, int exact, pathlist *out);

#endif
