/* cmd_track.c - `profq track BEFORE AFTER --label L --history H.jsonl`: pass/warn/fail
 * with the seed's thresholds; exit 1 on fail so CI can gate. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq track BEFORE AFTER [--label L] [--history H.jsonl] [--top-k N]\n"
    "            [--strict-provenance] [--max-step-median-regression-pct 5.0]\n"
    "            [--max-step-p90-regression-pct 10.0]\n"
    "            [--max-communication-share-regression-abs 0.05]\n"
    "            [--max-stall-share-regression-abs 0.05] [--format text|json] [--wide]\n"
    "            [-o FILE]\n"
    "\n"
    "fail when the steady-state median or p90 step time regressed past its threshold,\n"
    "warn when the communication or stall share grew past its threshold, else pass.\n"
    "Prints the record; with --history appends it as one JSON line (whole-line write under\n"
    "an exclusive lock, then fsync). Exit 1 on fail, so CI can gate, with one line per failed\n"
    "threshold on stderr (metric, value, threshold, baseline). --format: text (the default\n"
    "on a terminal: 120 columns, times in µs/ms/s, names shortened in the middle with …,\n"
    "whole with --wide) or json (the default in pipes and files; the history is JSON).\n";

enum {
    OPT_STRICT = CLI_OPT_OWN,
    OPT_MEDIAN,
    OPT_P90,
    OPT_COMM,
    OPT_STALL,
    OPT_LABEL,
    OPT_HISTORY,
    OPT_BEFORE,
    OPT_AFTER,
    OPT_WIDE
};
static const struct option options[] = {
    {"strict-provenance", no_argument, NULL, OPT_STRICT},
    {"max-step-median-regression-pct", required_argument, NULL, OPT_MEDIAN},
    {"max-step-p90-regression-pct", required_argument, NULL, OPT_P90},
    {"max-communication-share-regression-abs", required_argument, NULL, OPT_COMM},
    {"max-stall-share-regression-abs", required_argument, NULL, OPT_STALL},
    {"label", required_argument, NULL, OPT_LABEL},
    {"history", required_argument, NULL, OPT_HISTORY},
    {"before", required_argument, NULL, OPT_BEFORE},
    {"after", required_argument, NULL, OPT_AFTER},
    {"wide", no_argument, NULL, OPT_WIDE},
    CLI_LONG_FORMAT,
    CLI_LONG_TOP_K,
    CLI_LONG_OUTPUT,
    CLI_LONG_END};

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

/* The gate's failed thresholds go to stderr, one line each. */
static int to_stderr(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    return fwrite(p, 1, n, stderr) == n ? 0 : -1;
}

typedef struct track_args {
    const char *paths[2]; /* before, after */
    pq_track_options o;
    int fmt_given;
} track_args;

static int take(void *ctx, int id, const char *v)
{
    track_args *t = ctx;
    pq_track_options *o = &t->o;
    switch (id) {
    case CLI_OPT_TOP_K:
        return cli_parse_int_opt("track", "--top-k", v, &o->top_k);
    case OPT_STRICT:
        o->strict_provenance = 1;
        return EXIT_OK;
    case OPT_MEDIAN:
        return parse_double("--max-step-median-regression-pct", v,
                            &o->max_step_median_regression_pct);
    case OPT_P90:
        return parse_double("--max-step-p90-regression-pct", v, &o->max_step_p90_regression_pct);
    case OPT_COMM:
        return parse_double("--max-communication-share-regression-abs", v,
                            &o->max_communication_share_regression_abs);
    case OPT_STALL:
        return parse_double("--max-stall-share-regression-abs", v,
                            &o->max_stall_share_regression_abs);
    case OPT_LABEL:
        o->label = v;
        return EXIT_OK;
    case OPT_HISTORY:
        o->history_path = v;
        return EXIT_OK;
    case OPT_WIDE:
        o->view.wide = 1;
        return EXIT_OK;
    case 'f':
        t->fmt_given = 1;
        return cli_parse_format_among("track", v, "text or json", &o->view.fmt);
    }
    t->paths[id == OPT_AFTER] = v; /* --before, --after */
    return EXIT_OK;
}

static int cmd_track(int argc, char **argv)
{
    track_args t;
    memset(&t, 0, sizeof t);
    pq_track_defaults(&t.o);
    const cli_spec spec = {"track", "o:f:", options, NULL, take, &t};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    code = cli_before_after("track", &c, t.paths);
    free(c.paths);
    if (code != 0)
        return code;
    const char **paths = t.paths, *out_path = c.out_path;
    pq_track_options o = t.o;
    o.view.fmt = cli_summary_fmt(t.fmt_given, o.view.fmt, out_path);
    pq_sink gate = {to_stderr, NULL};
    o.gate = &gate;
    char when[64];
    cli_generated_at(when, sizeof when);
    o.recorded_at_utc = when;
    pq_summary *b = NULL, *af = NULL;
    code = cli_load_summary(paths[0], &b);
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

const cli_command cli_cmd_track = {
    "track", cmd_track, "pass/warn/fail of AFTER vs BEFORE; append to a JSONL history", usage};
