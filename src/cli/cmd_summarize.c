/* cmd_summarize.c - `profq summarize PATH`: profile_summary.v1 (spec/seed-tools.md 1). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq summarize PATH|--artifact REF|--run-target T [--entity E] [--project P]\n"
    "                [--download-root DIR] [-o FILE] [--warmup-steps N] [--hot-op-limit N]\n"
    "                [--breakdown-mode exclusive_per_track|exclusive_global]\n"
    "profq summarize [options] --partial -o PART TRACE_FILE...  (then: profq merge summarize)\n"
    "\n"
    "PATH is a Chrome trace-event JSON (.json, .json.gz: JAX perfetto_trace.json.gz,\n"
    "*.trace.json.gz, PyTorch/Kineto), an XSpace (*.xplane.pb), or a jax_profile artifact\n"
    "directory (one *.xplane.pb, else plugins/profile/<ts>/perfetto_trace.json.gz, else\n"
    "*.trace.json.gz, else *.trace.json, else any *.json.gz or *.json; several files of\n"
    "the first kind found, the ranks of a job, give one summary per file and a\n"
    "cross-source table: schema profq.summary_set.v1). Writes the seed's\n"
    "profile_summary.v1 JSON (sorted\n"
    "keys, indent 2): step time with warm-up filtering and light/heavy classes, time\n"
    "breakdown, hot ops, semantic families, collectives, pre-op gaps, hierarchical regions,\n"
    "gap contexts, op-region aggregates, trace quality, provenance (sha256), candidates.\n"
    "Times are in the trace's units (microseconds). generated_at_utc follows\n"
    "SOURCE_DATE_EPOCH when set, so output is byte-identical across runs. With -o, the\n"
    "file is written atomically and only its path is printed (as the seed does).\n"
    "Defaults: --warmup-steps 5, --hot-op-limit 25, exclusive_per_track. JSON that is not\n"
    "trace events (a PyTorch execution trace, a bare array of rows) is refused, exit 3.\n"
    "W&B, through the official `wandb` command-line client (on PATH, logged in or\n"
    "WANDB_API_KEY; else exit 2 naming what is missing): --artifact ENTITY/PROJECT/NAME[:V]\n"
    "runs `wandb artifact get --root DIR --type jax_profile REF`; --run-target T (bare id\n"
    "with --entity/--project, entity/project/id, or a run URL) runs `wandb pull` in DIR.\n"
    "DIR is under --download-root (kept), else a temporary folder (removed).\n";

enum {
    OPT_WARMUP = CLI_OPT_OWN,
    OPT_HOT_OP_LIMIT,
    OPT_BREAKDOWN,
    OPT_TRACE_FILE,
    OPT_XPLANE_FILE,
    OPT_PROFILE_DIR
};
static const struct option options[] = {{"warmup-steps", required_argument, NULL, OPT_WARMUP},
                                        {"hot-op-limit", required_argument, NULL, OPT_HOT_OP_LIMIT},
                                        {"breakdown-mode", required_argument, NULL, OPT_BREAKDOWN},
                                        {"trace-file", required_argument, NULL, OPT_TRACE_FILE},
                                        {"xplane-file", required_argument, NULL, OPT_XPLANE_FILE},
                                        {"profile-dir", required_argument, NULL, OPT_PROFILE_DIR},
                                        CLI_LONG_SOURCES,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_PARTIAL,
                                        CLI_LONG_END};

typedef struct summarize_args {
    pq_summary_options base;
    cli_sources src;
    const char *path;
    int path_rank; /* 2: --trace-file / --xplane-file / PATH, 1: --profile-dir */
} summarize_args;

/* PATH, or the seed's spellings of it: the highest rank wins, two of one rank are an error. */
static int take_path(summarize_args *s, const char *v, int rank)
{
    if (s->path && rank == s->path_rank)
        return cli_usage_error("summarize", "one PATH only");
    if (rank > s->path_rank)
        s->path = v, s->path_rank = rank;
    return EXIT_OK;
}

static int take(void *ctx, int id, const char *v)
{
    summarize_args *s = ctx;
    if (cli_take_source(id, v, &s->src))
        return EXIT_OK;
    switch (id) {
    case OPT_WARMUP:
        return cli_parse_int_opt("summarize", "--warmup-steps", v, &s->base.warmup_steps);
    case OPT_HOT_OP_LIMIT:
        return cli_parse_int_opt("summarize", "--hot-op-limit", v, &s->base.hot_op_limit);
    case OPT_BREAKDOWN:
        if (strcmp(v, "exclusive_per_track") == 0)
            s->base.global_breakdown = 0;
        else if (strcmp(v, "exclusive_global") == 0)
            s->base.global_breakdown = 1;
        else
            return cli_usage_error("summarize", "--breakdown-mode is exclusive_per_track or "
                                                "exclusive_global");
        return EXIT_OK;
    }
    return take_path(s, v, id == OPT_PROFILE_DIR ? 1 : 2);
}

static int cmd_summarize(int argc, char **argv)
{
    summarize_args sa = {{5, 25, 0, NULL, NULL, NULL, NULL, NULL}, {0}, NULL, 0};
    const cli_spec spec = {"summarize", "o:", options, NULL, take, &sa};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code == 0 && c.partial) /* trace files, one document each (cmd_merge.c) */
        return cli_summarize_partial(&c, &sa.base);
    for (int i = 0; code == 0 && i < c.npaths; i++)
        code = take_path(&sa, c.paths[i], 2);
    free(c.paths);
    if (code != 0)
        return code;
    pq_summary_options base = sa.base;
    const char *path = sa.path, *out_path = c.out_path;
    cli_sources src = sa.src;
    src.path_is_low = sa.path_rank == 1;
    if (!path && !src.artifact && !src.run_target)
        return cli_usage_error("summarize", "Specify one of --trace-file, --xplane-file, "
                                            "--profile-dir, --artifact, or --run-target.");
    char when[64];
    cli_generated_at(when, sizeof when);
    base.generated_at_utc = when;
    pq_summary_options o;
    cli_fetched f;
    const char *input;
    code = cli_summarize_source("summarize", &src, path, &base, &o, &f, &input);
    if (code != EXIT_OK)
        return code;
    cli_out out;
    code = cli_out_open(&out, out_path);
    if (code == EXIT_OK) {
        pq_error err;
        memset(&err, 0, sizeof err);
        cli_stream in = {0};
        pq_status st = PQ_OK;
        int stream = cli_is_stream(input);
        if (stream) /* summarize reads its path more than once: a copy in a temporary file */
            code = cli_stream_spool(input, &in);
        if (code == EXIT_OK)
            st = pq_summarize(stream ? in.tmp_path : input, &o, &out.sink, &err);
        cli_stream_error_path(&in, input, &err);
        cli_stream_done(&in);
        if (code != EXIT_OK) {
            cli_out_close(&out, 0);
        } else if (st == PQ_ERR_NOT_FOUND && f.run_path[0]) {
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

const cli_command cli_cmd_summarize = {
    "summarize", cmd_summarize, "profile_summary.v1 of a trace JSON, XPlane or jax_profile dir",
    usage};
