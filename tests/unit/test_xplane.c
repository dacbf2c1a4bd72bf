/* test_xplane.c - the XSpace reader (src/formats/xplane.c) and the model it fills, on
 * XSpaces synthesized byte by byte with testutil.h. Every expectation below follows from
 * how the test built its input (field numbers: shared spec/xprof-tools.md section 1).
 *
 * Each valid XSpace is loaded twice: from memory (pq_profile_open_memory) and from a temp
 * file (pq_profile_open with the single-pass scan), and the two loads, the single-pass scan
 * and pq_profile_scan must all agree (load_ok). Error cases check the status, the byte
 * offset (found by a unique marker string placed next to the bad bytes) and the message.
 */
#include "testutil.h"

#include "formats/load.h"
#include "formats/pbwire.h"
#include "formats/xplane_walk.h"
#include "model/model.h"

#include <math.h>

/* ---------------------------------------------------------------------------------------
 * XSpace builders. Field numbers: XSpace planes 1, errors 2, warnings 3, hostnames 4;
 * XPlane id 1, name 2, lines 3, event_metadata 4, stat_metadata 5, stats 6; XLine id 1,
 * name 2, timestamp_ns 3, events 4, duration_ps 9, display_id 10, display_name 11; XEvent
 * metadata_id 1, offset_ps 2, duration_ps 3, stats 4, num_occurrences 5; XStat
 * metadata_id 1, double 2, uint64 3, int64 4, str 5, bytes 6, ref 7; XEventMetadata id 1,
 * name 2, metadata 3, display_name 4, stats 5, child_id 6; XStatMetadata id 1, name 2,
 * description 3; map entries key 1, value 2.
 */

/* Offset of NEEDLE (M bytes) in the buffer; fails the test when absent or not unique. */
static size_t find_unique(const tbuf *b, const char *needle)
{
    size_t m = strlen(needle), at = SIZE_MAX;
    for (size_t i = 0; i + m <= b->n; i++) {
        if (memcmp(b->p + i, needle, m) == 0) {
            if (at != SIZE_MAX)
                fail_msg("marker '%s' occurs twice", needle);
            at = i;
        }
    }
    if (at == SIZE_MAX)
        fail_msg("marker '%s' not found", needle);
    return at;
}

/* ---------------------------------------------------------------------------------------
 * Loading.
 */

static int scan_equal(const pq_scan_totals *a, const pq_scan_totals *b)
{
    return a->planes == b->planes && a->lines == b->lines && a->events == b->events &&
           a->event_stats == b->event_stats && a->metadata_stats == b->metadata_stats &&
           a->plane_stats == b->plane_stats && a->bytes == b->bytes && a->checksum == b->checksum &&
           memcmp(a->stats_by_kind, b->stats_by_kind, sizeof a->stats_by_kind) == 0;
}

static void print_scan(const char *what, const pq_scan_totals *t)
{
    print_message("%s: planes %llu lines %llu events %llu stats %llu/%llu/%llu bytes %llu "
                  "checksum %lld kinds %llu %llu %llu %llu %llu %llu %llu\n",
                  what, (unsigned long long)t->planes, (unsigned long long)t->lines,
                  (unsigned long long)t->events, (unsigned long long)t->event_stats,
                  (unsigned long long)t->metadata_stats, (unsigned long long)t->plane_stats,
                  (unsigned long long)t->bytes, (long long)t->checksum,
                  (unsigned long long)t->stats_by_kind[0], (unsigned long long)t->stats_by_kind[1],
                  (unsigned long long)t->stats_by_kind[2], (unsigned long long)t->stats_by_kind[3],
                  (unsigned long long)t->stats_by_kind[4], (unsigned long long)t->stats_by_kind[5],
                  (unsigned long long)t->stats_by_kind[6]);
}

/* The file load of the same bytes (named NAME in a temp dir) agrees with the memory load:
 * same model counts, and the single-pass scan equals pq_profile_scan of both loads. */
static void check_file_load_agrees(const tbuf *b, const char *name, const pq_profile *mem)
{
    char *path = tu_write_temp(b->p, b->n, name);
    pq_scan_totals single, again_file, again_mem;
    pq_open_options opts = {0};
    opts.threads = 1;
    opts.scan = &single;
    pq_profile *prof = NULL;
    pq_error err;
    const char *paths[] = {path};
    pq_status st = pq_profile_open(paths, 1, &opts, &prof, &err);
    if (st != PQ_OK)
        fail_msg("file load: %s offset %lld: %s", pq_status_name(st), (long long)err.offset,
                 err.message);
    assert_int_equal(pq_profile_source_count(prof), 1);
    const pq_source_info *fi = pq_profile_source(prof, 0), *mi = pq_profile_source(mem, 0);
    assert_int_equal(fi->planes, mi->planes);
    assert_int_equal(fi->events, mi->events);
    assert_int_equal(fi->stats, mi->stats);
    assert_int_equal(fi->size_bytes, b->n);
    assert_int_equal(fi->format, PQ_FORMAT_XSPACE);
    assert_int_equal(fi->host.n, mi->host.n);
    assert_memory_equal(fi->host.p, mi->host.p, mi->host.n);
    assert_int_equal(strlen(fi->sha256), 64); /* hashed: opts.skip_sha256 was 0 */
    assert_string_equal(mi->sha256, "");      /* the memory load never hashes */
    assert_int_equal(pq_profile_scan(prof, &again_file, &err), PQ_OK);
    assert_int_equal(pq_profile_scan(mem, &again_mem, &err), PQ_OK);
    if (!scan_equal(&single, &again_file) || !scan_equal(&single, &again_mem)) {
        print_scan("single-pass", &single);
        print_scan("scan(file)", &again_file);
        print_scan("scan(memory)", &again_mem);
        fail_msg("scan totals disagree");
    }
    /* The totals are consistent with the source facts. */
    assert_int_equal(single.planes, mi->planes);
    assert_int_equal(single.events, mi->events);
    assert_int_equal(single.event_stats + single.metadata_stats + single.plane_stats, mi->stats);
    uint64_t by_kind = 0;
    for (int k = 0; k < 7; k++)
        by_kind += single.stats_by_kind[k];
    assert_int_equal(by_kind, mi->stats);
    assert_int_equal(single.bytes, b->n);
    pq_profile_free(prof);
    tu_unlink_temp(path);
}

static pq_profile *load_ok(const tbuf *b, const char *name)
{
    pq_profile *prof = NULL;
    pq_error err;
    pq_status st = pq_profile_open_memory(b->p, b->n, name, NULL, &prof, &err);
    if (st != PQ_OK)
        fail_msg("load: %s offset %lld: %s", pq_status_name(st), (long long)err.offset,
                 err.message);
    assert_non_null(prof);
    assert_int_equal(err.status, PQ_OK);
    check_file_load_agrees(b, name, prof);
    return prof;
}

/* Loads bytes that must be rejected; checks memory and file loads report the same error,
 * and returns it in *ERR (from the memory load). */
static pq_status load_fail(const tbuf *b, const char *name, pq_error *err)
{
    pq_profile *prof = (pq_profile *)1;
    pq_status st = pq_profile_open_memory(b->p, b->n, name, NULL, &prof, err);
    assert_int_not_equal(st, PQ_OK);
    assert_null(prof);
    assert_int_equal(err->status, st);
    assert_string_equal(err->path, name);
    char *path = tu_write_temp(b->p, b->n, name);
    pq_error ferr;
    pq_scan_totals t;
    pq_open_options opts = {0};
    opts.scan = &t;
    const char *paths[] = {path};
    prof = (pq_profile *)1;
    assert_int_equal(pq_profile_open(paths, 1, &opts, &prof, &ferr), st);
    assert_null(prof);
    assert_int_equal(ferr.offset, err->offset);
    assert_string_equal(ferr.message, err->message);
    assert_string_equal(ferr.path, path);
    tu_unlink_temp(path);
    return st;
}

static const pq_source *src0(const pq_profile *p)
{
    return &p->sources[0];
}

static void assert_str(pq_str s, const char *want)
{
    if (s.n != strlen(want) || (s.n && memcmp(s.p, want, s.n) != 0))
        fail_msg("got '%.*s', want '%s'", (int)s.n, s.p ? s.p : "", want);
}

/* ---------------------------------------------------------------------------------------
 * Tests.
 */

