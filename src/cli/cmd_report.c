/* cmd_report.c - `profq report SUMMARY`: the deterministic markdown report. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq report SUMMARY [-o report.md] [--top-k N] [--wide]\n"
    "\n"
    "SUMMARY is a profile_summary.v1 file, or any input summarize reads (summarised with\n"
    "the defaults). Sections as the seed's report: run metadata, provenance, overview,\n"
    "steady-state step time, step classes, time breakdown, hierarchical regions, top ops,\n"
    "ops by region, semantic families, collectives, pre-op gaps, gap context, candidates.\n"
    "--top-k rows per table (10). Lines fit 120 columns: aligned tables, long names shortened\n"
    "in the middle with … (whole with --wide), times in µs/ms/s.\n";

enum { OPT_SUMMARY = CLI_OPT_OWN, OPT_WIDE };
static const struct option options[] = {{"summary", required_argument, NULL, OPT_SUMMARY},
                                        {"wide", no_argument, NULL, OPT_WIDE},
                                        CLI_LONG_TOP_K,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_END};

typedef struct report_args {
    cli_summary_args a;
    pq_summary_view view;
} report_args;

static pq_status render(const pq_summary *s, int top_k, void *ctx, pq_sink *sink, pq_error *err)
{
    const report_args *r = ctx;
    return pq_summary_report_view(s, top_k, &r->view, sink, err);
}

static int take(void *ctx, int id, const char *v)
{
    report_args *r = ctx;
    if (id == CLI_OPT_TOP_K)
        return cli_parse_int_opt("report", "--top-k", v, &r->a.top_k);
    if (id == OPT_WIDE)
        r->view.wide = 1;
    else
        r->a.path = v; /* --summary */
    return EXIT_OK;
}

static int cmd_report(int argc, char **argv)
{
    report_args r = {{NULL, NULL, 10}, {PQ_OUT_MD, 0}};
    cli_summary_args *a = &r.a;
    const cli_spec spec = {"report", "o:", options, NULL, take, &r};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code == 0)
        code = cli_summary_operand("report", &c, a);
    free(c.paths);
    if (code != 0)
        return code;
    if (!a->path)
        return cli_usage_error("report", "a SUMMARY is required");
    code = cli_run_summary(a, render, &r);
    if (code == EXIT_OK && a->out_path && strcmp(a->out_path, "-") != 0)
        printf("%s\n", a->out_path);
    return code;
}

const cli_command cli_cmd_report = {"report", cmd_report,
                                    "deterministic markdown root-cause report of a summary", usage};
