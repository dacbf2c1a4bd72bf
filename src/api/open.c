/* open.c - the public entry points that load a profile (pq_profile_open, the in-memory
 * variant) and walk it again in full (pq_profile_scan): paths expanded into sources
 * (io/), sources decoded in parallel threads through the format dispatch (formats/load.c),
 * the first failing source in path order reported. */
#include "core/alloc.h"
#include "core/err.h"
#include "formats/load.h"
#include "formats/xplane_walk.h"
#include "io/discover.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

typedef struct load_job {
    pq_profile *prof;
    const pq_open_options *opts;
    pq_error *errs;    /* one per source */
    pq_status *status; /* one per source */
    atomic_size_t next;
} load_job;

static void *load_worker(void *arg)
{
    load_job *job = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->prof->nsources)
            break;
        err_clear(&job->errs[i]);
        job->status[i] = load_source(&job->prof->sources[i], job->opts, &job->errs[i]);
    }
    return NULL;
}
pq_status pq_profile_open(const char *const *paths, size_t npaths, const pq_open_options *opts,
                          pq_profile **out, pq_error *err)
{
    pq_open_options defaults = {0};
    if (!opts)
        opts = &defaults;
    err_clear(err);
    *out = NULL;
    RETURN_ERROR_IF(npaths == 0, err, PQ_ERR_USAGE, "", -1, "no input path given");

    pq_status st = PQ_OK;
    pathlist all = {0};
    for (size_t i = 0; i < npaths && st == PQ_OK; i++) {
        pathlist one;
        st = discover_profiles(paths[i], &one, err);
        for (size_t k = 0; st == PQ_OK && k < one.n; k++) {
            if (all.n == all.cap) {
                size_t cap = all.cap ? all.cap * 2 : 8;
                char **items = pq_realloc_array(all.items, cap, sizeof *items);
                if (!items) {
                    st = err_set(err, PQ_ERR_NOMEM, paths[i], -1, "out of memory");
                    break;
                }
                all.items = items;
                all.cap = cap;
            }
            all.items[all.n++] = one.items[k];
            one.items[k] = NULL;
        }
        if (st == PQ_OK)
            one.n = 0;
        pathlist_free(&one);
    }
    if (st != PQ_OK) {
        pathlist_free(&all);
        return st;
    }
    dedupe_nsysjax(&all); /* an identical nsys-jax archive given twice is one process */

    pq_profile *prof = pq_calloc(1, sizeof *prof);
    pq_error *errs = pq_calloc(all.n, sizeof *errs);
    pq_status *stat = pq_calloc(all.n, sizeof *stat);
    if (prof)
        prof->sources = pq_calloc(all.n, sizeof *prof->sources);
    if (!prof || !errs || !stat || !prof->sources) {
        pq_free(errs);
        pq_free(stat);
        if (prof)
            pq_free(prof->sources);
        pq_free(prof);
        pathlist_free(&all);
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    }
    prof->nsources = all.n;
    for (size_t i = 0; i < all.n; i++) {
        prof->sources[i].path = all.items[i]; /* ownership moves to the source */
        all.items[i] = NULL;
        arena_init(&prof->sources[i].mem);
    }
    pathlist_free(&all);

    load_job job = {prof, opts, errs, stat, 0};
    /* one source: no worker thread, and no question to the system (it reads a file) */
    long ncpu = opts->threads > 0 || prof->nsources < 2 ? 1 : sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = opts->threads > 0 ? (size_t)opts->threads : (size_t)(ncpu > 0 ? ncpu : 1);
    if (nthreads > prof->nsources)
        nthreads = prof->nsources;
    pthread_t tids[64];
    size_t started = 0;
    if (nthreads > 64)
        nthreads = 64;
    for (size_t t = 1; t < nthreads; t++)
        if (pthread_create(&tids[started], NULL, load_worker, &job) == 0)
            started++;
    load_worker(&job);
    for (size_t t = 0; t < started; t++)
        pthread_join(tids[t], NULL);

    /* Report the first failing source in path order, so errors are deterministic. */
    for (size_t i = 0; i < prof->nsources; i++) {
        if (stat[i] != PQ_OK) {
            st = stat[i];
            if (err)
                *err = errs[i];
            break;
        }
    }
    pq_free(errs);
    pq_free(stat);
    if (st == PQ_OK && opts->scan) {
        pq_scan_totals *t = opts->scan;
        memset(t, 0, sizeof *t);
        for (size_t i = 0; i < prof->nsources; i++) {
            const pq_scan_totals *u = &prof->sources[i].scan;
            t->planes += u->planes;
            t->lines += u->lines;
            t->events += u->events;
            t->event_stats += u->event_stats;
            t->metadata_stats += u->metadata_stats;
            t->plane_stats += u->plane_stats;
            for (int k = 0; k < 7; k++)
                t->stats_by_kind[k] += u->stats_by_kind[k];
            t->bytes += prof->sources[i].file.size;
            t->checksum = (int64_t)((uint64_t)t->checksum + (uint64_t)u->checksum);
        }
    }
    if (st != PQ_OK) {
        pq_profile_free(prof);
        return st;
    }
    *out = prof;
    return PQ_OK;
}

