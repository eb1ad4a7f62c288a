/* distributed_solver.c - the distributed solver: one training step on a
 * fleet (core/distributed.c, mlsysim DistributedModel), and in measured mode
 * the sharded step of core/measured.c priced on top of mlsysim's memory and
 * warnings; the solver descriptor. */
#include "core/distributed.h"

#include <math.h>

#include "core/measured.h"
#include "core/precision.h"

/* --- the distributed solver ------------------------------------------------------ */

/* Rows in mlsysim's validation order, so the first bad input is the one it names. */
enum {
    I_MODEL, I_FLEET, I_TP, I_PP, I_EP, I_BATCH, I_GAS, I_EFFICIENCY, I_OVERLAP_EFF, I_MOE_IMBALANCE, I_PRECISION,
    I_V_STAGES, I_MICROBATCHES, I_ZERO, I_LORA, I_RECOMPUTE, I_OVERLAP, I_CONGESTION, I_STRAGGLER, I_SEQ,
    I_STEP_MODEL, I_N
};

static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload to train (Llama3_70B, GPT3, Mixtral_8x7B, ...)"},
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "Cluster: a catalog id (Research_256) or {node, count, fabric}"},
    [I_TP] = IN_DEGREE("tp_size", "Tensor-parallel degree (NVLink when it fits in a node)"),
    [I_PP] = IN_DEGREE("pp_size", "Pipeline-parallel degree (adds the bubble)"),
    [I_EP] = IN_DEGREE("ep_size", "Expert-parallel degree (adds the token all-to-all)"),
    [I_BATCH] = {.name = "batch_size", .kind = IN_INTEGER, .has_default = true, .def_num = 1,
                 .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e12,
                 .description = "Global batch size, split over the data-parallel replicas"},
    [I_GAS] = IN_DEGREE("gradient_accumulation_steps", "Micro-steps per optimizer step (DP sync amortised over them)"),
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .check = CHECK_RANGE, .lo = 1e-9, .hi = 1.0,
                      .description = "Fraction of peak compute achieved by the local step"},
    [I_OVERLAP_EFF] = {.name = "overlap_efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.85,
                       .check = CHECK_RANGE, .lo = 0.0, .hi = 1.0,
                       .description = "Share of DP communication hidden behind compute when overlap_comm"},
    [I_MOE_IMBALANCE] = {.name = "moe_routing_imbalance_factor", .kind = IN_NUMBER, .has_default = true,
                         .def_num = 1.0, .check = CHECK_AT_LEAST, .lo = 1.0,
                         .description = "Multiplier on routed MoE token traffic (1 = balanced)"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS, .description = "Numeric format of compute and communication"},
    [I_V_STAGES] = {.name = "v_stages", .kind = IN_INTEGER, .has_default = true, .def_num = 1, .int_max = 1e9,
                    .description = "Virtual stages per accelerator (interleaved 1F1B); >= 1"},
    [I_MICROBATCHES] = {.name = "microbatch_count", .kind = IN_INTEGER, .has_default = true, .def_num = 1,
                        .int_max = 1e9, .description = "Microbatches per step (shrink the bubble); >= 1"},
    [I_ZERO] = {.name = "zero_stage", .kind = IN_INTEGER, .has_default = true, .def_num = 0, .int_max = 1e9,
                .description = "ZeRO stage of the local step's training memory (unchecked, as mlsysim: above 3 "
                               "acts as 3, below 1 as 0)"},
    [I_LORA] = {.name = "is_lora", .kind = IN_BOOLEAN, .has_default = true, .def_num = 0,
                .description = "LoRA fine-tuning: adapter gradients only (1% of the DP traffic)"},
    [I_RECOMPUTE] = {.name = "activation_recomputation", .kind = IN_BOOLEAN, .has_default = true, .def_num = 0,
                     .description = "Recompute activations: 4x ops instead of 3x, selective activation memory"},
    [I_OVERLAP] = {.name = "overlap_comm", .kind = IN_BOOLEAN, .has_default = true, .def_num = 0,
                   .description = "Overlap DP communication with the backward pass"},
    [I_CONGESTION] = {.name = "congestion_factor", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0,
                      .description = "Multiplier on all communication (1 ideal, 1.5-2 shared fabric)"},
    [I_STRAGGLER] = {.name = "straggler_factor", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0,
                     .description = "Multiplier on the step when above 1: the slowest worker gates it"},
    [I_SEQ] = {.name = "seq_len", .kind = IN_INTEGER, .has_default = true, .def_num = 2048,
               .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e9,
               .description = "Tokens per sequence (activations and TP/EP traffic)"},
    [I_STEP_MODEL] = {.name = "step_model", .kind = IN_ENUM, .has_default = true, .def_str = "mlsysim",
                      .enum_values = DISTRIBUTED_STEP_MODELS,
                      .description = "mlsysim: every accelerator runs the whole model (mlsysim as released); "
                                     "sharded: tp x pp x ep share the step's compute, memory per accelerator "
                                     "from training_memory (mlsysim's unreleased changes as its changelog "
                                     "describes them)"},
};

