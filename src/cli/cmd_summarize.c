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

/* Takes a source or W&B flag at argv[*i]; 1 when taken, -1 after a usage error. */
int cli_parse_source_flag(const char *cmd, int argc, char **argv, int *i, const char *prefix,
                          cli_sources *s)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    size_t pl = prefix ? strlen(prefix) : 2;
    const char *flag = strncmp(a, prefix ? prefix : "--", pl) == 0 ? a + pl : "";
    const char **slot = NULL;
    if (strcmp(flag, "artifact") == 0)
        slot = &s->artifact;
    else if (strcmp(flag, "run-target") == 0)
        slot = &s->run_target;
    else if (!prefix && strcmp(a, "--entity") == 0)
        slot = &s->entity;
    else if (!prefix && strcmp(a, "--project") == 0)
        slot = &s->project;
    else if (!prefix && strcmp(a, "--download-root") == 0)
        slot = &s->download_root;
    if (!slot)
        return 0;
    if (!v) {
        cli_usage_error(cmd, "%s needs a value", a);
        return -1;
    }
    *slot = v;
    (*i)++;
    return 1;
}

int cli_summarize_source(const char *cmd, const cli_sources *s, const char *path,
                         const pq_summary_options *base, pq_summary_options *o, cli_fetched *f,
                         const char **input)
{
    memset(f, 0, sizeof *f);
    *o = *base;
    *input = path;
    if (path && !s->path_is_low)
        return EXIT_OK;
    int code;
    if (s->artifact)
        code = cli_wandb_parse_artifact(cmd, s->artifact, s->entity, s->project, f);
    else if (s->run_target)
        code = cli_wandb_parse_run_target(cmd, s->run_target, s->entity, s->project, f);
    else
        return EXIT_OK;
    if (code == EXIT_OK)
        code = cli_wandb_fetch(s->artifact ? "--artifact" : "--run-target", s->download_root, f);
    if (code != EXIT_OK)
        return code;
    cli_fetched_meta(f, o);
    *input = f->dir;
    return EXIT_OK;
}

void cli_source_not_found(const cli_fetched *f)
{
    if (f->run_path[0])
        fprintf(stderr,
                "profq: run %s: no profile trace among the run's files (wandb pull); give "
                "its jax_profile artifact with --artifact (`wandb artifact ls --type "
                "jax_profile %s/%s` lists them)\n",
                f->run_path, f->entity, f->project);
}

int cmd_summarize(int argc, char **argv)
{
    pq_summary_options base = {5, 25, 0, NULL, NULL, NULL, NULL, NULL};
    const char *path = NULL, *out_path = NULL;
    cli_sources src = {0};
    int path_rank = 0; /* 2: --trace-file / --xplane-file / PATH, 1: --profile-dir */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int took = cli_parse_source_flag("summarize", argc, argv, &i, NULL, &src);
        if (took < 0)
            return EXIT_USAGE;
        if (took)
            continue;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!v)
                return cli_usage_error("summarize", "%s needs a file", a);
            out_path = v;
            i++;
        } else if (strcmp(a, "--warmup-steps") == 0) {
            if (cli_parse_int_opt("summarize", a, v, &base.warmup_steps))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--hot-op-limit") == 0) {
            if (cli_parse_int_opt("summarize", a, v, &base.hot_op_limit))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--breakdown-mode") == 0) {
            if (v && strcmp(v, "exclusive_per_track") == 0)
                base.global_breakdown = 0;
            else if (v && strcmp(v, "exclusive_global") == 0)
                base.global_breakdown = 1;
            else
                return cli_usage_error("summarize", "--breakdown-mode is exclusive_per_track or "
                                                    "exclusive_global");
            i++;
        } else if (strcmp(a, "--trace-file") == 0 || strcmp(a, "--xplane-file") == 0 ||
                   strcmp(a, "--profile-dir") == 0) {
            /* The seed's spellings of PATH. */
            if (!v)
                return cli_usage_error("summarize", "%s needs a path", a);
            int rank = a[2] == 'p' ? 1 : 2;
            if (path && rank == path_rank)
                return cli_usage_error("summarize", "one PATH only");
            if (rank > path_rank)
                path = v, path_rank = rank;
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error("summarize", "unknown option '%s'", a);
        } else {
            if (path && path_rank == 2)
                return cli_usage_error("summarize", "one PATH only");
            path = a, path_rank = 2;
        }
    }
    src.path_is_low = path_rank == 1;
    if (!path && !src.artifact && !src.run_target)
        return cli_usage_error("summarize", "Specify one of --trace-file, --xplane-file, "
                                            "--profile-dir, --artifact, or --run-target.");
    char when[64];
    cli_generated_at(when, sizeof when);
    base.generated_at_utc = when;
    pq_summary_options o;
    cli_fetched f;
    const char *input;
    int code = cli_summarize_source("summarize", &src, path, &base, &o, &f, &input);
    if (code != EXIT_OK)
        return code;
    cli_out out;
    code = cli_out_open(&out, out_path);
    if (code == EXIT_OK) {
        pq_error err;
        memset(&err, 0, sizeof err);
        pq_status st = pq_summarize(input, &o, &out.sink, &err);
        if (st == PQ_ERR_NOT_FOUND && f.run_path[0]) {
            cli_out_close(&out, 0);
            cli_source_not_found(&f);
            code = EXIT_INPUT;
        } else {
            code = cli_out_finish(&out, st, &err);
        }
    }
    cli_fetched_done(&f);
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
    char when[64];
    cli_generated_at(when, sizeof when);
    pq_summary_options o = {5, 25, 0, when, NULL, NULL, NULL, NULL};
    return cli_load_summary_opts(path, &o, out);
}

int cli_load_summary_opts(const char *path, const pq_summary_options *o, pq_summary **out)
{
    pq_error err;
    memset(&err, 0, sizeof err);
    pq_status st = pq_summary_load(path, o, out, &err);
    if (st != PQ_OK)
        return cli_report(&err);
    return EXIT_OK;
}
