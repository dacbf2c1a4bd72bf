/* common.c - output files (atomic, EPIPE as exit 4), error printing, the getopt_long driver
 * every command's option table goes through (cli_parse), and loading the profiles of the
 * commands that read them. Depends on the library and inputs.c/progress.c only; not the
 * summary sources (sources.c) nor any command. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The C library's heap on 2 MiB pages, for one short process that reads a big profile.
 *
 * A fresh 4 KiB page costs a page fault and the kernel's zeroing: on the VMs profq is measured
 * on, 1.4-2.5 us each, and `profq nsys` on the shared archive took 9,000-9,200 of them (about 20
 * ms of its 125-145 ms of CPU), nearly all in memory malloc handed out: the model's columns,
 * hash tables, sort buffers, decoded parquet pages. A 2 MiB page costs one fault and about
 * 0.2 ms of zeroing. So, before any thread starts (the caller runs first):
 *  - one arena for every thread (M_ARENA_MAX 1): the others would come from mmap, unadvised;
 *  - blocks up to 32 MiB from the heap, not from mmap (M_MMAP_THRESHOLD); a heap that grows by
 *    64 MiB at once (M_TOP_PAD: address space, not memory) and is never trimmed (a process of
 *    a few hundred milliseconds gains nothing from giving pages back);
 *  - the heap grown now, and its 2 MiB-aligned middle advised MADV_HUGEPAGE, so that the kernel
 *    backs each 2 MiB of it it touches with one huge page (with transparent huge pages set to
 *    "madvise", Debian's default; "never" makes this a no-op).
 * What glibc's own tunable glibc.malloc.hugetlb=1 does, without an environment variable. Measured
 * (docs/internals/nsys.md, round 9): page faults 9,200 -> ~900, CPU 125 -> 105 ms, wall 80 ->
 * 62 ms. Not under the sanitizers (their allocator is not glibc's) and not for other C
 * libraries; a heap that outgrows the 64 MiB is served as before, on small pages. */
