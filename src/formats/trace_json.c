/* trace_json.c - streaming Chrome trace-event JSON reader: the event loop; see trace_json.h.
 *
 * The input is a window of bytes: a buffer refilled by read() for plain JSON files, by
 * zlib for gzip (from memory or from read()), or the whole buffer for plain JSON in memory. The
 * document is parsed as a sequence of small units (a top-level key with its value, or one element
 * of traceEvents). A unit that runs past the end of the window while more input is coming returns
 * TJR_MORE; the driver then slides the unit's first byte to the front of the window, inflates more
 * and parses the unit again from its start. So memory is bounded by the largest single event (hard
 * maximum TJ_MAX_UNIT), never by the trace. Callbacks run only after a unit parsed completely, so a
 * retried unit is never delivered twice.
 *
 * This file: the event fields and args (event_key, parse_args, parse_event), the state machine
 * over units (tj_run) and the helpers over raw args spans. The tokenizer is
 * trace_json_lex.h (static, included here only: one translation unit for the hot loop); the
 * input (files, gzip, the window's refill) and the entry points are trace_json_input.c.
 * Not here: what events mean (analysis/summary.c), B/E pairing (the consumer pairs). */
#include "trace_json_lex.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

enum { K_OTHER, K_PH, K_NAME, K_CAT, K_PID, K_TID, K_TS, K_DUR, K_ARGS, K_ID };

/* Which event field the key K (N bytes, raw) is. */
static inline int event_key(const char *k, size_t n)
{
    switch (n) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h')
            return K_PH;
        if (k[0] == 't' && k[1] == 's')
            return K_TS;
        if (k[0] == 'i' && k[1] == 'd')
            return K_ID;
        break;
    case 3:
        if (k[1] == 'i' && k[2] == 'd')
            return k[0] == 'p' ? K_PID : k[0] == 't' ? K_TID : K_OTHER;
        if (memcmp(k, "cat", 3) == 0)
            return K_CAT;
        if (memcmp(k, "dur", 3) == 0)
            return K_DUR;
        break;
    case 4:
        if (memcmp(k, "name", 4) == 0)
            return K_NAME;
        if (memcmp(k, "args", 4) == 0)
            return K_ARGS;
        break;
    }
    return K_OTHER;
}

/* The args object of an event: each value skipped, the wanted keys' values noted. */
static rres parse_args(reader *r, tj_event *ev)
{
    int empty;
    rres r0 = open_object(r, "expected a value", &empty);
    if (r0 != TJR_OK || empty)
        return r0;
    for (;;) {
        const char *ks, *ke;
        rres rr = read_key(r, &ks, &ke);
        if (rr != TJR_OK)
            return rr;
        const char *vs = r->p, *x, *y;
        int esc;
        /* Scalars inline, as skip_value would read them; containers through it. */
        if (r->p < r->end && *r->p == '"')
            rr = scan_string(r, &x, &y, &esc);
        else if (r->p < r->end && (*r->p == '-' || (unsigned)(*r->p - '0') <= 9))
            rr = scan_number(r, &x, &y);
        else
            rr = skip_value(r);
        if (rr != TJR_OK)
            return rr;
        size_t kl = (size_t)(ke - ks);
        unsigned cand = kl < 16 ? r->aktab[kl][(unsigned char)ks[0] & 31]
                        : kl < 64 && !(r->aklen_mask >> kl & 1) ? 0
                                                                : AK_MANY;
        if (cand && cand != AK_MANY && memcmp(r->akeys[cand - 1], ks, kl) == 0) {
            ev->argv[cand - 1].p = vs;
            ev->argv[cand - 1].n = (size_t)(r->p - vs);
        }
        for (size_t k = 0; cand == AK_MANY && k < r->nakeys; k++) {
            if (r->aklen[k] == kl && memcmp(r->akeys[k], ks, kl) == 0) {
                ev->argv[k].p = vs;
                ev->argv[k].n = (size_t)(r->p - vs);
                break;
            }
        }
        if (comma_key(r))
            continue;
        int more;
        rr = next_or_close(r, '}', "expected ',' or a closing bracket",
                           "expected ',' or a closing bracket", &more);
        if (rr != TJR_OK || !more)
            return rr;
        ws(r);
        if (r->p >= r->end)
            return need(r, r->p, "expected a value");
    }
}

