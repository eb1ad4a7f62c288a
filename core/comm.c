/* comm.c - see comm.h. Formulas: reference/solvers.md §H.2 (ring AllReduce,
 * Patarasuk & Mueller 2009), §H.4 (all-to-all), §H.5 (hierarchical
 * AllReduce, the three-phase form of the 2026-06-06 audit), §H.6 (pipeline
 * bubble, Narayanan et al. 2019) and §H.12 (latency fallbacks). */
#include "core/comm.h"

#include <math.h>

#include "core/numfmt.h"

double comm_intra_node_latency(const node_t *node)
{
    const hw_node *acc = &node->accelerator;
    return acc->has_nvlink && !isnan(acc->nvlink_latency) ? acc->nvlink_latency : COMM_INTRA_NODE_LATENCY;
}

double comm_inter_node_latency(const fabric_t *fabric)
{
    return isnan(fabric->latency) ? COMM_INTER_NODE_LATENCY : fabric->latency;
}

double comm_fabric_bw(const fabric_t *fabric) { return fabric->bandwidth / fabric->oversubscription_ratio; }

/* validate_positive on a bandwidth, with mlsysim's parameter name. */
static int check_bw(double bw, const char *what, const char *field, solver_error *err)
{
    if (bw > 0)
        return 0;
    char got[40];
    fmt_pyrepr(got, sizeof got, bw);
    return solver_fail(err, field, "%s must be positive, got %s", what, got);
}

static int check_ranks(double n, const char *what, const char *field, solver_error *err)
{
    if (n >= 1)
        return 0;
    return solver_fail(err, field, "%s must be >= 1, got %.0f", what, n);
}

int comm_ring_allreduce(double bytes, double n, double bw, double alpha, const char *field, double *t,
                        solver_error *err)
{
    if (check_ranks(n, "n_gpus", field, err) != 0)
        return -1;
    if (n == 1) {
        *t = 0.0;
        return 0;
    }
    if (check_bw(bw, "bandwidth_bytes_s", field, err) != 0)
        return -1;
    *t = 2.0 * (n - 1.0) / n * bytes / bw + 2.0 * (n - 1.0) * alpha;
    return 0;
}

int comm_all_to_all(double bytes, double n, double bw, double alpha, const char *field, double *t,
                    solver_error *err)
{
    if (check_ranks(n, "n_gpus", field, err) != 0 || check_bw(bw, "bandwidth_bytes_s", field, err) != 0)
        return -1;
    *t = (n - 1.0) / n * bytes / bw + (n - 1.0) * alpha;
    return 0;
}

int comm_hierarchical_allreduce(double bytes, double n_nodes, double g, double intra_bw, double inter_bw,
                                double inter_alpha, const char *field, double *t, solver_error *err)
{
    if (check_ranks(g, "gpus_per_node", field, err) != 0 || check_bw(intra_bw, "intra_node_bw", field, err) != 0)
        return -1;
    /* Reduce-scatter and all-gather inside the node cost the same. */
    double intra_phase = (g - 1.0) / g * bytes / intra_bw + (g - 1.0) * COMM_INTRA_NODE_LATENCY;
    double inter_phase;
    if (comm_ring_allreduce(bytes / g, n_nodes, inter_bw, inter_alpha, field, &inter_phase, err) != 0)
        return -1;
    *t = intra_phase + inter_phase + intra_phase;
    return 0;
}

double comm_pipeline_bubble(double p, double m, double v) { return (p - 1.0) / (v * m + p - 1.0); }
