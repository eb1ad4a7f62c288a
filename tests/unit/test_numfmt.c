/* test_numfmt.c - fmt_double (JSON numbers that round-trip), fmt_pyrepr
 * (Python 3 repr(float), which mlsysim's f-string messages print) and fmt_g4
 * (printf's %.4g, measured mode's trace terms).
 * The expected repr strings below were produced by CPython 3. */
#include <criterion/criterion.h>

#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"

typedef struct {
    double v;
    const char *s;
} fmt_case;

static const fmt_case PYREPR[] = {
    {0.0, "0.0"},
    {-0.0, "-0.0"},
    {1e-09, "1e-09"},
    {1.0, "1.0"},
    {0.1, "0.1"},
    {2039.0000000000002, "2039.0000000000002"},
    {1e16, "1e+16"},
    {1234567890123456.0, "1234567890123456.0"},
    {12345678901234567.0, "1.2345678901234568e+16"},
    {0.0001, "0.0001"},
    {0.00001, "1e-05"},
    {-1.5, "-1.5"},
    {5e-324, "5e-324"},
    {1.7976931348623157e+308, "1.7976931348623157e+308"},
    {-1.7976931348623157e+308, "-1.7976931348623157e+308"},
    {2.2250738585072014e-308, "2.2250738585072014e-308"},
    {1.1125369292536007e-308, "1.1125369292536007e-308"},
    {1.5e-323, "1.5e-323"},
    {1e22, "1e+22"},
    {1e23, "1e+23"},
    {9007199254740992.0, "9007199254740992.0"},
    {9999999999999998.0, "9999999999999998.0"},
    {1e15, "1000000000000000.0"},
    {1.5e16, "1.5e+16"},
    {0.3, "0.3"},
    {0.1 + 0.2, "0.30000000000000004"},
    {1.0 / 3, "0.3333333333333333"},
    {2.0 / 3, "0.6666666666666666"},
    {1.1 * 1.1, "1.2100000000000002"},
    {100.0, "100.0"},
    {256.0, "256.0"},
    {123456789012345.0, "123456789012345.0"},
    {312000000000000.0, "312000000000000.0"},
    {0.515, "0.515"},
    {13.971410256410255, "13.971410256410255"},
    {5e-05, "5e-05"},
    {3.0000000000000004e-05, "3.0000000000000004e-05"},
    {0.00724, "0.00724"},
    {4100000000.0, "4100000000.0"},
    {1e-07, "1e-07"},
    {123.456, "123.456"},
    {-0.0001, "-0.0001"},
    {2.5e-05, "2.5e-05"},
    {1e100, "1e+100"},
    {1e-100, "1e-100"},
    {6.02214076e23, "6.02214076e+23"},
    {299792458.0, "299792458.0"},
    {4.35, "4.35"},
    {8.98846567431158e+307, "8.98846567431158e+307"},
    {9.5367431640625e-07, "9.5367431640625e-07"},
    {1e21, "1e+21"},
    /* Powers of two whose rounding interval is lopsided: the correctly
     * rounded 16-digit string misses, its upper neighbour is Python's. */
    {0x1p-97, "6.310887241768095e-30"},
    {0x1p-140, "7.174648137343064e-43"},
    {0x1p405, "8.263199609878108e+121"},
    {-0x1p89, "-6.189700196426902e+26"},
};

Test(numfmt, pyrepr_table)
{
    char buf[64];
    for (size_t i = 0; i < sizeof PYREPR / sizeof PYREPR[0]; i++) {
        int n = fmt_pyrepr(buf, sizeof buf, PYREPR[i].v);
        cr_expect_str_eq(buf, PYREPR[i].s, "repr(%a)", PYREPR[i].v);
        cr_expect_eq(n, (int)strlen(buf));
    }
}

Test(numfmt, pyrepr_non_finite)
{
    char buf[32];
    fmt_pyrepr(buf, sizeof buf, INFINITY);
    cr_expect_str_eq(buf, "inf");
    fmt_pyrepr(buf, sizeof buf, -INFINITY);
    cr_expect_str_eq(buf, "-inf");
    fmt_pyrepr(buf, sizeof buf, NAN);
    cr_expect_str_eq(buf, "nan");
    fmt_pyrepr(buf, sizeof buf, -NAN);
    cr_expect_str_eq(buf, "nan");
}

Test(numfmt, pyrepr_integers_keep_point_zero)
{
    char buf[64], want[64];
    for (int k = 0; k < 16; k++) {
        double v = pow(10, k);
        fmt_pyrepr(buf, sizeof buf, v);
        snprintf(want, sizeof want, "%.0f.0", v);
        cr_expect_str_eq(buf, want);
    }
}

