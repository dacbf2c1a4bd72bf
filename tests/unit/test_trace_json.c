/* test_trace_json.c - the streaming trace-event reader (src/formats/trace_json.h), the
 * JSON reader and its Python-compatible writer (src/core/jval.h) and the summary's name semantics
 * (src/analysis/summary.h): events of every phase with escapes and fractional times,
 * error offsets, refusals of non-trace JSON, the gzip window at 1-byte refills, Python's
 * float repr, and the seed's helper tests (spec/seed-tools.md 1.10). */
#include "testutil.h"

#include "analysis/summary.h"
#include "api/summary_int.h"
#include "core/jval.h"
#include "formats/trace_events.h"
#include "formats/trace_json.h"
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

typedef struct seen {
    int n;
    char ph[16];
    char names[16][64];
    int64_t ts_us[16], ts_frac[16], dur_us[16], pid[16];
    int tid_kind[16];
} seen;

static int collect(void *ctx, const tj_event *e, pq_error *err)
{
    (void)err;
    seen *s = ctx;
    if (s->n < 16) {
        s->ph[s->n] = e->ph;
        snprintf(s->names[s->n], sizeof s->names[0], "%.*s", (int)e->name.n, e->name.p);
        s->ts_us[s->n] = e->ts.us;
        s->ts_frac[s->n] = e->ts.frac_ps;
        s->dur_us[s->n] = e->dur.us;
        s->pid[s->n] = e->pid;
        s->tid_kind[s->n] = e->tid_kind;
    }
    s->n++;
    return 0;
}

static const char DOC[] =
    "{\"displayTimeUnit\": \"ns\", \"meta\": {\"a\": [1, {\"b\": \"x\\\"]\"}]},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"name\": \"caf\\u00e9 \\\"q\\\"\", \"pid\": 1, \"tid\": 2,"
    "   \"ts\": 1700000000000000.125, \"dur\": 3, \"args\": {\"tf_op\": \"jit(f)/dot\"}},\n"
    "  {\"ph\": \"B\", \"name\": \"b\", \"pid\": 1, \"tid\": \"stream 7\", \"ts\": -2.5},\n"
    "  {\"ph\": \"i\", \"name\": \"mark\", \"s\": \"t\", \"ts\": 1e3},\n"
    "  {}\n"
    " ]}\n";

static void test_events(void **state)
{
    (void)state;
    seen s;
    memset(&s, 0, sizeof s);
    tj_info info;
    pq_error err;
    assert_int_equal(
        tj_read_memory((const uint8_t *)DOC, sizeof DOC - 1, "t.json", collect, &s, &info, &err),
        PQ_OK);
    assert_int_equal(s.n, 4);
    assert_int_equal(info.num_events, 4);
    assert_string_equal(info.display_time_unit, "ns");
    assert_int_equal(s.ph[0], 'X');
    assert_string_equal(s.names[0], "caf\xc3\xa9 \"q\"");
    assert_int_equal(s.ts_us[0], 1700000000000000LL);
    assert_int_equal(s.ts_frac[0], 125000);
    assert_int_equal(s.dur_us[0], 3);
    assert_int_equal(s.ts_us[1], -3); /* -2.5 us = -3 us + 500000 ps */
    assert_int_equal(s.ts_frac[1], 500000);
    assert_int_equal(s.tid_kind[1], TJ_STRING);
    assert_int_equal(s.ts_us[2], 1000);
    assert_int_equal(s.ph[3], '\0');
}

static pq_status read_str(const char *doc, pq_error *err)
{
    tj_info info;
    memset(err, 0, sizeof *err);
    return tj_read_memory((const uint8_t *)doc, strlen(doc), "x.json", NULL, NULL, &info, err);
}

static void test_errors_and_refusals(void **state)
{
    (void)state;
    pq_error err;
    assert_int_equal(read_str("{\"traceEvents\": [{\"ph\": tru}]}", &err), PQ_ERR_INPUT);
    assert_int_equal(err.offset, 24);
    assert_non_null(strstr(err.message, "expected"));
    assert_int_equal(read_str("{\"traceEvents\": [{\"ph\": \"X\"}", &err), PQ_ERR_INPUT);
    assert_int_equal(read_str("{\"traceEvents\": {}}", &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "traceEvents must be a list"));
    assert_int_equal(read_str("{\"schema\": \"1.0\", \"nodes\": []}", &err), PQ_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "PyTorch execution trace"));
    assert_int_equal(err.offset, 0);
    assert_int_equal(read_str("[[1, 2], [3, 4]]", &err), PQ_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "bare JSON array of rows"));
    assert_int_equal(read_str("{\"other\": 1}", &err), PQ_ERR_UNSUPPORTED);
    assert_int_equal(read_str("", &err), PQ_ERR_INPUT);
    assert_int_equal(read_str("{\"traceEvents\": []} x", &err), PQ_ERR_INPUT);
    /* Chrome's array format, closing bracket optional. */
    assert_int_equal(read_str("[{\"ph\": \"X\"}, {\"ph\": \"X\"}", &err), PQ_OK);
    assert_int_equal(read_str("{\"traceEvents\": [{\"name\": \"a\x01\"}]}", &err), PQ_ERR_INPUT);
}

