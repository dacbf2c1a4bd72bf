/* cmd_scan.c - `profq scan PATH...`: decode every event and every stat and print totals.
 * A validity check for a profile and the full-decode benchmark. */
#include "cli.h"

#include <stdlib.h>

static const char usage[] =
    "profq scan [--format text|json] [-o FILE] [--threads N] [--partial] PATH...\n"
    "\n"
    "Decodes every event and every stat of every plane (ref values resolved) and prints\n"
    "counts by kind and a checksum. Exit 3 with the byte offset if anything is malformed.\n"
    "JSON schema profq.scan.v1. --partial writes the totals as a partial for `profq merge`.\n";

static const struct option options[] = {CLI_LONG_FORMAT, CLI_LONG_OUTPUT, CLI_LONG_THREADS,
                                        CLI_LONG_PARTIAL, CLI_LONG_END};

static int cmd_scan(int argc, char **argv)
{
    const cli_spec spec = {"scan", "f:o:", options, "text or json", NULL, NULL};
    cli_common c;
    int code = cli_parse_paths(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    /* One pass: the loader decodes every stat value while it validates the file. */
    pq_profile *prof = NULL;
    pq_scan_totals t;
    pq_open_options opts = {0};
    opts.threads = c.threads;
    opts.skip_sha256 = 1; /* scan measures decoding; hashing is info's job */
    opts.scan = &t;
    code = cli_open_profile(&c, &opts, &prof);
    if (code == EXIT_OK && c.partial) {
        pq_error err;
        pq_partial *p = NULL;
        pq_status st = pq_partial_scan(prof, &t, &p, &err);
        code = cli_write_partial(&c, p, st, &err);
    } else if (code == EXIT_OK) {
        pq_error err;
        pq_status st;
        cli_out o;
        code = cli_out_open(&o, c.out_path);
        if (code == EXIT_OK) {
            st = pq_render_scan(prof, &t, c.fmt, &o.sink, &err);
            code = cli_out_finish(&o, st, &err);
        }
    }
    pq_profile_free(prof);
    free(c.paths);
    return code;
}

const cli_command cli_cmd_scan = {
    "scan", cmd_scan, "decode every event and stat; print totals (validity check, benchmark)",
    usage};
