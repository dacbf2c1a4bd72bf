/* cmd_report.c - `profq report SUMMARY`: the deterministic markdown report. */
#include "cli.h"

#include <string.h>

static pq_status render(const pq_summary *s, int top_k, void *ctx, pq_sink *sink, pq_error *err)
{
    (void)ctx;
    return pq_summary_report(s, top_k, sink, err);
}

int cmd_report(int argc, char **argv)
{
    cli_summary_args a = {NULL, NULL, 10};
    for (int i = 0; i < argc; i++) {
        int code = cli_take_summary_arg("report", argc, argv, &i, &a);
        if (code != EXIT_OK)
            return code;
    }
    if (!a.path)
        return cli_usage_error("report", "a SUMMARY is required");
    int code = cli_run_summary(&a, render, NULL);
    if (code == EXIT_OK && a.out_path && strcmp(a.out_path, "-") != 0)
        printf("%s\n", a.out_path);
    return code;
}
