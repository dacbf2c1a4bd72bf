/* memviewer_inproc.c - the in-process half of the memory-viewer benchmark
 * (bench/memviewer.py): the same work as `profq memory-viewer --format xprof --module M
 * [--memory-space S] FILE`, through the library entry points, in a loop: open the file
 * (pq_profile_open without hashing, reading only the HloProtos of an XSpace, as the CLI),
 * render the memory viewer as XProf JSON into memory (pq_render_memory_viewer), free
 * everything. Prints one line:
 *   best_cpu_ms best_wall_ms output_bytes runs
 * where CPU is this process's user+system time (CLOCK_PROCESS_CPUTIME_ID) of one iteration
 * and wall is CLOCK_MONOTONIC, each the best of RUNS. Exits 1 when a call fails.
 * Usage: memviewer_inproc RUNS FILE MODULE [MEMORY_SPACE] */
#include "profq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct mem_out {
    char *p;
    size_t n, cap;
} mem_out;

static int mem_write(void *ctx, const void *data, size_t n)
{
    mem_out *m = ctx;
    if (m->n + n > m->cap) {
        size_t cap = m->cap ? m->cap : 1 << 16;
        while (cap < m->n + n)
            cap *= 2;
        char *p = realloc(m->p, cap);
        if (!p)
            return -1;
        m->p = p;
        m->cap = cap;
    }
    memcpy(m->p + m->n, data, n);
    m->n += n;
    return 0;
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
        fprintf(stderr, "usage: memviewer_inproc RUNS FILE MODULE [MEMORY_SPACE]\n");
        return 2;
    }
    int runs = atoi(argv[1]);
    const char *paths[] = {argv[2]};
    pq_memviewer_options mo = {argv[3], NULL, argc > 4 ? atoll(argv[4]) : 0};
    pq_open_options oo = {0};
    oo.skip_sha256 = 1;
    oo.programs_only = 1; /* as the CLI: only the HloProtos of an XSpace are read */
    mem_out out = {0};
    double best_cpu = 1e300, best_wall = 1e300;
    for (int i = 0; i < runs; i++) {
        out.n = 0;
        double c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID), w0 = now_ms(CLOCK_MONOTONIC);
        pq_profile *p = NULL;
        pq_error err = {0};
        pq_status st = pq_profile_open(paths, 1, &oo, &p, &err);
        if (st == PQ_OK) {
            pq_sink sink = {mem_write, &out};
            st = pq_render_memory_viewer(p, &mo, PQ_OUT_XPROF, &sink, &err);
        }
        pq_profile_free(p);
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
    printf("%.4f %.4f %zu %d\n", best_cpu, best_wall, out.n, runs);
    free(out.p);
    return 0;
}
