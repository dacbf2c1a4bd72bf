/* json_digits.h - the digit writing json.c and json_double.c share (internal to them):
 * short moves, decimal digit pairs, integers eight digits at a time. */
#ifndef PQ_CORE_JSON_DIGITS_H
#define PQ_CORE_JSON_DIGITS_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Moves N bytes by two overlapping fixed-size copies when N <= 32 (most pieces are short:
 * keys, numbers, names), else memcpy. */
static inline void move_short(char *d, const char *q, size_t n)
{
    if (n > 32) {
        memcpy(d, q, n);
    } else if (n >= 16) {
        memcpy(d, q, 16);
        memcpy(d + n - 16, q + n - 16, 16);
    } else if (n >= 8) {
        memcpy(d, q, 8);
        memcpy(d + n - 8, q + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, q, 4);
        memcpy(d + n - 4, q + n - 4, 4);
    } else if (n) {
        d[0] = q[0];
        d[n / 2] = q[n / 2];
        d[n - 1] = q[n - 1];
    }
}

/* Decimal digits of V without printf (these are the hot values of large documents). */
/* "00" to "99": decimal digits two at a time. */
static const char PAIRS[201] = "00010203040506070809101112131415161718192021222324"
                               "25262728293031323334353637383940414243444546474849"
                               "50515253545556575859606162636465666768697071727374"
                               "75767778798081828384858687888990919293949596979899";

/* The number of decimal digits of V (1 for 0). */
static inline int u64_digits(uint64_t v)
{
    static const uint64_t P[20] = {1ull,
                                   10ull,
                                   100ull,
                                   1000ull,
                                   10000ull,
                                   100000ull,
                                   1000000ull,
                                   10000000ull,
                                   100000000ull,
                                   1000000000ull,
                                   10000000000ull,
                                   100000000000ull,
                                   1000000000000ull,
                                   10000000000000ull,
                                   100000000000000ull,
                                   1000000000000000ull,
                                   10000000000000000ull,
                                   100000000000000000ull,
                                   1000000000000000000ull,
                                   10000000000000000000ull};
    v |= 1; /* 0 has one digit; an odd V has the count of V - 1 (10^k is even) */
    int t = ((64 - __builtin_clzll(v)) * 1233) >> 12; /* t or t + 1 digits */
    return t + (v >= P[t]);
}

/* The eight digits of V (< 10^8) by fixed point, not divisions: F = V * ceil(2^48 / 10^6)
 * is V / 10^6 with 48 fraction bits, high by under V * 0.29 < 2^25 units, so its integer
 * part is the first two digits; each fraction times 100 gives the next two, the error
 * times 100 staying under the margin (2^48 * 10^-6 at the first step, then 100 times
 * larger with it). Checked on all 10^8 values by the unit tests. */
static inline void put8(char *d, uint32_t v)
{
    const uint64_t mask = (1ull << 48) - 1;
    uint64_t f = (uint64_t)v * 281474977u;
    memcpy(d, PAIRS + 2 * (f >> 48), 2);
    f = (f & mask) * 100;
    memcpy(d + 2, PAIRS + 2 * (f >> 48), 2);
    f = (f & mask) * 100;
    memcpy(d + 4, PAIRS + 2 * (f >> 48), 2);
    f = (f & mask) * 100;
    memcpy(d + 6, PAIRS + 2 * (f >> 48), 2);
}

/* Writes the decimal digits of V (with '-' first when NEG) at D; returns their count. The
 * count known first (no staging copy), then from the end eight digits a step while over
 * 32 bits, then two. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* into json_key_int and json_int: a call costs a fifth */
#endif
static inline size_t
write_u64(char *d, uint64_t v, int neg)
{
    d[0] = '-';
    d += neg;
    size_t nd = (size_t)u64_digits(v);
    char *e = d + nd;
    while (v >= 100000000) {
        e -= 8;
        put8(e, (uint32_t)(v % 100000000));
        v /= 100000000;
    }
    uint32_t u = (uint32_t)v;
    while (u >= 100) {
        e -= 2;
        memcpy(e, PAIRS + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10)
        memcpy(e - 2, PAIRS + 2 * u, 2);
    else
        e[-1] = (char)('0' + u);
    return nd + (size_t)neg;
}

#endif
