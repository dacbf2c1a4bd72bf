/* cmd_report.c - `profq report SUMMARY`: the deterministic markdown report. */
#include "cli.h"

#include <string.h>

int cmd_report(int argc, char **argv)
{
    const char *path = NULL, *out_path = NULL;
    int top_k = 10;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (!v)
                return cli_usage_error("report", "%s needs a file", argv[i]);
            out_path = argv[++i];
        } else if (strcmp(argv[i], "--top-k") == 0) {
            if (cli_parse_int_opt("report", argv[i], v, &top_k))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(argv[i], "--summary") == 0) {
            if (!v)
                return cli_usage_error("report", "--summary needs a file");
            path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("report", "unknown option '%s'", argv[i]);
        } else if (path) {
            return cli_usage_error("report", "one SUMMARY only");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return cli_usage_error("report", "a SUMMARY is required");
    pq_summary *s = NULL;
    int code = cli_load_summary(path, &s);
    if (code != EXIT_OK)
        return code;
    cli_out out;
    code = cli_out_open(&out, out_path);
    if (code == EXIT_OK) {
        pq_error err;
        memset(&err, 0, sizeof err);
        pq_status st = pq_summary_report(s, top_k, &out.sink, &err);
        code = cli_out_finish(&out, st, &err);
        if (code == EXIT_OK && out_path && strcmp(out_path, "-") != 0)
            printf("%s\n", out_path);
    }
    pq_summary_free(s);
    return code;
}