void cli_heap_on_huge_pages(void)
{
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && !defined(__SANITIZE_ADDRESS__)
    enum { HUGE = 2 << 20, PAD = 64 << 20 };
    if (!mallopt(M_ARENA_MAX, 1) || !mallopt(M_MMAP_THRESHOLD, 32 << 20) ||
        !mallopt(M_TRIM_THRESHOLD, 1 << 30) || !mallopt(M_TOP_PAD, PAD))
        return;
    /* A block bigger than the top chunk makes malloc grow the heap by it and the pad. */
    void *p = malloc(HUGE);
    if (!p)
        return;
    uintptr_t lo = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
    uintptr_t hi = (uintptr_t)sbrk(0) & ~(uintptr_t)(HUGE - 1);
    if ((uintptr_t)p < (uintptr_t)sbrk(0) && hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    free(p);
#endif
}

/* --timing: CPU ms, wall ms and minor faults at each mark, and the sink's writes apart. */
int cli_timing;
static struct {
    double cpu[CLI_T_N], wall[CLI_T_N], write_cpu;
    long faults[CLI_T_N], write_faults;
    int seen[CLI_T_N];
} timing;

static double clock_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static long minor_faults(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : 0;
}

void cli_timing_mark(int phase)
{
    if (!cli_timing)
        return;
    timing.cpu[phase] = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    timing.wall[phase] = clock_ms(CLOCK_MONOTONIC);
    timing.faults[phase] = minor_faults();
    timing.seen[phase] = 1;
}

/* One line: "profq timing: PHASE=CPU_MS/WALL_MS/FAULTS ...". exec is everything before main
 * (the kernel's execve, the dynamic loader, relocations, constructors) as CPU time and
 * faults (its wall time is not known here); open is reading and decoding the input; compute
 * is rendering minus the sink's writes; write is those writes plus flushing and closing;
 * free is freeing the profile until the command returns. A phase a command skipped (an
 * error) is printed as 0. The process's exit comes after and is not in the line. */
void cli_timing_print(void)
{
    if (!cli_timing)
        return;
    for (int k = 1; k < CLI_T_N; k++)
        if (!timing.seen[k]) { /* not reached: the phase took nothing */
            timing.cpu[k] = timing.cpu[k - 1];
            timing.wall[k] = timing.wall[k - 1];
            timing.faults[k] = timing.faults[k - 1];
        }
#define D(a, b, x) (timing.x[CLI_T_##b] - timing.x[CLI_T_##a])
    fprintf(
        stderr,
        "profq timing: exec=%.3f/-/%ld open=%.3f/%.3f/%ld compute=%.3f/%.3f/%ld "
        "write=%.3f/%.3f/%ld free=%.3f/%.3f/%ld total=%.3f/-/%ld (cpu ms/wall ms/faults)\n",
        timing.cpu[CLI_T_MAIN], timing.faults[CLI_T_MAIN], D(MAIN, OPENED, cpu),
        D(MAIN, OPENED, wall), D(MAIN, OPENED, faults), D(OPENED, RENDERED, cpu) - timing.write_cpu,
        D(OPENED, RENDERED, wall) - timing.write_cpu,
        D(OPENED, RENDERED, faults) - timing.write_faults,
        D(RENDERED, CLOSED, cpu) + timing.write_cpu, D(RENDERED, CLOSED, wall) + timing.write_cpu,
        D(RENDERED, CLOSED, faults) + timing.write_faults, D(CLOSED, END, cpu),
        D(CLOSED, END, wall), D(CLOSED, END, faults), timing.cpu[CLI_T_END],
        timing.faults[CLI_T_END]);
#undef D
}

static int file_write(void *ctx, const void *data, size_t n)
{
    cli_out *o = ctx;
    cli_progress_stop(); /* the output starts: the progress line goes */
    double t0 = cli_timing ? clock_ms(CLOCK_PROCESS_CPUTIME_ID) : 0;
    long f0 = cli_timing ? minor_faults() : 0;
    size_t put = fwrite(data, 1, n, o->f);
    if (cli_timing) {
        timing.write_cpu += clock_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
        timing.write_faults += minor_faults() - f0;
    }
    if (put == n)
        return 0;
    o->epipe |= errno == EPIPE;
    return -1;
}

int cli_out_open(cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
    } else {
        size_t n = strlen(path) + 32;
        o->path = strdup(path);
        o->tmp_path = malloc(n);
        if (!o->path || !o->tmp_path) {
            fprintf(stderr, "profq: out of memory\n");
            return EXIT_INTERNAL;
        }
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            /* A device or pipe (/dev/stdout, a FIFO): write to it directly; renaming a
             * temporary file over it would replace the node. */
            free(o->tmp_path);
            o->tmp_path = NULL;
            o->f = fopen(path, "wb");
        } else {
            snprintf(o->tmp_path, n, "%s.tmp.%ld", path, (long)getpid());
            o->f = fopen(o->tmp_path, "wb");
        }
        if (!o->f) {
            fprintf(stderr, "profq: %s: cannot write: %s\n", path, strerror(errno));
            free(o->path);
            free(o->tmp_path);
            memset(o, 0, sizeof *o);
            return EXIT_OUTPUT;
        }
    }
    o->sink.write = file_write;
    o->sink.ctx = o;
    return EXIT_OK;
}

int cli_out_close(cli_out *o, int ok)
{
    int code = EXIT_OK;
    cli_progress_stop();
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) {
        /* A reader that went away (`| head`) is no error worth a line: exit 4 says it. */
        if (errno != EPIPE && !o->epipe)
            fprintf(stderr, "profq: %s: write failed: %s\n", o->path ? o->path : "stdout",
                    strerror(errno));
        code = EXIT_OUTPUT;
    }
    if (o->path && !o->tmp_path) {
        if (fclose(o->f) != 0 && code == EXIT_OK) {
            fprintf(stderr, "profq: %s: write failed: %s\n", o->path, strerror(errno));
            code = EXIT_OUTPUT;
        }
    } else if (o->path) {
        if (fclose(o->f) != 0 && code == EXIT_OK) {
            fprintf(stderr, "profq: %s: write failed: %s\n", o->path, strerror(errno));
            code = EXIT_OUTPUT;
        }
        if (ok && code == EXIT_OK) {
            if (rename(o->tmp_path, o->path) != 0) {
                fprintf(stderr, "profq: %s: cannot rename into place: %s\n", o->path,
                        strerror(errno));
                code = EXIT_OUTPUT;
            }
        } else {
            unlink(o->tmp_path);
        }
    }
    free(o->path);
    free(o->tmp_path);
    memset(o, 0, sizeof *o);
    return code;
}

int cli_out_finish(cli_out *o, pq_status st, const pq_error *err)
{
    cli_timing_mark(CLI_T_RENDERED);
    int close_code = cli_out_close(o, st == PQ_OK);
    cli_timing_mark(CLI_T_CLOSED);
    if (st == PQ_OK || (st == PQ_ERR_OUTPUT && close_code != EXIT_OK))
        return close_code;
    return cli_report(err);
}

