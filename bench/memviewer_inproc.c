/* memviewer_inproc.c - the in-process half of the memory-viewer benchmark
 * (bench/memviewer.py): the same work as `profq memory-viewer --format xprof --module M
 * [--memory-space S] -o OUT FILE`, through the library entry points, in a loop: open the
 * file (pq_profile_open without hashing, reading only the HloProtos of an XSpace, as the
 * CLI), render the memory viewer as XProf JSON to OUT through stdio as the CLI writes its
 * output (OUT is /dev/null unless given, as for the process row of the bench, opened once
 * and flushed at the end of each run; "mem" writes to an open_memstream buffer per run
 * instead, which glibc grows by copying and zeroing it), free everything. Prints one line:
 *   best_cpu_ms best_wall_ms output_bytes runs
 * where CPU is this process's user+system time (CLOCK_PROCESS_CPUTIME_ID) of one iteration
 * and wall is CLOCK_MONOTONIC, each the best of RUNS. Exits 1 when a call fails.
 * Usage: memviewer_inproc RUNS FILE MODULE [MEMORY_SPACE [OUT]] */
#include "profq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The sink writes to a stdio stream, as the CLI's does, and counts the bytes. */
typedef struct counted {
    FILE *f;
    size_t n;
} counted;

static int stream_write(void *ctx, const void *data, size_t n)
{
    counted *c = ctx;
    c->n += n;
    return fwrite(data, 1, n, c->f) == n ? 0 : -1;
}

static double now_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: memviewer_inproc RUNS FILE MODULE [MEMORY_SPACE [OUT]]\n");
        return 2;
    }
    int runs = atoi(argv[1]);
    const char *out_path = argc > 5 ? argv[5] : "/dev/null";
    int to_mem = strcmp(out_path, "mem") == 0;
    /* OUT is opened once, as a server holds its connection open; each run's JSON is flushed
     * to it by the end of the run */
    FILE *file = to_mem ? NULL : fopen(out_path, "wb");
    if (!to_mem && !file) {
        fprintf(stderr, "memviewer_inproc: %s: cannot open\n", out_path);
        return 1;
    }
    const char *paths[] = {argv[2]};
    pq_memviewer_options mo = {argv[3], NULL, argc > 4 ? atoll(argv[4]) : 0, 0};
    pq_open_options oo = {0};
    oo.skip_sha256 = 1;
    oo.programs_only = 1; /* as the CLI: only the HloProtos of an XSpace are read */
    size_t out_bytes = 0;
    double best_cpu = 1e300, best_wall = 1e300;
    for (int i = 0; i < runs; i++) {
        double c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID), w0 = now_ms(CLOCK_MONOTONIC);
        pq_profile *p = NULL;
        pq_error err = {0};
        char *mem = NULL;
        size_t memn = 0;
        FILE *out = to_mem ? open_memstream(&mem, &memn) : file;
        counted c = {out, 0};
        pq_status st = out ? pq_profile_open(paths, 1, &oo, &p, &err) : PQ_ERR_NOMEM;
        if (st == PQ_OK) {
            pq_sink sink = {stream_write, &c};
            st = pq_render_memory_viewer(p, &mo, PQ_OUT_XPROF, &sink, &err);
        }
        pq_profile_free(p);
        if (out && (to_mem ? fclose(out) : fflush(out)) != 0 && st == PQ_OK)
            st = PQ_ERR_OUTPUT;
        out_bytes = c.n;
        free(mem);
        double c1 = now_ms(CLOCK_PROCESS_CPUTIME_ID), w1 = now_ms(CLOCK_MONOTONIC);
        if (st != PQ_OK) {
            fprintf(stderr, "memviewer_inproc: %s: offset %lld: %s\n", err.path,
                    (long long)err.offset, err.message);
            return 1;
        }
        if (c1 - c0 < best_cpu)
            best_cpu = c1 - c0;
        if (w1 - w0 < best_wall)
            best_wall = w1 - w0;
    }
    if (file)
        fclose(file);
    printf("%.4f %.4f %zu %d\n", best_cpu, best_wall, out_bytes, runs);
    return 0;
}
