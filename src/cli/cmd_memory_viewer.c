/* cmd_memory_viewer.c - `profq memory-viewer PATH [--module NAME] [--program-id ID]
 * [--memory-space N] [--format text|json|xprof]`: XProf's memory viewer of one module. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cmd_memory_viewer(int argc, char **argv)
{
    pq_memviewer_options mo = {NULL, NULL, 0};
    int xprof = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return EXIT_INTERNAL;
    int nrest = 0, code = EXIT_OK;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "--") == 0) {
            while (i < argc)
                rest[nrest++] = argv[i++];
            break;
        } else if (strcmp(a, "--module") == 0 || strcmp(a, "--program-id") == 0 ||
                   strcmp(a, "--memory-space") == 0) {
            if (!has) {
                code = cli_usage_error("memory-viewer", "%s needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            if (a[2] == 'm' && a[3] == 'o')
                mo.module = v;
            else if (a[2] == 'p')
                mo.program_id = v;
            else {
                char *end;
                long long n = strtoll(v, &end, 10);
                if (!*v || *end) {
                    code = cli_usage_error("memory-viewer", "--memory-space takes an integer");
                    goto out;
                }
                mo.memory_space = n;
            }
        } else if ((strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0) && has &&
                   strcmp(argv[i + 1], "xprof") == 0) {
            xprof = 1;
            i++;
        } else if (strcmp(a, "--format=xprof") == 0) {
            xprof = 1;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    cli_common c;
    code = cli_parse_common("memory-viewer", nrest, rest, &c, 0);
    if (code != 0) {
        free(c.paths);
        goto out;
    }
    pq_profile *prof = NULL;
    c.no_hash = 1;
    c.programs_only = 1; /* the HloProtos are all it reads (docs/internals/memviewer.md) */
    code = cli_load(&c, &prof);
    if (code == EXIT_OK) {
        cli_out o;
        code = cli_out_open(&o, c.out_path);
        if (code == EXIT_OK) {
            pq_error err = {0};
            pq_status st =
                pq_render_memory_viewer(prof, &mo, xprof ? PQ_OUT_XPROF : c.fmt, &o.sink, &err);
            code = cli_out_finish(&o, st, &err);
        }
    }
    pq_profile_free(prof);
    free(c.paths);
out:
    free(rest);
    return code;
}
