/* cmd_heap.c - `profq heap PATH [--module NAME] [--format text|json|tsv|svg]`: heap usage
 * over program order from the heap-simulator traces, and its peak per module. */
#include "cli.h"

#include <string.h>

static const char usage[] =
    "profq heap [--module NAME] [--format text|json|tsv|svg] [-o FILE] PATH...\n"
    "\n"
    "Replays every heap-simulator trace of every module (or of those whose\n"
    "'<name>(<id>)' starts with NAME): ALLOC adds a buffer, SHARE_WITH shares its\n"
    "canonical buffer's memory (counted once), FREE releases it with its last user. Prints\n"
    "the peak per module and trace; tsv gives every point, json (profq.heap.v1) every\n"
    "trace, svg a line chart of each module's largest trace over program order.\n";

enum { OPT_MODULE = CLI_OPT_OWN };
static const struct option options[] = {{"module", required_argument, NULL, OPT_MODULE},
                                        CLI_LONG_FORMAT,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_THREADS,
                                        CLI_LONG_END};

static int take(void *ctx, int id, const char *v)
{
    (void)id; /* --module, the only one */
    *(const char **)ctx = v;
    return EXIT_OK;
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    return pq_render_heap(prof, *(const char *const *)ctx, c->fmt, sink, err);
}

static int cmd_heap(int argc, char **argv)
{
    const char *module = NULL;
    const cli_spec spec = {"heap", "f:o:", options, "text, json, tsv or svg", take, &module};
    return cli_run_render(&spec, argc, argv, 1, render, &module);
}

const cli_command cli_cmd_heap = {
    "heap", cmd_heap, "heap usage over program order from heap-simulator traces; SVG chart", usage};
