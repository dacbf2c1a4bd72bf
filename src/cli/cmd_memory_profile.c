/* cmd_memory_profile.c - `profq memory-profile PATH [--format text|json|xprof]`: XProf's
 * memory_profile (allocator snapshots, peaks, active allocations, sampled timeline). */
#include "cli.h"

#include <stdlib.h>

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    return pq_render_memory_profile(prof, *(int *)ctx ? PQ_OUT_XPROF : c->fmt, sink, err);
}

int cmd_memory_profile(int argc, char **argv)
{
    int xprof = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return EXIT_INTERNAL;
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        if (cli_take_xprof_format(argc, argv, &i))
            xprof = 1;
        else
            rest[nrest++] = argv[i];
    }
    int code = cli_run_render("memory-profile", nrest, rest, 0, 1, render, &xprof);
    free(rest);
    return code;
}
