/* cmd_html.c - `profq html PATH... [-o report.html]`: one self-contained HTML report of the
 * profile (pq_render_html): overview, where time goes, memory, traces, Nsight; and
 * `profq html --compare BEFORE AFTER`: the comparison page (pq_render_html_compare). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq html [-o FILE] [--top N] PATH...\n"
    "profq html --compare [-o FILE] [--top N] BEFORE AFTER\n"
    "\n"
    "One self-contained HTML page (inline CSS, SVG and a little JavaScript; no network) with\n"
    "a section for each analysis the inputs feed (see profq tools): the overview (sources,\n"
    "devices and their capabilities, the captured window, active and idle time, step time\n"
    "over steps with the warm-up shaded), where time goes (the op_profile tree, the op table\n"
    "with XProf's hlo_stats columns, sortable and filterable, and the roofline chart),\n"
    "memory (the memory viewer of the modules with the largest peaks, the memory profile\n"
    "timelines, the semantic attribution per device), traces (profile_summary.v1) and\n"
    "Nsight (modules, collectives with bus bandwidth vs message size and straggler wait,\n"
    "variability, flame graphs). Tables keep --top rows (default 1000); the page says what\n"
    "it left out. The same inputs give the same bytes.\n"
    "--compare: BEFORE and AFTER (trace JSON, XPlane or a profile directory) summarised and\n"
    "shown side by side: step time over steps, steady median and p90, the time breakdown\n"
    "shares, and the hot ops whose exclusive time regressed and improved most.\n";

enum { OPT_TOP = CLI_OPT_OWN, OPT_COMPARE };

static const struct option options[] = {CLI_LONG_OUTPUT,
                                        CLI_LONG_THREADS,
                                        {"top", required_argument, NULL, OPT_TOP},
                                        {"compare", no_argument, NULL, OPT_COMPARE},
                                        CLI_LONG_END};

typedef struct html_args {
    pq_html_options o;
    int compare;
} html_args;

static int take(void *ctx, int id, const char *v)
{
    html_args *a = ctx;
    if (id == OPT_COMPARE) {
        a->compare = 1;
        return EXIT_OK;
    }
    if (id != OPT_TOP)
        return EXIT_USAGE;
    int code = cli_parse_int_opt("html", "--top", v, &a->o.max_rows);
    if (code == 0 && a->o.max_rows == 0)
        return cli_usage_error("html", "--top wants a positive number");
    return code;
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    (void)c;
    return pq_render_html(prof, &((html_args *)ctx)->o, sink, err);
}

static int compare(cli_common *c, const html_args *a)
{
    const char *paths[2] = {NULL, NULL};
    int code = cli_before_after("html", c, paths);
    if (code == EXIT_OK) {
        cli_out out;
        code = cli_out_open(&out, c->out_path);
        if (code == EXIT_OK) {
            pq_error err;
            memset(&err, 0, sizeof err);
            pq_status st = pq_render_html_compare(paths[0], paths[1], &a->o, &out.sink, &err);
            code = cli_out_finish(&out, st, &err);
        }
    }
    free(c->paths);
    return code;
}

static int cmd_html(int argc, char **argv)
{
    html_args a;
    memset(&a, 0, sizeof a);
    const cli_spec spec = {"html", "o:", options, NULL, take, &a};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    if (a.compare)
        return compare(&c, &a);
    if (c.npaths == 0) {
        free(c.paths);
        return cli_usage_error("html", "no input path given");
    }
    return cli_run_parsed(&c, 1, render, &a);
}

const cli_command cli_cmd_html = {"html", cmd_html, "one self-contained HTML report of the profile",
                                  usage};
