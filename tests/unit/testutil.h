/* testutil.h - shared helpers for profq's cmocka unit tests.
 *
 * A small protobuf WRITER (a growable byte buffer with varint, tag, fixed, length-
 * delimited and nested-message helpers) so tests can synthesize XSpaces byte by byte;
 * temp files and directories; and locating ../shared, whose absence skips a test (with a
 * message) unless CI=true, where it fails. Not a protobuf library: it writes exactly the
 * bytes it is told to, malformed ones included, and it is never linked into libprofq.
 *
 * Everything here is static inline: each test is one translation unit, and inline keeps
 * -Wunused-function quiet for the helpers a test does not use.
 */
#ifndef PQ_TESTS_TESTUTIL_H
#define PQ_TESTS_TESTUTIL_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "profq.h"

/* ---------------------------------------------------------------------------------------
 * The byte buffer and protobuf writer.
 */

typedef struct tbuf {
    uint8_t *p;
    size_t n, cap;
} tbuf;

static inline void tb_init(tbuf *b)
{
    b->p = NULL;
    b->n = b->cap = 0;
}

static inline void tb_free(tbuf *b)
{
    free(b->p);
    tb_init(b);
}

static inline void tb_reserve(tbuf *b, size_t extra)
{
    if (b->n + extra <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        fprintf(stderr, "testutil: out of memory\n");
        abort();
    }
    b->p = p;
    b->cap = cap;
}

