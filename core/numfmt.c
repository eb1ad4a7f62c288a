/* numfmt.c - see numfmt.h.
 *
 * Both formatters start from the same "shortest round-trip digits" of a
 * double and differ only in layout. The digits come from integer arithmetic
 * (Schubfach, the fast path below) and, for the few doubles it leaves, from
 * the reference search: printf's %.{p}e (correctly rounded by glibc) checked
 * with strtod on a string we build ourselves with no radix character
 * ("17976931348623157e292"), so neither depends on LC_NUMERIC even if a
 * caller did call setlocale. Tests hold the two to the same bytes. */
#include "core/numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 17 significant digits always round-trip an IEEE double. */
#define MAX_DIGITS 17

typedef struct {
    char d[MAX_DIGITS + 1]; /* significant digits, NUL-terminated, d[0] != '0' */
    int nd;                 /* number of digits                            */
    int exp10;              /* v = d[0].d[1]d[2]... x 10^exp10              */
} digits;

/* Does d (with `neg`) parse back to exactly v? */
static bool round_trips(const digits *g, bool neg, double v)
{
    char s[MAX_DIGITS + 16];
    /* Integer mantissa form: value = d * 10^(exp10 - nd + 1). */
    snprintf(s, sizeof s, "%s%se%d", neg ? "-" : "", g->d, g->exp10 - g->nd + 1);
    return strtod(s, NULL) == v;
}

/* Split printf's "%.*e" output into digits and exponent. Whatever character
 * the locale uses as the radix point is skipped, not interpreted. Trailing
 * zeros are kept: they matter for finding the neighbouring candidate. */
static void split_e(const char *s, digits *g)
{
    g->nd = 0;
    const char *p = s;
    if (*p == '-')
        p++;
    for (; *p && *p != 'e' && *p != 'E'; p++)
        if (*p >= '0' && *p <= '9' && g->nd < MAX_DIGITS)
            g->d[g->nd++] = *p;
    g->d[g->nd] = '\0';
    g->exp10 = (*p == 'e' || *p == 'E') ? atoi(p + 1) : 0;
}

static void strip_zeros(digits *g)
{
    while (g->nd > 1 && g->d[g->nd - 1] == '0')
        g->d[--g->nd] = '\0';
}

/* Step to the adjacent candidate with the same number of significant
 * digits, up (+1) or down (-1) one unit in the last place. */
static void nudge(digits *g, int delta)
{
    int i = g->nd - 1;
    if (delta > 0) {
        while (i >= 0 && g->d[i] == '9')
            g->d[i--] = '0';
        if (i < 0) { /* 9.9e4 -> 1.0e5 */
            g->d[0] = '1';
            g->exp10++;
        } else {
            g->d[i]++;
        }
    } else {
        while (i >= 0 && g->d[i] == '0')
            g->d[i--] = '9';
        g->d[i]--; /* i >= 0: d[0] != '0' for a non-zero value */
        if (g->d[0] == '0') { /* 1.0e5 -> 0.9e5: next below is 9.9e4 */
            memmove(g->d, g->d + 1, (size_t)g->nd - 1);
            g->d[g->nd - 1] = '9';
            g->exp10--;
        }
    }
}

/* Shortest digit string that strtod maps back to v (finite, non-zero), as
 * Python's repr picks it (David Gay's dtoa mode 0). For each length the
 * correctly rounded candidate is tried first; when v sits on a power-of-two
 * boundary its rounding interval is lopsided, so that candidate can fall
 * outside it on the narrow side while its neighbour across v is inside,
 * and that neighbour is then the shortest answer. */
static void shortest_digits_slow(double v, digits *out)
{
    bool neg = signbit(v);
    double a = fabs(v);
    char s[48];
    for (int p = 0; p < MAX_DIGITS; p++) {
        snprintf(s, sizeof s, "%.*e", p, a);
        split_e(s, out);
        if (round_trips(out, neg, v))
            break;
        char c[MAX_DIGITS + 16];
        snprintf(c, sizeof c, "%se%d", out->d, out->exp10 - out->nd + 1);
        digits across = *out;
        nudge(&across, strtod(c, NULL) > a ? -1 : +1);
        if (round_trips(&across, neg, v)) {
            *out = across;
            break;
        }
        /* p == 16 (17 digits) always round-trips, so the loop ends there. */
    }
    strip_zeros(out);
}

