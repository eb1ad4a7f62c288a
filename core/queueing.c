/* queueing.c - see queueing.h. */
#include "core/queueing.h"

#include <math.h>

/* Erlang C (§H.10): the probability an arrival waits,
 * T_c / (sum_{i<c} a^i/i! + T_c) with T_c = a^c / (c! (1 - rho)).
 * The reference carries every term as its logarithm (lgamma) and combines
 * them by log-sum-exp, so large clusters neither overflow nor underflow. The
 * same holds here with every term divided by the largest one, a^m/m! at
 * m = floor(a) (a < c when the queue is stable): neighbours differ by the
 * factor a/i, so the terms are products of ratios, at most 1, with no
 * logarithm or exponential per term. Against a long-double evaluation this
 * is within 1e-15 where the log form is within 1e-10 (c up to 1e5). Where a
 * logarithm is undefined (no load: a <= 0) the reference falls back to rho. */
static double erlang_c(double a, double rho, double c)
{
    if (!(a > 0))
        return rho;
    double m = fmin(floor(a), c - 1);
    double sum = 1, u = 1;
    for (double i = m; i > 0; i--) { /* term i-1 = term i x i / a */
        u *= i / a;
        /* The terms only shrink from here (i <= a). Once one is under half a unit
         * in the last place of the sum (sum x 2^-54 is less than that), adding it,
         * or any later one, leaves the sum as it is: stop (the same sum, bit for
         * bit, in O(sqrt(a)) terms). */
        if (u < sum * 0x1p-54)
            break;
        sum += u;
    }
    u = 1;
    const double tail = (a / c) / (1 - rho); /* T_c = term c-1 x tail */
    for (double i = m + 1; i < c; i++) { /* term i = term i-1 x a / i */
        u *= a / i;
        sum += u;
        /* The terms only shrink here too (i > a), so T_c <= u (a / c) / (1 - rho):
         * once that is a thousandth of the sum, the probability of waiting is
         * surely under 0.01, where mmc_queue's waits are 0 whatever its value. */
        if (u * tail < 1e-3 * sum)
            return 0.0;
    }
    double last = u * (a / c) / (1 - rho); /* u is term c-1 here */
    return last / (sum + last);
}

mmc_waits mmc_queue(double lambda, double mu, double c)
{
    c = fmax(1.0, trunc(c));
    if (lambda >= c * mu || mu == 0)
        return (mmc_waits){1.0, INFINITY, INFINITY};
    double rho = lambda / (c * mu);
    double p_wait = erlang_c(c * rho, rho, c); /* exact, or 0 where it is surely under 0.01 */
    if (isnan(p_wait) || isinf(p_wait))
        p_wait = rho;
    p_wait = fmax(0.0, fmin(1.0, p_wait));
    /* Given a wait, it is exponential with rate c mu (1 - rho): the
     * q-quantile of the unconditional wait is -ln(q / p_wait) / rate, zero
     * when fewer than a fraction q of arrivals wait at all. */
    double rate = c * mu * (1 - rho);
    mmc_waits w = {rho, 0.0, 0.0};
    if (!(p_wait < 0.5))
        w.wait_p50 = fmax(0.0, -log(0.5 / p_wait) / rate);
    if (!(p_wait < 0.01))
        w.wait_p99 = fmax(0.0, -log(0.01 / p_wait) / rate);
    return w;
}

tail_latency tail_latency_solve(double arrival_qps, double service_ms, double replicas, double cv)
{
    double mu = service_ms > 0 ? 1000.0 / service_ms : 0.0;
    mmc_waits w = mmc_queue(arrival_qps, mu, replicas);
    /* Kingman: M/G/c waits ~ M/M/c waits x (cv^2 + 1) / 2. */
    if (cv != 1.0) {
        double k = (cv * cv + 1) / 2;
        w.wait_p50 *= k;
        w.wait_p99 *= k;
    }
    tail_latency t;
    t.stable = w.rho < 1.0;
    t.utilization = w.rho;
    double p99_wait_ms = w.wait_p99 * 1e3, threshold = 5 * service_ms;
    double headroom = !t.stable ? 1.0 : (threshold > 0 ? p99_wait_ms / threshold : 0.0);
    t.slo_headroom = fmax(0.0, headroom);
    t.p50_ms = w.wait_p50 * 1e3 + service_ms;
    t.p99_ms = p99_wait_ms + service_ms;
    return t;
}
