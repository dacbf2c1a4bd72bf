/* common.c - output files, error printing, shared option parsing for the CLI. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int file_write(void *ctx, const void *data, size_t n)
{
    return fwrite(data, 1, n, (FILE *)ctx) == n ? 0 : -1;
}

int cli_out_open(cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
    } else {
        size_t n = strlen(path) + 32;
        o->path = strdup(path);
        o->tmp_path = malloc(n);
        if (!o->path || !o->tmp_path) {
            fprintf(stderr, "profq: out of memory\n");
            return EXIT_INTERNAL;
        }
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            /* A device or pipe (/dev/stdout, a FIFO): write to it directly; renaming a
             * temporary file over it would replace the node. */
            free(o->tmp_path);
            o->tmp_path = NULL;
            o->f = fopen(path, "wb");
        } else {
            snprintf(o->tmp_path, n, "%s.tmp.%ld", path, (long)getpid());
            o->f = fopen(o->tmp_path, "wb");
        }
        if (!o->f) {
            fprintf(stderr, "profq: %s: cannot write: %s\n", path, strerror(errno));
            free(o->path);
            free(o->tmp_path);
            memset(o, 0, sizeof *o);
            return EXIT_OUTPUT;
        }
    }
    o->sink.write = file_write;
    o->sink.ctx = o->f;
    return EXIT_OK;
}

int cli_out_close(cli_out *o, int ok)
{
    int code = EXIT_OK;
    if (fflush(o->f) != 0 || ferror(o->f)) {
        fprintf(stderr, "profq: %s: write failed: %s\n", o->path ? o->path : "stdout",
                strerror(errno));
        code = EXIT_OUTPUT;
    }
    if (o->path && !o->tmp_path) {
        if (fclose(o->f) != 0 && code == EXIT_OK) {
            fprintf(stderr, "profq: %s: write failed: %s\n", o->path, strerror(errno));
            code = EXIT_OUTPUT;
        }
    } else if (o->path) {
        if (fclose(o->f) != 0 && code == EXIT_OK) {
            fprintf(stderr, "profq: %s: write failed: %s\n", o->path, strerror(errno));
            code = EXIT_OUTPUT;
        }
        if (ok && code == EXIT_OK) {
            if (rename(o->tmp_path, o->path) != 0) {
                fprintf(stderr, "profq: %s: cannot rename into place: %s\n", o->path,
                        strerror(errno));
                code = EXIT_OUTPUT;
            }
        } else {
            unlink(o->tmp_path);
        }
    }
    free(o->path);
    free(o->tmp_path);
    memset(o, 0, sizeof *o);
    return code;
}

int cli_out_finish(cli_out *o, pq_status st, const pq_error *err)
{
    int close_code = cli_out_close(o, st == PQ_OK);
    if (st == PQ_OK || (st == PQ_ERR_OUTPUT && close_code != EXIT_OK))
        return close_code;
    return cli_report(err);
}

int cli_exit_code(pq_status st)
{
    switch (st) {
    case PQ_OK:
        return EXIT_OK;
    case PQ_ERR_INPUT:
    case PQ_ERR_NOT_FOUND:
    case PQ_ERR_UNSUPPORTED:
    case PQ_ERR_IO:
        return EXIT_INPUT;
    case PQ_ERR_OUTPUT:
        return EXIT_OUTPUT;
    case PQ_ERR_USAGE:
        return EXIT_USAGE;
    case PQ_ERR_NOMEM:
    case PQ_ERR_INTERNAL:
        return EXIT_INTERNAL;
    }
    return EXIT_INTERNAL;
}

int cli_report(const pq_error *err)
{
    if (err->path[0] && err->offset >= 0)
        fprintf(stderr, "profq: %s: offset %lld: %s\n", err->path, (long long)err->offset,
                err->message);
    else if (err->path[0])
        fprintf(stderr, "profq: %s: %s\n", err->path, err->message);
    else
        fprintf(stderr, "profq: %s\n", err->message);
    return cli_exit_code(err->status);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "profq %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'profq help %s')\n", cmd);
    return EXIT_USAGE;
}

