/* cmd_history.c - `profq history H.jsonl`: digest of a tracking history. */
#include "cli.h"

#include <string.h>

int cmd_history(int argc, char **argv)
{
    const char *path = NULL, *out_path = NULL;
    int tail = 20;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--tail") == 0) {
            if (cli_parse_int_opt("history", argv[i], v, &tail))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(argv[i], "--history") == 0) {
            if (!v)
                return cli_usage_error("history", "--history needs a file");
            path = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (!v)
                return cli_usage_error("history", "%s needs a file", argv[i]);
            out_path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("history", "unknown option '%s'", argv[i]);
        } else if (path) {
            return cli_usage_error("history", "one history file only");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return cli_usage_error("history", "a history JSONL file is required");
    cli_out out;
    int code = cli_out_open(&out, out_path);
    if (code != EXIT_OK)
        return code;
    pq_error err;
    memset(&err, 0, sizeof err);
    pq_status st = pq_history_render(path, tail, &out.sink, &err);
    return cli_out_finish(&out, st, &err);
}
