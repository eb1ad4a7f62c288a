/* numfmt.h - number formatting that round-trips.
 *
 * fmt_double:  the shortest decimal text that strtod() parses back to the
 *              same double (C locale), JSON-valid: "13.971410256410255",
 *              "0.515", "256", "1e-09", "3.12e+14". Non-finite values are
 *              the caller's business (JSON writes null); here they give
 *              "null".
 * fmt_pyrepr:  Python's repr() of a float ("0.0", "1.0", "1e-09",
 *              "2039.0000000000002", "inf"), used where mlsysim's messages
 *              print a float.
 * Both return the length written (always < n; n >= 32 is enough). */
#ifndef MLSYSD_NUMFMT_H
#define MLSYSD_NUMFMT_H

#include <stddef.h>

int fmt_double(char *buf, size_t n, double v);
int fmt_pyrepr(char *buf, size_t n, double v);
/* printf("%.4g", v), the same bytes, without printf for finite values (measured
 * mode's trace terms); n >= FMT_G4_MAX. */
#define FMT_G4_MAX 32
int fmt_g4(char *buf, size_t n, double v);
/* printf("%.*f", decimals, v), the same bytes, without printf for most values
 * (serving_capacity's trace); n >= 40, decimals 0..6. */
int fmt_fixed(char *buf, size_t n, double v, int decimals);

/* The same output from the plain search (printf's %.{p}e candidates checked
 * with strtod) that the fast exact path must agree with: for tests and the
 * benchmark, not for serving. */
int fmt_double_reference(char *buf, size_t n, double v);
int fmt_pyrepr_reference(char *buf, size_t n, double v);

#endif
