/* distributed.c - mlsysim DistributedModel (engine/solvers/distributed.py,
 * the version before the "Unreleased" changes): a training step on a fleet
 * split into tp x pp x ep model-parallel groups and dp replicas. The local
 * step is the single-node roofline of the whole model at the per-replica
 * batch; on top come the DP gradient AllReduce (hierarchical across nodes),
 * the TP activation AllReduces (one ring per layer of twice the activation
 * bytes), the EP token all-to-all and the pipeline bubble, with congestion,
 * gradient accumulation, overlap and stragglers. Formulas: reference/
 * solvers.md §18; collectives §H (core/comm.c). Shoeybi et al. (2019)
 * Megatron-LM; Narayanan et al. (2019) PipeDream; Dean & Barroso (2013). */
#include "core/distributed.h"

#include <math.h>
#include <string.h>

#include "core/comm.h"
#include "core/llm.h"
#include "core/measured.h"
#include "core/numfmt.h"
#include "core/precision.h"
#include "core/training_memory.h"
#include "core/workload.h"

const char *const DISTRIBUTED_STEP_MODELS[] = {"mlsysim", "sharded", NULL};

int distributed_split_check(double n, double tp, double pp, double ep, solver_error *err)
{
    double group = tp * pp * ep;
    if (group > n)
        return solver_fail(err, "tp_size", "Infeasible 4D Parallelism: TP(%.0f) * PP(%.0f) * EP(%.0f) > Total(%.0f)",
                           tp, pp, ep, n);
    if (fmod(n, group) != 0)
        return solver_fail(err, "tp_size",
                           "Infeasible 4D Parallelism: TP(%.0f) * PP(%.0f) * EP(%.0f) must divide total "
                           "accelerators (%.0f) exactly.",
                           tp, pp, ep, n);
    return 0;
}

/* DP: gradients of this rank's tensor shard, hierarchical when the replicas
 * span nodes of several accelerators, else one ring inside the node. */
static int dp_allreduce(const distributed_query *q, double dp, double b, double *t, solver_error *err)
{
    *t = 0.0;
    if (dp <= 1)
        return 0;
    double grad;
    if (workload_size_bytes(q->model, b, &grad, err) != 0)
        return -1;
    grad /= q->tp;
    if (q->is_lora)
        grad *= 0.01; /* adapters only */
    const node_t *node = &q->fleet->node;
    double a = node->accelerators_per_node;
    if (a > 1 && dp > a)
        return comm_hierarchical_allreduce(grad, ceil(dp / a), a, node->intra_node_bw,
                                           comm_fabric_bw(&q->fleet->fabric),
                                           comm_inter_node_latency(&q->fleet->fabric), "fleet", t, err);
    return comm_ring_allreduce(grad, dp, node->intra_node_bw, comm_intra_node_latency(node), "fleet", t, err);
}

/* STEP_SHARDED's DP: gradients of one model-parallel shard, over the
 * replicas' ranks as they sit in nodes: hierarchical when several share a
 * node and they span nodes, one ring inside a node, or one ring over the
 * fabric when each replica fills whole nodes. */
static int dp_allreduce_sharded(const distributed_query *q, double dp, double b, double *t, solver_error *err)
{
    *t = 0.0;
    if (dp <= 1)
        return 0;
    double grad;
    if (workload_size_bytes(q->model, b, &grad, err) != 0)
        return -1;
    grad /= q->tp * q->pp;
    if (q->is_lora)
        grad *= 0.01;
    const node_t *node = &q->fleet->node;
    const fabric_t *fabric = &q->fleet->fabric;
    double a = node->accelerators_per_node, group = q->tp * q->pp * q->ep;
    double per_node = group >= a ? 1.0 : floor(a / group); /* DP ranks in one node */
    if (per_node <= 1)
        return comm_ring_allreduce(grad, dp, comm_fabric_bw(fabric), comm_inter_node_latency(fabric), "fleet", t,
                                   err);
    if (dp > per_node)
        return comm_hierarchical_allreduce(grad, ceil(dp / per_node), per_node, node->intra_node_bw,
                                           comm_fabric_bw(fabric), comm_inter_node_latency(fabric), "fleet", t, err);
    return comm_ring_allreduce(grad, dp, node->intra_node_bw, comm_intra_node_latency(node), "fleet", t, err);
}

