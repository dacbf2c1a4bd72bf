/* cmd_info.c - `profq info PATH...`: what the profile contains. */
#include "cli.h"

static pq_status render_info(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                             pq_error *err)
{
    (void)ctx;
    return pq_render_info(prof, c->fmt, sink, err);
}

static pq_status render_tools(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                              pq_error *err)
{
    (void)ctx;
    return pq_render_tools(prof, c->fmt, sink, err);
}

int cmd_info(int argc, char **argv)
{
    return cli_run_render("info", argc, argv, 1, 0, render_info, NULL);
}

int cmd_tools(int argc, char **argv)
{
    return cli_run_render("tools", argc, argv, 0, 0, render_tools, NULL);
}