static inline void put_bytes(tbuf *b, const void *data, size_t n)
{
    if (!n)
        return;
    tb_reserve(b, n);
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static inline void put_byte(tbuf *b, uint8_t v)
{
    put_bytes(b, &v, 1);
}

/* Base-128 varint, 1..10 bytes, canonical (shortest) form. */
static inline size_t varint_encode(uint8_t out[10], uint64_t v)
{
    size_t k = 0;
    while (v >= 0x80) {
        out[k++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[k++] = (uint8_t)v;
    return k;
}

static inline void put_varint(tbuf *b, uint64_t v)
{
    uint8_t tmp[10];
    put_bytes(b, tmp, varint_encode(tmp, v));
}

/* A tag: (field << 3) | wire. FIELD is 64-bit so tests can write out-of-range tags. */
static inline void put_tag(tbuf *b, uint64_t field, uint32_t wire)
{
    put_varint(b, (field << 3) | wire);
}

static inline void put_fixed32(tbuf *b, uint32_t v)
{
    uint8_t t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    put_bytes(b, t, 4);
}

static inline void put_fixed64(tbuf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    put_bytes(b, t, 8);
}

static inline void put_double(tbuf *b, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    put_fixed64(b, bits);
}

/* Whole fields: tag + value. Wire types: 0 varint, 1 fixed64, 2 len, 5 fixed32. */
static inline void put_varint_field(tbuf *b, uint64_t field, uint64_t v)
{
    put_tag(b, field, 0);
    put_varint(b, v);
}

static inline void put_fixed32_field(tbuf *b, uint64_t field, uint32_t v)
{
    put_tag(b, field, 5);
    put_fixed32(b, v);
}

static inline void put_fixed64_field(tbuf *b, uint64_t field, uint64_t v)
{
    put_tag(b, field, 1);
    put_fixed64(b, v);
}

static inline void put_double_field(tbuf *b, uint64_t field, double d)
{
    put_tag(b, field, 1);
    put_double(b, d);
}

static inline void put_len_field(tbuf *b, uint64_t field, const void *data, size_t n)
{
    put_tag(b, field, 2);
    put_varint(b, n);
    put_bytes(b, data, n);
}

static inline void put_str_field(tbuf *b, uint64_t field, const char *s)
{
    put_len_field(b, field, s, strlen(s));
}

/* Appends SUB as a length-delimited field (a nested message built separately). */
static inline void put_msg_field(tbuf *b, uint64_t field, const tbuf *sub)
{
    put_len_field(b, field, sub->p, sub->n);
}

/*
 * Nested messages written in place: msg_begin writes the tag and returns a mark; the
 * caller appends the message body; msg_end inserts the body's length (a varint) at the
 * mark. Marks nest like parentheses (end the inner message before the outer one).
 */
static inline size_t msg_begin(tbuf *b, uint64_t field)
{
    put_tag(b, field, 2);
    return b->n;
}

static inline void msg_end(tbuf *b, size_t mark)
{
    uint8_t len[10];
    size_t body = b->n - mark;
    size_t k = varint_encode(len, body);
    tb_reserve(b, k);
    memmove(b->p + mark + k, b->p + mark, body);
    memcpy(b->p + mark, len, k);
    b->n += k;
}

/* ---------------------------------------------------------------------------------------
 * XSpace pieces (spec/xprof-tools.md section 1): XPlane event_metadata 4, stat_metadata 5;
 * XLine events 4; XEvent metadata_id 1, offset_ps 2, duration_ps 3; XStat metadata_id 1,
 * double 2, uint64 3, int64 4, str 5, bytes 6, ref 7; map entries key 1, value 2 (whose id
 * is 1 and name 2).
 */

/* A stat_metadata entry (field 5 of an XPlane): KEY -> {id KEY, name NAME}. */
static inline void put_stat_meta(tbuf *b, int64_t key, const char *name)
{
    size_t e = msg_begin(b, 5);
    put_varint_field(b, 1, (uint64_t)key);
    size_t v = msg_begin(b, 2);
    put_varint_field(b, 1, (uint64_t)key);
    put_str_field(b, 2, name);
    msg_end(b, v);
    msg_end(b, e);
}

/* stat_metadata entries FIRST_KEY, FIRST_KEY + 1, ... named by the arguments up to NULL. */
static inline void put_stat_metas(tbuf *b, int64_t first_key, ...)
{
    va_list ap;
    va_start(ap, first_key);
    for (const char *name; (name = va_arg(ap, const char *)) != NULL;)
        put_stat_meta(b, first_key++, name);
    va_end(ap);
}

/* Opens an XPlane (XSpace field 1) with its id (none when ID < 0) and name; msg_end closes
 * it. */
static inline size_t plane_begin(tbuf *b, int64_t id, const char *name)
{
    size_t m = msg_begin(b, 1);
    if (id >= 0)
        put_varint_field(b, 1, (uint64_t)id);
    put_str_field(b, 2, name);
    return m;
}

/* Opens an XLine (XPlane field 3) with its id and name; msg_end closes it. */
static inline size_t line_begin(tbuf *b, int64_t id, const char *name)
{
    size_t m = msg_begin(b, 3);
    put_varint_field(b, 1, (uint64_t)id);
    put_str_field(b, 2, name);
    return m;
}

/* Opens an event_metadata entry (key, value{id, name (when not NULL)}); the caller may add
 * fields to the value (stats, child ids) and then calls emeta_end. */
typedef struct emeta_marks {
    size_t entry, value;
} emeta_marks;

static inline emeta_marks emeta_begin(tbuf *b, int64_t key, const char *name)
{
    emeta_marks m;
    m.entry = msg_begin(b, 4);
    put_varint_field(b, 1, (uint64_t)key);
    m.value = msg_begin(b, 2);
    put_varint_field(b, 1, (uint64_t)key);
    if (name)
        put_str_field(b, 2, name);
    return m;
}

static inline void emeta_end(tbuf *b, emeta_marks m)
{
    msg_end(b, m.value);
    msg_end(b, m.entry);
}

static inline void put_emeta(tbuf *b, int64_t key, const char *name)
{
    emeta_end(b, emeta_begin(b, key, name));
}

/* Opens an XEvent (field 4 of an XLine) of metadata MID at offset OFF lasting DUR (ps);
 * the caller may add stats, then msg_end closes it. */
static inline size_t event_begin(tbuf *b, int64_t mid, int64_t off, int64_t dur)
{
    size_t e = msg_begin(b, 4);
    put_varint_field(b, 1, (uint64_t)mid);
    put_varint_field(b, 2, (uint64_t)off);
    put_varint_field(b, 3, (uint64_t)dur);
    return e;
}

static inline void put_event(tbuf *b, int64_t mid, int64_t off, int64_t dur)
{
    msg_end(b, event_begin(b, mid, off, dur));
}

/* XStats as field FIELD of the enclosing message, of stat metadata MID: the value as a
 * double, uint64, int64, str, bytes or ref. */
static inline size_t stat_begin(tbuf *b, uint64_t field, int64_t mid)
{
    size_t m = msg_begin(b, field);
    put_varint_field(b, 1, (uint64_t)mid);
    return m;
}

static inline void put_stat_d(tbuf *b, uint64_t field, int64_t mid, double d)
{
    size_t m = stat_begin(b, field, mid);
    put_double_field(b, 2, d);
    msg_end(b, m);
}

static inline void put_stat_u(tbuf *b, uint64_t field, int64_t mid, uint64_t v)
{
    size_t m = stat_begin(b, field, mid);
    put_varint_field(b, 3, v);
    msg_end(b, m);
}

static inline void put_stat_i(tbuf *b, uint64_t field, int64_t mid, int64_t v)
{
    size_t m = stat_begin(b, field, mid);
    put_varint_field(b, 4, (uint64_t)v);
    msg_end(b, m);
}

static inline void put_stat_s(tbuf *b, uint64_t field, int64_t mid, const char *s)
{
    size_t m = stat_begin(b, field, mid);
    put_str_field(b, 5, s);
    msg_end(b, m);
}

static inline void put_stat_bytes(tbuf *b, uint64_t field, int64_t mid, const void *p, size_t n)
{
    size_t m = stat_begin(b, field, mid);
    put_len_field(b, 6, p, n);
    msg_end(b, m);
}

static inline void put_stat_ref(tbuf *b, uint64_t field, int64_t mid, uint64_t ref)
{
    size_t m = stat_begin(b, field, mid);
    put_varint_field(b, 7, ref);
    msg_end(b, m);
}

/* ---------------------------------------------------------------------------------------
 * Temp files and directories.
 */

/* Creates a fresh directory under $TMPDIR (or /tmp); returns a malloc'd path. */
static inline char *tu_mkdtemp(void)
{
    const char *t = getenv("TMPDIR");
    char *p = malloc(PATH_MAX);
    assert_non_null(p);
    snprintf(p, PATH_MAX, "%s/profq-test-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(p))
        fail_msg("mkdtemp(%s): %s", p, strerror(errno));
    return p;
}

/* Creates DIR and its parents (like mkdir -p). */
static inline void tu_mkdirs(const char *dir)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *s = tmp + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                fail_msg("mkdir(%s): %s", tmp, strerror(errno));
            *s = '/';
        }
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        fail_msg("mkdir(%s): %s", tmp, strerror(errno));
}

/* Writes N bytes to PATH (created or truncated). */
static inline void tu_write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("fopen(%s): %s", path, strerror(errno));
    if (n && fwrite(data, 1, n, f) != n)
        fail_msg("fwrite(%s) failed", path);
    if (fclose(f) != 0)
        fail_msg("fclose(%s) failed", path);
}

/* Writes the buffer to <fresh temp dir>/NAME; returns the malloc'd file path. The
 * directory is removed by tu_rm_rf(dirname) or, simpler, tu_unlink_temp(path). */
static inline char *tu_write_temp(const void *data, size_t n, const char *name)
{
    char *dir = tu_mkdtemp();
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    assert_non_null(path);
    snprintf(path, len, "%s/%s", dir, name);
    free(dir);
    tu_write_file(path, data, n);
    return path;
}

/* Reads a whole file into a malloc'd buffer; returns NULL when it cannot be read. */
static inline uint8_t *tu_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    uint8_t *p = malloc(cap);
    assert_non_null(p);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            p = realloc(p, cap);
            assert_non_null(p);
        }
        size_t k = fread(p + len, 1, cap - len, f);
        len += k;
        if (k == 0)
            break;
    }
    fclose(f);
    *n = len;
    return p;
}

