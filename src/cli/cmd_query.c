/* cmd_query.c - `profq query SUMMARY --question "..."`: the seed's nine question kinds. */
#include "cli.h"

#include <stdlib.h>

static const char usage[] =
    "profq query SUMMARY --question \"...\" [--top-k N] [-o FILE]\n"
    "\n"
    "Routes the question as the seed does (first match wins): top ops; compute vs\n"
    "communication; collective breakdown; gap before <op>; context for <op>; hierarchical\n"
    "regions; memory-/compute-bound (unsupported from a trace); improve/regress/compare\n"
    "hint; otherwise the optimization candidates. Output JSON with query_type.\n";

enum { OPT_SUMMARY = CLI_OPT_OWN };
static const struct option options[] = {{"question", required_argument, NULL, 'q'},
                                        {"summary", required_argument, NULL, OPT_SUMMARY},
                                        CLI_LONG_TOP_K,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_END};

static pq_status render(const pq_summary *s, int top_k, void *ctx, pq_sink *sink, pq_error *err)
{
    return pq_summary_query(s, *(const char *const *)ctx, top_k, sink, err);
}

typedef struct query_args {
    cli_summary_args a;
    const char *question;
} query_args;

static int take(void *ctx, int id, const char *v)
{
    query_args *q = ctx;
    if (id == CLI_OPT_TOP_K)
        return cli_parse_int_opt("query", "--top-k", v, &q->a.top_k);
    if (id == 'q')
        q->question = v;
    else
        q->a.path = v; /* --summary */
    return EXIT_OK;
}

static int cmd_query(int argc, char **argv)
{
    query_args q = {{NULL, NULL, 10}, NULL};
    const cli_spec spec = {"query", "q:o:", options, NULL, take, &q};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code == 0)
        code = cli_summary_operand("query", &c, &q.a);
    free(c.paths);
    if (code != 0)
        return code;
    if (!q.a.path || !q.question)
        return cli_usage_error("query", "SUMMARY and --question are required");
    return cli_run_summary(&q.a, render, &q.question);
}

const cli_command cli_cmd_query = {
    "query", cmd_query, "answer a question about a summary (the seed's nine question kinds)",
    usage};
