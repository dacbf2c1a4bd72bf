/* nsysjax_meta.c - the metadata parquets of newer nsys-jax archives (nsysjax_int.h):
 * thread-metadata.parquet (Name, Priority, PID, TID: the XlaLauncher thread names that map
 * ranges to global devices), device-metadata.parquet (one row per GPU, columns named like
 * "('TARGET_INFO_GPU', 'name')" and cuDevice) and system-metadata.parquet (name, nameEnum,
 * value: the host name). Each is optional; one that exists must have the columns read.
 * Not here: how devices are assigned to ranges (nsysjax.c). */
#include "nsysjax_int.h"

#include "core/alloc.h"
#include "core/err.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void nsysjax_meta_free(nsysjax_meta *m)
{
    if (!m)
        return;
    arena_release(&m->a);
    memset(m, 0, sizeof *m);
}

/* A whole number of at most 9 digits at *P (moved past it) followed by END; -1 otherwise. */
static int64_t number(const char **p, const char *limit, char end)
{
    const char *s = *p;
    int64_t v = 0;
    int digits = 0;
    while (s < limit && *s >= '0' && *s <= '9' && digits < 9) {
        v = v * 10 + (*s++ - '0');
        digits++;
    }
    if (!digits || s >= limit || *s != end)
        return -1;
    *p = s + 1;
    return v;
}

static int key(const char **p, const char *limit, const char *k)
{
    size_t l = strlen(k);
    if ((size_t)(limit - *p) < l || memcmp(*p, k, l) != 0)
        return 0;
    *p += l;
    return 1;
}

/* `^XlaLauncher:#global=(\d+),local=(\d+),process=(\d+),(?:partition|slice)=(\d+)#$`. */
static int parse_launcher(pq_str name, nsysjax_launcher *l)
{
    const char *p = name.p, *e = name.p + name.n;
    if (!key(&p, e, "XlaLauncher:#global=") || (l->device = number(&p, e, ',')) < 0 ||
        !key(&p, e, "local=") || (l->local = number(&p, e, ',')) < 0 || !key(&p, e, "process=") ||
        (l->process = number(&p, e, ',')) < 0 ||
        !(key(&p, e, "partition=") || key(&p, e, "slice=")) || (l->slice = number(&p, e, '#')) < 0)
        return 0;
    return p == e;
}

/* Column NAME of F read into *V; REQUIRED: its absence is an error. */
static pq_status column(const parquet_file *f, const char *path, const char *name, int required,
                        parquet_values *v, pq_error *err)
{
    memset(v, 0, sizeof *v);
    long i = parquet_find_column(f, name);
    if (i < 0)
        return required ? err_set(err, PQ_ERR_INPUT, path, -1, "expected a column \"%s\"", name)
                        : PQ_OK;
    FORWARD_IF_ERROR(parquet_read_column(f, (size_t)i, v, err));
    RETURN_ERROR_IF(v->n != (size_t)parquet_num_rows(f), err, PQ_ERR_INPUT, path, -1,
                    "expected %lld values in the column \"%s\"", (long long)parquet_num_rows(f),
                    name);
    return PQ_OK;
}

/* Columns NAMES[0..N) of F into V[0..N) (all zeroed first, so all may be freed). */
static pq_status columns(const parquet_file *f, const char *path, const char *const *names,
                         size_t n, int required, parquet_values *v, pq_error *err)
{
    memset(v, 0, n * sizeof *v);
    for (size_t k = 0; k < n; k++)
        FORWARD_IF_ERROR(column(f, path, names[k], required, &v[k], err));
    return PQ_OK;
}

static int64_t int_value(const parquet_values *v, size_t i)
{
    if (v->valid && !v->valid[i])
        return -1;
    if (v->i64 || v->i32)
        return v->i64 ? v->i64[i] : v->i32[i];
    /* A double stands for a whole number within int64 (NaN and beyond: none). */
    double d = v->f64 ? v->f64[i] : -1;
    return d >= -9.2e18 && d <= 9.2e18 ? (int64_t)d : -1;
}

static pq_status need_kind(const char *path, const char *name, const parquet_values *v, int str,
                           pq_error *err)
{
    if (str ? v->str != NULL : (v->i64 || v->i32))
        return PQ_OK;
    return err_set(err, PQ_ERR_INPUT, path, -1, "expected the column \"%s\" to hold %s", name,
                   str ? "strings (BYTE_ARRAY)" : "integers (INT32 or INT64)");
}

