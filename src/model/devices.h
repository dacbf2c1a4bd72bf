/* devices.h - the model's devices with the capabilities their input states (DESIGN.md §2):
 * an id, a kind, a name and, in the reader's order, each capability as the input gives it
 * (an integer, an unsigned integer, a number, a string or a boolean). Nothing is derived or
 * defaulted: a device whose input says nothing of its memory has no memory capability. Every
 * source holds its devices (pq_source.devices), whatever its format:
 * - XSpace: one per device plane (/device:TPU:N, its SparseCores, /device:GPU:N,
 *   /device:CUSTOM:..), the /host:CPU plane, and any other plane that states a capability;
 *   the capabilities are the plane stats XProf reads, in XProf's order
 *   (formats/xplane_devices.c); each xp_plane links to its device (xp_plane.device);
 * - trace JSON: Kineto's deviceProperties, in input order (formats/trace_events.c);
 * - Nsight SQLite export: the GPUs of TARGET_INFO_GPU and those only activity names
 *   (formats/nsys_sqlite.c; their activity counts stay in model_nsys_export.gpus);
 * - nsys-jax archive (newer layout): each global device of the XlaLauncher threads once, with
 *   the device-metadata.parquet row of its local device: its name and every other column
 *   ("('TARGET_INFO_GPU', 'K')" gives the key K; nulls left out) (formats/nsysjax_meta.c);
 * - Tenstorrent runtime log: the device whose memory the log states (bank counts and sizes
 *   per buffer type, formats/ttlog_end.c).
 * Readers with an event interface give them through pq_events.device (model/events.h); the
 * XSpace reader adds them as it reads its planes. Not here: peak tables that analyses look
 * up by device name (analysis/ops_peaks.c). */
#ifndef PQ_MODEL_DEVICES_H
#define PQ_MODEL_DEVICES_H
#include "core/arena.h"
#include "core/vec.h"
#include "model/events.h"

#include <stddef.h>
#include <stdint.h>

typedef struct model_device_cap {
    const char *key; /* as stated, NUL-terminated */
    pq_device_value v;
} model_device_cap;

typedef struct model_device {
    int64_t id;       /* the input's device id (Kineto: the pid of its streams; XSpace: the
                       * plane id; Nsight: the deviceId of its kernels; Tenstorrent: 0) */
    const char *kind; /* "GPU", "TPU", "TPU SparseCore", "CPU", "accelerator", "Tenstorrent",
                       * "other" */
    const char *name; /* "" when the input names none */
    size_t first_cap, ncaps;
} model_device;

PQ_VEC_DEFINE(model_device_vec, model_device)
PQ_VEC_DEFINE(model_device_cap_vec, model_device_cap)

typedef struct model_devices {
    model_device_vec dev;
    model_device_cap_vec caps;
    arena mem; /* the strings */
    int failed;
} model_devices;

void devices_init(model_devices *d);
void devices_free(model_devices *d);
/* Stores D (strings copied). 0, or -1 when memory ran out (sticky). */
int devices_add(model_devices *d, const pq_device_in *in);
/* Moves FROM's devices into TO when TO holds none (FROM is left empty). 0, or -1 when TO
 * already holds devices or FROM ran out of memory. */
int devices_take(model_devices *to, model_devices *from);
/* An event interface that keeps only devices, into D (the other callbacks are NULL: for
 * readers that give nothing else, such as the Tenstorrent log's device). */
pq_events devices_events(model_devices *d);
/* The first device with that id, or NULL. */
const model_device *devices_find(const model_devices *d, int64_t id);
/* The capability KEY of device V (NULL: none), or NULL when V states none. */
const model_device_cap *devices_cap(const model_devices *d, const model_device *v, const char *key);
/* The capability KEY of V as a number (integers converted), 0 when V states none or a string. */
double devices_cap_num(const model_devices *d, const model_device *v, const char *key);
/* The capability KEY of V as a string, "" when V states none or a number. */
pq_str devices_cap_str(const model_devices *d, const model_device *v, const char *key);
static inline const model_device_cap *devices_caps(const model_devices *d, const model_device *v)
{
    return d->caps.v ? &d->caps.v[v->first_cap] : NULL; /* NULL: no device states any */
}

#endif
