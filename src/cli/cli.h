/* cli.h - shared pieces of the command-line tool: exit codes, option parsing helpers,
 * output sinks, error printing. Only src/cli knows about argv, stdout and exit codes. */
#ifndef PQ_CLI_H
#define PQ_CLI_H
#include "profq.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

enum {
    EXIT_OK = 0,
    EXIT_GATE = 1, /* a gate failed (track/compare thresholds) */
    EXIT_USAGE = 2,
    EXIT_INPUT = 3, /* bad input: file, byte offset, what was expected */
    EXIT_OUTPUT = 4,
    EXIT_INTERNAL = 5
};

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
    const char *summary;
    const char *usage;
} cli_command;

/* Puts the C library's heap on 2 MiB pages for the rest of the process (common.c: why, and
 * what it costs). Call first thing in a command that reads a big input, before any thread. */
void cli_heap_on_huge_pages(void);

/* Output: stdout, or a file written atomically (temp file, then rename). */
typedef struct cli_out {
    FILE *f;
    char *path; /* final path, or NULL for stdout */
    char *tmp_path;
    pq_sink sink;
    int epipe; /* a write failed with EPIPE: the reader closed the pipe */
} cli_out;

int cli_out_open(cli_out *o, const char *path);
/* Flushes, checks ferror, renames into place. Returns an exit code. */
int cli_out_close(cli_out *o, int ok);

/* Closes O after a render that returned ST: one line on stderr at most (a failed write is
 * reported by the close, with the system's reason). Returns the exit code. */
int cli_out_finish(cli_out *o, pq_status st, const pq_error *err);

/* Prints `profq: <path>: offset <N>: <message>` and returns the exit code for the status. */
int cli_report(const pq_error *err);
int cli_exit_code(pq_status st);
int cli_usage_error(const char *cmd, const char *fmt, ...);

/* Common options of commands that read profiles (and the output and operands of all). */
typedef struct cli_common {
    pq_output fmt;
    const char *out_path;
    const char **paths; /* the operands, in order (allocated by cli_parse) */
    int npaths;
    int threads;
    int no_hash;
    int programs_only; /* pq_open_options.programs_only */
    /* pq_open_options.tpu_skip_host_lines */
    int tpu_skip_host_lines;
    int skip_thunk_ops; /* pq_open_options.skip_thunk_ops */
    int partial;        /* --partial: write the command's partial result (cmd_merge.c) */
} cli_common;

/* Ids of the options several commands share (getopt_long's val); a command's own options
 * number from CLI_OPT_OWN. 'o' is -o/--output, 'f' is -f/--format. */
enum {
    CLI_OPT_THREADS = 0x100,
    CLI_OPT_NO_HASH,
    CLI_OPT_TOP_K,
    CLI_OPT_ARTIFACT, /* cli_sources: --artifact, --run-target, --entity, ... */
    CLI_OPT_RUN_TARGET,
    CLI_OPT_ENTITY,
    CLI_OPT_PROJECT,
    CLI_OPT_DOWNLOAD_ROOT,
    CLI_OPT_PARTIAL,
    CLI_OPT_OWN = 0x200
};
/* clang-format off */
/* the table entries every command may take, one per line */
#define CLI_LONG_FORMAT {"format", required_argument, NULL, 'f'}
#define CLI_LONG_OUTPUT {"output", required_argument, NULL, 'o'}
#define CLI_LONG_THREADS {"threads", required_argument, NULL, CLI_OPT_THREADS}
#define CLI_LONG_NO_HASH {"no-hash", no_argument, NULL, CLI_OPT_NO_HASH}
#define CLI_LONG_TOP_K {"top-k", required_argument, NULL, CLI_OPT_TOP_K}
#define CLI_LONG_PARTIAL {"partial", no_argument, NULL, CLI_OPT_PARTIAL}
#define CLI_LONG_END {NULL, 0, NULL, 0}
/* clang-format on */

/* One command's options, as perf's builtins declare them: getopt_long's table and short
 * options ("+" first stops at the first operand), the formats --format takes ("text, json
 * or xprof"; NULL when it takes none) and the command's own options, given to TAKE. */
