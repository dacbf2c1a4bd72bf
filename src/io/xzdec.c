/* xzdec.c - profq's own whole-buffer xz/LZMA2 decoder (xzdec.h; docs/internals/xz.md says
 * why: liblzma decodes into a dictionary and copies out, and saves its range decoder state
 * per bit so that it can stop anywhere; this one decodes straight into the final output,
 * which is the dictionary, with the input fully in memory).
 *
 * Written from the xz file format and LZMA2 descriptions; no code of xz-utils, 7-zip or the
 * LZMA SDK. It is strict where liblzma is strict (it must never accept what liblzma refuses:
 * fuzz/fuzz_xz.c checks that) and gives up (returns 0) on anything it does not do, so that
 * the caller's liblzma path decodes it or names the error. Not a streaming decoder: the
 * whole input and an output buffer of the final size are given. */
#include "xzdec.h"
#include "core/alloc.h"

#include <lzma.h>
#include <stddef.h>
#include <string.h>

/* ---- the LZMA decoder ---- */

enum {
    NSTATES = 12,
    PB_MAX = 16,
    LIT_SIZE = 0x300,
    DIST_SPECIAL = 114, /* the reverse-tree probabilities of slots 4..13 */
    END_POS_MODEL = 14,
    PROB_INIT = 1024,
    /* The most input one symbol reads (48 bits of a match, each bit at most one byte): the
     * fast loop runs while at least this much is left, the tail from a zero-padded copy. */
    MARGIN = 64,
};

typedef struct len_probs {
    uint16_t choice, choice2;
    uint16_t low[PB_MAX][8], mid[PB_MAX][8], high[256];
} len_probs;

typedef struct lz_probs {
    uint16_t is_match[NSTATES][PB_MAX], is_rep[NSTATES], is_rep0[NSTATES], is_rep1[NSTATES],
        is_rep2[NSTATES], is_rep0_long[NSTATES][PB_MAX];
    uint16_t dist_slot[4][64], dist_special[DIST_SPECIAL], dist_align[16];
    len_probs match_len, rep_len;
    uint16_t literal[LIT_SIZE << 4]; /* lc + lp <= 4 in LZMA2 */
} lz_probs;

typedef struct lz {
    uint32_t range, code;
    uint32_t state, rep0, rep1, rep2, rep3;
    unsigned lc, lp_mask, pb_mask;
    lz_probs p;
} lz;

static void lz_reset(lz *z)
{
    z->state = z->rep0 = z->rep1 = z->rep2 = z->rep3 = 0;
    uint16_t *p = (uint16_t *)&z->p;
    for (size_t k = 0; k < sizeof z->p / sizeof *p; k++)
        p[k] = PROB_INIT;
}

/* The range decoder, in locals of lz_run: normalised after each bit (liblzma normalises
 * before; the bytes read per chunk are the same, as the end of a chunk reads one more). */
#define RC_NORM()                                                                                  \
    do {                                                                                           \
        if (rng < (1u << 24)) {                                                                    \
            rng <<= 8;                                                                             \
            code = (code << 8) | *in++;                                                            \
        }                                                                                          \
    } while (0)

/* Decodes one bit with probability *P into the low bit of S (S = S << 1 | bit). */
#define RC_BITS(p, s)                                                                              \
    do {                                                                                           \
        uint32_t pr_ = *(p), b_ = (rng >> 11) * pr_;                                               \
        if (code < b_) {                                                                           \
            rng = b_;                                                                              \
            *(p) = (uint16_t)(pr_ + ((2048 - pr_) >> 5));                                          \
            (s) <<= 1;                                                                             \
        } else {                                                                                   \
            rng -= b_;                                                                             \
            code -= b_;                                                                            \
            *(p) = (uint16_t)(pr_ - (pr_ >> 5));                                                   \
            (s) = ((s) << 1) | 1;                                                                  \
        }                                                                                          \
        RC_NORM();                                                                                 \
    } while (0)

