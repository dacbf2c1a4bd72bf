/* main.c - profq's entry point: the command table, help and version. */
#include "cli.h"

#include <string.h>

static const cli_command COMMANDS[] = {
    {"info", cmd_info, "what a profile contains: sources, planes, lines, devices, programs",
     "profq info [--format text|json] [-o FILE] [--no-hash] [--threads N] PATH...\n"
     "\n"
     "PATH is an XSpace (*.xplane.pb), an HloProto (*.hlo_proto.pb, *.hlo.pb), or a run\n"
     "directory (plugins/profile/<ts>/ or any folder of *.xplane.pb; one source per host).\n"
     "Prints per source: path, format, host, bytes, sha256; per plane: name, device kind,\n"
     "device capabilities the input states, lines with event counts and time spans; the\n"
     "programs (XLA modules) whose HloProtos the profile carries. JSON schema profq.info.v1.\n"
     "--no-hash skips the sha256 of each source.\n"},
    {"tools", cmd_tools, "which analyses will produce data for this input, and why not the others",
     "profq tools [--format text|json] [-o FILE] PATH...\n"
     "\n"
     "Lists each profq analysis with whether this input has what it needs (HloProtos with a\n"
     "buffer assignment for memory-viewer, allocator events for memory-profile, device op\n"
     "lines for ops/roofline, ...) and the reason. JSON schema profq.tools.v1.\n"},
    {"scan", cmd_scan, "decode every event and stat; print totals (validity check, benchmark)",
     "profq scan [--format text|json] [-o FILE] [--threads N] PATH...\n"
     "\n"
     "Decodes every event and every stat of every plane (ref values resolved) and prints\n"
     "counts by kind and a checksum. Exit 3 with the byte offset if anything is malformed.\n"
     "JSON schema profq.scan.v1.\n"},
    {"memory-viewer", cmd_memory_viewer, "XProf's memory viewer of one module, computed exactly",
     "profq memory-viewer [--module NAME] [--program-id ID] [--memory-space N]\n"
     "                    [--format text|json|xprof] [-o FILE] PATH...\n"
     "\n"
     "Replays the module's heap-simulator trace as XProf's memory_viewer does: peak heap,\n"
     "buffers live at the peak, heap size over program order, special allocations, buffer\n"
     "blocks. --format xprof prints XProf's JSON field for field. Without --module or\n"
     "--program-id, lists the modules with their program ids and memory spaces.\n"
     "--module takes '<name>(<program id>)' or a unique bare name; --program-id takes an\n"
     "XLA program id, else (as XProf) a substring of '<name>(<id>)'. --memory-space is the\n"
     "buffer color (default 0, device HBM).\n"},
    {"memory", cmd_memory, "per worker and device: peak memory by bucket (KV cache, params, ...)",
     "profq memory [--module PREFIX] [--memory-space N] [--rules FILE]\n"
     "             [--format text|json|tsv|md] [-o FILE] PATH|RUN_DIR...\n"
     "\n"
     "For every worker file and every TPU/GPU device plane: the memory viewer of the module\n"
     "the device ran (the largest peak among those whose '<name>(<id>)' starts with\n"
     "PREFIX), its buffers at peak classified into buckets (kv_cache, model_params,\n"
     "other_carry_state, other_parameter by default; temporary, output, gradients, other),\n"
     "gradient detection, and three sanity checks; then min/avg/max across rows. --rules\n"
     "adds rules tried before the defaults (format in the README). JSON schema\n"
     "profq.memory.v1.\n"},
    {"heap", cmd_heap, "heap usage over program order from heap-simulator traces; SVG chart",
     "profq heap [--module NAME] [--format text|json|tsv|svg] [-o FILE] PATH...\n"
     "\n"
     "Replays every heap-simulator trace of every module (or of those whose\n"
     "'<name>(<id>)' starts with NAME): ALLOC adds a buffer, SHARE_WITH shares its\n"
     "canonical buffer's memory (counted once), FREE releases it with its last user. Prints\n"
     "the peak per module and trace; tsv gives every point, json (profq.heap.v1) every\n"
     "trace, svg a line chart of each module's largest trace over program order.\n"},
    {"memory-profile", cmd_memory_profile, "XProf's memory_profile: allocator timelines and peaks",
     "profq memory-profile [--format text|json|xprof] [-o FILE] PATH...\n"
     "\n"
     "From the MemoryAllocation/MemoryDeallocation events on /host:CPU: per allocator the\n"
     "peak stats, the allocations active at the peak, and the sampled timeline (at most\n"
     "1000 points); the XLA module executions of the TPU planes. --format xprof prints\n"
     "XProf's JSON (one XSpace); json wraps it per source (profq.memory_profile.v1).\n"},
    {"ops", cmd_ops, "op metrics from device planes: self time, FLOPs, bytes, bound-by, windows",
     "profq ops [--by op|category|program] [--top N] [--peak-flops TFLOPS] [--peak-bw GBPS]\n"
     "          [--format text|json|xprof] [-o FILE] [--threads N] PATH...\n"
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
     "kind (not the fused instructions XProf lists under a fusion from the HloProto).\n"},
    {"roofline", cmd_roofline, "roofline: FLOP rate and bandwidth per program and op vs peaks",
     "profq roofline [--top N] [--peak-flops TFLOPS] [--peak-bw GBPS]\n"
     "               [--format text|json|xprof]\n"
     "               [-o FILE] [--threads N] PATH...\n"
     "\n"
     "Device peaks and ridge point, totals over all programs, per program the FLOP rate and\n"
     "HBM bandwidth over its active time (module executions) beside the whole-window figures,\n"
     "and per op time, FLOP rate, bandwidth per memory kind, operational intensity and\n"
     "bound-by (spec/xprof-tools.md 5.6, 5.8). JSON schema profq.roofline.v1;\n"
     "--format xprof prints XProf's roofline_model DataTables.\n"},
    {"export", cmd_export, "Chrome trace JSON (Perfetto UI) of every event, streamed, no cap",
     "profq export [-o FILE.json|FILE.json.gz] [--threads N] PATH...\n"
     "\n"
     "Writes every event of every plane as Chrome trace-event JSON that Perfetto UI and\n"
     "chrome://tracing load: planes as processes, lines as threads, stats as args, one trace\n"
     "event per XPlane event, with no event cap (XProf keeps the first 1M). Streamed in\n"
     "bounded memory; an output name ending in .gz is gzip-compressed.\n"},
    {"tt", cmd_tt, "Tenstorrent runtime memory logs: run, analyze, summary, report",
     "profq tt run [-o LOGDIR] [--log] [--name NAME] -- CMD ARGS...\n"
     "profq tt analyze LOG [-o DIR]\n"
     "profq tt summary LOG [-o FILE]\n"
     "profq tt report DIR [-o FILE]\n"
     "\n"
     "run: runs CMD with TTMLIR_RUNTIME_LOGGER_LEVEL=DEBUG and TT_RUNTIME_MEMORY_LOG_LEVEL=\n"
     "operation, tees its output into LOGDIR/<name>_<YYYYMMDD_HHMMSS>/<name>_profile.log\n"
     "(LOGDIR defaults to ./logs; a run dir is never reused), then analyzes the log into the\n"
     "run dir unless --log. A failing command still gets its log analyzed; profq exits with\n"
     "the command's status. <name> is the stem of the first *.py argument, else the program.\n"
     "analyze: writes DIR/<name>_memory.json, <name>_operations.json (the nth element of each\n"
     "is the same operation) and <name>_report.html (self-contained); DIR defaults to '.'.\n"
     "summary: prints a markdown summary (peaks, top DRAM growth, padding, weights, ops).\n"
     "report: renders <name>_report.html from the JSON files in a run DIR.\n"
     "Malformed memory blocks are counted and reported on stderr, never fatal; a log with no\n"
     "operation at all exits 3 with the byte offset and what was expected.\n"},
    {"summarize", cmd_summarize, "profile_summary.v1 of a trace JSON, XPlane or jax_profile dir",
     "profq summarize PATH|--artifact REF|--run-target T [--entity E] [--project P]\n"
     "                [--download-root DIR] [-o FILE] [--warmup-steps N] [--hot-op-limit N]\n"
     "                [--breakdown-mode exclusive_per_track|exclusive_global]\n"
     "\n"
     "PATH is a Chrome trace-event JSON (.json, .json.gz: JAX perfetto_trace.json.gz,\n"
     "*.trace.json.gz, PyTorch/Kineto), an XSpace (*.xplane.pb), or a jax_profile artifact\n"
     "directory (one *.xplane.pb, else plugins/profile/<ts>/perfetto_trace.json.gz, else\n"
     "*.trace.json.gz, else *.trace.json). Writes the seed's profile_summary.v1 JSON (sorted\n"
     "keys, indent 2): step time with warm-up filtering and light/heavy classes, time\n"
     "breakdown, hot ops, semantic families, collectives, pre-op gaps, hierarchical regions,\n"
     "gap contexts, op-region aggregates, trace quality, provenance (sha256), candidates.\n"
     "Times are in the trace's units (microseconds). generated_at_utc follows\n"
     "SOURCE_DATE_EPOCH when set, so output is byte-identical across runs. With -o, the\n"
     "file is written atomically and only its path is printed (as the seed does).\n"
     "Defaults: --warmup-steps 5, --hot-op-limit 25, exclusive_per_track. JSON that is not\n"
     "trace events (a PyTorch execution trace, a bare array of rows) is refused, exit 3.\n"
     "W&B, through the official `wandb` command-line client (on PATH, logged in or\n"
     "WANDB_API_KEY; else exit 2 naming what is missing): --artifact ENTITY/PROJECT/NAME[:V]\n"
     "runs `wandb artifact get --root DIR --type jax_profile REF`; --run-target T (bare id\n"
     "with --entity/--project, entity/project/id, or a run URL) runs `wandb pull` in DIR.\n"
     "DIR is under --download-root (kept), else a temporary folder (removed).\n"},
    {"report", cmd_report, "deterministic markdown root-cause report of a summary",
     "profq report SUMMARY [-o report.md] [--top-k N]\n"
     "\n"
     "SUMMARY is a profile_summary.v1 file, or any input summarize reads (summarised with\n"
     "the defaults). Sections as the seed's report: run metadata, provenance, overview,\n"
     "steady-state step time, step classes, time breakdown, hierarchical regions, top ops,\n"
     "ops by region, semantic families, collectives, pre-op gaps, gap context, candidates.\n"
     "--top-k rows per table (10).\n"},
    {"query", cmd_query, "answer a question about a summary (the seed's nine question kinds)",
     "profq query SUMMARY --question \"...\" [--top-k N] [-o FILE]\n"
     "\n"
     "Routes the question as the seed does (first match wins): top ops; compute vs\n"
     "communication; collective breakdown; gap before <op>; context for <op>; hierarchical\n"
     "regions; memory-/compute-bound (unsupported from a trace); improve/regress/compare\n"
     "hint; otherwise the optimization candidates. Output JSON with query_type.\n"},
    {"compare", cmd_compare, "compare two summaries or profiles (before/after)",
     "profq compare BEFORE AFTER [--top-k N] [--strict-provenance] [-o FILE]\n"
     "\n"
     "Provenance checks (identical trace sha256 fails), steady-state median/p90 deltas,\n"
     "step classes, breakdown share deltas, semantic family deltas, regressed and improved\n"
     "ops. --strict-provenance: exit 3 when the provenance check fails.\n"},
    {"track", cmd_track, "pass/warn/fail of AFTER vs BEFORE; append to a JSONL history",
     "profq track BEFORE AFTER [--label L] [--history H.jsonl] [--top-k N]\n"
     "            [--strict-provenance] [--max-step-median-regression-pct 5.0]\n"
     "            [--max-step-p90-regression-pct 10.0]\n"
     "            [--max-communication-share-regression-abs 0.05]\n"
     "            [--max-stall-share-regression-abs 0.05] [-o FILE]\n"
     "\n"
     "fail when the steady-state median or p90 step time regressed past its threshold,\n"
     "warn when the communication or stall share grew past its threshold, else pass.\n"
     "Prints the record; with --history appends it as one JSON line (whole-line write under\n"
     "an exclusive lock, then fsync). Exit 1 on fail, so CI can gate.\n"},
    {"history", cmd_history, "digest of a tracking history (JSONL)",
     "profq history H.jsonl [--tail N] [-o FILE]\n"
     "\n"
     "Record count, status counts, the ten most frequent failures and warnings, the latest\n"
     "record and the last N records (20). Blank, partial and non-object lines are skipped.\n"},
    {"bundle", cmd_bundle, "before/after bundle: summaries, compare, track, reports, manifest",
     "profq bundle --before X --after Y -o DIR [--label L] [--history H.jsonl] [--top-k N]\n"
     "             [--strict-provenance] [--before-run-target T] [--after-run-target T]\n"
     "             [--before-artifact REF] [--after-artifact REF] [--entity E] [--project P]\n"
     "             [--download-root DIR]\n"
     "\n"
     "X and Y are summaries or raw profiles, or W&B run targets / artifacts (as summarize;\n"
     "a path given for the same side wins). Writes DIR/before.summary.json,\n"
     "after.summary.json, compare.json, track.json, before.report.md, after.report.md,\n"
     "appends the track record to --history, and prints the manifest (paths and status).\n"
     "With --strict-provenance nothing is written when the provenance check fails.\n"},
    {"publish", cmd_publish, "publish a summary as a W&B artifact (official wandb client)",
     "profq publish --summary S [--report R] [--entity E] [--project P] [--artifact-name N]\n"
     "              [--alias A]... [--dry-run] [-o FILE]\n"
     "\n"
     "Uploads S (and R) as a W&B artifact of type profile_summary through the official\n"
     "`wandb` command-line client (`wandb artifact put`), which must be on PATH and logged\n"
     "in; without it, exit 2 and a message naming what is missing. Entity and project\n"
     "default to $WANDB_ENTITY / $WANDB_PROJECT, else marin-community / marin; the name to\n"
     "profile-summary-<run_id> or profile-summary-<UTC timestamp>; aliases to latest.\n"
     "Prints {status, entity, project, artifact_name, artifact_type, aliases, summary_path,\n"
     "report_path, metadata} (the seed's metadata keys). --dry-run: status dry_run, no W&B.\n"},
};
enum { NCOMMANDS = sizeof COMMANDS / sizeof COMMANDS[0] };

