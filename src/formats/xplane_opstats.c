/* xplane_opstats.c - reading the XPlane stats that state an op and its executions; see
 * xplane_opstats.h. No merging, no figures. */
#include "xplane_opstats.h"

#include <string.h>

static const char *const STAT_NAMES[S_COUNT] = {"program_id",
                                                "symbol_id",
                                                "hlo_category",
                                                "tf_op",
                                                "flops",
                                                "model_flops",
                                                "bytes_accessed",
                                                "memory_access_breakdown",
                                                "deduplicated_name",
                                                "device_offset_ps",
                                                "device_duration_ps",
                                                "Time Scale Multiplier",
                                                "min_duration_ps",
                                                "dma_stall_duration_ps",
                                                "hlo_op",
                                                "hlo_module",
                                                "group_id",
                                                "source",
                                                "source_stack"};

void ops_stat_ids_init(const xp_plane *pl, stat_ids *ids)
{
    memset(ids->dense, 0, sizeof ids->dense);
    for (int k = 0; k < S_COUNT; k++) {
        const xp_stat_meta *m = xp_stat_meta_by_name(pl, STAT_NAMES[k]);
        ids->id[k] = m ? m->id : INT64_MIN;
        if (m && m->id >= 0 && m->id < DENSE_IDS)
            ids->dense[m->id] = (int8_t)(k + 1);
    }
}

void ops_read_op_stats(const xp_plane *pl, const stat_ids *ids, const uint8_t *body, uint32_t len,
                       uint32_t field, op_stats *o)
{
    xp_stat_iter it;
    stat_value s;
    xp_stats_begin(&it, body, len, field);
    while (xp_stats_next(&it, &s)) {
        switch (ops_stat_slot(ids, s.metadata_id)) {
        case S_PROGRAM_ID:
            o->has_pid = ops_stat_u64(&s, &o->pid);
            break;
        case S_SYMBOL_ID:
            o->has_sid = ops_stat_u64(&s, &o->sid);
            break;
        case S_HLO_CATEGORY:
            o->category = xp_stat_str(pl, &s);
            break;
        case S_TF_OP:
            o->tf_op = xp_stat_str(pl, &s);
            break;
        case S_FLOPS:
            o->flops = ops_stat_num(&s);
            break;
        case S_MODEL_FLOPS:
            o->model_flops = ops_stat_num(&s);
            break;
        case S_BYTES:
            o->bytes = ops_stat_num(&s);
            break;
        case S_MAB:
            if (s.kind == STAT_BYTES || s.kind == STAT_STR)
                o->mab = s.v.s;
            break;
        case S_DEDUP:
            o->dedup = xp_stat_str(pl, &s);
            break;
        case S_SOURCE:
            o->source = xp_stat_str(pl, &s);
            break;
        case S_SOURCE_STACK:
            o->source_stack = xp_stat_str(pl, &s);
            break;
        case S_TSM:
            o->tsm = ops_stat_num(&s);
            break;
        case S_MIN_DURATION:
            o->has_min = 1;
            o->min_dur = (int64_t)ops_stat_num(&s);
            break;
        case S_DMA_STALL:
            o->dma = (int64_t)ops_stat_num(&s);
            break;
        case S_HLO_OP:
            o->hlo_op = xp_stat_str(pl, &s);
            break;
        case S_HLO_MODULE:
            o->module = xp_stat_str(pl, &s);
            break;
        default:
            break;
        }
    }
}
