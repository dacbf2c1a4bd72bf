/* nsysjax_cols.c - nvtx_gpu_proj_trace/trace.parquet's column sets read into the one row
 * layout of nsysjax_int.h: the archive-era set (Name, Projected Start, Projected Duration,
 * Orig Start, PID, TID, NumGPUOps, RangeId, ParentId, ...) and the newer sets of the current
 * nsys-jax loader (Text, Start, End, Children Count, Range ID, Parent ID, PID, Range Stack,
 * Stack Level, TID, Rank, and Domain from nsys 2026.1.1 on). Which set a file has is decided
 * as the loader does (the newer sets must match exactly); anything else is PQ_ERR_INPUT
 * naming the column. Not here: what the rows mean (nsysjax.c). */
#include "nsysjax_int.h"

#include "core/alloc.h"
#include "core/err.h"

#include <math.h>
#include <string.h>

static const char *const ERA_NAMES[NCOL] = {
    "Name",    "Projected Start", "Projected Duration", "Orig Start", "PID", "TID", "NumGPUOps",
    "RangeId", "ParentId"};
static const int ERA_TYPES[NCOL] = {PARQUET_BYTE_ARRAY, PARQUET_INT64,  PARQUET_INT64,
                                    PARQUET_DOUBLE,     PARQUET_INT64,  PARQUET_INT64,
                                    PARQUET_INT64,      PARQUET_DOUBLE, PARQUET_DOUBLE};

/* The newer sets' columns (Domain only in the 2026.1.1 set). */
static const char *const NEW_NAMES[] = {"Text",        "Start",     "End",  "Children Count",
                                        "Range ID",    "Parent ID", "PID",  "Range Stack",
                                        "Stack Level", "TID",       "Rank", "Domain"};
enum {
    X_TEXT,
    X_START,
    X_END,
    X_CHILDREN,
    X_RID,
    X_PARENT,
    X_PID,
    X_STACK,
    X_LEVEL,
    X_TID,
    X_RANK,
    X_DOMAIN,
    NNEW
};
#define NEW_LIST                                                                                   \
    "Text, Start, End, Children Count, Range ID, Parent ID, PID, Range Stack, Stack Level, TID, "  \
    "Rank[, Domain]"

void nsysjax_cols_free(nsysjax_cols *c)
{
    if (!c)
        return;
    for (int k = 0; k < NCOL; k++)
        parquet_values_free(&c->col[k]);
    arena_release(&c->names);
    memset(c, 0, sizeof *c);
}

static pq_status read_era(parquet_file *f, const char *path, nsysjax_cols *c, pq_error *err)
{
    long idx[NCOL];
    for (int k = 0; k < NCOL; k++) {
        idx[k] = parquet_find_column(f, ERA_NAMES[k]);
        const parquet_column_info *ci = idx[k] >= 0 ? parquet_column(f, (size_t)idx[k]) : NULL;
        RETURN_ERROR_IF(!ci, err, PQ_ERR_INPUT, path, -1,
                        "expected the column \"%s\" of the archive-era nvtx_gpu_proj_trace "
                        "(Name, Projected Start, Projected Duration, Orig Start, PID, TID, "
                        "NumGPUOps, RangeId, ParentId) or the newer column set (" NEW_LIST ")",
                        ERA_NAMES[k]);
        RETURN_ERROR_IF(ci->physical != ERA_TYPES[k] || !ci->flat, err, PQ_ERR_INPUT, path, -1,
                        "expected the column \"%s\" to be a flat %s column, found %s", ERA_NAMES[k],
                        parquet_type_name(ERA_TYPES[k]), parquet_type_name(ci->physical));
    }
    for (int k = 0; k < NCOL; k++) {
        FORWARD_IF_ERROR(parquet_read_column(f, (size_t)idx[k], &c->col[k], err));
        RETURN_ERROR_IF(c->col[k].n != c->n, err, PQ_ERR_INPUT, path, -1,
                        "expected %zu values in the column \"%s\", found %zu", c->n, ERA_NAMES[k],
                        c->col[k].n);
    }
    c->set = NSYS_COLS_ERA;
    return PQ_OK;
}

/* Which newer column leaf I of F is (X_*), or -1. */
static int new_column(const parquet_column_info *ci)
{
    for (int k = 0; k < NNEW; k++) {
        size_t l = strlen(NEW_NAMES[k]);
        if (strcmp(ci->name, NEW_NAMES[k]) == 0 ||
            (k == X_STACK && strncmp(ci->name, NEW_NAMES[k], l) == 0 && ci->name[l] == '.'))
            return k;
    }
    return -1;
}

