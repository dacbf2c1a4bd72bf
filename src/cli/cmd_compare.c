/* cmd_compare.c - `profq compare BEFORE AFTER`: the seed's before/after comparison.
 * BEFORE and AFTER are summaries or raw profiles (summarised with the defaults). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq compare BEFORE AFTER [--top-k N] [--strict-provenance] [--format text|json]\n"
    "              [--wide] [-o FILE]\n"
    "\n"
    "Provenance checks (identical trace sha256 fails), steady-state median/p90 deltas,\n"
    "step classes, breakdown share deltas, semantic family deltas, regressed and improved\n"
    "ops. --strict-provenance: exit 3 when the provenance check fails. --format: text (the\n"
    "default on a terminal: 120 columns, times in µs/ms/s, names shortened in the middle\n"
    "with …, whole with --wide) or json (the default in pipes and files).\n";

enum { OPT_STRICT = CLI_OPT_OWN, OPT_BEFORE, OPT_AFTER, OPT_WIDE };
static const struct option options[] = {{"strict-provenance", no_argument, NULL, OPT_STRICT},
                                        {"before", required_argument, NULL, OPT_BEFORE},
                                        {"after", required_argument, NULL, OPT_AFTER},
                                        {"wide", no_argument, NULL, OPT_WIDE},
                                        CLI_LONG_FORMAT,
                                        CLI_LONG_TOP_K,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_END};

typedef struct compare_args {
    const char *paths[2]; /* before, after */
    int top_k, strict, fmt_given;
    pq_summary_view view;
} compare_args;

static int take(void *ctx, int id, const char *v)
{
    compare_args *x = ctx;
    if (id == CLI_OPT_TOP_K)
        return cli_parse_int_opt("compare", "--top-k", v, &x->top_k);
    if (id == 'f') {
        x->fmt_given = 1;
        return cli_parse_format_among("compare", v, "text or json", &x->view.fmt);
    }
    if (id == OPT_WIDE)
        x->view.wide = 1;
    else if (id == OPT_STRICT)
        x->strict = 1;
    else
        x->paths[id == OPT_AFTER] = v;
    return EXIT_OK;
}

static int cmd_compare(int argc, char **argv)
{
    compare_args x = {{NULL, NULL}, 10, 0, 0, {PQ_OUT_JSON, 0}};
    const cli_spec spec = {"compare", "o:f:", options, NULL, take, &x};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    code = cli_before_after("compare", &c, x.paths);
    x.view.fmt = cli_summary_fmt(x.fmt_given, x.view.fmt, c.out_path);
    free(c.paths);
    if (code != 0)
        return code;
    const char *paths[2] = {x.paths[0], x.paths[1]}, *out_path = c.out_path;
    int top_k = x.top_k, strict = x.strict;
    pq_summary *b = NULL, *a = NULL;
    code = cli_load_summary(paths[0], &b);
    if (code == EXIT_OK)
        code = cli_load_summary(paths[1], &a);
    if (code == EXIT_OK) {
        cli_out out;
        code = cli_out_open(&out, out_path);
        if (code == EXIT_OK) {
            pq_error err;
            memset(&err, 0, sizeof err);
            pq_status st = pq_summary_compare_view(b, a, top_k, strict, &x.view, &out.sink, &err);
            code = cli_out_finish(&out, st, &err);
        }
    }
    pq_summary_free(b);
    pq_summary_free(a);
    return code;
}

const cli_command cli_cmd_compare = {"compare", cmd_compare,
                                     "compare two summaries or profiles (before/after)", usage};