static void build_basic(tbuf *b)
{
    tb_init(b);
    size_t pl = plane_begin(b, 7, "/device:TPU:0");
    put_stat_meta(b, 1, "clock_rate");
    put_stat_u(b, 6, 1, 1000);
    put_emeta(b, 1, "fusion.1");
    put_emeta(b, 2, "copy.2");
    size_t ln = msg_begin(b, 3);
    put_varint_field(b, 1, 3);
    put_varint_field(b, 10, 30);
    put_str_field(b, 2, "XLA Ops");
    put_str_field(b, 11, "Ops");
    put_varint_field(b, 3, 1000);
    put_varint_field(b, 9, 5000000);
    put_event(b, 1, 500, 100);
    put_event(b, 2, 200, 1000);
    put_event(b, 1, 900, 50);
    msg_end(b, ln);
    ln = line_begin(b, 4, "Empty");
    put_varint_field(b, 3, 99);
    msg_end(b, ln);
    msg_end(b, pl);
    pl = plane_begin(b, 8, "/host:CPU");
    ln = line_begin(b, 77, "python");
    put_varint_field(b, 3, 2000);
    put_event(b, 9, 0, 0);
    msg_end(b, ln);
    msg_end(b, pl);
    put_str_field(b, 4, "hostA");
    put_str_field(b, 4, "hostB");
    put_str_field(b, 2, "profiler error 1");
    put_str_field(b, 3, "profiler warning 1");
    put_str_field(b, 3, "profiler warning 2");
}

static void test_planes_lines_events(void **state)
{
    (void)state;
    tbuf b;
    build_basic(&b);
    pq_profile *prof = load_ok(&b, "basic.xplane.pb");
    assert_int_equal(pq_profile_source_count(prof), 1);
    assert_null(pq_profile_source(prof, 1));
    const pq_source_info *info = pq_profile_source(prof, 0);
    assert_int_equal(info->format, PQ_FORMAT_XSPACE);
    assert_int_equal(info->planes, 2);
    assert_int_equal(info->events, 4);
    assert_int_equal(info->stats, 1);
    assert_int_equal(info->size_bytes, b.n);
    assert_str(info->host, "hostA");
    assert_str(info->path, "basic.xplane.pb");
    const pq_source *s = src0(prof);
    assert_int_equal(s->nhostnames, 2);
    assert_str(s->hostnames[1], "hostB");
    assert_int_equal(s->nerrors, 1);
    assert_str(s->errors[0], "profiler error 1");
    assert_int_equal(s->nwarnings, 2);
    assert_str(s->warnings[1], "profiler warning 2");
    assert_int_equal(s->nprograms, 0);

    const xp_plane *p = &s->planes[0];
    assert_int_equal(p->id, 7);
    assert_str(p->name, "/device:TPU:0");
    assert_int_equal(p->kind, DEV_TPU);
    assert_int_equal(p->nlines, 2);
    assert_int_equal(p->events, 3);
    assert_int_equal(p->nstats, 1);
    assert_int_equal(p->stats[0].kind, STAT_UINT64);
    assert_true(p->stats[0].v.u == 1000);
    assert_str(xp_stat_name(p, &p->stats[0]), "clock_rate");

    const xp_line *l = &p->lines[0];
    assert_int_equal(l->id, 3);
    assert_int_equal(l->display_id, 30);
    assert_str(l->name, "XLA Ops");
    assert_str(l->display_name, "Ops");
    assert_int_equal(l->timestamp_ns, 1000);
    assert_int_equal(l->duration_ps, 5000000);
    assert_int_equal(l->events, 3);
    assert_int_equal(l->event_stats, 0);
    /* first = 1000 ns * 1000 + min(500, 200, 900); end = base + max(600, 1200, 950). */
    assert_int_equal(l->first_ps, 1000200);
    assert_int_equal(l->end_ps, 1001200);

    const int64_t mids[] = {1, 2, 1}, offs[] = {500, 200, 900}, durs[] = {100, 1000, 50};
    xp_event_iter it;
    xp_event ev;
    int n = 0;
    xp_events_begin(l, &it);
    while (xp_events_next(&it, &ev)) {
        assert_true(n < 3);
        assert_int_equal(ev.metadata_id, mids[n]);
        assert_int_equal(ev.offset_ps, offs[n]);
        assert_int_equal(ev.duration_ps, durs[n]);
        assert_int_equal(ev.num_occurrences, 0);
        n++;
    }
    assert_int_equal(n, 3);
    assert_str(xp_event_meta_find(p, 2)->name, "copy.2");
    assert_null(xp_event_meta_find(p, 3));

    l = &p->lines[1];
    assert_int_equal(l->id, 4);
    assert_int_equal(l->display_id, 0);
    assert_str(l->name, "Empty");
    assert_int_equal(l->display_name.n, 0);
    assert_int_equal(l->timestamp_ns, 99);
    assert_int_equal(l->events, 0);
    assert_int_equal(l->first_ps, 0); /* no events: no span */
    assert_int_equal(l->end_ps, 0);
    xp_events_begin(l, &it);
    assert_int_equal(xp_events_next(&it, &ev), 0);

    p = &s->planes[1];
    assert_int_equal(p->id, 8);
    assert_int_equal(p->kind, DEV_HOST_THREADS);
    assert_int_equal(p->nlines, 1);
    assert_int_equal(p->lines[0].first_ps, 2000000);
    assert_int_equal(p->lines[0].end_ps, 2000000);
    assert_int_equal(p->nemeta, 0);
    assert_null(xp_event_meta_find(p, 9)); /* missing metadata resolves to nothing */

    /* pq_profile_scan over it: 4 events, checksum = sum of start + duration (no stats but
     * the plane stat "clock_rate"=1000: 10 for its name length + 1000). */
    pq_scan_totals t;
    pq_error err;
    assert_int_equal(pq_profile_scan(prof, &t, &err), PQ_OK);
    assert_int_equal(t.planes, 2);
    assert_int_equal(t.lines, 3);
    assert_int_equal(t.events, 4);
    assert_int_equal(t.plane_stats, 1);
    assert_int_equal(t.stats_by_kind[STAT_UINT64], 1);
    int64_t want = (1000500 + 100) + (1000200 + 1000) + (1000900 + 50) + 2000000 + 10 + 1000;
    assert_int_equal(t.checksum, want);
    pq_profile_free(prof);
    tb_free(&b);
}

/* An XSpace's timeline is made only when asked (load_xplane_timeline), kept on the first
 * source and found there by a second call; a first source whose reader made a timeline of
 * another format (trace JSON named *.xplane.pb) is refused. */
static void test_timeline_on_demand(void **state)
{
    (void)state;
    tbuf b;
    build_basic(&b);
    pq_profile *prof = load_ok(&b, "basic.xplane.pb");
    assert_null(src0(prof)->slices);
    uint64_t nev = 0;
    pq_error err;
    assert_int_equal(load_xplane_timeline(prof, &nev, &err), PQ_OK);
    assert_int_equal(nev, 4);
    const model_slices *sl = src0(prof)->slices;
    assert_non_null(sl);
    assert_true(sl->n > 0 && sl->n <= 4);
    assert_int_equal(load_xplane_timeline(prof, &nev, &err), PQ_OK);
    assert_ptr_equal(src0(prof)->slices, sl);
    assert_int_equal(nev, 4);
    pq_profile_free(prof);
    tb_free(&b);
    static const char doc[] = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}";
    assert_int_equal(pq_profile_open_memory(doc, sizeof doc - 1, "t.xplane.pb", NULL, &prof, &err),
                     PQ_OK);
    assert_int_equal(load_xplane_timeline(prof, &nev, &err), PQ_ERR_INPUT);
    assert_int_equal(src0(prof)->slices->n, 1);
    pq_profile_free(prof);
}

static void test_device_kinds(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        device_kind kind;
    } cases[] = {
        {"/device:TPU:0", DEV_TPU},
        {"/device:TPU:12", DEV_TPU},
        {"/device:TPU:0 SparseCore 1", DEV_TPU_SPARSECORE},
        {"/device:TPU:", DEV_OTHER},
        {"/device:TPU:x", DEV_OTHER},
        {"#Chip 0 HBM", DEV_TPU_NONCORE},
        {"/device:GPU:3", DEV_GPU},
        {"/device:CUSTOM:MOSAIC:1", DEV_CUSTOM},
        {"/host:CPU", DEV_HOST_THREADS},
        {"/host:metadata", DEV_HOST_METADATA},
        {"/host:CUPTI", DEV_HOST_OTHER},
        {"Task Environment", DEV_OTHER},
        {"", DEV_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        device_kind k = device_kind_of_plane(pq_str_of(cases[i].name, strlen(cases[i].name)));
        if (k != cases[i].kind)
            fail_msg("%s: kind %s, want %s", cases[i].name, device_kind_name(k),
                     device_kind_name(cases[i].kind));
    }
    /* The loader applies it to the plane name. */
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/device:TPU:1 SparseCore 0");
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "k.xplane.pb");
    assert_int_equal(src0(prof)->planes[0].kind, DEV_TPU_SPARSECORE);
    pq_profile_free(prof);
    tb_free(&b);
}

