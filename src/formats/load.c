/* load.c - the one format dispatch: a source's bytes are recognised by content (and, for
 * protobufs, name; formats/detect.c) and handed to the reader of their format, which fills
 * the model: XSpace (formats/xplane.c), HloProto files (plain or xz), Chrome trace-event
 * JSON (formats/trace_events.c, plain or gzip), nsys-jax archives (formats/nsysjax.c), Nsight
 * SQLite exports (formats/nsys_sqlite.c). The sha256
 * of large files is computed on a second thread beside the decode. With
 * pq_open_options.stream_traces a trace JSON file is not kept mapped: the reader and the
 * hash thread each read it in chunks (what summarize needs: its memory is the columns).
 * Not here: finding the files (io/), the public open calls (api/open.c). */
#include "load.h"

#include "core/alloc.h"
#include "core/err.h"
#include "formats/detect.h"
#include "formats/hlo.h"
#include "formats/nsys_sqlite.h"
#include "formats/nsysjax.h"
#include "formats/trace_events.h"
#include "formats/ttlog.h"
#include "formats/xplane.h"
#include "formats/xplane_events.h"
#include "io/xz.h"

#include <pthread.h>
#include <string.h>

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The sha256 of a source: of its bytes, or (STREAMED) of its file, read in chunks. */
typedef struct hash_job {
    pq_source *src;
    int streamed;
} hash_job;

static void *hash_thread(void *arg)
{
    hash_job *j = arg;
    if (j->streamed)
        sha256_file_hex(j->src->path, j->src->info.sha256);
    else
        sha256_hex(j->src->file.data, j->src->file.size, j->src->info.sha256);
    return NULL;
}

