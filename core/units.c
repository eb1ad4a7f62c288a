/* units.c - see units.h.
 *
 * The table follows mlsysim's pint registry: pint's defaults plus
 * core/mlsysim_units.txt (commit 370f0efd; see solvers.md §0.2 and the
 * "units" section of catalog.json). Deliberate differences from pint:
 *  - money (USD) has its own dimension here; in mlsysim a dollar is a
 *    dimensionless count, which would let "5 USD" pass as a parameter count.
 *  - the flop family is matched case-insensitively ("tflops", "Tflop"):
 *    users write it every which way and no other unit collides with it.
 *
 * A unit factor is kept as num/den * 10^dec with num and den small exact
 * integers, and the power of ten is folded into the number's own decimal
 * exponent before strtod. So "7.24 ms" is strtod("724e-5"), the double
 * nearest to 0.00724, where 7.24 * 1e-3 would be one ulp off (and
 * "4.1 GFLOP" is exactly 4.1e9, not 4099999999.9999995). The digit string
 * handed to strtod never contains a radix point, so the locale cannot
 * change the result. */
#include "core/units.h"

#include "core/numfmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const dimension DIM_NONE = {{0}};
const dimension DIM_BYTES = {{[DIM_B] = 1}};
const dimension DIM_TIME = {{[DIM_S] = 1}};
const dimension DIM_OPS = {{[DIM_FLOP] = 1}};
const dimension DIM_OPS_RATE = {{[DIM_FLOP] = 1, [DIM_S] = -1}};
const dimension DIM_BYTE_RATE = {{[DIM_B] = 1, [DIM_S] = -1}};
const dimension DIM_POWER = {{[DIM_J] = 1, [DIM_S] = -1}};
const dimension DIM_ENERGY = {{[DIM_J] = 1}};
const dimension DIM_MONEY = {{[DIM_USD] = 1}};
const dimension DIM_COUNTS = {{[DIM_COUNT] = 1}};
const dimension DIM_INTENSITY = {{[DIM_FLOP] = 1, [DIM_B] = -1}};
const dimension DIM_FREQUENCY = {{[DIM_S] = -1}};
const dimension DIM_MASS = {{[DIM_KG] = 1}};

/* ------------------------------------------------------------------------ */
/* The unit table                                                            */

typedef struct {
    const char *name;
    double num, den; /* exact integers */
    int dec;         /* factor = num / den * 10^dec */
    dimension dim;
} unit_def;

#define U_B {{[DIM_B] = 1}}
#define U_BPS {{[DIM_B] = 1, [DIM_S] = -1}}
#define U_S {{[DIM_S] = 1}}
#define U_FLOPS {{[DIM_FLOP] = 1, [DIM_S] = -1}}
#define U_W {{[DIM_J] = 1, [DIM_S] = -1}}
#define U_J {{[DIM_J] = 1}}
#define U_HZ {{[DIM_S] = -1}}
#define U_USD {{[DIM_USD] = 1}}
#define U_N {{[DIM_COUNT] = 1}}
#define U_KG {{[DIM_KG] = 1}}

/* µ is accepted both as MICRO SIGN (U+00B5) and GREEK SMALL LETTER MU
 * (U+03BC), since keyboards produce either. */
#define MICRO_SIGN "\xC2\xB5"
#define GREEK_MU "\xCE\xBC"

