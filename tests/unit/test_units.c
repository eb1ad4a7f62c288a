/* test_units.c - the unit table (mlsysim's core/mlsysim_units.txt plus pint
 * built-ins, solvers.md §0.2), expression syntax, error reporting and
 * conversions of core/units.c.
 *
 * Values are compared exactly (==) where units.c promises the correctly
 * rounded decimal result ("7.24 ms" is the double 0.00724), so a regression
 * to "multiply by 1e-3" shows up here rather than as a last-digit drift in
 * a solver's output. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"

/* Parse text, require success and dimension d, return the SI value. */
static double si_of(const char *text, dimension d)
{
    quantity q;
    char err[256] = "";
    units_status st = units_parse(text, &q, err, sizeof err);
    cr_assert_eq(st, UNITS_OK, "units_parse(\"%s\") = %d: %s", text, st, err);
    char want[64], got[64];
    cr_assert(dim_eq(q.dim, d), "units_parse(\"%s\"): dimension %s, want %s", text,
              dim_format(q.dim, got, sizeof got), dim_format(d, want, sizeof want));
    return q.si;
}

static void expect_si(const char *text, dimension d, double want)
{
    double got = si_of(text, d);
    cr_expect(got == want, "units_parse(\"%s\") = %.17g, want %.17g", text, got, want);
}

/* Parse failure with the given status; returns the message for inspection. */
static const char *expect_fail(const char *text, units_status want, char *err, size_t n)
{
    quantity q = {.si = 12345};
    err[0] = '\0';
    units_status st = units_parse(text, &q, err, n);
    cr_expect_eq(st, want, "units_parse(\"%s\") = %d, want %d (%s)", text, st, want, err);
    cr_expect(err[0] != '\0', "units_parse(\"%s\") gave no message", text);
    return err;
}

static void expect_contains(const char *hay, const char *needle)
{
    cr_expect(strstr(hay, needle) != NULL, "message \"%s\" lacks \"%s\"", hay, needle);
}

typedef struct {
    const char *text;
    double si;
} case_t;

static void run_cases(const case_t *c, size_t n, dimension d)
{
    for (size_t i = 0; i < n; i++)
        expect_si(c[i].text, d, c[i].si);
}
#define RUN(cases, dim) run_cases(cases, sizeof cases / sizeof cases[0], dim)

/* ---------------------------------------------------------------- data */

Test(units, data_decimal)
{
    static const case_t c[] = {
        {"1 B", 1},      {"1 byte", 1},    {"3 bytes", 3},   {"1 kB", 1e3},   {"1 KB", 1e3},
        {"500 KB", 5e5}, {"1 MB", 1e6},    {"1 GB", 1e9},    {"80 GB", 8e10}, {"1 TB", 1e12},
        {"1 PB", 1e15},  {"1.5 PB", 1.5e15}, {"2.5 KB", 2500}, {"1.1 GB", 1.1e9}, {"0.3 MB", 3e5},
    };
    RUN(c, DIM_BYTES);
}

Test(units, data_binary)
{
    static const case_t c[] = {
        {"1 KiB", 1024.0},
        {"1 MiB", 1048576.0},
        {"1 GiB", 1073741824.0},
        {"1 TiB", 1099511627776.0},
        {"1 PiB", 1125899906842624.0},
        {"80 GiB", 85899345920.0},
        {"80GiB", 85899345920.0},
        {"0.5 KiB", 512.0},
    };
    RUN(c, DIM_BYTES);
}

Test(units, bits)
{
    static const case_t c[] = {
        {"1 bit", 0.125},   {"8 bits", 1},       {"1 kbit", 125},        {"1 Kbit", 125},
        {"1 Mbit", 125000}, {"1 Gbit", 1.25e8},  {"1 Tbit", 1.25e11},    {"16 bits", 2},
    };
    RUN(c, DIM_BYTES);
}

Test(units, line_rates)
{
    static const case_t c[] = {
        {"1 bps", 0.125},     {"1 kbps", 125},       {"1 Kbps", 125},       {"1 Mbps", 125000},
        {"1 Gbps", 1.25e8},   {"400 Gbps", 5e10},    {"1 Tbps", 1.25e11},   {"100 Gbps", 1.25e10},
        {"8 bit/s", 1},       {"1 Gbit/s", 1.25e8},
    };
    RUN(c, DIM_BYTE_RATE);
}

Test(units, data_rates)
{
    static const case_t c[] = {
        {"2 GB/s", 2e9},
        {"2 GB / s", 2e9},
        {"2GB/s", 2e9},
        {"2 GB /s", 2e9},
        {"2 GB/ s", 2e9},
        {"2039 GB/s", 2.039e12},
        {"900 GB/s", 9e11},
        {"1 TB / h", 1e12 / 3600},
        {"1 TB/hour", 1e12 / 3600},
        {"1 GB / second", 1e9},
        {"1 GB/ms", 1e12},
        {"1 GiB/s", 1073741824.0},
        {"3.35 TB/s", 3.35e12},
        {"1 B/s", 1},
    };
    RUN(c, DIM_BYTE_RATE);
}

