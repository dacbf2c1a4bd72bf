/* cmd_info.c - `profq info PATH...`: what the profile contains. */
#include "cli.h"

#include <stdlib.h>

/* Shared shape of the simple commands: parse, load, render, write. */
static int run_simple(const char *name, int argc, char **argv, int allow_no_hash,
                      pq_status (*render)(const pq_profile *, pq_output, pq_sink *, pq_error *))
{
    cli_common c;
    int code = cli_parse_common(name, argc, argv, &c, allow_no_hash);
    if (code != 0) {
        free(c.paths);
        return code;
    }
    pq_profile *prof = NULL;
    code = cli_load(&c, &prof);
    if (code == EXIT_OK) {
        cli_out o;
        code = cli_out_open(&o, c.out_path);
        if (code == EXIT_OK) {
            pq_error err = {0};
            pq_status st = render(prof, c.fmt, &o.sink, &err);
            code = cli_out_finish(&o, st, &err);
        }
    }
    pq_profile_free(prof);
    free(c.paths);
    return code;
}

int cmd_info(int argc, char **argv)
{
    return run_simple("info", argc, argv, 1, pq_render_info);
}

int cmd_tools(int argc, char **argv)
{
    return run_simple("tools", argc, argv, 0, pq_render_tools);
}