/* One element of traceEvents. Non-object elements are an error. */
static rres parse_event(reader *r, tj_event *ev)
{
    memset(ev, 0, offsetof(tj_event, argv));
    memset(ev->argv, 0, r->nakeys * sizeof ev->argv[0]);
    ev->offset = off_of(r, r->p);
    if (r->p >= r->end)
        return need(r, r->p, "expected an event object");
    if (*r->p != '{')
        return fail(r, r->p, "expected an event object '{'");
    r->scratch_used = 0;
    int empty;
    rres r0 = open_object(r, "expected a key or '}'", &empty);
    if (r0 != TJR_OK || empty)
        return r0;
    for (int at_key = 0;;) {
        if (!at_key) {
            ws(r);
            if (r->p >= r->end)
                return need(r, r->p, "expected a key");
        }
        at_key = 0;
        const char *ks, *ke;
        rres rr = read_key(r, &ks, &ke);
        if (rr != TJR_OK)
            return rr;
        if (r->p >= r->end)
            return need(r, r->p, "expected a value");
        switch (event_key(ks, (size_t)(ke - ks))) {
        case K_PH:
            if (*r->p == '"') {
                pq_str ph;
                rr = read_string(r, &ph);
                if (rr == TJR_OK)
                    ev->ph = ph.n ? ph.p[0] : '\0';
            } else {
                rr = skip_value(r);
            }
            break;
        case K_NAME:
            rr = *r->p == '"' ? read_string(r, &ev->name) : skip_value(r);
            break;
        case K_CAT:
            rr = *r->p == '"' ? read_string(r, &ev->cat) : skip_value(r);
            break;
        case K_PID:
            rr = parse_id(r, &ev->pid_kind, &ev->pid, &ev->pid_str);
            break;
        case K_TID:
            rr = parse_id(r, &ev->tid_kind, &ev->tid, &ev->tid_str);
            break;
        case K_TS:
            rr = parse_tval(r, &ev->ts_kind, &ev->ts);
            break;
        case K_DUR:
            rr = parse_tval(r, &ev->dur_kind, &ev->dur);
            break;
        case K_ARGS: {
            const char *s = r->p;
            rr = r->nakeys && *r->p == '{' ? parse_args(r, ev) : skip_value(r);
            ev->args = (pq_str){s, (size_t)(r->p - s)};
            break;
        }
        case K_ID: {
            const char *s = r->p;
            rr = skip_value(r);
            ev->id = (pq_str){s, (size_t)(r->p - s)};
            break;
        }
        default:
            rr = skip_value(r);
        }
        if (rr == TJR_OK && comma_key(r)) {
            at_key = 1;
            continue;
        }
        int more;
        if (rr == TJR_OK)
            rr = next_or_close(r, '}', "expected ',' or '}'", "expected ',' or '}' in an event",
                               &more);
        if (rr != TJR_OK || !more)
            return rr;
    }
}

typedef enum {
    S_START,
    S_KEY,
    S_VALUE,
    S_OBJ_SEP,
    S_EVENTS_OPEN,
    S_EVENT_FIRST,
    S_EVENT,
    S_EVENT_SEP,
    S_END,
    S_DONE
} state;

/* The state machine over the units of the document (see the top of this file). Long
 * because: one switch over the states, each a few lines, sharing the retry of a unit that
 * ran past the window at the loop's end; the per-event states are the hot path, and
 * moving states into functions would add calls per event for no gain in clarity. */
