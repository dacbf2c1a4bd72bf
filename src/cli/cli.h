/* cli.h - shared pieces of the command-line tool: exit codes, option parsing helpers,
 * output sinks, error printing. Only src/cli knows about argv, stdout and exit codes. */
#ifndef PQ_CLI_H
#define PQ_CLI_H
#include "profq.h"

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
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *usage;
} cli_command;

/* Output: stdout, or a file written atomically (temp file, then rename). */
typedef struct cli_out {
    FILE *f;
    char *path; /* final path, or NULL for stdout */
    char *tmp_path;
    pq_sink sink;
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

/* Parses --format; returns -1 on an unknown name. */
int cli_parse_output(const char *s, pq_output *out);

/* Common options of commands that read profiles. */
typedef struct cli_common {
    pq_output fmt;
    const char *out_path;
    const char **paths;
    int npaths;
    int threads;
    int no_hash;
    int programs_only; /* pq_open_options.programs_only */
} cli_common;

/* Parses argv (after the command name) for --format/-o/--threads/--no-hash and paths.
 * Returns 0 or an exit code (after printing) when the arguments are wrong. */
int cli_parse_common(const char *cmd, int argc, char **argv, cli_common *c, int allow_no_hash);
/* Loads the paths; on error prints and returns the exit code with *out NULL. */
int cli_load(const cli_common *c, pq_profile **out);

/* The shape of the commands that read profiles: parse the common options of ARGV, load
 * (without sha256 when FORCE_NO_HASH), open the output, RENDER into it, close. Returns the
 * exit code. */
typedef pq_status (*cli_render_fn)(const pq_profile *prof, const cli_common *c, void *ctx,
                                   pq_sink *sink, pq_error *err);
int cli_run_render(const char *cmd, int argc, char **argv, int allow_no_hash, int force_no_hash,
                   cli_render_fn render, void *ctx);
/* The same after cli_parse_common returned 0 for C (whose paths it frees). */
int cli_run_parsed(cli_common *c, int force_no_hash, cli_render_fn render, void *ctx);

/* Command-specific options are taken out first, the rest is for cli_parse_common: calls
 * TAKE(ctx, argc, argv, &i) for each argument up to "--" (that one and all after it join
 * the rest). TAKE returns 0 when it took argv[i] (moving i past any value), -1 when it did
 * not (the argument joins the rest), or an exit code, which is returned. On 0, *rest (to
 * free) holds *nrest arguments. */
typedef int (*cli_take_fn)(void *ctx, int argc, char **argv, int *i);
int cli_split_options(int argc, char **argv, cli_take_fn take, void *ctx, char ***rest, int *nrest);
/* cli_split_options, then cli_run_render (without sha256) on the rest. */
int cli_run_with_options(const char *cmd, int argc, char **argv, cli_take_fn take,
                         cli_render_fn render, void *ctx);

/* 1 when argv[*i] asks for --format xprof (`--format xprof`, `-f xprof`, `--format=xprof`),
 * with *i moved past the value; else 0. */
int cli_take_xprof_format(int argc, char **argv, int *i);
/* The value of the option argv[*i]: moves *i to it and returns it, or prints usage (`OPT
 * needs a value`) and returns NULL when it is missing. */
const char *cli_option_value(const char *cmd, int argc, char **argv, int *i);
/* --memory-space N: 0, or prints usage and returns EXIT_USAGE. */
int cli_parse_memory_space(const char *cmd, const char *v, int64_t *out);
/* A --format value among ALLOWED (a list like "text, json, tsv, md"): 0, or prints usage
 * and returns EXIT_USAGE. */
int cli_parse_format_among(const char *cmd, const char *v, const char *allowed, pq_output *out);

/* The commands that read a summary: SUMMARY (or --summary FILE), --top-k N, -o FILE. */
typedef struct cli_summary_args {
    const char *path;
    const char *out_path;
    int top_k;
} cli_summary_args;
/* Takes argv[*i] when it is one of those (or an unknown option: usage error). Returns 0, or
 * an exit code after printing. */
int cli_take_summary_arg(const char *cmd, int argc, char **argv, int *i, cli_summary_args *a);
typedef pq_status (*cli_summary_fn)(const pq_summary *s, int top_k, void *ctx, pq_sink *sink,
                                    pq_error *err);
/* Loads A->path, opens A->out_path, runs RENDER into it, closes. Returns the exit code. */
int cli_run_summary(const cli_summary_args *a, cli_summary_fn render, void *ctx);

int cmd_info(int argc, char **argv);
int cmd_tools(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_memory_viewer(int argc, char **argv);
int cmd_memory(int argc, char **argv);
int cmd_heap(int argc, char **argv);
int cmd_memory_profile(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_tt(int argc, char **argv);
int cmd_summarize(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_track(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_bundle(int argc, char **argv);
int cmd_publish(int argc, char **argv);
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
/* Takes --artifact/--run-target (after PREFIX, e.g. "--before-": --before-artifact) and,
 * without a prefix, --entity/--project/--download-root at argv[*i]. 1 when taken (and *i
 * moved past the value), 0 when not, -1 after a usage error. */
int cli_parse_source_flag(const char *cmd, int argc, char **argv, int *i, const char *prefix,
                          cli_sources *s);
/* Resolves the input of one summary: PATH, or a W&B download (F, with run metadata in O;
 * BASE has the other options). *INPUT is what to summarise. Returns an exit code. */
int cli_summarize_source(const char *cmd, const cli_sources *s, const char *path,
                         const pq_summary_options *base, pq_summary_options *o, cli_fetched *f,
                         const char **input);
/* The hint printed when a pulled run has no profile trace. */
void cli_source_not_found(const cli_fetched *f);

/* generated_at_utc for summaries: SOURCE_DATE_EPOCH when set, else now (UTC, 'Z'). */
void cli_generated_at(char *out, size_t cap);
/* Parses a non-negative integer option value; 0, or prints usage and returns EXIT_USAGE. */
int cli_parse_int_opt(const char *cmd, const char *name, const char *v, int *out);

#endif