static void test_num_occurrences_and_negative_offsets(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/host:CPU");
    size_t ln = msg_begin(&b, 3);
    put_varint_field(&b, 3, 5);
    size_t e = msg_begin(&b, 4); /* aggregated event: num_occurrences, no offset */
    put_varint_field(&b, 1, 1);
    put_varint_field(&b, 5, 7);
    put_varint_field(&b, 3, 10);
    msg_end(&b, e);
    put_event(&b, 1, 3, 2);
    msg_end(&b, ln);
    ln = msg_begin(&b, 3); /* offsets may be negative (int64 as a 10-byte varint) */
    put_varint_field(&b, 3, 10);
    put_event(&b, 1, -5, 2);
    put_event(&b, 1, -1, -1);
    msg_end(&b, ln);
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "occ.xplane.pb");
    const xp_plane *p = &src0(prof)->planes[0];
    const xp_line *l = &p->lines[0];
    assert_int_equal(l->events, 2);
    assert_int_equal(l->first_ps, 5000);    /* min(0, 3) */
    assert_int_equal(l->end_ps, 5000 + 10); /* max(0 + 10, 3 + 2) */
    xp_event_iter it;
    xp_event ev;
    xp_events_begin(l, &it);
    assert_int_equal(xp_events_next(&it, &ev), 1);
    assert_int_equal(ev.num_occurrences, 7);
    assert_int_equal(ev.offset_ps, 0);
    assert_int_equal(ev.duration_ps, 10);
    assert_int_equal(xp_events_next(&it, &ev), 1);
    assert_int_equal(ev.num_occurrences, 0);
    assert_int_equal(ev.offset_ps, 3);
    assert_int_equal(xp_events_next(&it, &ev), 0);
    l = &p->lines[1];
    assert_int_equal(l->first_ps, 10000 - 5);
    assert_int_equal(l->end_ps, 10000 - 2); /* max(-5 + 2, -1 - 1) */
    xp_events_begin(l, &it);
    assert_int_equal(xp_events_next(&it, &ev), 1);
    assert_int_equal(ev.offset_ps, -5);
    assert_int_equal(xp_events_next(&it, &ev), 1);
    assert_int_equal(ev.duration_ps, -1);
    pq_profile_free(prof);
    tb_free(&b);
}

/* An event may have a huge offset and a negative duration: offset + duration fits, and
 * the line span (from min offset and max end) fits, but timestamp*1000 + that offset does
 * not. Loading accepts it; the scan's checksum must wrap (unsigned), never overflow. */
static void test_negative_duration_scan(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/host:CPU");
    size_t ln = msg_begin(&b, 3);
    put_varint_field(&b, 3, 1);
    put_event(&b, 1, 0, 0);
    put_event(&b, 1, INT64_MAX - 500, -(INT64_MAX - 500));
    msg_end(&b, ln);
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "negdur.xplane.pb");
    const xp_line *l = &src0(prof)->planes[0].lines[0];
    assert_int_equal(l->first_ps, 1000);
    assert_int_equal(l->end_ps, 1000);
    pq_scan_totals t;
    pq_error err;
    assert_int_equal(pq_profile_scan(prof, &t, &err), PQ_OK);
    /* (1000 + 0 + 0) + (1000 + (INT64_MAX - 500) + -(INT64_MAX - 500)) = 2000, mod 2^64. */
    assert_int_equal(t.checksum, 2000);
    pq_profile_free(prof);
    tb_free(&b);
}