/* The same document through the gzip window with 1..17-byte refills gives the same events. */
static void test_gzip_window(void **state)
{
    (void)state;
    uLongf cap = compressBound(sizeof DOC) + 64;
    uint8_t *gz = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (Bytef *)(uintptr_t)DOC;
    z.avail_in = sizeof DOC - 1;
    z.next_out = gz;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = cap - z.avail_out;
    deflateEnd(&z);
    for (size_t chunk = 1; chunk < 18; chunk++) {
        tj_debug_set_chunk(chunk);
        seen s;
        memset(&s, 0, sizeof s);
        tj_info info;
        pq_error err;
        assert_int_equal(tj_read_memory(gz, n, "t.json.gz", collect, &s, &info, &err), PQ_OK);
        assert_int_equal(s.n, 4);
        assert_string_equal(s.names[0], "caf\xc3\xa9 \"q\"");
        assert_int_equal(s.ts_frac[0], 125000);
        assert_string_equal(info.display_time_unit, "ns");
        /* A truncated stream is an error, never a partial success. */
        assert_int_not_equal(tj_read_memory(gz, n - 9, "t.json.gz", collect, &s, &info, &err),
                             PQ_OK);
    }
    tj_debug_set_chunk(0);
    free(gz);
}

/* The wanted args keys of the first event, as raw JSON ("" when absent). */
typedef struct wanted {
    int n;
    char tf_op[64], missing[8];
} wanted;

static int collect_args(void *ctx, const tj_event *e, pq_error *err)
{
    (void)err;
    wanted *w = ctx;
    if (w->n++ == 0) {
        snprintf(w->tf_op, sizeof w->tf_op, "%.*s", (int)e->argv[0].n, e->argv[0].p);
        snprintf(w->missing, sizeof w->missing, "%.*s", (int)e->argv[1].n,
                 e->argv[1].p ? e->argv[1].p : "");
    }
    return 0;
}

/* DOC written to a new temporary file PLAIN and, gzip-compressed, to GZP (mkstemp
 * templates, filled in). */
static void write_doc_files(char *plain, char *gzp)
{
    int fd = mkstemp(plain);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, DOC, sizeof DOC - 1), (long)(sizeof DOC - 1));
    close(fd);
    fd = mkstemp(gzp);
    assert_true(fd >= 0);
    gzFile g = gzdopen(fd, "wb");
    assert_int_equal(gzwrite(g, DOC, sizeof DOC - 1), (int)(sizeof DOC - 1));
    gzclose(g);
}

/* Files go through the read() window, plain and gzip, with 1..17-byte refills; plain JSON
 * in memory through the same window (the fuzzer's third leg). Each read gives the whole-
 * buffer read's events and the wanted args values; a missing file is an I/O error. */
static void test_file_window(void **state)
{
    (void)state;
    static const char *const keys[] = {"tf_op", "absent"};
    const tj_want want = {keys, 2, NULL};
    char plain[] = "/tmp/pq_tj_XXXXXX", gzp[] = "/tmp/pq_tjgz_XXXXXX";
    write_doc_files(plain, gzp);
    for (size_t chunk = 1; chunk < 18; chunk++) {
        tj_debug_set_chunk(chunk);
        for (int k = 0; k < 3; k++) {
            seen s;
            memset(&s, 0, sizeof s);
            wanted w;
            memset(&w, 0, sizeof w);
            tj_info info;
            pq_error err;
            if (k == 2) {
                tj_debug_stream_plain(1);
                assert_int_equal(tj_read_memory((const uint8_t *)DOC, sizeof DOC - 1, "m.json",
                                                collect, &s, &info, &err),
                                 PQ_OK);
                assert_int_equal(tj_read_memory_want((const uint8_t *)DOC, sizeof DOC - 1, "m.json",
                                                     &want, collect_args, &w, &info, &err),
                                 PQ_OK);
                tj_debug_stream_plain(0);
            } else {
                const char *path = k ? gzp : plain;
                assert_int_equal(tj_read_file(path, NULL, collect, &s, &info, &err), PQ_OK);
                assert_int_equal(tj_read_file(path, &want, collect_args, &w, &info, &err), PQ_OK);
            }
            assert_int_equal(s.n, 4);
            assert_string_equal(s.names[0], "caf\xc3\xa9 \"q\"");
            assert_int_equal(s.ts_us[0], 1700000000000000LL);
            assert_int_equal(s.ts_frac[0], 125000);
            assert_int_equal(s.ts_us[1], -3);
            assert_int_equal(info.uncompressed_bytes, sizeof DOC - 1);
            assert_int_equal(w.n, 4);
            assert_string_equal(w.tf_op, "\"jit(f)/dot\"");
            assert_string_equal(w.missing, "");
        }
    }
    tj_debug_set_chunk(0);
    tj_info info;
    pq_error err;
    unlink(plain);
    assert_int_equal(tj_read_file(plain, NULL, collect, NULL, &info, &err), PQ_ERR_IO);
    unlink(gzp);
}

