/* xplane_opstats.h - the XPlane stats that state an op and its executions: the ids of the
 * stats of interest in one plane, and the stats of one event or metadata entry folded into
 * one record (formats/xplane_opstats.c). Read by the reader when it states a plane's ops
 * (xplane_ops.c, xplane_xla.c) and by the op analyses for the other per-event stats
 * (analysis/ops_*.c). */
#ifndef PQ_FORMATS_XPLANE_OPSTATS_H
#define PQ_FORMATS_XPLANE_OPSTATS_H
#include "formats/xplane_walk.h"
#include "model/model.h"

enum {
    S_PROGRAM_ID,
    S_SYMBOL_ID,
    S_HLO_CATEGORY,
    S_TF_OP,
    S_FLOPS,
    S_MODEL_FLOPS,
    S_BYTES,
    S_MAB,
    S_DEDUP,
    S_DEV_OFFSET,
    S_DEV_DURATION,
    S_TSM,
    S_MIN_DURATION,
    S_DMA_STALL,
    S_HLO_OP,
    S_HLO_MODULE,
    S_GROUP_ID,
    S_SOURCE,
    S_SOURCE_STACK,
    S_COUNT
};

enum { DENSE_IDS = 1024 };

typedef struct stat_ids {
    int64_t id[S_COUNT];     /* INT64_MIN when the plane has no such stat */
    int8_t dense[DENSE_IDS]; /* slot + 1 by metadata id, for the usual small ids */
} stat_ids;

void ops_stat_ids_init(const xp_plane *pl, stat_ids *ids);

/* The slot (S_*) of stat metadata id ID in IDS, -1 when none. Inline: every event stat of
 * an op line goes through it. */
static inline int ops_stat_slot(const stat_ids *ids, int64_t id)
{
    if (id >= 0 && id < DENSE_IDS)
        return ids->dense[id] - 1;
    for (int k = 0; k < S_COUNT; k++)
        if (ids->id[k] == id)
            return k;
    return -1;
}

/* A stat's value as a number; 0 for strings, bytes and references (formats/xplane_walk.h). */
static inline double ops_stat_num(const stat_value *s)
{
    return xp_stat_num(s);
}

static inline int ops_stat_u64(const stat_value *s, uint64_t *out)
{
    return xp_stat_u64(s, out);
}

/* Every stat of interest of one stats list (metadata field 5 or event field 4), folded into
 * O; a later occurrence overrides an earlier one, so reading metadata then event gives the
 * event's value where both state one. */
typedef struct op_stats {
    pq_str category, tf_op, dedup, source, source_stack, hlo_op, module, mab;
    uint64_t pid, sid;
    int has_pid, has_sid, has_min;
    double flops, model_flops, bytes, tsm;
    int64_t min_dur, dma;
} op_stats;

void ops_read_op_stats(const xp_plane *pl, const stat_ids *ids, const uint8_t *body, uint32_t len,
                       uint32_t field, op_stats *o);

/* The op name after the last "::" of an hlo_op stat (formats/xplane_xla.c). */
pq_str xp_last_hlo_op(pq_str s);
/* The N of "(N)" at the end of a module name, as XProf falls back to: 1 and *OUT, else 0. */
int xp_paren_id(pq_str s, uint64_t *out);

#endif