int cli_parse_output(const char *s, pq_output *out)
{
    if (strcmp(s, "json") == 0)
        *out = PQ_OUT_JSON;
    else if (strcmp(s, "text") == 0)
        *out = PQ_OUT_TEXT;
    else
        return -1;
    return 0;
}

int cli_parse_common(const char *cmd, int argc, char **argv, cli_common *c, int allow_no_hash)
{
    memset(c, 0, sizeof *c);
    c->paths = calloc((size_t)argc + 1, sizeof *c->paths);
    if (!c->paths) {
        fprintf(stderr, "profq: out of memory\n");
        return EXIT_INTERNAL;
    }
    int only_paths = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!only_paths && strcmp(a, "--") == 0) {
            only_paths = 1;
        } else if (!only_paths && (strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0)) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "--format needs a value");
            if (cli_parse_output(argv[++i], &c->fmt) != 0)
                return cli_usage_error(cmd, "unknown format '%s' (expected text or json)", argv[i]);
        } else if (!only_paths && strncmp(a, "--format=", 9) == 0) {
            if (cli_parse_output(a + 9, &c->fmt) != 0)
                return cli_usage_error(cmd, "unknown format '%s' (expected text or json)", a + 9);
        } else if (!only_paths && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "-o needs a file name");
            c->out_path = argv[++i];
        } else if (!only_paths && strcmp(a, "--threads") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "--threads needs a number");
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 64)
                return cli_usage_error(cmd, "--threads takes 1..64");
            c->threads = (int)v;
        } else if (!only_paths && allow_no_hash && strcmp(a, "--no-hash") == 0) {
            c->no_hash = 1;
        } else if (!only_paths && a[0] == '-' && a[1]) {
            return cli_usage_error(cmd, "unknown option '%s'", a);
        } else {
            c->paths[c->npaths++] = a;
        }
    }
    if (c->npaths == 0)
        return cli_usage_error(cmd, "no input path given");
    return 0;
}

int cli_load(const cli_common *c, pq_profile **out)
{
    pq_open_options opts = {0};
    opts.threads = c->threads;
    opts.skip_sha256 = c->no_hash;
    opts.programs_only = c->programs_only;
    pq_error err;
    pq_status st = pq_profile_open(c->paths, (size_t)c->npaths, &opts, out, &err);
    if (st != PQ_OK)
        return cli_report(&err);
    return EXIT_OK;
}

int cli_run_parsed(cli_common *c, int force_no_hash, cli_render_fn render, void *ctx)
{
    pq_profile *prof = NULL;
    if (force_no_hash)
        c->no_hash = 1;
    int code = cli_load(c, &prof);
    if (code == EXIT_OK) {
        cli_out o;
        code = cli_out_open(&o, c->out_path);
        if (code == EXIT_OK) {
            pq_error err = {0};
            pq_status st = render(prof, c, ctx, &o.sink, &err);
            code = cli_out_finish(&o, st, &err);
        }
    }
    pq_profile_free(prof);
    free(c->paths);
    return code;
}

int cli_run_render(const char *cmd, int argc, char **argv, int allow_no_hash, int force_no_hash,
                   cli_render_fn render, void *ctx)
{
    cli_common c;
    int code = cli_parse_common(cmd, argc, argv, &c, allow_no_hash);
    if (code != 0) {
        free(c.paths);
        return code;
    }
    return cli_run_parsed(&c, force_no_hash, render, ctx);
}