/* pq_open_options.stream_traces: a trace file (plain and gzip) read in chunks from its file
 * gives the mapped read's timeline, event count, time unit and sha256, and keeps no bytes;
 * the summary computed from it (on the source's timeline) carries that sha256. */
static void test_stream_open(void **state)
{
    (void)state;
    char plain[] = "/tmp/pq_tjst_XXXXXX", gzp[] = "/tmp/pq_tjstgz_XXXXXX";
    write_doc_files(plain, gzp);
    for (int k = 0; k < 2; k++) {
        const char *path = k ? gzp : plain;
        pq_profile *pm = NULL, *ps = NULL;
        pq_open_options o;
        memset(&o, 0, sizeof o);
        pq_error err;
        assert_int_equal(pq_profile_open(&path, 1, &o, &pm, &err), PQ_OK);
        o.stream_traces = 1;
        assert_int_equal(pq_profile_open(&path, 1, &o, &ps, &err), PQ_OK);
        const pq_source *a = &pm->sources[0], *b = &ps->sources[0];
        assert_non_null(a->file.data);
        assert_null(b->file.data);
        assert_int_equal(b->info.format, PQ_FORMAT_TRACE_JSON);
        assert_int_equal(b->info.size_bytes, a->info.size_bytes);
        assert_int_equal(strlen(b->info.sha256), 64);
        assert_string_equal(b->info.sha256, a->info.sha256);
        assert_string_equal(b->display_time_unit, "ns");
        assert_int_equal(b->trace_events, a->trace_events);
        assert_int_equal(b->slices->n, a->slices->n);
        assert_int_equal(b->slices->ntracks, a->slices->ntracks);
        for (size_t i = 0; i < a->slices->n; i++) {
            assert_true(b->slices->start_ps[i] == a->slices->start_ps[i]);
            assert_true(b->slices->dur_ps[i] == a->slices->dur_ps[i]);
        }
        pq_summary_result *r = NULL;
        assert_int_equal(pq_summary_compute(path, NULL, &r, &err), PQ_OK);
        assert_string_equal(r->trace_provenance.trace_sha256, a->info.sha256);
        assert_string_equal(r->source_format, "perfetto_trace_json");
        pq_summary_result_free(r);
        pq_profile_free(pm);
        pq_profile_free(ps);
    }
    unlink(plain);
    unlink(gzp);
}

typedef struct times {
    int n;
    int64_t us[64], ps[64], pid[64];
    int pid_kind[64];
} times;

static int collect_times(void *ctx, const tj_event *e, pq_error *err)
{
    (void)err;
    times *t = ctx;
    if (t->n < 64) {
        t->us[t->n] = e->ts.us;
        t->ps[t->n] = e->ts.frac_ps;
        t->pid[t->n] = e->pid;
        t->pid_kind[t->n] = e->pid_kind;
    }
    t->n++;
    return 0;
}
/* The expected time of a decimal [-]W[.F] (no exponent, W below 10^18): whole µs and the
 * first six fraction digits as ps, the seventh rounding half up, then brought into
 * 0..999999 ps as the reader does. */
static void expect_time(const char *num, int64_t *us, int64_t *ps)
{
    int neg = *num == '-';
    const char *q = num + neg;
    int64_t w = 0, f = 0;
    while (*q >= '0' && *q <= '9')
        w = w * 10 + (*q++ - '0');
    int fd = 0, up = 0;
    if (*q == '.')
        for (q++; *q >= '0' && *q <= '9'; q++, fd++) {
            if (fd < 6)
                f = f * 10 + (*q - '0');
            else if (fd == 6)
                up = *q >= '5';
        }
    for (; fd < 6; fd++)
        f *= 10;
    f += up;
    *us = neg ? -w : w;
    *ps = neg ? -f : f;
    while (*ps < 0) {
        *ps += 1000000;
        (*us)--;
    }
    while (*ps >= 1000000) {
        *ps -= 1000000;
        (*us)++;
    }
}

/* Numbers of every length the fast SWAR path and the general path share (0 to 17 whole
 * digits, 0 to 12 fraction digits, signs, rounding carries), as ts and pid, read from one
 * buffer (the fast path, with room after each number) and through 1- to 40-byte windows
 * (numbers at a window's end take the general path): both give the exact value. */
