/* xplane_walk.h - walking the serialized events and stats that the model keeps as spans.
 * Inline because these loops are the hot path of every analysis and of `profq scan`. The
 * spans were validated by the reader at load, so the fast decoders cannot fail on them; a
 * failure would be a bug and ends the walk instead of reading out of bounds. */
#ifndef PQ_FORMATS_XPLANE_WALK_H
#define PQ_FORMATS_XPLANE_WALK_H
#include "model/model.h"
#include "pbwire.h"

#include <string.h>

#if defined(__GNUC__)
#define XP_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define XP_ALWAYS_INLINE inline
#endif

static inline void xp_events_begin(const xp_line *line, xp_event_iter *it)
{
    it->p = line->body;
    it->end = line->body + line->body_len;
}

/* Stats an event walk picks on its way (xp_events_next_pick): those whose metadata id is
 * ID[0] or ID[1] (INT64_MIN: none), the last of each in the event winning, as a walk of the
 * stats with xp_stats_next would find them. One pass over the event instead of two. */
typedef struct xp_stat_pick {
    int64_t id[2];
    stat_value v[2];
    int got[2];
} xp_stat_pick;

static inline void xp_stat_decode_pick(xp_stat_pick *pk, const uint8_t *p, size_t n);

/* The next event of the line into *EV; with PK, its picked stats too (PK's got[] reset for
 * each event). Returns 0 at the end of the line. */
static XP_ALWAYS_INLINE int xp_events_next_pick(xp_event_iter *it, xp_event *ev, xp_stat_pick *pk)
{
    /* The line was validated at load, so the fast decoders cannot fail here; a NULL would
     * mean a bug, and ends the walk rather than reading out of bounds. */
    const uint8_t *p = it->p, *end = it->end;
    uint64_t v = 0;
    while (p < end) {
        uint32_t tag;
        if (!(p = pb_fast_tag(p, end, &tag)))
            break;
        if (tag != ((4 << 3) | PB_LEN)) {
            if (!(p = pb_fast_skip(p, end, tag & 7)))
                break;
            continue;
        }
        if (!(p = pb_fast_varint(p, end, &v)) || v > (uint64_t)(end - p))
            break;
        const uint8_t *e = p, *eend = p + v;
        it->p = eend;
        memset(ev, 0, sizeof *ev);
        ev->stats = e;
        ev->body_len = (size_t)v;
        if (pk)
            pk->got[0] = pk->got[1] = 0;
        while (e && e < eend) {
            /* A stat (field 4) under 128 bytes: a one-byte tag and a one-byte length. */
            if (PB_LIKELY(*e == ((4 << 3) | PB_LEN)) && e + 1 < eend && e[1] < 0x80) {
                size_t n = e[1];
                e += 2;
                if (n > (size_t)(eend - e))
                    break;
                if (pk)
                    xp_stat_decode_pick(pk, e, n);
                e += n;
                continue;
            }
            uint32_t t;
            if (!(e = pb_fast_tag(e, eend, &t)))
                break;
            if ((t & 7) != PB_VARINT) {
                if (pk && t == ((4 << 3) | PB_LEN)) {
                    if (!(e = pb_fast_varint(e, eend, &v)) || v > (uint64_t)(eend - e))
                        break;
                    xp_stat_decode_pick(pk, e, (size_t)v);
                    e += v;
                    continue;
                }
                e = pb_fast_skip(e, eend, t & 7);
                continue;
            }
            if (!(e = pb_fast_varint(e, eend, &v)))
                break;
            switch (t >> 3) {
            case 1:
                ev->metadata_id = (int64_t)v;
                break;
            case 2:
                ev->offset_ps = (int64_t)v;
                break;
            case 3:
                ev->duration_ps = (int64_t)v;
                break;
            case 5:
                ev->num_occurrences = (int64_t)v;
                break;
            }
        }
        return 1;
    }
    it->p = it->end;
    return 0;
}

static inline int xp_events_next(xp_event_iter *it, xp_event *ev)
{
    return xp_events_next_pick(it, ev, NULL);
}

static inline void xp_stats_begin(xp_stat_iter *it, const uint8_t *body, size_t len, uint32_t field)
{
    it->p = body;
    it->end = body + len;
    it->field = field;
}