typedef struct cli_spec {
    const char *cmd;
    const char *shortopts;
    const struct option *longopts;
    const char *formats;
    /* An option of the command's own (id from the table, its value or NULL): 0, or an exit
     * code after printing. NULL when the command has none. */
    int (*take)(void *ctx, int id, const char *arg);
    void *ctx;
} cli_spec;

/* Parses ARGV (argv[0] the command's name) with getopt_long: `--opt=V`, `--opt V`, `-oV`,
 * `-o V`, options and operands in any order, `--` ends the options. -o, --format (one of
 * S->formats), --threads and --no-hash go into C, the operands into C->paths (free it).
 * Returns 0 or an exit code after printing (C->paths is then NULL). */
int cli_parse(const cli_spec *s, int argc, char **argv, cli_common *c);
/* cli_parse, then at least one operand (else usage: "no input path given"). */
int cli_parse_paths(const cli_spec *s, int argc, char **argv, cli_common *c);
/* The value of a --format name among ALLOWED (as cli_spec.formats): 0, or prints usage
 * ("expected ALLOWED") and returns EXIT_USAGE. */
int cli_parse_format_among(const char *cmd, const char *v, const char *allowed, pq_output *out);
/* Loads the paths with OPTS; on error prints and returns the exit code with *out NULL. A
 * stream (cli_is_stream) is read whole and loaded from memory; it must be the only path. */
int cli_open_profile(const cli_common *c, const pq_open_options *opts, pq_profile **out);
/* cli_open_profile with the options of C (threads, no_hash, programs_only). */
int cli_load(const cli_common *c, pq_profile **out);

/* The shape of the commands that read profiles: parse ARGV with S, load (without sha256
 * when FORCE_NO_HASH), open the output, RENDER into it, close. Returns the exit code. */
typedef pq_status (*cli_render_fn)(const pq_profile *prof, const cli_common *c, void *ctx,
                                   pq_sink *sink, pq_error *err);
int cli_run_render(const cli_spec *s, int argc, char **argv, int force_no_hash,
                   cli_render_fn render, void *ctx);
/* The same after cli_parse returned 0 for C (whose paths it frees). */
int cli_run_parsed(cli_common *c, int force_no_hash, cli_render_fn render, void *ctx);

/* --memory-space N: 0, or prints usage and returns EXIT_USAGE. */
int cli_parse_memory_space(const char *cmd, const char *v, int64_t *out);
/* Parses a non-negative integer option value; 0, or prints usage and returns EXIT_USAGE. */
int cli_parse_int_opt(const char *cmd, const char *name, const char *v, int *out);

/* inputs.c: inputs that are streams ("-" for stdin, a pipe, a FIFO, a device), read once
 * and whole, never more than cli_stream_limit() bytes (exit 3 past it). */
typedef struct cli_stream {
    uint8_t *data; /* cli_stream_read: the bytes */
    size_t n;
    char tmp_dir[4096], tmp_path[4200]; /* cli_stream_spool: the copy, removed by _done */
    int fd_out;
} cli_stream;
/* 1 when PATH is "-" or names something that is neither a regular file nor a folder. */
int cli_is_stream(const char *path);
/* "<stdin>" for "-", else PATH: the name messages and sources give a stream. */
const char *cli_stream_name(const char *path);
/* 4 GiB, or PROFQ_STREAM_LIMIT (bytes, or with a K, M or G suffix). */
uint64_t cli_stream_limit(void);
/* Reads PATH into S->data; 0, or an exit code after printing (S is then empty). */
int cli_stream_read(const char *path, cli_stream *s);
/* Copies PATH into a temporary file S->tmp_path (named after PATH, "stdin" for "-"), for
 * the entry points that read a path more than once; 0, or an exit code after printing. */
int cli_stream_spool(const char *path, cli_stream *s);
void cli_stream_done(cli_stream *s);
/* An error about S's copy names PATH (what the user gave) instead. */
void cli_stream_error_path(const cli_stream *s, const char *path, pq_error *err);

