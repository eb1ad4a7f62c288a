/* numfmt_ref.h - the previous (printf + strtod) shortest formatter, for
 * comparison and differential checks. See numfmt_ref.c. */
#ifndef MLSYSD_BENCH_NUMFMT_REF_H
#define MLSYSD_BENCH_NUMFMT_REF_H

#include <stddef.h>

int ref_fmt_double(char *buf, size_t n, double v);
int ref_fmt_pyrepr(char *buf, size_t n, double v);

#endif
