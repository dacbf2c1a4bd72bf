/* jval.c - a small JSON reader: parse a document into a tree, look values up, and write a
 * parsed value back as Python's json.dumps does (plus the string escapes and float repr
 * that render/summary_json.c's streaming writer shares). Not for traces
 * (formats/trace_json.c streams those); for profq's own small documents read back, and
 * small JSON inputs. Analyses never build a tree: documents are written from result
 * structs. */
#include "jval.h"

#include "alloc.h"
#include "jtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

static jval *jv_new(jv_type t)
{
    jval *v = pq_calloc(1, sizeof *v);
    if (v)
        v->t = t;
    return v;
}

static jval *jv_null(void)
{
    return jv_new(JV_NULL);
}

static jval *jv_bool(int b)
{
    jval *v = jv_new(JV_BOOL);
    if (v)
        v->b = b != 0;
    return v;
}

static jval *jv_int(int64_t i)
{
    jval *v = jv_new(JV_INT);
    if (v)
        v->i = i;
    return v;
}

/* NaN and infinities (strtod's overflow) become null. */
static jval *jv_num(double d)
{
    if (isnan(d) || isinf(d))
        return jv_null();
    jval *v = jv_new(JV_NUM);
    if (v)
        v->d = d;
    return v;
}

static int grow(jval *c)
{
    if (c->n < c->cap)
        return 0;
    size_t cap = c->cap ? c->cap * 2 : 8;
    jval **ni = pq_realloc_array(c->items, cap, sizeof *ni);
    if (!ni)
        return -1;
    c->items = ni;
    if (c->t == JV_OBJ) {
        char **nk = pq_realloc_array(c->keys, cap, sizeof *nk);
        if (!nk)
            return -1;
        c->keys = nk;
    }
    c->cap = cap;
    return 0;
}

/* Appends V to the array ARR (taking ownership): 0, or -1 when memory ran out. */
static int arr_push(jval *arr, jval *v)
{
    if (grow(arr) != 0) {
        jv_free(v);
        return -1;
    }
    arr->items[arr->n++] = v;
    return 0;
}

/* Sets KEY of the object OBJ to V (taking ownership; a repeated key keeps the last value,
 * as Python's json.loads does): 0, or -1 when memory ran out. */
static int obj_set(jval *obj, const char *key, jval *v)
{
    for (size_t k = 0; k < obj->n; k++) {
        if (strcmp(obj->keys[k], key) == 0) {
            jv_free(obj->items[k]);
            obj->items[k] = v;
            return 0;
        }
    }
    size_t kn = strlen(key);
    char *kc = pq_malloc(kn + 1);
    if (!kc || grow(obj) != 0) {
        pq_free(kc);
        jv_free(v);
        return -1;
    }
    memcpy(kc, key, kn + 1);
    obj->keys[obj->n] = kc;
    obj->items[obj->n++] = v;
    return 0;
}

void jv_free(jval *v)
{
    if (!v)
        return;
    for (size_t k = 0; k < v->n; k++) {
        jv_free(v->items[k]);
        if (v->keys)
            pq_free(v->keys[k]);
    }
    pq_free(v->items);
    pq_free(v->keys);
    pq_free(v->s);
    pq_free(v);
}

const jval *jv_get(const jval *obj, const char *key)
{
    if (!obj || obj->t != JV_OBJ)
        return NULL;
    for (size_t k = 0; k < obj->n; k++)
        if (strcmp(obj->keys[k], key) == 0)
            return obj->items[k];
    return NULL;
}

double jv_number(const jval *v, int *ok)
{
    if (v && v->t == JV_INT) {
        *ok = 1;
        return (double)v->i;
    }
    if (v && v->t == JV_NUM) {
        *ok = 1;
        return v->d;
    }
    *ok = 0;
    return 0.0;
}

const char *jv_string(const jval *v)
{
    return v && v->t == JV_STR ? v->s : NULL;
}

/* ---------------------------------------------------------------------------------------
 * Parser: recursive descent with a depth bound, every read checked against the end. */

typedef struct jparser {
    const char *p, *start, *end;
    const char *what;
    int depth;
} jparser;

static void skip_ws(jparser *q)
{
    while (q->p < q->end && (*q->p == ' ' || *q->p == '\t' || *q->p == '\n' || *q->p == '\r'))
        q->p++;
}

