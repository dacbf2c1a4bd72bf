/* main.c - profq's entry point: the command table (each command, its options and its usage
 * live in its cmd_<name>.c), help and version. */
#include "cli.h"

#include <signal.h>
#include <string.h>

extern const cli_command cli_cmd_nsys; /* cmd_nsys.c */
extern const cli_command cli_cmd_html; /* cmd_html.c */

static const cli_command *const COMMANDS[] = {
    &cli_cmd_info,           &cli_cmd_tools,   &cli_cmd_scan,
    &cli_cmd_memory_viewer,  &cli_cmd_memory,  &cli_cmd_heap,
    &cli_cmd_memory_profile, &cli_cmd_ops,     &cli_cmd_roofline,
    &cli_cmd_export,         &cli_cmd_tt,      &cli_cmd_summarize,
    &cli_cmd_report,         &cli_cmd_query,   &cli_cmd_compare,
    &cli_cmd_track,          &cli_cmd_history, &cli_cmd_bundle,
    &cli_cmd_publish,        &cli_cmd_nsys,    &cli_cmd_html,
    &cli_cmd_merge,
};
enum { NCOMMANDS = sizeof COMMANDS / sizeof COMMANDS[0] };

static void print_overview(FILE *f)
{
    fprintf(f,
            "profq %s - answers performance and memory questions about ML accelerator "
            "profiles\n\nusage: profq <command> [options] PATH...\n\ncommands:\n",
            PQ_VERSION_STRING);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-14s %s\n", COMMANDS[i]->name, COMMANDS[i]->summary);
    fprintf(f, "  help           profq help <command>\n  version        print the version\n"
               "\noptions and paths in any order (--top=3 or --top 3, -oFILE or -o FILE; -- ends\n"
               "the options); a PATH of - reads standard input. Pipes, devices and stdin are read\n"
               "at most 4 GiB (PROFQ_STREAM_LIMIT).\n"
               "\nexit codes: 0 ok, 1 gate failed, 2 usage, 3 bad input, 4 output error (also a\n"
               "closed pipe), 5 internal error\n");
}

static const cli_command *find(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(COMMANDS[i]->name, name) == 0)
            return COMMANDS[i];
    return NULL;
}

/* Takes the hidden option --timing (phase times on stderr: cli.h) out of argv, before "--". */
static int take_timing(int argc, char **argv)
{
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--timing") == 0) {
            cli_timing = 1;
            memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof *argv);
            argc--;
            i--;
        }
    }
    return argc;
}

int main(int argc, char **argv)
{
    argc = take_timing(argc, argv);
    cli_timing_mark(CLI_T_MAIN);
    /* A reader that closes the pipe (`profq ops F | head`) makes writes fail with EPIPE,
     * which the output code turns into exit 4 (EXIT_OUTPUT) without a message. */
    signal(SIGPIPE, SIG_IGN);
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
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(c->usage, stdout);
            return fflush(stdout) == 0 ? EXIT_OK : EXIT_OUTPUT;
        }
    }
    /* Progress on a terminal, except where a child process owns it (tt run, W&B uploads). */
    if (strcmp(name, "tt") != 0 && strcmp(name, "publish") != 0 && strcmp(name, "bundle") != 0)
        cli_progress_start(name);
    int code = c->run(argc - 1, argv + 1); /* argv[0]: the command, as getopt wants */
    cli_progress_stop();
    cli_timing_mark(CLI_T_END);
    cli_timing_print();
    return code;
}
