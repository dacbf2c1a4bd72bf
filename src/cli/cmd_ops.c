/* cmd_ops.c - `profq ops PATH...` (XProf's hlo_stats/op_profile figures) and
 * `profq roofline PATH...`: op metrics from device planes, windows first. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char roofline_usage[] =
    "profq roofline [--top N] [--peak-flops TFLOPS] [--peak-bw GBPS] [--wide]\n"
    "               [--format text|json|xprof]\n"
    "               [-o FILE] [--threads N] PATH...\n"
    "profq roofline --partial -o PART PATH...   (then: profq merge roofline PART...)\n"
    "\n"
    "Device peaks and ridge point, totals over all programs, per program the FLOP rate and\n"
    "HBM bandwidth over its active time (module executions) beside the whole-window figures,\n"
    "and per op time, FLOP rate, bandwidth per memory kind, operational intensity and\n"
    "bound-by (spec/xprof-tools.md 5.6, 5.8). JSON schema profq.roofline.v1;\n"
    "--format xprof prints XProf's roofline_model DataTables. --wide: whole names in text.\n";

static const char ops_usage[] =
    "profq ops [--by op|category|program] [--top N] [--peak-flops TFLOPS] [--peak-bw GBPS]\n"
    "          [--wide] [--format text|json|xprof] [-o FILE] [--threads N] PATH...\n"
    "profq ops --partial -o PART PATH...   (then: profq merge ops PART...)\n"
    "profq ops --format xprof --view op_profile [--by program|category|provenance] PATH...\n"
    "\n"
    "XProf's hlo_stats from the device planes (TPU XLA Ops lines, GPU stream kernels),\n"
    "merged over devices and hosts: per op self time, occurrences, FLOPs and bytes where the\n"
    "input states them, category, FLOP rate, HBM bandwidth, operational intensity, bound-by.\n"
    "The text report opens with the windows (captured, in modules, in ops, idle; steady state)\n"
    "and warns first when idle is more than half the window. Device peaks come from plane\n"
    "stats only (unknown otherwise); --peak-flops/--peak-bw supply them per device.\n"
    "JSON schema profq.ops.v1; --format xprof prints XProf's hlo_stats DataTable, and\n"
    "with --view op_profile XProf's op_profile JSON: the op tree by program (default),\n"
    "category or provenance (--by), with and without IDLE, per node rawTime, rawFlops,\n"
    "bf16Flops, occurrences, avgTimePs, FLOP and bandwidth utilisation, bytes per memory\n"
    "kind (not the fused instructions XProf lists under a fusion from the HloProto).\n"
    "Text fits 120 columns, long names shortened in the middle with ...; --wide keeps them "
    "whole.\n";

enum { OPT_BY = CLI_OPT_OWN, OPT_TOP, OPT_PEAK_FLOPS, OPT_PEAK_BW, OPT_VIEW, OPT_WIDE };
/* clang-format off */
#define OPS_LONG_COMMON                                                                           \
    {"top", required_argument, NULL, OPT_TOP},                                                    \
    {"peak-flops", required_argument, NULL, OPT_PEAK_FLOPS},                                      \
    {"peak-bw", required_argument, NULL, OPT_PEAK_BW},                                            \
    {"wide", no_argument, NULL, OPT_WIDE},                                                        \
    CLI_LONG_FORMAT, CLI_LONG_OUTPUT, CLI_LONG_THREADS
/* clang-format on */
static const struct option ops_options[] = {{"by", required_argument, NULL, OPT_BY},
                                            {"view", required_argument, NULL, OPT_VIEW},
                                            OPS_LONG_COMMON,
                                            CLI_LONG_PARTIAL,
                                            CLI_LONG_END};
static const struct option roofline_options[] = {OPS_LONG_COMMON, CLI_LONG_PARTIAL, CLI_LONG_END};

static int parse_positive(const char *cmd, const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || !(v > 0))
        return cli_usage_error(cmd, "%s takes a positive number", opt);
    *out = v;
    return 0;
}

typedef struct ops_args {
    const char *cmd;
    pq_ops_options o;
    int op_profile; /* --view op_profile */
} ops_args;

