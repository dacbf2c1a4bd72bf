/* trace_json.h - a streaming reader of Chrome trace-event JSON (.json and .json.gz):
 * JAX perfetto_trace.json.gz, *.trace.json.gz, PyTorch/Kineto traces.
 *
 * The reader never builds a DOM of the trace: it walks the bytes once (inflating gzip
 * in chunks into a window that only has to hold one event) and hands each element of
 * traceEvents to a callback as a tj_event whose strings are views valid only during the
 * call. Keys no consumer uses are skipped without building values; `args` is passed as
 * its raw JSON span, and the values of the args keys the caller names (tj_want) are found
 * in the same pass. Files are read with read() through a bounded window, never mapped,
 * so memory stays a few MiB whatever the trace's size. Every read is bounds-checked; a
 * malformed input stops with PQ_ERR_INPUT, the path, the byte offset (in the
 * uncompressed JSON for .gz) and what was expected. Documents that are JSON but not
 * trace events (a PyTorch execution-trace graph, a bare array of rows) are refused with
 * PQ_ERR_UNSUPPORTED and a message saying what they are. */
#ifndef PQ_FORMATS_TRACE_JSON_H
#define PQ_FORMATS_TRACE_JSON_H
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

/* A time as written: whole microseconds plus picoseconds below the microsecond
 * (0..999999), so epoch-µs timestamps with fractions stay exact. */
typedef struct tj_time {
    int64_t us;
    int64_t frac_ps;
} tj_time;

/* How pid/tid/ts/dur were given: absent, a number that fits, something else, a string
 * (pid/tid only; pid_str/tid_str then hold it unescaped). */
enum { TJ_ABSENT = 0, TJ_INT = 1, TJ_OTHER = 2, TJ_STRING = 3 };

typedef struct tj_event {
    char ph;                /* phase letter, '\0' when absent */
    pq_str name;            /* unescaped */
    pq_str cat;             /* unescaped */
    int pid_kind, tid_kind; /* TJ_INT: pid/tid hold the value; else pid_str/tid_str */
    int64_t pid, tid;
    pq_str pid_str, tid_str; /* raw text when TJ_OTHER (string ids of old Kineto traces) */
    int ts_kind, dur_kind;   /* TJ_INT for any number that fits, TJ_OTHER for non-numbers */
    tj_time ts, dur;
    pq_str args; /* raw JSON text of the "args" value, empty when absent */
    pq_str id;   /* raw text of "id" (flows, async), empty when absent */
    /* Raw values of the wanted args keys (tj_want.arg_keys[k]; the last of duplicates),
     * empty (p NULL) when absent or when args is not an object; entries past
     * tj_want.n_arg_keys are unspecified. Last in the struct (the reader clears the rest). */
    int64_t offset; /* byte offset of the event's '{' in the (uncompressed) JSON */
    pq_str argv[8];
} tj_event;

/* Called for every element of traceEvents. Return 0 to go on, non-zero to stop (the
 * reader then returns PQ_ERR_INTERNAL unless the callback set err itself). */
typedef int (*tj_event_fn)(void *ctx, const tj_event *e, pq_error *err);

typedef struct tj_info {
    char display_time_unit[16]; /* "" when absent or not a string */
    uint64_t num_events;        /* elements of traceEvents, every phase */
    uint64_t uncompressed_bytes;
    int array_format; /* the document is a bare array of events (Chrome's JSON Array Format) */
} tj_info;

/* What the caller wants besides the event fields: up to 8 args keys whose raw values land
 * in tj_event.argv, and the top-level values. NULL: none. */
typedef struct tj_want {
    const char *const *arg_keys;
    size_t n_arg_keys;
    /* Called (when not NULL) with the raw text of the value of each top-level key other than
     * traceEvents (Kineto's deviceProperties, distributedInfo, ...); RAW is valid only during
     * the call. Non-zero stops the read as the event callback's does. */
    int (*top_value)(void *ctx, const char *key, pq_str raw, pq_error *err);
} tj_want;

/* Reads PATH (gzip detected by content) with read() through a bounded window. */
pq_status tj_read_file(const char *path, const tj_want *want, tj_event_fn fn, void *ctx,
                       tj_info *info, pq_error *err);
/* Reads N bytes (gzip or plain); NAME is used in errors. */
pq_status tj_read_memory(const uint8_t *data, size_t n, const char *name, tj_event_fn fn, void *ctx,
                         tj_info *info, pq_error *err);
pq_status tj_read_memory_want(const uint8_t *data, size_t n, const char *name, const tj_want *want,
                              tj_event_fn fn, void *ctx, tj_info *info, pq_error *err);

/* Test hooks (process-global): fill at most N bytes per window refill (0 restores the
 * default, 1 MiB), and read plain JSON in memory through the window as files are, so
 * tests and the fuzzer drive every event across refills of both kinds. */
void tj_debug_set_chunk(size_t n);
void tj_debug_stream_plain(int on);

/* Finds KEY among the top-level keys of the JSON object ARGS. Returns 1 and the raw value
 * text in *out, 0 when absent (or ARGS is not a well-formed object). */
int tj_args_get(pq_str args, const char *key, pq_str *out);
/* One pass over ARGS for several keys: OUT[k] gets the raw value of KEYS[k] (empty
 * view, p NULL, when absent). Returns how many keys were found. */
int tj_args_scan(pq_str args, const char *const *keys, size_t nkeys, pq_str *out);
/* Decodes a raw JSON string value (with quotes) into OUT (cap bytes, NUL-terminated,
 * truncated to fit). Returns the decoded length, or -1 when RAW is not a string. */
long tj_string_value(pq_str raw, char *out, size_t cap);
/* Parses a raw JSON number as a double; returns 0 when RAW is not a number. */
int tj_number_value(pq_str raw, double *out);

#endif