static const unit_def UNITS[] = {
    /* data: pint's byte/bit; decimal and binary multiples from the units file */
    {"B", 1, 1, 0, U_B},
    {"byte", 1, 1, 0, U_B},
    {"bytes", 1, 1, 0, U_B},
    {"kB", 1, 1, 3, U_B},
    {"KB", 1, 1, 3, U_B},
    {"MB", 1, 1, 6, U_B},
    {"GB", 1, 1, 9, U_B},
    {"TB", 1, 1, 12, U_B},
    {"PB", 1, 1, 15, U_B},
    {"EB", 1, 1, 18, U_B},
    {"KiB", 1024.0, 1, 0, U_B},
    {"MiB", 1048576.0, 1, 0, U_B},
    {"GiB", 1073741824.0, 1, 0, U_B},
    {"TiB", 1099511627776.0, 1, 0, U_B},
    {"PiB", 1125899906842624.0, 1, 0, U_B},
    {"EiB", 1152921504606846976.0, 1, 0, U_B},
    {"bit", 1, 8, 0, U_B},
    {"bits", 1, 8, 0, U_B},
    {"kbit", 1, 8, 3, U_B},
    {"Kbit", 1, 8, 3, U_B},
    {"Mbit", 1, 8, 6, U_B},
    {"Gbit", 1, 8, 9, U_B},
    {"Tbit", 1, 8, 12, U_B},
    /* line rates: Gbps = 1e9 bit/s = 1.25e8 B/s (units file) */
    {"bps", 1, 8, 0, U_BPS},
    {"kbps", 1, 8, 3, U_BPS},
    {"Kbps", 1, 8, 3, U_BPS},
    {"Mbps", 1, 8, 6, U_BPS},
    {"Gbps", 1, 8, 9, U_BPS},
    {"Tbps", 1, 8, 12, U_BPS},
    /* time: pint's names plus the units file's MS/US/NS aliases; year is
     * pint's julian year (365.25 d), month = year / 12 */
    {"s", 1, 1, 0, U_S},
    {"sec", 1, 1, 0, U_S},
    {"second", 1, 1, 0, U_S},
    {"seconds", 1, 1, 0, U_S},
    {"ms", 1, 1, -3, U_S},
    {"MS", 1, 1, -3, U_S},
    {"millisecond", 1, 1, -3, U_S},
    {"milliseconds", 1, 1, -3, U_S},
    {"us", 1, 1, -6, U_S},
    {"US", 1, 1, -6, U_S},
    {MICRO_SIGN "s", 1, 1, -6, U_S},
    {GREEK_MU "s", 1, 1, -6, U_S},
    {"microsecond", 1, 1, -6, U_S},
    {"microseconds", 1, 1, -6, U_S},
    {"ns", 1, 1, -9, U_S},
    {"NS", 1, 1, -9, U_S},
    {"nanosecond", 1, 1, -9, U_S},
    {"nanoseconds", 1, 1, -9, U_S},
    {"min", 60, 1, 0, U_S},
    {"minute", 60, 1, 0, U_S},
    {"minutes", 60, 1, 0, U_S},
    {"h", 3600, 1, 0, U_S},
    {"hr", 3600, 1, 0, U_S},
    {"hour", 3600, 1, 0, U_S},
    {"hours", 3600, 1, 0, U_S},
    {"d", 86400, 1, 0, U_S},
    {"day", 86400, 1, 0, U_S},
    {"days", 86400, 1, 0, U_S},
    {"week", 604800, 1, 0, U_S},
    {"weeks", 604800, 1, 0, U_S},
    {"month", 2629800, 1, 0, U_S},
    {"months", 2629800, 1, 0, U_S},
    {"year", 31557600, 1, 0, U_S},
    {"years", 31557600, 1, 0, U_S},
    {"yr", 31557600, 1, 0, U_S},
    /* OPS = flop/second, KOPS..POPS its decimal multiples (units file) */
    {"OPS", 1, 1, 0, U_FLOPS},
    {"kOPS", 1, 1, 3, U_FLOPS},
    {"KOPS", 1, 1, 3, U_FLOPS},
    {"MOPS", 1, 1, 6, U_FLOPS},
    {"GOPS", 1, 1, 9, U_FLOPS},
    {"TOPS", 1, 1, 12, U_FLOPS},
    {"POPS", 1, 1, 15, U_FLOPS},
    {"EOPS", 1, 1, 18, U_FLOPS},
    /* power and energy: pint's W/J with the units file's prefixed aliases;
     * Wh = 3600 J, kWh = 3.6e6 J */
    {"W", 1, 1, 0, U_W},
    {"watt", 1, 1, 0, U_W},
    {"watts", 1, 1, 0, U_W},
    {"mW", 1, 1, -3, U_W},
    {"uW", 1, 1, -6, U_W},
    {MICRO_SIGN "W", 1, 1, -6, U_W},
    {"kW", 1, 1, 3, U_W},
    {"MW", 1, 1, 6, U_W},
    {"GW", 1, 1, 9, U_W},
    {"J", 1, 1, 0, U_J},
    {"joule", 1, 1, 0, U_J},
    {"joules", 1, 1, 0, U_J},
    {"pJ", 1, 1, -12, U_J},
    {"nJ", 1, 1, -9, U_J},
    {"uJ", 1, 1, -6, U_J},
    {MICRO_SIGN "J", 1, 1, -6, U_J},
    {"mJ", 1, 1, -3, U_J},
    {"kJ", 1, 1, 3, U_J},
    {"MJ", 1, 1, 6, U_J},
    {"GJ", 1, 1, 9, U_J},
    {"Wh", 3600, 1, 0, U_J},
    {"kWh", 3600, 1, 3, U_J},
    {"MWh", 3600, 1, 6, U_J},
    {"GWh", 3600, 1, 9, U_J},
    {"Hz", 1, 1, 0, U_HZ},
    {"kHz", 1, 1, 3, U_HZ},
    {"MHz", 1, 1, 6, U_HZ},
    {"GHz", 1, 1, 9, U_HZ},
    /* money: dollar = USD = EUR (the units file's 1:1 parity, no FX) */
    {"USD", 1, 1, 0, U_USD},
    {"dollar", 1, 1, 0, U_USD},
    {"dollars", 1, 1, 0, U_USD},
    {"EUR", 1, 1, 0, U_USD},
    /* counts: param/token = 1 count and their K/M/B/T multiples */
    {"count", 1, 1, 0, U_N},
    {"counts", 1, 1, 0, U_N},
    {"param", 1, 1, 0, U_N},
    {"params", 1, 1, 0, U_N},
    {"Kparam", 1, 1, 3, U_N},
    {"Mparam", 1, 1, 6, U_N},
    {"Bparam", 1, 1, 9, U_N},
    {"Tparam", 1, 1, 12, U_N},
    {"token", 1, 1, 0, U_N},
    {"tokens", 1, 1, 0, U_N},
    {"Ktoken", 1, 1, 3, U_N},
    {"Mtoken", 1, 1, 6, U_N},
    {"Btoken", 1, 1, 9, U_N},
    {"sample", 1, 1, 0, U_N},
    {"samples", 1, 1, 0, U_N},
    /* mass (embodied carbon inputs) */
    {"kg", 1, 1, 0, U_KG},
    {"g", 1, 1, -3, U_KG},
};
#define N_UNITS (sizeof UNITS / sizeof UNITS[0])

