/* replay.c - the fuzz regression driver (zstd's fuzz/regression.c, SQLite's corpus replay):
 * feeds every file under the given paths, and 64 truncated prefixes of each, to
 * LLVMFuzzerTestOneInput, without libFuzzer. It is linked once per fuzz target:
 * build/fuzz_replay (fuzz_xspace.c) and build/fuzz_replay_ttlog (fuzz_ttlog.c). `make test`
 * runs them over fuzz/corpus/<target> and the shared real files, so every crasher ever
 * found stays fixed.
 *
 *   fuzz_replay PATH...   (directories are walked recursively, in sorted order)
 *
 * Exit: 0 when every input ran; 77 (skip) when no input file was found at all; 1 when
 * CI=true and a given path is missing (CI must have ../shared), or on a read error.
 * A crash names the input and prefix length on stderr before the signal is re-raised.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NCUTS = 64, MAX_DEPTH = 32 };

typedef struct replay {
    unsigned long inputs, prefixes;
    int read_errors;
} replay;

/* What is running now, for the crash message (written only outside signal context). */
static char current_path[4096];
static size_t current_len;

static void put_str(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void on_crash(int sig)
{
    /* Async-signal-safe: write(2) only, then die of the same signal. */
    char num[24];
    size_t v = current_len, i = sizeof num;
    num[--i] = '\0';
    do {
        num[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_str("fuzz-replay: crashed on ");
    put_str(current_path);
    put_str(" (first ");
    put_str(num + i);
    put_str(" bytes)\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Runs one input from a buffer of exactly SIZE bytes, so a sanitizer sees any overread. */
static void run_one(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) {
        fprintf(stderr, "fuzz-replay: out of memory for %zu bytes\n", size);
        exit(1);
    }
    if (size)
        memcpy(copy, data, size);
    current_len = size;
    LLVMFuzzerTestOneInput(copy, size);
    free(copy);
}

static int read_file(const char *path, uint8_t **out, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int ok = buf && !ferror(f);
    fclose(f);
    if (!ok) {
        free(buf);
        return 0;
    }
    *out = buf;
    *n = len;
    return 1;
}

static void replay_file(replay *r, const char *path)
{
    uint8_t *data;
    size_t n;
    if (!read_file(path, &data, &n)) {
        fprintf(stderr, "fuzz-replay: cannot read %s: %s\n", path, strerror(errno));
        r->read_errors++;
        return;
    }
    snprintf(current_path, sizeof current_path, "%s", path);
    run_one(data, n);
    r->inputs++;
    /* Prefixes at 64 evenly spaced cut points in [0, n); equal lengths run once. */
    size_t last = (size_t)-1;
    for (size_t k = 0; k < NCUTS; k++) {
        size_t cut = (size_t)((uint64_t)n * k / NCUTS);
        if (cut == last || cut == n)
            continue;
        last = cut;
        run_one(data, cut);
        r->prefixes++;
    }
    free(data);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_path(replay *r, const char *path, int depth);

static void replay_dir(replay *r, const char *path, int depth)
{
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "fuzz-replay: cannot open %s: %s\n", path, strerror(errno));
        r->read_errors++;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                exit(1);
            names = nn;
        }
        size_t len = strlen(path) + 1 + strlen(e->d_name) + 1;
        names[n] = malloc(len);
        if (!names[n])
            exit(1);
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str); /* deterministic order */
    for (size_t i = 0; i < n; i++) {
        replay_path(r, names[i], depth + 1);
        free(names[i]);
    }
    free(names);
}

static void replay_path(replay *r, const char *path, int depth)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fuzz-replay: cannot stat %s: %s\n", path, strerror(errno));
        r->read_errors++;
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        if (depth < MAX_DEPTH)
            replay_dir(r, path, depth);
    } else if (S_ISREG(st.st_mode)) {
        replay_file(r, path);
    }
}

int main(int argc, char **argv)
{
    const char *ci = getenv("CI");
    int strict = ci && strcmp(ci, "true") == 0;
    int missing = 0;
    replay r = {0, 0, 0};
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGILL, on_crash);
    signal(SIGABRT, on_crash);
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_replay PATH...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz-replay: %s is missing; skipped%s\n", argv[i],
                    strict ? " (CI=true: a failure)" : "");
            missing++;
            continue;
        }
        replay_path(&r, argv[i], 0);
    }
    printf("fuzz-replay: %lu inputs, %lu prefixes\n", r.inputs, r.prefixes);
    if (strict && missing)
        return 1;
    if (r.read_errors)
        return 1;
    if (r.inputs == 0) {
        fprintf(stderr, "fuzz-replay: no input file found; skipping\n");
        return 77;
    }
    return 0;
}