static void build_stats(tbuf *b)
{
    tb_init(b);
    size_t pl = plane_begin(b, -1, "/device:GPU:0");
    const char *names[] = {"d", "u", "i", "s", "b", "r", "target name", "n"};
    for (int k = 0; k < 8; k++)
        put_stat_meta(b, k + 1, names[k]);
    put_stat_d(b, 6, 1, 2.5);
    put_stat_s(b, 6, 4, "plane-str");
    emeta_marks m = emeta_begin(b, 1, "ev");
    put_stat_u(b, 5, 2, 42);
    put_stat_ref(b, 5, 6, 7);
    emeta_end(b, m);
    size_t ln = msg_begin(b, 3);
    size_t e = event_begin(b, 1, 1, 2);
    put_stat_d(b, 4, 1, -0.5);
    put_stat_u(b, 4, 2, UINT64_MAX);
    put_stat_i(b, 4, 3, -5);
    put_stat_s(b, 4, 4, "hello");
    put_stat_bytes(b, 4, 5, "\x00\x01\x02", 3);
    put_stat_ref(b, 4, 6, 7);
    size_t none = msg_begin(b, 4); /* a stat with no value */
    put_varint_field(b, 1, 8);
    msg_end(b, none);
    msg_end(b, e);
    msg_end(b, ln);
    msg_end(b, pl);
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void test_stats_every_kind(void **state)
{
    (void)state;
    tbuf b;
    build_stats(&b);
    pq_profile *prof = load_ok(&b, "stats.xplane.pb");
    const xp_plane *p = &src0(prof)->planes[0];
    assert_int_equal(src0(prof)->info.stats, 7 + 2 + 2);
    assert_int_equal(p->metadata_stats, 2);
    assert_int_equal(p->event_stats, 7);
    assert_int_equal(p->lines[0].event_stats, 7);

    /* Plane stats, decoded at load in file order. */
    assert_int_equal(p->nstats, 2);
    assert_int_equal(p->stats[0].kind, STAT_DOUBLE);
    assert_true(p->stats[0].v.d == 2.5);
    assert_str(xp_stat_name(p, &p->stats[0]), "d");
    assert_int_equal(p->stats[1].kind, STAT_STR);
    assert_str(xp_stat_str(p, &p->stats[1]), "plane-str");

    /* Event metadata stats, walked from the metadata body (field 5). */
    const xp_event_meta *em = xp_event_meta_find(p, 1);
    assert_non_null(em);
    assert_int_equal(em->nstats, 2);
    xp_stat_iter it;
    stat_value s;
    xp_stats_begin(&it, em->body, em->body_len, 5);
    assert_int_equal(xp_stats_next(&it, &s), 1);
    assert_int_equal(s.kind, STAT_UINT64);
    assert_true(s.v.u == 42);
    assert_str(xp_stat_name(p, &s), "u");
    assert_int_equal(xp_stats_next(&it, &s), 1);
    assert_int_equal(s.kind, STAT_REF);
    assert_str(xp_stat_str(p, &s), "target name");
    assert_int_equal(xp_stats_next(&it, &s), 0);

    /* Event stats, walked from the event (field 4). */
    xp_event_iter ei;
    xp_event ev;
    xp_events_begin(&p->lines[0], &ei);
    assert_int_equal(xp_events_next(&ei, &ev), 1);
    xp_stats_begin(&it, ev.stats, ev.body_len, 4);
    const stat_kind kinds[] = {STAT_DOUBLE, STAT_UINT64, STAT_INT64, STAT_STR,
                               STAT_BYTES,  STAT_REF,    STAT_NONE};
    const char *names[] = {"d", "u", "i", "s", "b", "r", "n"};
    for (int k = 0; k < 7; k++) {
        assert_int_equal(xp_stats_next(&it, &s), 1);
        assert_int_equal(s.kind, kinds[k]);
        assert_int_equal(s.metadata_id, k == 6 ? 8 : k + 1);
        assert_str(xp_stat_name(p, &s), names[k]);
        switch (s.kind) {
        case STAT_DOUBLE:
            assert_true(s.v.d == -0.5);
            break;
        case STAT_UINT64:
            assert_true(s.v.u == UINT64_MAX);
            break;
        case STAT_INT64:
            assert_true(s.v.i == -5);
            break;
        case STAT_STR:
            assert_str(s.v.s, "hello");
            assert_str(xp_stat_str(p, &s), "hello");
            break;
        case STAT_BYTES:
            assert_int_equal(s.v.s.n, 3);
            assert_memory_equal(s.v.s.p, "\x00\x01\x02", 3);
            assert_int_equal(xp_stat_str(p, &s).n, 0); /* bytes are not a string */
            break;
        case STAT_REF:
            assert_true(s.v.u == 7);
            assert_str(xp_stat_str(p, &s), "target name");
            break;
        case STAT_NONE:
            break;
        }
    }
    assert_int_equal(xp_stats_next(&it, &s), 0);
    assert_int_equal(xp_events_next(&ei, &ev), 0);

    /* A ref to an unknown metadata id resolves to "" and unknown names are "". */
    stat_value dangling = {99, STAT_REF, {.u = 12345}};
    assert_int_equal(xp_stat_str(p, &dangling).n, 0);
    assert_int_equal(xp_stat_name(p, &dangling).n, 0);

    /* Totals by construction. Checksum (mod 2^64): event 0 + 1 + 2 = 3; each stat adds its
     * name length (1) and its value (a double's bit pattern, a string's or bytes' length,
     * a ref's target name length): plane d 1+bits(2.5), s 1+9; metadata u 1+42, r 1+11;
     * event d 1+bits(-0.5), u 1+(2^64-1), i 1-5, s 1+5, b 1+3, r 1+11, n 1. */
    pq_scan_totals t;
    pq_error err;
    assert_int_equal(pq_profile_scan(prof, &t, &err), PQ_OK);
    assert_int_equal(t.event_stats, 7);
    assert_int_equal(t.metadata_stats, 2);
    assert_int_equal(t.plane_stats, 2);
    const uint64_t by_kind[7] = {1, 2, 2, 1, 2, 1, 2};
    for (int k = 0; k < 7; k++)
        assert_int_equal(t.stats_by_kind[k], by_kind[k]);
    uint64_t want = 3 + (1 + dbits(2.5)) + (1 + 9) + (1 + 42) + (1 + 11) + (1 + dbits(-0.5)) +
                    (1 + UINT64_MAX) + (1 - 5) + (1 + 5) + (1 + 3) + (1 + 11) + 1;
    assert_true((uint64_t)t.checksum == want);
    pq_profile_free(prof);
    tb_free(&b);
}

static void test_metadata_maps(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/host:CPU");
    /* Written out of key order, with duplicate keys: the last entry of a key wins. */
    put_emeta(&b, 5, "five-first");
    emeta_marks m = emeta_begin(&b, 1, "one-first");
    put_stat_u(&b, 5, 1, 1); /* a stat on the entry that is overridden below */
    emeta_end(&b, m);
    put_emeta(&b, 1, "one-second");
    put_emeta(&b, 5, "five-second");
    /* The value's own id field (1) is not the key: the map key is. */
    size_t e = msg_begin(&b, 4);
    put_varint_field(&b, 1, 3);
    size_t v = msg_begin(&b, 2);
    put_varint_field(&b, 1, 99);
    put_str_field(&b, 2, "three");
    put_str_field(&b, 4, "3");
    put_len_field(&b, 3, "\x01\x02", 2);
    msg_end(&b, v);
    msg_end(&b, e);
    /* A missing key is 0; a missing value is an empty metadata. */
    e = msg_begin(&b, 4);
    v = msg_begin(&b, 2);
    put_str_field(&b, 2, "zero");
    msg_end(&b, v);
    msg_end(&b, e);
    e = msg_begin(&b, 4);
    put_varint_field(&b, 1, 7);
    msg_end(&b, e);
    /* Stat metadata: duplicates, a missing value, a description. */
    put_stat_meta(&b, 2, "two-first");
    put_stat_meta(&b, 2, "two-second");
    e = msg_begin(&b, 5);
    put_varint_field(&b, 1, 4);
    msg_end(&b, e);
    e = msg_begin(&b, 5);
    put_varint_field(&b, 1, 6);
    v = msg_begin(&b, 2);
    put_str_field(&b, 2, "six");
    put_str_field(&b, 3, "the sixth");
    msg_end(&b, v);
    msg_end(&b, e);
    msg_end(&b, pl);

    pq_profile *prof = load_ok(&b, "maps.xplane.pb");
    const xp_plane *p = &src0(prof)->planes[0];
    assert_int_equal(p->nemeta, 5); /* keys 0, 1, 3, 5, 7 */
    const int64_t keys[] = {0, 1, 3, 5, 7};
    for (int i = 0; i < 5; i++)
        assert_int_equal(p->emeta[i].id, keys[i]); /* sorted by id */
    assert_str(xp_event_meta_find(p, 1)->name, "one-second");
    assert_int_equal(xp_event_meta_find(p, 1)->nstats, 0);
    assert_str(xp_event_meta_find(p, 5)->name, "five-second");
    const xp_event_meta *three = xp_event_meta_find(p, 3);
    assert_str(three->name, "three");
    assert_str(three->display_name, "3");
    assert_int_equal(three->metadata.n, 2);
    assert_null(xp_event_meta_find(p, 99));
    assert_str(xp_event_meta_find(p, 0)->name, "zero");
    const xp_event_meta *seven = xp_event_meta_find(p, 7);
    assert_non_null(seven);
    assert_int_equal(seven->name.n, 0);
    assert_int_equal(seven->nstats, 0);
    /* The overridden entry's stat is gone from every count. */
    assert_int_equal(p->metadata_stats, 0);
    assert_int_equal(src0(prof)->info.stats, 0);

    assert_int_equal(p->nsmeta, 3);
    assert_str(xp_stat_meta_find(p, 2)->name, "two-second");
    assert_non_null(xp_stat_meta_find(p, 4));
    assert_int_equal(xp_stat_meta_find(p, 4)->name.n, 0);
    assert_str(xp_stat_meta_find(p, 6)->description, "the sixth");
    assert_null(xp_stat_meta_find(p, 3));
    assert_str(xp_stat_meta_by_name(p, "six")->name, "six");
    assert_null(xp_stat_meta_by_name(p, "two-first"));
    pq_profile_free(prof);
    tb_free(&b);
}

/* Dense ids (the usual 1..N) take the direct table; sparse or negative ids the binary
 * search. Both must find every id and nothing else. */
static void check_ids(const int64_t *ids, size_t n, int want_dense)
{
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/host:CPU");
    char name[32];
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "s%lld", (long long)ids[i]);
        put_stat_meta(&b, ids[i], name);
        snprintf(name, sizeof name, "e%lld", (long long)ids[i]);
        put_emeta(&b, ids[i], name);
    }
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "ids.xplane.pb");
    const xp_plane *p = &src0(prof)->planes[0];
    assert_int_equal(p->nsmeta, n);
    assert_int_equal(p->nemeta, n);
    assert_int_equal(p->smeta_dense != NULL, want_dense);
    assert_int_equal(p->emeta_dense != NULL, want_dense);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "s%lld", (long long)ids[i]);
        assert_str(xp_stat_meta_find(p, ids[i])->name, name);
        snprintf(name, sizeof name, "e%lld", (long long)ids[i]);
        assert_str(xp_event_meta_find(p, ids[i])->name, name);
        /* Neighbours that are not ids are not found. */
        for (int d = -1; d <= 1; d += 2) {
            int64_t x = ids[i] + d;
            int is_id = 0;
            for (size_t k = 0; k < n; k++)
                is_id |= ids[k] == x;
            if (!is_id) {
                assert_null(xp_stat_meta_find(p, x));
                assert_null(xp_event_meta_find(p, x));
            }
        }
    }
    assert_null(xp_stat_meta_find(p, INT64_MAX));
    assert_null(xp_stat_meta_find(p, INT64_MIN));
    assert_null(xp_event_meta_find(p, INT64_MAX));
    assert_null(xp_event_meta_find(p, INT64_MIN));
    pq_profile_free(prof);
    tb_free(&b);
}

static void test_metadata_ids_dense_and_sparse(void **state)
{
    (void)state;
    int64_t dense[40];
    for (int i = 0; i < 40; i++)
        dense[i] = i + 1;
    check_ids(dense, 40, 1);
    const int64_t holes[] = {1, 3, 4, 10, 0};
    check_ids(holes, 5, 1);
    const int64_t sparse[] = {1, 1000000, 5000000000LL, 77};
    check_ids(sparse, 4, 0);
    const int64_t negative[] = {-3, 2, 4};
    check_ids(negative, 3, 0);
    const int64_t extreme[] = {INT64_MIN + 1, -1, 0, INT64_MAX - 1};
    check_ids(extreme, 4, 0);
    const int64_t one[] = {2047};
    check_ids(one, 1, 0); /* 2047 >= 2*1 + 1024 */
    const int64_t edge[] = {1025};
    check_ids(edge, 1, 1); /* 1025 < 2*1 + 1024 */
}

static void test_child_ids(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/device:TPU:0");
    emeta_marks m = emeta_begin(&b, 1, "fusion");
    const uint8_t packed[] = {0x01, 0x02, 0xac, 0x02}; /* 1, 2, 300 */
    put_len_field(&b, 6, packed, sizeof packed);
    put_varint_field(&b, 6, 4); /* unpacked */
    put_varint_field(&b, 6, 5);
    put_len_field(&b, 6, "", 0); /* empty packed list */
    put_fixed32_field(&b, 6, 9); /* wrong wire type: skipped like an unknown field */
    emeta_end(&b, m);
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "child.xplane.pb");
    assert_int_equal(xp_event_meta_find(&src0(prof)->planes[0], 1)->nchildren, 5);
    pq_profile_free(prof);
    tb_free(&b);

    /* A packed list whose last varint is truncated: rejected at the payload start. */
    tb_init(&b);
    pl = msg_begin(&b, 1);
    m = emeta_begin(&b, 1, "CHILD-MARK");
    const uint8_t bad[] = {0x01, 0x80};
    put_len_field(&b, 6, bad, sizeof bad);
    emeta_end(&b, m);
    msg_end(&b, pl);
    pq_error err;
    assert_int_equal(load_fail(&b, "badchild.xplane.pb", &err), PQ_ERR_INPUT);
    /* marker, then tag 0x32 and length 0x02, then the payload */
    assert_int_equal(err.offset, find_unique(&b, "CHILD-MARK") + 10 + 2);
    assert_string_equal(err.message,
                        "expected a packed or unpacked varint list in XEventMetadata.child_id");
    tb_free(&b);
}

/* Unknown fields of every wire type in every message, and known fields with the wrong wire
 * type, change nothing: the result equals the plain build_stats() XSpace. */
