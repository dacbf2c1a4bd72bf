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

int cmd_memory(int argc, char **argv)
{
    pq_memory_options mo = {NULL, 0, NULL, NULL};
    pq_output fmt = PQ_OUT_TEXT;
    int have_fmt = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    char *rules = NULL;
    if (!rest)
        return EXIT_INTERNAL;
    int nrest = 0, code = EXIT_OK;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "--") == 0) {
            while (i < argc)
                rest[nrest++] = argv[i++];
            break;
        } else if (strcmp(a, "--module") == 0 || strcmp(a, "--rules") == 0 ||
                   strcmp(a, "--memory-space") == 0 || strcmp(a, "--format") == 0 ||
                   strcmp(a, "-f") == 0) {
            if (!has) {
                code = cli_usage_error("memory", "%s needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            if (strcmp(a, "--module") == 0) {
                mo.module_prefix = v;
            } else if (strcmp(a, "--rules") == 0) {
                mo.rules_path = v;
            } else if (strcmp(a, "--memory-space") == 0) {
                char *end;
                long long n = strtoll(v, &end, 10);
                if (!*v || *end) {
                    code = cli_usage_error("memory", "--memory-space takes an integer");
                    goto out;
                }
                mo.memory_space = n;
            } else {
                have_fmt = 1;
                if (strcmp(v, "text") == 0)
                    fmt = PQ_OUT_TEXT;
                else if (strcmp(v, "json") == 0)
                    fmt = PQ_OUT_JSON;
                else if (strcmp(v, "tsv") == 0)
                    fmt = PQ_OUT_TSV;
                else if (strcmp(v, "md") == 0)
                    fmt = PQ_OUT_MD;
                else {
                    code =
                        cli_usage_error("memory", "unknown format '%s' (text, json, tsv, md)", v);
                    goto out;
                }
            }
        } else {
            rest[nrest++] = argv[i];
        }
    }
    (void)have_fmt;
    if (mo.rules_path) {
        rules = read_text(mo.rules_path);
        if (!rules) {
            fprintf(stderr, "profq: %s: cannot read the rules file\n", mo.rules_path);
            code = EXIT_INPUT;
            goto out;
        }
        mo.rules_text = rules;
    }
    cli_common c;
    code = cli_parse_common("memory", nrest, rest, &c, 0);
    if (code != 0) {
        free(c.paths);
        goto out;
    }
    pq_profile *prof = NULL;
    c.no_hash = 1;
    code = cli_load(&c, &prof);
    if (code == EXIT_OK) {
        cli_out o;
        code = cli_out_open(&o, c.out_path);
        if (code == EXIT_OK) {
            pq_error err = {0};
            pq_status st = pq_render_memory(prof, &mo, fmt, &o.sink, &err);
            code = cli_out_finish(&o, st, &err);
        }
    }
    pq_profile_free(prof);
    free(c.paths);
out:
    free(rules);
    free(rest);
    return code;
}