pq_status tj_run(reader *r, tj_event_fn fn, void *ctx, tj_info *info)
{
    state st = S_START;
    char key[32] = "";
    int saw_events = 0, saw_nodes = 0, saw_schema = 0;
    tj_event ev;
    for (;;) {
        const char *mark = r->p;
        rres rr = TJR_OK;
        switch (st) {
        case S_START:
            ws(r);
            if (r->p >= r->end) {
                rr = need(r, r->p, "expected a JSON object with traceEvents");
                break;
            }
            if (*r->p == '{') {
                r->p++;
                st = S_KEY;
            } else if (*r->p == '[') {
                r->p++;
                ws(r);
                if (r->p >= r->end) {
                    rr = need(r, r->p, "expected an event object");
                    r->p = mark;
                    break;
                }
                if (*r->p == '[') {
                    r->err_at = mark;
                    r->what = "a bare JSON array of rows (like PyTorch's memory timeline "
                              "export)";
                    return PQ_ERR_UNSUPPORTED;
                }
                info->array_format = 1;
                saw_events = 1;
                st = S_EVENT_FIRST;
            } else {
                rr = fail(r, r->p, "expected a JSON object with traceEvents");
            }
            break;
        case S_KEY: {
            ws(r);
            if (r->p >= r->end) {
                rr = need(r, r->p, "expected a key or '}'");
                break;
            }
            if (*r->p == '}') {
                r->p++;
                st = S_END;
                break;
            }
            const char *s, *e;
            rr = read_key(r, &s, &e);
            if (rr != TJR_OK)
                break;
            size_t kl = (size_t)(e - s);
            if (kl >= sizeof key)
                kl = sizeof key - 1;
            memcpy(key, s, kl);
            key[kl] = '\0';
            if (strcmp(key, "nodes") == 0)
                saw_nodes = 1;
            if (strcmp(key, "schema") == 0)
                saw_schema = 1;
            st = strcmp(key, "traceEvents") == 0 ? S_EVENTS_OPEN : S_VALUE;
            break;
        }
        case S_VALUE:
            ws(r);
            if (strcmp(key, "displayTimeUnit") == 0 && r->p < r->end && *r->p == '"') {
                pq_str v;
                r->scratch_used = 0;
                rr = read_string(r, &v);
                if (rr == TJR_OK) {
                    size_t n = v.n < sizeof info->display_time_unit - 1
                                   ? v.n
                                   : sizeof info->display_time_unit - 1;
                    memcpy(info->display_time_unit, v.p, n);
                    info->display_time_unit[n] = '\0';
                }
            } else {
                const char *vs = r->p;
                rr = skip_value(r);
                if (rr == TJR_OK && r->top_value &&
                    r->top_value(ctx, key, (pq_str){vs, (size_t)(r->p - vs)}, r->err) != 0) {
                    if (r->err && r->err->status != PQ_OK)
                        return r->err->status;
                    r->err_at = mark;
                    r->what = "the consumer stopped the read";
                    return PQ_ERR_INTERNAL;
                }
            }
            if (rr == TJR_OK)
                st = S_OBJ_SEP;
            break;
        case S_OBJ_SEP: {
            int more;
            rr = next_or_close(r, '}', "expected ',' or '}'",
                               "expected ',' or '}' after a top-level value", &more);
            if (rr == TJR_OK)
                st = more ? S_KEY : S_END;
            break;
        }
        case S_EVENTS_OPEN:
            ws(r);
            if (r->p >= r->end) {
                rr = need(r, r->p, "expected '[' (traceEvents must be a list)");
                break;
            }
            if (*r->p != '[') {
                rr = fail(r, r->p, "expected '[' (traceEvents must be a list)");
                break;
            }
            r->p++;
            saw_events = 1;
            st = S_EVENT_FIRST;
            break;
        case S_EVENT_FIRST:
            ws(r);
            if (r->p >= r->end) {
                if (info->array_format && !r->more) {
                    st = S_DONE; /* the closing ']' of the array format is optional */
                    break;
                }
                rr = need(r, r->p, "expected an event or ']'");
                break;
            }
            if (*r->p == ']') {
                r->p++;
                st = info->array_format ? S_END : S_OBJ_SEP;
            } else {
                st = S_EVENT;
            }
            break;
        case S_EVENT:
            ws(r);
            mark = r->p;
            if (r->p >= r->end && info->array_format && !r->more) {
                st = S_DONE;
                break;
            }
            rr = parse_event(r, &ev);
            if (rr == TJR_OK) {
                info->num_events++;
                if (fn && fn(ctx, &ev, r->err) != 0) {
                    if (r->err && r->err->status != PQ_OK)
                        return r->err->status;
                    r->err_at = mark;
                    r->what = "the consumer stopped the read";
                    return PQ_ERR_INTERNAL;
                }
                st = S_EVENT_SEP;
            }
            break;
        case S_EVENT_SEP: {
            ws(r);
            if (r->p >= r->end) {
                if (info->array_format && !r->more) {
                    st = S_DONE;
                    break;
                }
            }
            int more;
            rr = next_or_close(r, ']', "expected ',' or ']' after an event",
                               "expected ',' or ']' after an event", &more);
            if (rr == TJR_OK)
                st = more ? S_EVENT : info->array_format ? S_END : S_OBJ_SEP;
            break;
        }
        case S_END:
            ws(r);
            if (r->p < r->end) {
                rr = fail(r, r->p, "expected the end of the document");
                break;
            }
            if (r->more) {
                rr = TJR_MORE;
                break;
            }
            st = S_DONE;
            break;
        case S_DONE:
            break;
        }
        if (st == S_DONE)
            break;
        if (rr == TJR_ERR)
            return PQ_ERR_INPUT;
        if (rr == TJR_MORE) {
            r->p = mark;
            if (!r->stream || tj_refill(r, mark) != 0) {
                if (!r->what) {
                    r->err_at = mark;
                    r->what = "expected more input";
                }
                return PQ_ERR_INPUT;
            }
            /* refill put the unit's first byte at the front; the cursor follows it. */
            r->p = r->base;
        }
    }
    if (!saw_events) {
        r->err_at = r->base;
        r->base_off = 0;
        if (saw_nodes && saw_schema)
            r->what = "a PyTorch execution trace (an ET graph of schema/nodes); record a "
                      "Kineto trace (torch.profiler) for this tool";
        else
            r->what = "a JSON object without a traceEvents list";
        return PQ_ERR_UNSUPPORTED;
    }
    info->uncompressed_bytes = (uint64_t)off_of(r, r->p);
    return PQ_OK;
}

