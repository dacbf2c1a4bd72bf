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

/* generated_at_utc for summaries: SOURCE_DATE_EPOCH when set, else now (UTC, 'Z'). */
void cli_generated_at(char *out, size_t cap);
/* Parses a non-negative integer option value; 0, or prints usage and returns EXIT_USAGE. */
int cli_parse_int_opt(const char *cmd, const char *name, const char *v, int *out);

#endif