static int check_split(const solver_inputs *in, solver_error *err)
{
    return distributed_split_check(fleet_total_accelerators(in_fleet(in, I_FLEET)), in_num(in, I_TP),
                                   in_num(in, I_PP), in_num(in, I_EP), err);
}

static const char *const SPLIT_INPUTS[] = {"tp_size", "pp_size", "ep_size", "fleet", NULL};
static const input_constraint CONSTRAINTS[] = {
    {.rule = "tp_size x pp_size x ep_size divides the fleet's accelerators", .inputs = SPLIT_INPUTS,
     .check = check_split},
};

enum {
    O_NODE_LATENCY, O_NODE_FOOTPRINT, O_NODE_FEASIBLE, O_DP, O_TP, O_EP, O_COMM, O_BUBBLE, O_BUBBLE_FRACTION,
    O_STEP, O_SCALING, O_THROUGHPUT, O_PAR_DP, O_PAR_TP, O_PAR_PP, O_PAR_EP, O_N
};
static const output_desc OUTPUTS[O_N] = {
    [O_NODE_LATENCY] = {.name = "node_latency", .kind = OUT_NUMBER, .unit = "ms",
                        .description = "Local training step of one accelerator (single_node)"},
    [O_NODE_FOOTPRINT] = {.name = "node_memory_footprint", .kind = OUT_NUMBER, .unit = "B",
                          .description = "Training memory of the whole model on one accelerator"},
    [O_NODE_FEASIBLE] = {.name = "node_feasible", .kind = OUT_BOOLEAN, .unit = "",
                         .description = "That footprint fits in the accelerator's memory", .categorical = true},
    [O_DP] = {.name = "dp_communication_latency", .kind = OUT_NUMBER, .unit = "ms",
              .description = "Gradient AllReduce (after congestion, per step)"},
    [O_TP] = {.name = "tp_communication_latency", .kind = OUT_NUMBER, .unit = "ms",
              .description = "Activation AllReduces of every layer"},
    [O_EP] = {.name = "ep_communication_latency", .kind = OUT_NUMBER, .unit = "ms", .description = "Token all-to-all"},
    [O_COMM] = {.name = "communication_latency", .kind = OUT_NUMBER, .unit = "ms",
                .description = "DP + TP + EP (before overlap)"},
    [O_BUBBLE] = {.name = "pipeline_bubble_latency", .kind = OUT_NUMBER, .unit = "ms",
                  .description = "Node latency x bubble fraction"},
    [O_BUBBLE_FRACTION] = {.name = "bubble_fraction", .kind = OUT_NUMBER, .unit = "",
                           .description = "(pp - 1) / (v x m + pp - 1)"},
    [O_STEP] = {.name = "step_latency_total", .kind = OUT_NUMBER, .unit = "ms",
                .description = "Local step + exposed communication + bubble"},
    [O_SCALING] = {.name = "scaling_efficiency", .kind = OUT_NUMBER, .unit = "",
                   .description = "Node latency / step latency"},
    [O_THROUGHPUT] = {.name = "effective_throughput", .kind = OUT_NUMBER, .unit = "1/s",
                      .description = "Accelerators x local throughput x scaling efficiency"},
    [O_PAR_DP] = {.name = "parallelism.dp", .kind = OUT_INTEGER, .unit = "",
                  .description = "Data-parallel replicas", .categorical = true},
    [O_PAR_TP] = {.name = "parallelism.tp", .kind = OUT_INTEGER, .unit = "",
                  .description = "Tensor-parallel degree", .categorical = true},
    [O_PAR_PP] = {.name = "parallelism.pp", .kind = OUT_INTEGER, .unit = "",
                  .description = "Pipeline-parallel degree", .categorical = true},
    [O_PAR_EP] = {.name = "parallelism.ep", .kind = OUT_INTEGER, .unit = "",
                  .description = "Expert-parallel degree", .categorical = true},
};

