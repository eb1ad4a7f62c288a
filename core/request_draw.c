/* request_draw.c - the seeded draw of a request stream (contract in
 * request_draw.h): splitmix64 seeding xoshiro256** (Blackman & Vigna), one
 * stream per quantity; exponential and gamma gaps (Marsaglia & Tsang 2000),
 * uniform, exponential and lognormal lengths. */
#include "core/request_draw.h"

#include <math.h>
#include <stddef.h>

#define MAX_LEN_FACTOR 16.0 /* drawn lengths are clipped to 16 x their mean */

const char *const REQUEST_LENGTH_DISTS[] = {"fixed", "uniform", "exponential", "lognormal", NULL};

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void rng_seed(request_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(request_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1). */
static double rng_u(request_rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

static double rng_exp(request_rng *r) { return -log1p(-rng_u(r)); }

static double rng_normal(request_rng *r)
{
    double u1 = rng_u(r), u2 = rng_u(r);
    return sqrt(-2.0 * log1p(-u1)) * cos(2.0 * M_PI * u2);
}

/* Gamma of shape k, scale 1 (Marsaglia & Tsang 2000; k < 1 boosted). */
static double rng_gamma(request_rng *r, double k)
{
    if (k < 1.0) {
        double g = rng_gamma(r, k + 1.0);
        return g * pow(1.0 - rng_u(r), 1.0 / k);
    }
    double d = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = rng_u(r);
        if (u < 1.0 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v;
    }
}

/* A length of mean `mean` from distribution `dist`, rounded, in [1, 16 x mean]. */
static int draw_length(request_rng *r, int dist, double mean, double cv)
{
    double x = mean;
    switch (dist) {
    case LEN_UNIFORM: {
        double half = sqrt(3.0) * cv * mean;
        x = mean - half + 2.0 * half * rng_u(r);
        break;
    }
    case LEN_EXP:
        x = mean * rng_exp(r);
        break;
    case LEN_LOGNORMAL: {
        double s2 = log(1.0 + cv * cv);
        x = exp(log(mean) - 0.5 * s2 + sqrt(s2) * rng_normal(r));
        break;
    }
    default:
        break;
    }
    x = fmin(fmax(round(x), 1.0), fmax(1.0, floor(MAX_LEN_FACTOR * mean)));
    return (int)x;
}

void request_draw_init(request_drawer *d, const request_draw_spec *spec)
{
    d->spec = *spec;
    rng_seed(&d->gaps, spec->seed, 1);
    rng_seed(&d->prompts, spec->seed, 2);
    rng_seed(&d->outputs, spec->seed, 3);
    d->t = 0;
    d->drawn = 0;
}

void request_draw_next(request_drawer *d, double *arrival_s, int *prompt_tokens, int *output_tokens)
{
    const request_draw_spec *s = &d->spec;
    const double cv = s->arrival_cv, shape = cv > 0 ? 1.0 / (cv * cv) : 0;
    double gap = !s->gamma ? rng_exp(&d->gaps) : cv > 0 ? rng_gamma(&d->gaps, shape) / shape : 1.0;
    if (d->drawn > 0)
        d->t += gap / s->rate;
    d->drawn++;
    *arrival_s = d->t;
    *prompt_tokens = draw_length(&d->prompts, s->prompt_dist, s->prompt_mean, s->length_cv);
    *output_tokens = draw_length(&d->outputs, s->output_dist, s->output_mean, s->length_cv);
}
