/* queueing.h - the M/M/c queue behind mlsysim's serving latency models:
 * Erlang C waits (physics/serving.py calc_queue_latency_mmc, reference/
 * solvers.md §H.10) and TailLatencyModel's percentiles with the Kingman
 * correction (§12). Pure functions; tail_latency, serving_capacity and
 * batching_optimizer call them. */
#ifndef MLSYSD_QUEUEING_H
#define MLSYSD_QUEUEING_H

#include <stdbool.h>

typedef struct {
    double rho;        /* utilization lambda / (c mu); 1.0 when unstable          */
    double wait_p50;   /* s, +inf when unstable                                   */
    double wait_p99;   /* s, +inf when unstable                                   */
} mmc_waits;

/* lambda, mu in 1/s; c servers (taken as max(1, c)). Unstable when
 * lambda >= c mu or mu == 0. */
mmc_waits mmc_queue(double lambda, double mu, double c);

typedef struct {
    double p50_ms;          /* wait + service, ms (+inf when unstable) */
    double p99_ms;
    double utilization;     /* rho */
    bool stable;            /* rho < 1 */
    double slo_headroom;    /* P99 wait / (5 x service time); 1.0 when unstable */
} tail_latency;

/* TailLatencyModel.solve: arrivals in 1/s, mean service time in ms,
 * replicas, service-time coefficient of variation (>= 0, checked by the
 * caller). */
tail_latency tail_latency_solve(double arrival_qps, double service_ms, double replicas, double cv);

#endif