/* ---------------------------------------------------------------- time */

Test(units, time_names)
{
    static const case_t c[] = {
        {"1 s", 1},
        {"1 sec", 1},
        {"1 second", 1},
        {"2 seconds", 2},
        {"1 ms", 1e-3},
        {"1 MS", 1e-3},
        {"1 millisecond", 1e-3},
        {"2 milliseconds", 2e-3},
        {"1 us", 1e-6},
        {"1 US", 1e-6},
        {"1 \xC2\xB5s", 1e-6}, /* MICRO SIGN */
        {"1 \xCE\xBCs", 1e-6}, /* GREEK SMALL LETTER MU */
        {"1 microsecond", 1e-6},
        {"2 microseconds", 2e-6},
        {"1 ns", 1e-9},
        {"1 NS", 1e-9},
        {"1 nanosecond", 1e-9},
        {"2 nanoseconds", 2e-9},
        {"1 min", 60},
        {"1 minute", 60},
        {"2 minutes", 120},
        {"1 h", 3600},
        {"1 hr", 3600},
        {"1 hour", 3600},
        {"2 hours", 7200},
        {"1 d", 86400},
        {"1 day", 86400},
        {"2 days", 172800},
        {"1 week", 604800},
        {"1 year", 31557600},
        {"1 month", 2629800},
    };
    RUN(c, DIM_TIME);
}

Test(units, time_exact_decimals)
{
    /* Decimal prefixes are folded into the number before rounding. */
    static const case_t c[] = {
        {"7.24 ms", 0.00724}, {"0.01 ms", 1e-5},   {"15 us", 1.5e-5},  {"0.1 ms", 1e-4},
        {"3.3 ns", 3.3e-9},   {"667.9 ms", 0.6679}, {"1.7 us", 1.7e-6}, {"0.667935262 ms", 0.000667935262},
    };
    RUN(c, DIM_TIME);
}

/* ---------------------------------------------------------------- flop */

Test(units, flop_counts)
{
    static const case_t c[] = {
        {"1 flop", 1},       {"1 flops", 1},       {"1 FLOP", 1},         {"1 FLOPs", 1},
        {"1 FLOPS", 1},      {"1 KFLOP", 1e3},     {"1 kFLOP", 1e3},      {"1 KFLOPs", 1e3},
        {"1 MFLOP", 1e6},    {"1 MFLOPs", 1e6},    {"4.1 GFLOP", 4.1e9},  {"1 GFLOPs", 1e9},
        {"1 TFLOP", 1e12},   {"1 TFLOPs", 1e12},   {"1 TFLOPS", 1e12},    {"1 PFLOP", 1e15},
        {"1 PFLOPs", 1e15},  {"1 EFLOP", 1e18},    {"1 EFLOPs", 1e18},    {"1 ZFLOP", 1e21},
        {"1 ZFLOPs", 1e21},  {"1 tflop", 1e12},    {"1 Tflops", 1e12},    {"1 tFlOpS", 1e12},
        {"1 gflop", 1e9},    {"1 Flop", 1},        {"2.5 zflops", 2.5e21}, {"1EFLOP", 1e18},
        {"6e23 flop", 6e23},
    };
    RUN(c, DIM_OPS);
}

Test(units, flop_rates)
{
    static const case_t c[] = {
        {"312 TFLOPs/s", 3.12e14},
        {"312 TFLOP/s", 3.12e14},
        {"312 TFLOPS/s", 3.12e14},
        {"312 TFLOPs / s", 3.12e14},
        {"989 TFLOP/s", 9.89e14},
        {"1 flop/s", 1},
        {"1 GFLOP/ms", 1e12},
        {"1 OPS", 1},
        {"1 KOPS", 1e3},
        {"1 kOPS", 1e3},
        {"1 MOPS", 1e6},
        {"1 GOPS", 1e9},
        {"1 TOPS", 1e12},
        {"275 TOPS", 2.75e14},
        {"1 POPS", 1e15},
    };
    RUN(c, DIM_OPS_RATE);
}

Test(units, tflops_is_a_count_not_a_rate)
{
    /* The units file: "TFLOPs" is a COUNT of 1e12 flop; rates need "/s". */
    cr_expect_eq(si_of("1 TFLOPs", DIM_OPS), si_of("1 TFLOP", DIM_OPS));
    cr_expect_eq(si_of("312 TFLOPs/s", DIM_OPS_RATE), si_of("312 TOPS", DIM_OPS_RATE));
}

Test(units, intensity)
{
    expect_si("1 flop/B", DIM_INTENSITY, 1);
    expect_si("1 FLOP/byte", DIM_INTENSITY, 1);
    expect_si("156 flop/B", DIM_INTENSITY, 156);
    expect_si("1 TFLOP/GB", DIM_INTENSITY, 1e3);
}

/* -------------------------------------------------- power, energy, freq */

