/* cmd_memory_profile.c - `profq memory-profile PATH [--format text|json|xprof]`: XProf's
 * memory_profile (allocator snapshots, peaks, active allocations, sampled timeline). */
#include "cli.h"

static const char usage[] =
    "profq memory-profile [--format text|json|xprof] [-o FILE] PATH...\n"
    "profq memory-profile --partial -o PART PATH...  (then: profq merge memory-profile PART...)\n"
    "\n"
    "From the MemoryAllocation/MemoryDeallocation events on /host:CPU: per allocator the\n"
    "peak stats, the allocations active at the peak, and the sampled timeline (at most\n"
    "1000 points); the XLA module executions of the TPU planes. --format xprof prints\n"
    "XProf's JSON (one XSpace); json wraps it per source (profq.memory_profile.v1).\n";

static const struct option options[] = {CLI_LONG_FORMAT, CLI_LONG_OUTPUT, CLI_LONG_THREADS,
                                        CLI_LONG_PARTIAL, CLI_LONG_END};

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    (void)ctx;
    return pq_render_memory_profile(prof, c->fmt, sink, err);
}

static int cmd_memory_profile(int argc, char **argv)
{
    const cli_spec spec = {"memory-profile", "f:o:", options, "text, json or xprof", NULL, NULL};
    cli_common c;
    int code = cli_parse_paths(&spec, argc, argv, &c);
    if (code == 0 && c.partial) /* every format's sections: the format is merge's */
        return cli_run_partial(&c, 1, pq_partial_memory_profile);
    return code != 0 ? code : cli_run_parsed(&c, 1, render, NULL);
}

const cli_command cli_cmd_memory_profile = {"memory-profile", cmd_memory_profile,
                                            "XProf's memory_profile: allocator timelines and peaks",
                                            usage};
