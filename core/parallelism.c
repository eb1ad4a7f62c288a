/* parallelism.c - mlsysim ParallelismOptimizer (engine/solvers/
 * distributed.py): the tensor x pipeline x data split of a fleet with the
 * highest MFU for a model. Power-of-two tp (up to the node size, or max_tp)
 * and pp (up to the fleet, or max_pp) that divide the fleet are screened for
 * memory (fp16 weights + gradients + 12 B/param of Adam state, sharded by
 * tp x pp, within 90 % of the accelerator's memory) and each survivor is
 * priced as a distributed step (core/distributed.h); MFU = scaling
 * efficiency x efficiency. Formulas: reference/solvers.md §21 (Narayanan et
 * al. 2021). top_candidates are the five best by MFU, as mlsysim lists them.
 *
 * Beyond mlsysim, mode "exhaustive" searches every configuration: tp any
 * divisor of the fleet up to max_tp (default the node size), pp any divisor
 * of the rest up to max_pp and the model's layer count, dp the rest (at most
 * the batch, so no rank idles), pipeline microbatches a power of two up to
 * the per-replica batch (1 without a pipeline), ZeRO stage 0-3 and
 * activation checkpointing off or full. Each is sized by training_memory
 * (§15: Adam, the microbatch's activations on one stage, on the whole
 * accelerator memory) and priced by the distributed step (§18; by default
 * its sharded model, where the split shares the work; microbatches fill the
 * pipeline, recomputation when checkpointing).
 * Of the configurations of one split that fit, the fastest with the least
 * memory is kept (ZeRO changes memory, not the step, in this model); splits
 * are ranked by step time, then memory, and the top_k are listed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/distributed.h"
#include "core/numfmt.h"
#include "core/precision.h"
#include "core/solver.h"
#include "core/training_memory.h"
#include "core/workload.h"

#define MAX_POWER_OF_TWO 9            /* degrees 2^0 .. 2^9 */
#define MEMORY_HEADROOM 0.9           /* state must fit in 90 % of memory */
#define ADAM_STATE_PER_WEIGHT_BYTE 6.0 /* the same, per fp16 weight byte, when the parameter count is absent */
#define SCREEN_BYTES 2.0              /* the screen sizes weights at fp16 whatever the precision */

/* DistributedModel's defaults for what the search does not vary. */
#define OVERLAP_EFFICIENCY 0.85
#define SEQ_LEN 2048

static const char *const MODES[] = {"mlsysim", "exhaustive", NULL};
enum { MODE_MLSYSIM, MODE_EXHAUSTIVE };

enum {
    I_MODEL, I_FLEET, I_BATCH, I_PRECISION, I_EFFICIENCY, I_MAX_TP, I_MAX_PP, I_OVERLAP, I_MODE, I_TOP_K, I_STEP_MODEL,
    I_N
};
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload to train"},
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "Cluster: a catalog id (Research_256) or {node, count, fabric}"},
    [I_BATCH] = {.name = "batch_size", .kind = IN_INTEGER, .int_max = 1e12,
                 .description = "Global batch size (>= 1)"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS,
                     /* mlsysim: DistributedModel rejects it for every split, each rejection is skipped */
                     .enum_refusal = "No valid parallelism configurations found for this cluster size. "
                                     "(DistributedModel rejects every split: precision '{}' is not supported. "
                                     "Supported precision values: bf16, fp16, fp32, fp8, int4, int8, tf32)",
                     .description = "Numeric format of the distributed step"},
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .description = "Single-node efficiency in [1e-9, 1]; MFU = scaling efficiency x efficiency"},
    [I_MAX_TP] = {.name = "max_tp", .kind = IN_INTEGER, .nullable = true, .int_max = 1e9,
                  .description = "Largest tensor-parallel degree (null or 0: the node size)"},
    [I_MAX_PP] = {.name = "max_pp", .kind = IN_INTEGER, .nullable = true, .int_max = 1e9,
                  .description = "Largest pipeline-parallel degree (null or 0: the fleet size)"},
    [I_OVERLAP] = {.name = "overlap_comm", .kind = IN_BOOLEAN, .has_default = true, .def_num = 1,
                   .description = "Overlap DP communication with the backward pass"},
    [I_MODE] = {.name = "mode", .kind = IN_ENUM, .has_default = true, .def_str = "mlsysim", .enum_values = MODES,
                .description = "mlsysim: its power-of-two search, ranked by MFU (parity); exhaustive: every tp, "
                               "pp, dp, microbatch count, ZeRO stage and activation checkpointing that fits in "
                               "memory, ranked by step time"},
    [I_TOP_K] = {.name = "top_k", .kind = IN_INTEGER, .has_default = true, .def_num = 10, .check = CHECK_RANGE,
                 .lo = 1, .hi = SOLVER_MAX_ROWS, .lo_is_int = true, .hi_is_int = true,
                 .description = "Configurations listed in top_candidates by the exhaustive mode (mlsysim lists 5)"},
    [I_STEP_MODEL] = {.name = "step_model", .kind = IN_ENUM, .nullable = true, .enum_values = DISTRIBUTED_STEP_MODELS,
                      .description = "How each configuration's step is priced, as distributed's step_model; null: "
                                     "mlsysim in mode mlsysim, sharded in mode exhaustive (where every "
                                     "accelerator running the whole model would rank splits by offloading)"},
};