/* --- the fast path: the same digits with integer arithmetic ----------------------------
 *
 * The answer above is fixed by v's rounding interval: the shortest decimal
 * inside it (bounds included iff the significand is even, as strtod's
 * round-half-even decides), and of those the one closest to v, ties to even.
 * This computes it directly by Schubfach (R. Giulietti, "The Schubfach way to
 * render doubles", 2020; the algorithm of Java 19's Double.toString): with
 * v = c 2^q, k = floor(log10 2^q) makes the interval's width scaled by 10^-k
 * lie in [1, 10), so it holds at most one multiple of ten (then the shortest
 * answer, its zeros stripped) and always s = floor(v 10^-k) or s + 1 (then
 * the closer of the two). The scaling multiplies 4v and the two bounds by a
 * 126-bit g just above 10^-k (a table built at start-up from exact big-integer
 * arithmetic) and keeps the product's top bits rounded to odd, which the
 * paper proves exact enough for every double. The 20 smallest subnormals,
 * where s < 100, are left to the search above. */

#define K_MIN (-324) /* k = floor(log10 2^q) over every q of a double (q >= -1074) */
#define K_MAX 292    /* ... and q <= 971 */
#define POW5_N 325   /* 5^i, i <= -K_MIN                                       */

typedef struct {
    uint64_t g1, g0; /* g = g1 2^63 + g0, in (2^125, 2^126]: floor(10^-k 2^(125 - e)) + 1 */
    int e;           /* floor(log2 10^-k) */
} pow10_inv;

static pow10_inv g_table[K_MAX - K_MIN + 1]; /* by k - K_MIN */

#define BIG_LIMBS 34 /* 32-bit limbs: 2^1024 and 5^324 fit */

static int big_bitlen(const uint32_t *a)
{
    for (int i = BIG_LIMBS - 1; i >= 0; i--)
        if (a[i])
            return i * 32 + 32 - __builtin_clz(a[i]);
    return 0;
}

/* floor(a / 2^s), or a 2^-s for s < 0, into 128 bits (the caller makes sure it fits). */
static unsigned __int128 big_top(const uint32_t *a, int s)
{
    if (s < 0) /* a < 2^126 here */
        return ((unsigned __int128)a[3] << 96 | (unsigned __int128)a[2] << 64 | (unsigned __int128)a[1] << 32 |
                a[0])
               << -s;
    unsigned __int128 w = 0;
    for (int k = 3; k >= 0; k--) {
        int bit = s + 32 * k, i = bit / 32, r = bit % 32;
        uint64_t x = i < BIG_LIMBS ? a[i] : 0;
        if (r && i + 1 < BIG_LIMBS)
            x |= (uint64_t)a[i + 1] << 32;
        w = w << 32 | (uint32_t)(x >> r);
    }
    return w;
}

static void set_g(int k, unsigned __int128 top, int e)
{
    top += 1;
    pow10_inv *t = &g_table[k - K_MIN];
    t->g1 = (uint64_t)(top >> 63);
    t->g0 = (uint64_t)top & ((1ull << 63) - 1);
    t->e = e;
}