int cli_exit_code(pq_status st)
{
    switch (st) {
    case PQ_OK:
        return EXIT_OK;
    case PQ_ERR_INPUT:
    case PQ_ERR_NOT_FOUND:
    case PQ_ERR_UNSUPPORTED:
    case PQ_ERR_IO:
        return EXIT_INPUT;
    case PQ_ERR_OUTPUT:
        return EXIT_OUTPUT;
    case PQ_ERR_USAGE:
        return EXIT_USAGE;
    case PQ_ERR_NOMEM:
    case PQ_ERR_INTERNAL:
        return EXIT_INTERNAL;
    }
    return EXIT_INTERNAL;
}

int cli_report(const pq_error *err)
{
    cli_progress_stop();
    if (err->path[0] && err->offset >= 0)
        fprintf(stderr, "profq: %s: offset %lld: %s\n", err->path, (long long)err->offset,
                err->message);
    else if (err->path[0])
        fprintf(stderr, "profq: %s: %s\n", err->path, err->message);
    else
        fprintf(stderr, "profq: %s\n", err->message);
    return cli_exit_code(err->status);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    cli_progress_stop();
    fprintf(stderr, "profq %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'profq help %s')\n", cmd);
    return EXIT_USAGE;
}

/* The name of the option getopt stopped at (argv[optind - 1], or -X for a short one). */
static const char *option_name(char **argv, char *buf, size_t cap)
{
    const char *a = argv[optind - 1];
    if (optopt && !(a[0] == '-' && a[1] == '-')) {
        snprintf(buf, cap, "-%c", optopt);
        return buf;
    }
    size_t n = strcspn(a, "=");
    snprintf(buf, cap, "%.*s", (int)n, a);
    return buf;
}

int cli_parse(const cli_spec *s, int argc, char **argv, cli_common *c)
{
    memset(c, 0, sizeof *c);
    c->paths = calloc((size_t)argc + 1, sizeof *c->paths);
    if (!c->paths) {
        fprintf(stderr, "profq: out of memory\n");
        return EXIT_INTERNAL;
    }
    /* ':' after the mode: a missing value returns ':'. The mode is '+' (stop at the first
     * operand) or '-' (operands come back in order as id 1, wherever they are, even with
     * POSIXLY_CORRECT set). */
    char shortopts[32];
    const char *so = s->shortopts;
    snprintf(shortopts, sizeof shortopts, "%c:%s", so[0] == '+' ? '+' : '-', so + (so[0] == '+'));
    opterr = 0;
    optind = 0; /* 0: glibc starts afresh (a command may parse twice, as tt does) */
    int code = 0, id;
    char name[64];
    while (code == 0 && (id = getopt_long(argc, argv, shortopts, s->longopts, NULL)) != -1) {
        if (id == 1) {
            c->paths[c->npaths++] = optarg;
        } else if (id == ':') {
            code =
                cli_usage_error(s->cmd, "%s needs a value", option_name(argv, name, sizeof name));
        } else if (id == '?' && optopt && strncmp(argv[optind - 1], "--", 2) == 0) {
            code =
                cli_usage_error(s->cmd, "%s takes no value", option_name(argv, name, sizeof name));
        } else if (id == '?') {
            code = cli_usage_error(s->cmd, "unknown option '%s'",
                                   option_name(argv, name, sizeof name));
        } else if (id == 'o') {
            c->out_path = optarg;
        } else if (id == 'f' && s->formats) {
            code = cli_parse_format_among(s->cmd, optarg, s->formats, &c->fmt);
        } else if (id == CLI_OPT_THREADS) {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > 64)
                code = cli_usage_error(s->cmd, "--threads takes 1..64");
            c->threads = (int)v;
        } else if (id == CLI_OPT_NO_HASH) {
            c->no_hash = 1;
        } else if (id == CLI_OPT_PARTIAL) {
            c->partial = 1;
        } else if (s->take) {
            code = s->take(s->ctx, id, optarg);
        } else {
            code = cli_usage_error(s->cmd, "unknown option '%s'",
                                   option_name(argv, name, sizeof name));
        }
    }
    for (int i = optind; code == 0 && i < argc; i++) /* after "--", or from the first with '+' */
        c->paths[c->npaths++] = argv[i];
    if (code != 0) {
        free(c->paths);
        c->paths = NULL;
    }
    return code;
}