static void put_junk(tbuf *b)
{
    put_varint_field(b, 1000, UINT64_MAX);
    put_fixed64_field(b, 1001, 0x1234);
    put_len_field(b, 1002, "\x0b\x0c junk", 7); /* not a valid message: never parsed */
    put_fixed32_field(b, 1003, 7);
    put_len_field(b, 536870911, "", 0);
}

static void test_unknown_and_miswired_fields(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    put_junk(&b);
    put_varint_field(&b, 1, 5);  /* XSpace.planes as a varint: skipped */
    put_fixed32_field(&b, 4, 5); /* hostnames as fixed32: skipped */
    size_t pl = msg_begin(&b, 1);
    put_junk(&b);
    put_str_field(&b, 2, "/device:GPU:0");
    put_varint_field(&b, 2, 3);   /* name as varint */
    put_len_field(&b, 1, "x", 1); /* id as len */
    put_varint_field(&b, 3, 1);   /* lines as varint */
    put_varint_field(&b, 4, 1);   /* event_metadata as varint */
    put_fixed64_field(&b, 5, 1);  /* stat_metadata as fixed64 */
    put_fixed32_field(&b, 6, 1);  /* stats as fixed32 */
    size_t e = msg_begin(&b, 5);
    put_junk(&b);
    put_varint_field(&b, 1, 1);
    put_len_field(&b, 1, "k", 1); /* key as len: skipped */
    size_t v = msg_begin(&b, 2);
    put_junk(&b);
    put_str_field(&b, 2, "d");
    put_varint_field(&b, 2, 9); /* name as varint */
    put_varint_field(&b, 3, 9); /* description as varint */
    msg_end(&b, v);
    put_varint_field(&b, 2, 1); /* value as varint: skipped */
    msg_end(&b, e);
    emeta_marks m = emeta_begin(&b, 1, "ev");
    put_junk(&b);
    put_varint_field(&b, 4, 1);  /* display_name as varint */
    put_varint_field(&b, 5, 1);  /* stats as varint */
    put_fixed64_field(&b, 3, 1); /* metadata as fixed64 */
    size_t st = msg_begin(&b, 5);
    put_junk(&b);
    put_varint_field(&b, 1, 1);
    put_varint_field(&b, 2, 77);  /* double as varint: no value */
    put_fixed32_field(&b, 3, 77); /* uint64 as fixed32: no value */
    put_fixed64_field(&b, 7, 77); /* ref as fixed64: no value */
    put_len_field(&b, 4, "x", 1); /* int64 as len: no value */
    put_varint_field(&b, 5, 1);   /* str as varint: no value */
    put_fixed32_field(&b, 1, 99); /* metadata_id as fixed32: ignored */
    msg_end(&b, st);
    emeta_end(&b, m);
    size_t ln = msg_begin(&b, 3);
    put_junk(&b);
    put_str_field(&b, 2, "Stream #1");
    put_len_field(&b, 3, "ts", 2);   /* timestamp as len */
    put_varint_field(&b, 3, 100);    /* the real timestamp */
    put_fixed64_field(&b, 9, 1);     /* duration as fixed64 */
    put_len_field(&b, 10, "x", 1);   /* display_id as len */
    put_varint_field(&b, 11, 1);     /* display_name as varint */
    put_varint_field(&b, 4, 12345);  /* events as varint: not an event */
    put_fixed32_field(&b, 4, 12345); /* events as fixed32: not an event */
    size_t ev = msg_begin(&b, 4);
    put_junk(&b);
    put_varint_field(&b, 1, 1);
    put_fixed64_field(&b, 2, 999); /* offset as fixed64: offset stays 0 */
    put_len_field(&b, 3, "d", 1);  /* duration as len */
    put_varint_field(&b, 3, 40);
    put_varint_field(&b, 4, 1);  /* stats as varint: not a stat */
    put_fixed32_field(&b, 5, 3); /* num_occurrences as fixed32 */
    st = msg_begin(&b, 4);
    put_varint_field(&b, 1, 1);
    put_double_field(&b, 2, 1.25);
    put_junk(&b);
    msg_end(&b, st);
    msg_end(&b, ev);
    msg_end(&b, ln);
    msg_end(&b, pl);
    put_len_field(&b, 4, "h", 1);
    put_junk(&b);

    pq_profile *prof = load_ok(&b, "junk.xplane.pb");
    const pq_source *s = src0(prof);
    assert_int_equal(s->nplanes, 1);
    assert_int_equal(s->nhostnames, 1);
    assert_str(s->info.host, "h");
    const xp_plane *p = &s->planes[0];
    assert_str(p->name, "/device:GPU:0");
    assert_int_equal(p->id, 0);
    assert_int_equal(p->nlines, 1);
    assert_int_equal(p->nemeta, 1);
    assert_int_equal(p->nsmeta, 1);
    assert_int_equal(p->nstats, 0);
    assert_str(xp_stat_meta_find(p, 1)->name, "d");
    assert_int_equal(xp_stat_meta_find(p, 1)->description.n, 0);
    const xp_event_meta *em = xp_event_meta_find(p, 1);
    assert_str(em->name, "ev");
    assert_int_equal(em->display_name.n, 0);
    assert_int_equal(em->metadata.n, 0);
    assert_int_equal(em->nstats, 1);
    xp_stat_iter it;
    stat_value sv;
    xp_stats_begin(&it, em->body, em->body_len, 5);
    assert_int_equal(xp_stats_next(&it, &sv), 1);
    assert_int_equal(sv.kind, STAT_NONE);
    assert_int_equal(sv.metadata_id, 1);
    const xp_line *l = &p->lines[0];
    assert_str(l->name, "Stream #1");
    assert_int_equal(l->timestamp_ns, 100);
    assert_int_equal(l->duration_ps, 0);
    assert_int_equal(l->display_id, 0);
    assert_int_equal(l->display_name.n, 0);
    assert_int_equal(l->events, 1);
    assert_int_equal(l->event_stats, 1);
    assert_int_equal(l->first_ps, 100000);
    assert_int_equal(l->end_ps, 100040);
    xp_event_iter ei;
    xp_event e2;
    xp_events_begin(l, &ei);
    assert_int_equal(xp_events_next(&ei, &e2), 1);
    assert_int_equal(e2.metadata_id, 1);
    assert_int_equal(e2.offset_ps, 0);
    assert_int_equal(e2.duration_ps, 40);
    assert_int_equal(e2.num_occurrences, 0);
    xp_stats_begin(&it, e2.stats, e2.body_len, 4);
    assert_int_equal(xp_stats_next(&it, &sv), 1);
    assert_int_equal(sv.kind, STAT_DOUBLE);
    assert_true(sv.v.d == 1.25);
    assert_int_equal(xp_stats_next(&it, &sv), 0);
    assert_int_equal(xp_events_next(&ei, &e2), 0);
    pq_profile_free(prof);
    tb_free(&b);
}

static void test_hostnames(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/host:CPU");
    msg_end(&b, pl);
    /* No hostnames: the file name minus .xplane.pb, as given or as found. */
    pq_profile *prof = load_ok(&b, "worker-3.xplane.pb");
    assert_str(src0(prof)->info.host, "worker-3");
    pq_profile_free(prof);
    prof = load_ok(&b, "odd.pb");
    assert_str(src0(prof)->info.host, "odd.pb");
    pq_profile_free(prof);
    pq_error err;
    assert_int_equal(pq_profile_open_memory(b.p, b.n, "/some/dir/h1.xplane.pb", NULL, &prof, &err),
                     PQ_OK);
    assert_str(src0(prof)->info.host, "h1");
    pq_profile_free(prof);
    assert_int_equal(pq_profile_open_memory(b.p, b.n, NULL, NULL, &prof, &err), PQ_OK);
    assert_str(src0(prof)->info.path, "<memory>");
    pq_profile_free(prof);
    /* An empty hostnames[0] falls back to the file name too. */
    put_str_field(&b, 4, "");
    put_str_field(&b, 4, "second");
    prof = load_ok(&b, "fallback.xplane.pb");
    assert_str(src0(prof)->info.host, "fallback");
    pq_profile_free(prof);
    tb_free(&b);
    tb_init(&b);
    put_str_field(&b, 4, "tpu-vm-0");
    put_str_field(&b, 4, "tpu-vm-1");
    prof = load_ok(&b, "x.xplane.pb");
    assert_str(src0(prof)->info.host, "tpu-vm-0");
    assert_int_equal(src0(prof)->nplanes, 0);
    pq_profile_free(prof);
    tb_free(&b);
}

/* /host:metadata with HloProtos (spec 1.4). */
static void put_program(tbuf *b, int64_t key, const char *name, int64_t hlo_mid, const char *hlo,
                        int64_t pid_mid, int pid_kind, uint64_t pid)
{
    emeta_marks m = emeta_begin(b, key, name);
    if (hlo_mid)
        put_stat_bytes(b, 5, hlo_mid, hlo, strlen(hlo));
    if (pid_kind == 1)
        put_stat_u(b, 5, pid_mid, pid);
    else if (pid_kind == 2)
        put_stat_i(b, 5, pid_mid, (int64_t)pid);
    emeta_end(b, m);
}