__attribute__((constructor)) static void numfmt_tables(void)
{
    /* 10^i for i = -k >= 0: the top 126 bits of 5^i, so 10^i 2^(125 - e) = top, e = s + i + 125. */
    uint32_t p[BIG_LIMBS] = {1}, d[BIG_LIMBS] = {0};
    for (int i = 0; i < POW5_N; i++) {
        int s = big_bitlen(p) - 126;
        set_g(-i, big_top(p, s), s + i + 125);
        uint64_t carry = 0;
        for (int k = 0; k < BIG_LIMBS; k++) {
            uint64_t x = (uint64_t)p[k] * 5 + carry;
            p[k] = (uint32_t)x;
            carry = x >> 32;
        }
    }
    /* 10^-j for j = k >= 1: floor(2^1024 / 5^j) (j = 0 is above), its top 126 bits
     * floor(2^(1024 - s) / 5^j) = 10^-j 2^(125 - e) with e = s - j - 899. */
    d[1024 / 32] = 1;
    for (int j = 1; j <= K_MAX; j++) {
        uint64_t rem = 0;
        for (int k = BIG_LIMBS - 1; k >= 0; k--) {
            uint64_t x = rem << 32 | d[k];
            d[k] = (uint32_t)(x / 5);
            rem = x % 5;
        }
        int s = big_bitlen(d) - 126;
        set_g(j, big_top(d, s), s - j - 899);
    }
}

