/* devices.c - the model's devices and their stated capabilities; see devices.h. Not here:
 * reading them from an input (formats/), showing them (render/info*.c). */
#include "devices.h"

#include <string.h>

void devices_init(model_devices *d)
{
    memset(d, 0, sizeof *d);
    arena_init(&d->mem);
}

void devices_free(model_devices *d)
{
    model_device_vec_free(&d->dev);
    model_device_cap_vec_free(&d->caps);
    arena_release(&d->mem);
    memset(d, 0, sizeof *d);
}

/* Bounds on what an input can make grow (an XSpace's planes are bounded by its size). */
enum { MAX_DEVICES = 1 << 22, MAX_DEVICE_CAPS = 1 << 26 };

int devices_add(model_devices *d, const pq_device_in *in)
{
    if (d->failed)
        return -1;
    model_device *v = model_device_vec_add(&d->dev, MAX_DEVICES);
    if (!v)
        return d->failed = -1;
    v->id = in->id;
    v->kind = in->kind;
    v->name = arena_strndup(&d->mem, in->name.p ? in->name.p : "", in->name.n);
    v->first_cap = d->caps.n;
    for (size_t k = 0; k < in->ncaps; k++) {
        model_device_cap *c = model_device_cap_vec_add(&d->caps, MAX_DEVICE_CAPS);
        if (!c)
            return d->failed = -1;
        const pq_device_cap_in *ci = &in->caps[k];
        c->key = arena_strndup(&d->mem, ci->key.p ? ci->key.p : "", ci->key.n);
        c->v = ci->v;
        if (ci->v.kind == PQ_DEV_STR) {
            char *s = arena_strndup(&d->mem, ci->v.s.p ? ci->v.s.p : "", ci->v.s.n);
            c->v.s.p = s;
        }
        v->ncaps++;
    }
    return arena_failed(&d->mem) ? (d->failed = -1) : 0;
}

int devices_take(model_devices *to, model_devices *from)
{
    if (to->dev.n || to->failed || from->failed)
        return -1;
    devices_free(to);
    *to = *from;
    devices_init(from);
    return 0;
}

const model_device *devices_find(const model_devices *d, int64_t id)
{
    for (size_t k = 0; k < d->dev.n; k++)
        if (d->dev.v[k].id == id)
            return &d->dev.v[k];
    return NULL;
}

const model_device_cap *devices_cap(const model_devices *d, const model_device *v, const char *key)
{
    const model_device_cap *c = v ? devices_caps(d, v) : NULL;
    for (size_t k = 0; c && k < v->ncaps; k++)
        if (strcmp(c[k].key, key) == 0)
            return &c[k];
    return NULL;
}

double devices_cap_num(const model_devices *d, const model_device *v, const char *key)
{
    const model_device_cap *c = devices_cap(d, v, key);
    if (!c)
        return 0.0;
    switch (c->v.kind) {
    case PQ_DEV_NUM:
        return c->v.d;
    case PQ_DEV_UINT:
        return (double)c->v.u;
    case PQ_DEV_INT:
    case PQ_DEV_BOOL:
        return (double)c->v.i;
    default:
        return 0.0;
    }
}

pq_str devices_cap_str(const model_devices *d, const model_device *v, const char *key)
{
    const model_device_cap *c = devices_cap(d, v, key);
    return c && c->v.kind == PQ_DEV_STR ? c->v.s : (pq_str){"", 0};
}

static int store_device(void *ctx, const pq_device_in *d)
{
    return devices_add(ctx, d) != 0;
}

pq_events devices_events(model_devices *d)
{
    pq_events ev;
    memset(&ev, 0, sizeof ev);
    ev.device = store_device;
    ev.ctx = d;
    return ev;
}