enum { O_TP, O_PP, O_DP, O_MFU, O_STEP, O_THROUGHPUT, O_SEARCHED, O_MICRO, O_ZERO, O_CKPT, O_MEMORY, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_TP] = {.name = "best_config.tp", .kind = OUT_INTEGER, .unit = "",
              .description = "Tensor-parallel degree", .categorical = true},
    [O_PP] = {.name = "best_config.pp", .kind = OUT_INTEGER, .unit = "",
              .description = "Pipeline-parallel degree", .categorical = true},
    [O_DP] = {.name = "best_config.dp", .kind = OUT_INTEGER, .unit = "",
              .description = "Data-parallel replicas", .categorical = true},
    [O_MFU] = {.name = "best_mfu", .kind = OUT_NUMBER, .unit = "",
               .description = "Scaling efficiency x efficiency of the best split"},
    [O_STEP] = {.name = "best_step_time", .kind = OUT_NUMBER, .unit = "ms",
                .description = "Step latency of the best split"},
    [O_THROUGHPUT] = {.name = "best_throughput", .kind = OUT_NUMBER, .unit = "1/s",
                      .description = "Effective throughput of the best split"},
    [O_SEARCHED] = {.name = "total_searched", .kind = OUT_INTEGER, .unit = "",
                    .description = "mlsysim: splits that passed the screen and were priced; exhaustive: "
                                   "configurations sized"},
    [O_MICRO] = {.name = "best_microbatches", .kind = OUT_INTEGER, .unit = "",
                 .description = "Pipeline microbatches of the best configuration", .categorical = true},
    [O_ZERO] = {.name = "best_zero_stage", .kind = OUT_INTEGER, .unit = "",
                .description = "ZeRO stage of the best configuration (mlsysim mode: 0)", .categorical = true},
    [O_CKPT] = {.name = "best_activation_checkpointing", .kind = OUT_STRING, .unit = "",
                .description = "none or full: whether the best configuration recomputes activations",
                .categorical = true},
    [O_MEMORY] = {.name = "best_memory_per_accelerator", .kind = OUT_NUMBER, .unit = "B",
                  .description = "Training memory per accelerator of the best configuration (exhaustive mode; null in "
                                 "mlsysim mode, whose screen is cruder)", .nullable = true},
};

enum { C_TP, C_PP, C_DP, C_MICRO, C_ZERO, C_CKPT, C_STEP, C_MFU, C_THROUGHPUT, C_BUBBLE, C_MEMORY, C_N };
static const output_desc COLUMNS[C_N] = {
    [C_TP] = {.name = "tp", .kind = OUT_INTEGER, .unit = "", .description = "Tensor-parallel degree"},
    [C_PP] = {.name = "pp", .kind = OUT_INTEGER, .unit = "", .description = "Pipeline-parallel degree"},
    [C_DP] = {.name = "dp", .kind = OUT_INTEGER, .unit = "", .description = "Data-parallel replicas"},
    [C_MICRO] = {.name = "microbatches", .kind = OUT_INTEGER, .unit = "", .description = "Pipeline microbatches"},
    [C_ZERO] = {.name = "zero_stage", .kind = OUT_INTEGER, .unit = "",
                .description = "ZeRO stage (the lowest that fits)"},
    [C_CKPT] = {.name = "activation_checkpointing", .kind = OUT_STRING, .unit = "", .description = "none or full"},
    [C_STEP] = {.name = "step_time", .kind = OUT_NUMBER, .unit = "ms", .description = "Step latency"},
    [C_MFU] = {.name = "mfu", .kind = OUT_NUMBER, .unit = "", .description = "Scaling efficiency x efficiency"},
    [C_THROUGHPUT] = {.name = "throughput", .kind = OUT_NUMBER, .unit = "1/s", .description = "Effective throughput"},
    [C_BUBBLE] = {.name = "bubble_fraction", .kind = OUT_NUMBER, .unit = "", .description = "Pipeline bubble fraction"},
    [C_MEMORY] = {.name = "memory_per_accelerator", .kind = OUT_NUMBER, .unit = "B",
                  .description = "Training memory per accelerator (null in mlsysim mode)", .nullable = true},
};