static void test_number_paths(void **state)
{
    (void)state;
    static char doc[1 << 16];
    static char nums[64][40];
    uint64_t rng = 88172645463325252ull;
    int nn = 0;
    size_t len = (size_t)snprintf(doc, sizeof doc, "{\"traceEvents\": [");
    for (int wd = 0; wd <= 17; wd++) {
        int fd = (wd * 5) % 13; /* 0..12 fraction digits across the set */
        for (int v = 0; v < 3 && nn < 64; v++) {
            char *o = nums[nn];
            int k = 0;
            if (v == 1)
                o[k++] = '-';
            for (int d = 0; d < (wd ? wd : 1); d++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                o[k++] = (char)(wd == 0  ? '0'
                                : d == 0 ? '1' + (int)(rng % 9)
                                         : '0' + (int)(rng % 10));
            }
            int f = v == 2 ? 7 : fd;
            if (f) {
                o[k++] = '.';
                for (int d = 0; d < f; d++) {
                    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                    o[k++] = (char)(v == 2 ? (d < 6 ? '9' : '5') : '0' + (int)(rng % 10));
                }
            }
            o[k] = '\0';
            len += (size_t)snprintf(doc + len, sizeof doc - len,
                                    "%s{\"ph\": \"X\", \"ts\": %s, \"pid\": %s, \"dur\": 1}",
                                    nn ? ",\n " : "", o, o);
            nn++;
        }
    }
    len += (size_t)snprintf(doc + len, sizeof doc - len, "]}");
    for (size_t chunk = 0; chunk <= 40; chunk += chunk < 4 ? 1 : 9) {
        tj_debug_set_chunk(chunk);
        tj_debug_stream_plain(chunk != 0);
        times got;
        memset(&got, 0, sizeof got);
        tj_info info;
        pq_error err;
        assert_int_equal(
            tj_read_memory((const uint8_t *)doc, len, "n.json", collect_times, &got, &info, &err),
            PQ_OK);
        assert_int_equal(got.n, nn);
        for (int i = 0; i < nn; i++) {
            int64_t us, ps;
            expect_time(nums[i], &us, &ps);
            if (got.us[i] != us || got.ps[i] != ps)
                fail_msg("chunk %zu: %s read as %lld us + %lld ps, expected %lld + %lld", chunk,
                         nums[i], (long long)got.us[i], (long long)got.ps[i], (long long)us,
                         (long long)ps);
            int integral = ps == 0; /* an id with a zero fraction is still an integer */
            assert_int_equal(got.pid_kind[i], integral ? TJ_INT : TJ_OTHER);
            if (integral)
                assert_int_equal(got.pid[i], us);
        }
    }
    tj_debug_stream_plain(0);
    tj_debug_set_chunk(0);
}

/* device_op_region_aggregates (spec 1.16) against a brute-force oracle: host windows with
 * tf_op paths of 1 to 3 parts on three threads (nested, partly overlapping, equal starts
 * and ends), GPU kernels on two streams whose midpoints often fall exactly on a window's
 * start or end. For each kernel the oracle scans every window containing its midpoint
 * (start <= mid <= end) for the deepest, then the shortest, then the greatest path, and
 * sums count and duration per (path, kernel name); the summary must give the same rows.
 * The summary's sweep sorts the points of 1000 windows and 600 kernels laid out in a few
 * runs, which this checks through its result. */
typedef struct rwin {
    int64_t ts, dur;
    int depth;
    char path[32];
} rwin;

