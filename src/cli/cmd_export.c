/* cmd_export.c - `profq export PATH... -o trace.json[.gz]`: Chrome trace-event JSON of every
 * event, streamed; a file name ending in .gz is gzip-compressed on the way (zlib). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char usage[] =
    "profq export [-o FILE.json|FILE.json.gz] [--threads N] PATH...\n"
    "\n"
    "Writes every event of every plane as Chrome trace-event JSON that Perfetto UI and\n"
    "chrome://tracing load: planes as processes, lines as threads, stats as args, one trace\n"
    "event per XPlane event, with no event cap (XProf keeps the first 1M). Streamed in\n"
    "bounded memory; an output name ending in .gz is gzip-compressed.\n";

static const struct option options[] = {CLI_LONG_FORMAT, CLI_LONG_OUTPUT, CLI_LONG_THREADS,
                                        CLI_LONG_END};

/* A pq_sink that deflates into another sink. */
typedef struct gz_sink {
    z_stream z;
    pq_sink *down;
    unsigned char out[1 << 16];
    int failed;
} gz_sink;

static int gz_pump(gz_sink *g, int flush)
{
    int rc;
    do {
        g->z.next_out = g->out;
        g->z.avail_out = sizeof g->out;
        rc = deflate(&g->z, flush);
        if (rc == Z_STREAM_ERROR)
            return -1;
        size_t n = sizeof g->out - g->z.avail_out;
        if (n && g->down->write(g->down->ctx, g->out, n) != 0)
            return -1;
    } while (g->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return 0;
}

static int gz_write(void *ctx, const void *data, size_t n)
{
    gz_sink *g = ctx;
    const unsigned char *p = data;
    while (n > 0 && !g->failed) {
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        g->z.next_in = (unsigned char *)(uintptr_t)p;
        g->z.avail_in = chunk;
        if (gz_pump(g, Z_NO_FLUSH) != 0)
            g->failed = 1;
        p += chunk;
        n -= chunk;
    }
    return g->failed ? -1 : 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The trace into SINK, deflated when the output file name ends in .gz. */
static pq_status render(const pq_profile *prof, const cli_common *c, void *ctx, pq_sink *sink,
                        pq_error *err)
{
    (void)ctx;
    if (!c->out_path || !ends_with(c->out_path, ".gz"))
        return pq_render_trace_json(prof, sink, err);
    gz_sink *g = calloc(1, sizeof *g);
    if (!g || deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        snprintf(err->message, sizeof err->message, "out of memory");
        return err->status = PQ_ERR_NOMEM;
    }
    g->down = sink;
    pq_sink gs = {gz_write, g};
    pq_status st = pq_render_trace_json(prof, &gs, err);
    if (st == PQ_OK && (g->failed || gz_pump(g, Z_FINISH) != 0)) {
        st = PQ_ERR_OUTPUT;
        snprintf(err->message, sizeof err->message, "cannot write the output");
    }
    deflateEnd(&g->z);
    free(g);
    return st;
}

static int cmd_export(int argc, char **argv)
{
    /* --format text is taken (and changes nothing): the output is Chrome trace JSON. */
    const cli_spec spec = {"export", "f:o:", options, "text", NULL, NULL};
    return cli_run_render(&spec, argc, argv, 1, render, NULL); /* the trace carries no sha256 */
}

const cli_command cli_cmd_export = {
    "export", cmd_export, "Chrome trace JSON (Perfetto UI) of every event, streamed, no cap",
    usage};
