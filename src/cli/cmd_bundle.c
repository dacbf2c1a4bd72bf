/* cmd_bundle.c - `profq bundle --before X --after Y -o DIR`: the seed's compare bundle
 * (spec/seed-tools.md 1.24): both summaries, compare, track record, both reports, and a
 * manifest on stdout. X and Y are summaries or raw profiles. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "profq bundle --before X --after Y -o DIR [--label L] [--history H.jsonl] [--top-k N]\n"
    "             [--strict-provenance] [--before-run-target T] [--after-run-target T]\n"
    "             [--before-artifact REF] [--after-artifact REF] [--entity E] [--project P]\n"
    "             [--download-root DIR]\n"
    "\n"
    "X and Y are summaries or raw profiles, or W&B run targets / artifacts (as summarize;\n"
    "a path given for the same side wins). Writes DIR/before.summary.json,\n"
    "after.summary.json, compare.json, track.json, before.report.md, after.report.md,\n"
    "appends the track record to --history, and prints the manifest (paths and status).\n"
    "With --strict-provenance nothing is written when the provenance check fails.\n";

enum {
    OPT_BEFORE = CLI_OPT_OWN,
    OPT_AFTER,
    OPT_LABEL,
    OPT_HISTORY,
    OPT_STRICT,
    OPT_BEFORE_ARTIFACT,
    OPT_BEFORE_RUN_TARGET,
    OPT_AFTER_ARTIFACT,
    OPT_AFTER_RUN_TARGET
};
static const struct option options[] = {
    {"before", required_argument, NULL, OPT_BEFORE},
    {"before-summary", required_argument, NULL, OPT_BEFORE},
    {"after", required_argument, NULL, OPT_AFTER},
    {"after-summary", required_argument, NULL, OPT_AFTER},
    {"output-dir", required_argument, NULL, 'o'},
    {"label", required_argument, NULL, OPT_LABEL},
    {"history", required_argument, NULL, OPT_HISTORY},
    {"strict-provenance", no_argument, NULL, OPT_STRICT},
    /* W&B sides; --artifact/--run-target are the before side's, --entity, --project and
     * --download-root apply to both. */
    {"before-artifact", required_argument, NULL, OPT_BEFORE_ARTIFACT},
    {"before-run-target", required_argument, NULL, OPT_BEFORE_RUN_TARGET},
    {"after-artifact", required_argument, NULL, OPT_AFTER_ARTIFACT},
    {"after-run-target", required_argument, NULL, OPT_AFTER_RUN_TARGET},
    CLI_LONG_SOURCES,
    CLI_LONG_TOP_K,
    CLI_LONG_END};

typedef pq_status (*writer)(void *ctx, pq_sink *sink, pq_error *err);

typedef struct wctx {
    const pq_summary *a, *b;
    const pq_track_options *o;
    pq_track_status *status;
    int which; /* 0 before, 1 after */
} wctx;

static pq_status w_summary(void *c, pq_sink *s, pq_error *e)
{
    wctx *x = c;
    return pq_summary_write(x->which ? x->a : x->b, s, e);
}

static pq_status w_report(void *c, pq_sink *s, pq_error *e)
{
    wctx *x = c;
    return pq_summary_report(x->which ? x->a : x->b, x->o->top_k, s, e);
}

static pq_status w_compare(void *c, pq_sink *s, pq_error *e)
{
    wctx *x = c;
    return pq_summary_compare(x->b, x->a, x->o->top_k, 0, s, e);
}

static pq_status w_track(void *c, pq_sink *s, pq_error *e)
{
    wctx *x = c;
    return pq_summary_track(x->b, x->a, x->o, s, x->status, e);
}

static int write_one(const char *dir, const char *name, writer w, wctx *c, char *path_out,
                     size_t cap)
{
    snprintf(path_out, cap, "%s/%s", dir, name);
    cli_out out;
    int code = cli_out_open(&out, path_out);
    if (code != EXIT_OK)
        return code;
    pq_error err;
    memset(&err, 0, sizeof err);
    pq_status st = w(c, &out.sink, &err);
    return cli_out_finish(&out, st, &err);
}

/* A JSON string literal of S (paths are printed in the manifest). */
static void put_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

typedef struct bundle_args {
    const char *side[2]; /* --before, --after */
    cli_sources src[2];
    pq_track_options o;
} bundle_args;

static int take(void *ctx, int id, const char *v)
{
    bundle_args *x = ctx;
    switch (id) {
    case OPT_BEFORE:
    case OPT_AFTER:
        x->side[id == OPT_AFTER] = v;
        return EXIT_OK;
    case OPT_LABEL:
        x->o.label = v;
        return EXIT_OK;
    case OPT_HISTORY:
        x->o.history_path = v;
        return EXIT_OK;
    case OPT_STRICT:
        x->o.strict_provenance = 1;
        return EXIT_OK;
    case CLI_OPT_TOP_K:
        return cli_parse_int_opt("bundle", "--top-k", v, &x->o.top_k);
    case OPT_BEFORE_ARTIFACT:
    case OPT_AFTER_ARTIFACT:
        x->src[id == OPT_AFTER_ARTIFACT].artifact = v;
        return EXIT_OK;
    case OPT_BEFORE_RUN_TARGET:
    case OPT_AFTER_RUN_TARGET:
        x->src[id == OPT_AFTER_RUN_TARGET].run_target = v;
        return EXIT_OK;
    }
    cli_take_source(id, v, &x->src[0]);
    x->src[1].entity = x->src[0].entity;
    x->src[1].project = x->src[0].project;
    x->src[1].download_root = x->src[0].download_root;
    return EXIT_OK;
}

