/* numfmt_ref.c - the reference shortest-digits formatter: the algorithm
 * core/numfmt.c used before the fast path (printf's %.{p}e candidates checked
 * with strtod, p = 0..16). Kept here, renamed, for two jobs: bench_core
 * times it against the library's fmt_double in the same run, and
 * `bench_core --verify N` checks that both give byte-identical text for N
 * random doubles (all exponents, powers of two, subnormals, short decimals). */

#include "bench/numfmt_ref.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
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
static void shortest_digits(double v, digits *out)
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
static void layout(char *out, bool neg, const digits *g, bool sci, bool point_zero)
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
        o += sprintf(o, "%02d", e);
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
}

int ref_fmt_double(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        return put(buf, n, "null");
    if (v == 0)
        return put(buf, n, signbit(v) ? "-0" : "0");
    digits g;
    shortest_digits(v, &g);
    /* Same layout as the first of %.15g/%.16g/%.17g that round-trips: for
     * normal doubles that prints exactly these digits; %g switches to an
     * exponent when exp10 < -4 or exp10 >= precision. Subnormals come out
     * shorter ("5e-324", not "4.94065645841247e-324"). */
    int prec = g.nd > 15 ? g.nd : 15;
    bool sci = g.exp10 < -4 || g.exp10 >= prec;
    char tmp[64];
    layout(tmp, signbit(v), &g, sci, false);
    return put(buf, n, tmp);
}

int ref_fmt_pyrepr(char *buf, size_t n, double v)
{
    if (isnan(v))
        return put(buf, n, "nan"); /* Python prints NaN unsigned */
    if (isinf(v))
        return put(buf, n, v < 0 ? "-inf" : "inf");
    if (v == 0)
        return put(buf, n, signbit(v) ? "-0.0" : "0.0");
    digits g;
    shortest_digits(v, &g);
    /* float_repr_style 'short': repr switches to an exponent iff the decimal
     * exponent is < -4 or >= 16 (Objects/floatobject.c, format code 'r'). */
    bool sci = g.exp10 < -4 || g.exp10 >= 16;
    char tmp[64];
    layout(tmp, signbit(v), &g, sci, true);
    return put(buf, n, tmp);
}
