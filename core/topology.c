/* topology.c - mlsysim TopologyModel (engine/solvers/distributed.py): the
 * bandwidth a network topology leaves for collectives, as a bisection
 * fraction beta of a non-blocking fat-tree (Leiserson 1985; Kim et al. 2008;
 * Dally & Towles 2003). Formulas: reference/solvers.md §20.
 *
 * mlsysim takes any topology name and models the ones it does not know as a
 * fat-tree; the service accepts the names below, and those without a model
 * of their own (hypercube, ...) get the fat-tree figures, as upstream. */
#include <math.h>

#include "core/fleet.h"
#include "core/solver.h"

typedef enum { BETA_FIXED, BETA_RING, BETA_TORUS_3D } beta_rule;
typedef enum { HOPS_FIXED, HOPS_RING, HOPS_TORUS_3D } hops_rule;

typedef struct {
    const char *name;
    beta_rule beta;
    double beta_value;      /* BETA_FIXED */
    hops_rule hops;
    double hops_value;      /* HOPS_FIXED */
    bool modelled;          /* false: mlsysim's fat-tree fallback */
} topology_row;

static const topology_row TOPOLOGIES[] = {
    {"fat_tree", BETA_FIXED, 1.0, HOPS_FIXED, 4.0, true},   /* 2 up + 2 down, 3 levels */
    {"dragonfly", BETA_FIXED, 0.85, HOPS_FIXED, 3.0, true}, /* local + global + local  */
    {"torus_3d", BETA_TORUS_3D, 0, HOPS_TORUS_3D, 0, true},
    {"ring", BETA_RING, 0, HOPS_RING, 0, true},
    {"hypercube", BETA_FIXED, 1.0, HOPS_FIXED, 4.0, false},
    {"torus_2d", BETA_FIXED, 1.0, HOPS_FIXED, 4.0, false},
    {"mesh", BETA_FIXED, 1.0, HOPS_FIXED, 4.0, false},
};
#define N_TOPOLOGIES (sizeof TOPOLOGIES / sizeof TOPOLOGIES[0])

static const char *const TOPOLOGY_NAMES[] = {"fat_tree", "dragonfly", "torus_3d", "ring", "hypercube",
                                             "torus_2d", "mesh", NULL};

enum { I_FABRIC, I_TOPOLOGY, I_NODES, I_N };
static const input_desc INPUTS[I_N] = {
    [I_FABRIC] = {.name = "fabric", .kind = IN_REF, .refs = REC_BIT(REC_FABRIC),
                  .description = "Network fabric: link bandwidth and oversubscription (InfiniBand_NDR, ...)"},
    [I_TOPOLOGY] = {.name = "topology", .kind = IN_ENUM, .has_default = true, .def_str = "fat_tree",
                    .enum_values = TOPOLOGY_NAMES,
                    .description = "fat_tree, dragonfly, torus_3d or ring; hypercube, torus_2d and mesh are "
                                   "given fat-tree figures, as mlsysim does for topologies it does not model"},
    [I_NODES] = {.name = "num_nodes", .kind = IN_INTEGER, .has_default = true, .def_num = 64, .int_max = 1e12,
                 .description = "Nodes on the network (unchecked, as mlsysim: a negative count scales the "
                                "bisection negatively; torus_3d needs a positive one)"},
};

enum { O_EFFECTIVE, O_BISECTION, O_FRACTION, O_HOPS, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_EFFECTIVE] = {.name = "effective_bw", .kind = OUT_NUMBER, .unit = "GB/s",
                     .description = "Link bandwidth x beta / oversubscription"},
    [O_BISECTION] = {.name = "bisection_bw", .kind = OUT_NUMBER, .unit = "GB/s",
                     .description = "beta x N/2 links / oversubscription (fat-tree-normalised, as mlsysim)"},
    [O_FRACTION] = {.name = "bisection_bw_fraction", .kind = OUT_NUMBER, .unit = "",
                    .description = "beta: bisection relative to a full fat-tree"},
    [O_HOPS] = {.name = "hops_avg", .kind = OUT_NUMBER, .unit = "", .description = "Average hops between two nodes"},
};

static int run_topology(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const fabric_t *f = in_fabric(in, I_FABRIC);
    const topology_row *t = &TOPOLOGIES[in_enum(in, I_TOPOLOGY)];
    double n = in_num(in, I_NODES);
    double beta = t->beta_value, hops = t->hops_value;
    switch (t->beta) {
    case BETA_RING:
        beta = 2.0 / fmax(n, 1.0); /* the cut severs 2 of N links */
        break;
    case BETA_TORUS_3D:
        /* the cut severs 2 N^(2/3) links */
        if (n == 0)
            return solver_fail(err, "num_nodes",
                               "ZeroDivisionError: 0.0 cannot be raised to a negative power (torus_3d with "
                               "num_nodes 0)");
        if (n < 0) /* Python's (-N) ** (-1/3) is a complex number, not a bandwidth fraction */
            return solver_fail(err, "num_nodes",
                               "torus_3d with a negative num_nodes: beta = 2 N^(-1/3) is a complex number "
                               "(mlsysim computes (-N) ** (-1/3) in complex arithmetic)");
        beta = 2.0 * pow(n, -1.0 / 3.0);
        break;
    case BETA_FIXED:
        break;
    }
    switch (t->hops) {
    case HOPS_RING:
        hops = n / 4.0;
        break;
    case HOPS_TORUS_3D:
        hops = 0.75 * pow(n, 1.0 / 3.0);
        break;
    case HOPS_FIXED:
        break;
    }
    double over = f->oversubscription_ratio;
    out_num(out, O_EFFECTIVE, f->bandwidth * beta / over / 1e9);
    out_num(out, O_BISECTION, f->bandwidth * beta * n / 2.0 / over / 1e9);
    out_num(out, O_FRACTION, beta);
    out_num(out, O_HOPS, hops);
    if (!t->modelled)
        solver_trace(out, "Topology: %s is not modelled; fat-tree figures (beta 1.0, 4 hops) used, as mlsysim does.",
                     t->name);
    return 0;
}

static const char *const ALIASES[] = {"TopologyModel", NULL};

const solver_desc SOLVER_TOPOLOGY = {
    .name = "topology",
    .aliases = ALIASES,
    .title = "Network topology: effective and bisection bandwidth, average hops",
    .description = "mlsysim TopologyModel. The bisection fraction beta of fat-tree (1), dragonfly (0.85), 3D "
                   "torus (2 N^-1/3) and ring (2/N) topologies scales the fabric's link bandwidth into the "
                   "bandwidth collectives see (Leiserson 1985; Kim et al. 2008; Dally & Towles 2003).",
    .assumptions = "Bisection bandwidth and average hops of a topology from closed-form factors. Leaves out routing, "
                   "congestion, link failures and the traffic pattern.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_topology,
    .example_json = "{\"fabric\":\"InfiniBand_NDR\",\"topology\":\"torus_3d\",\"num_nodes\":512}",
};

/* TOPOLOGY_NAMES lists TOPOLOGIES' names in order: in_enum indexes both. */
_Static_assert(sizeof TOPOLOGY_NAMES / sizeof TOPOLOGY_NAMES[0] == N_TOPOLOGIES + 1, "one name per topology row");