/* A standalone HloProto file becomes a source with one program. */
static pq_status read_hlo_file(pq_source *src, pq_error *err)
{
    hlo_header h;
    int64_t off;
    const char *what;
    RETURN_ERROR_IF(
        !hlo_read_header(src->file.data, src->file.size, src->file.data, &h, &off, &what), err,
        PQ_ERR_INPUT, src->path, off, "expected %s in an HloProto", what);
    RETURN_ERROR_IF(!h.has_module, err, PQ_ERR_INPUT, src->path, 0,
                    "expected an HloProto with an hlo_module (field 1)");
    pq_program *p = arena_alloc(&src->mem, sizeof *p);
    RETURN_ERROR_IF(!p, err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
    p->name = h.module_name;
    p->program_id = (uint64_t)h.module_id;
    /* XProf names extracted files "<module>(<program id>).hlo_proto.pb": trust that id. */
    const char *b = base_name(src->path);
    const char *lp = strrchr(b, '(');
    const char *rp = lp ? strchr(lp, ')') : NULL;
    if (lp && rp && rp > lp + 1 && rp - lp <= 21) {
        uint64_t v = 0;
        const char *q = lp + 1;
        while (q < rp && *q >= '0' && *q <= '9')
            v = v * 10 + (uint64_t)(*q++ - '0');
        if (q == rp)
            p->program_id = v;
    }
    p->key = p->name;
    p->hlo = src->file.data;
    p->hlo_len = src->file.size;
    src->programs = p;
    src->nprograms = 1;
    return PQ_OK;
}

void load_trace_scan(const pq_source *src, pq_scan_totals *t)
{
    const model_slices *m = src->slices;
    if (!m)
        return;
    t->events += src->trace_events;
    t->lines += m->ntracks;
    for (uint32_t k = 0; k < m->ntracks; k++) {
        uint32_t j = 0;
        while (j < k && m->tracks[j].pid != m->tracks[k].pid)
            j++;
        t->planes += j == k; /* processes: the first track of each pid */
    }
    for (size_t i = 0; i < m->n; i++)
        t->checksum =
            (int64_t)((uint64_t)t->checksum + (uint64_t)m->start_ps[i] + (uint64_t)m->dur_ps[i]);
}

/* An empty timeline for the source's reader to fill. */
static pq_status new_timeline(pq_source *src, pq_error *err)
{
    src->slices = pq_malloc(sizeof *src->slices);
    if (!src->slices || slices_init(src->slices) != 0) {
        pq_free(src->slices);
        src->slices = NULL;
        return err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
    }
    return PQ_OK;
}

pq_status load_xplane_timeline(pq_profile *prof, uint64_t *nevents, pq_error *err)
{
    *nevents = 0;
    for (size_t k = 0; k < prof->nsources; k++)
        *nevents += prof->sources[k].info.events;
    pq_source *src = &prof->sources[0];
    /* A timeline its reader made (trace JSON named *.xplane.pb) is not an XSpace's. */
    RETURN_ERROR_IF(src->slices && src->info.format != PQ_FORMAT_XSPACE, err, PQ_ERR_INPUT,
                    src->path, 0, "expected an XSpace protobuf, found %s",
                    pq_format_name(src->info.format));
    if (src->slices)
        return PQ_OK;
    FORWARD_IF_ERROR(new_timeline(src, err));
    pq_events ev = slices_events(src->slices);
    uint64_t walked = 0;
    if (xplane_events_feed(prof, &ev, &walked) != 0 || src->slices->failed) {
        slices_free(src->slices);
        pq_free(src->slices);
        src->slices = NULL;
        return err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
    }
    *nevents = walked;
    return PQ_OK;
}

/* Chrome trace-event JSON (plain or gzip): streamed into the source's timeline, from its
 * bytes or (STREAMED: nothing mapped) from its file in chunks. */
static pq_status read_trace(pq_source *src, int streamed, pq_scan_totals *scan, pq_error *err)
{
    FORWARD_IF_ERROR(new_timeline(src, err));
    pq_events ev = slices_events(src->slices);
    tj_info info;
    FORWARD_IF_ERROR(
        streamed ? trace_events_feed_file(src->path, &ev, &info, err)
                 : trace_events_feed(src->file.data, src->file.size, src->path, &ev, &info, err));
    src->trace_events = info.num_events;
    memcpy(src->display_time_unit, info.display_time_unit, sizeof src->display_time_unit);
    src->info.events = info.num_events;
    if (scan)
        load_trace_scan(src, scan);
    return PQ_OK;
}

/* The source's host: the XSpace's hostname, else the file's name less its known suffixes. */
static void name_host(pq_source *src)
{
    if (src->nhostnames && src->hostnames[0].n) {
        src->info.host = src->hostnames[0];
    } else {
        const char *b = base_name(src->path);
        size_t n = strlen(b);
        if (n > 10 && strcmp(b + n - 10, ".xplane.pb") == 0)
            n -= 10;
        /* rank-0.pt.trace.json.gz, perfetto_trace.json.gz: the name before the suffixes */
        static const char *const sfx[] = {".gz", ".json", ".trace", ".pt", ".log"};
        for (size_t k = 0; (src->slices || src->ttlog) && k < sizeof sfx / sizeof *sfx; k++) {
            size_t sl = strlen(sfx[k]);
            if (n > sl && memcmp(b + n - sl, sfx[k], sl) == 0)
                n -= sl;
        }
        src->info.host = pq_str_of(b, n);
    }
}

pq_status load_source(pq_source *src, const pq_open_options *opts, pq_error *err)
{
    /* An extracted nsys-jax archive is a directory: read in place, nothing mapped. */
    int archive_dir = !src->file.data && nsysjax_is_directory(src->path);
    int from_path = !src->file.data && !archive_dir;
    if (from_path)
        FORWARD_IF_ERROR(mapfile_open(src->path, &src->file, err));
    src->info.path = pq_str_of(src->path, strlen(src->path));
    src->info.size_bytes = src->file.size;
    detected d =
        archive_dir ? DETECT_ZIP : detect_format(src->path, src->file.data, src->file.size);
    /* A trace file read in chunks: the mapping served only the detection (its first page). */
    int streamed = from_path && opts->stream_traces && (d == DETECT_JSON || d == DETECT_GZIP);
    if (streamed)
        mapfile_close(&src->file);
    mapfile_advise_sequential(&src->file);

    pthread_t hasher;
    hash_job hj = {src, streamed};
    int hashing = 0;
    if (!opts->skip_sha256 && !archive_dir) {
        if (src->info.size_bytes >= ((size_t)1 << 24) &&
            pthread_create(&hasher, NULL, hash_thread, &hj) == 0)
            hashing = 1;
        else
            hash_thread(&hj);
    }

    pq_status st = PQ_OK;
    switch (d) {
    case DETECT_XSPACE:
        src->info.format = PQ_FORMAT_XSPACE;
        src->programs_only = opts->programs_only;
        src->tpu_skip_host_lines = opts->tpu_skip_host_lines;
        src->skip_thunk_ops = opts->skip_thunk_ops;
        st = xplane_read(src, opts->scan ? &src->scan : NULL, err);
        break;
    case DETECT_HLO_PROTO:
        src->info.format = PQ_FORMAT_HLO_PROTO;
        st = read_hlo_file(src, err);
        break;
    case DETECT_XZ: {
        /* An xz-compressed XLA dump (*.hlo.pb.xz, *.hlo_proto.pb.xz): decompressed into a
         * padded buffer that replaces the mapping; offsets in later errors are offsets in
         * the decompressed bytes. The sha256 stays the file's. */
        size_t pl = strlen(src->path);
        if (!(pl > 10 && (strcmp(src->path + pl - 10, ".hlo.pb.xz") == 0 ||
                          (pl > 16 && strcmp(src->path + pl - 16, ".hlo_proto.pb.xz") == 0)))) {
            st = err_set(err, PQ_ERR_INPUT, src->path, 0,
                         "expected an XSpace protobuf or an HloProto, found xz-compressed data "
                         "(profq reads *.hlo.pb.xz and *.hlo_proto.pb.xz)");
            break;
        }
        if (hashing) {
            pthread_join(hasher, NULL);
            hashing = 0;
        }
        mapped_file plain;
        st = xz_decompress(src->file.data, src->file.size, src->path, &plain, err);
        if (st != PQ_OK)
            break;
        mapfile_close(&src->file);
        src->file = plain;
        src->info.format = PQ_FORMAT_HLO_PROTO;
        st = read_hlo_file(src, err);
        break;
    }
    case DETECT_JSON:
    case DETECT_GZIP:
        src->info.format = PQ_FORMAT_TRACE_JSON;
        st = read_trace(src, streamed, opts->scan ? &src->scan : NULL, err);
        break;
    case DETECT_TEXT:
        /* A Tenstorrent runtime log is text; its reader says what it expected if this is
         * some other text. */
        src->info.format = PQ_FORMAT_TT_LOG;
        st = pq_ttlog_open_memory(src->file.data, src->file.size, src->path, &src->ttlog, err);
        if (st == PQ_ERR_INPUT)
            st = err_set(err, PQ_ERR_INPUT, src->path, 0,
                         "expected an XSpace protobuf (*.xplane.pb), an HloProto, trace-event "
                         "JSON or a Tenstorrent runtime log, found plain text with no "
                         "Tenstorrent memory block or executed operation");
        if (st == PQ_OK) {
            pq_ttlog_info ti;
            pq_ttlog_get_info(src->ttlog, &ti);
            src->info.events = ti.operations;
            pq_events dev = devices_events(&src->devices);
            if (ttlog_give_device(src->ttlog, &dev) != 0)
                st = err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
        }
        break;
    case DETECT_ZIP:
        /* An nsys-jax archive, read in place (formats/nsysjax.c). */
        src->info.format = PQ_FORMAT_NSYS_JAX;
        st = new_timeline(src, err);
        if (st == PQ_OK)
            st = nsysjax_read(src, err);
        if (st == PQ_OK && opts->scan)
            load_trace_scan(src, &src->scan);
        break;
    case DETECT_SQLITE:
        src->info.format = PQ_FORMAT_NSYS_SQLITE;
        st = new_timeline(src, err);
        if (st == PQ_OK)
            st = nsys_sqlite_read(src, err);
        if (st == PQ_OK && opts->scan)
            load_trace_scan(src, &src->scan);
        break;
    case DETECT_NSYS_REP:
        /* Proprietary: only NVIDIA's nsys reads it. */
        st = err_set(err, PQ_ERR_UNSUPPORTED, src->path, 0,
                     "expected a profile profq reads, found an Nsight Systems report (.nsys-rep), "
                     "whose format only nsys reads: run `nsys export --type sqlite %s` "
                     "(or profile with nsys-jax) and give profq the export",
                     src->path);
        break;
    default:
        st = err_set(err, PQ_ERR_INPUT, src->path, 0,
                     "expected an XSpace protobuf (*.xplane.pb), an HloProto or trace-event "
                     "JSON, found %s",
                     detected_name(d));
        break;
    }
    if (hashing)
        pthread_join(hasher, NULL);
    /* The devices a reader gave through the event interface are the source's. */
    if (st == PQ_OK && src->slices && devices_take(&src->devices, &src->slices->devices) != 0)
        st = err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
    /* The ops its slices name (XLA ops, GPU stream work) are the source's, each slice
     * linked to its op (model/slices.h). */
    if (st == PQ_OK && src->slices && slices_state_ops(src->slices, &src->ops, &src->mem) != 0)
        st = err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
    FORWARD_IF_ERROR(st);

    name_host(src);
    return PQ_OK;
}