static void test_region_sweep(void **state)
{
    (void)state;
    enum { NW = 1000, NK = 600 };
    static rwin w[NW];
    static char doc[1 << 18];
    static const char *const parts[] = {"pa", "pb", "pc", "pd"};
    static const char *const knames[] = {"k_gemm", "k_norm", "k_add", "k_copy", "k_red"};
    int64_t kts[NK], kdur[NK];
    int kname[NK];
    uint64_t rng = 0x9E3779B97F4A7C15ull;
#define RND() (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, rng)
    size_t len = (size_t)snprintf(doc, sizeof doc, "{\"traceEvents\": [");
    for (int k = 0; k < NW; k++) {
        w[k].ts = 2 * (int64_t)(RND() % 1000);
        w[k].dur = 2 * (int64_t)(1 + RND() % 150);
        w[k].depth = 1 + (int)(RND() % 3);
        char tf[32] = "";
        w[k].path[0] = '\0';
        for (int d = 0; d < w[k].depth; d++) {
            const char *pt = parts[RND() % 4];
            snprintf(tf + strlen(tf), sizeof tf - strlen(tf), "%s%s", d ? "/" : "", pt);
            snprintf(w[k].path + strlen(w[k].path), sizeof w[k].path - strlen(w[k].path), "%s%s",
                     d ? "=>" : "", pt);
        }
        len += (size_t)snprintf(doc + len, sizeof doc - len,
                                "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", "
                                "\"pid\": 100, \"tid\": %d, \"ts\": %lld, \"dur\": %lld, "
                                "\"args\": {\"tf_op\": \"%s\"}}",
                                k ? ",\n" : "", k % 50, 1 + (int)(RND() % 3),
                                (long long)(1000 + w[k].ts), (long long)w[k].dur, tf);
    }
    int64_t at[2] = {0, 0};
    for (int k = 0; k < NK; k++) {
        int st = k % 2;
        at[st] += (int64_t)(RND() % 3); /* gaps of 0 to 2 us; kernels never overlap */
        kts[k] = at[st];
        kdur[k] = 1 + (int64_t)(RND() % 9);
        at[st] += kdur[k];
        kname[k] = (int)(RND() % 5);
        len += (size_t)snprintf(doc + len, sizeof doc - len,
                                ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", "
                                "\"pid\": 0, \"tid\": %d, \"ts\": %lld, \"dur\": %lld}",
                                knames[kname[k]], 7 + st, (long long)(1000 + kts[k]),
                                (long long)kdur[k]);
    }
    len += (size_t)snprintf(doc + len, sizeof doc - len, "]}");
    assert_true(len < sizeof doc - 1);
#undef RND
    /* The oracle: (path, kernel name) -> count and total duration. */
    static char epath[NK][32];
    int nexp = 0;
    for (int k = 0; k < NK; k++) {
        int64_t mid2 = 2 * kts[k] + kdur[k];
        int best = -1;
        for (int j = 0; j < NW; j++) {
            if (2 * w[j].ts > mid2 || mid2 > 2 * (w[j].ts + w[j].dur))
                continue;
            if (best < 0 || w[j].depth > w[best].depth ||
                (w[j].depth == w[best].depth &&
                 (w[j].dur < w[best].dur ||
                  (w[j].dur == w[best].dur && strcmp(w[j].path, w[best].path) > 0))))
                best = j;
        }
        snprintf(epath[k], sizeof epath[k], "%s", best < 0 ? "" : w[best].path);
        nexp += best >= 0;
    }
    model_slices sl;
    assert_int_equal(slices_init(&sl), 0);
    pq_events ev = slices_events(&sl);
    tj_info info;
    pq_error err;
    assert_int_equal(trace_events_feed((const uint8_t *)doc, len, "r.json", &ev, &info, &err),
                     PQ_OK);
    sm_options o = {0, 25, 0, NULL, NULL, NULL, NULL};
    sm_source src = {"perfetto_trace_json", "r.json", "0", NULL, info.num_events, "", NULL};
    sm_result res;
    assert_int_equal(sm_compute(&sl, &o, &src, &res), 0);
    const pq_sm_op_region *rows = res.r.device_op_region_aggregates;
    size_t nrows = res.r.ndevice_op_region_aggregates;
    assert_true(nrows > 20); /* many (path, name) pairs: the check below has teeth */
    int matched = 0;
    for (size_t r = 0; r < nrows; r++) {
        const char *path = rows[r].region_path;
        const char *name = rows[r].op_name;
        double count = (double)rows[r].count;
        double total = rows[r].total_duration;
        assert_non_null(path);
        assert_non_null(name);
        int ecount = 0;
        int64_t etotal = 0;
        for (int k = 0; k < NK; k++)
            if (strcmp(epath[k], path) == 0 && strcmp(knames[kname[k]], name) == 0) {
                ecount++;
                etotal += kdur[k];
            }
        if (ecount != (int)count || (double)etotal != total)
            fail_msg("%s / %s: %d kernels, %lld us; the summary says %g, %g", path, name, ecount,
                     (long long)etotal, count, total);
        matched += ecount;
    }
    assert_int_equal(matched, nexp); /* every kernel inside a window is in some row */
    sm_result_free(&res);
    slices_free(&sl);
}

/* The result structs of sm_compute (include/profq.h) on a trace small enough to check by
 * hand, and the document written from them saying the same. */
/* Kineto's deviceProperties become the model's devices, through the read() window in
 * 1..9-byte refills too: an object per device (one without an integer id is skipped), every
 * stated key kept in order with its type, nothing added (the second device states no memory
 * and gets none). The events around them still load. */
static void test_devices(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100\", "
        "\"totalGlobalMem\": 85520809984, \"computeMajor\": 9, \"clockGHz\": 1.98, "
        "\"ecc\": true}, {\"id\": \"x\"}, {\"id\": 3, \"maxGridHeight\": 8}], "
        "\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
        "\"ts\": 1, \"dur\": 2}]}";
    char path[] = "/tmp/pq_tjdev_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, doc, sizeof doc - 1), (long)(sizeof doc - 1));
    close(fd);
    for (size_t chunk = 0; chunk < 10; chunk++) {
        tj_debug_set_chunk(chunk);
        model_slices sl;
        assert_int_equal(slices_init(&sl), 0);
        pq_events ev = slices_events(&sl);
        tj_info info;
        pq_error err;
        assert_int_equal(trace_events_feed_file(path, &ev, &info, &err), PQ_OK);
        assert_int_equal(sl.n, 1);
        const model_devices *d = &sl.devices;
        assert_int_equal(d->dev.n, 2);
        const model_device *a = &d->dev.v[0], *b = &d->dev.v[1];
        assert_int_equal(a->id, 0);
        assert_string_equal(a->kind, "GPU");
        assert_string_equal(a->name, "NVIDIA H100");
        assert_int_equal(a->ncaps, 4);
        const model_device_cap *c = devices_caps(d, a);
        assert_string_equal(c[0].key, "totalGlobalMem");
        assert_int_equal(c[0].v.kind, PQ_DEV_INT);
        assert_true(c[0].v.i == INT64_C(85520809984));
        assert_string_equal(c[1].key, "computeMajor");
        assert_int_equal(c[1].v.i, 9);
        assert_string_equal(c[2].key, "clockGHz");
        assert_int_equal(c[2].v.kind, PQ_DEV_NUM);
        assert_true(c[2].v.d == 1.98);
        assert_string_equal(c[3].key, "ecc");
        assert_int_equal(c[3].v.kind, PQ_DEV_BOOL);
        assert_int_equal(b->id, 3);
        assert_string_equal(b->kind, "accelerator");
        assert_string_equal(b->name, "");
        assert_int_equal(b->ncaps, 1);
        assert_string_equal(devices_caps(d, b)[0].key, "maxGridHeight");
        slices_free(&sl);
    }
    tj_debug_set_chunk(0);
    unlink(path);
}

