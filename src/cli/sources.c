/* sources.c - where the summary commands get their input: a summary file or a raw profile
 * (summarised with the defaults), a W&B run or artifact (wandb.c), and the run of the
 * commands that read one summary. Shared by summarize, report, query, compare, track,
 * bundle and publish; not option parsing (common.c) nor any one command's output. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

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

int cli_take_source(int id, const char *v, cli_sources *s)
{
    switch (id) {
    case CLI_OPT_ARTIFACT:
        s->artifact = v;
        return 1;
    case CLI_OPT_RUN_TARGET:
        s->run_target = v;
        return 1;
    case CLI_OPT_ENTITY:
        s->entity = v;
        return 1;
    case CLI_OPT_PROJECT:
        s->project = v;
        return 1;
    case CLI_OPT_DOWNLOAD_ROOT:
        s->download_root = v;
        return 1;
    }
    return 0;
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
    cli_stream s = {0};
    int stream = cli_is_stream(path);
    if (stream) {
        /* the loader reads its path more than once: a copy in a temporary file */
        int code = cli_stream_spool(path, &s);
        if (code != EXIT_OK)
            return code;
    }
    pq_status st = pq_summary_load(stream ? s.tmp_path : path, o, out, &err);
    cli_stream_error_path(&s, path, &err);
    cli_stream_done(&s);
    if (st != PQ_OK)
        return cli_report(&err);
    return EXIT_OK;
}

int cli_summary_operand(const char *cmd, const cli_common *c, cli_summary_args *a)
{
    a->out_path = c->out_path;
    if (c->npaths > 1 || (c->npaths == 1 && a->path))
        return cli_usage_error(cmd, "one SUMMARY only");
    if (c->npaths == 1)
        a->path = c->paths[0];
    return EXIT_OK;
}

pq_output cli_summary_fmt(int given, pq_output fmt, const char *out_path)
{
    if (given)
        return fmt;
    int to_stdout = !out_path || strcmp(out_path, "-") == 0;
    return to_stdout && isatty(STDOUT_FILENO) ? PQ_OUT_TEXT : PQ_OUT_JSON;
}

int cli_run_summary(const cli_summary_args *a, cli_summary_fn render, void *ctx)
{
    pq_summary *s = NULL;
    int code = cli_load_summary(a->path, &s);
    if (code != EXIT_OK)
        return code;
    cli_out out;
    code = cli_out_open(&out, a->out_path);
    if (code == EXIT_OK) {
        pq_error err;
        memset(&err, 0, sizeof err);
        pq_status st = render(s, a->top_k, ctx, &out.sink, &err);
        code = cli_out_finish(&out, st, &err);
    }
    pq_summary_free(s);
    return code;
}

int cli_before_after(const char *cmd, const cli_common *c, const char *paths[2])
{
    /* --before/--after name both sides; else the operands BEFORE AFTER, in order. */
    int given = paths[0] || paths[1];
    if (c->npaths > (given ? 0 : 2))
        return cli_usage_error(cmd, "BEFORE and AFTER only");
    for (int i = 0; i < c->npaths; i++)
        paths[i] = c->paths[i];
    if (!paths[0] || !paths[1])
        return cli_usage_error(cmd, "BEFORE and AFTER are required");
    return EXIT_OK;
}