/* Decodes the JSON string at q->p (the opening quote) into a fresh NUL-terminated copy. */
static char *parse_string(jparser *q, size_t *len)
{
    const char *s = ++q->p;
    size_t cap = 0;
    while (s < q->end && *s != '"') {
        if (*s == '\\')
            s++;
        s++;
        cap++;
    }
    if (s >= q->end) {
        q->what = "expected the closing quote of a string";
        return NULL;
    }
    char *out = pq_malloc_array(cap + 1, 4), *o = out;
    if (!out) {
        q->what = "out of memory";
        return NULL;
    }
    while (*q->p != '"') {
        unsigned char c = (unsigned char)*q->p;
        if (c < 0x20) {
            q->what = "expected no control character in a string";
            pq_free(out);
            return NULL;
        }
        if (c != '\\') {
            *o++ = (char)c;
            q->p++;
            continue;
        }
        char e = q->p[1];
        q->p += 2;
        if (e == 'u') {
            size_t n;
            int used = json_unicode_escape(q->p, q->end, o, &n);
            if (used < 0) {
                q->what = "expected four hex digits after \\u";
                pq_free(out);
                return NULL;
            }
            q->p += used;
            o += n;
            continue;
        }
        int c1 = json_simple_escape(e);
        if (c1 < 0) {
            q->what = "expected a valid escape in a string";
            pq_free(out);
            return NULL;
        }
        *o++ = (char)c1;
    }
    q->p++;
    *o = '\0';
    *len = (size_t)(o - out);
    return out;
}

static jval *parse_value(jparser *q);

static jval *parse_number(jparser *q)
{
    const char *s = q->p;
    int is_float = 0;
    if (q->p < q->end && *q->p == '-')
        q->p++;
    if (q->p >= q->end || *q->p < '0' || *q->p > '9') {
        q->what = "expected a value";
        return NULL;
    }
    while (q->p < q->end && ((*q->p >= '0' && *q->p <= '9') || *q->p == '.' || *q->p == 'e' ||
                             *q->p == 'E' || *q->p == '+' || *q->p == '-')) {
        if (*q->p == '.' || *q->p == 'e' || *q->p == 'E')
            is_float = 1;
        q->p++;
    }
    char tmp[64];
    size_t n = (size_t)(q->p - s);
    if (n >= sizeof tmp) {
        q->what = "expected a number of at most 63 characters";
        return NULL;
    }
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *endp;
    if (!is_float) {
        long long v = strtoll(tmp, &endp, 10);
        if (*endp == '\0' && !(v == LLONG_MAX || v == LLONG_MIN))
            return jv_int(v);
    }
    double d = strtod(tmp, &endp);
    if (*endp != '\0') {
        q->what = "expected a number";
        return NULL;
    }
    return jv_num(d);
}

static jval *parse_value(jparser *q)
{
    skip_ws(q);
    if (q->p >= q->end) {
        q->what = "expected a value";
        return NULL;
    }
    if (q->depth >= 256) {
        q->what = "expected nesting of at most 256 levels";
        return NULL;
    }
    char c = *q->p;
    if (c == '{' || c == '[') {
        jval *v = jv_new(c == '{' ? JV_OBJ : JV_ARR);
        if (!v) {
            q->what = "out of memory";
            return NULL;
        }
        q->p++;
        q->depth++;
        skip_ws(q);
        char close = c == '{' ? '}' : ']';
        if (q->p < q->end && *q->p == close) {
            q->p++;
            q->depth--;
            return v;
        }
        for (;;) {
            char *key = NULL;
            size_t kl;
            if (c == '{') {
                skip_ws(q);
                if (q->p >= q->end || *q->p != '"') {
                    q->what = "expected a key string";
                    jv_free(v);
                    return NULL;
                }
                key = parse_string(q, &kl);
                if (!key) {
                    jv_free(v);
                    return NULL;
                }
                skip_ws(q);
                if (q->p >= q->end || *q->p != ':') {
                    q->what = "expected ':' after a key";
                    pq_free(key);
                    jv_free(v);
                    return NULL;
                }
                q->p++;
            }
            jval *item = parse_value(q);
            if (!item) {
                pq_free(key);
                jv_free(v);
                return NULL;
            }
            int rc = key ? obj_set(v, key, item) : arr_push(v, item);
            pq_free(key);
            if (rc != 0) {
                q->what = "out of memory";
                jv_free(v);
                return NULL;
            }
            skip_ws(q);
            if (q->p < q->end && *q->p == ',') {
                q->p++;
                continue;
            }
            if (q->p < q->end && *q->p == close) {
                q->p++;
                q->depth--;
                return v;
            }
            q->what = c == '{' ? "expected ',' or '}'" : "expected ',' or ']'";
            jv_free(v);
            return NULL;
        }
    }
    if (c == '"') {
        size_t n;
        char *s = parse_string(q, &n);
        if (!s)
            return NULL;
        jval *v = jv_new(JV_STR);
        if (!v) {
            pq_free(s);
            q->what = "out of memory";
            return NULL;
        }
        v->s = s;
        v->sn = n;
        return v;
    }
    static const char *const words[] = {"null", "true", "false"};
    for (int k = 0; k < 3; k++) {
        size_t wl = strlen(words[k]);
        if ((size_t)(q->end - q->p) >= wl && memcmp(q->p, words[k], wl) == 0) {
            q->p += wl;
            return k == 0 ? jv_null() : jv_bool(k == 1);
        }
    }
    return parse_number(q);
}