/* STEP_SHARDED's local step: the replica's training ops, inference_flops
 * per sample (per token for transformers, times seq_len) x the local batch
 * x 3 (forward and backward; 4 when recomputing), shared over its tp x pp x
 * ep accelerators at peak x efficiency, plus the roofline's dispatch
 * overhead; memory from training_memory. Overwrites r->node's latency,
 * footprint and feasible. */
static int shard_local_step(const distributed_query *q, double dp, double local, distributed_result *r,
                            solver_error *err)
{
    const model_t *m = q->model;
    if (!(m->inference_flops > 0))
        return solver_fail(err, "model", "model '%s' has no inference_flops: the sharded step model needs them",
                           m->name);
    const bool per_token = m->kind == WL_TRANSFORMER || m->kind == WL_SPARSE_TRANSFORMER;
    const double ops = m->inference_flops * (per_token ? q->seq_len : 1.0) * local *
                       (q->activation_recomputation ? 4.0 : 3.0);
    const double peak = llm_peak_flops(&q->fleet->node.accelerator, q->precision);
    r->node.latency = ops / (q->tp * q->pp * q->ep) / (peak * q->efficiency) + r->node.overhead;
    const training_memory_query mq = {
        .model = m, .batch_size = q->batch_size, .seq_len = q->seq_len,
        .bytes_per_element = precision_bytes(q->precision), .optimizer_bytes = TRAINING_ADAM_BYTES,
        .checkpointing = q->activation_recomputation ? ACT_FULL : ACT_NONE, .tp = q->tp, .pp = q->pp, .dp = dp,
        .ep = q->ep, .zero_stage = q->zero_stage, .grad_accum_steps = q->microbatches,
        .trainable_fraction = q->is_lora ? 0.01 : 1.0, .buffer_fraction = TRAINING_BUFFER_FRACTION};
    training_memory_result mem;
    if (training_memory(&mq, &mem, err) != 0)
        return -1;
    r->node.footprint = mem.total;
    r->node.feasible = mem.total <= q->fleet->node.accelerator.mem_capacity;
    return 0;
}

