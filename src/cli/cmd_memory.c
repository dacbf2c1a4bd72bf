/* cmd_memory.c - `profq memory PATH|RUN_DIR [--module PREFIX] [--memory-space N]
 * [--rules FILE] [--format text|json|tsv|md]`: per worker and device, where memory goes
 * at peak (kv_cache, model_params, temporaries, gradients, ...). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

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

typedef struct memory_args {
    pq_memory_options mo;
    pq_output fmt;
} memory_args;

static int take(void *ctx, int argc, char **argv, int *i)
{
    memory_args *m = ctx;
    const char *a = argv[*i];
    if (strcmp(a, "--module") != 0 && strcmp(a, "--rules") != 0 &&
        strcmp(a, "--memory-space") != 0 && strcmp(a, "--format") != 0 && strcmp(a, "-f") != 0)
        return -1;
    const char *v = cli_option_value("memory", argc, argv, i);
    if (!v)
        return EXIT_USAGE;
    if (strcmp(a, "--module") == 0)
        m->mo.module_prefix = v;
    else if (strcmp(a, "--rules") == 0)
        m->mo.rules_path = v;
    else if (strcmp(a, "--memory-space") == 0)
        return cli_parse_memory_space("memory", v, &m->mo.memory_space);
    else
        return cli_parse_format_among("memory", v, "text, json, tsv, md", &m->fmt);
    return EXIT_OK;
}

static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    (void)c; /* --format is taken before the common options see it */
    const memory_args *m = ctx;
    return pq_render_memory(prof, &m->mo, m->fmt, sink, err);
}

int cmd_memory(int argc, char **argv)
{
    memory_args m = {{NULL, 0, NULL, NULL}, PQ_OUT_TEXT};
    char **rest;
    int nrest;
    int code = cli_split_options(argc, argv, take, &m, &rest, &nrest);
    if (code != EXIT_OK)
        return code;
    char *rules = NULL;
    if (m.mo.rules_path) {
        rules = read_text(m.mo.rules_path);
        if (!rules) {
            fprintf(stderr, "profq: %s: cannot read the rules file\n", m.mo.rules_path);
            free(rest);
            return EXIT_INPUT;
        }
        m.mo.rules_text = rules;
    }
    code = cli_run_render("memory", nrest, rest, 0, 1, render, &m);
    free(rules);
    free(rest);
    return code;
}