static const fmt_case DOUBLE[] = {
    {256.0, "256"},
    {0.0, "0"},
    {-0.0, "-0"},
    {1.0, "1"},
    {-1.5, "-1.5"},
    {0.1, "0.1"},
    {0.515, "0.515"},
    {13.971410256410255, "13.971410256410255"},
    {1e-09, "1e-09"},
    {0.0001, "0.0001"},
    {0.00001, "1e-05"},
    {312000000000000.0, "312000000000000"},
    {1e15, "1e+15"},
    {1e16, "1e+16"},
    {1234567890123456.0, "1234567890123456"},
    {12345678901234567.0, "12345678901234568"},
    {2039.0000000000002, "2039.0000000000002"},
    {5e-324, "5e-324"},
    {1.7976931348623157e+308, "1.7976931348623157e+308"},
    {0.1 + 0.2, "0.30000000000000004"},
    {85899345920.0, "85899345920"},
};

Test(numfmt, double_table)
{
    char buf[64];
    for (size_t i = 0; i < sizeof DOUBLE / sizeof DOUBLE[0]; i++) {
        int n = fmt_double(buf, sizeof buf, DOUBLE[i].v);
        cr_expect_str_eq(buf, DOUBLE[i].s, "fmt_double(%a)", DOUBLE[i].v);
        cr_expect_eq(n, (int)strlen(buf));
    }
}

Test(numfmt, double_non_finite_is_null)
{
    char buf[32];
    fmt_double(buf, sizeof buf, INFINITY);
    cr_expect_str_eq(buf, "null");
    fmt_double(buf, sizeof buf, -INFINITY);
    cr_expect_str_eq(buf, "null");
    fmt_double(buf, sizeof buf, NAN);
    cr_expect_str_eq(buf, "null");
}

/* RFC 8259 number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return false;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

/* Significant digits of a formatted number: "100.0" has 1, "0.00724" 3. */
static int sig_digits(const char *s)
{
    int first = -1, last = -1, pos = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s != '0') {
            if (first < 0)
                first = pos;
            last = pos;
        }
        pos++;
    }
    return first < 0 ? 0 : last - first + 1;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random bit patterns (all exponents, subnormals, powers of two) and random
 * short decimals: both formats parse back to the identical double. */
Test(numfmt, round_trip_random)
{
    char d[64], r[64], g[64];
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = rng();
        switch (i % 4) {
        case 1: /* powers of two: the lopsided-interval cases */
            bits &= 0xFFF0000000000000ull;
            break;
        case 2: /* subnormals */
            bits &= 0x800FFFFFFFFFFFFFull;
            break;
        case 3: { /* short decimals like 7.24e-3 */
            char t[32];
            snprintf(t, sizeof t, "%llue%d", (unsigned long long)(bits % 100000), (int)(rng() % 80) - 40);
            double x = strtod(t, NULL);
            memcpy(&bits, &x, sizeof bits);
            break;
        }
        default:
            break;
        }
        double v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        int nd = fmt_double(d, sizeof d, v);
        int nr = fmt_pyrepr(r, sizeof r, v);
        cr_assert_eq(nd, (int)strlen(d));
        cr_assert_eq(nr, (int)strlen(r));
        double pd = strtod(d, NULL), pr = strtod(r, NULL);
        cr_assert(memcmp(&pd, &v, sizeof v) == 0, "fmt_double(%a) = %s", v, d);
        cr_assert(memcmp(&pr, &v, sizeof v) == 0, "fmt_pyrepr(%a) = %s", v, r);
        cr_assert(json_number(d), "fmt_double(%a) = %s is not a JSON number", v, d);
        /* Never longer than the first of %.15g/%.16g/%.17g that round-trips. */
        for (int p = 15; p <= 17; p++) {
            snprintf(g, sizeof g, "%.*g", p, v);
            if (strtod(g, NULL) == v)
                break;
        }
        cr_assert(strlen(d) <= strlen(g), "fmt_double(%a) = %s, %%g gives %s", v, d, g);
        cr_assert(sig_digits(r) <= 17);
        /* One digit fewer never round-trips (shortest). */
        int sd = sig_digits(r);
        if (sd > 1) {
            snprintf(g, sizeof g, "%.*e", sd - 2, v);
            cr_assert(strtod(g, NULL) != v, "fmt_pyrepr(%a) = %s but %s also round-trips", v, r, g);
        }
    }
}

Test(numfmt, small_buffers_truncate)
{
    char buf[8];
    memset(buf, 'Z', sizeof buf);
    int n = fmt_double(buf, 4, 13.971410256410255);
    cr_expect_eq(n, 3);
    cr_expect_str_eq(buf, "13.");
    n = fmt_pyrepr(buf, 4, 2039.0000000000002);
    cr_expect_eq(n, 3);
    cr_expect_str_eq(buf, "203");
    n = fmt_pyrepr(buf, 1, 1.0);
    cr_expect_eq(n, 0);
    cr_expect_str_eq(buf, "");
    buf[0] = 'Z';
    n = fmt_double(buf, 0, 1.0);
    cr_expect_eq(n, 0);
    cr_expect_eq(buf[0], 'Z');
}

/* A locale with a decimal comma must not leak into the output. Criterion
 * runs each test in its own process, so setlocale here affects no other
 * test. Skipped where no such locale is installed. */
