/* cmd_memory_profile.c - `profq memory-profile PATH [--format text|json|xprof]`: XProf's
 * memory_profile (allocator snapshots, peaks, active allocations, sampled timeline). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cmd_memory_profile(int argc, char **argv)
{
    int xprof = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return EXIT_INTERNAL;
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        if ((strcmp(argv[i], "--format") == 0 || strcmp(argv[i], "-f") == 0) && i + 1 < argc &&
            strcmp(argv[i + 1], "xprof") == 0) {
            xprof = 1;
            i++;
        } else if (strcmp(argv[i], "--format=xprof") == 0) {
            xprof = 1;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    cli_common c;
    int code = cli_parse_common("memory-profile", nrest, rest, &c, 0);
    if (code == 0) {
        pq_profile *prof = NULL;
        c.no_hash = 1;
        code = cli_load(&c, &prof);
        if (code == EXIT_OK) {
            cli_out o;
            code = cli_out_open(&o, c.out_path);
            if (code == EXIT_OK) {
                pq_error err = {0};
                pq_status st =
                    pq_render_memory_profile(prof, xprof ? PQ_OUT_XPROF : c.fmt, &o.sink, &err);
                code = cli_out_finish(&o, st, &err);
            }
        }
        pq_profile_free(prof);
    }
    free(c.paths);
    free(rest);
    return code;
}
