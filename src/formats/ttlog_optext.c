/* ttlog_optext.c - splits the MLIR text of an executed op ("%1 = "ttnn.matmul"(%0, %arg0)
 * <{...}> : (in types) -> out type loc("...")") into the seed's fields: result, op name,
 * operands, attributes, input/output types, loc, output layout; and says which ops are
 * deallocate / get_device (counted, not emitted). Pure functions over string views.
 * Not here: the type strings themselves (ttlog_type.c), live tensors (ttlog_exec.c). */
#define _GNU_SOURCE /* memmem */
#include "ttlog_parse.h"

/* Skips a balanced bracket group starting at P (one of ( [ { <); returns the position after
 * it, or END when it does not close (*CLOSED says which). "->" inside is not a closing '>'. */
static const char *group_end(const char *p, const char *end, int *closed)
{
    /* 1 opens, 2 closes, 3 '-' (maybe "->"), 4 '"'; 0 is every other byte: one load and one
     * test per byte on the long layout strings. */
    static const unsigned char K[256] = {['('] = 1, ['['] = 1, ['{'] = 1, ['<'] = 1, [')'] = 2,
                                         [']'] = 2, ['}'] = 2, ['>'] = 2, ['-'] = 3, ['"'] = 4};
    int depth = 0;
    while (p < end) {
        unsigned k = K[(unsigned char)*p];
        if (!k) {
            p++;
            continue;
        }
        if (k == 3) {
            p += (p + 1 < end && p[1] == '>') ? 2 : 1;
            continue;
        }
        if (k == 4) {
            p++;
            while (p < end && *p != '"')
                p += (*p == '\\' && p + 1 < end) ? 2 : 1;
            if (p < end)
                p++;
            continue;
        }
        depth += k == 1 ? 1 : -1;
        p++;
        if (depth <= 0) {
            *closed = 1;
            return p;
        }
    }
    *closed = 0;
    return end;
}

static const char *skip_group(const char *p, const char *end)
{
    int closed;
    return group_end(p, end, &closed);
}

/* Splits the MLIR op text into the seed's fields. Fields it cannot find stay empty. */
void ttlog_parse_op_text(tt_op *op)
{
    pq_str t = op->text;
    const char *p = t.p, *end = t.p + t.n;
    if (p < end && *p == '%') {
        const char *q = p + 1;
        while (q < end && (is_word(*q) || *q == ':'))
            q++;
        op->result = sv(p, (size_t)(q - p));
        while (q < end && *q == ' ')
            q++;
        if (q < end && *q == '=') {
            q++;
            while (q < end && *q == ' ')
                q++;
            p = q;
        } else {
            op->result = sv(NULL, 0);
        }
    }
    const char *ns = p;
    if (p < end && *p == '"')
        ns = ++p;
    while (p < end && (is_word(*p) || *p == '.'))
        p++;
    op->name = sv(ns, (size_t)(p - ns));
    if (p < end && *p == '"')
        p++;
    if (p < end && *p == '(') {
        const char *close = skip_group(p, end);
        if (close > p + 1 && close[-1] == ')')
            op->operands = trim(sv(p + 1, (size_t)(close - 1 - (p + 1))));
        p = close;
    }
    while (p < end && *p == ' ')
        p++;
    if (end - p >= 2 && p[0] == '<' && p[1] == '{') {
        const char *close = skip_group(p, end); /* the <...> group */
        if (close - p >= 4 && close[-2] == '}')
            op->attributes = sv(p + 2, (size_t)(close - 2 - (p + 2)));
        p = close;
    }
    /* region attributes `{...}` some ops print after the properties */
    while (p < end && *p == ' ')
        p++;
    if (p < end && *p == '{')
        p = skip_group(p, end);
    while (p < end && *p == ' ')
        p++;
    /* loc: the first loc("...") of the text, after the type signature is located. */
    pq_str rest = sv(p, (size_t)(end - p));
    const char *sig_end = end;                        /* the last " loc(" ends the signature */
    for (size_t k = (size_t)(end - p); k >= 5; k--) { /* offsets, never a pointer before p */
        if (memcmp(p + k - 5, " loc(", 5) == 0) {
            sig_end = p + k - 5;
            break;
        }
    }
    if (rest.n >= 2 && p[0] == ':' && p[1] == ' ') {
        if (sig_end < p + 2) /* ": loc(..." has an empty signature (found by fuzz_ttlog) */
            sig_end = p + 2;
        pq_str sig = trim(sv(p + 2, (size_t)(sig_end - (p + 2))));
        /* split at the top-level " -> " */
        const char *s = sig.p, *se = sig.p + sig.n, *arrow = NULL, *first_end = NULL;
        while (s < se) {
            if (*s == ' ' && s + 4 <= se && memcmp(s, " -> ", 4) == 0) {
                arrow = s;
                break;
            }
            if (*s == '(' || *s == '[' || *s == '{' || *s == '<') {
                const char *g = skip_group(s, se);
                if (s == sig.p)
                    first_end = g; /* where a parenthesised input list closes */
                s = g;
            } else {
                s++;
            }
        }
        if (arrow) {
            pq_str in = trim(sv(sig.p, (size_t)(arrow - sig.p)));
            if (in.n >= 2 && in.p[0] == '(' && first_end == in.p + in.n)
                in = sv(in.p + 1, in.n - 2);
            op->input_types = in;
            op->output_type = trim(sv(arrow + 4, (size_t)(se - (arrow + 4))));
        } else {
            op->output_type = sig;
        }
    }
    const char *loc = find(t, "loc(\"");
    if (loc) {
        const char *s = loc + 5, *e = s;
        while (e < end && *e != '"')
            e += (*e == '\\' && e + 1 < end) ? 2 : 1;
        if (e > end)
            e = end;
        op->loc = sv(s, (size_t)(e - s));
    } else if (op->name.n >= 11 && memcmp(op->name.p + op->name.n - 11, "load_cached", 11) == 0 &&
               op->operands.n && op->operands.p[0] == '@') {
        const char *s = op->operands.p + 1, *e = s, *oe = op->operands.p + op->operands.n;
        while (e < oe && (is_word(*e) || *e == '.'))
            e++;
        op->loc = sv(s, (size_t)(e - s));
    }
    ttlog_layout_of(op->output_type, &op->out);
}

int ttlog_op_text_complete(pq_str t)
{
    const char *end = t.p + t.n;
    for (size_t k = t.n; k >= 5; k--) {
        if (memcmp(t.p + k - 5, " loc(", 5) == 0) {
            int closed;
            return group_end(t.p + k - 1, end, &closed) == end && closed;
        }
    }
    return 0;
}

int ttlog_name_ends(pq_str name, const char *suffix)
{
    size_t n = strlen(suffix);
    return name.n >= n && memcmp(name.p + name.n - n, suffix, n) == 0 &&
           (name.n == n || name.p[name.n - n - 1] == '.');
}

int ttlog_op_text_excluded(const tt_op *op)
{
    return ttlog_name_ends(op->name, "deallocate") || ttlog_name_ends(op->name, "get_device");
}

int ttlog_op_type_excluded(pq_str type)
{
    return (type.n == 12 && memcmp(type.p, "DeallocateOp", 12) == 0) ||
           (type.n == 11 && memcmp(type.p, "GetDeviceOp", 11) == 0);
}