static int take(void *ctx, int id, const char *v)
{
    ops_args *a = ctx;
    const char *cmd = a->cmd;
    if (id == OPT_BY) {
        if (strcmp(v, "op") == 0)
            a->o.by = PQ_OPS_BY_OP;
        else if (strcmp(v, "category") == 0)
            a->o.by = PQ_OPS_BY_CATEGORY;
        else if (strcmp(v, "program") == 0)
            a->o.by = PQ_OPS_BY_PROGRAM;
        else if (strcmp(v, "provenance") == 0)
            a->o.by = PQ_OPS_BY_PROVENANCE;
        else
            return cli_usage_error(cmd, "--by takes op, category, program or provenance, not '%s'",
                                   v);
    } else if (id == OPT_TOP) {
        char *end;
        long n = strtol(v, &end, 10);
        if (!*v || *end || n < 1 || n > 1000000000)
            return cli_usage_error(cmd, "--top takes a positive number");
        a->o.top = (int)n;
    } else if (id == OPT_PEAK_FLOPS) {
        return parse_positive(cmd, "--peak-flops", v, &a->o.peak_tflops);
    } else if (id == OPT_PEAK_BW) {
        return parse_positive(cmd, "--peak-bw", v, &a->o.peak_hbm_gbps);
    } else if (id == OPT_WIDE) {
        a->o.wide = 1;
    } else if (id == OPT_VIEW) {
        /* Which XProf tool --format xprof prints: hlo_stats (default) or op_profile. */
        if (strcmp(v, "op_profile") == 0)
            a->op_profile = 1;
        else if (strcmp(v, "hlo_stats") != 0)
            return cli_usage_error(cmd, "--view takes hlo_stats or op_profile");
    }
    return EXIT_OK;
}

static int run(const char *cmd, const struct option *options, int argc, char **argv,
               pq_status (*render)(const pq_profile *, const pq_ops_options *, pq_output, pq_sink *,
                                   pq_error *))
{
    ops_args a = {cmd, {0}, 0};
    const cli_spec spec = {cmd, "f:o:", options, "text, json or xprof", take, &a};
    cli_common c;
    int code = cli_parse_paths(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    int xprof = c.fmt == PQ_OUT_XPROF;
    if (a.op_profile && !xprof)
        code = cli_usage_error(cmd, "--view op_profile goes with --format xprof");
    if (code == 0 && a.o.by == PQ_OPS_BY_PROVENANCE && !a.op_profile)
        code = cli_usage_error(cmd, "--by provenance is for --format xprof --view op_profile");
    if (xprof) {
        a.o.xprof = strcmp(cmd, "roofline") == 0 ? PQ_OPS_ROOFLINE_MODEL
                    : a.op_profile               ? PQ_OPS_OP_PROFILE
                                                 : PQ_OPS_HLO_STATS;
        c.fmt = PQ_OUT_TEXT; /* the view is in o.xprof */
    }
    if (code == 0 && c.partial &&
        (a.op_profile || a.o.by || a.o.peak_tflops > 0 || a.o.peak_hbm_gbps > 0))
        code = cli_usage_error(cmd, "--partial takes no --view, --by or --peak-*: give them "
                                    "to profq merge");
    if (code == 0) {
        c.no_hash = 1; /* these reports print no sha256 */
        /* hlo_stats and op_profile of a TPU read no host-thread events (speed.md, round 5) */
        c.tpu_skip_host_lines = xprof && !c.partial && strcmp(cmd, "roofline") != 0;
        pq_profile *prof = NULL;
        code = cli_load(&c, &prof);
        if (code == EXIT_OK && c.partial) {
            pq_error err = {0};
            pq_partial *p = NULL;
            int roof = strcmp(cmd, "roofline") == 0; /* --format xprof: XProf's tables' partial */
            pq_status st = xprof  ? pq_partial_ops_xprof(prof, roof, &p, &err)
                           : roof ? pq_partial_roofline(prof, &p, &err)
                                  : pq_partial_ops(prof, &p, &err);
            code = cli_write_partial(&c, p, st, &err);
        } else if (code == EXIT_OK) {
            cli_out out;
            code = cli_out_open(&out, c.out_path);
            if (code == EXIT_OK) {
                pq_error err = {0};
                pq_status st = render(prof, &a.o, c.fmt, &out.sink, &err);
                code = cli_out_finish(&out, st, &err);
            }
        }
        pq_profile_free(prof);
    }
    free(c.paths);
    return code;
}

static int cmd_ops(int argc, char **argv)
{
    return run("ops", ops_options, argc, argv, pq_render_ops);
}

static int cmd_roofline(int argc, char **argv)
{
    return run("roofline", roofline_options, argc, argv, pq_render_roofline);
}

const cli_command cli_cmd_ops = {
    "ops", cmd_ops, "op metrics from device planes: self time, FLOPs, bytes, bound-by, windows",
    ops_usage};

const cli_command cli_cmd_roofline = {
    "roofline", cmd_roofline, "roofline: FLOP rate and bandwidth per program and op vs peaks",
    roofline_usage};
