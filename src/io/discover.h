/* discover.h - finding the trace inside a jax_profile artifact directory
 * (spec/seed-tools.md 1.2), and the nsys-jax inputs of a directory. */
#ifndef PQ_IO_DISCOVER_H
#define PQ_IO_DISCOVER_H
#include "mapfile.h"

/* Recursively (depth <= 8, symlinked folders not followed) collects files under DIR
 * whose name is exactly NAME (when EXACT) or ends with NAME; sorted. */
int discover_files(const char *dir, const char *name, int exact, pathlist *out);

/* The trace-event JSON files under DIR (recursively, as discover_files): every file of the
 * first of these patterns that any file matches: perfetto_trace.json.gz (JAX), *.trace.json.gz,
 * *.trace.json (PyTorch/Kineto), then, unless NAMED_ONLY, any *.json.gz and any *.json (a
 * folder of ranks); sorted. 1 when some were found, 0 none, -1 out of memory. */
int discover_traces(const char *dir, int named_only, pathlist *out);

/* The nsys-jax inputs of directory DIR: DIR itself when it is an extracted archive (it
 * holds nvtx_gpu_proj_trace/), else the archives (*.zip) and extracted archives directly in
 * it, sorted, appended to OUT. 1 when some were found, 0 none, -1 out of memory. */
int discover_nsysjax(const char *dir, pathlist *out);

/* nsys-jax-combine's de-duplication of identical files: drops from L every nsys-jax
 * archive (*.zip) byte-identical to an earlier one (the same bytes given twice are one
 * process, not two). */
void dedupe_nsysjax(pathlist *l);

#endif
