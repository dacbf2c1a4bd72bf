/* cmd_heap.c - `profq heap PATH [--module NAME] [--format text|json|tsv|svg]`: heap usage
 * over program order from the heap-simulator traces, and its peak per module. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cmd_heap(int argc, char **argv)
{
    const char *module = NULL;
    pq_output fmt = PQ_OUT_TEXT;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return EXIT_INTERNAL;
    int nrest = 0, code = EXIT_OK;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (i < argc)
                rest[nrest++] = argv[i++];
            break;
        } else if (strcmp(a, "--module") == 0 || strcmp(a, "--format") == 0 ||
                   strcmp(a, "-f") == 0) {
            if (i + 1 >= argc) {
                code = cli_usage_error("heap", "%s needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            if (strcmp(a, "--module") == 0)
                module = v;
            else if (strcmp(v, "text") == 0)
                fmt = PQ_OUT_TEXT;
            else if (strcmp(v, "json") == 0)
                fmt = PQ_OUT_JSON;
            else if (strcmp(v, "tsv") == 0)
                fmt = PQ_OUT_TSV;
            else if (strcmp(v, "svg") == 0)
                fmt = PQ_OUT_SVG;
            else {
                code = cli_usage_error("heap", "unknown format '%s' (text, json, tsv, svg)", v);
                goto out;
            }
        } else {
            rest[nrest++] = argv[i];
        }
    }
    cli_common c;
    code = cli_parse_common("heap", nrest, rest, &c, 0);
    if (code != 0) {
        free(c.paths);
        goto out;
    }
    pq_profile *prof = NULL;
    c.no_hash = 1;
    code = cli_load(&c, &prof);
    if (code == EXIT_OK) {
        cli_out o;
        code = cli_out_open(&o, c.out_path);
        if (code == EXIT_OK) {
            pq_error err = {0};
            pq_status st = pq_render_heap(prof, module, fmt, &o.sink, &err);
            code = cli_out_finish(&o, st, &err);
        }
    }
    pq_profile_free(prof);
    free(c.paths);
out:
    free(rest);
    return code;
}
