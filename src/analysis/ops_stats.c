/* ops_stats.c - the XLA stats of a GPU kernel or XLA:CPU thunk (hlo_op, hlo_module, program
 * id) and small helpers of op extraction, shared by ops_tpu.c, ops_gpu.c and ops_cpu.c; no
 * merging and no figures here. The stat ids and the stats of one event or metadata entry
 * are the reader's (formats/xplane_opstats.c). */
#include "analysis/ops_internal.h"

#include <math.h>
#include <string.h>

double ops_safe_div(double a, double b)
{
    return fabs(b) < 1e-10 ? 0.0 : a / b;
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