static void print_overview(FILE *f)
{
    fprintf(f,
            "profq %s - answers performance and memory questions about ML accelerator "
            "profiles\n\nusage: profq <command> [options] PATH...\n\ncommands:\n",
            PQ_VERSION_STRING);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-14s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(f, "  help           profq help <command>\n  version        print the version\n"
               "\nexit codes: 0 ok, 1 gate failed, 2 usage, 3 bad input, 4 output error, "
               "5 internal error\n");
}

static const cli_command *find(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(COMMANDS[i].name, name) == 0)
            return &COMMANDS[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc >= 3) {
            const cli_command *c = find(argv[2]);
            if (!c) {
                fprintf(stderr, "profq: unknown command '%s'\n", argv[2]);
                return EXIT_USAGE;
            }
            fputs(c->usage, stdout);
        } else {
            print_overview(stdout);
        }
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_OUTPUT;
    }
    if (strcmp(name, "version") == 0 || strcmp(name, "--version") == 0) {
        printf("profq %s\n", PQ_VERSION_STRING);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_OUTPUT;
    }
    const cli_command *c = find(name);
    if (!c) {
        fprintf(stderr, "profq: unknown command '%s' (see 'profq help')\n", name);
        return EXIT_USAGE;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(c->usage, stdout);
            return EXIT_OK;
        }
    }
    return c->run(argc - 2, argv + 2);
}