/* The general XStat decoder: any field order, repeated fields (the last value wins, as
 * for a proto3 oneof), unknown fields. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
xp_decode_stat_general(const uint8_t *p, size_t n, stat_value *out)
{
    const uint8_t *end = p + n;
    uint64_t v = 0;
    memset(out, 0, sizeof *out);
    while (p < end) {
        uint32_t tag;
        if (!(p = pb_fast_tag(p, end, &tag)))
            return 0;
        switch (tag) {
        case (1 << 3) | PB_VARINT:
            if ((p = pb_fast_varint(p, end, &v)))
                out->metadata_id = (int64_t)v;
            break;
        case (2 << 3) | PB_FIXED64:
            if (end - p < 8)
                return 0;
            out->kind = STAT_DOUBLE;
            out->v.d = pb_double(pb_load_le64(p));
            p += 8;
            break;
        case (3 << 3) | PB_VARINT:
        case (4 << 3) | PB_VARINT:
        case (7 << 3) | PB_VARINT:
            if ((p = pb_fast_varint(p, end, &v))) {
                out->kind = (tag >> 3) == 3 ? STAT_UINT64 : (tag >> 3) == 4 ? STAT_INT64 : STAT_REF;
                out->v.u = v;
            }
            break;
        case (5 << 3) | PB_LEN:
        case (6 << 3) | PB_LEN:
            if (!(p = pb_fast_varint(p, end, &v)) || v > (uint64_t)(end - p))
                return 0;
            out->kind = (tag >> 3) == 5 ? STAT_STR : STAT_BYTES;
            out->v.s = pq_str_of((const char *)p, (size_t)v);
            p += v;
            break;
        default:
            p = pb_fast_skip(p, end, tag & 7);
            break;
        }
        if (!p)
            return 0;
    }
    return 1;
}

/*
 * Decodes one XStat body into *out; returns 0 when it is malformed. Every writer emits
 * `metadata_id` then one value field, so that layout is decoded straight; anything else
 * (another order, unknown or repeated fields) goes through the general loop, which gives
 * the same answer for the common layout too.
 */
static XP_ALWAYS_INLINE int xp_decode_stat(const uint8_t *p, size_t n, stat_value *out)
{
    const uint8_t *end = p + n, *q;
    uint64_t id, v;
    if (PB_LIKELY(n >= 3 && p[0] == ((1 << 3) | PB_VARINT) &&
                  (q = pb_fast_varint(p + 1, end, &id)) != NULL && q < end)) {
        uint32_t t = *q++;
        switch (t) {
        case (3 << 3) | PB_VARINT:
        case (4 << 3) | PB_VARINT:
        case (7 << 3) | PB_VARINT:
            if ((q = pb_fast_varint(q, end, &v)) != NULL && q == end) {
                out->metadata_id = (int64_t)id;
                out->kind = t == ((3 << 3) | PB_VARINT)   ? STAT_UINT64
                            : t == ((4 << 3) | PB_VARINT) ? STAT_INT64
                                                          : STAT_REF;
                out->v.u = v;
                return 1;
            }
            break;
        case (2 << 3) | PB_FIXED64:
            if (end - q == 8) {
                out->metadata_id = (int64_t)id;
                out->kind = STAT_DOUBLE;
                out->v.d = pb_double(pb_load_le64(q));
                return 1;
            }
            break;
        case (5 << 3) | PB_LEN:
        case (6 << 3) | PB_LEN:
            if ((q = pb_fast_varint(q, end, &v)) != NULL && v == (uint64_t)(end - q)) {
                out->metadata_id = (int64_t)id;
                out->kind = t == ((5 << 3) | PB_LEN) ? STAT_STR : STAT_BYTES;
                out->v.s = pq_str_of((const char *)q, (size_t)v);
                return 1;
            }
            break;
        default:
            break;
        }
    }
    /* Through a copy, so that OUT (usually a local of a hot loop) never escapes and can
     * live in registers. */
    stat_value tmp;
    if (!xp_decode_stat_general(p, n, &tmp))
        return 0;
    *out = tmp;
    return 1;
}

static inline void xp_stat_decode_pick(xp_stat_pick *pk, const uint8_t *p, size_t n)
{
    stat_value sv;
    if (!xp_decode_stat(p, n, &sv)) /* cannot fail on a validated line */
        return;
    for (int k = 0; k < 2; k++)
        if (sv.metadata_id == pk->id[k]) {
            pk->v[k] = sv;
            pk->got[k] = 1;
        }
}

