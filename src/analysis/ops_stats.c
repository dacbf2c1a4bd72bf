/* ops_stats.c - reading the XPlane stats that op extraction needs: the ids of the stats of
 * interest in one plane, numbers and ids from stat values, the stats of one event or
 * metadata entry (ops_read_op_stats) and the XLA stats of a GPU kernel or XLA:CPU thunk
 * (hlo_op, hlo_module, program id). Shared by ops_tpu.c, ops_gpu.c and ops_cpu.c; no
 * merging and no figures here. */
#include "analysis/ops_internal.h"

#include <math.h>
#include <string.h>

double ops_safe_div(double a, double b)
{
    return fabs(b) < 1e-10 ? 0.0 : a / b;
}

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

int ops_stat_u64(const stat_value *s, uint64_t *out)
{
    switch (s->kind) {
    case STAT_UINT64:
    case STAT_INT64:
        *out = s->v.u;
        return 1;
    case STAT_DOUBLE:
        *out = s->v.d >= 0 ? (uint64_t)s->v.d : 0;
        return 1;
    default:
        return 0;
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

/* "(N)" at the end of a module name, as XProf falls back to. */
int ops_parse_paren_id(pq_str s, uint64_t *out)
{
    if (s.n < 3 || s.p[s.n - 1] != ')')
        return 0;
    size_t i = s.n - 1;
    uint64_t v = 0, mul = 1;
    while (i > 0 && s.p[i - 1] >= '0' && s.p[i - 1] <= '9') {
        v += (uint64_t)(s.p[i - 1] - '0') * mul;
        mul *= 10;
        i--;
    }
    if (i == s.n - 1 || i == 0 || s.p[i - 1] != '(')
        return 0;
    *out = v;
    return 1;
}

int ops_str_same(pq_str a, pq_str b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

pq_str ops_last_hlo_op(pq_str s)
{
    for (size_t i = s.n; i >= 2; i--)
        if (s.p[i - 1] == ':' && s.p[i - 2] == ':')
            return pq_str_of(s.p + i, s.n - i);
    return s;
}

/* The program id of MODULE: its "(N)" suffix, else the id of the HloProto of that name. */
static uint64_t program_by_module(const pq_source *src, pq_str module, int *found)
{
    uint64_t id;
    if (ops_parse_paren_id(module, &id)) {
        *found = 1;
        return id;
    }
    for (uint32_t i = 0; i < src->nprograms; i++)
        if (ops_str_same(src->programs[i].name, module)) {
            *found = 1;
            return src->programs[i].program_id;
        }
    *found = 0;
    return 0;
}

int ops_xla_event(const pq_source *src, const xp_plane *pl, const stat_ids *ids, const xp_event *ev,
                  xla_ev *x)
{
    op_stats o = {0};
    const xp_event_meta *em = xp_event_meta_find(pl, ev->metadata_id);
    if (em)
        ops_read_op_stats(pl, ids, em->body, em->body_len, 5, &o);
    ops_read_op_stats(pl, ids, ev->stats, ev->body_len, 4, &o);
    if (!o.hlo_op.n)
        return 0;
    *x = (xla_ev){o.hlo_op, o.module, o.tf_op, o.pid, o.flops, o.bytes};
    if (!o.has_pid && o.module.n)
        x->pid = program_by_module(src, o.module, &o.has_pid);
    return 1;
}
