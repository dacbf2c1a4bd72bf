/* cmd_nsys.c - `profq nsys PATH [--section modules] [--format text|json]`: the nsys-jax
 * notebook's tables from an nsys-jax archive (issue 12); so far the module table and the
 * frames' row counts (render/nsys.c). */
#include "cli.h"

#include <string.h>

static const char usage[] =
    "profq nsys [--section modules|compile|heap|flame] [--format text|json] [-o FILE] PATH...\n"
    "\n"
    "PATH is an nsys-jax archive (.zip, read in place). Prints what the nsys-jax loader and\n"
    "its notebook compute: the module and thunk frames' row counts (all, steady state,\n"
    "initialisation: executions 0 and 1 of the programs compiled in the profile are not\n"
    "steady) and the steady module table: share of time, total projected ms, rows\n"
    "(executions x devices), name (program id); the compile summary: total compilation time\n"
    "and the passes by non-child time covering 97% (parallel-compilation aware, autotuning\n"
    "detail removed). Every section by default; --section (repeatable) selects. JSON schema\n"
    "profq.nsys.v1.\n";

enum { OPT_SECTION = CLI_OPT_OWN };
static const struct option options[] = {{"section", required_argument, NULL, OPT_SECTION},
                                        CLI_LONG_FORMAT,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_THREADS,
                                        CLI_LONG_END};

static int take(void *ctx, int id, const char *v)
{
    (void)id; /* --section, the only one */
    static const struct {
        const char *name;
        unsigned bit;
    } sections[] = {{"modules", PQ_NSYS_MODULES},
                    {"compile", PQ_NSYS_COMPILE},
                    {"heap", PQ_NSYS_HEAP},
                    {"flame", PQ_NSYS_FLAME}};
    for (size_t k = 0; k < sizeof sections / sizeof *sections; k++)
        if (strcmp(v, sections[k].name) == 0) {
            *(unsigned *)ctx |= sections[k].bit;
            return EXIT_OK;
        }
    return cli_usage_error("nsys",
                           "--section: expected modules, compile, heap or flame, found '%s'", v);
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    return pq_render_nsys(prof, *(const unsigned *)ctx, c->fmt, sink, err);
}

static int cmd_nsys(int argc, char **argv)
{
    unsigned sections = 0;
    const cli_spec spec = {"nsys", "f:o:", options, "text or json", take, &sections};
    return cli_run_render(&spec, argc, argv, 1, render, &sections);
}

const cli_command cli_cmd_nsys = {
    "nsys", cmd_nsys, "nsys-jax archives: module and thunk frames, the steady module table", usage};