/* Phase times (the hidden option --timing, taken out of argv by main.c, for the benches):
 * cli_timing_mark records the process's CPU time, wall time and minor page faults at a
 * phase's end; common.c marks the end of opening the profile, of rendering (the time the
 * sink spent writing counted apart) and of closing the output, main.c the start of main
 * and the end of the command, and prints one line on stderr. No-ops when off. */
enum { CLI_T_MAIN, CLI_T_OPENED, CLI_T_RENDERED, CLI_T_CLOSED, CLI_T_END, CLI_T_N };
extern int cli_timing;
void cli_timing_mark(int phase);
void cli_timing_print(void);

/* progress.c: on a terminal (stderr a tty, CI unset), work over a second shows one line of
 * progress on stderr (input bytes read, seconds) until cli_progress_stop, which clears it;
 * output, messages and child processes stop it first. Both may be called at any time. */
void cli_progress_start(const char *what);
void cli_progress_stop(void);

/* sources.c: the commands that read a summary. SUMMARY (or --summary FILE), --top-k N,
 * -o FILE. */
typedef struct cli_summary_args {
    const char *path;
    const char *out_path;
    int top_k;
} cli_summary_args;
/* The one SUMMARY of C (the operands) into A: 0, or an exit code after printing. */
int cli_summary_operand(const char *cmd, const cli_common *c, cli_summary_args *a);
/* BEFORE and AFTER of compare/track: --before/--after in PATHS, else the two operands of C.
 * 0, or an exit code after printing. */
int cli_before_after(const char *cmd, const cli_common *c, const char *paths[2]);
typedef pq_status (*cli_summary_fn)(const pq_summary *s, int top_k, void *ctx, pq_sink *sink,
                                    pq_error *err);
/* What compare/track/query print (issue 16 item 13): --format when GIVEN (FMT), else text
 * when stdout is a terminal and OUT_PATH is not a file, else JSON (pipes keep their bytes). */
pq_output cli_summary_fmt(int given, pq_output fmt, const char *out_path);
/* Loads A->path, opens A->out_path, runs RENDER into it, closes. Returns the exit code. */
int cli_run_summary(const cli_summary_args *a, cli_summary_fn render, void *ctx);

/* cmd_merge.c: writes the partial ST made (pq_partial_scan, ...) to C's -o (stdout without
 * one) and frees it; on a failed ST prints ERR. Returns the exit code. */
int cli_write_partial(const cli_common *c, pq_partial *p, pq_status st, const pq_error *err);
/* cmd_merge.c: `CMD --partial` for the commands of cli_run_render: loads C's paths as
 * cli_run_parsed does, writes the partial MAKE computes, frees C's paths. */
typedef pq_status (*cli_partial_fn)(const pq_profile *prof, pq_partial **out, pq_error *err);
int cli_run_partial(cli_common *c, int force_no_hash, cli_partial_fn make);
/* cmd_merge.c: `summarize --partial`: C's paths, each a trace file, with OPTS and the
 * generated_at of cli_generated_at; frees C's paths. */
int cli_summarize_partial(cli_common *c, const pq_summary_options *opts);
/* cmd_nsys.c: a --section (WARMUP 0) or --warmup (1) value V into *SECTIONS, for `merge nsys`. */
int cli_nsys_take(unsigned *sections, int warmup, const char *v);

/* The command table (main.c) takes each command from its cmd_<name>.c. */
extern const cli_command cli_cmd_info, cli_cmd_tools, cli_cmd_scan, cli_cmd_memory_viewer,
    cli_cmd_memory, cli_cmd_heap, cli_cmd_memory_profile, cli_cmd_ops, cli_cmd_roofline,
    cli_cmd_export, cli_cmd_tt, cli_cmd_summarize, cli_cmd_report, cli_cmd_query, cli_cmd_compare,
    cli_cmd_track, cli_cmd_history, cli_cmd_bundle, cli_cmd_publish, cli_cmd_merge;
/* Loads a summary file or summarises a raw profile; prints and returns the exit code. */
int cli_load_summary(const char *path, pq_summary **out);

