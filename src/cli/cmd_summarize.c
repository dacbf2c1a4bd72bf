/* cmd_summarize.c - `profq summarize PATH`: profile_summary.v1 (spec/seed-tools.md 1). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* generated_at_utc: SOURCE_DATE_EPOCH when set (reproducible builds), else now, in the
 * seed's form (UTC ISO-8601, microseconds when non-zero, 'Z'). */
void cli_generated_at(char *out, size_t cap)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    struct timespec ts = {0, 0};
    if (sde && *sde) {
        char *end;
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (!errno && *end == '\0' && v >= 0)
            ts.tv_sec = (time_t)v;
    } else {
        clock_gettime(CLOCK_REALTIME, &ts);
    }
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    long us = ts.tv_nsec / 1000;
    if (us)
        snprintf(out, cap, "%s.%06ldZ", base, us);
    else
        snprintf(out, cap, "%sZ", base);
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

int cmd_summarize(int argc, char **argv)
{
    pq_summary_options o = {5, 25, 0, NULL};
    const char *path = NULL, *out_path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!v)
                return cli_usage_error("summarize", "%s needs a file", a);
            out_path = v;
            i++;
        } else if (strcmp(a, "--warmup-steps") == 0) {
            if (cli_parse_int_opt("summarize", a, v, &o.warmup_steps))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--hot-op-limit") == 0) {
            if (cli_parse_int_opt("summarize", a, v, &o.hot_op_limit))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--breakdown-mode") == 0) {
            if (v && strcmp(v, "exclusive_per_track") == 0)
                o.global_breakdown = 0;
            else if (v && strcmp(v, "exclusive_global") == 0)
                o.global_breakdown = 1;
            else
                return cli_usage_error("summarize", "--breakdown-mode is exclusive_per_track or "
                                                    "exclusive_global");
            i++;
        } else if (strcmp(a, "--trace-file") == 0 || strcmp(a, "--xplane-file") == 0 ||
                   strcmp(a, "--profile-dir") == 0) {
            /* The seed's spellings of PATH. */
            if (!v)
                return cli_usage_error("summarize", "%s needs a path", a);
            if (path)
                return cli_usage_error("summarize", "one PATH only");
            path = v;
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error("summarize", "unknown option '%s'", a);
        } else {
            if (path)
                return cli_usage_error("summarize", "one PATH only");
            path = a;
        }
    }
    if (!path)
        return cli_usage_error("summarize", "a PATH is required");
    char when[64];
    cli_generated_at(when, sizeof when);
    o.generated_at_utc = when;
    cli_out out;
    int code = cli_out_open(&out, out_path);
    if (code != EXIT_OK)
        return code;
    pq_error err;
    memset(&err, 0, sizeof err);
    pq_status st = pq_summarize(path, &o, &out.sink, &err);
    code = cli_out_finish(&out, st, &err);
    if (code == EXIT_OK && out_path && strcmp(out_path, "-") != 0) {
        /* The seed prints only the output path when it writes a file. */
        printf("%s\n", out_path);
        if (fflush(stdout) != 0)
            code = EXIT_OUTPUT;
    }
    return code;
}

int cli_load_summary(const char *path, pq_summary **out)
{
    pq_error err;
    memset(&err, 0, sizeof err);
    char when[64];
    cli_generated_at(when, sizeof when);
    pq_summary_options o = {5, 25, 0, when};
    pq_status st = pq_summary_load(path, &o, out, &err);
    if (st != PQ_OK)
        return cli_report(&err);
    return EXIT_OK;
}