/* xp_decode_stat's verdict on the XStat body [P, P+N) without its value: the same fast
 * layout (metadata_id, then one value field that ends the stat), its varints only walked,
 * else the general decoder. What the XSpace reader needs without a scan (formats/xplane.c:
 * 37,200 event stats on tpu_inference_2). */
static XP_ALWAYS_INLINE int xp_check_stat(const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n, *q;
    uint64_t v;
    if (PB_LIKELY(n >= 3 && p[0] == ((1 << 3) | PB_VARINT) &&
                  (q = pb_fast_varint(p + 1, end, &v)) != NULL && q < end)) {
        switch (*q++) {
        case (3 << 3) | PB_VARINT:
        case (4 << 3) | PB_VARINT:
        case (7 << 3) | PB_VARINT:
            if ((q = pb_fast_varint(q, end, &v)) != NULL && q == end)
                return 1;
            break;
        case (2 << 3) | PB_FIXED64:
            if (end - q == 8)
                return 1;
            break;
        case (5 << 3) | PB_LEN:
        case (6 << 3) | PB_LEN:
            if ((q = pb_fast_varint(q, end, &v)) != NULL && v == (uint64_t)(end - q))
                return 1;
            break;
        default:
            break;
        }
    }
    stat_value tmp;
    return xp_decode_stat_general(p, n, &tmp);
}

static inline int xp_stats_next(xp_stat_iter *it, stat_value *out)
{
    const uint8_t *p = it->p, *end = it->end;
    uint64_t v = 0;
    uint32_t want = (it->field << 3) | PB_LEN;
    while (p < end) {
        uint32_t tag;
        if (!(p = pb_fast_tag(p, end, &tag)))
            break;
        if (tag != want) {
            if (!(p = pb_fast_skip(p, end, tag & 7)))
                break;
            continue;
        }
        if (!(p = pb_fast_varint(p, end, &v)) || v > (uint64_t)(end - p))
            break;
        it->p = p + v;
        xp_decode_stat(p, (size_t)v, out);
        return 1;
    }
    it->p = it->end;
    return 0;
}

/* A stat's value as a number; 0 for strings, bytes and references. */
static inline double xp_stat_num(const stat_value *s)
{
    switch (s->kind) {
    case STAT_DOUBLE:
        return s->v.d;
    case STAT_UINT64:
        return (double)s->v.u;
    case STAT_INT64:
        return (double)s->v.i;
    default:
        return 0.0;
    }
}

/* A numeric stat as an unsigned id into *OUT (a negative double is 0); 0 for other kinds. */
static inline int xp_stat_u64(const stat_value *s, uint64_t *out)
{
    switch (s->kind) {
    case STAT_UINT64:
    case STAT_INT64:
        *out = s->v.u;
        return 1;
    case STAT_DOUBLE:
        *out = s->v.d >= 0 ? (uint64_t)s->v.d : 0;
        return 1;
    default:
        return 0;
    }
}

/* Length of the name of stat metadata ID (0 for an unknown id). */
static XP_ALWAYS_INLINE uint64_t xp_stat_name_len(const xp_plane *pl, int64_t id)
{
    if (pl->smeta_name_len)
        return (uint64_t)id < (uint64_t)pl->smeta_dense_n ? pl->smeta_name_len[id] : 0;
    const xp_stat_meta *m = xp_stat_meta_find(pl, id);
    return m ? m->name.n : 0;
}

/* What one decoded stat adds to the scan checksum: its value bits, its name's length and,
 * for a ref, the referenced name's length. */
static XP_ALWAYS_INLINE uint64_t scan_stat_sum(const xp_plane *pl, const stat_value *s)
{
    uint64_t sum = xp_stat_name_len(pl, s->metadata_id);
    switch (s->kind) {
    case STAT_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &s->v.d, sizeof bits);
        return sum + bits;
    }
    case STAT_UINT64:
    case STAT_INT64:
        return sum + s->v.u;
    case STAT_STR:
    case STAT_BYTES:
        return sum + s->v.s.n;
    case STAT_REF:
        return sum + xp_stat_name_len(pl, (int64_t)s->v.u);
    case STAT_NONE:
        break;
    }
    return sum;
}

/* Adds one decoded stat to scan totals (kind count and checksum). */
static XP_ALWAYS_INLINE void scan_add_stat(const xp_plane *pl, const stat_value *s,
                                           pq_scan_totals *t)
{
    t->stats_by_kind[s->kind]++;
    t->checksum = (int64_t)((uint64_t)t->checksum + scan_stat_sum(pl, s));
}

#endif
