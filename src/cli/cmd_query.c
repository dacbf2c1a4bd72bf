/* cmd_query.c - `profq query SUMMARY --question "..."`: the seed's nine question kinds. */
#include "cli.h"

#include <string.h>

static pq_status render(const pq_summary *s, int top_k, void *ctx, pq_sink *sink, pq_error *err)
{
    return pq_summary_query(s, *(const char *const *)ctx, top_k, sink, err);
}

int cmd_query(int argc, char **argv)
{
    cli_summary_args a = {NULL, NULL, 10};
    const char *question = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--question") == 0 || strcmp(argv[i], "-q") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("query", "--question needs text");
            question = argv[++i];
        } else {
            int code = cli_take_summary_arg("query", argc, argv, &i, &a);
            if (code != EXIT_OK)
                return code;
        }
    }
    if (!a.path || !question)
        return cli_usage_error("query", "SUMMARY and --question are required");
    return cli_run_summary(&a, render, &question);
}
