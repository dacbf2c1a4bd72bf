/* summary_ops.c - the history digest of track records (the seed's tracking.py, spec/seed-tools.md
 * 1.22) and the metadata publish attaches to a summary (1.25), over JSON trees: history
 * records are JSONL lines as written. Query, compare and track work on result structs
 * (summary_query.c, summary_compare.c). */
#define _GNU_SOURCE
#include "summary_ops.h"

#include "core/alloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const jval *at(const jval *v, const char *a, const char *b)
{
    const jval *x = jv_get(v, a);
    return b ? jv_get(x, b) : x;
}

static const jval *arr(const jval *v, const char *key)
{
    const jval *a = jv_get(v, key);
    return a && a->t == JV_ARR ? a : NULL;
}

/* ---------------------------------------------------------------------------------------
 * history (1.22): the digest of track records. */

static jval *copy_or_null(const jval *v)
{
    return v ? jv_copy(v) : jv_null();
}

typedef struct msgc {
    const char *msg;
    size_t count, first;
} msgc;

static int cmp_msgc(const void *a, const void *b)
{
    const msgc *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static jval *top_messages(jval *const *recs, size_t n, const char *key)
{
    size_t cap = 64, nm = 0;
    msgc *m = pq_calloc(cap, sizeof *m);
    size_t seq = 0;
    for (size_t i = 0; i < n && m; i++) {
        const jval *list = jv_get(jv_get(recs[i], "assessment"), key);
        for (size_t j = 0; list && list->t == JV_ARR && j < list->n; j++) {
            const char *s = jv_string(list->items[j]);
            if (!s)
                continue;
            size_t k = 0;
            for (; k < nm; k++)
                if (strcmp(m[k].msg, s) == 0)
                    break;
            if (k == nm) {
                if (nm == cap) {
                    msgc *nmm = pq_realloc_array(m, cap * 2, sizeof *m);
                    if (!nmm)
                        continue;
                    m = nmm;
                    cap *= 2;
                }
                m[nm].msg = s;
                m[nm].count = 0;
                m[nm].first = seq++;
                nm++;
            }
            m[k].count++;
        }
    }
    jval *out = jv_arr();
    if (m) {
        qsort(m, nm, sizeof *m, cmp_msgc);
        for (size_t k = 0; k < nm && k < 10; k++) {
            jval *o = jv_obj();
            jv_set(o, "message", jv_cstr(m[k].msg));
            jv_set(o, "count", jv_int((int64_t)m[k].count));
            jv_push(out, o);
        }
    }
    pq_free(m);
    return out;
}

jval *summary_history(const char *path, jval *const *recs, size_t n, int tail)
{
    jval *r = jv_obj();
    jv_set(r, "history_path", jv_cstr(path));
    jv_set(r, "num_records", jv_int((int64_t)n));
    jval *sc = jv_obj();
    for (size_t i = 0; i < n; i++) {
        const char *st = jv_string(jv_get(jv_get(recs[i], "assessment"), "status"));
        if (!st)
            st = "unknown";
        const jval *cur = jv_get(sc, st);
        jv_set(sc, st, jv_int(cur ? cur->i + 1 : 1));
    }
    jv_set(r, "status_counts", sc);
    jv_set(r, "top_failures", top_messages(recs, n, "failures"));
    jv_set(r, "top_warnings", top_messages(recs, n, "warnings"));
    jv_set(r, "latest_record", n ? jv_copy(recs[n - 1]) : jv_null());
    jval *recent = jv_arr();
    size_t from = tail <= 0 ? n : (n > (size_t)tail ? n - (size_t)tail : 0);
    for (size_t i = from; i < n; i++)
        jv_push(recent, jv_copy(recs[i]));
    jv_set(r, "recent_records", recent);
    return r;
}

/* ---------------------------------------------------------------------------------------
 * publish (1.25): the artifact metadata the seed attaches. */

jval *summary_publish_metadata(const jval *s)
{
    jval *m = jv_obj();
    jv_set(m, "schema_version", copy_or_null(jv_get(s, "schema_version")));
    jv_set(m, "source_format", copy_or_null(jv_get(s, "source_format")));
    jv_set(m, "source_path", copy_or_null(jv_get(s, "source_path")));
    static const char *const rm[] = {"run_path",         "run_id",  "hardware_type",
                                     "mesh_or_topology", "git_sha", "config_hash"};
    for (size_t k = 0; k < sizeof rm / sizeof *rm; k++)
        jv_set(m, rm[k], copy_or_null(at(s, "run_metadata", rm[k])));
    jv_set(m, "source_artifact_ref", copy_or_null(at(s, "run_metadata", "artifact_ref")));
    jv_set(m, "step_median",
           copy_or_null(at(s, "step_time", "steady_state_steps")
                            ? jv_get(at(s, "step_time", "steady_state_steps"), "median")
                            : NULL));
    jv_set(m, "step_p90",
           copy_or_null(at(s, "step_time", "steady_state_steps")
                            ? jv_get(at(s, "step_time", "steady_state_steps"), "p90")
                            : NULL));
    static const char *const cats[] = {"compute", "communication", "host", "stall"};
    for (int k = 0; k < 4; k++) {
        char key[64];
        snprintf(key, sizeof key, "%s_share", cats[k]);
        jv_set(m, key, copy_or_null(jv_get(at(s, "time_breakdown", cats[k]), "share_of_total")));
    }
    const jval *gaps = arr(s, "gap_before_ops");
    jv_set(m, "top_pre_gap_op",
           copy_or_null(gaps && gaps->n ? jv_get(gaps->items[0], "name") : NULL));
    jv_set(m, "top_pre_gap_total",
           copy_or_null(gaps && gaps->n ? jv_get(gaps->items[0], "total_gap_duration") : NULL));
    const jval *r = arr(s, "hierarchical_regions"), *g = arr(s, "gap_region_contexts");
    jv_set(m, "num_hierarchical_regions", jv_int(r ? (int64_t)r->n : 0));
    jv_set(m, "num_gap_region_contexts", jv_int(g ? (int64_t)g->n : 0));
    jv_set(m, "generated_at_utc", copy_or_null(jv_get(s, "generated_at_utc")));
    return m;
}
