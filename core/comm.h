/* comm.h - collective-communication and pipeline-bubble time models shared
 * by the training solvers (distributed, moe_routing, parallelism), after
 * mlsysim physics/communication.py and engine/solvers/utils.py
 * (reference/solvers.md §H.2, §H.4-§H.6, §H.12). alpha-beta models: a
 * message of M bytes over links of bw B/s with alpha seconds per hop.
 *
 * Callers: core/ solvers only. Times are seconds. Each collective returns 0,
 * or -1 with mlsysim's validation message in err, attributed to `field` (the
 * solver input the bandwidth came from). */
#ifndef MLSYSD_COMM_H
#define MLSYSD_COMM_H

#include "core/fleet.h"
#include "core/solver.h"

/* Default per-hop latencies (H.12): NVLink 500 ns inside a node,
 * InfiniBand NDR 5 us across nodes. */
#define COMM_INTRA_NODE_LATENCY 500e-9
#define COMM_INTER_NODE_LATENCY 5e-6

/* H.12: the accelerator's NVLink latency if it has one, else 500 ns. */
double comm_intra_node_latency(const node_t *node);
/* H.12: the fabric's latency if set, else 5 us. */
double comm_inter_node_latency(const fabric_t *fabric);
/* Fabric bandwidth each node sees: bandwidth / oversubscription_ratio. */
double comm_fabric_bw(const fabric_t *fabric);

/* H.2 ring AllReduce: 2(n-1)/n * M/bw + 2(n-1) * alpha; 0 for n == 1. */
int comm_ring_allreduce(double bytes, double n, double bw, double alpha, const char *field, double *t,
                        solver_error *err);

/* H.4 all-to-all: (n-1)/n * M/bw + (n-1) * alpha. */
int comm_all_to_all(double bytes, double n, double bw, double alpha, const char *field, double *t,
                    solver_error *err);

/* H.5 hierarchical AllReduce in three phases: intra-node reduce-scatter, a
 * ring AllReduce of M/g across n_nodes, intra-node all-gather; the intra
 * phases use the 500 ns default latency. */
int comm_hierarchical_allreduce(double bytes, double n_nodes, double gpus_per_node, double intra_bw,
                                double inter_bw, double inter_alpha, const char *field, double *t,
                                solver_error *err);

/* H.6 pipeline bubble fraction (p-1) / (v*m + p - 1); p, m, v >= 1. */
double comm_pipeline_bubble(double p, double m, double v);

#endif