static const table_desc TABLE = {
    .name = "top_candidates",
    .description = "mlsysim mode: the five splits with the highest MFU (ties in search order); exhaustive: the "
                   "top_k configurations by step time, then memory",
    .columns = COLUMNS,
    .n_columns = C_N,
};

/* One priced configuration. */
typedef struct {
    double tp, pp, dp, micro;
    int zero;
    bool recompute;
    double step, mfu, throughput, bubble, memory; /* memory NAN: not sized */
    long order;                                   /* search order, for stable ranking */
} config;

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
                                      : m->parameters * TRAINING_ADAM_BYTES / (tp * pp);
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

static void put_config(solver_outputs *out, const config *c)
{
    int r = out_row(out);
    if (r < 0)
        return; /* top_k is at most SOLVER_MAX_ROWS */
    out_cell_num(out, r, C_TP, c->tp);
    out_cell_num(out, r, C_PP, c->pp);
    out_cell_num(out, r, C_DP, c->dp);
    out_cell_num(out, r, C_MICRO, c->micro);
    out_cell_num(out, r, C_ZERO, c->zero);
    out_cell_str(out, r, C_CKPT, c->recompute ? "full" : "none");
    out_cell_num(out, r, C_STEP, c->step * 1e3);
    out_cell_num(out, r, C_MFU, c->mfu);
    out_cell_num(out, r, C_THROUGHPUT, c->throughput);
    out_cell_num(out, r, C_BUBBLE, c->bubble);
    if (!isnan(c->memory))
        out_cell_num(out, r, C_MEMORY, c->memory);
}

static void put_best(solver_outputs *out, const config *best, int searched)
{
    out_int(out, O_TP, best->tp);
    out_int(out, O_PP, best->pp);
    out_int(out, O_DP, best->dp);
    out_num(out, O_MFU, best->mfu);
    out_num(out, O_STEP, best->step * 1e3);
    out_num(out, O_THROUGHPUT, best->throughput);
    out_int(out, O_SEARCHED, searched);
    out_int(out, O_MICRO, best->micro);
    out_int(out, O_ZERO, best->zero);
    out_str(out, O_CKPT, best->recompute ? "full" : "none");
    if (isnan(best->memory))
        out_null(out, O_MEMORY);
    else
        out_num(out, O_MEMORY, best->memory);
}

/* Whether a ranks before b: higher MFU (mlsysim mode), or shorter step then
 * less memory (exhaustive); equals in search order. */
static bool ranks_before(const config *a, const config *b, bool by_step)
{
    if (by_step) {
        if (a->step != b->step)
            return a->step < b->step;
        if (a->memory != b->memory)
            return a->memory < b->memory;
    } else if (a->mfu != b->mfu) {
        return a->mfu > b->mfu;
    }
    return a->order < b->order;
}

/* Keep c in top (at most k, best first) if it ranks there. */
static void keep_top(config *top, int *n, int k, const config *c, bool by_step)
{
    if (*n == k && !ranks_before(c, &top[k - 1], by_step))
        return;
    int i = *n < k ? (*n)++ : k - 1;
    while (i > 0 && ranks_before(c, &top[i - 1], by_step)) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = *c;
}

static distributed_query step_query(const solver_inputs *in)
{
    step_model kind = in_has(in, I_STEP_MODEL) ? (step_model)in_enum(in, I_STEP_MODEL)
                      : in_enum(in, I_MODE) == MODE_EXHAUSTIVE ? STEP_SHARDED
                                                               : STEP_MLSYSIM;
    return (distributed_query){
        .model_kind = kind,
        .model = in_model(in, I_MODEL), .fleet = in_fleet(in, I_FLEET), .batch_size = in_num(in, I_BATCH),
        .precision = in_enum(in, I_PRECISION), .efficiency = in_num(in, I_EFFICIENCY), .ep = 1, .v_stages = 1,
        .microbatches = 1, .overlap_comm = in_bool(in, I_OVERLAP), .overlap_efficiency = OVERLAP_EFFICIENCY,
        .congestion = 1, .straggler = 1, .moe_imbalance = 1, .grad_accum_steps = 1, .seq_len = SEQ_LEN};
}

