/* test_badinput.c - malformed input never crashes profq and is always rejected the same
 * way: PQ_ERR_INPUT, a byte offset inside the input, a message that starts "expected ".
 *
 * Inputs: every real XPlane under $SHARED/data/xplane (except corrupt/) cut at 200+ points
 * each, and rebuilt with one of its planes or lines cut inside; the corrupt upstream file;
 * seeded random buffers and seeded byte mutations of a real file; empty, JSON, text and
 * gzip files; and an allocation-failure torture of a full load and render. Under
 * `make SANITIZE=address,undefined` any out-of-bounds read, overflow or leak fails here.
 */
#include "testutil.h"

#include "formats/pbwire.h"
#include "model/model.h"

/* ---------------------------------------------------------------------------------------
 * Helpers.
 */

typedef struct file_bytes {
    char *path;
    uint8_t *p;
    size_t n;
} file_bytes;

static file_bytes read_or_fail(const char *path)
{
    file_bytes f;
    f.path = strdup(path);
    f.p = tu_read_file(path, &f.n);
    if (!f.p)
        fail_msg("cannot read %s", path);
    return f;
}

static void file_bytes_free(file_bytes *f)
{
    free(f->path);
    free(f->p);
}

/* The real XPlanes (not corrupt/), sorted; fails when there are none. */
static tu_paths real_xplanes(void)
{
    tu_paths l = tu_find_files(shared_path("xplane"), ".xplane.pb", "corrupt");
    if (l.n == 0)
        fail_msg("no *.xplane.pb under %s", shared_path("xplane"));
    return l;
}

static int discard_write(void *ctx, const void *data, size_t n)
{
    (void)data;
    *(size_t *)ctx += n;
    return 0;
}

/* A loaded profile must survive everything a command does with it. */
static void exercise(pq_profile *prof)
{
    pq_scan_totals t;
    pq_error err;
    size_t bytes = 0;
    pq_sink sink = {discard_write, &bytes};
    assert_int_equal(pq_profile_scan(prof, &t, &err), PQ_OK);
    assert_int_equal(pq_render_scan(prof, &t, PQ_OUT_JSON, &sink, &err), PQ_OK);
    assert_int_equal(pq_render_info(prof, PQ_OUT_JSON, &sink, &err), PQ_OK);
    assert_int_equal(pq_render_info(prof, PQ_OUT_TEXT, &sink, &err), PQ_OK);
    assert_int_equal(pq_render_tools(prof, PQ_OUT_JSON, &sink, &err), PQ_OK);
    assert_true(bytes > 0);
}

/* Checks a rejected load's error record. */
static void check_input_error(pq_status st, const pq_error *err, pq_profile *prof, size_t n,
                              const char *what)
{
    if (st != PQ_ERR_INPUT)
        fail_msg("%s: status %s (%s), want input", what, pq_status_name(st), err->message);
    assert_null(prof);
    assert_int_equal(err->status, PQ_ERR_INPUT);
    if (err->offset < 0 || (uint64_t)err->offset > n)
        fail_msg("%s: offset %lld outside [0, %zu]", what, (long long)err->offset, n);
    if (!tu_starts_with(err->message, "expected "))
        fail_msg("%s: message '%s' does not start with 'expected '", what, err->message);
}

/* Loads N bytes from memory; returns the status, and checks the result is either a
 * well-formed rejection or a loaded profile (which, when FULL, survives every command). */
static pq_status load_any(const uint8_t *p, size_t n, const char *name, int full, pq_error *err)
{
    pq_profile *prof = NULL;
    pq_status st = pq_profile_open_memory(p, n, name, NULL, &prof, err);
    if (st == PQ_OK) {
        assert_non_null(prof);
        if (full)
            exercise(prof);
        pq_profile_free(prof);
    } else {
        check_input_error(st, err, prof, n, name);
    }
    return st;
}

/* Ends of the top-level fields of an XSpace (the offsets where a cut leaves a shorter but
 * valid XSpace), found with the cursor over the whole file. */
typedef struct offsets {
    size_t *v;
    size_t n;
} offsets;

static offsets field_ends(const uint8_t *p, size_t n)
{
    offsets o = {NULL, 0};
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, p, n, NULL);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        o.v = realloc(o.v, (o.n + 1) * sizeof *o.v);
        assert_non_null(o.v);
        o.v[o.n++] = (size_t)(c.p - p);
    }
    assert_int_equal(k, PB_END); /* the real file itself is well-formed at this level */
    return o;
}