/* The N bytes of DOC (named NAME) read into new slices SL; *INFO gets the reader's info. */
static void feed_doc(const char *doc, size_t n, const char *name, model_slices *sl, tj_info *info)
{
    assert_int_equal(slices_init(sl), 0);
    pq_events ev = slices_events(sl);
    pq_error err;
    assert_int_equal(trace_events_feed((const uint8_t *)doc, n, name, &ev, info, &err), PQ_OK);
}

static void test_summary_result(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"traceEvents\": ["
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclAllReduce\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 1000, \"dur\": 10},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 1020, \"dur\": 30},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 1060, \"dur\": 20},"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"step\", \"pid\": 100, "
        "\"tid\": 1, \"ts\": 1000, \"dur\": 100}]}";
    model_slices sl;
    tj_info info;
    feed_doc(doc, sizeof doc - 1, "r.json", &sl, &info);
    sm_options o = {0, 25, 0, NULL, NULL, NULL, NULL};
    sm_source src = {"perfetto_trace_json", "r.json", "0", NULL, info.num_events, "", NULL};
    sm_result res;
    assert_int_equal(sm_compute(&sl, &o, &src, &res), 0);
    const pq_summary_result *r = &res.r;
    assert_string_equal(r->schema_version, "profile_summary.v1");
    assert_string_equal(r->source_path, "r.json");
    assert_null(r->run_metadata.run_id);
    assert_int_equal(r->trace_overview.num_complete_events, 4);
    assert_true(r->trace_overview.profile_start_ts == 1000.0);
    assert_true(r->trace_overview.profile_end_ts == 1100.0);
    assert_int_equal(r->trace_overview.nquality_warnings, 0);
    assert_string_equal(r->trace_provenance.trace_sha256, "0");
    assert_int_equal(r->trace_provenance.nrun_ids, 0);
    /* Self time per track: device compute 50, communication 10, host 100. */
    assert_string_equal(r->time_breakdown.duration_basis, "exclusive_duration_per_track");
    assert_true(r->time_breakdown.total_duration == 160.0);
    assert_true(r->time_breakdown.category_total[PQ_SM_COMPUTE] == 50.0);
    assert_true(r->time_breakdown.category_total[PQ_SM_COMMUNICATION] == 10.0);
    assert_true(r->time_breakdown.category_total[PQ_SM_HOST] == 100.0);
    assert_true(r->time_breakdown.category_share[PQ_SM_HOST] == 100.0 / 160.0);
    assert_int_equal(r->nhot_ops, 2);
    assert_string_equal(r->hot_ops[0].name, "gemm_kernel");
    assert_int_equal(r->hot_ops[0].count, 2);
    assert_true(r->hot_ops[0].exclusive_duration == 50.0);
    assert_true(r->hot_ops[0].avg_duration == 25.0);
    assert_string_equal(r->hot_ops[0].category, "compute");
    assert_null(r->hot_ops[0].shape_signature);
    assert_true(isnan(r->hot_ops[0].flop_proxy_per_invocation));
    assert_string_equal(r->hot_ops[1].name, "ncclAllReduce");
    assert_string_equal(r->hot_ops[1].category, "communication");
    assert_int_equal(r->ncommunication_ops, 1);
    assert_string_equal(r->communication_ops[0].collective, "all-reduce");
    assert_int_equal(r->communication_ops[0].count, 1);
    assert_true(r->communication_ops[0].total_duration == 10.0);
    assert_true(r->nsemantic_families >= 1);
    uint64_t fam_count = 0;
    for (size_t k = 0; k < r->nsemantic_families; k++)
        fam_count += r->semantic_families[k].count;
    assert_int_equal(fam_count, 3); /* every listed hot op in one family */
    /* Two gaps of 10 us on the stream, both before gemm_kernel. */
    assert_int_equal(r->ngap_before_ops, 1);
    assert_string_equal(r->gap_before_ops[0].name, "gemm_kernel");
    assert_string_equal(r->gap_before_ops[0].marker_op, "gemm_kernel");
    assert_int_equal(r->gap_before_ops[0].count, 2);
    assert_true(r->gap_before_ops[0].total_gap_duration == 20.0);
    assert_true(r->gap_before_ops[0].max_gap_duration == 10.0);
    assert_int_equal(r->ngap_region_contexts, 1);
    /* gemm_kernel: 50 of 160 us (>= 8%); gaps 20 of 160 (>= 5%). */
    assert_int_equal(r->noptimization_candidates, 2);
    assert_string_equal(r->optimization_candidates[0].candidate_id, "single-hot-op");
    assert_int_equal(r->optimization_candidates[0].nevidence, 2);
    assert_string_equal(r->optimization_candidates[0].evidence[0], "Top op: gemm_kernel");
    assert_string_equal(r->optimization_candidates[1].candidate_id, "pre-op-gap");
    assert_non_null(r->optimization_candidates[1].suggestions[0]);
    sm_result_free(&res);
    /* The document of the same slices, as summarize writes it, read back. */
    buf text;
    buf_init(&text, NULL);
    assert_int_equal(summary_doc_of(&sl, &o, &src, &text), 0);
    size_t off = 0;
    const char *what = "";
    jval *sum = jv_parse(text.p, text.n, &off, &what);
    buf_release(&text);
    assert_non_null(sum);
    const jval *hot = jv_get(sum, "hot_ops");
    assert_non_null(hot);
    assert_int_equal(hot->n, 2);
    assert_string_equal(jv_string(jv_get(hot->items[0], "name")), "gemm_kernel");
    assert_int_equal(jv_get(hot->items[0], "shape_signature")->t, JV_NULL);
    const jval *comm = jv_get(sum, "communication_ops");
    assert_non_null(comm);
    assert_string_equal(jv_string(jv_get(comm->items[0], "collective")), "all-reduce");
    int ok = 0;
    assert_true(jv_number(jv_get(jv_get(jv_get(sum, "time_breakdown"), "host"), "total_duration"),
                          &ok) == 100.0);
    assert_true(ok);
    jv_free(sum);
    slices_free(&sl);
}