jval *jv_parse(const char *p, size_t n, size_t *err_off, const char **err_what)
{
    jparser q = {p, p, p + n, NULL, 0};
    jval *v = parse_value(&q);
    if (v) {
        skip_ws(&q);
        if (q.p != q.end) {
            jv_free(v);
            v = NULL;
            q.what = "expected the end of the document";
        }
    }
    if (!v) {
        *err_off = (size_t)(q.p - q.start);
        *err_what = q.what ? q.what : "expected JSON";
    }
    return v;
}

/* ---------------------------------------------------------------------------------------
 * Writer: Python's json.dumps(indent=N, sort_keys=True, ensure_ascii=True). */

int py_float_repr(char *out, size_t cap, double v)
{
    if (isnan(v) || isinf(v))
        return snprintf(out, cap, "null");
    if (v == 0.0)
        return snprintf(out, cap, signbit(v) ? "-0.0" : "0.0");
    /* Shortest %.Ne that reads back exactly gives the digits and the exponent. */
    char e[40];
    for (int prec = 0; prec < 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, v);
        if (strtod(e, NULL) == v)
            break;
    }
    int neg = e[0] == '-';
    const char *m = e + neg;
    char digits[24];
    size_t nd = 0;
    const char *x = m;
    for (; *x && *x != 'e'; x++)
        if (*x >= '0' && *x <= '9')
            digits[nd++] = *x;
    digits[nd] = '\0';
    int exp10 = atoi(x + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = '\0';
    char res[64];
    size_t r = 0;
    if (neg)
        res[r++] = '-';
    if (exp10 >= -5 && exp10 < 16) {
        /* Python repr: fixed notation for 1e-4 <= |v| < 1e16 (exponent -4..15). */
        if (exp10 < -4)
            goto sci;
        if (exp10 < 0) {
            res[r++] = '0';
            res[r++] = '.';
            for (int k = 0; k < -exp10 - 1; k++)
                res[r++] = '0';
            memcpy(res + r, digits, nd);
            r += nd;
        } else {
            for (int k = 0; k <= exp10; k++)
                res[r++] = (size_t)k < nd ? digits[k] : '0';
            res[r++] = '.';
            if ((size_t)exp10 + 1 < nd) {
                memcpy(res + r, digits + exp10 + 1, nd - (size_t)exp10 - 1);
                r += nd - (size_t)exp10 - 1;
            } else {
                res[r++] = '0';
            }
        }
        res[r] = '\0';
        return snprintf(out, cap, "%s", res);
    }
sci:
    res[r++] = digits[0];
    if (nd > 1) {
        res[r++] = '.';
        memcpy(res + r, digits + 1, nd - 1);
        r += nd - 1;
    }
    res[r] = '\0';
    return snprintf(out, cap, "%se%c%02d", res, exp10 < 0 ? '-' : '+', abs(exp10));
}

