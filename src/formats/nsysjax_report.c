/* nsysjax_report.c - the push/pop report of an nsys-jax archive process as the reader feeds
 * it (nsysjax_int.h): which member (the parquet, else the csv.xz), read on a thread or, for
 * a csv.xz of 1 MiB and more, decoded on a thread while the reader's main thread parses its
 * rows and feeds them to the model between HLO dumps decompressed ahead (nsysjax.c
 * feed_process); HEAD's fingerprint run ids of compilation ranges. Not here: parsing the
 * report (formats/pushpop.c), trace.parquet and the process's other members (nsysjax.c). */
#include "formats/nsysjax.h"
#include "formats/nsysjax_int.h"

#include "core/alloc.h"
#include "core/err.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The loader's `^TSL:XlaCompileBackend:#module=(.*?),program_id=(\d+)#$`: 1 with the name
 * and number, else 0. */
static int compile_backend(pq_str s, pq_str *name, int64_t *program)
{
    static const char pre[] = "TSL:XlaCompileBackend:#module=", key[] = ",program_id=";
    size_t lp = sizeof pre - 1, lk = sizeof key - 1;
    if (s.n < lp || memcmp(s.p, pre, lp) != 0)
        return 0;
    for (size_t c = lp; c + lk < s.n; c++) {
        if (memcmp(s.p + c, key, lk) != 0)
            continue;
        size_t k = c + lk;
        int64_t v = 0;
        while (k < s.n && s.p[k] >= '0' && s.p[k] <= '9' && v < INT64_C(1) << 40)
            v = v * 10 + (s.p[k++] - '0');
        if (k > c + lk && k + 1 == s.n && s.p[k] == '#') {
            *name = pq_str_of(s.p + lp, c - lp);
            *program = v;
            return 1;
        }
    }
    return 0;
}

/* The host push/pop ranges (compilation) [FROM, TO) of P, one track per thread; PID is the
 * process of a report without a PID column (the newer parquet form drops it); *LAST is the
 * thread named last (INT64_MIN before the first row). With fingerprints (FC), a compilation
 * range gets run_id "compiled:P:FINGERPRINT", P the canonical number of its program's
 * fingerprint, or "compiled:-1" without a dump (the loader's "unknown"). */
