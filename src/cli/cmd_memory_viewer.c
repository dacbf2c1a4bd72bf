/* cmd_memory_viewer.c - `profq memory-viewer PATH [--module NAME] [--program-id ID]
 * [--memory-space N] [--format text|json|xprof]`: XProf's memory viewer of one module. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct viewer_args {
    pq_memviewer_options mo;
    int xprof;
} viewer_args;

static int take(void *ctx, int argc, char **argv, int *i)
{
    viewer_args *va = ctx;
    const char *a = argv[*i];
    if (strcmp(a, "--module") == 0 || strcmp(a, "--program-id") == 0 ||
        strcmp(a, "--memory-space") == 0) {
        const char *v = cli_option_value("memory-viewer", argc, argv, i);
        if (!v)
            return EXIT_USAGE;
        if (a[2] == 'm' && a[3] == 'o')
            va->mo.module = v;
        else if (a[2] == 'p')
            va->mo.program_id = v;
        else
            return cli_parse_memory_space("memory-viewer", v, &va->mo.memory_space);
        return EXIT_OK;
    }
    if (cli_take_xprof_format(argc, argv, i)) {
        va->xprof = 1;
        return EXIT_OK;
    }
    return -1;
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    const viewer_args *va = ctx;
    return pq_render_memory_viewer(prof, &va->mo, va->xprof ? PQ_OUT_XPROF : c->fmt, sink, err);
}

int cmd_memory_viewer(int argc, char **argv)
{
    viewer_args va = {{NULL, NULL, 0}, 0};
    char **rest;
    int nrest;
    int code = cli_split_options(argc, argv, take, &va, &rest, &nrest);
    if (code != EXIT_OK)
        return code;
    cli_common c;
    code = cli_parse_common("memory-viewer", nrest, rest, &c, 0);
    if (code != 0) {
        free(c.paths);
    } else {
        c.programs_only = 1; /* the HloProtos are all it reads (docs/internals/memviewer.md) */
        code = cli_run_parsed(&c, 1, render, &va);
    }
    free(rest);
    return code;
}