static int is_in(const offsets *o, size_t x)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i] == x)
            return 1;
    return 0;
}

/* Cut points for a buffer of N bytes: 0, N-1, EVEN evenly spread, EVEN/4 seeded-random,
 * and boundaries with their neighbours (all of them, or MAX_BOUNDS spread over them: a
 * line has a boundary per event). Returns a malloc'd array (may hold duplicates). */
static size_t *cut_points(size_t n, const offsets *bounds, uint64_t seed, size_t even,
                          size_t max_bounds, size_t *count)
{
    size_t nb = bounds->n < max_bounds ? bounds->n : max_bounds;
    size_t cap = 2 + even + even / 4 + 3 * nb, k = 0;
    size_t *cuts = malloc(cap * sizeof *cuts);
    assert_non_null(cuts);
    cuts[k++] = 0;
    cuts[k++] = n - 1;
    for (size_t i = 0; i < even; i++)
        cuts[k++] = (size_t)((uint64_t)i * n / even);
    for (size_t i = 0; i < even / 4; i++)
        cuts[k++] = (size_t)(tu_rand(&seed) % n);
    for (size_t j = 0; j < nb; j++) {
        size_t b = bounds->v[(size_t)((uint64_t)j * bounds->n / nb)];
        if (b > 0)
            cuts[k++] = b - 1;
        if (b < n)
            cuts[k++] = b;
        if (b + 1 < n)
            cuts[k++] = b + 1;
    }
    *count = k;
    return cuts;
}

/* ---------------------------------------------------------------------------------------
 * Tests.
 */

/* Every real XPlane loads, and its single-pass scan equals pq_profile_scan. */
static void test_real_files_load(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    tu_paths files = real_xplanes();
    for (size_t i = 0; i < files.n; i++) {
        pq_scan_totals single, again;
        pq_open_options opts = {0};
        opts.scan = &single;
        opts.skip_sha256 = 1;
        pq_profile *prof = NULL;
        pq_error err;
        const char *paths[] = {files.items[i]};
        pq_status st = pq_profile_open(paths, 1, &opts, &prof, &err);
        if (st != PQ_OK)
            fail_msg("%s: %s offset %lld: %s", files.items[i], pq_status_name(st),
                     (long long)err.offset, err.message);
        assert_int_equal(pq_profile_scan(prof, &again, &err), PQ_OK);
        assert_true(memcmp(&single, &again, sizeof single) == 0);
        const pq_source_info *info = pq_profile_source(prof, 0);
        assert_int_equal(info->format, PQ_FORMAT_XSPACE);
        assert_true(info->planes > 0 && info->events > 0);
        assert_int_equal(single.events, info->events);
        assert_int_equal(single.event_stats + single.metadata_stats + single.plane_stats,
                         info->stats);
        exercise(prof);
        pq_profile_free(prof);
    }
    tu_paths_free(&files);
}

/* Every prefix of every real XPlane: rejected with an offset inside the prefix, except
 * prefixes that end exactly between two top-level XSpace fields. Those are shorter but
 * valid XSpaces (protobuf has no end marker), so they must load, with the planes they
 * still hold. The empty prefix (cut 0) is an empty file, which profq rejects by design. */
