/* cmd_memory.c - `profq memory PATH|RUN_DIR [--module PREFIX] [--memory-space N]
 * [--rules FILE] [--format text|json|tsv|md]`: per worker and device, where memory goes
 * at peak (kv_cache, model_params, temporaries, gradients, ...). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "profq memory [--module PREFIX] [--memory-space N] [--rules FILE] [--wide]\n"
    "             [--format text|json|tsv|md] [-o FILE] PATH|RUN_DIR...\n"
    "profq memory [--module P] [--memory-space N] [--rules FILE] --partial -o PART PATH...\n"
    "             (then: profq merge memory [--wide] [--format ...] PART...)\n"
    "\n"
    "For every worker file and every TPU/GPU device plane: the memory viewer of the module\n"
    "the device ran (the largest peak among those whose '<name>(<id>)' starts with\n"
    "PREFIX), its buffers at peak classified into buckets (kv_cache, model_params,\n"
    "other_carry_state, other_parameter by default; temporary, output, gradients, other),\n"
    "gradient detection, and three sanity checks; then min/avg/max across rows. --rules\n"
    "adds rules tried before the defaults (format in the README). JSON schema\n"
    "profq.memory.v1. Text and md fit 120 columns (--wide: whole host names); tsv is one\n"
    "line per row in bytes.\n";

enum { OPT_MODULE = CLI_OPT_OWN, OPT_RULES, OPT_MEMORY_SPACE, OPT_WIDE };
static const struct option options[] = {{"module", required_argument, NULL, OPT_MODULE},
                                        {"rules", required_argument, NULL, OPT_RULES},
                                        {"memory-space", required_argument, NULL, OPT_MEMORY_SPACE},
                                        {"wide", no_argument, NULL, OPT_WIDE},
                                        CLI_LONG_FORMAT,
                                        CLI_LONG_OUTPUT,
                                        CLI_LONG_THREADS,
                                        CLI_LONG_PARTIAL,
                                        CLI_LONG_END};

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    while (s) {
        if (n + 1 >= cap) {
            char *ns = cap < (1u << 24) ? realloc(s, cap * 2) : NULL;
            if (!ns) {
                free(s);
                s = NULL;
                break;
            }
            s = ns;
            cap *= 2;
        }
        size_t k = fread(s + n, 1, cap - n - 1, f);
        if (k == 0)
            break;
        n += k;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

static int take(void *ctx, int id, const char *v)
{
    pq_memory_options *mo = ctx;
    if (id == OPT_MODULE)
        mo->module_prefix = v;
    else if (id == OPT_RULES)
        mo->rules_path = v;
    else if (id == OPT_WIDE)
        mo->wide = 1;
    else
        return cli_parse_memory_space("memory", v, &mo->memory_space);
    return EXIT_OK;
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    return pq_render_memory(prof, ctx, c->fmt, sink, err);
}

static int cmd_memory(int argc, char **argv)
{
    pq_memory_options mo = {NULL, 0, NULL, NULL, 0};
    const cli_spec spec = {"memory", "f:o:", options, "text, json, tsv or md", take, &mo};
    cli_common c;
    int code = cli_parse_paths(&spec, argc, argv, &c);
    if (code != 0)
        return code;
    char *rules = NULL;
    if (mo.rules_path) {
        rules = read_text(mo.rules_path);
        if (!rules) {
            fprintf(stderr, "profq: %s: cannot read the rules file\n", mo.rules_path);
            free(c.paths);
            return EXIT_INPUT;
        }
        mo.rules_text = rules;
    }
    if (c.partial) { /* --module, --memory-space, --rules are the map's; --wide merge's */
        pq_profile *prof = NULL;
        c.no_hash = 1;
        code = cli_load(&c, &prof);
        if (code == EXIT_OK) {
            pq_error err = {0};
            pq_partial *p = NULL;
            pq_status st = pq_partial_memory(prof, &mo, &p, &err);
            code = cli_write_partial(&c, p, st, &err);
        }
        pq_profile_free(prof);
        free(c.paths);
    } else {
        code = cli_run_parsed(&c, 1, render, &mo);
    }
    free(rules);
    return code;
}

const cli_command cli_cmd_memory = {
    "memory", cmd_memory, "per worker and device: peak memory by bucket (KV cache, params, ...)",
    usage};