static const pq_program *find_program(const pq_source *s, uint64_t id)
{
    for (uint32_t i = 0; i < s->nprograms; i++)
        if (s->programs[i].program_id == id)
            return &s->programs[i];
    return NULL;
}

static void test_programs_new_stat(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/host:metadata");
    put_stat_meta(&b, 1, "Hlo Proto");
    put_stat_meta(&b, 2, "program_id");
    put_program(&b, 10, "jit_f(42)", 1, "HLO-F", 2, 1, 42);
    put_program(&b, 11, "jit_g(7)", 1, "HLO-G", 2, 2, 7);
    put_program(&b, 12, "jit_h", 1, "HLO-H", 0, 0, 0);        /* no program_id: the id */
    put_program(&b, 13, "jit_k(99)", 1, "HLO-K", 0, 0, 0);    /* new writer: suffix unused */
    put_program(&b, 20, "dup_f(42)", 1, "HLO-DUP", 2, 1, 42); /* collides with 10 */
    put_program(&b, 30, "no_hlo(5)", 0, "", 2, 1, 5);         /* no Hlo Proto: skipped */
    emeta_marks m = emeta_begin(&b, 31, "str_hlo(6)");        /* Hlo Proto not bytes */
    put_stat_s(&b, 5, 1, "not bytes");
    emeta_end(&b, m);
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "progs.xplane.pb");
    const pq_source *s = src0(prof);
    assert_int_equal(s->nprograms, 4);
    assert_int_equal(s->duplicate_programs, 1);
    /* Sorted by program id: 7, 12, 13, 42. */
    const uint64_t ids[] = {7, 12, 13, 42};
    for (int i = 0; i < 4; i++)
        assert_true(s->programs[i].program_id == ids[i]);
    const pq_program *p = find_program(s, 42);
    assert_str(p->name, "jit_f");
    assert_str(p->key, "jit_f(42)");
    assert_int_equal(p->hlo_len, 5);
    assert_memory_equal(p->hlo, "HLO-F", 5); /* first (lowest metadata id) wins */
    assert_int_equal(p->legacy_stat_name, 0);
    p = find_program(s, 7);
    assert_str(p->name, "jit_g");
    assert_memory_equal(p->hlo, "HLO-G", 5);
    p = find_program(s, 12);
    assert_str(p->name, "jit_h");
    assert_str(p->key, "jit_h");
    p = find_program(s, 13);
    assert_str(p->name, "jit_k");
    assert_str(p->key, "jit_k(99)");
    assert_null(find_program(s, 99));
    assert_null(find_program(s, 5));
    pq_profile_free(prof);
    tb_free(&b);
}

static void test_programs_legacy_stat(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/host:metadata");
    put_stat_meta(&b, 3, "HLO Proto");
    put_stat_meta(&b, 4, "program_id");
    put_program(&b, 1, "legacy_mod(123)", 3, "HLO-L", 0, 0, 0);
    put_program(&b, 2, "nosuffix", 3, "HLO-N", 0, 0, 0);
    put_program(&b, 3, "both(555)", 3, "HLO-B", 4, 1, 777); /* the stat beats the suffix */
    put_program(&b, 4, "big(18446744073709551615)", 3, "HLO-X", 0, 0, 0);
    put_program(&b, 5, "toobig(18446744073709551616)", 3, "HLO-Y", 0, 0, 0);
    put_program(&b, 6, "notnum(12a)", 3, "HLO-Z", 0, 0, 0);
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "legacy.xplane.pb");
    const pq_source *s = src0(prof);
    assert_int_equal(s->nprograms, 6);
    assert_int_equal(s->duplicate_programs, 0);
    const pq_program *p = find_program(s, 123);
    assert_non_null(p);
    assert_str(p->name, "legacy_mod");
    assert_str(p->key, "legacy_mod(123)");
    assert_int_equal(p->legacy_stat_name, 1);
    p = find_program(s, 2);
    assert_str(p->name, "nosuffix");
    p = find_program(s, 777);
    assert_str(p->name, "both");
    assert_null(find_program(s, 555));
    p = find_program(s, UINT64_MAX);
    assert_str(p->name, "big");
    /* A suffix that overflows uint64 is not a program id: the metadata id is used. */
    p = find_program(s, 5);
    assert_str(p->name, "toobig(18446744073709551616)");
    p = find_program(s, 6);
    assert_str(p->name, "notnum(12a)");
    pq_profile_free(prof);
    tb_free(&b);
}

/* Many programs with one program id: the one with the lowest metadata id wins however the
 * sort shuffles equal keys (the input lists them in descending key order). */
static void test_programs_collisions(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, "/host:metadata");
    put_stat_meta(&b, 1, "Hlo Proto");
    put_stat_meta(&b, 2, "program_id");
    char name[32], hlo[32];
    for (int k = 200; k >= 1; k--) {
        snprintf(name, sizeof name, "m%d(%d)", k, k % 3);
        snprintf(hlo, sizeof hlo, "HLO-%d", k);
        put_program(&b, k, name, 1, hlo, 2, 1, (uint64_t)(k % 3));
    }
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "coll.xplane.pb");
    const pq_source *s = src0(prof);
    assert_int_equal(s->nprograms, 3);
    assert_int_equal(s->duplicate_programs, 197);
    /* program 0: metadata 3, 6, ...: 3 wins; 1: 1 wins; 2: 2 wins. */
    const char *want[] = {"HLO-3", "HLO-1", "HLO-2"};
    for (int i = 0; i < 3; i++) {
        assert_true(s->programs[i].program_id == (uint64_t)i);
        assert_int_equal(s->programs[i].hlo_len, strlen(want[i]));
        assert_memory_equal(s->programs[i].hlo, want[i], strlen(want[i]));
    }
    pq_profile_free(prof);
    tb_free(&b);

    /* Only the /host:metadata plane is searched, and only by stat name (never by id). */
    tb_init(&b);
    pl = plane_begin(&b, -1, "/host:CPU");
    put_stat_meta(&b, 1, "Hlo Proto");
    put_program(&b, 1, "cpu(1)", 1, "HLO", 0, 0, 0);
    msg_end(&b, pl);
    pl = plane_begin(&b, -1, "/host:metadata");
    put_stat_meta(&b, 1, "Hlo Protos"); /* not the name */
    put_program(&b, 1, "meta(1)", 1, "HLO", 0, 0, 0);
    msg_end(&b, pl);
    prof = load_ok(&b, "none.xplane.pb");
    assert_int_equal(src0(prof)->nprograms, 0);
    pq_profile_free(prof);
    tb_free(&b);
}

/* Malformed bytes nested at every level: the error names the structure and the byte
 * offset. MARK is placed right before the bad bytes in the same message. */
typedef enum {
    BAD_EVENT_STAT,
    BAD_EVENT,
    BAD_LINE,
    BAD_EMETA_STAT,
    BAD_SMETA,
    BAD_MAP_ENTRY,
    BAD_PLANE_STAT,
    BAD_PLANE,
    BAD_SPACE
} bad_where;

/* Writes MARK as a string field (FIELD) then a tag with no value (field 1, varint): the
 * varint is missing, so the error is at MARK + len + 1. */
static void put_mark_and_truncation(tbuf *b, uint64_t field, const char *mark)
{
    put_str_field(b, field, mark);
    put_byte(b, 0x08);
}

static void check_bad(bad_where where, const char *in)
{
    const char *mark = "MARK-0123456789";
    tbuf b;
    tb_init(&b);
    size_t pl = 0, ln = 0, ev = 0, st = 0, e = 0, v = 0;
    if (where == BAD_SPACE) {
        put_mark_and_truncation(&b, 4, mark);
        goto done;
    }
    pl = plane_begin(&b, -1, "/device:TPU:0");
    switch (where) {
    case BAD_PLANE:
        put_mark_and_truncation(&b, 2, mark);
        break;
    case BAD_PLANE_STAT:
        st = msg_begin(&b, 6);
        put_mark_and_truncation(&b, 5, mark);
        msg_end(&b, st);
        break;
    case BAD_MAP_ENTRY:
        e = msg_begin(&b, 5);
        put_mark_and_truncation(&b, 2, mark);
        msg_end(&b, e);
        break;
    case BAD_SMETA:
        e = msg_begin(&b, 5);
        put_varint_field(&b, 1, 1);
        v = msg_begin(&b, 2);
        put_mark_and_truncation(&b, 2, mark);
        msg_end(&b, v);
        msg_end(&b, e);
        break;
    case BAD_EMETA_STAT: {
        emeta_marks m = emeta_begin(&b, 1, "x");
        st = msg_begin(&b, 5);
        put_mark_and_truncation(&b, 5, mark);
        msg_end(&b, st);
        emeta_end(&b, m);
        break;
    }
    case BAD_LINE:
    case BAD_EVENT:
    case BAD_EVENT_STAT:
        ln = msg_begin(&b, 3);
        put_varint_field(&b, 3, 1);
        put_event(&b, 1, 1, 1);
        if (where == BAD_LINE) {
            put_mark_and_truncation(&b, 2, mark);
        } else {
            ev = msg_begin(&b, 4);
            put_varint_field(&b, 1, 1);
            if (where == BAD_EVENT) {
                put_mark_and_truncation(&b, 20, mark);
            } else {
                put_stat_u(&b, 4, 1, 5);
                st = msg_begin(&b, 4);
                put_mark_and_truncation(&b, 5, mark);
                msg_end(&b, st);
            }
            msg_end(&b, ev);
        }
        msg_end(&b, ln);
        break;
    case BAD_SPACE:
        break;
    }
    msg_end(&b, pl);
done:;
    pq_error err;
    assert_int_equal(load_fail(&b, "bad.xplane.pb", &err), PQ_ERR_INPUT);
    size_t want = find_unique(&b, mark) + strlen(mark) + 1;
    char msg[256];
    snprintf(msg, sizeof msg, "expected a varint, found the end of the data in %s", in);
    if (err.offset != (int64_t)want || strcmp(err.message, msg) != 0)
        fail_msg("case %d: offset %lld message '%s'; want offset %zu message '%s'", (int)where,
                 (long long)err.offset, err.message, want, msg);
    tb_free(&b);
}

