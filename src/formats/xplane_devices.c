/* xplane_devices.c - the devices of an XSpace (model/devices.h), filled at load from its
 * planes: every device plane (/device:TPU:N and its SparseCores, /device:GPU:N,
 * /device:CUSTOM:...), the /host:CPU plane (the host's threads: the CPU as XProf represents
 * it), and any other plane that states a capability. A device's capabilities are the plane
 * stats XProf reads for device capabilities (spec/xprof-tools.md 1.3), exactly as stated, in
 * the order below; the first stat of a name wins, a reference stat is its referenced name,
 * and a stat without a value or with bytes states no capability. Nothing derived.
 *
 * Reads only plane stats (decoded with the plane): no event, no HloProto. Not here: reading
 * the planes (xplane.c), showing the devices (render/info*.c). */
#include "xplane.h"

#include <string.h>

/* The capability stats, in the order XProf's device capabilities (and profq info) list them. */
static const char *const CAPABILITY_STATS[] = {
    "device_vendor",
    "gpu_device_name",
    "device_type_string",
    "peak_teraflops_per_second",
    "peak_hbm_bw_gigabytes_per_second",
    "memory_bandwidth",
    "memory_size",
    "clock_rate",
    "core_count",
    "compute_cap_major",
    "compute_cap_minor",
    "has_megacore",
    "has_merged_vmem",
    "peak_cmem_rd_bw_gigabytes_per_second",
    "peak_cmem_wr_bw_gigabytes_per_second",
    "peak_vmem_rd_bw_gigabytes_per_second",
    "peak_vmem_wr_bw_gigabytes_per_second",
    "peak_sram_rd_bw_gigabytes_per_second",
    "peak_sram_wr_bw_gigabytes_per_second",
};
enum { NCAP = sizeof CAPABILITY_STATS / sizeof CAPABILITY_STATS[0] };

/* The device kind of a plane of kind K, or NULL when such a plane is a device only if it
 * states a capability. */
static const char *device_kind_of(device_kind k)
{
    switch (k) {
    case DEV_TPU:
        return "TPU";
    case DEV_TPU_SPARSECORE:
        return "TPU SparseCore";
    case DEV_GPU:
        return "GPU";
    case DEV_CUSTOM:
        return "accelerator";
    case DEV_HOST_THREADS:
        return "CPU";
    default:
        return NULL;
    }
}

/* The capability stat S of PL as a device value; 0 when it states none (no value, bytes). */
static int cap_value(const xp_plane *pl, const stat_value *s, pq_device_value *v)
{
    memset(v, 0, sizeof *v);
    switch (s->kind) {
    case STAT_DOUBLE:
        v->kind = PQ_DEV_NUM, v->d = s->v.d;
        return 1;
    case STAT_UINT64:
        v->kind = PQ_DEV_UINT, v->u = s->v.u;
        return 1;
    case STAT_INT64:
        v->kind = PQ_DEV_INT, v->i = s->v.i;
        return 1;
    case STAT_STR:
    case STAT_REF:
        v->kind = PQ_DEV_STR, v->s = xp_stat_str(pl, s);
        return 1;
    default:
        return 0;
    }
}

/* The capabilities PL states into CAPS (room for NCAP), in CAPABILITY_STATS order. */
static size_t plane_caps(const xp_plane *pl, pq_device_cap_in caps[NCAP])
{
    const stat_value *found[NCAP] = {0};
    int any = 0;
    for (uint32_t i = 0; i < pl->nstats; i++) {
        pq_str name = xp_stat_name(pl, &pl->stats[i]);
        for (int c = 0; c < NCAP; c++)
            if (!found[c] && pq_str_eq(name, CAPABILITY_STATS[c])) {
                found[c] = &pl->stats[i];
                any = 1;
                break;
            }
    }
    size_t n = 0;
    for (int c = 0; any && c < NCAP; c++)
        if (found[c] && cap_value(pl, found[c], &caps[n].v)) {
            caps[n].key = pq_str_of(CAPABILITY_STATS[c], strlen(CAPABILITY_STATS[c]));
            n++;
        }
    return n;
}

int xplane_devices(pq_source *src)
{
    for (uint32_t p = 0; p < src->nplanes; p++) {
        xp_plane *pl = &src->planes[p];
        pq_device_cap_in caps[NCAP];
        size_t ncaps = plane_caps(pl, caps);
        const char *kind = device_kind_of(pl->kind);
        pl->device = -1;
        if (!kind && !ncaps)
            continue;
        pq_device_in in = {pl->id, kind ? kind : "other", pl->name, caps, ncaps};
        pl->device = (int32_t)src->devices.dev.n;
        if (devices_add(&src->devices, &in) != 0)
            return -1;
    }
    return 0;
}