/* The flop family: [kmgtpez]?flops? in any case. "TFLOPs" and "TFLOP" are
 * both a count of 1e12 flop, as in the units file (the trailing s is a
 * plural, not "per second"). */
static bool flop_unit(const char *t, size_t len, unit_def *out)
{
    static const char PREFIX[] = "kmgtpez";
    int dec = 0;
    size_t i = 0;
    if (len >= 5) {
        char c = (char)(t[0] | 0x20);
        const char *q = memchr(PREFIX, c, sizeof PREFIX - 1);
        if (q) {
            dec = 3 * (int)(q - PREFIX + 1);
            i = 1;
        }
    }
    size_t rest = len - i;
    if (rest != 4 && rest != 5)
        return false;
    static const char FLOPS[] = "flops";
    for (size_t k = 0; k < rest; k++) {
        unsigned char c = (unsigned char)t[i + k];
        if (c >= 0x80 || (char)(c | 0x20) != FLOPS[k])
            return false;
    }
    *out = (unit_def){"flop", 1, 1, dec, {{[DIM_FLOP] = 1}}};
    return true;
}

static bool lookup(const char *t, size_t len, unit_def *out)
{
    for (size_t i = 0; i < N_UNITS; i++)
        if (strlen(UNITS[i].name) == len && memcmp(UNITS[i].name, t, len) == 0) {
            *out = UNITS[i];
            return true;
        }
    return flop_unit(t, len, out);
}

/* ------------------------------------------------------------------------ */
/* Dimensions                                                                */

bool dim_eq(dimension a, dimension b) { return memcmp(a.e, b.e, sizeof a.e) == 0; }

static const char *const BASE_NAME[DIM__N] = {"B", "s", "flop", "J", "USD", "count", "kg"};