/* Price q's split; 0, or -1 when the step model rejects it. */
static int price(const distributed_query *q, solver_outputs *out, config *c)
{
    distributed_result r;
    solver_error ignored;
    static _Thread_local solver_outputs msgs;
    solver_outputs_reset(&msgs);
    int rc = distributed_solve(q, &r, &msgs, &ignored);
    merge_warnings(out, &msgs);
    if (rc != 0)
        return -1;
    c->dp = r.dp;
    c->step = r.step;
    c->mfu = r.scaling_efficiency * q->efficiency;
    c->throughput = r.throughput;
    c->bubble = r.bubble_fraction;
    return 0;
}

static int run_mlsysim(const solver_inputs *in, double limit_tp, double limit_pp, solver_outputs *out,
                       solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const fleet_t *fleet = in_fleet(in, I_FLEET);
    const double n = fleet_total_accelerators(fleet);
    distributed_query q = step_query(in);
    config top[5];
    int n_top = 0, searched = 0;
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
            config c = {.tp = tp, .pp = pp, .micro = 1, .memory = NAN, .order = searched};
            if (price(&q, out, &c) != 0)
                continue; /* mlsysim skips a split its step model rejects */
            searched++;
            keep_top(top, &n_top, 5, &c, false);
        }
    }
    if (searched == 0)
        return solver_fail(err, "fleet", "No valid parallelism configurations found for this cluster size.");
    put_best(out, &top[0], searched);
    for (int i = 0; i < n_top; i++)
        put_config(out, &top[i]);
    return 0;
}

/* Of one split (tp, pp, microbatches), the configuration that fits with the
 * fastest step and the least memory: no recomputation before recomputation
 * (it adds compute), then the lowest ZeRO stage that fits. Sizes every pair
 * tried into *sized; 0 with *found set, or -1 when the model cannot be sized. */
static int fit_split(const training_memory_query *base, double capacity, config *c,
                     bool *found, int *sized, solver_error *err)
{
    *found = false;
    for (int rc = 0; rc < 2 && !*found; rc++) {
        for (int zero = 0; zero <= 3; zero++) {
            training_memory_query mq = *base;
            mq.checkpointing = rc ? ACT_FULL : ACT_NONE;
            mq.zero_stage = zero;
            training_memory_result mr;
            if (training_memory(&mq, &mr, err) != 0)
                return -1;
            ++*sized;
            if (mr.total <= capacity) {
                c->zero = zero;
                c->recompute = rc;
                c->memory = mr.total;
                *found = true;
                break;
            }
        }
    }
    return 0;
}

static int run_exhaustive(const solver_inputs *in, double limit_tp, double limit_pp, solver_outputs *out,
                          solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const fleet_t *fleet = in_fleet(in, I_FLEET);
    const double n = fleet_total_accelerators(fleet), batch = in_num(in, I_BATCH);
    const double capacity = fleet->node.accelerator.mem_capacity;
    const int k = in_int(in, I_TOP_K);
    if (m->layers >= 1 && limit_pp > m->layers)
        limit_pp = m->layers; /* a stage holds at least one layer */
    distributed_query q = step_query(in);
    training_memory_query mq = {.model = m, .batch_size = batch, .seq_len = SEQ_LEN,
                                .bytes_per_element = precision_bytes(in_enum(in, I_PRECISION)),
                                .optimizer_bytes = TRAINING_ADAM_BYTES, .ep = 1, .trainable_fraction = 1,
                                .buffer_fraction = TRAINING_BUFFER_FRACTION};
    config top[SOLVER_MAX_ROWS];
    int n_top = 0, sized = 0;
    long order = 0;
    for (double tp = 1; tp <= limit_tp && tp <= n; tp++) {
        if (fmod(n, tp) != 0)
            continue;
        for (double pp = 1; pp <= limit_pp && tp * pp <= n; pp++) {
            if (fmod(n, tp * pp) != 0)
                continue;
            double dp = n / (tp * pp);
            if (dp > batch)
                continue; /* a replica without a sample */
            double local = floor(batch / dp);
            for (double micro = 1; micro <= (pp > 1 ? local : 1); micro *= 2) {
                mq.tp = tp;
                mq.pp = pp;
                mq.dp = dp;
                mq.grad_accum_steps = micro; /* the microbatch's activations are what a stage holds */
                config c = {.tp = tp, .pp = pp, .micro = micro, .order = order++};
                bool found;
                if (fit_split(&mq, capacity, &c, &found, &sized, err) != 0)
                    return -1;
                if (!found)
                    continue;
                q.tp = tp;
                q.pp = pp;
                q.microbatches = micro;
                q.activation_recomputation = c.recompute;
                q.zero_stage = c.zero;
                if (price(&q, out, &c) != 0)
                    continue;
                keep_top(top, &n_top, k, &c, true);
            }
        }
    }
    if (n_top == 0)
        return solver_fail(err, "fleet",
                           "No parallelism configuration fits: %d configurations sized, none within the "
                           "accelerator's memory with ZeRO-3 and full activation checkpointing",
                           sized);
    put_best(out, &top[0], sized);
    for (int i = 0; i < n_top; i++)
        put_config(out, &top[i]);
    return 0;
}

