/* cmd_query.c - `profq query SUMMARY --question "..."`: the seed's nine question kinds. */
#include "cli.h"

#include <stdlib.h>

static const char usage[] =
    "profq query SUMMARY --question \"...\" [--top-k N] [--format text|json] [--wide]\n"
    "            [-o FILE]\n"
    "\n"
    "Routes the question as the seed does (first match wins): top ops; compute vs\n"
    "communication; collective breakdown; gap before <op>; context for <op>; hierarchical\n"
    "regions; memory-/compute-bound (unsupported from a trace); improve/regress/compare\n"
    "hint; otherwise the optimization candidates. --format json: the answer with query_type\n"
    "(the default in pipes and files); text: the default on a terminal (120 columns, times\n"
    "in µs/ms/s, names shortened in the middle with …, whole with --wide).\n";

enum { OPT_SUMMARY = CLI_OPT_OWN, OPT_WIDE };
static const struct option options[] = {{"question", required_argument, NULL, 'q'},
                                        {"summary", required_argument, NULL, OPT_SUMMARY},
                                        {"wide", no_argument, NULL, OPT_WIDE},
                                        CLI_LONG_FORMAT,
                                        CLI_LONG_TOP_K,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_END};

typedef struct query_args {
    cli_summary_args a;
    const char *question;
    int fmt_given;
    pq_summary_view view;
} query_args;

static pq_status render(const pq_summary *s, int top_k, void *ctx, pq_sink *sink, pq_error *err)
{
    const query_args *q = ctx;
    return pq_summary_query_view(s, q->question, top_k, &q->view, sink, err);
}

static int take(void *ctx, int id, const char *v)
{
    query_args *q = ctx;
    if (id == CLI_OPT_TOP_K)
        return cli_parse_int_opt("query", "--top-k", v, &q->a.top_k);
    if (id == 'f') {
        q->fmt_given = 1;
        return cli_parse_format_among("query", v, "text or json", &q->view.fmt);
    }
    if (id == OPT_WIDE)
        q->view.wide = 1;
    else if (id == 'q')
        q->question = v;
    else
        q->a.path = v; /* --summary */
    return EXIT_OK;
}

static int cmd_query(int argc, char **argv)
{
    query_args q = {{NULL, NULL, 10}, NULL, 0, {PQ_OUT_JSON, 0}};
    const cli_spec spec = {"query", "q:o:f:", options, NULL, take, &q};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code == 0)
        code = cli_summary_operand("query", &c, &q.a);
    free(c.paths);
    if (code != 0)
        return code;
    if (!q.a.path || !q.question)
        return cli_usage_error("query", "SUMMARY and --question are required");
    q.view.fmt = cli_summary_fmt(q.fmt_given, q.view.fmt, q.a.out_path);
    return cli_run_summary(&q.a, render, &q);
}

const cli_command cli_cmd_query = {
    "query", cmd_query, "answer a question about a summary (the seed's nine question kinds)",
    usage};
