/* cmd_tt.c - `profq tt run|analyze|summary|report`: Tenstorrent runtime memory logs.
 *   run     runs a command with the tt-mlir memory logging variables set, tees its output into
 *           <LOGDIR>/<name>_<YYYYMMDD_HHMMSS>/<name>_profile.log, then analyzes it
 *   analyze writes <name>_memory.json, <name>_operations.json and <name>_report.html
 *   summary prints the markdown summary
 *   report  renders <name>_report.html from the JSON files of a run dir
 * The library does the reading and rendering; this file does argv, files, processes. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "profq tt run [-o LOGDIR] [--log] [--name NAME] -- CMD ARGS...\n"
    "profq tt analyze LOG [-o DIR]\n"
    "profq tt summary LOG [-o FILE]\n"
    "profq tt report DIR [-o FILE]\n"
    "\n"
    "run: runs CMD with TTMLIR_RUNTIME_LOGGER_LEVEL=DEBUG and TT_RUNTIME_MEMORY_LOG_LEVEL=\n"
    "operation, tees its output into LOGDIR/<name>_<YYYYMMDD_HHMMSS>/<name>_profile.log\n"
    "(LOGDIR defaults to ./logs; a run dir is never reused), then analyzes the log into the\n"
    "run dir unless --log. A failing command still gets its log analyzed; profq exits with\n"
    "the command's status. <name> is the stem of the first *.py argument, else the program.\n"
    "analyze: writes DIR/<name>_memory.json, <name>_operations.json (the nth element of each\n"
    "is the same operation) and <name>_report.html (self-contained); DIR defaults to '.'.\n"
    "summary: prints a markdown summary (peaks, top DRAM growth, padding, weights, ops).\n"
    "report: renders <name>_report.html from the JSON files in a run DIR.\n"
    "Malformed memory blocks are counted and reported on stderr, never fatal; a log with no\n"
    "operation at all exits 3 with the byte offset and what was expected.\n";

static const char TT_USAGE[] =
    "usage: profq tt run [-o LOGDIR] [--log] [--name NAME] -- CMD ARGS...\n"
    "       profq tt analyze LOG [-o DIR]\n"
    "       profq tt summary LOG [-o FILE]\n"
    "       profq tt report DIR [-o FILE]\n";

enum { OPT_NAME = CLI_OPT_OWN, OPT_LOG };
/* run: "+" stops at CMD, whose own options are its own. */
static const struct option run_options[] = {{"name", required_argument, NULL, OPT_NAME},
                                            {"log", no_argument, NULL, OPT_LOG},
                                            CLI_LONG_OUTPUT,
                                            CLI_LONG_END};
/* analyze, summary, report: -o only. */
static const struct option one_arg_options[] = {CLI_LONG_OUTPUT, CLI_LONG_END};

/* "<dir>/<name>_<suffix>" in a malloc'd string. */
static char *join(const char *dir, const char *name, const char *suffix)
{
    size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 3;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s%s", dir, name, suffix);
    return p;
}

/* The run name of a log file: its base name without ".log" and a trailing "_profile". */
static char *name_of_log(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *name = strdup(base);
    if (!name)
        return NULL;
    size_t n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".log") == 0)
        name[n -= 4] = '\0';
    if (n > 8 && strcmp(name + n - 8, "_profile") == 0)
        name[n -= 8] = '\0';
    if (!n) {
        free(name);
        name = strdup("tt");
    }
    return name;
}

static int write_output(const pq_ttlog *log, pq_tt_output what, const char *name, const char *path)
{
    cli_out o;
    int code = cli_out_open(&o, path);
    if (code != EXIT_OK)
        return code;
    pq_error err;
    pq_status st = pq_ttlog_render(log, what, name, &o.sink, &err);
    return cli_out_finish(&o, st, &err);
}

static int mkdir_p(const char *dir)
{
    char *p = strdup(dir);
    if (!p)
        return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, 0777) == 0 || errno == EEXIST ? 0 : -1;
    free(p);
    return rc;
}

static void report_warnings(const pq_ttlog *log, const char *path)
{
    pq_ttlog_info info;
    pq_ttlog_get_info(log, &info);
    if (info.malformed_blocks)
        fprintf(stderr,
                "profq: %s: %llu malformed memory block(s) skipped (first at offset %lld: %s)\n",
                path, (unsigned long long)info.malformed_blocks,
                (long long)info.first_warning_offset, info.first_warning ? info.first_warning : "");
    if (info.truncated)
        fprintf(stderr, "profq: %s: offset %lld: %s\n", path, (long long)info.truncated_offset,
                info.truncated);
    if (info.ops_without_block)
        fprintf(stderr, "profq: %s: %llu op line(s) without a memory block skipped\n", path,
                (unsigned long long)info.ops_without_block);
}

