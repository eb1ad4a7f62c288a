/* units.h - physical quantities with dimension checking, after mlsysim's
 * unit table (core/mlsysim_units.txt): decimal KB..PB, binary KiB..TiB,
 * bit and byte, Gbps, s/ms/us/ns/min/h/hour/day, flop with its prefixes,
 * FLOP/s, TOPS, W, J, Wh/kWh, USD, param/token counts.
 *
 * Everything is carried as a double in SI base units plus a dimension vector.
 * Pure computation: no allocation, no globals that change. */
#ifndef MLSYSD_UNITS_H
#define MLSYSD_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Base dimensions. flop is its own dimension (as in mlsysim), so is a
 * count (param, token, sample). Power is J/s, frequency 1/s. */
enum { DIM_B, DIM_S, DIM_FLOP, DIM_J, DIM_USD, DIM_COUNT, DIM_KG, DIM__N };

typedef struct {
    int8_t e[DIM__N];
} dimension;

/* Common dimensions. */
extern const dimension DIM_NONE;       /* dimensionless            */
extern const dimension DIM_BYTES;      /* B                        */
extern const dimension DIM_TIME;       /* s                        */
extern const dimension DIM_OPS;        /* flop                     */
extern const dimension DIM_OPS_RATE;   /* flop/s                   */
extern const dimension DIM_BYTE_RATE;  /* B/s                      */
extern const dimension DIM_POWER;      /* J/s (W)                  */
extern const dimension DIM_ENERGY;     /* J                        */
extern const dimension DIM_MONEY;      /* USD                      */
extern const dimension DIM_COUNTS;     /* count (param, token)     */
extern const dimension DIM_INTENSITY;  /* flop/B                   */
extern const dimension DIM_FREQUENCY;  /* 1/s                      */
extern const dimension DIM_MASS;       /* kg                       */

typedef struct {
    double si;     /* value in SI base units (B, s, flop, J, USD, count, kg) */
    dimension dim;
} quantity;

typedef enum {
    UNITS_OK = 0,
    UNITS_EMPTY,        /* empty or all-blank string                    */
    UNITS_BAD_NUMBER,   /* no number, or NaN / Infinity literal         */
    UNITS_UNKNOWN_UNIT, /* a unit name that is not in the table         */
    UNITS_BAD_SYNTAX,   /* e.g. "5 GB //s", trailing garbage            */
    UNITS_OVERFLOW,     /* number or result not finite (1e400, ...)     */
    UNITS_DIMENSION     /* units_parse_as only: dimension mismatch      */
} units_status;

bool dim_eq(dimension a, dimension b);

/* Canonical spelling of a dimension: "B/s", "flop/s", "s", "B", "J/s",
 * "flop/B", "1" for dimensionless. Returns buf. */
const char *dim_format(dimension d, char *buf, size_t n);

/* Human name of a dimension for error messages: "data rate (e.g. \"2 GB/s\")",
 * "time (e.g. \"7.24 ms\")", ... Falls back to dim_format. Returns buf. */
const char *dim_describe(dimension d, char *buf, size_t n);

/* Parse "<number> [unit-expression]", e.g. "500 KB", "2 GB/s", "1 TB / h",
 * "312 TFLOPs/s", "7.24 ms", "400 Gbps", "80GiB". Unit expressions are
 * products/quotients of unit names ("GB / s", "flop/B", "W*h"), optional
 * integer powers ("s^2"). A bare number is dimensionless.
 * On failure returns a status and, if err != NULL, a message that names the
 * offending part and says what was expected. */
units_status units_parse(const char *text, quantity *out, char *err, size_t errlen);

/* Parse a unit expression alone ("GB/s", "ms"): its SI factor and dimension. */
units_status units_parse_unit(const char *unit, double *factor, dimension *dim,
                              char *err, size_t errlen);

/* Parse text and require `want`. A bare number (no unit) is taken in
 * `bare_unit` (a unit expression of dimension `want`, e.g. "GB/s").
 * Dimension mismatch -> UNITS_DIMENSION with a message such as
 * "expected a data rate (e.g. \"2 GB/s\"), got \"5 ms\" (a time)". */
units_status units_parse_as(const char *text, dimension want, const char *bare_unit,
                            double *si_out, char *err, size_t errlen);

/* Convert an SI value to `unit` (e.g. 2.039e12 B/s -> 2039 in "GB/s").
 * Returns false if the unit is unknown or of another dimension. */
bool units_to(double si, const char *unit, dimension want, double *out);

#endif
