/* cmd_heap.c - `profq heap PATH [--module NAME] [--format text|json|tsv|svg]`: heap usage
 * over program order from the heap-simulator traces, and its peak per module. */
#include "cli.h"

#include <string.h>

typedef struct heap_args {
    const char *module;
    pq_output fmt;
} heap_args;

static int take(void *ctx, int argc, char **argv, int *i)
{
    heap_args *h = ctx;
    const char *a = argv[*i];
    if (strcmp(a, "--module") != 0 && strcmp(a, "--format") != 0 && strcmp(a, "-f") != 0)
        return -1;
    const char *v = cli_option_value("heap", argc, argv, i);
    if (!v)
        return EXIT_USAGE;
    if (strcmp(a, "--module") == 0) {
        h->module = v;
        return EXIT_OK;
    }
    return cli_parse_format_among("heap", v, "text, json, tsv, svg", &h->fmt);
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    (void)c;
    const heap_args *h = ctx;
    return pq_render_heap(prof, h->module, h->fmt, sink, err);
}

int cmd_heap(int argc, char **argv)
{
    heap_args h = {NULL, PQ_OUT_TEXT};
    return cli_run_with_options("heap", argc, argv, take, render, &h);
}
