/* op_profile.h - XProf's op_profile JSON from analysis/ops (spec/xprof-tools.md 5.9). */
#ifndef PQ_RENDER_OP_PROFILE_H
#define PQ_RENDER_OP_PROFILE_H
#include "analysis/ops.h"
#include "core/buf.h"

enum { OP_PROFILE_BY_PROGRAM = 0, OP_PROFILE_BY_CATEGORY = 1, OP_PROFILE_BY_PROVENANCE = 2 };

/* Writes the Profile message as protobuf's JSON printer does (fields in number order,
 * fields without presence always printed) for GROUP: the tree with IDLE, the device
 * type, the tree without IDLE and aggDvfsTimeScaleMultiplier. -1 when memory ran out. */
int op_profile_json(buf *b, const ops_result *r, int group);

#endif