/* Step classes (1.8) as result structs: every third of 40 Kineto steps is heavy. */
/* sm_compute reads a timeline with slices it leaves out (a gpu_user_annotation range)
 * and leaves it as it is: the annotation is out of the op sections, not out of the
 * columns, and a second summary of the same slices is the same (issue 11). */
static void test_summary_trims(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"traceEvents\": ["
        "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"fwd\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 1000, \"dur\": 50},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 1010, \"dur\": 30}]}";
    model_slices sl;
    tj_info info;
    feed_doc(doc, sizeof doc - 1, "t.json", &sl, &info);
    assert_int_equal(sl.n, 2);
    sm_options o = {0, 25, 0, NULL, NULL, NULL, NULL};
    sm_source src = {"perfetto_trace_json", "t.json", "0", NULL, info.num_events, "", NULL};
    for (int k = 0; k < 2; k++) {
        sm_result res;
        assert_int_equal(sm_compute(&sl, &o, &src, &res), 0);
        assert_int_equal(res.r.trace_overview.num_complete_events, 2);
        assert_int_equal(res.r.nhot_ops, 1);
        assert_string_equal(res.r.hot_ops[0].name, "gemm_kernel");
        sm_result_free(&res);
        assert_int_equal(sl.n, 2);
        assert_true(sl.flags[0] & SLICE_GPU_ANNOTATION);
    }
    slices_free(&sl);
}

static void test_summary_step_classes(void **state)
{
    (void)state;
    static char doc[16384];
    size_t len = (size_t)snprintf(doc, sizeof doc, "{\"traceEvents\": [");
    long long t = 0;
    for (int n = 0; n < 40; n++) {
        int d = n % 3 == 0 ? 300 : 100 + n % 2;
        len += (size_t)snprintf(doc + len, sizeof doc - len,
                                "%s{\"ph\": \"X\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, "
                                "\"tid\": 1, \"ts\": %lld, \"dur\": %d}",
                                n ? "," : "", n, t, d);
        t += d + 2;
    }
    len += (size_t)snprintf(doc + len, sizeof doc - len, "]}");
    assert_true(len < sizeof doc - 1);
    model_slices sl;
    assert_int_equal(slices_init(&sl), 0);
    pq_events ev = slices_events(&sl);
    tj_info info;
    pq_error err;
    assert_int_equal(trace_events_feed((const uint8_t *)doc, len, "s.json", &ev, &info, &err),
                     PQ_OK);
    sm_options o = {5, 25, 0, NULL, NULL, NULL, NULL};
    sm_source src = {"perfetto_trace_json", "s.json", "0", NULL, info.num_events, "", NULL};
    sm_result res;
    assert_int_equal(sm_compute(&sl, &o, &src, &res), 0);
    const pq_sm_step_time *st = &res.r.step_time;
    assert_int_equal(st->warmup_steps_ignored, 5);
    assert_int_equal(st->all_steps.count, 40);
    assert_int_equal(st->steady_state_steps.count, 35); /* steps 5..39 */
    assert_int_equal(st->nclasses, 2);
    assert_string_equal(st->classes[0].name, "light");
    assert_int_equal(st->classes[0].count, 23);
    assert_int_equal(st->classes[0].periodicity, 0);
    assert_string_equal(st->classes[1].name, "heavy");
    assert_int_equal(st->classes[1].count, 12);
    assert_int_equal(st->classes[1].periodicity, 3);
    assert_true(st->classes[1].duration_stats.median == 300.0);
    assert_int_equal(st->classes[1].representative_step, 6);
    sm_result_free(&res);
    slices_free(&sl);
}

static void check_repr(double v, const char *want)
{
    char out[64];
    py_float_repr(out, sizeof out, v);
    assert_string_equal(out, want);
}

