/* json_double.c - json_format_double: XProf's (protobuf's) text of a double, the %.15g
 * form when it reads back exactly, else %.17g, mostly without printf; see json.h. */
#include "json.h"
#include "json_digits.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fast path for the common case of a value with at most 6 decimals (log values like
 * 1021.169, MB of whole bytes): prints exactly what %.15g prints for it, without printf.
 * (double)k / scale == v means the decimal k/scale reads back as v (both operands exact,
 * division correctly rounded), and with under 15 significant digits %.15g prints that same
 * decimal; the range excludes %g's exponent forms. */
static int format_decimal_fast(char *out, size_t cap, double v)
{
    static const double SCALES[] = {1, 1e3, 1e6, 1e9};
    static const int DIGITS[] = {0, 3, 6, 9};
    double a = fabs(v);
    if (cap < 32 || !(a < 1e9) || (a != 0 && a < 1e-4) || (v == 0 && signbit(v)))
        return -1;
    for (int s = 0; s < 4; s++) {
        if (s == 3 && !(a < 1e5)) /* keep k below 1e14: fewer than 15 significant digits */
            break;
        double x = a * SCALES[s];
        long long k = llround(x);
        if ((double)k / SCALES[s] != a)
            continue;
        char tmp[32];
        int n = 0;
        int d = DIGITS[s];
        long long ip = k, fp = 0, p10 = 1;
        for (int i = 0; i < d; i++)
            p10 *= 10;
        ip = k / p10;
        fp = k % p10;
        /* integer part, reversed */
        do {
            tmp[n++] = (char)('0' + ip % 10);
            ip /= 10;
        } while (ip);
        int o = 0;
        if (v < 0)
            out[o++] = '-';
        while (n)
            out[o++] = tmp[--n];
        if (fp) {
            char fr[12];
            for (int i = d - 1; i >= 0; i--) {
                fr[i] = (char)('0' + fp % 10);
                fp /= 10;
            }
            int last = d;
            while (last > 0 && fr[last - 1] == '0')
                last--;
            out[o++] = '.';
            for (int i = 0; i < last; i++)
                out[o++] = fr[i];
        }
        out[o] = '\0';
        return o;
    }
    return -1;
}

/* Exact %.15g / %.17g of a dyadic value, without printf (json_format_double's rule: the
 * 15-digit form when it reads back exactly, else 17 digits). A finite double is M * 2^E
 * (M < 2^53); without its trailing zero bits it is m * 2^e. When e is in [-27, 64], its
 * exact decimal expansion is the integer N = m * 5^-e (e < 0) or m * 2^e (e >= 0) over
 * 10^k, k = max(0, -e), which fits in 128 bits. The first P digits of N are rounded half
 * to even (glibc's printf rounds the exact value so), and the 15-digit form reads back as
 * v exactly when its distance from N is under half the gap to the neighbouring double, or
 * equal to it with M even (strtod's tie rule). Sizes over 2^20 (MiB) and byte counts as
 * doubles are all such values. Returns -1 for others. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 json_u128;

enum { DYADIC_MAX_K = 27 };

/* 10^0 .. 10^38 (10^38 < 2^128). */
static const json_u128 P10[39] = {
    (json_u128)1ull,
    (json_u128)10ull,
    (json_u128)100ull,
    (json_u128)1000ull,
    (json_u128)10000ull,
    (json_u128)100000ull,
    (json_u128)1000000ull,
    (json_u128)10000000ull,
    (json_u128)100000000ull,
    (json_u128)1000000000ull,
    (json_u128)10000000000ull,
    (json_u128)100000000000ull,
    (json_u128)1000000000000ull,
    (json_u128)10000000000000ull,
    (json_u128)100000000000000ull,
    (json_u128)1000000000000000ull,
    (json_u128)10000000000000000ull,
    (json_u128)100000000000000000ull,
    (json_u128)1000000000000000000ull,
    (json_u128)10000000000000000000ull,
    (json_u128)10000000000000000000ull * 10ull,
    (json_u128)10000000000000000000ull * 100ull,
    (json_u128)10000000000000000000ull * 1000ull,
    (json_u128)10000000000000000000ull * 10000ull,
    (json_u128)10000000000000000000ull * 100000ull,
    (json_u128)10000000000000000000ull * 1000000ull,
    (json_u128)10000000000000000000ull * 10000000ull,
    (json_u128)10000000000000000000ull * 100000000ull,
    (json_u128)10000000000000000000ull * 1000000000ull,
    (json_u128)10000000000000000000ull * 10000000000ull,
    (json_u128)10000000000000000000ull * 100000000000ull,
    (json_u128)10000000000000000000ull * 1000000000000ull,
    (json_u128)10000000000000000000ull * 10000000000000ull,
    (json_u128)10000000000000000000ull * 100000000000000ull,
    (json_u128)10000000000000000000ull * 1000000000000000ull,
    (json_u128)10000000000000000000ull * 10000000000000000ull,
    (json_u128)10000000000000000000ull * 100000000000000000ull,
    (json_u128)10000000000000000000ull * 1000000000000000000ull,
    (json_u128)10000000000000000000ull * 10000000000000000000ull,
};

