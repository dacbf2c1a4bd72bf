/* ops_stats.c - small helpers of op extraction, shared by ops_tpu.c, ops_gpu.c and
 * ops_cpu.c; no merging and no figures here. The stat ids, the stats of one event or
 * metadata entry, and a GPU kernel's or XLA:CPU thunk's XLA stats are the reader's
 * (formats/xplane_opstats.c, formats/xplane_xla.c). */
#include "analysis/ops_internal.h"

#include <math.h>
#include <string.h>

double ops_safe_div(double a, double b)
{
    return fabs(b) < 1e-10 ? 0.0 : a / b;
}

/* "(N)" at the end of a module name, as XProf falls back to (the reader's rule). */
int ops_parse_paren_id(pq_str s, uint64_t *out)
{
    return xp_paren_id(s, out);
}

int ops_str_same(pq_str a, pq_str b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}