static void test_python_repr(void **state)
{
    (void)state;
    check_repr(135.0, "135.0");
    check_repr(0.0, "0.0");
    check_repr(-0.0, "-0.0");
    check_repr(0.1, "0.1");
    check_repr(1.0 / 3.0, "0.3333333333333333");
    check_repr(0.0001, "0.0001");
    check_repr(0.00001, "1e-05");
    check_repr(1.5e-7, "1.5e-07");
    check_repr(1e16, "1e+16");
    check_repr(1234567890123456.0, "1234567890123456.0");
    check_repr(12345678901234567.0, "1.2345678901234568e+16");
    check_repr(6134.282700000001, "6134.282700000001");
    check_repr(-2.5, "-2.5");
    /* A document as json.dumps(indent=2, sort_keys=True) writes it, parsed from text. */
    static const char text[] = "{\"b\": 1.0, \"a\": [], \"c\": \"\\u00e9\\n\\\"\\u0001"
                               "\\ud83d\\ude00\", \"d\": [3, null]}";
    size_t off;
    const char *what;
    jval *o = jv_parse(text, sizeof text - 1, &off, &what);
    assert_non_null(o);
    buf b;
    buf_init(&b, NULL);
    jv_write(&b, o, 2);
    buf_putc(&b, 0);
    assert_string_equal(b.p, "{\n  \"a\": [],\n  \"b\": 1.0,\n  \"c\": \"\\u00e9\\n\\\"\\u0001"
                             "\\ud83d\\ude00\",\n  \"d\": [\n    3,\n    null\n  ]\n}");
    buf_release(&b);
    buf_init(&b, NULL);
    jv_write(&b, o, -1);
    buf_putc(&b, 0);
    assert_string_equal(b.p, "{\"a\": [], \"b\": 1.0, \"c\": \"\\u00e9\\n\\\"\\u0001"
                             "\\ud83d\\ude00\", \"d\": [3, null]}");
    buf_release(&b);
    const char *txt = "{\"x\": [1, 2.5, \"\\u00e9\"], \"y\": true}";
    jval *back = jv_parse(txt, strlen(txt), &off, &what);
    assert_non_null(back);
    assert_int_equal(jv_get(back, "x")->items[0]->t, JV_INT);
    assert_int_equal(jv_get(back, "x")->items[1]->t, JV_NUM);
    assert_string_equal(jv_string(jv_get(back, "x")->items[2]), "\xc3\xa9");
    jv_free(back);
    assert_null(jv_parse("{\"x\": }", 7, &off, &what));
    assert_int_equal(off, 6);
    jv_free(o);
}

static void test_seed_semantics(void **state)
{
    (void)state;
    char out[256];
    sm_canonical_op_name(" %fusion.12 ", 12, out, sizeof out);
    assert_string_equal(out, "fusion");
    sm_canonical_op_name("copy-start.3", 12, out, sizeof out);
    assert_string_equal(out, "copy-start");
    assert_string_equal(sm_collective_kind("ncclDevKernel_AllGather_RING_LL"), "all-gather");
    assert_string_equal(sm_collective_kind("ncclDevKernel_ReduceScatter_RING_LL"),
                        "reduce-scatter");
    assert_string_equal(sm_collective_kind("psum.1"), "all-reduce");
    assert_string_equal(sm_collective_kind("send.2"), "send-recv");
    assert_string_equal(sm_semantic_family("splash_mha_fwd jit(f)"), "attention_splash");
    assert_string_equal(sm_semantic_family("fusion.3"), "fusion");
    assert_string_equal(sm_semantic_family("copy.5"), "copy");
    assert_string_equal(sm_semantic_family("update_first_moment"), "optimizer_adam");
    assert_string_equal(sm_semantic_family("matmul"), "other");
    const char *ln = "%fusion.1 = f32[8,8] fusion()";
    sm_shape_signature(ln, strlen(ln), out, sizeof out);
    assert_string_equal(out, "8,8");
    const char *tup = "%t = (bf16[2, 4], f32[3]) tuple-op(%a)";
    sm_shape_signature(tup, strlen(tup), out, sizeof out);
    assert_string_equal(out, "2,4|3");
    /* spec 1.10 (M:tests/profiling/test_semantics.py) */
    assert_true(sm_flop_proxy("attention_splash", "0,8,2048,64|0,8,2048,64") < 0);
    assert_true(sm_flop_proxy("loss_xent", "0,512|0,128256") < 0);
    assert_true(sm_flop_proxy("attention_flash", "2,8,128,64|2,8,128,32") ==
                2.0 * 2 * 8 * 128 * 128 * (64 + 32));
    assert_true(sm_flop_proxy("other", "8,8|4") == 64.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events),         cmocka_unit_test(test_errors_and_refusals),
        cmocka_unit_test(test_devices),        cmocka_unit_test(test_gzip_window),
        cmocka_unit_test(test_file_window),    cmocka_unit_test(test_stream_open),
        cmocka_unit_test(test_python_repr),    cmocka_unit_test(test_seed_semantics),
        cmocka_unit_test(test_number_paths),   cmocka_unit_test(test_region_sweep),
        cmocka_unit_test(test_summary_result), cmocka_unit_test(test_summary_step_classes),
        cmocka_unit_test(test_summary_trims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