typedef struct render_job {
    const pq_ttlog *log;
    pq_tt_output what;
    const char *name;
    char *path;
    int code;
} render_job;

static void *render_thread(void *arg)
{
    render_job *job = arg;
    job->code = write_output(job->log, job->what, job->name, job->path);
    return NULL;
}

/* Writes the three outputs of LOG into DIR and prints where they went. The HTML report is
 * written in a second thread while this one writes the two JSON files (the log is only read
 * by the renderers). */
static int analyze_into(const pq_ttlog *log, const char *log_path, const char *dir,
                        const char *name)
{
    if (mkdir_p(dir) != 0) {
        fprintf(stderr, "profq: %s: cannot create: %s\n", dir, strerror(errno));
        return EXIT_OUTPUT;
    }
    static const struct {
        pq_tt_output what;
        const char *suffix;
    } OUTS[] = {{PQ_TT_MEMORY_JSON, "_memory.json"},
                {PQ_TT_OPERATIONS_JSON, "_operations.json"},
                {PQ_TT_REPORT_HTML, "_report.html"}};
    enum { NOUTS = sizeof OUTS / sizeof OUTS[0] };
    report_warnings(log, log_path);
    render_job jobs[NOUTS];
    int code = EXIT_OK;
    for (int i = 0; i < NOUTS; i++) {
        jobs[i].log = log;
        jobs[i].what = OUTS[i].what;
        jobs[i].name = name;
        jobs[i].path = join(dir, name, OUTS[i].suffix);
        jobs[i].code = EXIT_INTERNAL;
        if (!jobs[i].path)
            code = EXIT_INTERNAL;
    }
    if (code == EXIT_OK) {
        pthread_t th;
        int threaded = pthread_create(&th, NULL, render_thread, &jobs[NOUTS - 1]) == 0;
        for (int i = 0; i < NOUTS - (threaded ? 1 : 0); i++)
            render_thread(&jobs[i]);
        if (threaded)
            pthread_join(th, NULL);
        for (int i = 0; i < NOUTS; i++) {
            if (jobs[i].code == EXIT_OK)
                printf("%s\n", jobs[i].path);
            else if (code == EXIT_OK)
                code = jobs[i].code;
        }
    }
    for (int i = 0; i < NOUTS; i++)
        free(jobs[i].path);
    if (code != EXIT_OK)
        return code;
    pq_ttlog_info info;
    pq_ttlog_get_info(log, &info);
    printf("%llu operations (log shape %s)\n", (unsigned long long)info.operations, info.shape);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_OUTPUT;
}

/* Parses `profq tt SUB ARG [-o VALUE]` (argv[0] is SUB): the one ARG (named NAME, "LOG" or
 * "DIR"; NEED says what is missing when it is) and -o. Returns 0 or the exit code after
 * printing. */
static int parse_one_arg(int argc, char **argv, const char *sub, const char *name, const char *need,
                         const char **arg, const char **out)
{
    const cli_spec spec = {"tt", "o:", one_arg_options, NULL, NULL, NULL};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    *arg = c.npaths ? c.paths[0] : NULL;
    if (c.out_path)
        *out = c.out_path;
    int n = c.npaths;
    free(c.paths);
    if (n > 1)
        return cli_usage_error("tt", "%s takes one %s", sub, name);
    if (n == 0)
        return cli_usage_error("tt", "%s needs %s", sub, need);
    return EXIT_OK;
}

/* Opens the log of `tt analyze|summary` and names its run; returns RUN(log, path, arg, name). */
static int with_log(const char *log_path, const char *arg,
                    int (*run)(const pq_ttlog *, const char *, const char *, const char *))
{
    pq_ttlog *log;
    pq_error err;
    pq_status st;
    if (cli_is_stream(log_path)) { /* "-" (stdin), a pipe: read whole, bounded */
        cli_stream s;
        int code = cli_stream_read(log_path, &s);
        if (code != EXIT_OK)
            return code;
        st = pq_ttlog_open_memory(s.data, s.n, cli_stream_name(log_path), &log, &err);
        cli_stream_done(&s);
    } else {
        st = pq_ttlog_open(log_path, &log, &err);
    }
    if (st != PQ_OK)
        return cli_report(&err);
    char *name = name_of_log(strcmp(log_path, "-") == 0 ? "stdin" : log_path);
    int code = name ? run(log, log_path, arg, name) : EXIT_INTERNAL;
    free(name);
    pq_ttlog_free(log);
    return code;
}

