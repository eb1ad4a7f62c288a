/* bench_util.h - the clock and ordering helpers the benchmark programs share. */
#ifndef MLSYSD_BENCH_UTIL_H
#define MLSYSD_BENCH_UTIL_H

#include <time.h>

static inline double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* qsort comparator for doubles (medians of repeated runs). */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
