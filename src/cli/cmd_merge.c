/* cmd_merge.c - `profq merge <cmd> PART...`: the reduce of map and merge (DESIGN.md 8).
 * Reads the partials `profq <cmd> --partial` wrote, merges them (in any order: the merge is
 * associative and commutative) and renders what `profq <cmd>` over all the inputs prints,
 * or with --partial writes the merged partial (a tree of merges). Also the writer of
 * partials the commands share (cli_write_partial). Not the format: api/partial.c. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq merge CMD [--format FMT] [-o FILE] [--partial] PART...\n"
    "profq merge ops [--by op|category|program] [--top N] [--wide] [--peak-flops TFLOPS]\n"
    "                [--peak-bw GBPS] [--format text|json] PART...\n"
    "profq merge ops|roofline --format xprof [--view hlo_stats|op_profile]\n"
    "                [--by program|category|provenance] PART...\n"
    "profq merge nsys [--section NAME]... [--warmup archive-era|head]\n"
    "                [--format text|json|svg] PART...\n"
    "\n"
    "Merges the partial results that `profq CMD --partial -o PART PATH...` wrote (one per\n"
    "host, or per any split of the inputs; in any order) and prints what `profq CMD` over\n"
    "all the inputs prints, byte for byte (inputs in sorted order, as a run directory or a\n"
    "shell glob gives them). CMD is scan, ops, roofline, info (text and JSON),\n"
    "memory-profile (text, JSON, and xprof for one XSpace), memory (text, json, tsv, md;\n"
    "--wide) or summarize (JSON: one file's summary, or the set of several trace files).\n"
    "XProf's tables of ops and\n"
    "roofline (--format xprof: hlo_stats, op_profile, roofline_model) merge from partials\n"
    "made with `profq ops|roofline --format xprof --partial` (and only those). nsys (text,\n"
    "json, svg; --section NAME..., --warmup archive-era|head as `profq nsys` takes them)\n"
    "merges the partials of nsys-jax archives, Nsight exports and XSpaces and runs the nsys\n"
    "analyses over all their processes at once. --partial writes\n"
    "the merged partial instead (merges of merges). A partial of another profq version, of\n"
    "another command, a truncated or a corrupt one is exit 3 with the file and byte offset.\n";

enum {
    OPT_BY = CLI_OPT_OWN,
    OPT_TOP,
    OPT_WIDE,
    OPT_PEAK_FLOPS,
    OPT_PEAK_BW,
    OPT_VIEW,
    OPT_SECTION,
    OPT_WARMUP
};

typedef struct merge_args {
    pq_ops_options o;
    int op_profile;    /* --view op_profile */
    unsigned sections; /* nsys: --section and --warmup as PQ_NSYS_* bits */
} merge_args;

static const struct option options[] = {CLI_LONG_FORMAT,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_PARTIAL,
                                        {"by", required_argument, NULL, OPT_BY},
                                        {"top", required_argument, NULL, OPT_TOP},
                                        {"wide", no_argument, NULL, OPT_WIDE},
                                        {"peak-flops", required_argument, NULL, OPT_PEAK_FLOPS},
                                        {"peak-bw", required_argument, NULL, OPT_PEAK_BW},
                                        {"view", required_argument, NULL, OPT_VIEW},
                                        {"section", required_argument, NULL, OPT_SECTION},
                                        {"warmup", required_argument, NULL, OPT_WARMUP},
                                        CLI_LONG_END};