/* "00" to "99": two digits per step. */
static const char DIGIT_PAIRS[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

/* u in decimal, its last digit just before q; returns its first digit. */
static char *pairs32(uint32_t u, char *q)
{
    while (u >= 100) {
        uint32_t r = u % 100;
        u /= 100;
        q -= 2;
        memcpy(q, DIGIT_PAIRS + 2 * r, 2);
    }
    if (u >= 10) {
        q -= 2;
        memcpy(q, DIGIT_PAIRS + 2 * u, 2);
    } else {
        *--q = (char)('0' + u);
    }
    return q;
}

/* u in decimal (20 digits at most), its last digit just before `end`; returns its first digit.
 * Eight digits at a time in 32-bit arithmetic, as two halves of four, each two pairs, so the
 * four divisions do not wait on one another; no digit count first. */
static char *u64_digits(uint64_t u, char *end)
{
    char *q = end;
    while (u >= 100000000) {
        uint32_t lo = (uint32_t)(u % 100000000);
        u /= 100000000;
        uint32_t hi4 = lo / 10000, lo4 = lo % 10000;
        q -= 8;
        memcpy(q, DIGIT_PAIRS + 2 * (hi4 / 100), 2);
        memcpy(q + 2, DIGIT_PAIRS + 2 * (hi4 % 100), 2);
        memcpy(q + 4, DIGIT_PAIRS + 2 * (lo4 / 100), 2);
        memcpy(q + 6, DIGIT_PAIRS + 2 * (lo4 % 100), 2);
    }
    return pairs32((uint32_t)u, q);
}

/* The digits of f x 10^k (f > 0, at most MAX_DIGITS digits once its trailing
 * zeros are gone). The zeros leave f before its digits are written: a short
 * decimal (0.515 is f = 5150000000000000) then writes only its own. */
static void set_digits(digits *out, uint64_t f, int k)
{
    while (f % 100000000 == 0) {
        f /= 100000000;
        k += 8;
    }
    while (f % 100 == 0) {
        f /= 100;
        k += 2;
    }
    if (f % 10 == 0) {
        f /= 10;
        k++;
    }
    char tmp[24], *end = tmp + sizeof tmp, *p = u64_digits(f, end);
    int nd = (int)(end - p);
    memcpy(out->d, p, (size_t)nd);
    out->d[nd] = '\0';
    out->nd = nd;
    out->exp10 = k + nd - 1;
}

/* Whole numbers from 1 up to 2^53: the interval around v is at most one unit wide, so
 * no other number of as few digits is in it: the digits are the integer's
 * (at most 16). */
static bool small_integer(double v, digits *out)
{
    double a = fabs(v);
    if (!(a >= 1 && a < 9007199254740992.0) || a != (double)(uint64_t)a)
        return false;
    set_digits(out, (uint64_t)a, 0);
    return true;
}

/* floor(g cp / 2^127), its lowest bit set when the bits below are not all 0
 * (rounding to odd), from g's two 63-bit halves; cp < 2^63. */
static uint64_t rop(const pow10_inv *g, uint64_t cp)
{
    unsigned __int128 x = (unsigned __int128)g->g0 * cp, y = (unsigned __int128)g->g1 * cp;
    uint64_t z = ((uint64_t)y >> 1) + (uint64_t)(x >> 64);
    uint64_t top = (uint64_t)(y >> 64) + (z >> 63);
    const uint64_t low63 = (1ull << 63) - 1;
    return top | (((z & low63) + low63) >> 63);
}

/* floor(log10 2^q) and floor(log10 (3/4) 2^q), |q| <= 1100, in fixed point
 * (the constants are log10 2 and log10 3/4 times 2^41, as in the paper); the
 * shift of a negative product must be arithmetic, to round down. */
_Static_assert((-3LL >> 1) == -2, "right shift of a negative integer rounds down");
static int floor_log10_pow2(int q) { return (int)(((int64_t)q * 661971961083LL) >> 41); }
static int floor_log10_three_quarters_pow2(int q) { return (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41); }

static bool fast_shortest(double v, digits *out)
{
    if (small_integer(v, out))
        return true;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t frac = bits & ((1ull << 52) - 1);
    int bexp = (int)((bits >> 52) & 0x7ff);
    uint64_t c = bexp ? frac | (1ull << 52) : frac;
    int q = (bexp ? bexp : 1) - 1075;
    /* The interval's bounds, times 4: (c -+ 1/2) 2^q, except that below a power of two
     * (c = 2^52, not the smallest exponent) the lower bound is half as far. */
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (frac != 0 || bexp <= 1) {
        cbl = cb - 2;
        k = floor_log10_pow2(q);
    } else {
        cbl = cb - 1;
        k = floor_log10_three_quarters_pow2(q);
    }
    const pow10_inv *g = &g_table[k - K_MIN];
    int h = q + g->e + 2; /* in [1, 4]: 4 v 10^-k = g cb 2^h / 2^127 */
    uint64_t vb = rop(g, cb << h), vbl = rop(g, cbl << h), vbr = rop(g, cbr << h);
    uint64_t odd = c & 1; /* an odd significand's bounds are outside the interval */
    uint64_t s = vb >> 2, f;
    if (s < 100)
        return false; /* the 20 smallest subnormals (c < 21): left to the search */
    uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
    bool upin = vbl + odd <= sp10 << 2, wpin = (tp10 << 2) + odd <= vbr;
    if (upin != wpin) {
        f = upin ? sp10 : tp10; /* the one multiple of ten in the interval */
    } else {
        uint64_t t = s + 1;
        bool uin = vbl + odd <= s << 2, win = (t << 2) + odd <= vbr;
        if (uin != win) {
            f = uin ? s : t;
        } else { /* both: the closer, ties to even */
            int64_t cmp = (int64_t)(vb - ((s + t) << 1));
            f = cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t;
        }
    }
    set_digits(out, f, k); /* f < 10 c < 10^17: at most 17 digits */
    return true;
}

static void shortest_digits(double v, digits *out)
{
    if (!fast_shortest(v, out))
        shortest_digits_slow(v, out);
}

/* Copy src into buf (size n), truncating; returns the length written. */
static int put(char *buf, size_t n, const char *src)
{
    if (n == 0)
        return 0;
    size_t len = strlen(src);
    if (len >= n)
        len = n - 1;
    memcpy(buf, src, len);
    buf[len] = '\0';
    return (int)len;
}

/* Lay out digits either as "d.ddde+XX" (C's %g style: sign and at least two
 * exponent digits, which is also Python's repr style) or positionally.
 * `point_zero`: positional integers get ".0" (Python) or nothing (C %g). */
static int layout(char *out, bool neg, const digits *g, bool sci, bool point_zero)
{
    char *o = out;
    if (neg)
        *o++ = '-';
    if (sci) {
        *o++ = g->d[0];
        if (g->nd > 1) {
            *o++ = '.';
            memcpy(o, g->d + 1, (size_t)g->nd - 1);
            o += g->nd - 1;
        }
        int e = g->exp10;
        *o++ = 'e';
        *o++ = e < 0 ? '-' : '+';
        if (e < 0)
            e = -e;
        if (e >= 100) /* "%02d": at least two digits; |e| <= 324 */
            *o++ = (char)('0' + e / 100);
        *o++ = (char)('0' + e / 10 % 10);
        *o++ = (char)('0' + e % 10);
    } else if (g->exp10 < 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -g->exp10 - 1; i++)
            *o++ = '0';
        memcpy(o, g->d, (size_t)g->nd);
        o += g->nd;
    } else {
        int intlen = g->exp10 + 1;
        for (int i = 0; i < intlen; i++)
            *o++ = i < g->nd ? g->d[i] : '0';
        if (g->nd > intlen) {
            *o++ = '.';
            memcpy(o, g->d + intlen, (size_t)(g->nd - intlen));
            o += g->nd - intlen;
        } else if (point_zero) {
            *o++ = '.';
            *o++ = '0';
        }
    }
    *o = '\0';
    return (int)(o - out);
}