pq_status pq_profile_open_memory(const void *data, size_t n, const char *name,
                                 const pq_open_options *opts, pq_profile **out, pq_error *err)
{
    err_clear(err);
    *out = NULL;
    if (!name)
        name = "<memory>";
    size_t len = strlen(name);
    pq_profile *prof = pq_calloc(1, sizeof *prof);
    pq_source *src = pq_calloc(1, sizeof *src);
    char *path = pq_malloc(len + 1);
    if (!prof || !src || !path) {
        pq_free(prof);
        pq_free(src);
        pq_free(path);
        return err_set(err, PQ_ERR_NOMEM, name, -1, "out of memory");
    }
    memcpy(path, name, len + 1);
    prof->sources = src;
    prof->nsources = 1;
    src->path = path;
    arena_init(&src->mem);
    pq_status st = mapfile_copy(data, n, name, &src->file, err);
    pq_open_options defaults = {0};
    defaults.skip_sha256 = 1;
    if (!opts)
        opts = &defaults;
    if (st == PQ_OK)
        st = load_source(src, opts, err);
    if (st == PQ_OK && opts->scan) {
        *opts->scan = src->scan;
        opts->scan->bytes = n;
    }
    if (st != PQ_OK) {
        pq_profile_free(prof);
        return st;
    }
    *out = prof;
    return PQ_OK;
}
pq_status pq_profile_scan(const pq_profile *profile, pq_scan_totals *out, pq_error *err)
{
    (void)err;
    memset(out, 0, sizeof *out);
    for (size_t si = 0; si < profile->nsources; si++) {
        const pq_source *src = &profile->sources[si];
        out->bytes += src->file.size;
        load_trace_scan(src, out);
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            out->planes++;
            for (uint32_t k = 0; k < pl->nstats; k++) {
                scan_add_stat(pl, &pl->stats[k], out);
                out->plane_stats++;
            }
            for (uint32_t k = 0; k < pl->nemeta; k++) {
                xp_stat_iter it;
                stat_value s = {0};
                xp_stats_begin(&it, pl->emeta[k].body, pl->emeta[k].body_len, 5);
                while (xp_stats_next(&it, &s)) {
                    scan_add_stat(pl, &s, out);
                    out->metadata_stats++;
                }
            }
            for (uint32_t li = 0; li < pl->nlines; li++) {
                const xp_line *line = &pl->lines[li];
                /* Validated at load for every line that has events. */
                int64_t base_ps = line->events ? line->timestamp_ns * 1000 : 0;
                xp_event_iter ei;
                xp_event ev;
                out->lines++;
                xp_events_begin(line, &ei);
                while (xp_events_next(&ei, &ev)) {
                    out->events++;
                    out->checksum = (int64_t)((uint64_t)out->checksum + (uint64_t)base_ps +
                                              (uint64_t)ev.offset_ps + (uint64_t)ev.duration_ps);
                    xp_stat_iter it;
                    stat_value s = {0};
                    xp_stats_begin(&it, ev.stats, ev.body_len, 4);
                    while (xp_stats_next(&it, &s)) {
                        scan_add_stat(pl, &s, out);
                        out->event_stats++;
                    }
                }
            }
        }
    }
    return PQ_OK;
}
