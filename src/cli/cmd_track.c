/* cmd_track.c - `profq track BEFORE AFTER --label L --history H.jsonl`: pass/warn/fail
 * with the seed's thresholds; exit 1 on fail so CI can gate. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse_double(const char *name, const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || errno || d != d)
        return cli_usage_error("track", "%s wants a number", name);
    *out = d;
    return 0;
}

int cmd_track(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL}, *out_path = NULL;
    int np = 0;
    pq_track_options o;
    pq_track_defaults(&o);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--strict-provenance") == 0) {
            o.strict_provenance = 1;
        } else if (strcmp(a, "--top-k") == 0) {
            if (cli_parse_int_opt("track", a, v, &o.top_k))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--max-step-median-regression-pct") == 0) {
            if (parse_double(a, v, &o.max_step_median_regression_pct))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--max-step-p90-regression-pct") == 0) {
            if (parse_double(a, v, &o.max_step_p90_regression_pct))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--max-communication-share-regression-abs") == 0) {
            if (parse_double(a, v, &o.max_communication_share_regression_abs))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--max-stall-share-regression-abs") == 0) {
            if (parse_double(a, v, &o.max_stall_share_regression_abs))
                return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--label") == 0) {
            if (!v)
                return cli_usage_error("track", "--label needs text");
            o.label = argv[++i];
        } else if (strcmp(a, "--history") == 0) {
            if (!v)
                return cli_usage_error("track", "--history needs a file");
            o.history_path = argv[++i];
        } else if (strcmp(a, "--before") == 0 || strcmp(a, "--after") == 0) {
            if (!v)
                return cli_usage_error("track", "%s needs a path", a);
            int which = a[2] == 'a';
            paths[which] = argv[++i];
            np = 2;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!v)
                return cli_usage_error("track", "%s needs a file", a);
            out_path = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("track", "unknown option '%s'", a);
        } else if (np < 2) {
            paths[np++] = a;
        } else {
            return cli_usage_error("track", "BEFORE and AFTER only");
        }
    }
    if (!paths[0] || !paths[1])
        return cli_usage_error("track", "BEFORE and AFTER are required");
    char when[64];
    cli_generated_at(when, sizeof when);
    o.recorded_at_utc = when;
    pq_summary *b = NULL, *af = NULL;
    int code = cli_load_summary(paths[0], &b);
    if (code == EXIT_OK)
        code = cli_load_summary(paths[1], &af);
    pq_track_status status = PQ_TRACK_PASS;
    if (code == EXIT_OK) {
        cli_out out;
        code = cli_out_open(&out, out_path);
        if (code == EXIT_OK) {
            pq_error err;
            memset(&err, 0, sizeof err);
            pq_status st = pq_summary_track(b, af, &o, &out.sink, &status, &err);
            code = cli_out_finish(&out, st, &err);
        }
    }
    pq_summary_free(b);
    pq_summary_free(af);
    if (code == EXIT_OK && status == PQ_TRACK_FAIL)
        code = EXIT_GATE;
    return code;
}