static void test_nested_errors(void **state)
{
    (void)state;
    check_bad(BAD_EVENT_STAT, "an XStat of an XEvent");
    check_bad(BAD_EVENT, "an XEvent");
    check_bad(BAD_LINE, "an XLine");
    check_bad(BAD_EMETA_STAT, "an XStat of an XEventMetadata");
    check_bad(BAD_SMETA, "an XStatMetadata");
    check_bad(BAD_MAP_ENTRY, "a map entry of XPlane metadata");
    check_bad(BAD_PLANE_STAT, "an XStat of an XPlane");
    check_bad(BAD_PLANE, "an XPlane");
    check_bad(BAD_SPACE, "an XSpace");

    /* A bad wire type deep in an event stat, past a valid stat. */
    tbuf b;
    tb_init(&b);
    size_t pl = msg_begin(&b, 1);
    size_t ln = msg_begin(&b, 3);
    size_t ev = msg_begin(&b, 4);
    put_stat_s(&b, 4, 1, "ok");
    size_t st = msg_begin(&b, 4);
    put_str_field(&b, 5, "WT-MARK");
    put_byte(&b, 0x0f); /* field 1, wire type 7 */
    msg_end(&b, st);
    msg_end(&b, ev);
    msg_end(&b, ln);
    msg_end(&b, pl);
    pq_error err;
    assert_int_equal(load_fail(&b, "wt.xplane.pb", &err), PQ_ERR_INPUT);
    assert_int_equal(err.offset, find_unique(&b, "WT-MARK") + 7);
    assert_string_equal(err.message, "expected a wire type of 0, 1, 2 or 5 (groups and types 6/7 "
                                     "are invalid) in an XStat of an XEvent");
    tb_free(&b);
}

/* A host-threads plane whose second line has a damaged event stat, then a device plane
 * named DEVICE. */
static void build_damaged_host(tbuf *b, const char *device)
{
    tb_init(b);
    size_t pl = plane_begin(b, 8, "/host:CPU");
    put_stat_meta(b, 1, "group_id");
    put_emeta(b, 9, "python");
    size_t ln = line_begin(b, 77, "python");
    put_event(b, 9, 0, 10);
    msg_end(b, ln);
    ln = line_begin(b, 78, "worker");
    size_t ev = event_begin(b, 9, 5, 5);
    size_t st = msg_begin(b, 4);
    put_byte(b, 0x0f); /* field 1, wire type 7 */
    msg_end(b, st);
    msg_end(b, ev);
    msg_end(b, ln);
    msg_end(b, pl);
    pl = plane_begin(b, 2, device);
    put_emeta(b, 1, "fusion.1");
    ln = line_begin(b, 3, "XLA Ops");
    put_event(b, 1, 100, 50);
    msg_end(b, ln);
    msg_end(b, pl);
}

static pq_status load_opts(const tbuf *b, int skip, pq_profile **prof, pq_error *err)
{
    pq_open_options opts = {0};
    opts.tpu_skip_host_lines = skip;
    *prof = NULL;
    return pq_profile_open_memory(b->p, b->n, "h.xplane.pb", &opts, prof, err);
}

/* tpu_skip_host_lines: the host threads' lines of a TPU XSpace are not read (nor validated),
 * the plane and its metadata are; without a TPU TensorCore plane, or without the option,
 * the damaged line is refused as before. */
static void test_tpu_skip_host_lines(void **state)
{
    (void)state;
    tbuf b;
    pq_profile *prof;
    pq_error err;
    build_damaged_host(&b, "/device:TPU:0");
    assert_int_equal(load_opts(&b, 1, &prof, &err), PQ_OK);
    const pq_source *s = src0(prof);
    assert_int_equal(s->nplanes, 2);
    assert_str(s->planes[0].name, "/host:CPU");
    assert_int_equal(s->planes[0].nlines, 0);
    assert_int_equal(s->planes[0].events, 0);
    assert_int_equal(s->planes[0].nsmeta, 1);
    assert_int_equal(s->planes[0].nemeta, 1);
    assert_int_equal(s->planes[1].nlines, 1);
    assert_int_equal(s->planes[1].events, 1);
    pq_profile_free(prof);
    assert_int_equal(load_opts(&b, 0, &prof, &err), PQ_ERR_INPUT);
    assert_null(prof);
    assert_non_null(strstr(err.message, "an XStat of an XEvent"));
    tb_free(&b);

    build_damaged_host(&b, "/device:GPU:0");
    assert_int_equal(load_opts(&b, 1, &prof, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "an XStat of an XEvent"));
    tb_free(&b);
    /* A SparseCore plane alone is not a TensorCore one. */
    build_damaged_host(&b, "/device:TPU:0 SparseCore 0");
    assert_int_equal(load_opts(&b, 1, &prof, &err), PQ_ERR_INPUT);
    tb_free(&b);
}

static void test_overflow(void **state)
{
    (void)state;
    /* offset_ps + duration_ps overflows int64: rejected at the event. */
    tbuf b;
    tb_init(&b);
    size_t pl = msg_begin(&b, 1);
    size_t ln = msg_begin(&b, 3);
    put_event(&b, 1, 0, 0);
    size_t ev = msg_begin(&b, 4);
    put_str_field(&b, 99, "EV-MARK"); /* an unknown field first, to locate the event body */
    put_varint_field(&b, 2, (uint64_t)INT64_MAX);
    put_varint_field(&b, 3, 1);
    msg_end(&b, ev);
    msg_end(&b, ln);
    msg_end(&b, pl);
    pq_error err;
    assert_int_equal(load_fail(&b, "ovf.xplane.pb", &err), PQ_ERR_INPUT);
    /* The event body starts at the unknown field's tag (2 bytes) and length (1 byte). */
    assert_int_equal(err.offset, find_unique(&b, "EV-MARK") - 3);
    assert_string_equal(err.message, "expected an XEvent whose offset_ps + duration_ps fits in "
                                     "int64");
    tb_free(&b);

    /* INT64_MIN + -1 underflows too. */
    tb_init(&b);
    pl = msg_begin(&b, 1);
    ln = msg_begin(&b, 3);
    put_event(&b, 1, INT64_MIN, -1);
    msg_end(&b, ln);
    msg_end(&b, pl);
    assert_int_equal(load_fail(&b, "ovf2.xplane.pb", &err), PQ_ERR_INPUT);
    tb_free(&b);

    /* timestamp_ns * 1000 overflows int64 (a line with events): rejected at the line. */
    tb_init(&b);
    pl = msg_begin(&b, 1);
    ln = msg_begin(&b, 3);
    put_str_field(&b, 2, "LN-MARK");
    put_varint_field(&b, 3, (uint64_t)(INT64_MAX / 1000 + 1));
    put_event(&b, 1, 0, 0);
    msg_end(&b, ln);
    msg_end(&b, pl);
    assert_int_equal(load_fail(&b, "ovf3.xplane.pb", &err), PQ_ERR_INPUT);
    assert_int_equal(err.offset, find_unique(&b, "LN-MARK") - 2);
    assert_string_equal(err.message, "expected an XLine whose timestamp_ns*1000 + event offsets "
                                     "fit in int64 ps");
    tb_free(&b);

    /* The product fits but adding the largest event end does not. */
    tb_init(&b);
    pl = msg_begin(&b, 1);
    ln = msg_begin(&b, 3);
    put_varint_field(&b, 3, (uint64_t)(INT64_MAX / 1000));
    put_event(&b, 1, 0, 1000);
    msg_end(&b, ln);
    msg_end(&b, pl);
    assert_int_equal(load_fail(&b, "ovf4.xplane.pb", &err), PQ_ERR_INPUT);
    tb_free(&b);

    /* The same huge timestamp on a line without events has no span to compute: fine. */
    tb_init(&b);
    pl = msg_begin(&b, 1);
    ln = msg_begin(&b, 3);
    put_varint_field(&b, 3, (uint64_t)INT64_MAX);
    msg_end(&b, ln);
    msg_end(&b, pl);
    pq_profile *prof = load_ok(&b, "noevents.xplane.pb");
    assert_int_equal(src0(prof)->planes[0].lines[0].timestamp_ns, INT64_MAX);
    pq_profile_free(prof);
    tb_free(&b);

    /* The largest values that do fit. */
    tb_init(&b);
    pl = msg_begin(&b, 1);
    ln = msg_begin(&b, 3);
    put_varint_field(&b, 3, (uint64_t)(INT64_MAX / 1000));
    put_event(&b, 1, 0, INT64_MAX % 1000);
    msg_end(&b, ln);
    msg_end(&b, pl);
    prof = load_ok(&b, "edge.xplane.pb");
    assert_int_equal(src0(prof)->planes[0].lines[0].end_ps, INT64_MAX);
    pq_profile_free(prof);
    tb_free(&b);
}