/* Value I of V as an integer: 1, 0 when null, -1 when not integral. */
static int int_at(const parquet_values *v, size_t i, int64_t *out)
{
    *out = 0;
    if (v->valid && !v->valid[i])
        return 0;
    if (v->i64)
        *out = v->i64[i];
    else if (v->i32)
        *out = v->i32[i];
    else if (v->f64 && v->f64[i] == floor(v->f64[i]) && fabs(v->f64[i]) < 9.2e18)
        *out = (int64_t)v->f64[i];
    else
        return -1;
    return 1;
}

/* Allocates C->col[K] as N values of PHYSICAL (INT64 or DOUBLE) with a validity array. */
static int alloc_col(nsysjax_cols *c, int k, int physical)
{
    parquet_values *v = &c->col[k];
    size_t n = c->n ? c->n : 1;
    v->n = c->n;
    v->physical = physical;
    if (physical == PARQUET_INT64)
        v->i64 = pq_calloc(n, sizeof *v->i64);
    else
        v->f64 = pq_calloc(n, sizeof *v->f64);
    v->valid = pq_calloc(n, 1);
    return (v->i64 || v->f64) && v->valid ? 0 : -1;
}

/* The newer column X (read as RAW) into C->col[K] as INT64 or DOUBLE; START (optional) is
 * subtracted (End - Start = the duration). */
static pq_status convert(nsysjax_cols *c, int k, const parquet_values *raw,
                         const parquet_values *start, const char *what, const char *path,
                         pq_error *err)
{
    int physical = k == C_RID || k == C_PARENT ? PARQUET_DOUBLE : PARQUET_INT64;
    RETURN_ERROR_IF(alloc_col(c, k, physical) != 0, err, PQ_ERR_NOMEM, path, -1, "out of memory");
    parquet_values *v = &c->col[k];
    for (size_t i = 0; i < c->n; i++) {
        int64_t x, s = 0;
        int ok = int_at(raw, i, &x), oks = start ? int_at(start, i, &s) : 1;
        RETURN_ERROR_IF(ok < 0 || oks < 0, err, PQ_ERR_INPUT, path, -1,
                        "expected whole numbers in the column \"%s\", found %.17g in row %zu",
                        ok < 0 ? what : "Start", ok < 0 ? raw->f64[i] : start->f64[i], i);
        v->valid[i] = ok && oks;
        RETURN_ERROR_IF(start && ok && oks && (s > 0 ? x < INT64_MIN + s : x > INT64_MAX + s), err,
                        PQ_ERR_INPUT, path, -1, "expected End - Start to fit 64 bits in row %zu",
                        i);
        x = start ? x - s : x;
        if (physical == PARQUET_INT64)
            v->i64[i] = x;
        else
            v->f64[i] = (double)x;
        v->null_count += !v->valid[i];
    }
    return PQ_OK;
}

/* Name = Domain ":" Text (the DOMAIN set), or Text. */
static pq_status names(nsysjax_cols *c, parquet_values *text, const parquet_values *domain,
                       const char *path, pq_error *err)
{
    if (!domain) {
        c->col[C_NAME] = *text;
        memset(text, 0, sizeof *text);
        return PQ_OK;
    }
    parquet_values *v = &c->col[C_NAME];
    v->n = c->n;
    v->physical = PARQUET_BYTE_ARRAY;
    v->str = pq_calloc(c->n ? c->n : 1, sizeof *v->str);
    v->valid = pq_calloc(c->n ? c->n : 1, 1);
    RETURN_ERROR_IF(!v->str || !v->valid, err, PQ_ERR_NOMEM, path, -1, "out of memory");
    for (size_t i = 0; i < c->n; i++) {
        int tv = !text->valid || text->valid[i], dv = !domain->valid || domain->valid[i];
        v->valid[i] = (uint8_t)tv;
        if (!tv)
            continue;
        pq_str d = dv ? domain->str[i] : pq_str_of("", 0), t = text->str[i];
        char *s = arena_alloc(&c->names, d.n + t.n + 2);
        RETURN_ERROR_IF(!s, err, PQ_ERR_NOMEM, path, -1, "out of memory");
        memcpy(s, d.p, d.n);
        s[d.n] = ':';
        memcpy(s + d.n + 1, t.p, t.n);
        s[d.n + 1 + t.n] = 0;
        v->str[i] = pq_str_of(s, d.n + 1 + t.n);
    }
    return PQ_OK;
}