Test(units, power)
{
    static const case_t c[] = {
        {"1 W", 1},      {"400 W", 400},   {"1 watt", 1},    {"1 mW", 1e-3},     {"1 kW", 1e3},
        {"1 MW", 1e6},   {"1 GW", 1e9},    {"1 J/s", 1},     {"700 W", 700},     {"1 kWh/h", 1e3},
    };
    RUN(c, DIM_POWER);
}

Test(units, energy)
{
    static const case_t c[] = {
        {"1 J", 1},         {"3.6 J", 3.6},      {"1 mJ", 1e-3},   {"1 kJ", 1e3},     {"1 MJ", 1e6},
        {"1 Wh", 3600},     {"1 kWh", 3.6e6},    {"1 MWh", 3.6e9}, {"1 W*h", 3600},   {"1 W\xC2\xB7h", 3600},
        {"1 W * h", 3600},  {"1 kW*h", 3.6e6},   {"2 W*s", 2},     {"1 pJ", 1e-12},   {"1 uJ", 1e-6},
    };
    RUN(c, DIM_ENERGY);
    /* W·hour -> kWh divides by 1000 (solvers.md §0.2). */
    double kwh = 0;
    cr_expect(units_to(si_of("1500 W*h", DIM_ENERGY), "kWh", DIM_ENERGY, &kwh));
    cr_expect_float_eq(kwh, 1.5, 1e-15);
}

Test(units, frequency)
{
    static const case_t c[] = {
        {"1 Hz", 1}, {"1 kHz", 1e3}, {"1 MHz", 1e6}, {"1.98 GHz", 1.98e9}, {"2 / second", 2}, {"2 /s", 2},
        {"2 1/s", 2}, {"3 s^-1", 3},
    };
    RUN(c, DIM_FREQUENCY);
}

/* ---------------------------------------------------- money, counts, mass */

Test(units, money)
{
    static const case_t c[] = {
        {"15000 USD", 15000}, {"1 dollar", 1}, {"2 dollars", 2}, {"3 EUR", 3}, {"3EUR", 3},
    };
    RUN(c, DIM_MONEY);
    cr_expect_float_eq(si_of("0.12 USD/kWh", (dimension){{[DIM_USD] = 1, [DIM_J] = -1}}), 0.12 / 3.6e6, 1e-25);
}

Test(units, counts)
{
    static const case_t c[] = {
        {"1 param", 1},      {"7e9 param", 7e9},   {"2 params", 2},      {"1 Kparam", 1e3},  {"1 Mparam", 1e6},
        {"7 Bparam", 7e9},   {"1 Tparam", 1e12},   {"1 token", 1},       {"2 tokens", 2},    {"3 count", 3},
        {"1 sample", 1},     {"2 samples", 2},     {"1 Mtoken", 1e6},
    };
    RUN(c, DIM_COUNTS);
    expect_si("1000 token/s", (dimension){{[DIM_COUNT] = 1, [DIM_S] = -1}}, 1000);
}

Test(units, mass)
{
    expect_si("1 kg", DIM_MASS, 1);
    expect_si("500 g", DIM_MASS, 0.5);
    expect_si("1 g", DIM_MASS, 1e-3);
}

/* ------------------------------------------------------ syntax variants */

Test(units, expressions)
{
    expect_si("1 B/s^2", (dimension){{[DIM_B] = 1, [DIM_S] = -2}}, 1);
    expect_si("1 B/s**2", (dimension){{[DIM_B] = 1, [DIM_S] = -2}}, 1);
    expect_si("1 B/(s*s)", (dimension){{[DIM_B] = 1, [DIM_S] = -2}}, 1);
    expect_si("1 B / s ^ 2", (dimension){{[DIM_B] = 1, [DIM_S] = -2}}, 1);
    expect_si("1 s^(-1)", DIM_FREQUENCY, 1);
    expect_si("2 ms^2", (dimension){{[DIM_S] = 2}}, 2e-6);
    expect_si("1 KB^2", (dimension){{[DIM_B] = 2}}, 1e6);
    expect_si("1 s^0", DIM_NONE, 1);
    /* Left to right, as pint: J/s*h is (J/s)*h. */
    expect_si("1 J/s*h", DIM_ENERGY, 3600);
    expect_si("1 GB/s/s", (dimension){{[DIM_B] = 1, [DIM_S] = -2}}, 1e9);
    expect_si("4 B/B", DIM_NONE, 4);
    expect_si("1 W\xE2\x8B\x85h", DIM_ENERGY, 3600); /* U+22C5 DOT OPERATOR */
    expect_si("1 W\xC3\x97h", DIM_ENERGY, 3600);     /* U+00D7 MULTIPLICATION SIGN */
}

Test(units, spacing)
{
    expect_si("500KB", DIM_BYTES, 5e5);
    expect_si("  500 KB  ", DIM_BYTES, 5e5);
    expect_si("\t7.24ms\n", DIM_TIME, 0.00724);
    expect_si("2   GB   /   s", DIM_BYTE_RATE, 2e9);
    expect_si(" \r\n\v\f1 s", DIM_TIME, 1);
}

