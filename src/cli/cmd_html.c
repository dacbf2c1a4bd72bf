/* cmd_html.c - `profq html PATH... [-o report.html]`: one self-contained HTML report of the
 * profile (pq_render_html): overview, where time goes, memory. */
#include "cli.h"

static const char usage[] =
    "profq html [-o FILE] [--top N] PATH...\n"
    "\n"
    "One self-contained HTML page (inline CSS, SVG and a little JavaScript; no network) with\n"
    "a section for each analysis the inputs feed (see profq tools): the overview (sources,\n"
    "devices and their capabilities, the captured window, active and idle time), where time\n"
    "goes (the op table with XProf's hlo_stats columns, sortable and filterable, and the\n"
    "roofline chart), and memory (the memory viewer of the modules with the largest peaks,\n"
    "the memory profile timelines). Tables keep --top rows (default 1000); the page says\n"
    "what it left out. The same inputs give the same bytes.\n";

enum { OPT_TOP = CLI_OPT_OWN };

static const struct option options[] = {
    CLI_LONG_OUTPUT, CLI_LONG_THREADS, {"top", required_argument, NULL, OPT_TOP}, CLI_LONG_END};

static int take(void *ctx, int id, const char *v)
{
    pq_html_options *o = ctx;
    if (id != OPT_TOP)
        return EXIT_USAGE;
    int code = cli_parse_int_opt("html", "--top", v, &o->max_rows);
    if (code == 0 && o->max_rows == 0)
        return cli_usage_error("html", "--top wants a positive number");
    return code;
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    (void)c;
    return pq_render_html(prof, ctx, sink, err);
}

static int cmd_html(int argc, char **argv)
{
    pq_html_options o = {0};
    const cli_spec spec = {"html", "o:", options, NULL, take, &o};
    return cli_run_render(&spec, argc, argv, 1, render, &o);
}

const cli_command cli_cmd_html = {"html", cmd_html, "one self-contained HTML report of the profile",
                                  usage};