typedef void (*digits_fn)(double v, digits *out);

static int format_double(char *buf, size_t n, double v, digits_fn shortest)
{
    if (!isfinite(v))
        return put(buf, n, "null");
    if (v == 0)
        return put(buf, n, signbit(v) ? "-0" : "0");
    digits g;
    shortest(v, &g);
    /* Same layout as the first of %.15g/%.16g/%.17g that round-trips: for
     * normal doubles that prints exactly these digits; %g switches to an
     * exponent when exp10 < -4 or exp10 >= precision. Subnormals come out
     * shorter ("5e-324", not "4.94065645841247e-324"). */
    int prec = g.nd > 15 ? g.nd : 15;
    bool sci = g.exp10 < -4 || g.exp10 >= prec;
    if (n >= 32) /* the longest layout is 24 characters: write in place */
        return layout(buf, signbit(v), &g, sci, false);
    char tmp[64];
    layout(tmp, signbit(v), &g, sci, false);
    return put(buf, n, tmp);
}

static int format_pyrepr(char *buf, size_t n, double v, digits_fn shortest)
{
    if (isnan(v))
        return put(buf, n, "nan"); /* Python prints NaN unsigned */
    if (isinf(v))
        return put(buf, n, v < 0 ? "-inf" : "inf");
    if (v == 0)
        return put(buf, n, signbit(v) ? "-0.0" : "0.0");
    digits g;
    shortest(v, &g);
    /* float_repr_style 'short': repr switches to an exponent iff the decimal
     * exponent is < -4 or >= 16 (Objects/floatobject.c, format code 'r'). */
    bool sci = g.exp10 < -4 || g.exp10 >= 16;
    if (n >= 32)
        return layout(buf, signbit(v), &g, sci, true);
    char tmp[64];
    layout(tmp, signbit(v), &g, sci, true);
    return put(buf, n, tmp);
}

int fmt_double(char *buf, size_t n, double v) { return format_double(buf, n, v, shortest_digits); }
int fmt_pyrepr(char *buf, size_t n, double v) { return format_pyrepr(buf, n, v, shortest_digits); }
int fmt_double_reference(char *buf, size_t n, double v) { return format_double(buf, n, v, shortest_digits_slow); }
int fmt_pyrepr_reference(char *buf, size_t n, double v) { return format_pyrepr(buf, n, v, shortest_digits_slow); }

/* Exact powers of ten as doubles (10^22 is the last one). */
static const double EXACT_POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* round(a x 10^k) for a > 0 when it is certain, a x 10^k being in [lo, hi): one
 * rounding in the product (or quotient) by an exact power of ten leaves it
 * within 2^-52 of the true value, so when it is further than 1e-6 from a
 * midpoint (and from lo and hi) the rounded integer is printf's. -1 otherwise. */
static long long scaled_round(double a, int k, double lo, double hi)
{
    if (k > 22 || k < -22)
        return -1;
    double y = k >= 0 ? a * EXACT_POW10[k] : a / EXACT_POW10[-k];
    if (!(y >= lo + 1e-6 && y < hi - 1e-6) || y >= 4503599627370496.0)
        return -1;
    long long i = (long long)y; /* y >= 0: truncation is floor */
    double frac = y - (double)i;
    if (fabs(frac - 0.5) < 1e-6)
        return -1;
    return i + (frac > 0.5);
}