Test(numfmt, locale_independent)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8"};
    const char *got = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !got; i++)
        got = setlocale(LC_NUMERIC, names[i]);
    if (!got)
        cr_skip_test("no decimal-comma locale installed");
    char buf[64];
    fmt_pyrepr(buf, sizeof buf, 2039.0000000000002);
    cr_expect_str_eq(buf, "2039.0000000000002");
    fmt_pyrepr(buf, sizeof buf, 1.5e-9);
    cr_expect_str_eq(buf, "1.5e-09");
    fmt_double(buf, sizeof buf, 0.515);
    cr_expect_str_eq(buf, "0.515");
    setlocale(LC_NUMERIC, "C");
}

/* The fast exact path must print what the plain search prints (the algorithm
 * it replaced, kept as its fallback) for every kind of double: random bit
 * patterns (all exponents, subnormals), powers of two and short decimals. */
Test(numfmt, fast_path_agrees_with_the_reference_search)
{
    char a[40], b[40];
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = rng();
        double v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        fmt_double(a, sizeof a, v);
        fmt_double_reference(b, sizeof b, v);
        cr_assert_str_eq(a, b, "fmt_double of bits %016llx", (unsigned long long)bits);
        fmt_pyrepr(a, sizeof a, v);
        fmt_pyrepr_reference(b, sizeof b, v);
        cr_assert_str_eq(a, b, "fmt_pyrepr of bits %016llx", (unsigned long long)bits);
    }
    for (int e = -1074; e <= 1023; e++) {
        double v = ldexp(1.0, e);
        fmt_double(a, sizeof a, v);
        fmt_double_reference(b, sizeof b, v);
        cr_assert_str_eq(a, b, "2^%d", e);
    }
    for (int k = -300; k <= 300; k++) {
        double v = 7.24 * pow(10.0, k);
        fmt_pyrepr(a, sizeof a, v);
        fmt_pyrepr_reference(b, sizeof b, v);
        cr_assert_str_eq(a, b, "7.24e%d", k);
    }
    /* Decimals of 1 to 16 significant digits (and their neighbours one ulp away) times
     * 10^k: their digits drop eight, two and one at a time in every combination. */
    uint64_t pow10[17] = {1};
    for (int d = 1; d <= 16; d++)
        pow10[d] = pow10[d - 1] * 10;
    for (int i = 0; i < 40000; i++) {
        uint64_t m = 1 + rng() % (pow10[1 + rng() % 16] - 1);
        int k = (int)(rng() % 601) - 300;
        char lit[48];
        snprintf(lit, sizeof lit, "%llue%d", (unsigned long long)m, k);
        double v = strtod(lit, NULL);
        double near[3] = {v, nextafter(v, INFINITY), nextafter(v, 0.0)};
        for (int j = 0; j < 3; j++) {
            if (!isfinite(near[j]) || near[j] == 0)
                continue;
            fmt_double(a, sizeof a, near[j]);
            fmt_double_reference(b, sizeof b, near[j]);
            cr_assert_str_eq(a, b, "fmt_double of %s (%d ulp)", lit, j);
        }
    }
}

/* fmt_g4 is printf("%.4g") byte for byte: every branch (%f with and without
 * decimals, below 1, %e both ways, rounding up to the next power of ten,
 * decimal midpoints), then values of every size and their neighbours. */
Test(numfmt, g4_is_printf)
{
    static const double EDGES[] = {14.2,     37.47,   5.497,     0.0001,   0.00012345, 9.9995,  9.99949,  99995.0,
                                   1234.5,   1235.5,  0.5,       1e-5,     123456.0,   1e300,   1e-300,   2.5e-301,
                                   6776.123, 0.17785, 1027.4999, 211.85,   -14.85,     -0.0,    0.0,      1e22,
                                   1e23,     1e-22,   1e-23,     9999.5,   0.99995,    1.0005,  1.00049,  NAN,
                                   INFINITY, -INFINITY};
    char a[FMT_G4_MAX], b[64];
    for (size_t i = 0; i < sizeof EDGES / sizeof EDGES[0]; i++) {
        fmt_g4(a, sizeof a, EDGES[i]);
        snprintf(b, sizeof b, "%.4g", EDGES[i]);
        cr_expect_str_eq(a, b, "%a", EDGES[i]);
    }
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        if (i % 3 == 0) { /* a decimal midpoint d.ddd5e k, or the double nearest it */
            char t[40];
            snprintf(t, sizeof t, "%d.%03d5e%d", 1 + (int)(x % 9), (int)((x >> 8) % 1000), (int)((x >> 20) % 61) - 30);
            v = strtod(t, NULL);
        } else { /* any size and sign */
            uint64_t bits = x & ~(0x7ffull << 52);
            bits |= (uint64_t)(1 + (x >> 40) % 2046) << 52;
            memcpy(&v, &bits, sizeof v);
        }
        fmt_g4(a, sizeof a, v);
        snprintf(b, sizeof b, "%.4g", v);
        cr_assert_str_eq(a, b, "%a", v);
    }
}