Test(units, numbers)
{
    static const case_t c[] = {
        {"1e3", 1e3},      {".5", 0.5},      {"-2", -2},        {"+3", 3},       {"1.", 1},
        {"1E3", 1e3},      {"1e+3", 1e3},    {"1e-3", 1e-3},    {"0", 0},        {"007", 7},
        {"  42  ", 42},    {"1.5e-7", 1.5e-7}, {"123456789012345678901234567890", 1.2345678901234568e+29},
        {"0.1", 0.1},      {"2.2250738585072014e-308", 2.2250738585072014e-308},
        {"1.7976931348623157e308", 1.7976931348623157e308},
    };
    RUN(c, DIM_NONE);
    expect_si("-2 s", DIM_TIME, -2);
    expect_si("+3 s", DIM_TIME, 3);
    expect_si("1e-3 s", DIM_TIME, 1e-3);
    expect_si("2.5e3 B", DIM_BYTES, 2500);
    expect_si("1e3KB", DIM_BYTES, 1e6);
    cr_expect(signbit(si_of("-0 B", DIM_BYTES)));
    /* Underflow is a tiny number, not an error. */
    expect_si("1e-400 s", DIM_TIME, 0);
}

Test(units, long_mantissa_rounds_correctly)
{
    /* 0.5 + 2^-54 is exactly halfway between 0.5 and the next double:
     * ties-to-even gives 0.5. A non-zero digit far beyond the 800 digits
     * units.c hands to strtod must still tip it upwards. */
    static char buf[2000];
    snprintf(buf, sizeof buf, "0.500000000000000055511151231257827021181583404541015625");
    expect_si(buf, DIM_NONE, 0.5); /* halfway between 0.5 and next: ties to even */
    /* The same plus a 1 in the 900th decimal: just above halfway, rounds up. */
    size_t len = strlen(buf);
    while (len < 900)
        buf[len++] = '0';
    buf[len++] = '1';
    buf[len] = '\0';
    expect_si(buf, DIM_NONE, nextafter(0.5, 1));
    /* Many trailing zeros do not matter. */
    len = strlen("0.5");
    memcpy(buf, "0.5", len);
    while (len < 1500)
        buf[len++] = '0';
    memcpy(buf + len, " GB", 4);
    expect_si(buf, DIM_BYTES, 5e8);
}

/* ------------------------------------------------------------- failures */

Test(units, empty_and_blank)
{
    char err[256];
    expect_fail("", UNITS_EMPTY, err, sizeof err);
    expect_contains(err, "expected");
    expect_fail("   ", UNITS_EMPTY, err, sizeof err);
    expect_fail("\t\n", UNITS_EMPTY, err, sizeof err);
    quantity q;
    cr_expect_eq(units_parse(NULL, &q, err, sizeof err), UNITS_EMPTY);
}

Test(units, non_finite_literals)
{
    static const char *const bad[] = {"NaN", "nan", "NAN GB", "Infinity", "-Infinity", "inf", "+inf s",
                                      "-inf", "INF B", "nan(0x1)"};
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_fail(bad[i], UNITS_BAD_NUMBER, err, sizeof err);
        expect_contains(err, "not a finite number");
    }
    expect_fail("Infinity GB/s", UNITS_BAD_NUMBER, err, sizeof err);
    expect_contains(err, "\"Infinity\"");
}