/* ---------------------------------------------------------------------------------------
 * Helpers over raw spans (args). The span was validated by the reader. */

int tj_args_scan(pq_str args, const char *const *keys, size_t nkeys, pq_str *out)
{
    for (size_t k = 0; k < nkeys; k++)
        out[k].p = NULL, out[k].n = 0;
    reader r;
    memset(&r, 0, sizeof r);
    r.base = r.p = args.p;
    r.end = args.p + args.n;
    ws(&r);
    if (r.p >= r.end || *r.p != '{')
        return 0;
    r.p++;
    int found = 0;
    for (;;) {
        ws(&r);
        if (r.p >= r.end || *r.p != '"')
            return found;
        const char *s, *e;
        if (read_key(&r, &s, &e) != TJR_OK)
            return found;
        const char *vs = r.p;
        if (skip_value(&r) != TJR_OK)
            return found;
        for (size_t k = 0; k < nkeys; k++) {
            if (key_is(s, e, keys[k])) {
                out[k].p = vs;
                out[k].n = (size_t)(r.p - vs);
                found++;
            }
        }
        ws(&r);
        if (r.p >= r.end || *r.p != ',')
            return found;
        r.p++;
    }
}

int tj_args_get(pq_str args, const char *key, pq_str *out)
{
    return tj_args_scan(args, &key, 1, out) > 0;
}

long tj_string_value(pq_str raw, char *out, size_t cap)
{
    if (raw.n < 2 || raw.p[0] != '"' || raw.p[raw.n - 1] != '"' || cap == 0)
        return -1;
    const char *s = raw.p + 1, *e = raw.p + raw.n - 1;
    size_t n = (size_t)(e - s);
    if (!memchr(s, '\\', n)) {
        size_t c = n < cap - 1 ? n : cap - 1;
        memcpy(out, s, c);
        out[c] = '\0';
        return (long)c;
    }
    char *tmp = pq_malloc(n + 1);
    if (!tmp)
        return -1;
    const char *bad;
    long len = unescape(s, e, tmp, &bad);
    if (len >= 0) {
        size_t c = (size_t)len < cap - 1 ? (size_t)len : cap - 1;
        memcpy(out, tmp, c);
        out[c] = '\0';
        len = (long)c;
    }
    pq_free(tmp);
    return len;
}

int tj_number_value(pq_str raw, double *out)
{
    char tmp[64];
    if (raw.n == 0 || raw.n >= sizeof tmp)
        return 0;
    memcpy(tmp, raw.p, raw.n);
    tmp[raw.n] = '\0';
    char *endp;
    *out = strtod(tmp, &endp);
    return *endp == '\0';
}