static pq_status feed_pushpop(const pushpop *p, size_t from, size_t to, int64_t pid,
                              const char *path, const pq_events *ev, const nsysjax_fp_ctx *fc,
                              int64_t *last, pq_error *err)
{
    char run[40 + NSYSJAX_FP_MAX];
    for (size_t i = from; i < to; i++) {
        pq_slice_in s = {0};
        pq_str cname;
        int64_t prog;
        if (fc->fps && compile_backend(p->name[i], &cname, &prog)) {
            const char *fp;
            FORWARD_IF_ERROR(nsysjax_fps_lookup(fc->fps, fc->z, fc->archive, fc->slug, prog, cname,
                                                1, &prog, &fp, err));
            memcpy(run, "compiled:", 9);
            size_t k = 9 + nsysjax_put_i64(run + 9, prog);
            if (fp) /* "compiled:P:FINGERPRINT" */
                k += (size_t)snprintf(run + k, sizeof run - k, ":%s", fp);
            s.run_id = pq_str_of(run, k);
        }
        s.pid = p->pid ? p->pid[i] : pid;
        RETURN_ERROR_IF(nsysjax_name_host(ev, s.pid, p->tid[i], last) != 0, err, PQ_ERR_NOMEM, path,
                        -1, "out of memory");
        s.tid = NSYSJAX_HOST_TID(p->tid[i]);
        s.name = p->name[i];
        nsysjax_split_ns(p->start_ns[i], &s);
        RETURN_ERROR_IF(p->dur_ns[i] < 0 || p->dur_ns[i] > INT64_MAX / 1000, err, PQ_ERR_INPUT,
                        path, -1, "expected a non-negative duration in row %zu, found %lld", i,
                        (long long)p->dur_ns[i]);
        s.dur_ps = p->dur_ns[i] * 1000;
        RETURN_ERROR_IF(ev->slice(ev->ctx, &s) != 0, err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    return PQ_OK;
}

static void *compile_read(void *arg)
{
    nsysjax_report *j = arg;
    j->st = pushpop_read_fed(j->mf.data, j->mf.size, j->path, &j->p, &j->err);
    atomic_store(&j->done, 1);
    return NULL;
}

/* Starts the read of the report whose bytes are in J->mf: decoded on a thread while the
 * main thread parses it (a csv.xz of 1 MiB and more), else read whole on a thread. */
static void begin(nsysjax_report *j)
{
    if (pushpop_stream_start(&j->ps, j->mf.data, j->mf.size, j->path, &j->p)) {
        j->streaming = 1;
        return;
    }
    atomic_store(&j->done, 0);
    if (pthread_create(&j->thread, NULL, compile_read, j) == 0)
        j->threaded = 1;
    else
        compile_read(j);
}

static const char *const report_members[] = {"report_nvtx_pushpop_trace.parquet",
                                             "report_nvtx_pushpop_trace.csv.xz"};

static void clear(nsysjax_report *j)
{
    memset(j, 0, sizeof *j);
    atomic_init(&j->done, 1);
    j->last = INT64_MIN;
}

void nsysjax_report_early(const uint8_t *d, size_t n, const char *path, nsysjax_report *j)
{
    clear(j);
    pqzip_peeked pk;
    /* A report parquet would be preferred: leave that archive to the ordinary start. */
    if (pqzip_peek_has(d, n, report_members[0]) || !pqzip_peek(d, n, report_members[1], &pk))
        return;
    j->early = NSYSJAX_EARLY_STARTED;
    j->peeked = pk;
    j->found = 1;
    snprintf(j->path, sizeof j->path, "%s:%s", path, report_members[1]);
    j->mf.data = pk.data;
    j->mf.size = pk.size;
    begin(j);
    /* The CRC beside the decoder: a mismatch drops the report before anything of it is
     * used, and libzip reads the member again, with its error. */
    if (!pqzip_peek_crc_ok(&pk))
        nsysjax_report_drop(j);
}

/* 1 when EARLY read member M of Z, as libzip lists it. */
static int adopt(const nsysjax_report *early, const pqzip *z, long m)
{
    const pqzip_member *zm = pqzip_member_at(z, (size_t)m);
    return early && early->early == NSYSJAX_EARLY_STARTED && (size_t)m == early->peeked.index &&
           zm && zm->size == early->peeked.size && zm->comp_size == early->peeked.comp_size &&
           zm->method == early->peeked.method && !strcmp(zm->name, report_members[1]);
}

nsysjax_report *nsysjax_report_start(pqzip *z, const char *path, const char *slug,
                                     nsysjax_report *early)
{
    for (size_t k = 0; k < 2; k++) {
        char name[512];
        long m = nsysjax_member(z, report_members[k], slug, name, sizeof name);
        if (m < 0)
            continue;
        if (!slug && k == 1 && adopt(early, z, m)) {
            early->early = NSYSJAX_EARLY_TAKEN;
            return early;
        }
        nsysjax_report_drop(early);
        nsysjax_report *j = pq_malloc(sizeof *j);
        if (!j)
            return NULL;
        clear(j);
        j->found = 1;
        snprintf(j->path, sizeof j->path, "%s:%s", path, name);
        j->st = pqzip_read(z, (size_t)m, &j->mf, &j->err);
        if (j->st == PQ_OK)
            begin(j);
        return j;
    }
    nsysjax_report_drop(early);
    nsysjax_report *j = pq_malloc(sizeof *j);
    if (j)
        clear(j);
    return j;
}

/* Feeds the report's rows read so far (final after each pushpop_stream_step) while the
 * rest decodes, so that only the last chunk's rows are fed after the decoder's end. Not
 * with fingerprints: their lookups read dumps from the zip, which the main thread does
 * meanwhile. */
void nsysjax_report_ready(nsysjax_report *j, int64_t pid, const pq_events *ev,
                          const nsysjax_fp_ctx *fc)
{
    size_t to = j->ps.finished;
    if (fc->fps || j->fst != PQ_OK || to <= j->fed)
        return;
    j->fst = feed_pushpop(&j->p, j->fed, to, pid, j->path, ev, fc, &j->last, &j->ferr);
    j->fed = to;
}

/* Waits for the report's reading (its error in j->st). */
static void join(nsysjax_report *j)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    if (j->streaming)
        j->st = pushpop_stream_end(&j->ps, &j->err);
    j->threaded = j->streaming = 0;
}

static void release(nsysjax_report *j)
{
    pushpop_free(&j->p);
    if (j->early)
        pq_free(j->peeked.owned);
    else
        mapfile_close(&j->mf);
    memset(&j->mf, 0, sizeof j->mf);
}

void nsysjax_report_drop(nsysjax_report *j)
{
    if (!j || j->early != NSYSJAX_EARLY_STARTED)
        return;
    join(j);
    release(j);
    j->early = NSYSJAX_EARLY_DROPPED;
}

/* Waits for the report, feeds the rest of its ranges (FEED: the trace went well) and
 * releases it. */
pq_status nsysjax_report_finish(nsysjax_report *j, int feed, int64_t pid, const pq_events *ev,
                                const nsysjax_fp_ctx *fc, pq_error *err)
{
    join(j);
    pq_status st = PQ_OK;
    if (feed && j->found) {
        st = j->st;
        if (st != PQ_OK)
            *err = j->err;
        else if (j->fst != PQ_OK) {
            st = j->fst;
            *err = j->ferr;
        } else
            st = feed_pushpop(&j->p, j->fed, j->p.n, pid, j->path, ev, fc, &j->last, err);
    }
    release(j);
    return st;
}