void jv_write_str(buf *b, const char *s, size_t n)
{
    static const char hexd[] = "0123456789abcdef";
    buf_putc(b, '"');
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p;
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            const unsigned char *run = p;
            while (p < end && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
                p++;
            buf_put(b, run, (size_t)(p - run));
            continue;
        }
        unsigned cp;
        size_t len = 1;
        if (c < 0x80) {
            cp = c;
        } else {
            /* Decode UTF-8; invalid sequences become U+FFFD. */
            int need = c >= 0xF0 && c < 0xF5 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 && c < 0xE0 ? 1 : -1;
            cp = 0xFFFD;
            if (need > 0 && (size_t)(end - p) > (size_t)need) {
                unsigned v = c & (0x3F >> need);
                int okc = 1;
                for (int k = 1; k <= need; k++) {
                    if ((p[k] & 0xC0) != 0x80)
                        okc = 0;
                    v = (v << 6) | (p[k] & 0x3F);
                }
                if (okc && !(need == 2 && (v < 0x800 || (v >= 0xD800 && v < 0xE000))) &&
                    !(need == 3 && (v < 0x10000 || v > 0x10FFFF))) {
                    cp = v;
                    len = (size_t)need + 1;
                }
            }
        }
        p += len;
        switch (cp) {
        case '"':
            buf_put(b, "\\\"", 2);
            continue;
        case '\\':
            buf_put(b, "\\\\", 2);
            continue;
        case '\n':
            buf_put(b, "\\n", 2);
            continue;
        case '\r':
            buf_put(b, "\\r", 2);
            continue;
        case '\t':
            buf_put(b, "\\t", 2);
            continue;
        case '\b':
            buf_put(b, "\\b", 2);
            continue;
        case '\f':
            buf_put(b, "\\f", 2);
            continue;
        default:
            break;
        }
        unsigned units[2] = {cp, 0};
        int nu = 1;
        if (cp >= 0x10000) {
            units[0] = 0xD800 + ((cp - 0x10000) >> 10);
            units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
            nu = 2;
        }
        for (int k = 0; k < nu; k++) {
            char u[6] = {'\\',
                         'u',
                         hexd[(units[k] >> 12) & 15],
                         hexd[(units[k] >> 8) & 15],
                         hexd[(units[k] >> 4) & 15],
                         hexd[units[k] & 15]};
            buf_put(b, u, 6);
        }
    }
    buf_putc(b, '"');
}

static void nl(buf *b, int indent, int level)
{
    if (indent < 0)
        return;
    buf_putc(b, '\n');
    for (int k = 0; k < indent * level; k++)
        buf_putc(b, ' ');
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

static void write_value(buf *b, const jval *v, int indent, int level)
{
    char tmp[64];
    switch (v->t) {
    case JV_NULL:
        buf_puts(b, "null");
        return;
    case JV_BOOL:
        buf_puts(b, v->b ? "true" : "false");
        return;
    case JV_INT:
        buf_printf(b, "%lld", (long long)v->i);
        return;
    case JV_NUM:
        py_float_repr(tmp, sizeof tmp, v->d);
        buf_puts(b, tmp);
        return;
    case JV_STR:
        jv_write_str(b, v->s, v->sn);
        return;
    case JV_ARR:
    case JV_OBJ:
        break;
    }
    int obj = v->t == JV_OBJ;
    if (v->n == 0) {
        buf_puts(b, obj ? "{}" : "[]");
        return;
    }
    buf_putc(b, obj ? '{' : '[');
    char **order = NULL;
    size_t *idx = NULL;
    if (obj) {
        /* Sort keys: an array of pointers to the key slots, so the index is recoverable. */
        const char ***slots = pq_malloc_array(v->n, sizeof *slots);
        idx = pq_malloc_array(v->n, sizeof *idx);
        if (!slots || !idx) {
            pq_free(slots);
            pq_free(idx);
            b->status = PQ_ERR_NOMEM;
            return;
        }
        for (size_t k = 0; k < v->n; k++)
            slots[k] = (const char **)&v->keys[k];
        qsort(slots, v->n, sizeof *slots, cmp_key);
        for (size_t k = 0; k < v->n; k++)
            idx[k] = (size_t)((char **)slots[k] - v->keys);
        pq_free(slots);
    }
    (void)order;
    for (size_t k = 0; k < v->n; k++) {
        if (k)
            buf_puts(b, indent < 0 ? ", " : ",");
        nl(b, indent, level + 1);
        size_t j = obj ? idx[k] : k;
        if (obj) {
            jv_write_str(b, v->keys[j], strlen(v->keys[j]));
            buf_puts(b, ": ");
        }
        write_value(b, v->items[j], indent, level + 1);
    }
    pq_free(idx);
    nl(b, indent, level);
    buf_putc(b, obj ? '}' : ']');
}

void jv_write(buf *b, const jval *v, int indent)
{
    write_value(b, v, indent, 0);
}