/* ---------------------------------------------------------------------------------------
 * Run directories.
 */

static void write_host_file(const char *dir, const char *file, const char *plane)
{
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, -1, plane);
    msg_end(&b, pl);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    tu_write_file(path, b.p, b.n);
    tb_free(&b);
}

static void test_run_directory(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char sub[PATH_MAX];
    write_host_file(dir, "c.xplane.pb", "/host:C");
    write_host_file(dir, "a.xplane.pb", "/host:A");
    write_host_file(dir, "b.xplane.pb", "/host:B");
    tu_write_file(strcat(strcpy(sub, dir), "/notes.txt"), "x", 1);
    tu_write_file(strcat(strcpy(sub, dir), "/.hidden.xplane.pb"), "x", 1);
    pq_profile *prof = NULL;
    pq_error err;
    pq_open_options opts = {0};
    opts.threads = 2;
    const char *paths[] = {dir};
    assert_int_equal(pq_profile_open(paths, 1, &opts, &prof, &err), PQ_OK);
    assert_int_equal(pq_profile_source_count(prof), 3);
    const char *hosts[] = {"a", "b", "c"}, *planes[] = {"/host:A", "/host:B", "/host:C"};
    for (int i = 0; i < 3; i++) {
        char want[PATH_MAX];
        snprintf(want, sizeof want, "%s/%s.xplane.pb", dir, hosts[i]);
        assert_str(pq_profile_source(prof, (size_t)i)->path, want);
        assert_str(pq_profile_source(prof, (size_t)i)->host, hosts[i]);
        assert_str(prof->sources[i].planes[0].name, planes[i]);
    }
    pq_profile_free(prof);

    /* A trailing slash changes nothing but the spelling. */
    char slashed[PATH_MAX];
    snprintf(slashed, sizeof slashed, "%s/", dir);
    paths[0] = slashed;
    assert_int_equal(pq_profile_open(paths, 1, &opts, &prof, &err), PQ_OK);
    assert_int_equal(pq_profile_source_count(prof), 3);
    pq_profile_free(prof);

    /* A file and a directory together: the sources of each, in argument order. */
    char single[PATH_MAX];
    snprintf(single, sizeof single, "%s/b.xplane.pb", dir);
    const char *two[] = {single, dir};
    assert_int_equal(pq_profile_open(two, 2, &opts, &prof, &err), PQ_OK);
    assert_int_equal(pq_profile_source_count(prof), 4);
    assert_str(pq_profile_source(prof, 0)->host, "b");
    assert_str(pq_profile_source(prof, 1)->host, "a");
    pq_profile_free(prof);
    tu_rm_rf(dir);
    free(dir);
}

static void test_plugins_profile_latest_run(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char d1[PATH_MAX], d2[PATH_MAX];
    snprintf(d1, sizeof d1, "%s/plugins/profile/2024_01_01_10_00_00", dir);
    snprintf(d2, sizeof d2, "%s/plugins/profile/2024_02_01_09_00_00", dir);
    tu_mkdirs(d1);
    tu_mkdirs(d2);
    write_host_file(d1, "old1.xplane.pb", "/host:old");
    write_host_file(d1, "old2.xplane.pb", "/host:old");
    write_host_file(d1, "zzz.xplane.pb", "/host:old");
    write_host_file(d2, "new2.xplane.pb", "/host:new2");
    write_host_file(d2, "new1.xplane.pb", "/host:new1");
    pq_profile *prof = NULL;
    pq_error err;
    const char *paths[] = {dir};
    assert_int_equal(pq_profile_open(paths, 1, NULL, &prof, &err), PQ_OK);
    assert_int_equal(pq_profile_source_count(prof), 2);
    assert_str(pq_profile_source(prof, 0)->host, "new1");
    assert_str(pq_profile_source(prof, 1)->host, "new2");
    char want[PATH_MAX + 32];
    snprintf(want, sizeof want, "%s/new1.xplane.pb", d2);
    assert_str(pq_profile_source(prof, 0)->path, want);
    pq_profile_free(prof);
    tu_rm_rf(dir);
    free(dir);
}

static void test_no_profile_in_directory(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/plugins/profile/2024", dir);
    tu_mkdirs(p);
    snprintf(p, sizeof p, "%s/notes.txt", dir);
    tu_write_file(p, "{}", 2);
    pq_profile *prof = (pq_profile *)1;
    pq_error err;
    const char *paths[] = {dir};
    assert_int_equal(pq_profile_open(paths, 1, NULL, &prof, &err), PQ_ERR_NOT_FOUND);
    assert_null(prof);
    char want[PATH_MAX + 32];
    snprintf(want, sizeof want,
             "is a directory holding no profile (no *.xplane.pb, nsys-jax archive or trace JSON "
             "under it)");
    assert_string_equal(err.message, want);
    assert_string_equal(err.path, dir);
    assert_int_equal(err.offset, -1);
    assert_int_equal(err.status, PQ_ERR_NOT_FOUND);
    /* A path that does not exist at all is an I/O error, and no paths is a usage error. */
    snprintf(p, sizeof p, "%s/missing.xplane.pb", dir);
    paths[0] = p;
    assert_int_equal(pq_profile_open(paths, 1, NULL, &prof, &err), PQ_ERR_IO);
    assert_string_equal(err.path, p);
    assert_int_equal(pq_profile_open(paths, 0, NULL, &prof, &err), PQ_ERR_USAGE);
    tu_rm_rf(dir);
    free(dir);
}

/* A run directory whose second file is malformed: the error names that file. */
static void test_directory_with_bad_file(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    write_host_file(dir, "a.xplane.pb", "/host:A");
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/b.xplane.pb", dir);
    tu_write_file(p, "\x0a\x05\x12", 3);
    write_host_file(dir, "c.xplane.pb", "/host:C");
    pq_profile *prof = NULL;
    pq_error err;
    const char *paths[] = {dir};
    assert_int_equal(pq_profile_open(paths, 1, NULL, &prof, &err), PQ_ERR_INPUT);
    assert_null(prof);
    assert_string_equal(err.path, p);
    assert_int_equal(err.offset, 1);
    assert_true(tu_starts_with(err.message, "expected "));
    tu_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planes_lines_events),
        cmocka_unit_test(test_timeline_on_demand),
        cmocka_unit_test(test_device_kinds),
        cmocka_unit_test(test_num_occurrences_and_negative_offsets),
        cmocka_unit_test(test_negative_duration_scan),
        cmocka_unit_test(test_stats_every_kind),
        cmocka_unit_test(test_metadata_maps),
        cmocka_unit_test(test_metadata_ids_dense_and_sparse),
        cmocka_unit_test(test_child_ids),
        cmocka_unit_test(test_unknown_and_miswired_fields),
        cmocka_unit_test(test_hostnames),
        cmocka_unit_test(test_programs_new_stat),
        cmocka_unit_test(test_programs_legacy_stat),
        cmocka_unit_test(test_programs_collisions),
        cmocka_unit_test(test_nested_errors),
        cmocka_unit_test(test_tpu_skip_host_lines),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_run_directory),
        cmocka_unit_test(test_plugins_profile_latest_run),
        cmocka_unit_test(test_no_profile_in_directory),
        cmocka_unit_test(test_directory_with_bad_file),
    };
    /* Every test runs with both builds of the XSpace decoder (portable, then BMI2 where the
     * CPU has it; see src/formats/xplane_bmi2.c). */
    pq_debug_force_decoder(1);
    int failed = cmocka_run_group_tests_name("portable decoder", tests, NULL, NULL);
    pq_debug_force_decoder(2);
    failed += cmocka_run_group_tests_name("bmi2 decoder", tests, NULL, NULL);
    pq_debug_force_decoder(0);
    return tu_exit_code(failed);
}