static pq_status check_newer(parquet_file *f, const char *path, long idx[NNEW], pq_error *err)
{
    for (int k = 0; k < NNEW; k++)
        idx[k] = -1;
    for (size_t i = 0; i < parquet_num_columns(f); i++) {
        const parquet_column_info *ci = parquet_column(f, i);
        int k = new_column(ci);
        RETURN_ERROR_IF(k < 0, err, PQ_ERR_INPUT, path, -1,
                        "expected the newer nvtx_gpu_proj_trace column set (" NEW_LIST
                        "), found the column \"%s\"",
                        ci->name);
        if (k == X_STACK)
            continue; /* a list; not read */
        int want = k == X_TEXT || k == X_DOMAIN ? PARQUET_BYTE_ARRAY : -1;
        int num = ci->physical == PARQUET_INT64 || ci->physical == PARQUET_INT32 ||
                  ci->physical == PARQUET_DOUBLE;
        RETURN_ERROR_IF(!ci->flat || (want >= 0 ? ci->physical != want : !num), err, PQ_ERR_INPUT,
                        path, -1, "expected the column \"%s\" to be a flat %s column, found %s",
                        ci->name, want >= 0 ? "BYTE_ARRAY" : "INT32, INT64 or DOUBLE",
                        ci->flat ? parquet_type_name(ci->physical) : "a nested column");
        idx[k] = (long)i;
    }
    for (int k = 0; k < NNEW; k++) {
        if (k == X_STACK || k == X_DOMAIN)
            continue;
        RETURN_ERROR_IF(idx[k] < 0, err, PQ_ERR_INPUT, path, -1,
                        "expected the column \"%s\" of the newer nvtx_gpu_proj_trace column "
                        "set (" NEW_LIST ")",
                        NEW_NAMES[k]);
    }
    return PQ_OK;
}

static pq_status read_newer(parquet_file *f, const char *path, nsysjax_cols *c, pq_error *err)
{
    long idx[NNEW];
    FORWARD_IF_ERROR(check_newer(f, path, idx, err));
    /* Read: Text, Start, End, Range ID, Parent ID, PID, TID, Domain. */
    static const int read[] = {X_TEXT, X_START, X_END, X_RID, X_PARENT, X_PID, X_TID, X_DOMAIN};
    parquet_values raw[NNEW];
    memset(raw, 0, sizeof raw);
    pq_status st = PQ_OK;
    for (size_t r = 0; r < sizeof read / sizeof *read && st == PQ_OK; r++) {
        int k = read[r];
        if (idx[k] < 0)
            continue;
        st = parquet_read_column(f, (size_t)idx[k], &raw[k], err);
        if (st == PQ_OK && raw[k].n != c->n)
            st = err_set(err, PQ_ERR_INPUT, path, -1,
                         "expected %zu values in the column \"%s\", found %zu", c->n, NEW_NAMES[k],
                         raw[k].n);
    }
    if (st == PQ_OK)
        st = names(c, &raw[X_TEXT], idx[X_DOMAIN] >= 0 ? &raw[X_DOMAIN] : NULL, path, err);
    if (st == PQ_OK)
        st = convert(c, C_PSTART, &raw[X_START], NULL, "Start", path, err);
    if (st == PQ_OK)
        st = convert(c, C_PDUR, &raw[X_END], &raw[X_START], "End", path, err);
    if (st == PQ_OK)
        st = convert(c, C_RID, &raw[X_RID], NULL, "Range ID", path, err);
    if (st == PQ_OK)
        st = convert(c, C_PARENT, &raw[X_PARENT], NULL, "Parent ID", path, err);
    if (st == PQ_OK)
        st = convert(c, C_PID, &raw[X_PID], NULL, "PID", path, err);
    if (st == PQ_OK)
        st = convert(c, C_TID, &raw[X_TID], NULL, "TID", path, err);
    for (int k = 0; k < NNEW; k++)
        parquet_values_free(&raw[k]);
    c->set = idx[X_DOMAIN] >= 0 ? NSYS_COLS_DOMAIN : NSYS_COLS_TEXT;
    return st;
}

pq_status nsysjax_cols_read(const uint8_t *data, size_t n, const char *path, nsysjax_cols *out,
                            pq_error *err)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->names);
    parquet_file *f = NULL;
    FORWARD_IF_ERROR(parquet_open(data, n, path, &f, err));
    out->n = (size_t)parquet_num_rows(f);
    pq_status st;
    if (parquet_find_column(f, "Text") >= 0 && parquet_find_column(f, "Name") < 0)
        st = read_newer(f, path, out, err);
    else
        st = read_era(f, path, out, err);
    parquet_close(f);
    return st;
}
