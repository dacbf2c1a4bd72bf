/* cmd_info.c - `profq info PATH...`: what the profile contains. */
#include "cli.h"

static const char info_usage[] =
    "profq info [--format text|json] [-o FILE] [--no-hash] [--threads N] PATH...\n"
    "profq info --partial -o PART PATH...   (then: profq merge info PART...)\n"
    "\n"
    "PATH is an XSpace (*.xplane.pb), an HloProto (*.hlo_proto.pb, *.hlo.pb), or a run\n"
    "directory (plugins/profile/<ts>/ or any folder of *.xplane.pb; one source per host).\n"
    "Prints per source: path, format, host, bytes, sha256; per plane: name, device kind,\n"
    "device capabilities the input states, lines with event counts and time spans; the\n"
    "programs (XLA modules) whose HloProtos the profile carries. JSON schema profq.info.v1.\n"
    "--no-hash skips the sha256 of each source.\n";

static const char tools_usage[] =
    "profq tools [--format text|json] [-o FILE] PATH...\n"
    "\n"
    "Lists each profq analysis with whether this input has what it needs (HloProtos with a\n"
    "buffer assignment for memory-viewer, allocator events for memory-profile, device op\n"
    "lines for ops/roofline, ...) and the reason. JSON schema profq.tools.v1.\n";

static const struct option info_options[] = {CLI_LONG_FORMAT,  CLI_LONG_OUTPUT,  CLI_LONG_NO_HASH,
                                             CLI_LONG_THREADS, CLI_LONG_PARTIAL, CLI_LONG_END};
static const struct option tools_options[] = {CLI_LONG_FORMAT, CLI_LONG_OUTPUT, CLI_LONG_THREADS,
                                              CLI_LONG_END};

static pq_status render_info(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                             pq_error *err)
{
    (void)ctx;
    return pq_render_info(prof, c->fmt, sink, err);
}

static pq_status render_tools(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                              pq_error *err)
{
    (void)ctx;
    return pq_render_tools(prof, c->fmt, sink, err);
}

static int cmd_info(int argc, char **argv)
{
    const cli_spec spec = {"info", "f:o:", info_options, "text or json", NULL, NULL};
    cli_common c;
    int code = cli_parse_paths(&spec, argc, argv, &c);
    if (code == 0 && c.partial) /* every format's sections: the format is merge's */
        return cli_run_partial(&c, 0, pq_partial_info);
    c.skip_thunk_ops = 1; /* info reads no op: the XLA:CPU thunks' stats stay undecoded */
    return code != 0 ? code : cli_run_parsed(&c, 0, render_info, NULL);
}

static int cmd_tools(int argc, char **argv)
{
    const cli_spec spec = {"tools", "f:o:", tools_options, "text or json", NULL, NULL};
    return cli_run_render(&spec, argc, argv, 0, render_tools, NULL);
}

const cli_command cli_cmd_info = {
    "info", cmd_info, "what a profile contains: sources, planes, lines, devices, programs",
    info_usage};

const cli_command cli_cmd_tools = {
    "tools", cmd_tools, "which analyses will produce data for this input, and why not the others",
    tools_usage};