static int take(void *ctx, int id, const char *v)
{
    merge_args *m = ctx;
    pq_ops_options *o = &m->o;
    if (id == OPT_SECTION || id == OPT_WARMUP)
        return cli_nsys_take(&m->sections, id == OPT_WARMUP, v);
    if (id == OPT_VIEW) {
        if (strcmp(v, "op_profile") == 0)
            m->op_profile = 1;
        else if (strcmp(v, "hlo_stats") != 0)
            return cli_usage_error("merge", "--view takes hlo_stats or op_profile");
    } else if (id == OPT_BY) {
        if (strcmp(v, "op") == 0)
            o->by = PQ_OPS_BY_OP;
        else if (strcmp(v, "category") == 0)
            o->by = PQ_OPS_BY_CATEGORY;
        else if (strcmp(v, "program") == 0)
            o->by = PQ_OPS_BY_PROGRAM;
        else if (strcmp(v, "provenance") == 0)
            o->by = PQ_OPS_BY_PROVENANCE;
        else
            return cli_usage_error("merge",
                                   "--by takes op, category, program or provenance, "
                                   "not '%s'",
                                   v);
    } else if (id == OPT_TOP) {
        return cli_parse_int_opt("merge", "--top", v, &o->top);
    } else if (id == OPT_WIDE) {
        o->wide = 1;
    } else if (id == OPT_PEAK_FLOPS || id == OPT_PEAK_BW) {
        char *end;
        double x = strtod(v, &end);
        if (*end || !(x > 0))
            return cli_usage_error("merge", "%s takes a positive number",
                                   id == OPT_PEAK_FLOPS ? "--peak-flops" : "--peak-bw");
        *(id == OPT_PEAK_FLOPS ? &o->peak_tflops : &o->peak_hbm_gbps) = x;
    }
    return EXIT_OK;
}

int cli_write_partial(const cli_common *c, pq_partial *p, pq_status st, const pq_error *err)
{
    if (st != PQ_OK)
        return cli_report(err);
    cli_out o;
    int code = cli_out_open(&o, c->out_path);
    if (code == EXIT_OK) {
        pq_error werr = {0};
        st = pq_partial_write(p, &o.sink, &werr);
        code = cli_out_finish(&o, st, &werr);
    }
    pq_partial_free(p);
    return code;
}

int cli_run_partial(cli_common *c, int force_no_hash, cli_partial_fn make)
{
    pq_profile *prof = NULL;
    if (force_no_hash)
        c->no_hash = 1;
    int code = cli_load(c, &prof);
    if (code == EXIT_OK) {
        pq_error err = {0};
        pq_partial *p = NULL;
        pq_status st = make(prof, &p, &err);
        code = cli_write_partial(c, p, st, &err);
    }
    pq_profile_free(prof);
    free(c->paths);
    return code;
}

int cli_summarize_partial(cli_common *c, const pq_summary_options *opts)
{
    int code = EXIT_OK;
    if (c->npaths == 0)
        code = cli_usage_error("summarize", "--partial takes the trace files (PATH...)");
    if (code == EXIT_OK) {
        char when[64];
        cli_generated_at(when, sizeof when);
        pq_summary_options o = *opts;
        o.generated_at_utc = when;
        pq_error err = {0};
        pq_partial *p = NULL;
        pq_status st =
            pq_partial_summarize((const char *const *)c->paths, (size_t)c->npaths, &o, &p, &err);
        code = cli_write_partial(c, p, st, &err);
    }
    free(c->paths);
    return code;
}

