/* parallelism.c - mlsysim ParallelismOptimizer (engine/solvers/
 * distributed.py): the tensor x pipeline x data split of a fleet with the
 * highest MFU for a model. Power-of-two tp (up to the node size, or max_tp)
 * and pp (up to the fleet, or max_pp) that divide the fleet are screened for
 * memory (fp16 weights + gradients + 12 B/param of Adam state, sharded by
 * tp x pp, within 90 % of the accelerator's memory) and each survivor is
 * priced as a distributed step (core/distributed.h); MFU = scaling
 * efficiency x efficiency. Formulas: reference/solvers.md §21 (Narayanan et
 * al. 2021). */
#include <math.h>
#include <string.h>

#include "core/distributed.h"
#include "core/precision.h"
#include "core/solver.h"
#include "core/workload.h"

#define MAX_POWER_OF_TWO 9            /* degrees 2^0 .. 2^9 */
#define MEMORY_HEADROOM 0.9           /* state must fit in 90 % of memory */
#define ADAM_STATE_BYTES 12.0         /* engine/calibration.py TRAINING_OPTIMIZER_BYTES_ADAM */
#define ADAM_STATE_PER_WEIGHT_BYTE 6.0 /* the same, per fp16 weight byte, when the parameter count is absent */
#define SCREEN_BYTES 2.0              /* the screen sizes weights at fp16 whatever the precision */

/* DistributedModel's defaults for what the search does not vary. */
#define OVERLAP_EFFICIENCY 0.85
#define SEQ_LEN 2048

enum { I_MODEL, I_FLEET, I_BATCH, I_PRECISION, I_EFFICIENCY, I_MAX_TP, I_MAX_PP, I_OVERLAP, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload to train"},
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "Cluster: a catalog id (Research_256) or {node, count, fabric}"},
    [I_BATCH] = {.name = "batch_size", .kind = IN_INTEGER, .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true,
                 .int_max = 1e12, .description = "Global batch size"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS, .description = "Numeric format of the distributed step"},
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .check = CHECK_RANGE, .lo = 1e-9, .hi = 1.0,
                      .description = "Single-node efficiency; MFU = scaling efficiency x efficiency"},
    [I_MAX_TP] = {.name = "max_tp", .kind = IN_INTEGER, .nullable = true, .int_max = 1e9,
                  .description = "Largest tensor-parallel degree (null or 0: the node size)"},
    [I_MAX_PP] = {.name = "max_pp", .kind = IN_INTEGER, .nullable = true, .int_max = 1e9,
                  .description = "Largest pipeline-parallel degree (null or 0: the fleet size)"},
    [I_OVERLAP] = {.name = "overlap_comm", .kind = IN_BOOLEAN, .has_default = true, .def_num = 1,
                   .description = "Overlap DP communication with the backward pass"},
};

enum { O_TP, O_PP, O_DP, O_MFU, O_STEP, O_THROUGHPUT, O_SEARCHED, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_TP] = {"best_config.tp", OUT_INTEGER, "", "Tensor-parallel degree", true, false},
    [O_PP] = {"best_config.pp", OUT_INTEGER, "", "Pipeline-parallel degree", true, false},
    [O_DP] = {"best_config.dp", OUT_INTEGER, "", "Data-parallel replicas", true, false},
    [O_MFU] = {"best_mfu", OUT_NUMBER, "", "Scaling efficiency x efficiency of the best split", false, false},
    [O_STEP] = {"best_step_time", OUT_NUMBER, "ms", "Step latency of the best split", false, false},
    [O_THROUGHPUT] = {"best_throughput", OUT_NUMBER, "1/s", "Effective throughput of the best split", false, false},
    [O_SEARCHED] = {"total_searched", OUT_INTEGER, "", "Splits that passed the screen and were priced", false,
                    false},
};

/* The memory screen: fp16 weights and gradients plus Adam state per
 * accelerator, sharded by tp x pp. -1 when the model has no size. */
static int screen_fits(const model_t *m, const hw_node *acc, double tp, double pp, bool *fits)
{
    solver_error ignored;
    double weights;
    if (workload_size_bytes(m, SCREEN_BYTES, &weights, &ignored) != 0)
        return -1;
    weights = weights / tp / pp;
    double opt = isnan(m->parameters) ? weights * ADAM_STATE_PER_WEIGHT_BYTE
                                      : m->parameters * ADAM_STATE_BYTES / (tp * pp);
    *fits = weights + weights + opt <= acc->mem_capacity * MEMORY_HEADROOM;
    return 0;
}