int cli_split_options(int argc, char **argv, cli_take_fn take, void *ctx, char ***rest, int *nrest)
{
    char **r = calloc((size_t)argc + 1, sizeof *r);
    if (!r)
        return EXIT_INTERNAL;
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < argc)
                r[n++] = argv[i++];
            break;
        }
        int code = take(ctx, argc, argv, &i);
        if (code > 0) {
            free(r);
            return code;
        }
        if (code < 0)
            r[n++] = argv[i];
    }
    *rest = r;
    *nrest = n;
    return EXIT_OK;
}

int cli_run_with_options(const char *cmd, int argc, char **argv, cli_take_fn take,
                         cli_render_fn render, void *ctx)
{
    char **rest;
    int nrest;
    int code = cli_split_options(argc, argv, take, ctx, &rest, &nrest);
    if (code != EXIT_OK)
        return code;
    code = cli_run_render(cmd, nrest, rest, 0, 1, render, ctx);
    free(rest);
    return code;
}

int cli_take_xprof_format(int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if ((strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0) && *i + 1 < argc &&
        strcmp(argv[*i + 1], "xprof") == 0) {
        ++*i;
        return 1;
    }
    return strcmp(a, "--format=xprof") == 0;
}

const char *cli_option_value(const char *cmd, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        cli_usage_error(cmd, "%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int cli_parse_memory_space(const char *cmd, const char *v, int64_t *out)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end)
        return cli_usage_error(cmd, "--memory-space takes an integer");
    *out = n;
    return EXIT_OK;
}

int cli_parse_format_among(const char *cmd, const char *v, const char *allowed, pq_output *out)
{
    static const struct {
        const char *name;
        pq_output fmt;
    } names[] = {{"text", PQ_OUT_TEXT},
                 {"json", PQ_OUT_JSON},
                 {"tsv", PQ_OUT_TSV},
                 {"md", PQ_OUT_MD},
                 {"svg", PQ_OUT_SVG}};
    size_t n = strlen(v);
    for (const char *p = allowed; n && (p = strstr(p, v)) != NULL; p += n) {
        /* a whole name of the list: at its start or after ", ", before ',' or its end */
        if ((p == allowed || p[-1] == ' ') && (p[n] == ',' || p[n] == 0)) {
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
                if (strcmp(names[k].name, v) == 0) {
                    *out = names[k].fmt;
                    return EXIT_OK;
                }
            }
        }
    }
    return cli_usage_error(cmd, "unknown format '%s' (%s)", v, allowed);
}

int cli_take_summary_arg(const char *cmd, int argc, char **argv, int *i, cli_summary_args *a)
{
    const char *o = argv[*i];
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(o, "-o") == 0 || strcmp(o, "--output") == 0) {
        if (!v)
            return cli_usage_error(cmd, "%s needs a file", o);
        a->out_path = v;
        ++*i;
    } else if (strcmp(o, "--top-k") == 0) {
        if (cli_parse_int_opt(cmd, o, v, &a->top_k))
            return EXIT_USAGE;
        ++*i;
    } else if (strcmp(o, "--summary") == 0) {
        if (!v)
            return cli_usage_error(cmd, "--summary needs a file");
        a->path = v;
        ++*i;
    } else if (o[0] == '-' && o[1]) {
        return cli_usage_error(cmd, "unknown option '%s'", o);
    } else if (a->path) {
        return cli_usage_error(cmd, "one SUMMARY only");
    } else {
        a->path = o;
    }
    return EXIT_OK;
}

int cli_run_summary(const cli_summary_args *a, cli_summary_fn render, void *ctx)
{
    pq_summary *s = NULL;
    int code = cli_load_summary(a->path, &s);
    if (code != EXIT_OK)
        return code;
    cli_out out;
    code = cli_out_open(&out, a->out_path);
    if (code == EXIT_OK) {
        pq_error err;
        memset(&err, 0, sizeof err);
        pq_status st = render(s, a->top_k, ctx, &out.sink, &err);
        code = cli_out_finish(&out, st, &err);
    }
    pq_summary_free(s);
    return code;
}