/* Reads PATH as a partial of KIND into *OUT: 0, or an exit code after printing. */
static int read_partial(const char *path, pq_partial_kind kind, pq_partial **out)
{
    cli_stream s;
    int code = cli_stream_read(path, &s);
    if (code != EXIT_OK)
        return code;
    pq_error err;
    pq_status st = pq_partial_read(s.data, s.n, cli_stream_name(path), out, &err);
    cli_stream_done(&s);
    if (st != PQ_OK)
        return cli_report(&err);
    if (pq_partial_kind_of(*out) != kind) {
        fprintf(stderr, "profq: %s: offset 12: a partial of '%s', expected one of '%s'\n", path,
                pq_partial_kind_name(pq_partial_kind_of(*out)), pq_partial_kind_name(kind));
        pq_partial_free(*out);
        *out = NULL;
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

static int cmd_merge(int argc, char **argv)
{
    merge_args m = {{0}, 0, 0};
    pq_ops_options *o = &m.o;
    const cli_spec spec = {"merge", "f:o:", options, "text, json, tsv, md, xprof or svg", take, &m};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    pq_partial_kind kind = 0;
    for (int k = 1; c.npaths > 0 && pq_partial_kind_name((pq_partial_kind)k); k++)
        if (strcmp(pq_partial_kind_name((pq_partial_kind)k), c.paths[0]) == 0)
            kind = (pq_partial_kind)k;
    if (c.npaths == 0)
        code = cli_usage_error("merge", "no command given (merge CMD PART...)");
    else if (!kind)
        code = cli_usage_error("merge", "'%s' has no partials", c.paths[0]);
    else if (c.npaths < 2)
        code = cli_usage_error("merge", "no partial given");
    else if (m.sections && kind != PQ_PARTIAL_NSYS)
        code = cli_usage_error("merge", "--section and --warmup are for merge nsys");
    else if (c.fmt == PQ_OUT_SVG && kind != PQ_PARTIAL_NSYS)
        code = cli_usage_error("merge", "%s has no --format svg", c.paths[0]);
    else if (m.op_profile && (c.fmt != PQ_OUT_XPROF || kind != PQ_PARTIAL_OPS))
        code = cli_usage_error("merge", "--view op_profile goes with merge ops --format xprof");
    else if (o->by == PQ_OPS_BY_PROVENANCE && !m.op_profile)
        code = cli_usage_error("merge", "--by provenance is for --format xprof --view op_profile");
    else if (c.fmt == PQ_OUT_XPROF && (kind == PQ_PARTIAL_OPS || kind == PQ_PARTIAL_ROOFLINE)) {
        o->xprof = kind == PQ_PARTIAL_ROOFLINE ? PQ_OPS_ROOFLINE_MODEL
                   : m.op_profile              ? PQ_OPS_OP_PROFILE
                                               : PQ_OPS_HLO_STATS;
        c.fmt = PQ_OUT_TEXT; /* the view is in o.xprof, as `profq ops` renders it */
    } else if (c.fmt == PQ_OUT_XPROF && kind != PQ_PARTIAL_MEMORY_PROFILE)
        code = cli_usage_error("merge", "%s has no --format xprof", c.paths[0]);
    else if ((c.fmt == PQ_OUT_TSV || c.fmt == PQ_OUT_MD) && kind != PQ_PARTIAL_MEMORY)
        code = cli_usage_error("merge", "%s has no --format tsv or md", c.paths[0]);
    pq_partial *acc = NULL;
    for (int i = 1; code == EXIT_OK && i < c.npaths; i++) {
        pq_partial *p = NULL;
        code = read_partial(c.paths[i], kind, &p);
        if (code == EXIT_OK && acc) {
            pq_error err;
            if (pq_partial_merge(acc, p, &err) != PQ_OK)
                code = cli_report(&err);
            pq_partial_free(p);
        } else if (code == EXIT_OK) {
            acc = p;
        }
    }
    if (code == EXIT_OK && c.partial) {
        code = cli_write_partial(&c, acc, PQ_OK, NULL);
        acc = NULL;
    } else if (code == EXIT_OK) {
        cli_out out;
        code = cli_out_open(&out, c.out_path);
        if (code == EXIT_OK) {
            pq_error err = {0};
            pq_status st = kind == PQ_PARTIAL_NSYS
                               ? pq_partial_render_nsys(acc, m.sections, c.fmt, &out.sink, &err)
                               : pq_partial_render(acc, o, c.fmt, &out.sink, &err);
            code = cli_out_finish(&out, st, &err);
        }
    }
    pq_partial_free(acc);
    free(c.paths);
    return code;
}

const cli_command cli_cmd_merge = {
    "merge", cmd_merge, "merge partial results (--partial) of any split of the inputs", usage};
