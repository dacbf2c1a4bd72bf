/* op_profile.h - writes XProf's op_profile JSON from the trees of analysis/op_profile. */
#ifndef PQ_RENDER_OP_PROFILE_H
#define PQ_RENDER_OP_PROFILE_H
#include "analysis/op_profile.h"
#include "core/buf.h"

/* Writes the Profile message for GROUP: the tree with IDLE, the device type, the tree
 * without IDLE and aggDvfsTimeScaleMultiplier. */
void op_profile_json(buf *b, const pq_ops_result *r, int group, const op_profile_tree *with_idle,
                     const op_profile_tree *without_idle);

#endif