static int summarize_log(const pq_ttlog *log, const char *log_path, const char *out,
                         const char *name)
{
    report_warnings(log, log_path);
    return write_output(log, PQ_TT_SUMMARY_MD, name, out);
}

static int tt_analyze(int argc, char **argv)
{
    const char *log_path, *dir = ".";
    int code = parse_one_arg(argc, argv, "analyze", "LOG", "a LOG", &log_path, &dir);
    return code != EXIT_OK ? code : with_log(log_path, dir, analyze_into);
}

static int tt_summary(int argc, char **argv)
{
    const char *log_path, *out = NULL;
    int code = parse_one_arg(argc, argv, "summary", "LOG", "a LOG", &log_path, &out);
    return code != EXIT_OK ? code : with_log(log_path, out, summarize_log);
}

/* Finds the one "<name>_memory.json" in DIR; returns the malloc'd name or NULL. */
static char *find_run_name(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    *count = 0;
    if (!d)
        return NULL;
    char *best = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n <= 12 || strcmp(e->d_name + n - 12, "_memory.json") != 0)
            continue;
        (*count)++;
        char *name = strndup(e->d_name, n - 12);
        if (name && (!best || strcmp(name, best) > 0)) {
            free(best);
            best = name;
        } else {
            free(name);
        }
    }
    closedir(d);
    return best;
}

static int tt_report(int argc, char **argv)
{
    const char *dir, *out = NULL;
    int rc = parse_one_arg(argc, argv, "report", "DIR", "a run DIR", &dir, &out);
    if (rc != EXIT_OK)
        return rc;
    int count;
    char *name = find_run_name(dir, &count);
    if (!name) {
        fprintf(stderr, "profq: %s: no *_memory.json found in %s\n", dir, dir);
        return EXIT_INPUT;
    }
    char *mem = join(dir, name, "_memory.json"), *ops = join(dir, name, "_operations.json");
    char *html = out ? strdup(out) : join(dir, name, "_report.html");
    int code = EXIT_INTERNAL;
    if (mem && ops && html) {
        pq_ttlog *log;
        pq_error err;
        if (pq_ttlog_open_json(mem, ops, &log, &err) != PQ_OK) {
            code = cli_report(&err);
        } else {
            code = write_output(log, PQ_TT_REPORT_HTML, name, html);
            if (code == EXIT_OK && out == NULL)
                printf("%s\n", html);
            pq_ttlog_free(log);
        }
    }
    free(mem);
    free(ops);
    free(html);
    free(name);
    return code;
}

/* The run name of a command: the stem of its first *.py argument, else its program name. */
static char *name_of_command(char **cmd, int n)
{
    const char *pick = cmd[0];
    for (int i = 0; i < n; i++) {
        size_t len = strlen(cmd[i]);
        if (len > 3 && strcmp(cmd[i] + len - 3, ".py") == 0) {
            pick = cmd[i];
            break;
        }
    }
    const char *base = strrchr(pick, '/');
    base = base ? base + 1 : pick;
    char *name = strdup(base);
    if (!name)
        return NULL;
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    for (char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '.'))
            *p = '_';
    return name;
}

/* Creates LOGDIR/<name>_<YYYYMMDD_HHMMSS>[_N]; mkdir fails on an existing directory, so a
 * run dir is never reused, even for two runs in the same second. */
