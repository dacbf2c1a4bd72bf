/* cmd_query.c - `profq query SUMMARY --question "..."`: the seed's nine question kinds. */
#include "cli.h"

#include <string.h>

int cmd_query(int argc, char **argv)
{
    const char *path = NULL, *question = NULL, *out_path = NULL;
    int top_k = 10;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--question") == 0 || strcmp(argv[i], "-q") == 0) {
            if (!v)
                return cli_usage_error("query", "--question needs text");
            question = argv[++i];
        } else if (strcmp(argv[i], "--top-k") == 0) {
            if (cli_parse_int_opt("query", argv[i], v, &top_k))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(argv[i], "--summary") == 0) {
            if (!v)
                return cli_usage_error("query", "--summary needs a file");
            path = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (!v)
                return cli_usage_error("query", "%s needs a file", argv[i]);
            out_path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("query", "unknown option '%s'", argv[i]);
        } else if (path) {
            return cli_usage_error("query", "one SUMMARY only");
        } else {
            path = argv[i];
        }
    }
    if (!path || !question)
        return cli_usage_error("query", "SUMMARY and --question are required");
    pq_summary *s = NULL;
    int code = cli_load_summary(path, &s);
    if (code != EXIT_OK)
        return code;
    cli_out out;
    code = cli_out_open(&out, out_path);
    if (code == EXIT_OK) {
        pq_error err;
        memset(&err, 0, sizeof err);
        pq_status st = pq_summary_query(s, question, top_k, &out.sink, &err);
        code = cli_out_finish(&out, st, &err);
    }
    pq_summary_free(s);
    return code;
}
