/* cmd_report.c - `profq report SUMMARY`: the deterministic markdown report. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq report SUMMARY [-o report.md] [--top-k N]\n"
    "\n"
    "SUMMARY is a profile_summary.v1 file, or any input summarize reads (summarised with\n"
    "the defaults). Sections as the seed's report: run metadata, provenance, overview,\n"
    "steady-state step time, step classes, time breakdown, hierarchical regions, top ops,\n"
    "ops by region, semantic families, collectives, pre-op gaps, gap context, candidates.\n"
    "--top-k rows per table (10).\n";

enum { OPT_SUMMARY = CLI_OPT_OWN };
static const struct option options[] = {{"summary", required_argument, NULL, OPT_SUMMARY},
                                        CLI_LONG_TOP_K,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_END};

static pq_status render(const pq_summary *s, int top_k, void *ctx, pq_sink *sink, pq_error *err)
{
    (void)ctx;
    return pq_summary_report(s, top_k, sink, err);
}

static int take(void *ctx, int id, const char *v)
{
    cli_summary_args *a = ctx;
    if (id == CLI_OPT_TOP_K)
        return cli_parse_int_opt("report", "--top-k", v, &a->top_k);
    a->path = v; /* --summary */
    return EXIT_OK;
}

static int cmd_report(int argc, char **argv)
{
    cli_summary_args a = {NULL, NULL, 10};
    const cli_spec spec = {"report", "o:", options, NULL, take, &a};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code == 0)
        code = cli_summary_operand("report", &c, &a);
    free(c.paths);
    if (code != 0)
        return code;
    if (!a.path)
        return cli_usage_error("report", "a SUMMARY is required");
    code = cli_run_summary(&a, render, NULL);
    if (code == EXIT_OK && a.out_path && strcmp(a.out_path, "-") != 0)
        printf("%s\n", a.out_path);
    return code;
}

const cli_command cli_cmd_report = {"report", cmd_report,
                                    "deterministic markdown root-cause report of a summary", usage};
