/* progress.c - a progress line on stderr for long work, on a terminal only.
 *
 * When stderr is a terminal and CI is unset, work that lasts over a second shows one line,
 * rewritten about every 200 ms: `profq ops: 812 MiB read, 3.4 s`. The bytes are what the
 * process has read of its inputs, as the kernel counts them: read() calls (/proc/self/io
 * rchar: trace JSON, hashing, pipes) plus file pages mapped in (RssFile of
 * /proc/self/status: XSpace decoding), less what was there at the start. So no callback
 * from the library is needed (it never prints); the line is cleared before any output or
 * message. Never shown in pipes, files or under CI. Not a log: nothing stays on screen. */
#define _GNU_SOURCE
#include "cli.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct {
    pthread_t thread;
    int running, stop, shown;
    const char *what;
    uint64_t base;
    struct timespec t0;
} g;

/* The value after KEY in the /proc file PATH (kB for status lines), or 0. */
static uint64_t proc_value(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    uint64_t v = 0;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, k) == 0) {
            v = strtoull(line + k, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static uint64_t bytes_in(void)
{
    return proc_value("/proc/self/io", "rchar:") +
           proc_value("/proc/self/status", "RssFile:") * 1024;
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *run(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!g.stop) {
        struct timespec wake;
        clock_gettime(CLOCK_REALTIME, &wake);
        long ms = g.shown ? 200 : 1000; /* nothing for the first second */
        wake.tv_nsec += ms * 1000000L;
        wake.tv_sec += wake.tv_nsec / 1000000000L;
        wake.tv_nsec %= 1000000000L;
        if (pthread_cond_timedwait(&cv, &mu, &wake) == 0 || g.stop)
            continue;
        uint64_t b = bytes_in();
        b = b > g.base ? b - g.base : 0;
        char line[160];
        int n = snprintf(line, sizeof line, "\rprofq %s: %.1f MiB read, %.1f s\033[K", g.what,
                         (double)b / (1 << 20), since(&g.t0));
        if (n > 0 && write(STDERR_FILENO, line, (size_t)n) == n)
            g.shown = 1;
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

void cli_progress_start(const char *what)
{
    const char *ci = getenv("CI");
    if (g.running || !isatty(STDERR_FILENO) || (ci && *ci))
        return;
    g.what = what;
    g.stop = g.shown = 0;
    g.base = bytes_in();
    clock_gettime(CLOCK_MONOTONIC, &g.t0);
    g.running = pthread_create(&g.thread, NULL, run, NULL) == 0;
}

void cli_progress_stop(void)
{
    if (!g.running)
        return;
    pthread_mutex_lock(&mu);
    g.stop = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(g.thread, NULL);
    g.running = 0;
    if (g.shown) {
        static const char clear[] = "\r\033[K";
        if (write(STDERR_FILENO, clear, sizeof clear - 1) < 0) {
            /* nothing to do: the terminal went away */
        }
    }
}