/* A candidate's warnings join the answer's once each (Python shows a
 * repeated warning once). */
static void merge_warnings(solver_outputs *out, const solver_outputs *from)
{
    for (int i = 0; i < from->n_warnings; i++) {
        bool seen = false;
        for (int j = 0; j < out->n_warnings && !seen; j++)
            seen = strcmp(out->warnings[j], from->warnings[i]) == 0;
        if (!seen)
            solver_warn(out, "%s", from->warnings[i]);
    }
}

static int run_parallelism(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const fleet_t *fleet = in_fleet(in, I_FLEET);
    const double n = fleet_total_accelerators(fleet);
    const double efficiency = in_num(in, I_EFFICIENCY);
    double limit_tp = in_has(in, I_MAX_TP) && in_num(in, I_MAX_TP) != 0 ? in_num(in, I_MAX_TP)
                                                                        : fleet->node.accelerators_per_node;
    double limit_pp = in_has(in, I_MAX_PP) && in_num(in, I_MAX_PP) != 0 ? in_num(in, I_MAX_PP) : n;

    distributed_query q = {
        .model = m, .fleet = fleet, .batch_size = in_num(in, I_BATCH), .precision = in_enum(in, I_PRECISION),
        .efficiency = efficiency, .ep = 1, .v_stages = 1, .microbatches = 1, .overlap_comm = in_bool(in, I_OVERLAP),
        .overlap_efficiency = OVERLAP_EFFICIENCY, .congestion = 1, .straggler = 1, .moe_imbalance = 1,
        .grad_accum_steps = 1, .seq_len = SEQ_LEN};

    int searched = 0;
    double best_mfu = -INFINITY, best_tp = 0, best_pp = 0, best_dp = 0, best_step = 0, best_tput = 0;
    for (int i = 0; i <= MAX_POWER_OF_TWO; i++) {
        double tp = ldexp(1.0, i);
        if (tp > limit_tp)
            break;
        for (int j = 0; j <= MAX_POWER_OF_TWO; j++) {
            double pp = ldexp(1.0, j);
            if (pp > limit_pp)
                break;
            if (tp * pp > n || fmod(n, tp * pp) != 0)
                continue;
            bool fits;
            if (screen_fits(m, &fleet->node.accelerator, tp, pp, &fits) != 0 || !fits)
                continue;
            q.tp = tp;
            q.pp = pp;
            distributed_result r;
            solver_error cand_err;
            solver_outputs cand_msgs;
            memset(&cand_msgs, 0, sizeof cand_msgs);
            int rc = distributed_solve(&q, &r, &cand_msgs, &cand_err);
            merge_warnings(out, &cand_msgs);
            if (rc != 0)
                continue; /* mlsysim skips a split its step model rejects */
            searched++;
            double mfu = r.scaling_efficiency * efficiency;
            if (mfu > best_mfu) { /* the first of equals wins */
                best_mfu = mfu;
                best_tp = tp;
                best_pp = pp;
                best_dp = r.dp;
                best_step = r.step;
                best_tput = r.throughput;
            }
        }
    }
    if (searched == 0)
        return solver_fail(err, "fleet", "No valid parallelism configurations found for this cluster size.");
    out_int(out, O_TP, best_tp);
    out_int(out, O_PP, best_pp);
    out_int(out, O_DP, best_dp);
    out_num(out, O_MFU, best_mfu);
    out_num(out, O_STEP, best_step * 1e3);
    out_num(out, O_THROUGHPUT, best_tput);
    out_int(out, O_SEARCHED, searched);
    return 0;
}

static const char *const ALIASES[] = {"ParallelismOptimizer", NULL};

const solver_desc SOLVER_PARALLELISM = {
    .name = "parallelism",
    .aliases = ALIASES,
    .title = "Best TP x PP x DP split of a fleet for a model",
    .description = "mlsysim ParallelismOptimizer. Searches power-of-two tensor and pipeline degrees that divide "
                   "the fleet, screens them for memory (fp16 weights, gradients and Adam state within 90 % of the "
                   "accelerator), prices each as a distributed step and keeps the highest MFU (scaling efficiency "
                   "x efficiency) (Narayanan et al. 2021).",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_parallelism,
};