/* if (bit(P) == 0) { ... } else { ... }: RC_IF0(P) { zero } RC_ELSE(P) { one } */
#define RC_IF0(p)                                                                                  \
    bnd = (rng >> 11) * *(p);                                                                      \
    if (code < bnd) {                                                                              \
        rng = bnd;                                                                                 \
        *(p) = (uint16_t)(*(p) + ((2048 - *(p)) >> 5));                                            \
        RC_NORM();
#define RC_ELSE(p)                                                                                 \
    }                                                                                              \
    else                                                                                           \
    {                                                                                              \
        rng -= bnd;                                                                                \
        code -= bnd;                                                                               \
        *(p) = (uint16_t)(*(p) - (*(p) >> 5));                                                     \
        RC_NORM();
#define RC_END }

/* Bit trees of 3, 6 and 8 bits, unrolled: the symbol, 0 .. 2^N - 1. */
#define RC_BIT_S(probs) RC_BITS((probs) + s_, s_)
#define RC_3BITS(probs)                                                                            \
    RC_BIT_S(probs);                                                                               \
    RC_BIT_S(probs);                                                                               \
    RC_BIT_S(probs)
#define RC_TREE3(probs, out)                                                                       \
    do {                                                                                           \
        uint32_t s_ = 1;                                                                           \
        RC_3BITS(probs);                                                                           \
        (out) = s_ - 8;                                                                            \
    } while (0)
#define RC_TREE6(probs, out)                                                                       \
    do {                                                                                           \
        uint32_t s_ = 1;                                                                           \
        RC_3BITS(probs);                                                                           \
        RC_3BITS(probs);                                                                           \
        (out) = s_ - 64;                                                                           \
    } while (0)
#define RC_TREE8(probs, out)                                                                       \
    do {                                                                                           \
        uint32_t s_ = 1;                                                                           \
        RC_3BITS(probs);                                                                           \
        RC_3BITS(probs);                                                                           \
        RC_BIT_S(probs);                                                                           \
        RC_BIT_S(probs);                                                                           \
        (out) = s_ - 256;                                                                          \
    } while (0)

/* Copies LEN bytes from D - DIST1 to D (they may overlap: DIST1 < LEN repeats a pattern).
 * May write up to 31 bytes past D + LEN when WIDE (the caller saw room). */
static inline void copy_match(uint8_t *d, size_t dist1, size_t len, int wide)
{
    const uint8_t *s = d - dist1;
    if (wide && dist1 >= 32) {
        for (size_t k = 0; k < len; k += 32)
            memcpy(d + k, s + k, 32);
    } else if (wide && dist1 >= 16) {
        for (size_t k = 0; k < len; k += 16)
            memcpy(d + k, s + k, 16);
    } else if (wide && dist1 >= 8) {
        for (size_t k = 0; k < len; k += 8)
            memcpy(d + k, s + k, 8);
    } else if (dist1 == 1) {
        memset(d, *s, len);
    } else {
        for (size_t k = 0; k < len; k++)
            d[k] = s[k];
    }
}

typedef struct lz_run_args {
    uint8_t *dict;          /* the output since the last dictionary reset */
    size_t pos;             /* decoded bytes of dict */
    size_t soft;            /* stop when pos reaches it (a progress point or the chunk end) */
    size_t end;             /* the chunk's end: no match may cross it */
    size_t wend;            /* bytes of dict writable (copies may run up to 31 bytes over) */
    size_t dict_max;        /* liblzma's dictionary size: no distance reaches that far */
    const uint8_t *in;      /* the next input byte */
    const uint8_t *in_stop; /* no symbol starts at or after it */
} lz_run_args;

/* Decodes symbols until a->pos >= a->soft or a->in >= a->in_stop; 0 on a corrupt symbol
 * (a distance beyond the data or the dictionary, a match past the chunk, the end marker,
 * which LZMA2 does not allow). The hot loop of `profq nsys`: it keeps everything in locals.
 * Long because: one symbol's whole decoding (literal, match, the three rep kinds, length,
 * distance) is one loop body, so that the range decoder's state stays in registers. */
static inline __attribute__((always_inline)) int lz_run_with(lz *z, lz_run_args *a,
                                                             const unsigned lc,
                                                             const unsigned lp_mask,
                                                             const unsigned pb_mask)
{
    uint32_t rng = z->range, code = z->code, bnd;
    uint32_t state = z->state, rep0 = z->rep0, rep1 = z->rep1, rep2 = z->rep2, rep3 = z->rep3;
    const uint8_t *in = a->in, *in_stop = a->in_stop;
    uint8_t *d = a->dict;
    size_t pos = a->pos, soft = a->soft, end = a->end, wend = a->wend, dict_max = a->dict_max;
    lz_probs *p = &z->p;
    int ok = 1;
    while (pos < soft && in < in_stop) {
        uint32_t ps = (uint32_t)pos & pb_mask;
        uint16_t *pm = &p->is_match[state][ps];
        RC_IF0(pm)
        {
            /* a literal */
            uint32_t prev = pos ? d[pos - 1] : 0;
            uint16_t *lp =
                p->literal + LIT_SIZE * ((((uint32_t)pos & lp_mask) << lc) + (prev >> (8 - lc)));
            uint32_t s = 1;
            if (state < 7) {
                RC_TREE8(lp, s);
                state = state < 4 ? 0 : state - 3;
            } else {
                uint32_t mb = d[pos - rep0 - 1], offs = 0x100, mbit;
#define MLIT_BIT()                                                                                 \
    do {                                                                                           \
        mb <<= 1;                                                                                  \
        mbit = mb & offs;                                                                          \
        RC_BITS(lp + offs + mbit + s, s);                                                          \
        offs &= (s & 1) ? mbit : ~mbit;                                                            \
    } while (0)
                MLIT_BIT();
                MLIT_BIT();
                MLIT_BIT();
                MLIT_BIT();
                MLIT_BIT();
                MLIT_BIT();
                MLIT_BIT();
                MLIT_BIT(); /* unrolled: a loop here costs 2-3% */
                state = state < 10 ? state - 3 : state - 6;
            }
            d[pos++] = (uint8_t)s;
            continue;
        }
        RC_ELSE(pm)
        RC_END
        uint32_t len;
        len_probs *lenp;
        uint16_t *pr = &p->is_rep[state];
        RC_IF0(pr)
        {
            /* a match with a new distance */
            state = state < 7 ? 7 : 10;
            rep3 = rep2;
            rep2 = rep1;
            rep1 = rep0;
            lenp = &p->match_len;
        }
        RC_ELSE(pr)
        {
            if (!pos)
                goto bad;
            uint16_t *p0 = &p->is_rep0[state];
            RC_IF0(p0)
            {
                uint16_t *pl = &p->is_rep0_long[state][ps];
                RC_IF0(pl)
                {
                    /* a short rep: one byte at rep0 */
                    state = state < 7 ? 9 : 11;
                    d[pos] = d[pos - rep0 - 1];
                    pos++;
                    continue;
                }
                RC_ELSE(pl)
                RC_END
            }
            RC_ELSE(p0)
            {
                uint32_t dist;
                uint16_t *p1 = &p->is_rep1[state];
                RC_IF0(p1)
                {
                    dist = rep1;
                }
                RC_ELSE(p1)
                {
                    uint16_t *p2 = &p->is_rep2[state];
                    RC_IF0(p2)
                    {
                        dist = rep2;
                    }
                    RC_ELSE(p2)
                    {
                        dist = rep3;
                        rep3 = rep2;
                    }
                    RC_END
                    rep2 = rep1;
                }
                RC_END
                rep1 = rep0;
                rep0 = dist;
            }
            RC_END
            state = state < 7 ? 8 : 11;
            lenp = &p->rep_len;
        }
        RC_END
        /* the length */
        {
            uint16_t *pc = &lenp->choice;
            RC_IF0(pc)
            {
                RC_TREE3(lenp->low[ps], len);
            }
            RC_ELSE(pc)
            {
                uint16_t *pc2 = &lenp->choice2;
                RC_IF0(pc2)
                {
                    RC_TREE3(lenp->mid[ps], len);
                    len += 8;
                }
                RC_ELSE(pc2)
                {
                    RC_TREE8(lenp->high, len);
                    len += 16;
                }
                RC_END
            }
            RC_END
        }
        if (lenp == &p->match_len) {
            uint32_t slot;
            RC_TREE6(p->dist_slot[len < 4 ? len : 3], slot);
            uint32_t dist;
            if (slot < 4) {
                dist = slot;
            } else {
                uint32_t nd = (slot >> 1) - 1;
                dist = 2 | (slot & 1);
                if (slot < END_POS_MODEL) {
                    dist <<= nd;
                    /* the tree's node i (from 1) at dist_special[dist - slot - 1 + i] */
                    uint16_t *sp = p->dist_special + (dist - slot);
                    uint32_t i = 1;
                    for (uint32_t k = 0; k < nd; k++) {
                        uint32_t before = i;
                        RC_BITS(sp + before - 1, i);
                        dist |= (i & 1) << k;
                    }
                } else {
                    for (uint32_t k = 0; k < nd - 4; k++) {
                        rng >>= 1;
                        code -= rng;
                        uint32_t t = 0u - (code >> 31);
                        code += rng & t;
                        dist = (dist << 1) + (t + 1);
                        RC_NORM();
                    }
                    uint32_t i = 1;
                    RC_BITS(p->dist_align + i, i);
                    RC_BITS(p->dist_align + i, i);
                    RC_BITS(p->dist_align + i, i);
                    RC_BITS(p->dist_align + i, i);
                    /* i holds the 4 bits in reverse order above a 1 */
                    dist = dist << 4 | (i >> 3 & 1) | (i >> 1 & 2) | (i << 1 & 4) | (i << 3 & 8);
                }
            }
            rep0 = dist;
            if (dist == UINT32_MAX) /* the end marker: not in LZMA2 */
                goto bad;
        }
        len += 2;
        if ((size_t)rep0 >= pos || (size_t)rep0 >= dict_max || len > end - pos)
            goto bad;
        copy_match(d + pos, (size_t)rep0 + 1, len, pos + len + 32 <= wend);
        pos += len;
    }
    if (0) {
    bad:
        ok = 0;
    }
    z->range = rng;
    z->code = code;
    z->state = state;
    z->rep0 = rep0;
    z->rep1 = rep1;
    z->rep2 = rep2;
    z->rep3 = rep3;
    a->pos = pos;
    a->in = in;
    return ok;
}

static int lz_run_default(lz *z, lz_run_args *a)
{
    return lz_run_with(z, a, 3, 0, 3);
}

static int lz_run_any(lz *z, lz_run_args *a)
{
    return lz_run_with(z, a, z->lc, z->lp_mask, z->pb_mask);
}

static int lz_run(lz *z, lz_run_args *a)
{
    return z->lc == 3 && z->lp_mask == 0 && z->pb_mask == 3 ? lz_run_default(z, a)
                                                            : lz_run_any(z, a);
}

/* ---- LZMA2 chunks and blocks ---- */

typedef struct dec {
    const uint8_t *in;
    size_t n;
    uint8_t *out;
    size_t cap, pos; /* pos: bytes of output decoded */
    xzdec_progress progress;
    void *arg;
    size_t next_report;
    /* the block's check: 0 none, 1 CRC32, 4 CRC64; computed over [check_from, pos) lazily */
    int check;
    size_t check_from;
    uint32_t crc32;
    uint64_t crc64;
    lz z;
} dec;

static void check_update(dec *x)
{
    size_t k = x->check_from, m = x->pos - k;
    if (x->check == 1)
        x->crc32 = lzma_crc32(x->out + k, m, x->crc32);
    else if (x->check == 4)
        x->crc64 = lzma_crc64(x->out + k, m, x->crc64);
    x->check_from = x->pos;
}

/* Tells the consumer when a progress point is passed. */
static void report(dec *x)
{
    if (x->pos < x->next_report)
        return;
    check_update(x);
    if (x->progress)
        x->progress(x->arg, x->pos);
    x->next_report = x->pos + XZDEC_PROGRESS_STEP;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* One LZMA chunk: CIN[0..CSIZE) decodes to USIZE bytes at x->pos, the dictionary starting
 * at DICT (x->out + its reset point). The range decoder must end exactly at the chunk's
 * end with code 0 (liblzma's rule). */
static int lzma_chunk(dec *x, uint8_t *dict, size_t usize, const uint8_t *cin, size_t csize,
                      size_t dict_max)
{
    if (csize < 5 || cin[0] != 0)
        return 0;
    lz *z = &x->z;
    z->range = UINT32_MAX;
    z->code = be32(cin + 1);
    size_t base = (size_t)(dict - x->out);
    lz_run_args a = {.dict = dict,
                     .pos = x->pos - base,
                     .end = x->pos - base + usize,
                     .wend = x->cap - base,
                     .dict_max = dict_max,
                     .in = cin + 5};
    const uint8_t *in_end = cin + csize;
    uint8_t tail[3 * MARGIN];
    int in_tail = 0;
    size_t rem = 0;
    while (a.pos < a.end) {
        if (!in_tail && in_end - a.in <= MARGIN) {
            rem = (size_t)(in_end - a.in);
            memset(tail, 0, sizeof tail);
            memcpy(tail, a.in, rem);
            a.in = tail;
            in_tail = 1;
        }
        a.in_stop = in_tail ? tail + rem + 1 : in_end - MARGIN;
        size_t next = x->next_report - base;
        a.soft = next < a.end ? next : a.end;
        if (!lz_run(z, &a))
            return 0;
        x->pos = base + a.pos;
        report(x);
        if (in_tail && a.in > tail + rem)
            return 0; /* read past the chunk */
    }
    size_t used =
        in_tail ? (size_t)(a.in - tail) + (size_t)(in_end - cin) - rem : (size_t)(a.in - cin);
    return used == csize && z->code == 0;
}

/* The LZMA2 data of a block from IN[*IP]: chunks until the end byte 0. DICT_MAX is
 * liblzma's dictionary size for the block. */
static int lzma2_block(dec *x, size_t *ip, size_t dict_max)
{
    const uint8_t *in = x->in;
    size_t i = *ip, n = x->n;
    int need_reset = 1, need_props = 1;
    uint8_t *dict = x->out + x->pos;
    for (;;) {
        if (i >= n)
            return 0;
        unsigned c = in[i++];
        if (c == 0)
            break;
        if (c >= 0xE0 || c == 1) {
            need_props = 1;
            need_reset = 0;
            dict = x->out + x->pos;
        } else if (need_reset) {
            return 0;
        }
        if (c >= 0x80) {
            if (n - i < 4 + (c >= 0xC0))
                return 0;
            size_t usize = ((size_t)(c & 0x1F) << 16) + ((size_t)in[i] << 8) + in[i + 1] + 1;
            size_t csize = ((size_t)in[i + 2] << 8) + in[i + 3] + 1;
            i += 4;
            if (c >= 0xC0) {
                unsigned pr = in[i++];
                if (pr >= 9 * 5 * 5)
                    return 0;
                unsigned lc = pr % 9, lp = pr / 9 % 5, pb = pr / 45;
                if (lc + lp > 4)
                    return 0;
                x->z.lc = lc;
                x->z.lp_mask = (1u << lp) - 1;
                x->z.pb_mask = (1u << pb) - 1;
                need_props = 0;
                lz_reset(&x->z);
            } else if (need_props) {
                return 0;
            } else if (c >= 0xA0) {
                lz_reset(&x->z);
            }
            if (n - i < csize || x->cap - x->pos < usize)
                return 0;
            if (!lzma_chunk(x, dict, usize, in + i, csize, dict_max))
                return 0;
            i += csize;
        } else {
            if (c > 2 || n - i < 2)
                return 0;
            size_t size = ((size_t)in[i] << 8) + in[i + 1] + 1;
            i += 2;
            if (n - i < size || x->cap - x->pos < size)
                return 0;
            memcpy(x->out + x->pos, in + i, size);
            x->pos += size;
            i += size;
            report(x);
        }
    }
    *ip = i;
    return 1;
}

/* ---- blocks, indexes, streams ---- */

/* A variable-length integer of the xz format (at most 9 bytes, no trailing zero byte). */
static int vli(const uint8_t *in, size_t *ip, size_t end, uint64_t *v)
{
    uint64_t r = 0;
    for (int k = 0; k < 9; k++) {
        if (*ip >= end)
            return 0;
        uint8_t b = in[(*ip)++];
        r |= (uint64_t)(b & 0x7F) << (7 * k);
        if (!(b & 0x80)) {
            if (k && !b)
                return 0;
            *v = r;
            return 1;
        }
    }
    return 0;
}

static const uint8_t HEADER_MAGIC[6] = {0xFD, '7', 'z', 'X', 'Z', 0};

/* What the index records of a stream must match: the count, the sums and a CRC64 of the
 * (unpadded size, uncompressed size) pairs in order. */
typedef struct records {
    uint64_t count, unpadded, usize, hash;
} records;

static void records_add(records *r, uint64_t unpadded, uint64_t usize)
{
    uint8_t b[16];
    for (int k = 0; k < 8; k++) {
        b[k] = (uint8_t)(unpadded >> (8 * k));
        b[8 + k] = (uint8_t)(usize >> (8 * k));
    }
    r->count++;
    r->unpadded += unpadded;
    r->usize += usize;
    r->hash = lzma_crc64(b, sizeof b, r->hash);
}

static size_t check_size(int check)
{
    return check == 0 ? 0 : check == 1 ? 4 : 8;
}

/* One block at IN[*IP] (its header size byte is not 0); adds it to R. */
static int block(dec *x, size_t *ip, records *r)
{
    const uint8_t *in = x->in;
    size_t i = *ip, n = x->n, hsize = ((size_t)in[i] + 1) * 4;
    if (n - i < hsize || lzma_crc32(in + i, hsize - 4, 0) != le32(in + i + hsize - 4))
        return 0;
    unsigned flags = in[i + 1];
    if ((flags & 0x3F) != 0) /* reserved bits, or more than one filter */
        return 0;
    size_t h = i + 2, hend = i + hsize - 4;
    uint64_t csize = 0, usize = 0, id, psize;
    if ((flags & 0x40) && !vli(in, &h, hend, &csize))
        return 0;
    if ((flags & 0x80) && !vli(in, &h, hend, &usize))
        return 0;
    if (!vli(in, &h, hend, &id) || id != 0x21 || !vli(in, &h, hend, &psize) || psize != 1 ||
        h >= hend || in[h] > 40)
        return 0;
    unsigned d = in[h++];
    for (; h < hend; h++)
        if (in[h])
            return 0;
    uint64_t dsize = d == 40 ? UINT32_MAX : (uint64_t)(2 | (d & 1)) << (d / 2 + 11);
    if (dsize < 4096)
        dsize = 4096;
    dsize = (dsize + 15) & ~(uint64_t)15;
    size_t data = i + hsize, start = x->pos;
    x->check_from = start;
    x->crc32 = 0;
    x->crc64 = 0;
    i = data;
    if (!lzma2_block(x, &i, dsize > SIZE_MAX ? SIZE_MAX : (size_t)dsize))
        return 0;
    uint64_t got_c = i - data, got_u = x->pos - start;
    if (((flags & 0x40) && csize != got_c) || ((flags & 0x80) && usize != got_u))
        return 0;
    for (; (i - *ip) & 3; i++)
        if (i >= n || in[i])
            return 0;
    size_t cs = check_size(x->check);
    if (n - i < cs)
        return 0;
    check_update(x);
    if ((x->check == 1 && x->crc32 != le32(in + i)) ||
        (x->check == 4 && x->crc64 != ((uint64_t)le32(in + i + 4) << 32 | le32(in + i))))
        return 0;
    i += cs;
    records_add(r, hsize + got_c + cs, got_u);
    *ip = i;
    return 1;
}

/* The index at IN[*IP] (the indicator 0) against R; the index size in *SIZE. */
static int index_check(const uint8_t *in, size_t n, size_t *ip, const records *r, size_t *size)
{
    size_t i = *ip + 1;
    uint64_t count, unpadded, usize;
    records got = {0};
    if (!vli(in, &i, n, &count) || count != r->count)
        return 0;
    for (uint64_t k = 0; k < count; k++) {
        if (!vli(in, &i, n, &unpadded) || !vli(in, &i, n, &usize))
            return 0;
        records_add(&got, unpadded, usize);
    }
    if (got.unpadded != r->unpadded || got.usize != r->usize || got.hash != r->hash)
        return 0;
    for (; (i - *ip) & 3; i++)
        if (i >= n || in[i])
            return 0;
    if (n - i < 4 || lzma_crc32(in + *ip, i - *ip, 0) != le32(in + i))
        return 0;
    i += 4;
    *size = i - *ip;
    *ip = i;
    return 1;
}

/* The stream flags at P (2 bytes): the check type, -1 when not supported here. */
static int stream_check(const uint8_t *p)
{
    if (p[0] || (p[1] & 0xF0))
        return -1;
    return p[1] == 0 || p[1] == 1 || p[1] == 4 ? p[1] : -1;
}

/* One stream at IN[*IP]. */
static int stream(dec *x, size_t *ip)
{
    const uint8_t *in = x->in;
    size_t i = *ip, n = x->n;
    if (n - i < 12 || memcmp(in + i, HEADER_MAGIC, 6) ||
        lzma_crc32(in + i + 6, 2, 0) != le32(in + i + 8))
        return 0;
    const uint8_t *flags = in + i + 6;
    if ((x->check = stream_check(flags)) < 0)
        return 0;
    i += 12;
    records r = {0};
    while (i < n && in[i])
        if (!block(x, &i, &r))
            return 0;
    size_t isize;
    if (i >= n || !index_check(in, n, &i, &r, &isize))
        return 0;
    const uint8_t *f = in + i;
    if (n - i < 12 || f[10] != 'Y' || f[11] != 'Z' || lzma_crc32(f + 4, 6, 0) != le32(f) ||
        ((uint64_t)le32(f + 4) + 1) * 4 != isize || memcmp(f + 8, flags, 2))
        return 0;
    *ip = i + 12;
    return 1;
}

int xzdec_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *len,
                 xzdec_progress progress, void *arg)
{
    dec *x = pq_malloc(sizeof *x);
    if (!x)
        return 0;
    memset(x, 0, offsetof(dec, z));
    x->in = in;
    x->n = n;
    x->out = out;
    x->cap = cap;
    x->progress = progress;
    x->arg = arg;
    x->next_report = XZDEC_PROGRESS_STEP;
    size_t i = 0;
    int ok = n > 0;
    while (ok && i < n) {
        if (!stream(x, &i)) {
            ok = 0;
            break;
        }
        size_t pad = i;
        while (i < n && !in[i])
            i++;
        if ((i - pad) & 3)
            ok = 0;
    }
    if (ok) {
        *len = x->pos;
        if (progress)
            progress(arg, x->pos);
    }
    pq_free(x);
    return ok;
}

int xzdec_size(const uint8_t *in, size_t n, uint64_t *size)
{
    uint64_t total = 0;
    size_t end = n;
    int streams = 0;
    while (end > 0) {
        size_t pad = end;
        while (end > 0 && !in[end - 1])
            end--;
        if (((pad - end) & 3) || end == 0)
            return 0;
        if (end < 24)
            return 0;
        const uint8_t *f = in + end - 12;
        if (f[10] != 'Y' || f[11] != 'Z' || lzma_crc32(f + 4, 6, 0) != le32(f))
            return 0;
        size_t isize = ((size_t)le32(f + 4) + 1) * 4, i = end - 12 - isize;
        if (isize > end - 24 || in[i])
            return 0;
        uint64_t count, unpadded, usize, blocks = 0;
        i++;
        if (!vli(in, &i, end - 12, &count))
            return 0;
        for (uint64_t k = 0; k < count; k++) {
            if (!vli(in, &i, end - 12, &unpadded) || !vli(in, &i, end - 12, &usize) ||
                usize > UINT64_MAX / 2 - total || unpadded > SIZE_MAX / 2)
                return 0;
            total += usize;
            blocks += (unpadded + 3) & ~(uint64_t)3;
            if (blocks > end)
                return 0;
        }
        size_t istart = end - 12 - isize;
        if (blocks > istart - 12)
            return 0;
        size_t s = istart - 12 - (size_t)blocks;
        if (memcmp(in + s, HEADER_MAGIC, 6) || memcmp(in + s + 6, f + 8, 2) ||
            stream_check(f + 8) < 0)
            return 0;
        streams++;
        end = s;
    }
    *size = total;
    return streams > 0;
}