/* Removes PATH: a file, or a directory and everything below it (symlinks not followed). */
static inline void tu_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char child[PATH_MAX];
                if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= (int)sizeof child)
                    continue;
                tu_rm_rf(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Removes a file made by tu_write_temp and its temp directory; frees PATH. */
static inline void tu_unlink_temp(char *path)
{
    unlink(path);
    char *slash = strrchr(path, '/');
    if (slash) {
        *slash = 0;
        rmdir(path);
    }
    free(path);
}

/* A list of paths (malloc'd strings), e.g. the files under a folder. */
typedef struct tu_paths {
    char **items;
    size_t n;
} tu_paths;

static inline void tu_paths_free(tu_paths *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

static inline int tu_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline int tu_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

static inline void tu_find_rec(const char *dir, const char *suffix, const char *skip_dir,
                               tu_paths *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
            continue;
        struct stat st;
        if (stat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (!skip_dir || strcmp(e->d_name, skip_dir) != 0)
                tu_find_rec(p, suffix, skip_dir, out);
        } else if (tu_ends_with(e->d_name, suffix)) {
            out->items = realloc(out->items, (out->n + 1) * sizeof *out->items);
            assert_non_null(out->items);
            out->items[out->n++] = strdup(p);
        }
    }
    closedir(d);
}

/* Files under DIR (recursively) whose names end with SUFFIX, skipping folders named
 * SKIP_DIR (may be NULL); sorted. */
static inline tu_paths tu_find_files(const char *dir, const char *suffix, const char *skip_dir)
{
    tu_paths out = {NULL, 0};
    tu_find_rec(dir, suffix, skip_dir, &out);
    if (out.n > 1)
        qsort(out.items, out.n, sizeof *out.items, tu_cmp_str);
    return out;
}

/* ---------------------------------------------------------------------------------------
 * ../shared: real profiles. Tests that need them skip with a message when the folder is
 * absent, except under CI=true, where its absence is a failure.
 */

static int tu_skipped_tests; /* how many tests skipped for want of ../shared */

static inline int tu_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The shared folder: $SHARED, else <repo>/../shared where <repo> is the nearest folder
 * above this executable (or the working directory) that holds include/profq.h. */
static inline const char *shared_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    const char *env = getenv("SHARED");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    char start[2][PATH_MAX];
    int nstart = 0;
    ssize_t k = readlink("/proc/self/exe", start[0], sizeof start[0] - 1);
    if (k > 0) {
        start[0][k] = 0;
        nstart++;
    }
    if (getcwd(start[nstart], sizeof start[nstart]))
        nstart++;
    for (int s = 0; s < nstart; s++) {
        char cur[PATH_MAX];
        memcpy(cur, start[s], sizeof cur);
        for (;;) {
            char probe[PATH_MAX + 32];
            snprintf(probe, sizeof probe, "%s/include/profq.h", cur);
            if (access(probe, R_OK) == 0) {
                snprintf(dir, sizeof dir, "%.*s/../shared", PATH_MAX - 20, cur);
                return dir;
            }
            char *slash = strrchr(cur, '/');
            if (!slash || slash == cur)
                break;
            *slash = 0;
        }
    }
    snprintf(dir, sizeof dir, "../shared");
    return dir;
}