static int cmd_bundle(int argc, char **argv)
{
    bundle_args x;
    memset(&x, 0, sizeof x);
    pq_track_defaults(&x.o);
    const cli_spec spec = {"bundle", "o:", options, NULL, take, &x};
    cli_common args;
    int code = cli_parse(&spec, argc, argv, &args);
    if (code == 0 && args.npaths > 0)
        code = cli_usage_error("bundle", "unknown argument '%s'", args.paths[0]);
    free(args.paths);
    if (code != 0)
        return code;
    const char *before = x.side[0], *after = x.side[1], *dir = args.out_path;
    cli_sources *src = x.src;
    pq_track_options o = x.o;
    if ((!before && !src[0].artifact && !src[0].run_target) ||
        (!after && !src[1].artifact && !src[1].run_target))
        return cli_usage_error("bundle", "Bundle requires either a summary path or a run target "
                                         "for both before and after.");
    if (!dir)
        return cli_usage_error("bundle", "-o DIR is required");
    char when[64];
    cli_generated_at(when, sizeof when);
    o.recorded_at_utc = when;
    pq_summary *b = NULL, *a = NULL;
    pq_summary_options base = {5, 25, 0, when, NULL, NULL, NULL, NULL};
    for (int side = 0; side < 2 && code == EXIT_OK; side++) {
        /* As the seed: a summary path wins over a run target. */
        pq_summary_options so;
        cli_fetched f;
        const char *input;
        code = cli_summarize_source("bundle", &src[side], side ? after : before, &base, &so, &f,
                                    &input);
        if (code == EXIT_OK) {
            code = cli_load_summary_opts(input, &so, side ? &a : &b);
            if (code == EXIT_INPUT)
                cli_source_not_found(&f);
        }
        cli_fetched_done(&f);
    }
    pq_track_status status = PQ_TRACK_PASS;
    char paths[6][4096];
    if (code == EXIT_OK && o.strict_provenance) {
        /* Preflight, as the seed does: nothing is written when provenance fails. */
        cli_out tmp;
        code = cli_out_open(&tmp, "/dev/null");
        if (code == EXIT_OK) {
            pq_error err;
            memset(&err, 0, sizeof err);
            pq_status st = pq_summary_compare(b, a, o.top_k, 1, &tmp.sink, &err);
            code = cli_out_finish(&tmp, st, &err);
        }
    }
    if (code == EXIT_OK && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "profq: %s: cannot create: %s\n", dir, strerror(errno));
        code = EXIT_OUTPUT;
    }
    wctx c = {a, b, &o, &status, 0};
    static const struct {
        const char *name;
        writer w;
        int which;
    } files[6] = {{"before.summary.json", w_summary, 0}, {"after.summary.json", w_summary, 1},
                  {"compare.json", w_compare, 0},        {"track.json", w_track, 0},
                  {"before.report.md", w_report, 0},     {"after.report.md", w_report, 1}};
    for (int k = 0; k < 6 && code == EXIT_OK; k++) {
        c.which = files[k].which;
        code = write_one(dir, files[k].name, files[k].w, &c, paths[k], sizeof paths[k]);
    }
    if (code == EXIT_OK) {
        static const char *const keys[6] = {"before_summary_path", "after_summary_path",
                                            "comparison_path",     "tracking_path",
                                            "before_report_path",  "after_report_path"};
        /* sort_keys order: after_report, after_summary, before_report, before_summary,
         * comparison, output_dir, status, tracking. */
        static const int order[] = {5, 1, 4, 0, 2};
        printf("{\n");
        for (int k = 0; k < 5; k++) {
            printf("  \"%s\": ", keys[order[k]]);
            put_json_str(stdout, paths[order[k]]);
            printf(",\n");
        }
        printf("  \"output_dir\": ");
        put_json_str(stdout, dir);
        printf(",\n  \"status\": \"%s\",\n  \"tracking_path\": ", status == PQ_TRACK_FAIL ? "fail"
                                                                  : status == PQ_TRACK_WARN
                                                                      ? "warn"
                                                                      : "pass");
        put_json_str(stdout, paths[3]);
        printf("\n}\n");
        if (fflush(stdout) != 0)
            code = EXIT_OUTPUT;
    }
    pq_summary_free(b);
    pq_summary_free(a);
    return code;
}

const cli_command cli_cmd_bundle = {
    "bundle", cmd_bundle, "before/after bundle: summaries, compare, track, reports, manifest",
    usage};