/* mlsysim validates neither batch_size nor efficiency itself: DistributedModel
 * rejects them for every split, each rejection is skipped, and what is left
 * is its "no configuration" error. */
static int check_step_inputs(const solver_inputs *in, solver_error *err)
{
    double batch = in_num(in, I_BATCH), e = in_num(in, I_EFFICIENCY);
    char why[120];
    const char *field;
    if (!(batch >= 1)) {
        field = "batch_size";
        snprintf(why, sizeof why, "batch_size must be >= 1, got %.0f", batch);
    } else if (!(e >= 1e-9 && e <= 1.0)) {
        char got[40];
        if (in_was_int(in, I_EFFICIENCY))
            snprintf(got, sizeof got, "%.0f", e);
        else
            fmt_pyrepr(got, sizeof got, e);
        field = "efficiency";
        snprintf(why, sizeof why, "efficiency must be in [1e-09, 1.0], got %s", got);
    } else {
        return 0;
    }
    return solver_fail(err, field,
                       "No valid parallelism configurations found for this cluster size. (DistributedModel "
                       "rejects every split: %s)",
                       why);
}

static int run_parallelism(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    if (check_step_inputs(in, err) != 0)
        return -1;
    const fleet_t *fleet = in_fleet(in, I_FLEET);
    double limit_tp = in_has(in, I_MAX_TP) && in_num(in, I_MAX_TP) != 0 ? in_num(in, I_MAX_TP)
                                                                        : fleet->node.accelerators_per_node;
    double limit_pp = in_has(in, I_MAX_PP) && in_num(in, I_MAX_PP) != 0 ? in_num(in, I_MAX_PP)
                                                                        : fleet_total_accelerators(fleet);
    if (in_enum(in, I_MODE) == MODE_EXHAUSTIVE)
        return run_exhaustive(in, limit_tp, limit_pp, out, err);
    return run_mlsysim(in, limit_tp, limit_pp, out, err);
}

static const char *const ALIASES[] = {"ParallelismOptimizer", NULL};

const solver_desc SOLVER_PARALLELISM = {
    .name = "parallelism",
    .aliases = ALIASES,
    .title = "Best TP x PP x DP split of a fleet for a model",
    .description = "mlsysim ParallelismOptimizer. Searches power-of-two tensor and pipeline degrees that divide "
                   "the fleet, screens them for memory (fp16 weights, gradients and Adam state within 90 % of the "
                   "accelerator), prices each as a distributed step and keeps the highest MFU (scaling efficiency "
                   "x efficiency) (Narayanan et al. 2021). mode=exhaustive searches every tp, pp, dp, microbatch "
                   "count, ZeRO stage and activation checkpointing that fits and ranks them by step time.",
    .assumptions = "An exhaustive search over power-of-two TP x PP splits, each scored by distributed's step model. "
                   "Leaves out memory feasibility of a split, EP and virtual stages, and everything distributed "
                   "leaves out.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .table = &TABLE,
    .run = run_parallelism,
    .example_json = "{\"model\":\"Llama3_70B\",\"fleet\":\"Research_256\",\"batch_size\":256}",
};