/* printf("%.4g", v), exactly, from the shortest digits: rounding them to four
 * digits rounds v the same way unless they are exactly a five-digit midpoint
 * (d.ddd5: then v itself may lie on either side of it, and printf decides), as
 * any midpoint strictly between v and its shortest digits would have been
 * shorter or closer. Extreme and non-finite values go to printf too. */
int fmt_g4(char *buf, size_t n, double v)
{
    double a = fabs(v);
    if (!isfinite(v) || a < 1e-300 || a > 1e300 || n < FMT_G4_MAX)
        return snprintf(buf, n, "%.4g", v);
    char d[8] = {'0', '0', '0', '0'}; /* the four digits, then room for the unconditional copies below */
    /* Most values: the four digits of a x 10^(3 - e) rounded, when that is certain. */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int b2 = (int)(bits >> 52) - 1023; /* 2^b2 <= a < 2^(b2 + 1): a is normal here */
    int e = (b2 * 78913) >> 18;        /* floor(b2 log10 2) for |b2| < 2^11: 10^e <= a, or one less */
    if (a >= (e + 1 >= -22 && e + 1 <= 22 ? (e + 1 >= 0 ? EXACT_POW10[e + 1] : 1.0 / EXACT_POW10[-(e + 1)]) : INFINITY))
        e++; /* (a guess: a wrong one only sends the value to the exact path below) */
    long long r = scaled_round(a, 3 - e, 1000.0, 10000.0);
    if (r >= 1000 && r <= 9999) {
        unsigned u = (unsigned)r;
        d[0] = (char)('0' + u / 1000);
        d[1] = (char)('0' + u / 100 % 10);
        d[2] = (char)('0' + u / 10 % 10);
        d[3] = (char)('0' + u % 10);
    } else if (r == 10000) {
        d[0] = '1';
        e++;
    } else {
        digits g;
        shortest_digits(v, &g);
        if (g.nd == 5 && g.d[4] == '5')
            return snprintf(buf, n, "%.4g", v);
        memcpy(d, g.d, (size_t)(g.nd < 4 ? g.nd : 4));
        e = g.exp10;
        if (g.nd > 4 && g.d[4] >= '5') { /* above the midpoint: up */
            int i = 3;
            while (i >= 0 && d[i] == '9')
                d[i--] = '0';
            if (i < 0) {
                d[0] = '1';
                e++;
            } else {
                d[i]++;
            }
        }
    }
    int sig = 4; /* significant digits: d[sig..3] are '0' */
    while (sig > 1 && d[sig - 1] == '0')
        sig--;
    /* The digits are written whole and the end placed after the ones kept
     * (n >= FMT_G4_MAX leaves room for what lies beyond it). */
    char *p = buf;
    if (signbit(v))
        *p++ = '-';
    if (e >= 0 && e < 4) { /* %f with 3 - e decimals, trailing zeros dropped: d[0..e], '.', d[e+1..sig-1] */
        char *q = p;
        for (int i = 0; i < 4; i++) {
            if (i == e + 1)
                *q++ = '.';
            *q++ = d[i];
        }
        p += e + 1 + (sig > e + 1 ? 1 + sig - (e + 1) : 0);
    } else if (e < 0 && e >= -4) { /* "0.", -e - 1 zeros, the significant digits */
        memcpy(p, "0.000", 5);
        p += 2 + (-e - 1);
        memcpy(p, d, 4);
        p += sig;
    } else { /* %e with 3 decimals, trailing zeros dropped; at least two exponent digits */
        p[0] = d[0];
        p[1] = '.';
        memcpy(p + 2, d + 1, 3);
        p += sig > 1 ? sig + 1 : 1;
        *p++ = 'e';
        *p++ = e < 0 ? '-' : '+';
        int x = e < 0 ? -e : e;
        if (x >= 100)
            *p++ = (char)('0' + x / 100);
        *p++ = (char)('0' + x / 10 % 10);
        *p++ = (char)('0' + x % 10);
    }
    *p = '\0';
    return (int)(p - buf);
}