/* "<shared>/data/<rel>" into a static buffer. */
static inline const char *shared_path(const char *rel)
{
    static char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/data/%s", shared_dir(), rel);
    return p;
}

static inline int tu_ci(void)
{
    const char *ci = getenv("CI");
    return ci && strcmp(ci, "true") == 0;
}

/* Skips the current cmocka test (with a message) when <shared>/data is absent; fails it
 * instead under CI=true. Use at the top of every test that reads real profiles. */
#define REQUIRE_SHARED()                                                                           \
    do {                                                                                           \
        char tu_data_[PATH_MAX + 16];                                                              \
        snprintf(tu_data_, sizeof tu_data_, "%s/data", shared_dir());                              \
        if (!tu_is_dir(tu_data_)) {                                                                \
            if (tu_ci())                                                                           \
                fail_msg("%s is missing, and CI=true forbids skipping", tu_data_);                 \
            print_message("SKIP: %s is missing (set SHARED to the shared folder)\n", tu_data_);    \
            tu_skipped_tests++;                                                                    \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* Exit status for a test binary (the suite contract of tests/run.sh): 1 when a test
 * failed, 77 when none failed but some skipped for want of ../shared, else 0. */
static inline int tu_exit_code(int failed)
{
    if (failed)
        return 1;
    return tu_skipped_tests ? 77 : 0;
}

/* ---------------------------------------------------------------------------------------
 * Misc.
 */

/* Deterministic xorshift64* generator for seeded "random" tests. */
static inline uint64_t tu_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static inline int tu_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

#endif
