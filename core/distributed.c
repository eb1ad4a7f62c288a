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

    if (!q->wall_by_caller) {
        char step_ms[40];
        fmt_pyrepr(step_ms, sizeof step_ms, r->step * 1e3);
        solver_trace(msgs, "Distributed Wall: dp=%.0f, tp=%.0f, pp=%.0f, ep=%.0f; step latency %s ms.", dp, q->tp,
                     q->pp, q->ep, step_ms);
    }
    if (q->ep > 1 && q->moe_imbalance > 1.0)
        solver_trace(msgs, "MoE Routing: expert-parallel traffic inflated by %.2fx for hot-expert imbalance.",
                     q->moe_imbalance);
    return 0;
}
