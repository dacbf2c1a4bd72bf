/* cmd_ops.c - `profq ops PATH...` (XProf's hlo_stats/op_profile figures) and
 * `profq roofline PATH...`: op metrics from device planes, windows first. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int parse_positive(const char *cmd, const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || !(v > 0))
        return cli_usage_error(cmd, "%s takes a positive number", opt);
    *out = v;
    return 0;
}

/* Takes out the options of these commands, leaves the common ones for cli_parse_common. */
static int run(const char *cmd, int argc, char **argv,
               pq_status (*render)(const pq_profile *, const pq_ops_options *, pq_output, pq_sink *,
                                   pq_error *))
{
    pq_ops_options o = {0};
    int xprof = 0, op_profile = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) {
        fprintf(stderr, "profq: out of memory\n");
        return EXIT_INTERNAL;
    }
    int nrest = 0, code = 0;
    for (int i = 0; i < argc && code == 0; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) {
            while (i < argc)
                rest[nrest++] = argv[i++];
            break;
        } else if (strcmp(a, "--by") == 0 && strcmp(cmd, "ops") == 0) {
            if (!v)
                code = cli_usage_error(cmd, "--by needs op, category or program");
            else if (strcmp(v, "op") == 0)
                o.by = PQ_OPS_BY_OP;
            else if (strcmp(v, "category") == 0)
                o.by = PQ_OPS_BY_CATEGORY;
            else if (strcmp(v, "program") == 0)
                o.by = PQ_OPS_BY_PROGRAM;
            else if (strcmp(v, "provenance") == 0)
                o.by = PQ_OPS_BY_PROVENANCE;
            else
                code = cli_usage_error(cmd,
                                       "--by takes op, category, program or provenance, not "
                                       "'%s'",
                                       v);
            i++;
        } else if (strcmp(a, "--top") == 0) {
            char *end;
            long n = v ? strtol(v, &end, 10) : -1;
            if (!v || *end || n < 1 || n > 1000000000)
                code = cli_usage_error(cmd, "--top takes a positive number");
            o.top = (int)n;
            i++;
        } else if (strcmp(a, "--peak-flops") == 0) {
            code = v ? parse_positive(cmd, a, v, &o.peak_tflops)
                     : cli_usage_error(cmd, "--peak-flops needs TFLOP/s");
            i++;
        } else if (strcmp(a, "--peak-bw") == 0) {
            code = v ? parse_positive(cmd, a, v, &o.peak_hbm_gbps)
                     : cli_usage_error(cmd, "--peak-bw needs GB/s");
            i++;
        } else if ((strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0) && v &&
                   strcmp(v, "xprof") == 0) {
            xprof = 1;
            i++;
        } else if (strcmp(a, "--format=xprof") == 0) {
            xprof = 1;
        } else if (strcmp(a, "--view") == 0 && strcmp(cmd, "ops") == 0) {
            /* Which XProf tool --format xprof prints: hlo_stats (default) or op_profile. */
            if (v && strcmp(v, "op_profile") == 0)
                op_profile = 1;
            else if (!v || strcmp(v, "hlo_stats") != 0)
                code = cli_usage_error(cmd, "--view takes hlo_stats or op_profile");
            i++;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    if (code == 0 && op_profile && !xprof)
        code = cli_usage_error(cmd, "--view op_profile goes with --format xprof");
    if (code == 0 && o.by == PQ_OPS_BY_PROVENANCE && !op_profile)
        code = cli_usage_error(cmd, "--by provenance is for --format xprof --view op_profile");
    if (xprof)
        o.xprof = strcmp(cmd, "roofline") == 0 ? PQ_OPS_ROOFLINE_MODEL
                  : op_profile                 ? PQ_OPS_OP_PROFILE
                                               : PQ_OPS_HLO_STATS;
    cli_common c = {0};
    if (code == 0)
        code = cli_parse_common(cmd, nrest, rest, &c, 0);
    if (code == 0) {
        c.no_hash = 1; /* these reports print no sha256 */
        pq_profile *prof = NULL;
        code = cli_load(&c, &prof);
        if (code == EXIT_OK) {
            cli_out out;
            code = cli_out_open(&out, c.out_path);
            if (code == EXIT_OK) {
                pq_error err = {0};
                pq_status st = render(prof, &o, c.fmt, &out.sink, &err);
                code = cli_out_finish(&out, st, &err);
            }
        }
        pq_profile_free(prof);
    }
    free(c.paths);
    free(rest);
    return code;
}

int cmd_ops(int argc, char **argv)
{
    return run("ops", argc, argv, pq_render_ops);
}

int cmd_roofline(int argc, char **argv)
{
    return run("roofline", argc, argv, pq_render_roofline);
}
