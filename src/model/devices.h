/* devices.h - the model's devices with the capabilities their input states (DESIGN.md §2):
 * an id, a kind, a name and, in input order, each capability as the input gives it (an
 * integer, a number, a string or a boolean). Nothing is derived or defaulted: a device
 * whose input says nothing of its memory has no memory capability. Filled through the event
 * interface (model/events.h: pq_events.device) by the trace JSON reader (Kineto's
 * deviceProperties) and by the Tenstorrent reader (its chip). Not here: peak tables that
 * analyses look up by device name (analysis/ops_peaks.c). */
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
    int64_t id;       /* the input's device id (Kineto: the pid of its streams) */
    const char *kind; /* "GPU", "accelerator", "Tenstorrent" */
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
static inline const model_device_cap *devices_caps(const model_devices *d, const model_device *v)
{
    return &d->caps.v[v->first_cap];
}

#endif
