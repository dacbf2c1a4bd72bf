/* members.h - the archive members of a model source, for the analyses that read a member
 * the reader did not load (nsys-jax HLO dumps: analysis/nsys_hlo.c). A source read from a
 * .zip (its mapped bytes, kept by the model) or from an extracted archive directory (its
 * path) lists its members and hands out a member's bytes; the analyses never open files or
 * archives themselves. The same safety rules as the reader's (io/zip.h: no absolute, `..`
 * or symlink members). */
#ifndef PQ_MODEL_MEMBERS_H
#define PQ_MODEL_MEMBERS_H
#include "model/model.h"

#include <stddef.h>

typedef struct model_members model_members;

/* The members of SRC (an nsys-jax source). PQ_ERR_INPUT when SRC is not a readable archive
 * or directory. Close with model_members_close. */
pq_status model_members_open(const pq_source *src, model_members **out, pq_error *err);
void model_members_close(model_members *m);

size_t model_members_count(const model_members *m);
/* Member I's relative path ('/' separators, NUL-terminated), or NULL for a directory. */
const char *model_members_name(const model_members *m, size_t i);
/* Member I's bytes, whole, into *OUT (free with mapfile_close). The error path is
 * "ARCHIVE:MEMBER". */
pq_status model_members_read(model_members *m, size_t i, mapped_file *out, pq_error *err);

#endif