/* Loads a summary or summarises a raw profile with OPTS (run metadata, limits). */
int cli_load_summary_opts(const char *path, const pq_summary_options *opts, pq_summary **out);

/* W&B inputs (wandb.c), through the official `wandb` command-line client. */
typedef struct cli_fetched {
    char entity[256], project[256];
    char run_id[256], run_path[800];             /* --run-target */
    char artifact_name[512], artifact_ref[1100]; /* --artifact: E/P/NAME[:VERSION] */
    char dir[4096];                              /* where the files were downloaded */
    int temp;                                    /* dir is a temporary folder of ours */
} cli_fetched;
/* Parse a run target (bare id with ENTITY and PROJECT, entity/project/id, a W&B URL) or an
 * artifact reference into F; 0, or prints a usage error and returns EXIT_USAGE. */
int cli_wandb_parse_run_target(const char *cmd, const char *target, const char *entity,
                               const char *project, cli_fetched *f);
int cli_wandb_parse_artifact(const char *cmd, const char *ref, const char *entity,
                             const char *project, cli_fetched *f);
/* Downloads what F names into DOWNLOAD_ROOT/<name or run id> (NULL: a temporary folder,
 * removed by cli_fetched_done). Returns an exit code after printing one line. */
int cli_wandb_fetch(const char *what, const char *download_root, cli_fetched *f);
void cli_fetched_done(cli_fetched *f);
/* Removes DIR and everything under it (symlinks are removed, never followed). */
void cli_remove_tree(const char *dir);
/* Sets run_metadata fields of O from F. */
void cli_fetched_meta(const cli_fetched *f, pq_summary_options *o);
/* `wandb` on PATH and W&B credentials present, else one line naming what is missing and
 * EXIT_USAGE. WANDB gets the client's full path. */
int cli_wandb_ready(const char *what, char *wandb, size_t cap);
/* PROG's full path on PATH into OUT; 1 when found. */
int cli_on_path(const char *prog, char *out, size_t cap);
/* Runs ARGV (argv[0] a path) in CWD (NULL: here), stdin /dev/null, stdout to stderr;
 * waits. Returns its exit status, or -1 when it could not be started. */
int cli_spawn(char *const argv[], const char *cwd);

/* Where a summary's profile comes from: a local PATH, or W&B (the seed's flags). */
typedef struct cli_sources {
    const char *artifact, *run_target;
    const char *entity, *project, *download_root;
    int path_is_low; /* the PATH came from --profile-dir (ranks below W&B sources) */
} cli_sources;
/* Takes a --artifact/--run-target/--entity/--project/--download-root option (ID, one of
 * CLI_OPT_ARTIFACT..CLI_OPT_DOWNLOAD_ROOT) with value V into S; 1 when taken, else 0. */
int cli_take_source(int id, const char *v, cli_sources *s);
/* clang-format off */
#define CLI_LONG_SOURCES                                                                          \
    {"artifact", required_argument, NULL, CLI_OPT_ARTIFACT},                                      \
    {"run-target", required_argument, NULL, CLI_OPT_RUN_TARGET},                                  \
    {"entity", required_argument, NULL, CLI_OPT_ENTITY},                                          \
    {"project", required_argument, NULL, CLI_OPT_PROJECT},                                        \
    {"download-root", required_argument, NULL, CLI_OPT_DOWNLOAD_ROOT}
/* clang-format on */
/* Resolves the input of one summary: PATH, or a W&B download (F, with run metadata in O;
 * BASE has the other options). *INPUT is what to summarise. Returns an exit code. */
int cli_summarize_source(const char *cmd, const cli_sources *s, const char *path,
                         const pq_summary_options *base, pq_summary_options *o, cli_fetched *f,
                         const char **input);
/* The hint printed when a pulled run has no profile trace. */
void cli_source_not_found(const cli_fetched *f);

/* generated_at_utc for summaries: SOURCE_DATE_EPOCH when set, else now (UTC, 'Z'). */
void cli_generated_at(char *out, size_t cap);
#endif