/* Append to buf at *pos, truncating safely. */
static void append(char *buf, size_t n, size_t *pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void append(char *buf, size_t n, size_t *pos, const char *fmt, ...)
{
    if (*pos >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *pos, n - *pos, fmt, ap);
    va_end(ap);
    if (w > 0)
        *pos = (size_t)w >= n - *pos ? n - 1 : *pos + (size_t)w;
}

/* Positive exponents in the numerator, negative ones after a "/";
 * several denominators are parenthesised: "USD/(B*s)". */
const char *dim_format(dimension d, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    buf[0] = '\0';
    size_t pos = 0;
    int nnum = 0, nden = 0;
    for (int i = 0; i < DIM__N; i++) {
        if (d.e[i] > 0)
            nnum++;
        else if (d.e[i] < 0)
            nden++;
    }
    if (nnum == 0 && nden == 0) {
        append(buf, n, &pos, "1");
        return buf;
    }
    if (nnum == 0)
        append(buf, n, &pos, "1");
    int k = 0;
    for (int i = 0; i < DIM__N; i++) {
        if (d.e[i] <= 0)
            continue;
        append(buf, n, &pos, "%s%s", k++ ? "*" : "", BASE_NAME[i]);
        if (d.e[i] != 1)
            append(buf, n, &pos, "^%d", d.e[i]);
    }
    if (nden) {
        append(buf, n, &pos, "/%s", nden > 1 ? "(" : "");
        k = 0;
        for (int i = 0; i < DIM__N; i++) {
            if (d.e[i] >= 0)
                continue;
            append(buf, n, &pos, "%s%s", k++ ? "*" : "", BASE_NAME[i]);
            if (d.e[i] != -1)
                append(buf, n, &pos, "^%d", -d.e[i]);
        }
        if (nden > 1)
            append(buf, n, &pos, ")");
    }
    return buf;
}

typedef struct {
    const dimension *dim;
    const char *article; /* for "expected a data rate", "got ... (a time)" */
    const char *name;
    const char *hint; /* shown in parentheses after the name */
} dim_name;

static const dim_name DIM_NAMES[] = {
    {&DIM_BYTES, "a ", "data size", "e.g. \"500 KB\""},
    {&DIM_BYTE_RATE, "a ", "data rate", "e.g. \"2 GB/s\""},
    {&DIM_TIME, "a ", "time", "e.g. \"7.24 ms\""},
    {&DIM_OPS, "", "operations", "e.g. \"4.1 GFLOP\""},
    {&DIM_OPS_RATE, "a ", "compute rate", "e.g. \"312 TFLOP/s\""},
    {&DIM_POWER, "a ", "power", "e.g. \"400 W\""},
    {&DIM_ENERGY, "an ", "energy", "e.g. \"3.6 J\""},
    {&DIM_MONEY, "", "money", "e.g. \"15000 USD\""},
    {&DIM_COUNTS, "a ", "count", "e.g. \"7e9 param\""},
    {&DIM_INTENSITY, "an ", "arithmetic intensity", "flop/B"},
    {&DIM_FREQUENCY, "a ", "frequency", "Hz"},
    {&DIM_MASS, "a ", "mass", "kg"},
    {&DIM_NONE, "", "dimensionless", NULL},
};

static const dim_name *find_dim_name(dimension d)
{
    for (size_t i = 0; i < sizeof DIM_NAMES / sizeof DIM_NAMES[0]; i++)
        if (dim_eq(*DIM_NAMES[i].dim, d))
            return &DIM_NAMES[i];
    return NULL;
}

const char *dim_describe(dimension d, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    const dim_name *dn = find_dim_name(d);
    if (!dn)
        return dim_format(d, buf, n);
    if (dn->hint)
        snprintf(buf, n, "%s (%s)", dn->name, dn->hint);
    else
        snprintf(buf, n, "%s", dn->name);
    return buf;
}

/* "a data rate (e.g. "2 GB/s")", "a dimensionless number", "a quantity in B*s" */
static void dim_expected(dimension d, char *buf, size_t n)
{
    const dim_name *dn = find_dim_name(d);
    char tmp[64];
    if (!dn)
        snprintf(buf, n, "a quantity in %s", dim_format(d, tmp, sizeof tmp));
    else if (dim_eq(d, DIM_NONE))
        snprintf(buf, n, "a dimensionless number");
    else
        snprintf(buf, n, "%s%s", dn->article, dim_describe(d, tmp, sizeof tmp));
}

/* "a time", "operations", "dimensionless", "a quantity in B*s" */
static void dim_short(dimension d, char *buf, size_t n)
{
    const dim_name *dn = find_dim_name(d);
    char tmp[64];
    if (!dn)
        snprintf(buf, n, "a quantity in %s", dim_format(d, tmp, sizeof tmp));
    else
        snprintf(buf, n, "%s%s", dn->article, dn->name);
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */

#define QUOTE_MAX 60

static const char DEFAULT_UNIT_EXPECT[] = "a unit such as B, KB, GB/s, ms, TFLOP/s";
static const char DEFAULT_NUMBER_EXPECT[] = "a number with a unit, e.g. \"2 GB/s\"";

/* Copy s[0..len) for display inside a message: control bytes and invalid
 * UTF-8 become '?' (messages end up in JSON, which must be valid UTF-8),
 * long text is cut at a character boundary with "...". */
static const char *quote(char out[QUOTE_MAX + 8], const char *s, size_t len)
{
    size_t o = 0, i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        size_t seq = 1;
        if (c >= 0x80) {
            seq = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
            for (size_t k = 1; k < seq; k++)
                if (i + k >= len || ((unsigned char)s[i + k] & 0xC0) != 0x80)
                    seq = 0;
        }
        if (o + (seq ? seq : 1) > QUOTE_MAX) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (seq == 0 || c < 0x20 || c == 0x7F) {
            out[o++] = '?';
            i += seq ? seq : 1;
        } else {
            memcpy(out + o, s + i, seq);
            o += seq;
            i += seq;
        }
    }
    out[o] = '\0';
    return out;
}

typedef struct {
    const char *text;      /* the whole input, for messages */
    const char *p;         /* cursor                        */
    int depth;             /* parenthesis nesting           */
    char *err;
    size_t errlen;
    const char *expect;    /* "...; expected <expect>"      */
    bool defaults;         /* no expect: pick one by status */
} pstate;

static units_status fail(pstate *ps, units_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static units_status fail(pstate *ps, units_status st, const char *fmt, ...)
{
    if (ps->err && ps->errlen) {
        size_t pos = 0;
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(ps->err, ps->errlen, fmt, ap);
        va_end(ap);
        pos = w < 0 ? 0 : (size_t)w >= ps->errlen ? ps->errlen - 1 : (size_t)w;
        const char *exp = ps->expect;
        if (!exp && ps->defaults)
            exp = st == UNITS_EMPTY || st == UNITS_BAD_NUMBER ? DEFAULT_NUMBER_EXPECT : DEFAULT_UNIT_EXPECT;
        if (exp && st != UNITS_OVERFLOW && st != UNITS_DIMENSION)
            append(ps->err, ps->errlen, &pos, "; expected %s", exp);
    }
    return st;
}


/* ------------------------------------------------------------------------ */
/* Unit expressions                                                          */

typedef struct {
    double num, den;
    int dec;
    int e[DIM__N];
} ufac;

static const ufac UFAC_ONE = {1, 1, 0, {0}};

/* Limits that keep int8_t exponents and the double factors meaningful. */
#define MAX_POWER 99
#define MAX_DIM_EXP 100
#define MAX_DEC 10000
#define MAX_DEPTH 16

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static const char *skip_ws(const char *p)
{
    while (is_space(*p))
        p++;
    return p;
}

/* Length of a µ/μ sign at p, else 0. */
static size_t micro_len(const char *p)
{
    if ((p[0] == '\xC2' && p[1] == '\xB5') || (p[0] == '\xCE' && p[1] == '\xBC'))
        return 2;
    return 0;
}

static size_t name_len(const char *p)
{
    size_t n = 0;
    for (;;) {
        if (is_alpha(p[n]))
            n++;
        else if (micro_len(p + n))
            n += 2;
        else
            return n;
    }
}

/* Multiplication signs: '*', '·' (U+00B7), '⋅' (U+22C5), '×' (U+00D7).
 * Returns the byte length, 0 if none. "**" is a power, not a product. */
static size_t mul_len(const char *p)
{
    if (p[0] == '*' && p[1] != '*')
        return 1;
    if ((p[0] == '\xC2' && p[1] == '\xB7') || (p[0] == '\xC3' && p[1] == '\x97'))
        return 2;
    if (p[0] == '\xE2' && p[1] == '\x8B' && p[2] == '\x85')
        return 3;
    return 0;
}

static units_status check_fac(pstate *ps, const ufac *u, const char *where, size_t wlen)
{
    char q[QUOTE_MAX + 8];
    for (int i = 0; i < DIM__N; i++)
        if (u->e[i] > MAX_DIM_EXP || u->e[i] < -MAX_DIM_EXP)
            return fail(ps, UNITS_BAD_SYNTAX, "unit power too large at \"%s\" in \"%s\"", quote(q, where, wlen),
                        ps->text);
    if (!isfinite(u->num) || !isfinite(u->den) || u->dec > MAX_DEC || u->dec < -MAX_DEC)
        return fail(ps, UNITS_OVERFLOW, "unit factor out of range at \"%s\" in \"%s\"", quote(q, where, wlen),
                    ps->text);
    return UNITS_OK;
}

static void fac_mul(ufac *a, const ufac *b, bool divide)
{
    if (divide) {
        a->num *= b->den;
        a->den *= b->num;
        a->dec -= b->dec;
    } else {
        a->num *= b->num;
        a->den *= b->den;
        a->dec += b->dec;
    }
    for (int i = 0; i < DIM__N; i++)
        a->e[i] += divide ? -b->e[i] : b->e[i];
}

static units_status parse_expr(pstate *ps, ufac *u);

static units_status unknown_unit(pstate *ps, const char *t, size_t len)
{
    char q[QUOTE_MAX + 8], qt[QUOTE_MAX + 8], hint[64] = "";
    unit_def d;
    /* "GBs"/"GBps" for GB/s, "gb" for GB: say what was probably meant. */
    if (len > 1 && (t[len - 1] == 's' || t[len - 1] == 'S') && lookup(t, len - 1, &d) && dim_eq(d.dim, DIM_BYTES))
        snprintf(hint, sizeof hint, " (did you mean \"%.*s/s\"?)", (int)(len - 1), t);
    else if (len > 2 && t[len - 2] == 'p' && t[len - 1] == 's' && lookup(t, len - 2, &d) && dim_eq(d.dim, DIM_BYTES))
        snprintf(hint, sizeof hint, " (did you mean \"%.*s/s\"?)", (int)(len - 2), t);
    else
        for (size_t i = 0; i < N_UNITS; i++)
            if (strlen(UNITS[i].name) == len && strncasecmp(UNITS[i].name, t, len) == 0) {
                snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", UNITS[i].name);
                break;
            }
    return fail(ps, UNITS_UNKNOWN_UNIT, "unknown unit \"%s\" in \"%s\"%s", quote(qt, t, len),
                quote(q, ps->text, strlen(ps->text)), hint);
}

static units_status expected_name(pstate *ps)
{
    char q[QUOTE_MAX + 8], qr[QUOTE_MAX + 8];
    const char *r = ps->p;
    quote(q, ps->text, strlen(ps->text));
    if (*r == '\0')
        return fail(ps, UNITS_BAD_SYNTAX, "unit missing at the end of \"%s\"", q);
    if (*r == ',' && is_digit(r[1]))
        return fail(ps, UNITS_BAD_SYNTAX, "unexpected \"%s\" in \"%s\" (no thousands separators)",
                    quote(qr, r, strlen(r)), q);
    return fail(ps, UNITS_BAD_SYNTAX, "unexpected \"%s\" in \"%s\" where a unit name belongs", quote(qr, r, strlen(r)),
                q);
}

static units_status missing_paren(pstate *ps, const char *at)
{
    char q[QUOTE_MAX + 8], qr[QUOTE_MAX + 8];
    quote(q, ps->text, strlen(ps->text));
    if (*at == '\0')
        return fail(ps, UNITS_BAD_SYNTAX, "missing \")\" at the end of \"%s\"", q);
    return fail(ps, UNITS_BAD_SYNTAX, "unexpected \"%s\" in \"%s\" where \")\" belongs", quote(qr, at, strlen(at)), q);
}

/* primary := name | '(' expr ')' | '1' (only as in "1/s") */
static units_status parse_primary(pstate *ps, ufac *u)
{
    const char *p = ps->p;
    if (*p == '(') {
        if (ps->depth >= MAX_DEPTH) {
            char q[QUOTE_MAX + 8];
            return fail(ps, UNITS_BAD_SYNTAX, "parentheses nested too deeply in \"%s\"",
                        quote(q, ps->text, strlen(ps->text)));
        }
        ps->depth++;
        ps->p = skip_ws(p + 1);
        units_status st = parse_expr(ps, u);
        if (st)
            return st;
        ps->p = skip_ws(ps->p);
        if (*ps->p != ')')
            return missing_paren(ps, ps->p);
        ps->p++;
        ps->depth--;
        return UNITS_OK;
    }
    if (*p == '1' && skip_ws(p + 1)[0] == '/') {
        *u = UFAC_ONE;
        ps->p = p + 1;
        return UNITS_OK;
    }
    size_t len = name_len(p);
    if (len == 0)
        return expected_name(ps);
    unit_def d;
    if (!lookup(p, len, &d))
        return unknown_unit(ps, p, len);
    *u = (ufac){d.num, d.den, d.dec, {0}};
    for (int i = 0; i < DIM__N; i++)
        u->e[i] = d.dim.e[i];
    ps->p = p + len;
    return UNITS_OK;
}

/* power := primary [ ('^' | '**') ['('] [+-] digits [')'] ] */
static units_status parse_power(pstate *ps, ufac *u)
{
    const char *start = ps->p;
    units_status st = parse_primary(ps, u);
    if (st)
        return st;
    const char *p = skip_ws(ps->p);
    size_t oplen = *p == '^' ? 1 : (p[0] == '*' && p[1] == '*') ? 2 : 0;
    if (!oplen)
        return UNITS_OK;
    p = skip_ws(p + oplen);
    bool paren = *p == '(';
    if (paren)
        p = skip_ws(p + 1);
    int sign = 1;
    if (*p == '-' || *p == '+')
        sign = *p++ == '-' ? -1 : 1;
    if (!is_digit(*p)) {
        char q[QUOTE_MAX + 8], qr[QUOTE_MAX + 8];
        quote(q, ps->text, strlen(ps->text));
        if (*p == '\0')
            return fail(ps, UNITS_BAD_SYNTAX, "integer power missing at the end of \"%s\"", q);
        return fail(ps, UNITS_BAD_SYNTAX, "unexpected \"%s\" in \"%s\" where an integer power belongs",
                    quote(qr, p, strlen(p)), q);
    }
    int power = 0;
    while (is_digit(*p)) {
        if (power <= MAX_POWER)
            power = power * 10 + (*p - '0');
        p++;
    }
    if (paren) {
        p = skip_ws(p);
        if (*p != ')')
            return missing_paren(ps, p);
        p++;
    }
    if (power > MAX_POWER) {
        char q[QUOTE_MAX + 8], qr[QUOTE_MAX + 8];
        return fail(ps, UNITS_BAD_SYNTAX, "unit power too large at \"%s\" in \"%s\"",
                    quote(qr, start, (size_t)(p - start)), quote(q, ps->text, strlen(ps->text)));
    }
    ps->p = p;
    ufac base = *u;
    *u = UFAC_ONE;
    for (int i = 0; i < power; i++) {
        fac_mul(u, &base, sign < 0);
        st = check_fac(ps, u, start, (size_t)(p - start));
        if (st)
            return st;
    }
    return UNITS_OK;
}

/* expr := ['/'] power { ('*' | '·' | '/') power }, left to right as in
 * pint: "J/s*h" is (J/s)*h, and a leading "/" is a reciprocal ("2 / second"
 * is 2 Hz, as pint reads it). */
static units_status parse_expr(pstate *ps, ufac *u)
{
    const char *start = ps->p;
    units_status st;
    if (*ps->p == '/') {
        *u = UFAC_ONE;
    } else {
        st = parse_power(ps, u);
        if (st)
            return st;
    }
    for (;;) {
        const char *p = skip_ws(ps->p);
        size_t ml = mul_len(p);
        bool divide = *p == '/';
        if (!ml && !divide)
            return UNITS_OK;
        ps->p = skip_ws(p + (divide ? 1 : ml));
        ufac rhs;
        st = parse_power(ps, &rhs);
        if (st)
            return st;
        fac_mul(u, &rhs, divide);
        st = check_fac(ps, u, start, (size_t)(ps->p - start));
        if (st)
            return st;
    }
}

/* A whole unit expression from ps->p to the end of the string. */
static units_status parse_unit_tail(pstate *ps, ufac *u)
{
    ps->p = skip_ws(ps->p);
    units_status st = parse_expr(ps, u);
    if (st)
        return st;
    ps->p = skip_ws(ps->p);
    if (*ps->p) {
        char q[QUOTE_MAX + 8], qr[QUOTE_MAX + 8];
        quote(q, ps->text, strlen(ps->text));
        if (*ps->p == ')')
            return fail(ps, UNITS_BAD_SYNTAX, "unbalanced \")\" in \"%s\"", q);
        return fail(ps, UNITS_BAD_SYNTAX, "unexpected \"%s\" in \"%s\" after the unit", quote(qr, ps->p, strlen(ps->p)),
                    q);
    }
    return UNITS_OK;
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */

/* strtod needs up to ~768 significant digits to round a halfway case right;
 * beyond that the tail only matters as "non-zero", kept as a final '1'. */
#define MAX_SIG 800
#define MAX_EXP 1000000L

typedef struct {
    bool neg;
    char sig[MAX_SIG + 1]; /* significant digits, no leading/trailing zeros; "" for 0 */
    int nsig;
    long long e10;   /* value = sig * 10^e10 */
    const char *start, *end; /* the number's text */
} number;

static bool ci_prefix(const char *p, const char *word)
{
    for (; *word; p++, word++)
        if ((*p | 0x20) != *word)
            return false;
    return true;
}

/* C-locale decimal syntax only: [+-] (d+ [. d*] | . d+) [(e|E) [+-] d+].
 * No hex floats, no inf/nan, no separators. An 'e' not followed by digits
 * is left for the unit ("1EFLOP", "3 EUR"). */
static units_status scan_number(pstate *ps, number *n)
{
    const char *p = ps->p;
    char q[QUOTE_MAX + 8], qn[QUOTE_MAX + 8];
    n->neg = false;
    n->start = p;
    if (*p == '+' || *p == '-')
        n->neg = *p++ == '-';
    if (ci_prefix(p, "nan") || ci_prefix(p, "inf")) {
        size_t len = (size_t)(p - ps->p) + name_len(p);
        return fail(ps, UNITS_BAD_NUMBER, "\"%s\" is not a finite number in \"%s\"", quote(qn, ps->p, len),
                    quote(q, ps->text, strlen(ps->text)));
    }
    const char *int_start = p;
    while (is_digit(*p))
        p++;
    const char *int_end = p, *frac_start = p, *frac_end = p;
    if (*p == '.') {
        frac_start = ++p;
        while (is_digit(*p))
            p++;
        frac_end = p;
    }
    if (int_end == int_start && frac_end == frac_start) {
        quote(q, ps->text, strlen(ps->text));
        if (*ps->p == '\0')
            return fail(ps, UNITS_BAD_NUMBER, "number missing in \"%s\"", q);
        return fail(ps, UNITS_BAD_NUMBER, "no number at the start of \"%s\"", q);
    }
    long long exp = 0;
    if ((*p == 'e' || *p == 'E') &&
        (is_digit(p[1]) || ((p[1] == '+' || p[1] == '-') && is_digit(p[2])))) {
        p++;
        bool eneg = false;
        if (*p == '+' || *p == '-')
            eneg = *p++ == '-';
        while (is_digit(*p)) {
            if (exp < MAX_EXP)
                exp = exp * 10 + (*p - '0');
            p++;
        }
        if (eneg)
            exp = -exp;
    }
    n->end = p;

    /* Significant digits: int then frac part, leading zeros dropped. */
    n->nsig = 0;
    long long e10 = exp - (long long)(frac_end - frac_start);
    long long dropped = 0; /* digits past MAX_SIG */
    bool sticky = false;
    for (const char *d = int_start; d < frac_end; d++) {
        if (d == int_end)
            d = frac_start;
        if (d >= frac_end)
            break;
        if (n->nsig == 0 && *d == '0')
            continue;
        if (n->nsig < MAX_SIG - 1) {
            n->sig[n->nsig++] = *d;
        } else {
            dropped++;
            sticky |= *d != '0';
        }
    }
    if (sticky)
        n->sig[n->nsig++] = '1';
    e10 += dropped - (sticky ? 1 : 0);
    while (n->nsig > 0 && n->sig[n->nsig - 1] == '0') {
        n->nsig--;
        e10++;
    }
    n->sig[n->nsig] = '\0';
    n->e10 = e10;
    return UNITS_OK;
}

/* sig * 10^(e10 + dec), correctly rounded; then * num / den. */
static double number_value(const number *n, int dec, double num, double den)
{
    if (n->nsig == 0)
        return n->neg ? -0.0 : 0.0;
    long long e = n->e10 + dec;
    if (e > 2 * MAX_EXP)
        e = 2 * MAX_EXP;
    if (e < -2 * MAX_EXP)
        e = -2 * MAX_EXP;
    char buf[MAX_SIG + 32];
    snprintf(buf, sizeof buf, "%s%se%lld", n->neg ? "-" : "", n->sig, e);
    double v = strtod(buf, NULL);
    if (num == 1 && den == 1)
        return v;
    double r = v * num / den;
    if (!isfinite(r) && isfinite(v))
        r = v * (num / den); /* v * num overflowed on the way */
    return r;
}

/* Apply unit u to number n; overflow is reported against the text. */
static units_status apply(pstate *ps, const number *n, const ufac *u, double *out)
{
    char q[QUOTE_MAX + 8], qn[QUOTE_MAX + 8];
    double raw = number_value(n, 0, 1, 1);
    if (!isfinite(raw))
        return fail(ps, UNITS_OVERFLOW, "number \"%s\" is out of range in \"%s\"",
                    quote(qn, n->start, (size_t)(n->end - n->start)), quote(q, ps->text, strlen(ps->text)));
    double v = number_value(n, u->dec, u->num, u->den);
    if (!isfinite(v))
        return fail(ps, UNITS_OVERFLOW, "\"%s\" is out of range (overflows in SI units)",
                    quote(q, ps->text, strlen(ps->text)));
    *out = v;
    return UNITS_OK;
}

static void to_dimension(const ufac *u, dimension *d)
{
    for (int i = 0; i < DIM__N; i++)
        d->e[i] = (int8_t)u->e[i];
}

/* number [unit]: fills n and u, has_unit says whether a unit was written. */
static units_status parse_quantity_parts(pstate *ps, number *n, ufac *u, bool *has_unit)
{
    if (!ps->text || *skip_ws(ps->text) == '\0') {
        ps->text = ps->text ? ps->text : "";
        return fail(ps, UNITS_EMPTY, "empty value");
    }
    ps->p = skip_ws(ps->text);
    units_status st = scan_number(ps, n);
    if (st)
        return st;
    ps->p = skip_ws(n->end);
    *u = UFAC_ONE;
    *has_unit = *ps->p != '\0';
    if (!*has_unit)
        return UNITS_OK;
    return parse_unit_tail(ps, u);
}

/* ------------------------------------------------------------------------ */
/* Public API                                                                */

units_status units_parse(const char *text, quantity *out, char *err, size_t errlen)
{
    pstate ps = {.text = text, .err = err, .errlen = errlen, .defaults = true};
    number n;
    ufac u;
    bool has_unit;
    units_status st = parse_quantity_parts(&ps, &n, &u, &has_unit);
    if (st)
        return st;
    double v;
    st = apply(&ps, &n, &u, &v);
    if (st)
        return st;
    if (out) {
        out->si = v;
        to_dimension(&u, &out->dim);
    }
    if (err && errlen)
        err[0] = '\0';
    return UNITS_OK;
}

units_status units_parse_unit(const char *unit, double *factor, dimension *dim, char *err, size_t errlen)
{
    pstate ps = {.text = unit ? unit : "", .err = err, .errlen = errlen, .expect = DEFAULT_UNIT_EXPECT};
    ps.p = ps.text;
    if (*skip_ws(ps.text) == '\0')
        return fail(&ps, UNITS_EMPTY, "empty unit");
    ufac u;
    units_status st = parse_unit_tail(&ps, &u);
    if (st)
        return st;
    double f = number_value(&(number){.sig = "1", .nsig = 1}, u.dec, u.num, u.den);
    if (!isfinite(f) || f == 0) {
        char q[QUOTE_MAX + 8];
        return fail(&ps, UNITS_OVERFLOW, "unit factor of \"%s\" is out of range", quote(q, ps.text, strlen(ps.text)));
    }
    if (factor)
        *factor = f;
    if (dim)
        to_dimension(&u, dim);
    if (err && errlen)
        err[0] = '\0';
    return UNITS_OK;
}

/* A bare number means bare_unit (NULL: the SI base unit of `want`). */
units_status units_parse_as(const char *text, dimension want, const char *bare_unit, double *si_out, char *err,
                            size_t errlen)
{
    char expect[96];
    dim_expected(want, expect, sizeof expect);
    pstate ps = {.text = text, .err = err, .errlen = errlen, .expect = expect};
    number n;
    ufac u;
    bool has_unit;
    units_status st = parse_quantity_parts(&ps, &n, &u, &has_unit);
    if (st)
        return st;
    if (!has_unit && bare_unit) {
        /* The bare unit is the caller's, not the user's: report it as such. */
        pstate pu = {.text = bare_unit, .p = bare_unit, .err = err, .errlen = errlen};
        st = parse_unit_tail(&pu, &u);
        if (st)
            return st;
    } else if (!has_unit) {
        for (int i = 0; i < DIM__N; i++)
            u.e[i] = want.e[i];
    }
    dimension got;
    to_dimension(&u, &got);
    if (!dim_eq(got, want)) {
        char q[QUOTE_MAX + 8], gs[64];
        dim_short(got, gs, sizeof gs);
        ps.expect = NULL;
        if (!has_unit)
            return fail(&ps, UNITS_DIMENSION, "bare-number unit \"%s\" is %s, not %s", bare_unit, gs, expect);
        if (dim_eq(got, DIM_NONE))
            return fail(&ps, UNITS_DIMENSION, "expected %s, got \"%s\" (dimensionless)", expect,
                        quote(q, ps.text, strlen(ps.text)));
        return fail(&ps, UNITS_DIMENSION, "expected %s, got \"%s\" (%s)", expect,
                    quote(q, ps.text, strlen(ps.text)), gs);
    }
    double v;
    st = apply(&ps, &n, &u, &v);
    if (st)
        return st;
    if (si_out)
        *si_out = v;
    if (err && errlen)
        err[0] = '\0';
    return UNITS_OK;
}

/* x * 10^k, done on x's shortest decimal digits ("0.00724" -> "724e-5" ->
 * "724e-2"). So a value parsed from "7.24 ms" converts back to exactly 7.24
 * ms; multiplying by 1e3 instead misses by an ulp about a quarter of the
 * time, and the number then prints as 7.240000000000001 in messages. */
static double shift10(double x, int k)
{
    if (k == 0 || x == 0 || !isfinite(x))
        return x;
    char s[40], buf[64];
    fmt_double(s, sizeof s, x);
    const char *p = s;
    bool neg = *p == '-';
    if (neg)
        p++;
    char dig[24];
    int nd = 0, frac = 0;
    bool in_frac = false;
    for (; *p && *p != 'e'; p++) {
        if (*p == '.') {
            in_frac = true;
        } else if (nd < (int)sizeof dig - 1) {
            dig[nd++] = *p;
            frac += in_frac;
        }
    }
    dig[nd] = '\0';
    long e = (*p == 'e' ? strtol(p + 1, NULL, 10) : 0) - frac + k;
    snprintf(buf, sizeof buf, "%s%se%ld", neg ? "-" : "", dig, e);
    return strtod(buf, NULL);
}

bool units_to(double si, const char *unit, dimension want, double *out)
{
    if (!unit || *skip_ws(unit) == '\0') {
        if (!dim_eq(want, DIM_NONE))
            return false;
        if (out)
            *out = si;
        return true;
    }
    pstate ps = {.text = unit, .p = unit};
    ufac u;
    if (parse_unit_tail(&ps, &u) != UNITS_OK)
        return false;
    dimension d;
    to_dimension(&u, &d);
    if (!dim_eq(d, want))
        return false;
    double v = si;
    if (u.num != 1 || u.den != 1)
        v = v * u.den / u.num;
    if (out)
        *out = shift10(v, -u.dec);
    return true;
}