static int run_distributed(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const distributed_query q = {
        .model = in_model(in, I_MODEL), .fleet = in_fleet(in, I_FLEET), .batch_size = in_num(in, I_BATCH),
        .precision = in_enum(in, I_PRECISION), .efficiency = in_num(in, I_EFFICIENCY), .tp = in_num(in, I_TP),
        .pp = in_num(in, I_PP), .ep = in_num(in, I_EP), .v_stages = in_num(in, I_V_STAGES),
        .microbatches = in_num(in, I_MICROBATCHES), .zero_stage = in_int(in, I_ZERO), .is_lora = in_bool(in, I_LORA),
        .activation_recomputation = in_bool(in, I_RECOMPUTE), .overlap_comm = in_bool(in, I_OVERLAP),
        .overlap_efficiency = in_num(in, I_OVERLAP_EFF), .congestion = in_num(in, I_CONGESTION),
        .straggler = in_num(in, I_STRAGGLER), .moe_imbalance = in_num(in, I_MOE_IMBALANCE),
        .grad_accum_steps = in_num(in, I_GAS), .seq_len = in_num(in, I_SEQ),
        .model_kind = (step_model)in_enum(in, I_STEP_MODEL)};
    distributed_result r;
    if (in->calibration != CALIBRATION_MEASURED) {
        if (distributed_solve(&q, &r, out, err) != 0)
            return -1;
    } else {
        /* mlsysim's step gives the memory, the warnings and the trace but
         * its Distributed Wall line: measured mode prices the step and
         * states it in its own. */
        distributed_query mq = q;
        mq.wall_by_caller = true;
        if (distributed_solve(&mq, &r, out, err) != 0)
            return -1;
        if (measured_training_step(&q, !in->v[I_EFFICIENCY].defaulted, !in->v[I_MICROBATCHES].defaulted,
                                   !in->v[I_V_STAGES].defaulted, &r, out, err) != 0)
            return -1;
    }
    out_num(out, O_NODE_LATENCY, r.node.latency * 1e3);
    out_num(out, O_NODE_FOOTPRINT, r.node.footprint);
    out_bool(out, O_NODE_FEASIBLE, r.node.feasible);
    out_num(out, O_DP, r.t_dp * 1e3);
    out_num(out, O_TP, r.t_tp * 1e3);
    out_num(out, O_EP, r.t_ep * 1e3);
    out_num(out, O_COMM, r.t_comm * 1e3);
    out_num(out, O_BUBBLE, r.t_bubble * 1e3);
    out_num(out, O_BUBBLE_FRACTION, r.bubble_fraction);
    out_num(out, O_STEP, r.step * 1e3);
    out_num(out, O_SCALING, r.scaling_efficiency);
    out_num(out, O_THROUGHPUT, r.throughput);
    out_int(out, O_PAR_DP, r.dp);
    out_int(out, O_PAR_TP, q.tp);
    out_int(out, O_PAR_PP, q.pp);
    out_int(out, O_PAR_EP, q.ep);
    return 0;
}

static const char *const STEP[] = {"step_latency_total", "effective_throughput", NULL};

static int distributed_families(const solver_inputs *in, solver_band *bands)
{
    (void)in;
    bands[0] = (solver_band){CF_LLM_TRAINING, STEP};
    return 1;
}

static const char *const ALIASES[] = {"DistributedModel", NULL};

const solver_desc SOLVER_DISTRIBUTED = {
    .name = "distributed",
    .aliases = ALIASES,
    .title = "Distributed training step: DP/TP/PP/EP communication, bubble and scaling efficiency",
    .description = "mlsysim DistributedModel. Splits the fleet into tp x pp x ep model-parallel groups and "
                   "data-parallel replicas; the local step is the single-node roofline of the model at the "
                   "per-replica batch, plus the DP gradient AllReduce (hierarchical across nodes), per-layer TP "
                   "AllReduces, the EP all-to-all and the pipeline bubble, with congestion, gradient "
                   "accumulation, overlap and stragglers (Megatron-LM; PipeDream).",
    .assumptions = "A training step: the single-node step plus ring/tree collectives for DP, TP and EP and the "
                   "pipeline bubble, with optional overlap, congestion and straggler factors. Leaves out per-message "
                   "software overhead beyond the fabric latency, topology-aware routing, memory limits of the split "
                   "and load imbalance other than the given factors.",
    .measured_assumptions =
        "Measured mode (the sharded step, whatever step_model says): 6 x parameters x tokens plus causal attention at the fitted training "
        "efficiency (routed experts' matmuls filled poorly when few tokens reach each expert), the optimizer pass "
        "at the achieved bandwidth, a fitted engine cost per layer, tensor-parallel all-reduces and expert "
        "all-to-alls per layer, the 1F1B pipeline bubble (divided by the fitted interleaving of schedules as run "
        "unless v_stages is given) and the fitted exposed share of the gradient all-reduce. "
        "Leaves out topology-aware routing, memory limits of the split, failures and checkpoints, and load "
        "imbalance other than the given factors.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .run = run_distributed,
    .measured_families = distributed_families,
    .example_json = "{\"model\":\"Llama3_70B\",\"fleet\":\"Research_256\",\"batch_size\":256,\"tp_size\":8,"
                    "\"pp_size\":2,\"microbatch_count\":8}",
    .plan_role = "fleet",
};
