/* model.c - lookups and walks over the loaded model (no decoding of new input here:
 * every span walked below was validated by the reader at load). */
#include "model.h"
#include "formats/xplane_walk.h"

#include <string.h>

int pq_str_eq(pq_str a, const char *lit)
{
    size_t n = strlen(lit);
    return a.n == n && (n == 0 || memcmp(a.p, lit, n) == 0);
}

int pq_str_starts(pq_str a, const char *lit)
{
    size_t n = strlen(lit);
    return a.n >= n && memcmp(a.p, lit, n) == 0;
}

const char *device_kind_name(device_kind k)
{
    switch (k) {
    case DEV_TPU:
        return "tpu";
    case DEV_TPU_SPARSECORE:
        return "tpu_sparsecore";
    case DEV_TPU_NONCORE:
        return "tpu_noncore";
    case DEV_GPU:
        return "gpu";
    case DEV_CUSTOM:
        return "custom";
    case DEV_HOST_THREADS:
        return "host_threads";
    case DEV_HOST_METADATA:
        return "host_metadata";
    case DEV_HOST_OTHER:
        return "host_other";
    case DEV_OTHER:
        break;
    }
    return "other";
}

static int all_digits(const char *p, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    return 1;
}

/* Plane names per spec/xprof-tools.md 1.1. */
device_kind device_kind_of_plane(pq_str name)
{
    if (pq_str_starts(name, "/device:TPU:")) {
        const char *rest = name.p + 12;
        size_t n = name.n - 12;
        if (all_digits(rest, n))
            return DEV_TPU;
        for (size_t i = 0; i + 11 <= n; i++)
            if (memcmp(rest + i, " SparseCore", 11) == 0)
                return DEV_TPU_SPARSECORE;
        return DEV_OTHER;
    }
    if (pq_str_starts(name, "/device:GPU:"))
        return DEV_GPU;
    if (pq_str_starts(name, "/device:CUSTOM:"))
        return DEV_CUSTOM;
    if (pq_str_starts(name, "#Chip"))
        return DEV_TPU_NONCORE;
    if (pq_str_eq(name, "/host:CPU"))
        return DEV_HOST_THREADS;
    if (pq_str_eq(name, "/host:metadata"))
        return DEV_HOST_METADATA;
    if (pq_str_starts(name, "/host:"))
        return DEV_HOST_OTHER;
    return DEV_OTHER;
}

const xp_stat_meta *xp_stat_meta_by_name(const xp_plane *pl, const char *name)
{
    for (uint32_t i = 0; i < pl->nsmeta; i++)
        if (pq_str_eq(pl->smeta[i].name, name))
            return &pl->smeta[i];
    return NULL;
}

pq_str xp_stat_name(const xp_plane *pl, const stat_value *s)
{
    const xp_stat_meta *m = xp_stat_meta_find(pl, s->metadata_id);
    return m ? m->name : pq_str_of("", 0);
}

pq_str xp_stat_str(const xp_plane *pl, const stat_value *s)
{
    if (s->kind == STAT_STR)
        return s->v.s;
    if (s->kind == STAT_REF) {
        const xp_stat_meta *m = xp_stat_meta_find(pl, (int64_t)s->v.u);
        if (m)
            return m->name;
    }
    return pq_str_of("", 0);
}
