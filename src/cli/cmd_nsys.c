/* cmd_nsys.c - `profq nsys PATH [--section modules] [--format text|json]`: the nsys-jax
 * notebook's tables from an nsys-jax archive (issue 12), or the module table from an XPlane
 * GPU profile (analysis/nsys_xplane.c), through pq_nsys_compute, pq_nsys_render and
 * pq_nsys_free; with --partial the map of `profq merge nsys` (pq_partial_nsys). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq nsys [--section NAME]... [--warmup archive-era|head] [--format text|json|svg]\n"
    "           [-o FILE] PATH...\n"
    "\n"
    "PATH is an nsys-jax archive (.zip, read in place), an Nsight SQLite export with XLA\n"
    "ranges (its NVTX module and thunk ranges projected onto the GPU; no compile, heap,\n"
    "flame), or a JAX XPlane GPU profile (.xplane.pb: a module execution is a run of\n"
    "consecutive kernels of one hlo_module, a thunk the kernels of one hlo_op in it, classified\n"
    "from the XSpace's HloProtos; every execution steady; no bias, compile, heap, flame).\n"
    "Prints what the nsys-jax loader and\n"
    "its notebook compute: the module and thunk frames' row counts (all, steady state,\n"
    "initialisation: see --warmup) and the steady module table: share of time, total projected ms, "
    "rows\n"
    "(executions x devices), name (program id). JSON schema profq.nsys.v1.\n"
    "Sections (all by default; --section NAME, repeatable, selects): modules, runtime (clock\n"
    "alignment, the three runtime definitions, idle time, hidden/exposed communication,\n"
    "thunk totals), opcodes (runtime by HLO opcode), collectives (per kind, message size\n"
    "and instance: bus bandwidth, straggler wait), variability (thunks with std/mean >\n"
    "10%), bias (per-device deviation in the top modules). --format svg: bus bandwidth vs\n"
    "message size of the collectives, or with --section flame the flame graphs. Also\n"
    "compile (total compilation time and the passes by non-child time covering 97%,\n"
    "parallel-compilation aware, autotuning detail removed), heap (heap-simulator usage of\n"
    "the top modules), flame (flame graphs by source stack and by op_name).\n"
    "--warmup: the warm-up split; by default the one of the loader of the archive's era:\n"
    "head (the current nsys-jax loader's, for archives with thread-metadata.parquet or the\n"
    "newer trace.parquet columns: executions below (compiled in the profile) + (profile has\n"
    "communication) are initialisation; every row steady when none would be) or\n"
    "archive-era (the older loader's: executions 0 and 1 of the programs compiled in the\n"
    "profile are not steady). The rule applied is printed (JSON warmup.rule).\n"
    "--partial -o PART: the partial of `profq merge nsys` (archives, SQLite exports, XSpaces;\n"
    "sections, warm-up rule and format are given to the merge).\n";

enum { OPT_SECTION = CLI_OPT_OWN, OPT_WARMUP };
static int take(void *ctx, int id, const char *v);
static const struct option options[] = {{"section", required_argument, NULL, OPT_SECTION},
                                        {"warmup", required_argument, NULL, OPT_WARMUP},
                                        CLI_LONG_FORMAT,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_THREADS,
                                        CLI_LONG_PARTIAL,
                                        CLI_LONG_END};

int cli_nsys_take(unsigned *sections, int warmup, const char *v)
{
    return take(sections, warmup ? OPT_WARMUP : OPT_SECTION, v);
}

static int take(void *ctx, int id, const char *v)
{
    if (id == OPT_WARMUP) {
        unsigned *m = ctx;
        *m &= ~(unsigned)(PQ_NSYS_WARMUP_HEAD | PQ_NSYS_WARMUP_ARCHIVE); /* the last one wins */
        if (!strcmp(v, "head"))
            *m |= PQ_NSYS_WARMUP_HEAD;
        else if (!strcmp(v, "archive-era"))
            *m |= PQ_NSYS_WARMUP_ARCHIVE;
        else
            return cli_usage_error("nsys", "--warmup: expected archive-era or head, found '%s'", v);
        return EXIT_OK;
    }
    static const struct {
        const char *name;
        unsigned bit;
    } SECTIONS[] = {{"modules", PQ_NSYS_MODULES},
                    {"runtime", PQ_NSYS_RUNTIME},
                    {"opcodes", PQ_NSYS_OPCODES},
                    {"collectives", PQ_NSYS_COLLECTIVES},
                    {"variability", PQ_NSYS_VARIABILITY},
                    {"bias", PQ_NSYS_BIAS},
                    {"compile", PQ_NSYS_COMPILE},
                    {"heap", PQ_NSYS_HEAP},
                    {"flame", PQ_NSYS_FLAME}};
    for (size_t k = 0; k < sizeof SECTIONS / sizeof SECTIONS[0]; k++)
        if (!strcmp(v, SECTIONS[k].name)) {
            *(unsigned *)ctx |= SECTIONS[k].bit;
            return EXIT_OK;
        }
    return cli_usage_error("nsys",
                           "--section: expected modules, runtime, opcodes, collectives, "
                           "variability, bias, compile, heap or flame, found '%s'",
                           v);
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    pq_nsys_options o = {*(const unsigned *)ctx, c->fmt};
    pq_nsys_result *r = NULL;
    pq_status st = pq_nsys_compute(prof, &o, &r, err);
    if (st == PQ_OK)
        st = pq_nsys_render(r, c->fmt, sink, err);
    pq_nsys_free(r);
    return st;
}

static int cmd_nsys(int argc, char **argv)
{
    cli_heap_on_huge_pages(); /* an archive's model: 9,000 small-page faults otherwise */
    unsigned sections = 0;
    const cli_spec spec = {"nsys", "f:o:", options, "text, json or svg", take, &sections};
    cli_common c;
    int code = cli_parse_paths(&spec, argc, argv, &c);
    if (code == 0 && c.partial && sections) {
        free(c.paths);
        return cli_usage_error("nsys", "--section and --warmup go to `profq merge nsys`: a "
                                       "partial holds every section");
    }
    if (code == 0 && c.partial)
        return cli_run_partial(&c, 1, pq_partial_nsys);
    return code != 0 ? code : cli_run_parsed(&c, 1, render, &sections);
}

const cli_command cli_cmd_nsys = {
    "nsys", cmd_nsys, "nsys-jax archives: module and thunk frames, the steady module table", usage};