static void test_truncated_prefixes(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    tu_paths files = real_xplanes();
    size_t total_cuts = 0, valid_cuts = 0;
    for (size_t fi = 0; fi < files.n; fi++) {
        file_bytes f = read_or_fail(files.items[fi]);
        offsets bounds = field_ends(f.p, f.n);
        size_t ncuts;
        size_t *cuts = cut_points(f.n, &bounds, 0x5eed0000 + fi, 200, SIZE_MAX, &ncuts);
        assert_true(ncuts >= 200);
        for (size_t i = 0; i < ncuts; i++) {
            size_t cut = cuts[i];
            char what[PATH_MAX + 64];
            snprintf(what, sizeof what, "%s cut at %zu", f.path, cut);
            pq_profile *prof = NULL;
            pq_error err;
            pq_status st = pq_profile_open_memory(f.p, cut, "cut.xplane.pb", NULL, &prof, &err);
            if (cut > 0 && is_in(&bounds, cut)) {
                if (st != PQ_OK)
                    fail_msg("%s (a field boundary): %s offset %lld: %s", what, pq_status_name(st),
                             (long long)err.offset, err.message);
                /* It holds exactly the planes whose fields end at or before the cut. */
                uint32_t planes = 0;
                pb_cursor c;
                pb_field fl = {0};
                pb_init(&c, f.p, cut, NULL);
                while (pb_next(&c, &fl) == PB_FIELD)
                    planes += fl.num == 1 && fl.wire == PB_LEN;
                assert_int_equal(pq_profile_source(prof, 0)->planes, planes);
                pq_profile_free(prof);
                valid_cuts++;
            } else {
                check_input_error(st, &err, prof, cut, what);
            }
            total_cuts++;
        }
        /* A few of the same cuts through real files: the same answer, naming the file. */
        char *dir = tu_mkdtemp();
        for (size_t i = 0; i < ncuts; i += ncuts / 4) {
            char path[PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/cut%zu.xplane.pb", dir, i);
            tu_write_file(path, f.p, cuts[i]);
            pq_profile *mprof = NULL, *fprof = NULL;
            pq_error merr, ferr;
            pq_status ms = pq_profile_open_memory(f.p, cuts[i], path, NULL, &mprof, &merr);
            const char *paths[] = {path};
            pq_status fs = pq_profile_open(paths, 1, NULL, &fprof, &ferr);
            assert_int_equal(fs, ms);
            if (ms == PQ_OK) {
                pq_profile_free(mprof);
                pq_profile_free(fprof);
            } else {
                assert_int_equal(ferr.offset, merr.offset);
                assert_string_equal(ferr.message, merr.message);
                assert_string_equal(ferr.path, path);
            }
        }
        tu_rm_rf(dir);
        free(dir);
        free(cuts);
        free(bounds.v);
        file_bytes_free(&f);
    }
    print_message("%zu cuts over %zu files, %zu at field boundaries\n", total_cuts, files.n,
                  valid_cuts);
    tu_paths_free(&files);
}

/* The biggest length-delimited field of MSG (N bytes), as a span. */
static int biggest_field(const uint8_t *msg, size_t n, uint32_t want_num, pb_field *out)
{
    pb_cursor c;
    pb_field f = {0};
    int found = 0;
    pb_init(&c, msg, n, NULL);
    while (pb_next(&c, &f) == PB_FIELD)
        if (f.num == want_num && f.wire == PB_LEN && (!found || f.len > out->len)) {
            *out = f;
            found = 1;
        }
    return found;
}

/* Builds XSpace{ planes: {PREFIX_FIELDS..., <field NUM: BODY[0..k)>} } for cuts K inside
 * BODY, whose own length is written to match the cut: the outer structure is intact and
 * only the innermost message is cut. Cuts at BODY's field boundaries are valid. */
static void cut_inside(const char *label, const uint8_t *body, size_t n, uint32_t num,
                       int wrap_in_plane, uint64_t seed)
{
    offsets bounds = field_ends(body, n);
    size_t ncuts;
    assert_true(n > 0);
    size_t *cuts = cut_points(n, &bounds, seed, 60, 40, &ncuts);
    for (size_t i = 0; i < ncuts; i++) {
        size_t k = cuts[i];
        tbuf b;
        tb_init(&b);
        size_t pl = 0;
        if (wrap_in_plane) {
            pl = msg_begin(&b, 1);
            put_str_field(&b, 2, "/device:GPU:0");
        }
        put_len_field(&b, num, body, k);
        if (wrap_in_plane)
            msg_end(&b, pl);
        char what[128];
        snprintf(what, sizeof what, "%s cut inside at %zu of %zu", label, k, n);
        pq_error err;
        pq_status st = load_any(b.p, b.n, "inner.xplane.pb", i % 16 == 0, &err);
        int boundary = k == 0 || is_in(&bounds, k);
        if (boundary && st != PQ_OK)
            fail_msg("%s (a boundary): %s offset %lld: %s", what, pq_status_name(st),
                     (long long)err.offset, err.message);
        if (!boundary && st == PQ_OK)
            fail_msg("%s: loaded, want a rejection", what);
        tb_free(&b);
    }
    free(cuts);
    free(bounds.v);
}

static void test_truncated_inside(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    tu_paths files = real_xplanes();
    for (size_t fi = 0; fi < files.n; fi++) {
        file_bytes f = read_or_fail(files.items[fi]);
        pb_field plane, line;
        assert_true(biggest_field(f.p, f.n, 1, &plane));
        cut_inside(f.path, plane.data, plane.len, 1, 0, 0xabc0 + fi);
        if (biggest_field(plane.data, plane.len, 3, &line))
            cut_inside(f.path, line.data, line.len, 3, 1, 0xdef0 + fi);
        file_bytes_free(&f);
    }
    tu_paths_free(&files);
}

static void test_corrupt_upstream_file(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    const char *path = shared_path("xplane/corrupt/tpu_inference_2.utf8-mangled.xplane.pb");
    file_bytes f = read_or_fail(path);
    /* Where the top-level walk first fails is where the loader must point. */
    pb_cursor c;
    pb_field fl = {0};
    int k;
    pb_init(&c, f.p, f.n, NULL);
    while ((k = pb_next(&c, &fl)) == PB_FIELD) {
    }
    assert_int_equal(k, PB_ERROR);
    int64_t want = pb_error_offset(&c);
    pq_profile *prof = NULL;
    pq_error err;
    const char *paths[] = {f.path};
    pq_status st = pq_profile_open(paths, 1, NULL, &prof, &err);
    check_input_error(st, &err, prof, f.n, f.path);
    assert_int_equal(err.offset, want);
    assert_string_equal(err.path, f.path);
    st = pq_profile_open_memory(f.p, f.n, "mangled.xplane.pb", NULL, &prof, &err);
    check_input_error(st, &err, prof, f.n, "mangled (memory)");
    assert_int_equal(err.offset, want);
    file_bytes_free(&f);
}

static void test_random_buffers(void **state)
{
    (void)state;
    uint64_t seed = 0xC0FFEE;
    int ok = 0, rejected = 0;
    for (int i = 0; i < 200; i++) {
        size_t n;
        switch (i % 4) {
        case 0:
            n = (size_t)(tu_rand(&seed) % 17);
            break;
        case 1:
            n = (size_t)(tu_rand(&seed) % 256);
            break;
        case 2:
            n = 256 + (size_t)(tu_rand(&seed) % 4096);
            break;
        default:
            n = 1 + (size_t)(tu_rand(&seed) % 64);
            break;
        }
        uint8_t *p = malloc(n ? n : 1);
        assert_non_null(p);
        for (size_t k = 0; k < n; k++)
            p[k] = (uint8_t)tu_rand(&seed);
        /* Half start like an XSpace (field 1, a length that fits) to get past the first
         * field; some use only the bytes of small valid fields so that they go deep. */
        if (i % 2 && n >= 2) {
            p[0] = 0x0a;
            p[1] = (uint8_t)((n - 2) & 0x7f);
        }
        if (i % 8 == 7)
            for (size_t k = 2; k < n; k++)
                p[k] = (uint8_t)(0x08 + (tu_rand(&seed) % 6) * 8) & (k % 2 ? 0x7f : 0xff);
        pq_error err;
        char name[64];
        snprintf(name, sizeof name, "random%d.xplane.pb", i);
        pq_status st = load_any(p, n, name, 1, &err);
        ok += st == PQ_OK;
        rejected += st == PQ_ERR_INPUT;
        free(p);
    }
    assert_int_equal(ok + rejected, 200);
    assert_true(rejected > 0);
    print_message("random buffers: %d loaded, %d rejected\n", ok, rejected);
}

/* Seeded mutations of a real file: flipped, zeroed and 0x80-set bytes. */
static void test_mutated_real_file(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    tu_paths files = real_xplanes();
    /* The smallest real file keeps this fast. */
    file_bytes f = {NULL, NULL, SIZE_MAX};
    for (size_t i = 0; i < files.n; i++) {
        file_bytes g = read_or_fail(files.items[i]);
        if (g.n < f.n) {
            file_bytes_free(&f);
            f = g;
        } else {
            file_bytes_free(&g);
        }
    }
    uint8_t *m = malloc(f.n);
    assert_non_null(m);
    uint64_t seed = 0xBADC0DE;
    int ok = 0, rejected = 0;
    for (int i = 0; i < 100; i++) {
        memcpy(m, f.p, f.n);
        int nmut = 1 + (int)(tu_rand(&seed) % 4);
        for (int k = 0; k < nmut; k++) {
            size_t at = (size_t)(tu_rand(&seed) % f.n);
            switch (tu_rand(&seed) % 3) {
            case 0:
                m[at] ^= (uint8_t)(1u << (tu_rand(&seed) % 8));
                break;
            case 1:
                m[at] = 0;
                break;
            default:
                m[at] |= 0x80;
                break;
            }
        }
        pq_error err;
        pq_status st = load_any(m, f.n, "mutated.xplane.pb", 1, &err);
        ok += st == PQ_OK;
        rejected += st == PQ_ERR_INPUT;
    }
    assert_int_equal(ok + rejected, 100);
    print_message("mutations of %s: %d loaded, %d rejected\n", f.path, ok, rejected);
    free(m);
    file_bytes_free(&f);
    tu_paths_free(&files);
}

/* Loads PATH as a file; it must be rejected at offset 0 with a message naming MUST_HAVE. */
static void check_rejected_at_0(const char *path, const char *must_have)
{
    pq_profile *prof = NULL;
    pq_error err;
    const char *paths[] = {path};
    pq_status st = pq_profile_open(paths, 1, NULL, &prof, &err);
    check_input_error(st, &err, prof, 0, path);
    assert_int_equal(err.offset, 0);
    assert_string_equal(err.path, path);
    if (must_have && !strstr(err.message, must_have))
        fail_msg("%s: message '%s' lacks '%s'", path, err.message, must_have);
}

/* Writes N bytes as DIR/NAME and checks that profq rejects the file at offset 0. */
static void reject_file(const char *dir, const char *name, const void *data, size_t n,
                        const char *must_have)
{
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    tu_write_file(p, data, n);
    check_rejected_at_0(p, must_have);
}

static void test_not_an_xspace(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    reject_file(dir, "empty.xplane.pb", "", 0, "found an empty file");
    const char *text = "2024-01-01 12:00:00 INFO starting the runtime\n";
    reject_file(dir, "run.log", text, strlen(text), "found plain text");
    /* JSON and gzip are read as trace events by content, whatever the name says: a bare
     * array whose elements are not events, a gzip stream cut short, are input errors. */
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/looks.xplane.pb", dir);
    tu_write_file(p, "  \n[1, 2]", 9);
    pq_profile *prof = NULL;
    pq_error err;
    const char *paths[] = {p};
    pq_status st = pq_profile_open(paths, 1, NULL, &prof, &err);
    check_input_error(st, &err, prof, 9, "looks.xplane.pb");
    assert_int_equal(err.offset, 4); /* the first element, which is not an event object */
    snprintf(p, sizeof p, "%s/x.xplane.pb.gz", dir);
    tu_write_file(p, "\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
    st = pq_profile_open(paths, 1, NULL, &prof, &err);
    check_input_error(st, &err, prof, 8, "x.xplane.pb.gz");
    tu_rm_rf(dir);
    free(dir);
    /* From memory: nothing is an input error at offset 0; a trace with one event that is
     * not a slice loads as a trace source with one event and no slice. */
    st = pq_profile_open_memory("", 0, "empty.xplane.pb", NULL, &prof, &err);
    check_input_error(st, &err, prof, 0, "empty (memory)");
    assert_int_equal(err.offset, 0);
    const char *json = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"op\", \"ts\": 1}]}\n";
    st = pq_profile_open_memory(json, strlen(json), "j.xplane.pb", NULL, &prof, &err);
    assert_int_equal(st, PQ_OK);
    assert_int_equal(pq_profile_source(prof, 0)->format, PQ_FORMAT_TRACE_JSON);
    assert_int_equal(pq_profile_source(prof, 0)->events, 1);
    pq_profile_free(prof);
}

static void test_real_trace_json(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    tu_paths files = tu_find_files(shared_path("trace-json"), "", NULL);
    if (files.n == 0)
        fail_msg("no files under %s", shared_path("trace-json"));
    int plain = 0, loaded = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *f = files.items[i];
        plain += !tu_ends_with(f, ".gz");
        pq_profile *prof = NULL;
        pq_error err;
        const char *paths[] = {f};
        pq_status st = pq_profile_open(paths, 1, NULL, &prof, &err);
        if (strstr(f, "_et.json.gz") || strstr(f, "memory_timeline.raw.gz")) {
            /* JSON that is not trace events (data/INDEX.md): refused, saying what it is. */
            assert_int_equal(st, PQ_ERR_UNSUPPORTED);
            assert_null(prof);
            assert_int_equal(err.offset, 0);
            if (!strstr(err.message, "expected Chrome trace events"))
                fail_msg("%s: '%s'", f, err.message);
            continue;
        }
        if (st != PQ_OK)
            fail_msg("%s: %s", f, err.message);
        const pq_source_info *si = pq_profile_source(prof, 0);
        assert_int_equal(si->format, PQ_FORMAT_TRACE_JSON);
        assert_true(si->events > 0);
        loaded++;
        pq_profile_free(prof);
    }
    assert_true(plain > 0); /* at least one uncompressed JSON trace was tried */
    assert_true(loaded >= 18);
    tu_paths_free(&files);
}

static pq_status open_from_memory(const file_bytes *f, pq_profile **prof, pq_error *err)
{
    return pq_profile_open_memory(f->p, f->n, "tpu_inference_2.xplane.pb", NULL, prof, err);
}

static pq_status open_from_file(const file_bytes *f, pq_profile **prof, pq_error *err)
{
    const char *paths[] = {f->path};
    pq_scan_totals t;
    pq_open_options opts = {0};
    opts.scan = &t;
    opts.threads = 2;
    return pq_profile_open(paths, 1, &opts, prof, err);
}

/* Opens F with OPEN, failing its Nth allocation for N = 1, 2, ... until it loads: every
 * failed open is NOMEM with no profile. Returns the N that loaded. */
static long open_torture(const char *label,
                         pq_status (*open)(const file_bytes *, pq_profile **, pq_error *),
                         const file_bytes *f)
{
    long n;
    int loaded = 0;
    for (n = 1; n < 100000 && !loaded; n++) {
        pq_profile *prof = NULL;
        pq_error err;
        pq_debug_fail_alloc_after(n);
        pq_status st = open(f, &prof, &err);
        pq_debug_fail_alloc_after(0);
        if (st == PQ_OK) {
            assert_non_null(prof);
            pq_profile_free(prof);
            loaded = 1;
        } else {
            if (st != PQ_ERR_NOMEM)
                fail_msg("%sfail after %ld: %s: %s", label, n, pq_status_name(st), err.message);
            assert_null(prof);
            assert_int_equal(err.status, PQ_ERR_NOMEM);
        }
    }
    assert_true(loaded);
    return n;
}

/* SQLite-style torture: fail the Nth allocation of a full load (and of a render), for
 * every N until the operation succeeds. Each result is OK or NOMEM, never a crash, and
 * under ASan nothing leaks. */
static void test_allocation_torture(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    file_bytes f = read_or_fail(shared_path("xplane/tpu_inference_2.xplane.pb"));
    /* From memory, then through the file path (discovery, threads, mapping, the
     * single-pass scan). */
    long n = open_torture("", open_from_memory, &f);
    assert_true(n > 2); /* at least one failure was injected and survived */
    long memory_allocs = n - 1;
    open_torture("file, ", open_from_file, &f);

    /* Rendering: every allocation of info and tools may fail too. */
    pq_profile *prof = NULL;
    pq_error err;
    assert_int_equal(pq_profile_open_memory(f.p, f.n, "t.xplane.pb", NULL, &prof, &err), PQ_OK);
    for (int which = 0; which < 2; which++) {
        int rendered = 0;
        for (n = 1; n < 10000 && !rendered; n++) {
            size_t bytes = 0;
            pq_sink sink = {discard_write, &bytes};
            pq_debug_fail_alloc_after(n);
            pq_status st = which == 0 ? pq_render_info(prof, PQ_OUT_JSON, &sink, &err)
                                      : pq_render_tools(prof, PQ_OUT_JSON, &sink, &err);
            pq_debug_fail_alloc_after(0);
            if (st == PQ_OK)
                rendered = 1;
            else if (st != PQ_ERR_NOMEM)
                fail_msg("render %d, fail after %ld: %s", which, n, pq_status_name(st));
        }
        assert_true(rendered);
    }
    pq_profile_free(prof);
    print_message("torture: a memory load makes %ld allocations\n", memory_allocs);
    file_bytes_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files_load),    cmocka_unit_test(test_truncated_prefixes),
        cmocka_unit_test(test_truncated_inside),   cmocka_unit_test(test_corrupt_upstream_file),
        cmocka_unit_test(test_random_buffers),     cmocka_unit_test(test_mutated_real_file),
        cmocka_unit_test(test_not_an_xspace),      cmocka_unit_test(test_real_trace_json),
        cmocka_unit_test(test_allocation_torture),
    };
    /* Both builds of the XSpace decoder (portable, then BMI2 where the CPU has it). */
    pq_debug_force_decoder(1);
    int failed = cmocka_run_group_tests_name("portable decoder", tests, NULL, NULL);
    pq_debug_force_decoder(2);
    failed += cmocka_run_group_tests_name("bmi2 decoder", tests, NULL, NULL);
    pq_debug_force_decoder(0);
    pq_debug_fail_alloc_after(0);
    return tu_exit_code(failed);
}