/* printf("%.*f", decimals, v), exactly, for 0 < |v| < 1e12 from the shortest
 * digits: the rounding interval of such a v (under 1.3e-4 wide) holds at most
 * one midpoint between two outputs, so rounding the shortest digits rounds v
 * the same way, unless they are that midpoint (then printf decides). */
int fmt_fixed(char *buf, size_t n, double v, int decimals)
{
    double a = fabs(v);
    if (!(a > 0 && a < 1e12) || decimals < 0 || decimals > 6 || n < 40)
        return snprintf(buf, n, "%.*f", decimals, v);
    if (a == floor(a)) { /* a whole number: its digits, then zeros */
        char tmp[24], *q = tmp + sizeof tmp;
        unsigned long long u = (unsigned long long)a;
        do {
            *--q = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        char *p = buf;
        if (signbit(v))
            *p++ = '-';
        memcpy(p, q, (size_t)(tmp + sizeof tmp - q));
        p += tmp + sizeof tmp - q;
        if (decimals > 0) {
            *p++ = '.';
            memset(p, '0', (size_t)decimals);
            p += decimals;
        }
        *p = '\0';
        return (int)(p - buf);
    }
    long long r = scaled_round(a, decimals, 0.0, 4e15); /* most values: a x 10^decimals rounded, when certain */
    if (r >= 0) {
        char tmp[24], *q = tmp + sizeof tmp;
        int k = 0;
        do { /* at least decimals + 1 digits */
            *--q = (char)('0' + r % 10);
            r /= 10;
            k++;
        } while (r || k <= decimals);
        char *p = buf;
        if (signbit(v))
            *p++ = '-';
        int int_digits = k - decimals;
        memcpy(p, q, (size_t)int_digits);
        p += int_digits;
        if (decimals > 0) {
            *p++ = '.';
            memcpy(p, q + int_digits, (size_t)decimals);
            p += decimals;
        }
        *p = '\0';
        return (int)(p - buf);
    }
    digits g;
    shortest_digits(v, &g);
    int keep = g.exp10 + 1 + decimals; /* digits of g before the rounding position */
    char d[MAX_DIGITS + 2];
    int nd; /* the kept digits, d[0] the most significant, at 10^(e) */
    int e = g.exp10;
    if (keep < 0) {
        nd = 0; /* below half a unit of the last decimal: zero */
    } else if (keep >= g.nd) {
        memcpy(d, g.d, (size_t)g.nd);
        for (int i = g.nd; i < keep; i++)
            d[i] = '0';
        nd = keep;
    } else {
        char next = g.d[keep];
        if (next == '5' && g.nd == keep + 1)
            return snprintf(buf, n, "%.*f", decimals, v); /* exactly a midpoint */
        memcpy(d, g.d, (size_t)keep);
        nd = keep;
        if (next >= '5') { /* up, carrying */
            int i = nd - 1;
            while (i >= 0 && d[i] == '9')
                d[i--] = '0';
            if (i < 0) {
                memmove(d + 1, d, (size_t)nd);
                d[0] = '1';
                nd++;
                e++;
            } else {
                d[i]++;
            }
        }
    }
    /* the value is d[0..nd) x 10^(e - nd + 1), nd digits ending at 10^-decimals */
    char *p = buf;
    if (signbit(v))
        *p++ = '-';
    int int_digits = nd - decimals; /* digits before the point (may be <= 0) */
    if (int_digits <= 0)
        *p++ = '0';
    for (int i = 0; i < int_digits; i++)
        *p++ = d[i];
    if (decimals > 0) {
        *p++ = '.';
        for (int i = int_digits; i < nd; i++)
            *p++ = i < 0 ? '0' : d[i];
    }
    *p = '\0';
    return (int)(p - buf);
}
