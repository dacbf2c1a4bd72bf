/* cmd_memory_viewer.c - `profq memory-viewer PATH [--module NAME] [--program-id ID]
 * [--memory-space N] [--format text|json|xprof]`: XProf's memory viewer of one module. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq memory-viewer [--module NAME] [--program-id ID] [--memory-space N] [--wide]\n"
    "                    [--format text|json|xprof] [-o FILE] PATH...\n"
    "\n"
    "Replays the module's heap-simulator trace as XProf's memory_viewer does: peak heap,\n"
    "buffers live at the peak, heap size over program order, special allocations, buffer\n"
    "blocks. --format xprof prints XProf's JSON field for field. Without --module or\n"
    "--program-id, lists the modules with their program ids and memory spaces.\n"
    "--module takes '<name>(<program id>)' or a unique bare name; --program-id takes an\n"
    "XLA program id, else (as XProf) a substring of '<name>(<id>)'. --memory-space is the\n"
    "buffer color (default 0, device HBM). Text fits 120 columns; --wide keeps names whole.\n";

enum { OPT_MODULE = CLI_OPT_OWN, OPT_PROGRAM_ID, OPT_MEMORY_SPACE, OPT_WIDE };
static const struct option options[] = {{"module", required_argument, NULL, OPT_MODULE},
                                        {"program-id", required_argument, NULL, OPT_PROGRAM_ID},
                                        {"memory-space", required_argument, NULL, OPT_MEMORY_SPACE},
                                        {"wide", no_argument, NULL, OPT_WIDE},
                                        CLI_LONG_FORMAT,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_THREADS,
                                        CLI_LONG_END};

static int take(void *ctx, int id, const char *v)
{
    pq_memviewer_options *mo = ctx;
    if (id == OPT_MODULE)
        mo->module = v;
    else if (id == OPT_PROGRAM_ID)
        mo->program_id = v;
    else if (id == OPT_WIDE)
        mo->wide = 1;
    else
        return cli_parse_memory_space("memory-viewer", v, &mo->memory_space);
    return EXIT_OK;
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    return pq_render_memory_viewer(prof, ctx, c->fmt, sink, err);
}

static int cmd_memory_viewer(int argc, char **argv)
{
    pq_memviewer_options mo = {NULL, NULL, 0, 0};
    const cli_spec spec = {"memory-viewer", "f:o:", options, "text, json or xprof", take, &mo};
    cli_common c;
    int code = cli_parse_paths(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    c.programs_only = 1; /* the HloProtos are all it reads (docs/internals/memviewer.md) */
    return cli_run_parsed(&c, 1, render, &mo);
}

const cli_command cli_cmd_memory_viewer = {"memory-viewer", cmd_memory_viewer,
                                           "XProf's memory viewer of one module, computed exactly",
                                           usage};