int distributed_solve(const distributed_query *q, distributed_result *r, solver_outputs *msgs, solver_error *err)
{
    const model_t *m = q->model;
    const fleet_t *fleet = q->fleet;
    const node_t *node = &fleet->node;
    const double n = fleet_total_accelerators(fleet);

    /* 1. Replicas and the per-replica batch. */
    double dp = floor(n / (q->tp * q->pp * q->ep));
    double local = fmax(1.0, floor(q->batch_size / dp));
    if (q->batch_size < dp)
        solver_warn(msgs, "batch_size (%.0f) < dp_size (%.0f): some ranks will be idle. Using local_batch=1.",
                    q->batch_size, dp);

    /* 2. The local step: the whole model on one accelerator (§1). */
    roofline_query rq = {
        .model = m, .hw = &node->accelerator, .batch_size = local, .precision = q->precision,
        .efficiency = q->efficiency, .is_training = true, .seq_len = q->seq_len, .zero_stage = q->zero_stage,
        .dp_size = dp, .is_lora = q->is_lora, .activation_recomputation = q->activation_recomputation};
    const bool sharded = q->model_kind == STEP_SHARDED;
    /* Sharded, the whole-model roofline gives only the overhead: its trace
     * (the whole model's memory wall) would mislead; its warnings still apply. */
    static _Thread_local solver_outputs whole;
    solver_outputs_reset(&whole);
    if (roofline_run(&rq, &r->node, sharded ? &whole : msgs, err) != 0)
        return -1;
    for (int i = 0; sharded && i < whole.n_warnings; i++)
        solver_warn(msgs, "%s", whole.warnings[i]);
    if (sharded) {
        if (shard_local_step(q, dp, local, r, err) != 0)
            return -1;
        solver_trace(msgs, "Memory per accelerator (training_memory): %.4g GB of %.4g GB (%s).",
                     r->node.footprint / 1e9, node->accelerator.mem_capacity / 1e9,
                     r->node.feasible ? "fits" : "does not fit");
    }
    const double t_node = r->node.latency;

    /* 3-4. DP gradient AllReduce. */
    const double b = precision_bytes(q->precision);
    double t_dp, t_tp = 0.0, t_ep = 0.0;
    if ((sharded ? dp_allreduce_sharded(q, dp, b, &t_dp, err) : dp_allreduce(q, dp, b, &t_dp, err)) != 0)
        return -1;

    /* 5. TP: per layer, a ring AllReduce of twice the activations, over
     *    NVLink when the group fits in a node, else over the fabric.
     *    STEP_SHARDED: four AllReduces of the activations (two forward,
     *    two backward) per layer of one pipeline stage. */
    const double hidden = m->hidden_dim > 0 ? m->hidden_dim : 4096;
    if (q->tp > 1) {
        double act = local * q->seq_len * hidden * b;
        bool in_node = q->tp <= node->accelerators_per_node;
        double bw = in_node ? node->intra_node_bw : comm_fabric_bw(&fleet->fabric);
        double alpha = in_node ? comm_intra_node_latency(node) : comm_inter_node_latency(&fleet->fabric);
        double per_layer;
        if (comm_ring_allreduce(sharded ? act : 2.0 * act, q->tp, bw, alpha, "fleet", &per_layer, err) != 0)
            return -1;
        t_tp = sharded ? 4.0 * per_layer * ceil(workload_layer_count(m) / q->pp) : per_layer * workload_layer_count(m);
    }

    /* 6. EP: routed tokens (top_k experts each, inflated by imbalance) all-to-all over the fabric. */
    if (q->ep > 1) {
        double top_k = m->active_experts_per_token > 0 ? m->active_experts_per_token : 1;
        double tokens = local * q->seq_len * hidden * b * top_k * q->moe_imbalance;
        if (comm_all_to_all(tokens, q->ep, comm_fabric_bw(&fleet->fabric),
                            comm_inter_node_latency(&fleet->fabric), "fleet", &t_ep, err) != 0)
            return -1;
    }

    /* 7. Pipeline bubble (interleaved 1F1B with v virtual stages). */
    if (q->microbatches < 1)
        return solver_fail(err, "microbatch_count", "n_microbatches must be >= 1, got %.0f", q->microbatches);
    if (q->v_stages < 1)
        return solver_fail(err, "v_stages", "v_stages must be >= 1, got %.0f", q->v_stages);
    r->bubble_fraction = comm_pipeline_bubble(q->pp, q->microbatches, q->v_stages);
    if (q->pp <= 1)
        r->t_bubble = 0.0;
    else
        r->t_bubble = sharded ? t_node * r->bubble_fraction / (1.0 - r->bubble_fraction) : t_node * r->bubble_fraction;

    /* 8. Congestion on every collective; DP syncs once per accumulation. */
    t_dp *= q->congestion;
    t_tp *= q->congestion;
    t_ep *= q->congestion;
    if (q->grad_accum_steps > 1)
        t_dp /= q->grad_accum_steps;
    r->t_comm = t_dp + t_tp + t_ep;

    /* 9-10. The step: overlap hides a share of DP only; stragglers gate it. */
    if (q->overlap_comm)
        r->step = t_node + t_dp * (1.0 - q->overlap_efficiency) + t_tp + t_ep + r->t_bubble;
    else
        r->step = t_node + r->t_comm + r->t_bubble;
    if (q->straggler > 1.0)
        r->step *= q->straggler;

    /* 11. */
    r->scaling_efficiency = t_node / r->step;
    r->throughput = sharded ? dp * local / r->step : n * r->node.throughput * r->scaling_efficiency;
    r->dp = dp;
    r->t_dp = t_dp;
    r->t_tp = t_tp;
    r->t_ep = t_ep;

    char step_ms[40];
    fmt_pyrepr(step_ms, sizeof step_ms, r->step * 1e3);
    solver_trace(msgs, "Distributed Wall: dp=%.0f, tp=%.0f, pp=%.0f, ep=%.0f; step latency %s ms.", dp, q->tp, q->pp,
                 q->ep, step_ms);
    if (q->ep > 1 && q->moe_imbalance > 1.0)
        solver_trace(msgs, "MoE Routing: expert-parallel traffic inflated by %.2fx for hot-expert imbalance.",
                     q->moe_imbalance);
    return 0;
}

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
        /* mlsysim's step gives the memory and the warnings; measured mode
         * prices the step and states it in the Distributed Wall line. */
        static _Thread_local solver_outputs first;
        solver_outputs_reset(&first);
        first.quiet = out->quiet;
        if (distributed_solve(&q, &r, &first, err) != 0)
            return -1;
        for (int i = 0; i < first.n_warnings; i++)
            solver_warn(out, "%s", first.warnings[i]);
        for (int i = 0; i < first.n_trace; i++)
            if (strncmp(first.trace[i], "Distributed Wall:", 17) != 0)
                solver_trace(out, "%s", first.trace[i]);
        if (measured_training_step(&q, !in->v[I_EFFICIENCY].defaulted, !in->v[I_MICROBATCHES].defaulted, &r, out,
                                   err) != 0)
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