static int u128_bits(json_u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* The P decimal digits of Q (Q < 10^P) into D: eight at a time, then two. */
static inline void put_digits(uint64_t q, int p, char *d)
{
    int i = p;
    for (; i >= 8; i -= 8, q /= 100000000)
        put8(d + i - 8, (uint32_t)(q % 100000000));
    uint32_t u = (uint32_t)q;
    for (; i >= 2; i -= 2, u /= 100)
        memcpy(d + i - 2, PAIRS + 2 * (u % 100), 2);
    if (i)
        d[0] = (char)('0' + u);
}

/* Q (P digits, truncated) rounded half to even by REST of UNIT (a power of ten >= 10) below
 * its last digit, into *QOUT; *X (the decimal exponent of the first digit) is incremented on
 * a carry out. Returns |rounded - exact| in the units of REST. */
static json_u128 round_rest(uint64_t q, json_u128 rest, json_u128 unit, int p, uint64_t *qout,
                            int *x, int *up)
{
    json_u128 diff = rest;
    *up = 0;
    if (rest > unit / 2 || (rest == unit / 2 && (q & 1))) {
        *up = 1;
        q++;
        diff = unit - rest;
        if (q == (uint64_t)P10[p]) {
            q = (uint64_t)P10[p - 1];
            ++*x;
        }
    }
    *qout = q;
    return diff;
}

/* N (nonzero, ND digits) rounded half to even to P significant digits, as the integer *Q of
 * P digits; *X (the decimal exponent of the first digit) is incremented on a carry out.
 * Returns |rounded - N| in units of N's last digit. */
static json_u128 round_to(json_u128 n, int nd, int p, uint64_t *qout, int *x, int *up)
{
    if (nd <= p) {
        *up = 0;
        *qout = (uint64_t)n * (uint64_t)P10[p - nd]; /* exact: the digits, zero padded */
        return 0;
    }
    json_u128 unit = P10[nd - p], qq = n / unit;
    return round_rest((uint64_t)qq, n - qq * unit, unit, p, qout, x, up);
}

/* Writes the P-digit %g form of digits D (ND of them, ND <= P) with decimal exponent X
 * (the pieces moved inline: no memcpy call). */
static int put_g(char *out, int neg, const char *d, int nd, int x, int p)
{
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    int o = 0;
    if (neg)
        out[o++] = '-';
    if (x < -4 || x >= p) {
        out[o++] = d[0];
        if (nd > 1) {
            out[o++] = '.';
            move_short(out + o, d + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        out[o++] = 'e';
        out[o++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            out[o++] = (char)('0' + ax / 100);
        out[o++] = (char)('0' + ax / 10 % 10);
        out[o++] = (char)('0' + ax % 10);
    } else if (x >= 0) {
        if (x < nd) { /* the integer part is all digits: one copy */
            move_short(out + o, d, (size_t)x + 1);
            o += x + 1;
        } else {
            for (int i = 0; i <= x; i++)
                out[o++] = i < nd ? d[i] : '0';
        }
        if (nd > x + 1) {
            out[o++] = '.';
            move_short(out + o, d + x + 1, (size_t)(nd - x - 1));
            o += nd - x - 1;
        }
    } else {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -x - 1; i++)
            out[o++] = '0';
        move_short(out + o, d, (size_t)nd);
        o += nd;
    }
    out[o] = '\0';
    return o;
}

static int format_dyadic(char *out, size_t cap, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int bexp = (int)(bits >> 52 & 0x7ff);
    if (cap < 32 || bexp == 0 || bexp == 0x7ff)
        return -1; /* zero, subnormal, infinite, NaN */
    uint64_t mant = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int e2 = bexp - 1075; /* v = mant * 2^e2 */
    int tz = __builtin_ctzll(mant);
    uint64_t m = mant >> tz;
    int e = e2 + tz, k = e < 0 ? -e : 0;
    if (e < -DYADIC_MAX_K || e > 64)
        return -1;
    static const uint64_t POW5[DYADIC_MAX_K + 1] = {
        1ull,
        5ull,
        25ull,
        125ull,
        625ull,
        3125ull,
        15625ull,
        78125ull,
        390625ull,
        1953125ull,
        9765625ull,
        48828125ull,
        244140625ull,
        1220703125ull,
        6103515625ull,
        30517578125ull,
        152587890625ull,
        762939453125ull,
        3814697265625ull,
        19073486328125ull,
        95367431640625ull,
        476837158203125ull,
        2384185791015625ull,
        11920928955078125ull,
        59604644775390625ull,
        298023223876953125ull,
        1490116119384765625ull,
        7450580596923828125ull,
    };
    json_u128 n = m, g = POW5[k]; /* g = 5^k */
    if (e >= 0)
        n <<= e;
    else
        n *= g;
    int t = (u128_bits(n) * 1233) >> 12; /* digits: t or t + 1 */
    int nd = t + (n >= P10[t]);
    char d[20];
    if (nd <= 15) { /* exact in 15 digits (most MiB values): no rounding, 64-bit digits */
        put_digits((uint64_t)n, nd, d);
        return put_g(out, v < 0, d, nd, nd - 1 - k, 15);
    }
    int x15 = nd - 1 - k, up;
    uint64_t q, q17 = 0;
    json_u128 r17 = 0, unit17 = 0, diff;
    if (nd > 17) {
        /* one 128-bit division serves both roundings: N's 17 leading digits and the rest
         * (most MiB values need the 17-digit form: the H100 viewer's 3,569 of 3,786) */
        int j = nd - 17;
        unit17 = P10[j];
        /* N = m * 5^k over 10^j = 2^j * 5^j: with j <= k the quotient is m * 5^(k-j) shifted
         * right by j (no 128-bit division: the H100's MiB values have k = 20, j <= 5) */
        json_u128 qq = e < 0 && j <= k ? ((json_u128)m * POW5[k - j]) >> j : n / unit17;
        q17 = (uint64_t)qq;
        r17 = n - qq * unit17;
        diff = round_rest(q17 / 100, (json_u128)(q17 % 100) * unit17 + r17, unit17 * 100, 15, &q,
                          &x15, &up);
    } else {
        diff = round_to(n, nd, 15, &q, &x15, &up);
    }
    int ok = diff == 0;
    if (!ok) {
        /* Half the gap above v is 2^(e2-1) = g * 2^(e2+k-1) units of 10^-k; below v it is
         * half that when mant is 2^52 (the next binade down is finer). */
        int h = e2 + k - 1 - (!up && mant == (1ull << 52) && bexp > 1);
        int c; /* sign of diff - g * 2^h */
        if (h >= 0) {
            json_u128 rhs = g << h;
            c = diff < rhs ? -1 : diff > rhs;
        } else if (u128_bits(diff) - h > 120) { /* diff * 2^-h >= 2^120 > g */
            c = 1;
        } else {
            json_u128 lhs = diff << -h;
            c = lhs < g ? -1 : lhs > g;
        }
        ok = c < 0 || (c == 0 && !(mant & 1));
    }
    if (ok) {
        put_digits(q, 15, d);
        return put_g(out, v < 0, d, 15, x15, 15);
    }
    int x17 = nd - 1 - k;
    if (nd > 17)
        round_rest(q17, r17, unit17, 17, &q, &x17, &up);
    else
        round_to(n, nd, 17, &q, &x17, &up);
    put_digits(q, 17, d);
    return put_g(out, v < 0, d, 17, x17, 17);
}

#if defined(__GNUC__) && LDBL_MANT_DIG >= 64
/*
 * Any other double whose %.15g / %.17g needs no more than one long double (64-bit
 * significand) product: v * 10^s with |s| <= 27 (10^27 = 2^27 * 5^27 is exact in 64 bits),
 * so values from about 1e-12 to 1e42. The product's error is under 2^-64 of it: under
 * 0.0055 of a unit at 17 digits, 0.000055 at 15. Rounding half to even then needs only
 * the fraction's side of one half; a fraction within twice that error of one half (about
 * 1 value in 100 at 17 digits) is left to printf. Whether the 15 digits read back is
 * answered as strtod answers it when the decimal's exponent allows one exact IEEE product
 * or quotient (digits < 2^53 times or over 10^j, j <= 22: correctly rounded, Clinger's
 * fast path). XProf's times and rates (hlo_stats, op_profile) take this path; printf +
 * strtod cost ~9,000 instructions a value. Returns -1 when it cannot answer.
 */
static const long double LP10[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
};

/* A (positive, normal) rounded half to even to P (15 or 17) significant digits: *Q (P digits)
 * and *X (the decimal exponent of the first digit). 0 when the product cannot decide it. */
static int round_ldbl(double a, int e2, int p, uint64_t *q, int *x)
{
    /* floor(e2 * log10(2)), possibly one too low or high: corrected below */
    int xe = e2 >= 0 ? (e2 * 1233) >> 12 : -((-e2 * 1233 + 4095) >> 12);
    long double err = p == 17 ? 0.011L : 0.00011L;
    for (int tries = 0; tries < 3; tries++) {
        int s = p - 1 - xe;
        if (s > 27 || s < -27)
            return 0;
        long double y = s >= 0 ? (long double)a * LP10[s] : (long double)a / LP10[-s];
        if (y < LP10[p - 1]) {
            xe--;
            continue;
        }
        if (y >= LP10[p]) {
            xe++;
            continue;
        }
        uint64_t f = (uint64_t)y;
        long double frac = y - (long double)f; /* exact: f <= y < 2 f */
        if (frac > 0.5L - err && frac < 0.5L + err)
            return 0;
        if (frac > 0.5L)
            f++;
        if (f == (uint64_t)P10[p]) {
            f = (uint64_t)P10[p - 1];
            xe++;
        }
        *q = f;
        *x = xe;
        return 1;
    }
    return 0;
}

static int format_ldbl(char *out, size_t cap, double v)
{
    static const double D10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int bexp = (int)(bits >> 52 & 0x7ff);
    if (cap < 32 || bexp == 0 || bexp == 0x7ff)
        return -1;
    double a = fabs(v);
    uint64_t q;
    int x;
    char d[20];
    if (!round_ldbl(a, bexp - 1023, 15, &q, &x))
        return -1;
    int j = x - 14;
    if (j > 22 || j < -22)
        return -1;
    double back = j >= 0 ? (double)q * D10[j] : (double)q / D10[-j];
    if (back == a) {
        put_digits(q, 15, d);
        return put_g(out, v < 0, d, 15, x, 15);
    }
    if (!round_ldbl(a, bexp - 1023, 17, &q, &x))
        return -1;
    put_digits(q, 17, d);
    return put_g(out, v < 0, d, 17, x, 17);
}
#else
static int format_ldbl(char *out, size_t cap, double v)
{
    (void)out, (void)cap, (void)v;
    return -1;
}
#endif
#else
static int format_dyadic(char *out, size_t cap, double v)
{
    (void)out, (void)cap, (void)v;
    return -1;
}

static int format_ldbl(char *out, size_t cap, double v)
{
    (void)out, (void)cap, (void)v;
    return -1;
}
#endif

int json_format_double(char *out, size_t cap, double v)
{
    int fast = format_dyadic(out, cap, v);
    if (fast >= 0)
        return fast;
    fast = format_decimal_fast(out, cap, v);
    if (fast >= 0)
        return fast;
    fast = format_ldbl(out, cap, v);
    if (fast >= 0)
        return fast;
    int k = snprintf(out, cap, "%.15g", v);
    if (strtod(out, NULL) != v)
        k = snprintf(out, cap, "%.17g", v);
    return k;
}
