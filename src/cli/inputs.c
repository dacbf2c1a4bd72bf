/* inputs.c - inputs that are streams: "-" (stdin), a pipe, a FIFO, a character device.
 * They are read once, whole, and never past a limit (cli_stream_limit: 4 GiB unless
 * PROFQ_STREAM_LIMIT says otherwise), so `profq info /dev/zero` stops with exit 3 instead
 * of growing without bound. A FIFO is opened without blocking, then waited on for a writer
 * at most 10 s (exit 3 naming it), never for ever.
 * What is read goes to memory (for the *_open_memory entry points) or to a temporary file
 * (for the entry points that take a path and read it more than once). Not format
 * detection, not regular files (the library maps those itself). */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_LIMIT ((uint64_t)4 << 30)
enum { FIFO_WAIT_MS = 10000 }; /* how long a FIFO may go without a writer */

uint64_t cli_stream_limit(void)
{
    const char *v = getenv("PROFQ_STREAM_LIMIT");
    if (!v || !*v)
        return DEFAULT_LIMIT;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    uint64_t unit = 1;
    if (*end == 'K' || *end == 'k')
        unit = (uint64_t)1 << 10, end++;
    else if (*end == 'M' || *end == 'm')
        unit = (uint64_t)1 << 20, end++;
    else if (*end == 'G' || *end == 'g')
        unit = (uint64_t)1 << 30, end++;
    if (errno || *end || n == 0 || n > UINT64_MAX / unit)
        return DEFAULT_LIMIT;
    return (uint64_t)n * unit;
}

/* "4 GiB", "64 MiB", "1000 bytes": the limit as people read it. */
static void limit_text(uint64_t n, char *out, size_t cap)
{
    if (n % ((uint64_t)1 << 30) == 0)
        snprintf(out, cap, "%llu GiB", (unsigned long long)(n >> 30));
    else if (n % ((uint64_t)1 << 20) == 0)
        snprintf(out, cap, "%llu MiB", (unsigned long long)(n >> 20));
    else if (n % 1024 == 0)
        snprintf(out, cap, "%llu KiB", (unsigned long long)(n >> 10));
    else
        snprintf(out, cap, "%llu bytes", (unsigned long long)n);
}

const char *cli_stream_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

int cli_is_stream(const char *path)
{
    if (strcmp(path, "-") == 0)
        return 1;
    struct stat st;
    /* a missing path is the library's to report; a folder or a regular file is mapped */
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode);
}

/* Opens PATH (stdin for "-") without blocking on a FIFO that has no writer yet, then
 * makes reads blocking again. Returns the fd or -1 after printing. */
static int open_stream(const char *path)
{
    if (strcmp(path, "-") == 0)
        return STDIN_FILENO;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        fprintf(stderr, "profq: %s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        /* Wait a while for a writer (one started just after profq, as in `profq info F &
         * cat x >F`), never for ever: data, or a writer that came and went, ends the wait. */
        struct pollfd p = {fd, POLLIN, 0};
        int r;
        while ((r = poll(&p, 1, FIFO_WAIT_MS)) < 0 && errno == EINTR)
            ;
        if (r == 0) {
            fprintf(stderr, "profq: %s: a FIFO with no writer (waited %d s)\n", path,
                    FIFO_WAIT_MS / 1000);
            close(fd);
            return -1;
        }
    }
    return fd;
}

/* Reads FD to its end into S (memory) or S->fd_out (a file), at most the limit. */
static int read_all(const char *path, int fd, cli_stream *s, int to_file)
{
    uint64_t limit = cli_stream_limit(), total = 0;
    size_t cap = 0;
    char chunk[1 << 16];
    for (;;) {
        ssize_t k = read(fd, chunk, sizeof chunk);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            fprintf(stderr, "profq: %s: cannot read: %s\n", cli_stream_name(path), strerror(errno));
            return EXIT_INPUT;
        }
        if (k == 0)
            return EXIT_OK;
        if (total + (uint64_t)k > limit) {
            char lim[32];
            limit_text(limit, lim, sizeof lim);
            fprintf(stderr,
                    "profq: %s: more than %s from a pipe or device, the limit for input that "
                    "is not a regular file (PROFQ_STREAM_LIMIT sets it): save it to a file\n",
                    cli_stream_name(path), lim);
            return EXIT_INPUT;
        }
        if (to_file) {
            if (write(s->fd_out, chunk, (size_t)k) != k) {
                fprintf(stderr, "profq: %s: cannot write: %s\n", s->tmp_path, strerror(errno));
                return EXIT_OUTPUT;
            }
        } else {
            if (s->n + (size_t)k > cap) {
                size_t ncap = cap ? cap * 2 : (size_t)1 << 20;
                while (ncap < s->n + (size_t)k)
                    ncap *= 2;
                uint8_t *nb = realloc(s->data, ncap);
                if (!nb) {
                    fprintf(stderr, "profq: %s: out of memory\n", cli_stream_name(path));
                    return EXIT_INTERNAL;
                }
                s->data = nb;
                cap = ncap;
            }
            memcpy(s->data + s->n, chunk, (size_t)k);
            s->n += (size_t)k;
        }
        total += (uint64_t)k;
    }
}

static int read_stream(const char *path, cli_stream *s, int to_file)
{
    int fd = open_stream(path);
    if (fd < 0)
        return EXIT_INPUT;
    int code = read_all(path, fd, s, to_file);
    if (fd != STDIN_FILENO)
        close(fd);
    return code;
}

int cli_stream_read(const char *path, cli_stream *s)
{
    memset(s, 0, sizeof *s);
    s->fd_out = -1;
    int code = read_stream(path, s, 0);
    if (code != EXIT_OK)
        cli_stream_done(s);
    return code;
}

int cli_stream_spool(const char *path, cli_stream *s)
{
    memset(s, 0, sizeof *s);
    s->fd_out = -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(s->tmp_dir, sizeof s->tmp_dir, "%s/profq-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->tmp_dir)) {
        fprintf(stderr, "profq: %s: cannot create: %s\n", s->tmp_dir, strerror(errno));
        s->tmp_dir[0] = 0;
        return EXIT_OUTPUT;
    }
    /* named after the input, so the summary's path says where it came from */
    const char *base = strrchr(path, '/');
    base = strcmp(path, "-") == 0 ? "stdin" : base ? base + 1 : path;
    snprintf(s->tmp_path, sizeof s->tmp_path, "%s/%s", s->tmp_dir, base);
    s->fd_out = open(s->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int code = EXIT_OUTPUT;
    if (s->fd_out < 0)
        fprintf(stderr, "profq: %s: cannot create: %s\n", s->tmp_path, strerror(errno));
    else
        code = read_stream(path, s, 1);
    if (s->fd_out >= 0 && close(s->fd_out) != 0 && code == EXIT_OK)
        code = EXIT_OUTPUT;
    s->fd_out = -1;
    if (code != EXIT_OK)
        cli_stream_done(s);
    return code;
}

void cli_stream_done(cli_stream *s)
{
    free(s->data);
    if (s->tmp_path[0])
        unlink(s->tmp_path);
    if (s->tmp_dir[0])
        rmdir(s->tmp_dir);
    memset(s, 0, sizeof *s);
    s->fd_out = -1;
}

void cli_stream_error_path(const cli_stream *s, const char *path, pq_error *err)
{
    if (s->tmp_path[0] && strcmp(err->path, s->tmp_path) == 0)
        snprintf(err->path, sizeof err->path, "%s", cli_stream_name(path));
}
