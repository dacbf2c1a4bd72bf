/* cmd_history.c - `profq history H.jsonl`: digest of a tracking history. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq history H.jsonl [--tail N] [-o FILE]\n"
    "\n"
    "Record count, status counts, the ten most frequent failures and warnings, the latest\n"
    "record and the last N records (20). Blank, partial and non-object lines are skipped.\n";

enum { OPT_TAIL = CLI_OPT_OWN, OPT_HISTORY };
static const struct option options[] = {{"tail", required_argument, NULL, OPT_TAIL},
                                        {"history", required_argument, NULL, OPT_HISTORY},
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_END};

typedef struct history_args {
    const char *path;
    int tail;
} history_args;

static int take(void *ctx, int id, const char *v)
{
    history_args *h = ctx;
    if (id == OPT_TAIL)
        return cli_parse_int_opt("history", "--tail", v, &h->tail);
    h->path = v; /* --history */
    return EXIT_OK;
}

static int cmd_history(int argc, char **argv)
{
    history_args h = {NULL, 20};
    const cli_spec spec = {"history", "o:", options, NULL, take, &h};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    if (c.npaths > 1 || (c.npaths == 1 && h.path))
        code = cli_usage_error("history", "one history file only");
    else if (c.npaths == 1)
        h.path = c.paths[0];
    free(c.paths);
    if (code != 0)
        return code;
    if (!h.path)
        return cli_usage_error("history", "a history JSONL file is required");
    cli_out out;
    code = cli_out_open(&out, c.out_path);
    if (code != EXIT_OK)
        return code;
    pq_error err;
    memset(&err, 0, sizeof err);
    pq_status st = pq_history_render(h.path, h.tail, &out.sink, &err);
    return cli_out_finish(&out, st, &err);
}

const cli_command cli_cmd_history = {"history", cmd_history, "digest of a tracking history (JSONL)",
                                     usage};
