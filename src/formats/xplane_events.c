/* xplane_events.c - a loaded XSpace's events fed to the model's event interface; see
 * xplane_events.h. */
#include "xplane_events.h"

#include "xplane_walk.h"

#include <stdio.h>
#include <string.h>

typedef struct xargs {
    pq_str tf_op, source, long_name, run_id, name_stat;
    char run_buf[32];
    int has_step, xla_op;
    int64_t step;
} xargs;

static int name_is(pq_str n, const char *lit)
{
    return pq_str_eq(n, lit);
}

static void take_stat(const xp_plane *pl, const stat_value *s, xargs *a)
{
    pq_str nm = xp_stat_name(pl, s);
    int is_str = s->kind == STAT_STR || s->kind == STAT_REF;
    if (name_is(nm, "tf_op") && is_str) {
        a->tf_op = xp_stat_str(pl, s);
    } else if ((name_is(nm, "source") || name_is(nm, "source_file") || name_is(nm, "file_name")) &&
               is_str) {
        a->source = xp_stat_str(pl, s);
    } else if (name_is(nm, "long_name") && is_str) {
        a->long_name = xp_stat_str(pl, s);
    } else if (name_is(nm, "hlo_op") && is_str) {
        a->xla_op = xp_stat_str(pl, s).n > 0;
    } else if (name_is(nm, "name") && is_str) {
        a->name_stat = xp_stat_str(pl, s);
    } else if (name_is(nm, "run_id")) {
        if (is_str) {
            a->run_id = xp_stat_str(pl, s);
        } else if (s->kind == STAT_INT64 || s->kind == STAT_UINT64) {
            int n =
                s->kind == STAT_INT64
                    ? snprintf(a->run_buf, sizeof a->run_buf, "%lld", (long long)s->v.i)
                    : snprintf(a->run_buf, sizeof a->run_buf, "%llu", (unsigned long long)s->v.u);
            a->run_id = pq_str_of(a->run_buf, (size_t)n);
        }
    } else if (name_is(nm, "step_num") || name_is(nm, "step")) {
        if (s->kind == STAT_INT64) {
            a->has_step = 1;
            a->step = s->v.i;
        } else if (s->kind == STAT_UINT64) {
            a->has_step = 1;
            a->step = (int64_t)s->v.u;
        }
    }
}

int xplane_events_feed(const pq_profile *prof, const pq_events *out, uint64_t *nevents)
{
    int64_t pid = 0;
    *nevents = 0;
    for (size_t si = 0; si < prof->nsources; si++) {
        const pq_source *src = &prof->sources[si];
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            pid++;
            char fallback[32];
            pq_str pname = pl->name;
            if (!pname.n) {
                int n = snprintf(fallback, sizeof fallback, "xplane:%u", pi);
                pname = pq_str_of(fallback, (size_t)n);
            }
            if (out->process_name(out->ctx, pid, pname) != 0)
                return -1;
            for (uint32_t li = 0; li < pl->nlines; li++) {
                const xp_line *ln = &pl->lines[li];
                int64_t tid = ln->id ? ln->id : (int64_t)li + 1;
                pq_str tname = ln->display_name.n ? ln->display_name : ln->name;
                char tfb[32];
                if (!tname.n) {
                    int n = snprintf(tfb, sizeof tfb, "xline:%u", li);
                    tname = pq_str_of(tfb, (size_t)n);
                }
                if (out->thread_name(out->ctx, pid, tid, tname) != 0)
                    return -1;
                xp_event_iter it;
                xp_event ev;
                xp_events_begin(ln, &it);
                while (xp_events_next(&it, &ev)) {
                    (*nevents)++;
                    if (ev.duration_ps <= 0 || ev.num_occurrences)
                        continue;
                    const xp_event_meta *m = xp_event_meta_find(pl, ev.metadata_id);
                    pq_str name =
                        m ? (m->display_name.n ? m->display_name : m->name) : pq_str_of("", 0);
                    if (!name.n)
                        continue;
                    xargs a;
                    memset(&a, 0, sizeof a);
                    xp_stat_iter si2;
                    stat_value sv;
                    if (m && m->body) {
                        xp_stats_begin(&si2, m->body, m->body_len, 5);
                        while (xp_stats_next(&si2, &sv))
                            take_stat(pl, &sv, &a);
                    }
                    xp_stats_begin(&si2, ev.stats, ev.body_len, 4);
                    while (xp_stats_next(&si2, &sv))
                        take_stat(pl, &sv, &a);
                    if (pq_str_eq(a.tf_op, "XlaModule") && a.name_stat.n)
                        a.tf_op = a.name_stat;
                    if (!a.long_name.n && m && m->display_name.n && m->name.n &&
                        !(m->name.n == m->display_name.n &&
                          memcmp(m->name.p, m->display_name.p, m->name.n) == 0))
                        a.long_name = m->name;
                    int64_t ps = ln->timestamp_ns * 1000 + ev.offset_ps;
                    pq_slice_in se;
                    memset(&se, 0, sizeof se);
                    se.pid = pid;
                    se.tid = tid;
                    se.name = name;
                    se.ts_us = ps / 1000000;
                    se.ts_frac_ps = ps % 1000000;
                    if (se.ts_frac_ps < 0) {
                        se.ts_frac_ps += 1000000;
                        se.ts_us--;
                    }
                    se.dur_ps = ev.duration_ps;
                    se.tf_op = a.tf_op;
                    se.source = a.source;
                    se.long_name = a.long_name;
                    se.run_id = a.run_id;
                    se.has_step_num = a.has_step;
                    se.step_num = a.step;
                    se.xla_op = a.xla_op;
                    if (out->slice(out->ctx, &se) != 0)
                        return -1;
                }
            }
        }
    }
    return 0;
}