static pq_status read_threads(const parquet_file *f, const char *path, nsysjax_meta *m,
                              pq_error *err)
{
    static const char *const names[] = {"Name", "PID", "TID"};
    parquet_values v[3], name, pid, tid;
    pq_status st = columns(f, path, names, 3, 1, v, err);
    name = v[0], pid = v[1], tid = v[2];
    if (st == PQ_OK)
        st = need_kind(path, "Name", &name, 1, err);
    if (st == PQ_OK)
        st = need_kind(path, "PID", &pid, 0, err);
    if (st == PQ_OK)
        st = need_kind(path, "TID", &tid, 0, err);
    m->has_threads = 1;
    m->nthreads = name.n;
    if (st == PQ_OK) {
        m->launchers = arena_alloc(&m->a, (name.n ? name.n : 1) * sizeof *m->launchers);
        if (!m->launchers)
            st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    for (size_t i = 0; st == PQ_OK && i < name.n; i++) {
        nsysjax_launcher l;
        if ((name.valid && !name.valid[i]) || !parse_launcher(name.str[i], &l))
            continue;
        l.pid = int_value(&pid, i);
        l.tid = int_value(&tid, i);
        m->launchers[m->nlaunchers++] = l;
    }
    parquet_values_free(&name);
    parquet_values_free(&pid);
    parquet_values_free(&tid);
    return st;
}

/* The capability key of device-metadata column NAME: K of "('TARGET_INFO_GPU', 'K')",
 * else NAME itself. */
static pq_str cap_key(const char *name)
{
    static const char pre[] = "('TARGET_INFO_GPU', '";
    size_t n = strlen(name), l = sizeof pre - 1;
    if (n > l + 2 && !memcmp(name, pre, l) && !memcmp(name + n - 2, "')", 2))
        return pq_str_of(name + l, n - l - 2);
    return pq_str_of(name, n);
}

/* Row I of column V as a capability value; 0 when it is null or of a type not kept. */
static int cap_value(const parquet_values *v, size_t i, pq_device_value *out)
{
    memset(out, 0, sizeof *out);
    if (v->valid && !v->valid[i])
        return 0;
    if (v->i64 || v->i32)
        out->kind = PQ_DEV_INT, out->i = v->i64 ? v->i64[i] : v->i32[i];
    else if (v->f64 || v->f32)
        out->kind = PQ_DEV_NUM, out->d = v->f64 ? v->f64[i] : (double)v->f32[i];
    else if (v->b)
        out->kind = PQ_DEV_BOOL, out->i = v->b[i] != 0;
    else if (v->str)
        out->kind = PQ_DEV_STR, out->s = v->str[i];
    else
        return 0;
    return 1;
}

/* Every flat column other than the name and cuDevice, in file order, as the rows' capabilities
 * (strings copied into M's arena). */
static pq_status read_gpu_caps(const parquet_file *f, const char *path, nsysjax_meta *m,
                               pq_error *err)
{
    size_t n = m->ngpus, ncols = parquet_num_columns(f), rows = n ? n : 1;
    /* rows * (ncols + 1) capabilities; both are bounded by the member's size, checked anyway */
    int fits = ncols + 1 <= SIZE_MAX / sizeof *m->gpu_caps / rows;
    m->gpu_caps = fits ? arena_alloc(&m->a, rows * (ncols + 1) * sizeof *m->gpu_caps) : NULL;
    m->gpu_cap_first = arena_alloc(&m->a, (n ? n : 1) * sizeof *m->gpu_cap_first);
    m->gpu_ncaps = arena_alloc(&m->a, (n ? n : 1) * sizeof *m->gpu_ncaps);
    RETURN_ERROR_IF(!m->gpu_caps || !m->gpu_cap_first || !m->gpu_ncaps, err, PQ_ERR_NOMEM, path, -1,
                    "out of memory");
    for (size_t i = 0; i < n; i++)
        m->gpu_cap_first[i] = i * ncols, m->gpu_ncaps[i] = 0;
    for (size_t c = 0; c < ncols; c++) {
        const parquet_column_info *ci = parquet_column(f, c);
        if (!ci->flat || !strcmp(ci->name, "cuDevice") ||
            !strcmp(ci->name, "('TARGET_INFO_GPU', 'name')"))
            continue;
        parquet_values v;
        pq_status st = parquet_read_column(f, c, &v, err);
        if (st == PQ_OK && v.n != n)
            st = err_set(err, PQ_ERR_INPUT, path, -1, "expected %zu values in the column \"%s\"", n,
                         ci->name);
        pq_str k = cap_key(ci->name);
        char *key = st == PQ_OK ? arena_strndup(&m->a, k.p, k.n) : NULL;
        if (st == PQ_OK && !key)
            st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
        for (size_t i = 0; st == PQ_OK && i < n; i++) {
            pq_device_cap_in *d = &m->gpu_caps[m->gpu_cap_first[i] + m->gpu_ncaps[i]];
            if (!cap_value(&v, i, &d->v))
                continue;
            if (d->v.kind == PQ_DEV_STR) {
                char *s = arena_strndup(&m->a, d->v.s.p, d->v.s.n);
                if (!s) {
                    st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
                    break;
                }
                d->v.s = pq_str_of(s, d->v.s.n);
            }
            d->key = pq_str_of(key, k.n);
            m->gpu_ncaps[i]++;
        }
        parquet_values_free(&v);
        FORWARD_IF_ERROR(st);
    }
    return PQ_OK;
}

static pq_status read_devices(const parquet_file *f, const char *path, nsysjax_meta *m,
                              pq_error *err)
{
    static const char *const names[] = {"('TARGET_INFO_GPU', 'name')", "cuDevice"};
    parquet_values v[2], name, dev;
    pq_status st = columns(f, path, names, 2, 0, v, err);
    name = v[0], dev = v[1];
    size_t n = (size_t)parquet_num_rows(f);
    m->ngpus = n;
    m->gpu_name = arena_alloc(&m->a, (n ? n : 1) * sizeof *m->gpu_name);
    m->gpu_cudevice = arena_alloc(&m->a, (n ? n : 1) * sizeof *m->gpu_cudevice);
    if (st == PQ_OK && (!m->gpu_name || !m->gpu_cudevice))
        st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    for (size_t i = 0; st == PQ_OK && i < n; i++) {
        int named = name.str && (!name.valid || name.valid[i]);
        char *s = named ? arena_strndup(&m->a, name.str[i].p, name.str[i].n) : NULL;
        m->gpu_name[i] = named ? pq_str_of(s ? s : "", s ? name.str[i].n : 0) : pq_str_of("", 0);
        m->gpu_cudevice[i] = dev.n ? int_value(&dev, i) : (int64_t)i;
    }
    parquet_values_free(&name);
    parquet_values_free(&dev);
    if (st == PQ_OK)
        st = read_gpu_caps(f, path, m, err);
    return st;
}

static pq_status read_system(const parquet_file *f, const char *path, nsysjax_meta *m,
                             pq_error *err)
{
    static const char *const names[] = {"name", "value"};
    parquet_values v[2], name, value;
    pq_status st = columns(f, path, names, 2, 0, v, err);
    name = v[0], value = v[1];
    for (size_t i = 0; st == PQ_OK && name.str && value.str && i < name.n; i++) {
        pq_str k = name.str[i], val = value.str[i];
        if (k.n == 8 && strncasecmp(k.p, "hostname", 8) == 0 && val.n &&
            (!value.valid || value.valid[i])) {
            char *s = arena_strndup(&m->a, val.p, val.n);
            if (!s)
                st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
            else
                m->hostname = pq_str_of(s, val.n);
            break;
        }
    }
    parquet_values_free(&name);
    parquet_values_free(&value);
    return st;
}

long nsysjax_member(const pqzip *z, const char *base, const char *slug, char *name, size_t cap)
{
    if (slug && snprintf(name, cap, "%s/%s", base, slug) < (int)cap) {
        long i = pqzip_find(z, name);
        if (i >= 0)
            return i;
    }
    snprintf(name, cap, "%s", base);
    long i = pqzip_find(z, base);
    /* A directory member (a zip's "name/" entry) is no file to read. */
    return i >= 0 && pqzip_member_at(z, (size_t)i)->name[strlen(base)] != '/' ? i : -1;
}

pq_status nsysjax_meta_read(pqzip *z, const char *archive, const char *slug, nsysjax_meta *m,
                            pq_error *err)
{
    memset(m, 0, sizeof *m);
    arena_init(&m->a);
    static const char *const members[3] = {"thread-metadata.parquet", "device-metadata.parquet",
                                           "system-metadata.parquet"};
    for (int k = 0; k < 3; k++) {
        char name[512];
        long i = nsysjax_member(z, members[k], slug, name, sizeof name);
        if (i < 0)
            continue;
        mapped_file mf = {0};
        FORWARD_IF_ERROR(pqzip_read(z, (size_t)i, &mf, err));
        char path[1024];
        snprintf(path, sizeof path, "%s:%s", archive, name);
        parquet_file *f = NULL;
        pq_status st = parquet_open(mf.data, mf.size, path, &f, err);
        if (st == PQ_OK)
            st = k == 0   ? read_threads(f, path, m, err)
                 : k == 1 ? read_devices(f, path, m, err)
                          : read_system(f, path, m, err);
        parquet_close(f);
        mapfile_close(&mf);
        FORWARD_IF_ERROR(st);
    }
    return PQ_OK;
}

const nsysjax_launcher *nsysjax_meta_launcher(const nsysjax_meta *m, int64_t pid, int64_t tid)
{
    for (size_t i = 0; i < m->nlaunchers; i++)
        if (m->launchers[i].pid == pid && m->launchers[i].tid == tid)
            return &m->launchers[i];
    return NULL;
}

pq_str nsysjax_meta_gpu(const nsysjax_meta *m, int64_t local)
{
    for (size_t i = 0; i < m->ngpus; i++)
        if (m->gpu_cudevice[i] == local)
            return m->gpu_name[i];
    return pq_str_of("", 0);
}

int nsysjax_meta_give_gpu(const nsysjax_meta *m, int64_t id, int64_t local, const pq_events *ev)
{
    for (size_t i = 0; ev->device && i < m->ngpus; i++)
        if (m->gpu_cudevice[i] == local) {
            pq_device_in in = {id, "GPU", m->gpu_name[i],
                               m->gpu_caps ? &m->gpu_caps[m->gpu_cap_first[i]] : NULL,
                               m->gpu_caps ? m->gpu_ncaps[i] : 0};
            return ev->device(ev->ctx, &in);
        }
    return 0;
}