static char *make_run_dir(const char *logdir, const char *name)
{
    if (mkdir_p(logdir) != 0) {
        fprintf(stderr, "profq: %s: cannot create: %s\n", logdir, strerror(errno));
        return NULL;
    }
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
    size_t cap = strlen(logdir) + strlen(name) + 64;
    char *dir = malloc(cap);
    if (!dir)
        return NULL;
    for (int k = 1; k < 1000; k++) {
        if (k == 1)
            snprintf(dir, cap, "%s/%s_%s", logdir, name, stamp);
        else
            snprintf(dir, cap, "%s/%s_%s_%d", logdir, name, stamp, k);
        if (mkdir(dir, 0777) == 0)
            return dir;
        if (errno != EEXIST) {
            fprintf(stderr, "profq: %s: cannot create: %s\n", dir, strerror(errno));
            break;
        }
    }
    free(dir);
    return NULL;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Runs CMD with stdout and stderr into a pipe, copying everything to our stdout and to
 * LOG_PATH. Returns the command's exit status (128 + signal when killed), or -1 if it could
 * not be started. */
static int run_tee(char **cmd, const char *log_path)
{
    int fd = open(log_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "profq: %s: cannot create: %s\n", log_path, strerror(errno));
        return -1;
    }
    int pfd[2];
    if (pipe(pfd) != 0) {
        fprintf(stderr, "profq: pipe: %s\n", strerror(errno));
        close(fd);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "profq: fork: %s\n", strerror(errno));
        close(fd);
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        setenv("TTMLIR_RUNTIME_LOGGER_LEVEL", "DEBUG", 1);
        setenv("TT_RUNTIME_MEMORY_LOG_LEVEL", "operation", 1);
        setenv("PYTHONUNBUFFERED", "1", 0);
        signal(SIGPIPE, SIG_DFL); /* profq ignores it (main.c); the command gets the default */
        execvp(cmd[0], cmd);
        fprintf(stderr, "profq: %s: cannot run: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    signal(SIGPIPE, SIG_IGN);
    char chunk[65536];
    int out_ok = 1, log_ok = 1;
    for (;;) {
        ssize_t r = read(pfd[0], chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (out_ok && write_all(1, chunk, (size_t)r) != 0)
            out_ok = 0; /* a closed stdout must not stop the capture */
        if (log_ok && write_all(fd, chunk, (size_t)r) != 0) {
            fprintf(stderr, "profq: %s: write failed: %s\n", log_path, strerror(errno));
            log_ok = 0;
        }
    }
    close(pfd[0]);
    if (close(fd) != 0 && log_ok) {
        fprintf(stderr, "profq: %s: write failed: %s\n", log_path, strerror(errno));
        log_ok = 0;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    if (!log_ok)
        return -1;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

typedef struct run_args {
    const char *name;
    int log_only;
} run_args;

static int take_run(void *ctx, int id, const char *v)
{
    run_args *r = ctx;
    if (id == OPT_NAME)
        r->name = v;
    else
        r->log_only = 1; /* --log */
    return EXIT_OK;
}

static int tt_run(int argc, char **argv)
{
    run_args r = {NULL, 0};
    const cli_spec spec = {"tt", "+o:", run_options, NULL, take_run, &r};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    const char *logdir = c.out_path ? c.out_path : "logs", *name_opt = r.name;
    int log_only = r.log_only;
    if (c.npaths == 0) {
        free(c.paths);
        return cli_usage_error("tt", "run needs a command after --");
    }
    char **cmd = (char **)c.paths; /* NULL-terminated */
    int ncmd = c.npaths;
    char *name = name_opt ? name_of_command((char **)&name_opt, 1) : name_of_command(cmd, ncmd);
    if (!name)
        return EXIT_INTERNAL;
    char *dir = make_run_dir(logdir, name);
    if (!dir) {
        free(name);
        free(c.paths);
        return EXIT_OUTPUT;
    }
    char *log_path = join(dir, name, "_profile.log");
    code = EXIT_INTERNAL;
    if (!log_path)
        goto out;
    fprintf(stderr, "profq: running %s, log %s\n", cmd[0], log_path);
    int status = run_tee(cmd, log_path);
    if (status < 0) {
        code = EXIT_OUTPUT;
        goto out;
    }
    if (status != 0)
        fprintf(stderr, "profq: the command exited with status %d; analyzing its log anyway\n",
                status);
    code = status;
    if (!log_only) {
        pq_ttlog *log;
        pq_error err;
        int acode;
        if (pq_ttlog_open(log_path, &log, &err) != PQ_OK) {
            acode = cli_report(&err);
        } else {
            acode = analyze_into(log, log_path, dir, name);
            pq_ttlog_free(log);
        }
        if (status == 0)
            code = acode;
    } else {
        printf("%s\n", log_path);
    }
out:
    free(log_path);
    free(dir);
    free(name);
    free(c.paths);
    return code;
}

static int cmd_tt(int argc, char **argv)
{
    if (argc < 2) {
        fputs(TT_USAGE, stderr);
        return EXIT_USAGE;
    }
    const char *sub = argv[1]; /* each subcommand gets argv[0] = its name */
    if (strcmp(sub, "run") == 0)
        return tt_run(argc - 1, argv + 1);
    if (strcmp(sub, "analyze") == 0)
        return tt_analyze(argc - 1, argv + 1);
    if (strcmp(sub, "summary") == 0)
        return tt_summary(argc - 1, argv + 1);
    if (strcmp(sub, "report") == 0)
        return tt_report(argc - 1, argv + 1);
    return cli_usage_error("tt", "unknown subcommand '%s' (run, analyze, summary, report)", sub);
}

const cli_command cli_cmd_tt = {
    "tt", cmd_tt, "Tenstorrent runtime memory logs: run, analyze, summary, report", usage};
