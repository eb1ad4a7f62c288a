/* request_draw.h - the seeded draw of a request stream: arrival times
 * (Poisson, or gamma gaps with a coefficient of variation) and prompt and
 * output lengths (fixed, uniform, exponential, lognormal).
 *
 * serving_simulation draws its requests here when the client gives no trace;
 * tests call it to build the trace equal to a draw. Pure computation, no
 * allocation: one request per request_draw_next(). */
#ifndef MLSYSD_REQUEST_DRAW_H
#define MLSYSD_REQUEST_DRAW_H

#include <stdbool.h>
#include <stdint.h>

/* Length distributions, in the order of REQUEST_LENGTH_DISTS' names. */
enum { LEN_FIXED, LEN_UNIFORM, LEN_EXP, LEN_LOGNORMAL };
/* "fixed", "uniform", "exponential", "lognormal", NULL */
extern const char *const REQUEST_LENGTH_DISTS[];

typedef struct {
    double rate;        /* mean arrivals per second, > 0 */
    bool gamma;         /* gamma gaps (else exponential) */
    double arrival_cv;  /* gamma: coefficient of variation of the gaps (0: evenly spaced) */
    int prompt_dist, output_dist; /* LEN_* */
    double prompt_mean, output_mean;
    double length_cv;   /* uniform and lognormal lengths */
    uint64_t seed;
} request_draw_spec;

/* splitmix64 seeding xoshiro256** (Blackman & Vigna), one stream each for
 * the gaps, the prompts and the outputs: the same seed at another rate draws
 * the same lengths and the same arrival times, scaled. */
typedef struct {
    uint64_t s[4];
} request_rng;

typedef struct {
    request_draw_spec spec;
    request_rng gaps, prompts, outputs;
    double t;           /* the last arrival drawn */
    long drawn;
} request_drawer;

void request_draw_init(request_drawer *d, const request_draw_spec *spec);
/* The next request: the first arrives at 0; lengths are rounded, at least 1
 * and at most 16 x their mean. */
void request_draw_next(request_drawer *d, double *arrival_s, int *prompt_tokens, int *output_tokens);

#endif
