/* cmd_compare.c - `profq compare BEFORE AFTER`: the seed's before/after comparison.
 * BEFORE and AFTER are summaries or raw profiles (summarised with the defaults). */
#include "cli.h"

#include <string.h>

int cmd_compare(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL}, *out_path = NULL;
    int np = 0, top_k = 10, strict = 0;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--strict-provenance") == 0) {
            strict = 1;
        } else if (strcmp(argv[i], "--top-k") == 0) {
            if (cli_parse_int_opt("compare", argv[i], v, &top_k))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(argv[i], "--before") == 0 || strcmp(argv[i], "--after") == 0) {
            if (!v)
                return cli_usage_error("compare", "%s needs a path", argv[i]);
            int which = argv[i][2] == 'a';
            paths[which] = argv[++i];
            np = 2;
        } else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (!v)
                return cli_usage_error("compare", "%s needs a file", argv[i]);
            out_path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("compare", "unknown option '%s'", argv[i]);
        } else if (np < 2) {
            paths[np++] = argv[i];
        } else {
            return cli_usage_error("compare", "BEFORE and AFTER only");
        }
    }
    if (!paths[0] || !paths[1])
        return cli_usage_error("compare", "BEFORE and AFTER are required");
    pq_summary *b = NULL, *a = NULL;
    int code = cli_load_summary(paths[0], &b);
    if (code == EXIT_OK)
        code = cli_load_summary(paths[1], &a);
    if (code == EXIT_OK) {
        cli_out out;
        code = cli_out_open(&out, out_path);
        if (code == EXIT_OK) {
            pq_error err;
            memset(&err, 0, sizeof err);
            pq_status st = pq_summary_compare(b, a, top_k, strict, &out.sink, &err);
            code = cli_out_finish(&out, st, &err);
        }
    }
    pq_summary_free(b);
    pq_summary_free(a);
    return code;
}