int cli_open_profile(const cli_common *c, const pq_open_options *opts, pq_profile **out)
{
    pq_error err;
    int stream = -1;
    for (int i = 0; i < c->npaths; i++)
        if (cli_is_stream(c->paths[i]))
            stream = i;
    pq_status st;
    if (stream < 0) {
        st = pq_profile_open(c->paths, (size_t)c->npaths, opts, out, &err);
    } else if (c->npaths > 1) {
        fprintf(stderr,
                "profq: %s: a pipe, device or '-' (stdin) is read alone, without other "
                "paths\n",
                cli_stream_name(c->paths[stream]));
        return EXIT_USAGE;
    } else {
        cli_stream s;
        int code = cli_stream_read(c->paths[0], &s);
        if (code != EXIT_OK)
            return code;
        st = pq_profile_open_memory(s.data, s.n, cli_stream_name(c->paths[0]), opts, out, &err);
        cli_stream_done(&s);
    }
    cli_timing_mark(CLI_T_OPENED);
    return st == PQ_OK ? EXIT_OK : cli_report(&err);
}

int cli_load(const cli_common *c, pq_profile **out)
{
    pq_open_options opts = {0};
    opts.threads = c->threads;
    opts.skip_sha256 = c->no_hash;
    opts.programs_only = c->programs_only;
    opts.tpu_skip_host_lines = c->tpu_skip_host_lines;
    opts.skip_thunk_ops = c->skip_thunk_ops;
    return cli_open_profile(c, &opts, out);
}

int cli_run_parsed(cli_common *c, int force_no_hash, cli_render_fn render, void *ctx)
{
    pq_profile *prof = NULL;
    if (force_no_hash)
        c->no_hash = 1;
    int code = cli_load(c, &prof);
    if (code == EXIT_OK) {
        cli_out o;
        code = cli_out_open(&o, c->out_path);
        if (code == EXIT_OK) {
            pq_error err = {0};
            pq_status st = render(prof, c, ctx, &o.sink, &err);
            code = cli_out_finish(&o, st, &err);
        }
    }
    pq_profile_free(prof);
    free(c->paths);
    return code;
}

int cli_parse_paths(const cli_spec *s, int argc, char **argv, cli_common *c)
{
    int code = cli_parse(s, argc, argv, c);
    if (code == 0 && c->npaths == 0) {
        free(c->paths);
        c->paths = NULL;
        code = cli_usage_error(s->cmd, "no input path given");
    }
    return code;
}

int cli_run_render(const cli_spec *s, int argc, char **argv, int force_no_hash,
                   cli_render_fn render, void *ctx)
{
    cli_common c;
    int code = cli_parse_paths(s, argc, argv, &c);
    return code != 0 ? code : cli_run_parsed(&c, force_no_hash, render, ctx);
}

int cli_parse_memory_space(const char *cmd, const char *v, int64_t *out)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end)
        return cli_usage_error(cmd, "--memory-space takes an integer");
    *out = n;
    return EXIT_OK;
}

int cli_parse_int_opt(const char *cmd, const char *name, const char *v, int *out)
{
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || x < 0 || x > 1000000000)
        return cli_usage_error(cmd, "%s wants a non-negative integer", name);
    *out = (int)x;
    return 0;
}

int cli_parse_format_among(const char *cmd, const char *v, const char *allowed, pq_output *out)
{
    static const struct {
        const char *name;
        pq_output fmt;
    } names[] = {{"text", PQ_OUT_TEXT}, {"json", PQ_OUT_JSON}, {"xprof", PQ_OUT_XPROF},
                 {"tsv", PQ_OUT_TSV},   {"md", PQ_OUT_MD},     {"svg", PQ_OUT_SVG}};
    size_t n = strlen(v);
    for (const char *p = allowed; n && (p = strstr(p, v)) != NULL; p += n) {
        /* a whole name of the list ("text, json or xprof"): after a space or at the start,
         * before ',', ' ' or the end */
        if ((p == allowed || p[-1] == ' ') && (p[n] == ',' || p[n] == ' ' || p[n] == 0) &&
            strcmp(v, "or") != 0) {
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
                if (strcmp(names[k].name, v) == 0) {
                    *out = names[k].fmt;
                    return EXIT_OK;
                }
            }
        }
    }
    return cli_usage_error(cmd, "unknown format '%s' (expected %s)", v, allowed);
}