Test(units, garbage)
{
    char err[256];
    expect_fail("abc", UNITS_BAD_NUMBER, err, sizeof err);
    expect_contains(err, "\"abc\"");
    expect_fail("GB", UNITS_BAD_NUMBER, err, sizeof err);
    expect_fail("--5 s", UNITS_BAD_NUMBER, err, sizeof err);
    expect_fail(".", UNITS_BAD_NUMBER, err, sizeof err);
    expect_fail("-", UNITS_BAD_NUMBER, err, sizeof err);
    expect_fail("e5", UNITS_BAD_NUMBER, err, sizeof err);
    expect_fail("/s", UNITS_BAD_NUMBER, err, sizeof err);

    expect_fail("5 GB //s", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_contains(err, "\"/s\"");
    expect_contains(err, "\"5 GB //s\"");
    expect_fail("1,000 B", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_contains(err, "thousands");
    expect_fail("1 000 B", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("1.5.3 B", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB s", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB/", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB*", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 (GB", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB)", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB^", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB^x", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB^1.5", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB!", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 GB 5", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 s^1000", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 s^99*s^99", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_fail("5 ((((((((((((((((((((s))))))))))))))))))))", UNITS_BAD_SYNTAX, err, sizeof err);
    expect_contains(err, "nested");
    expect_fail("5 \xC2\xB5", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_fail("5 %", UNITS_BAD_SYNTAX, err, sizeof err);
}

Test(units, unknown_units)
{
    char err[256];
    expect_fail("2 GBs", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_contains(err, "unknown unit \"GBs\" in \"2 GBs\"");
    expect_contains(err, "expected a unit such as");
    expect_contains(err, "GB/s");
    expect_fail("2 GBps", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_contains(err, "did you mean \"GB/s\"");
    expect_fail("2 gb", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_contains(err, "did you mean \"GB\"");
    expect_fail("2 furlong", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_contains(err, "\"furlong\"");
    expect_fail("2 GB/fortnight", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_contains(err, "\"fortnight\"");
    expect_fail("0x10 B", UNITS_UNKNOWN_UNIT, err, sizeof err); /* no hex floats */
    expect_fail("1 b", UNITS_UNKNOWN_UNIT, err, sizeof err);    /* bit or byte? neither */
    expect_fail("1 mflops/s/x", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_fail("1 kflopss", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_fail("1 xflop", UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_fail("1 tops", UNITS_UNKNOWN_UNIT, err, sizeof err); /* OPS family is case-sensitive */
}

Test(units, overflow)
{
    char err[256];
    expect_fail("1e400 B", UNITS_OVERFLOW, err, sizeof err);
    expect_contains(err, "\"1e400\"");
    expect_fail("1e300 PB", UNITS_OVERFLOW, err, sizeof err);
    expect_contains(err, "\"1e300 PB\"");
    expect_fail("1e308 TB", UNITS_OVERFLOW, err, sizeof err);
    expect_fail("-1e400", UNITS_OVERFLOW, err, sizeof err);
    expect_fail("1e99999999999999999999 s", UNITS_OVERFLOW, err, sizeof err);
    expect_fail("1.8e308", UNITS_OVERFLOW, err, sizeof err);
    expect_fail("1 PB^30", UNITS_OVERFLOW, err, sizeof err);
    expect_fail("1 EiB^20", UNITS_OVERFLOW, err, sizeof err);
    expect_fail("1e300 EiB*EiB", UNITS_OVERFLOW, err, sizeof err);
}

Test(units, messages_are_bounded_and_valid_utf8)
{
    /* Control bytes and broken UTF-8 are not echoed raw (messages go into JSON). */
    char err[256];
    expect_fail("5 \x01\x02 GB", UNITS_BAD_SYNTAX, err, sizeof err);
    cr_expect(strchr(err, '\x01') == NULL);
    expect_fail("5 GB\xff", UNITS_BAD_SYNTAX, err, sizeof err);
    cr_expect(strchr(err, '\xff') == NULL);
    /* A long input is shortened, the message still ends in the hint. */
    char lng[400];
    memset(lng, 'x', sizeof lng - 1);
    lng[0] = '1';
    lng[1] = ' ';
    lng[sizeof lng - 1] = '\0';
    expect_fail(lng, UNITS_UNKNOWN_UNIT, err, sizeof err);
    expect_contains(err, "...");
    expect_contains(err, "expected a unit such as");
    /* Tiny and absent buffers. */
    char small[8];
    memset(small, 'Z', sizeof small);
    quantity q;
    cr_expect_eq(units_parse("2 GBs", &q, small, sizeof small), UNITS_UNKNOWN_UNIT);
    cr_expect_eq(small[7], '\0');
    cr_expect_eq(units_parse("2 GBs", &q, NULL, 0), UNITS_UNKNOWN_UNIT);
    cr_expect_eq(units_parse("2 GB", NULL, NULL, 0), UNITS_OK);
}

/* Bytes from a fixed-seed xorshift: no crash, no overrun (run under ASan),
 * every message NUL-terminated and free of control bytes. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

Test(units, random_input_is_safe)
{
    static const char alphabet[] = "0123456789.eE+-/*^() \tBKMGTPiskmunhdWJHzflopOPSUDE\xC2\xB5\xB7";
    char text[40], err[128];
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = rng() % (sizeof text - 1);
        for (size_t i = 0; i < len; i++)
            text[i] = (iter & 1) ? alphabet[rng() % (sizeof alphabet - 1)] : (char)(rng() % 255 + 1);
        text[len] = '\0';
        quantity q;
        memset(err, 'Z', sizeof err);
        units_status st = units_parse(text, &q, err, sizeof err);
        cr_assert(memchr(err, '\0', sizeof err) != NULL);
        if (st == UNITS_OK) {
            cr_assert(isfinite(q.si), "\"%s\" gave a non-finite value", text);
            cr_assert_eq(err[0], '\0');
        } else {
            for (const char *p = err; *p; p++)
                cr_assert((unsigned char)*p >= 0x20, "control byte in message for input %d", iter);
        }
    }
}

/* ------------------------------------------------------ units_parse_as */

Test(units, parse_as_dimension_error)
{
    char err[256];
    double v = 0;
    cr_expect_eq(units_parse_as("5 ms", DIM_BYTE_RATE, "GB/s", &v, err, sizeof err), UNITS_DIMENSION);
    cr_expect_str_eq(err, "expected a data rate (e.g. \"2 GB/s\"), got \"5 ms\" (a time)");
    cr_expect_eq(units_parse_as("4.1 GFLOP", DIM_TIME, "ms", &v, err, sizeof err), UNITS_DIMENSION);
    cr_expect_str_eq(err, "expected a time (e.g. \"7.24 ms\"), got \"4.1 GFLOP\" (operations)");
    cr_expect_eq(units_parse_as("312 TFLOPs", DIM_OPS_RATE, "TFLOP/s", &v, err, sizeof err), UNITS_DIMENSION);
    cr_expect_str_eq(err, "expected a compute rate (e.g. \"312 TFLOP/s\"), got \"312 TFLOPs\" (operations)");
    cr_expect_eq(units_parse_as("3 B/B", DIM_BYTES, "B", &v, err, sizeof err), UNITS_DIMENSION);
    expect_contains(err, "(dimensionless)");
    cr_expect_eq(units_parse_as("3 B*s", DIM_BYTES, "B", &v, err, sizeof err), UNITS_DIMENSION);
    expect_contains(err, "(a quantity in B*s)");
    cr_expect_eq(units_parse_as("5 USD", DIM_COUNTS, "param", &v, err, sizeof err), UNITS_DIMENSION);
    expect_contains(err, "(money)");
    cr_expect_eq(units_parse_as("400 W", DIM_ENERGY, "J", &v, err, sizeof err), UNITS_DIMENSION);
    cr_expect_str_eq(err, "expected an energy (e.g. \"3.6 J\"), got \"400 W\" (a power)");
}

Test(units, parse_as_values)
{
    char err[256];
    double v = 0;
    cr_expect_eq(units_parse_as("2 GB/s", DIM_BYTE_RATE, "GB/s", &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 2e9);
    cr_expect_eq(err[0], '\0');
    cr_expect_eq(units_parse_as("400 Gbps", DIM_BYTE_RATE, "GB/s", &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 5e10);
    /* Bare numbers are in the bare unit, with the same exact decimal folding. */
    cr_expect_eq(units_parse_as("5", DIM_BYTE_RATE, "GB/s", &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 5e9);
    cr_expect_eq(units_parse_as("7.24", DIM_TIME, "ms", &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 0.00724, "%.17g", v);
    cr_expect_eq(units_parse_as("1", DIM_BYTE_RATE, "TB/h", &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 1e12 / 3600);
    cr_expect_eq(units_parse_as("2", DIM_ENERGY, "kWh", &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 7.2e6);
    /* No bare unit: SI base. */
    cr_expect_eq(units_parse_as("3", DIM_TIME, NULL, &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 3);
    cr_expect_eq(units_parse_as("0.25", DIM_NONE, NULL, &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 0.25);
    cr_expect_eq(units_parse_as("15000", DIM_MONEY, "USD", &v, err, sizeof err), UNITS_OK);
    cr_expect(v == 15000);
    cr_expect_eq(units_parse_as("2 GB/s", DIM_BYTE_RATE, "GB/s", &v, NULL, 0), UNITS_OK);
}

Test(units, parse_as_errors_say_what_is_expected)
{
    char err[256];
    double v = 0;
    cr_expect_eq(units_parse_as("", DIM_TIME, "ms", &v, err, sizeof err), UNITS_EMPTY);
    expect_contains(err, "expected a time (e.g. \"7.24 ms\")");
    cr_expect_eq(units_parse_as("2 GBs", DIM_BYTE_RATE, "GB/s", &v, err, sizeof err), UNITS_UNKNOWN_UNIT);
    expect_contains(err, "unknown unit \"GBs\"");
    expect_contains(err, "expected a data rate");
    cr_expect_eq(units_parse_as("NaN", DIM_TIME, "s", &v, err, sizeof err), UNITS_BAD_NUMBER);
    cr_expect_eq(units_parse_as("1e300 PB/s", DIM_BYTE_RATE, "GB/s", &v, err, sizeof err), UNITS_OVERFLOW);
    cr_expect_eq(units_parse_as("1e300", DIM_BYTE_RATE, "PB/s", &v, err, sizeof err), UNITS_OVERFLOW);
    /* A bare unit of the wrong dimension is the caller's bug, still reported. */
    cr_expect_eq(units_parse_as("1", DIM_TIME, "GB", &v, err, sizeof err), UNITS_DIMENSION);
    expect_contains(err, "\"GB\"");
}

/* ------------------------------------------- units_parse_unit, units_to */

Test(units, parse_unit)
{
    double f = 0;
    dimension d;
    char err[256];
    cr_expect_eq(units_parse_unit("GB/s", &f, &d, err, sizeof err), UNITS_OK);
    cr_expect(f == 1e9 && dim_eq(d, DIM_BYTE_RATE));
    cr_expect_eq(units_parse_unit("ms", &f, &d, err, sizeof err), UNITS_OK);
    cr_expect(f == 1e-3 && dim_eq(d, DIM_TIME));
    cr_expect_eq(units_parse_unit(" kWh ", &f, &d, err, sizeof err), UNITS_OK);
    cr_expect(f == 3.6e6 && dim_eq(d, DIM_ENERGY));
    cr_expect_eq(units_parse_unit("TFLOPs/s", &f, &d, err, sizeof err), UNITS_OK);
    cr_expect(f == 1e12 && dim_eq(d, DIM_OPS_RATE));
    cr_expect_eq(units_parse_unit("1/s", &f, &d, err, sizeof err), UNITS_OK);
    cr_expect(f == 1 && dim_eq(d, DIM_FREQUENCY));
    cr_expect_eq(units_parse_unit("Gbps", &f, &d, err, sizeof err), UNITS_OK);
    cr_expect(f == 1.25e8 && dim_eq(d, DIM_BYTE_RATE));
    cr_expect_eq(units_parse_unit("", &f, &d, err, sizeof err), UNITS_EMPTY);
    cr_expect_eq(units_parse_unit(NULL, &f, &d, err, sizeof err), UNITS_EMPTY);
    cr_expect_eq(units_parse_unit("GBs", &f, &d, err, sizeof err), UNITS_UNKNOWN_UNIT);
    expect_contains(err, "unknown unit \"GBs\"");
    cr_expect_eq(units_parse_unit("5 GB", &f, &d, err, sizeof err), UNITS_BAD_SYNTAX);
    cr_expect_eq(units_parse_unit("GB//s", &f, &d, err, sizeof err), UNITS_BAD_SYNTAX);
}

Test(units, to)
{
    double v = 0;
    cr_expect(units_to(2.039e12, "GB/s", DIM_BYTE_RATE, &v));
    cr_expect(v == 2039, "%.17g", v);
    cr_expect(units_to(0.00724, "ms", DIM_TIME, &v));
    cr_expect(v == 7.24, "%.17g", v);
    cr_expect(units_to(3.12e14, "TFLOP/s", DIM_OPS_RATE, &v));
    cr_expect(v == 312);
    cr_expect(units_to(5e10, "Gbps", DIM_BYTE_RATE, &v));
    cr_expect(v == 400);
    cr_expect(units_to(85899345920.0, "GiB", DIM_BYTES, &v));
    cr_expect(v == 80);
    cr_expect(units_to(3.6e6, "kWh", DIM_ENERGY, &v));
    cr_expect(v == 1);
    cr_expect(units_to(7200, "h", DIM_TIME, &v));
    cr_expect(v == 2);
    cr_expect(units_to(1e12 / 3600, "TB/h", DIM_BYTE_RATE, &v));
    cr_expect_float_eq(v, 1.0, 1e-15);
    cr_expect(units_to(4.1e9, "GFLOP", DIM_OPS, &v));
    cr_expect(v == 4.1);
    cr_expect(units_to(1e-9, "ns", DIM_TIME, &v));
    cr_expect(v == 1);
    cr_expect(units_to(0.5, "", DIM_NONE, &v));
    cr_expect(v == 0.5);
    cr_expect(units_to(2, "1/s", DIM_FREQUENCY, &v));
    cr_expect(v == 2);
    cr_expect(units_to(7e9, "Bparam", DIM_COUNTS, &v));
    cr_expect(v == 7);
    cr_expect(units_to(156, "flop/B", DIM_INTENSITY, &v));
    cr_expect(v == 156);
    /* Wrong dimension or unknown unit: false, *out untouched. */
    v = -1;
    cr_expect(!units_to(1, "ms", DIM_BYTE_RATE, &v));
    cr_expect(!units_to(1, "GBs", DIM_BYTE_RATE, &v));
    cr_expect(!units_to(1, "", DIM_TIME, &v));
    cr_expect(!units_to(1, NULL, DIM_TIME, &v));
    cr_expect(v == -1);
}

Test(units, round_trip_through_to)
{
    /* parse then convert back into the written unit gives the written number. */
    static const struct {
        const char *text, *unit;
        dimension dim;
        double shown;
    } c[] = {
        {"7.24 ms", "ms", {{[DIM_S] = 1}}, 7.24},
        {"2039 GB/s", "GB/s", {{[DIM_B] = 1, [DIM_S] = -1}}, 2039},
        {"4.1 GFLOP", "GFLOP", {{[DIM_FLOP] = 1}}, 4.1},
        {"0.667935262 ms", "ms", {{[DIM_S] = 1}}, 0.667935262},
        {"15 us", "us", {{[DIM_S] = 1}}, 15},
        {"1.5 kWh", "kWh", {{[DIM_J] = 1}}, 1.5},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double v = 0;
        cr_expect(units_to(si_of(c[i].text, c[i].dim), c[i].unit, c[i].dim, &v));
        cr_expect(v == c[i].shown, "%s -> %.17g %s", c[i].text, v, c[i].unit);
    }
}

/* -------------------------------------------------------- dimensions */

Test(units, dim_format)
{
    char b[64];
    cr_expect_str_eq(dim_format(DIM_NONE, b, sizeof b), "1");
    cr_expect_str_eq(dim_format(DIM_BYTES, b, sizeof b), "B");
    cr_expect_str_eq(dim_format(DIM_TIME, b, sizeof b), "s");
    cr_expect_str_eq(dim_format(DIM_OPS, b, sizeof b), "flop");
    cr_expect_str_eq(dim_format(DIM_BYTE_RATE, b, sizeof b), "B/s");
    cr_expect_str_eq(dim_format(DIM_OPS_RATE, b, sizeof b), "flop/s");
    cr_expect_str_eq(dim_format(DIM_POWER, b, sizeof b), "J/s");
    cr_expect_str_eq(dim_format(DIM_ENERGY, b, sizeof b), "J");
    cr_expect_str_eq(dim_format(DIM_MONEY, b, sizeof b), "USD");
    cr_expect_str_eq(dim_format(DIM_COUNTS, b, sizeof b), "count");
    cr_expect_str_eq(dim_format(DIM_INTENSITY, b, sizeof b), "flop/B");
    cr_expect_str_eq(dim_format(DIM_FREQUENCY, b, sizeof b), "1/s");
    cr_expect_str_eq(dim_format(DIM_MASS, b, sizeof b), "kg");
    cr_expect_str_eq(dim_format((dimension){{[DIM_B] = 1, [DIM_S] = -2}}, b, sizeof b), "B/s^2");
    cr_expect_str_eq(dim_format((dimension){{[DIM_USD] = 1, [DIM_B] = -1, [DIM_S] = -1}}, b, sizeof b),
                     "USD/(B*s)");
    cr_expect_str_eq(dim_format((dimension){{[DIM_B] = 2, [DIM_KG] = 1}}, b, sizeof b), "B^2*kg");
    char tiny[4];
    cr_expect_str_eq(dim_format(DIM_OPS_RATE, tiny, sizeof tiny), "flo");
}

Test(units, dim_describe)
{
    char b[96];
    cr_expect_str_eq(dim_describe(DIM_BYTES, b, sizeof b), "data size (e.g. \"500 KB\")");
    cr_expect_str_eq(dim_describe(DIM_BYTE_RATE, b, sizeof b), "data rate (e.g. \"2 GB/s\")");
    cr_expect_str_eq(dim_describe(DIM_TIME, b, sizeof b), "time (e.g. \"7.24 ms\")");
    cr_expect_str_eq(dim_describe(DIM_OPS, b, sizeof b), "operations (e.g. \"4.1 GFLOP\")");
    cr_expect_str_eq(dim_describe(DIM_OPS_RATE, b, sizeof b), "compute rate (e.g. \"312 TFLOP/s\")");
    cr_expect_str_eq(dim_describe(DIM_POWER, b, sizeof b), "power (e.g. \"400 W\")");
    cr_expect_str_eq(dim_describe(DIM_ENERGY, b, sizeof b), "energy (e.g. \"3.6 J\")");
    cr_expect_str_eq(dim_describe(DIM_MONEY, b, sizeof b), "money (e.g. \"15000 USD\")");
    cr_expect_str_eq(dim_describe(DIM_COUNTS, b, sizeof b), "count (e.g. \"7e9 param\")");
    cr_expect_str_eq(dim_describe(DIM_INTENSITY, b, sizeof b), "arithmetic intensity (flop/B)");
    cr_expect_str_eq(dim_describe(DIM_FREQUENCY, b, sizeof b), "frequency (Hz)");
    cr_expect_str_eq(dim_describe(DIM_MASS, b, sizeof b), "mass (kg)");
    cr_expect_str_eq(dim_describe(DIM_NONE, b, sizeof b), "dimensionless");
    cr_expect_str_eq(dim_describe((dimension){{[DIM_B] = 1, [DIM_S] = 1}}, b, sizeof b), "B*s");
}

Test(units, dim_eq)
{
    cr_expect(dim_eq(DIM_BYTE_RATE, (dimension){{[DIM_B] = 1, [DIM_S] = -1}}));
    cr_expect(!dim_eq(DIM_BYTE_RATE, DIM_OPS_RATE));
    cr_expect(!dim_eq(DIM_POWER, DIM_ENERGY));
    cr_expect(!dim_eq(DIM_MONEY, DIM_COUNTS)); /* unlike mlsysim, where a dollar is a count */
}

Test(units, to_recovers_written_decimals)
{
    /* For power-of-ten units, "<x> <unit>" -> SI -> units_to(unit) gives back
     * the double nearest x, for numbers of up to 15 significant digits. */
    static const char *const unit[] = {"ms", "us", "ns", "GB", "KB", "TFLOP", "GB/s", "TFLOP/s", "mW", "kJ"};
    static const dimension *const dim[] = {&DIM_TIME,  &DIM_TIME,      &DIM_TIME,     &DIM_BYTES,
                                           &DIM_BYTES, &DIM_OPS,       &DIM_BYTE_RATE, &DIM_OPS_RATE,
                                           &DIM_POWER, &DIM_ENERGY};
    char text[64];
    for (int i = 0; i < 20000; i++) {
        size_t u = rng() % (sizeof unit / sizeof unit[0]);
        int digits = 1 + (int)(rng() % 15);
        uint64_t m = rng() % 1000000000000000ull;
        for (int k = digits; k < 15; k++)
            m /= 10;
        int e = (int)(rng() % 41) - 20;
        snprintf(text, sizeof text, "%llue%d %s", (unsigned long long)m, e, unit[u]);
        double written = strtod(text, NULL);
        double back = -1;
        cr_assert(units_to(si_of(text, *dim[u]), unit[u], *dim[u], &back));
        cr_assert(back == written, "%s -> %.17g", text, back);
    }
}
