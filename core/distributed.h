/* distributed.h - one data/tensor/pipeline/expert-parallel training step on
 * a fleet (mlsysim DistributedModel), for the distributed solver and for
 * parallelism, which prices every split it searches with it. */
#ifndef MLSYSD_DISTRIBUTED_H
#define MLSYSD_DISTRIBUTED_H

#include <stdbool.h>

#include "core/fleet.h"
#include "core/model.h"
#include "core/roofline.h"
#include "core/solver.h"

/* How the local step is priced.
 *  STEP_MLSYSIM: mlsysim's DistributedModel as released (§18): every
 *    accelerator runs the whole model at the per-replica batch (offloading
 *    what does not fit), so tp and pp add communication but never share work.
 *  STEP_SHARDED: the model-parallel replica shares the work, after the
 *    "Unreleased" changes solvers.md's version notes describe (no code was
 *    readable, so this is our reading): the step's compute (the same
 *    training ops) divided over tp x pp x ep, memory per accelerator from
 *    training_memory (§15), 4 TP AllReduces per layer of one pipeline stage,
 *    the bubble as compute x b / (1 - b), DP gradients of the model / (tp x
 *    pp), throughput from the DP replicas. */
typedef enum { STEP_MLSYSIM, STEP_SHARDED } step_model;
/* Their names, as the step_model input takes them (NULL-terminated). */
extern const char *const DISTRIBUTED_STEP_MODELS[];

/* One step's inputs, as DistributedModel.solve takes them (already
 * bound-checked by the caller: degrees >= 1, efficiency in [1e-9, 1], ...). */
typedef struct {
    const model_t *model;
    const fleet_t *fleet;
    double batch_size;          /* global */
    int precision;              /* index into PRECISION_KEYS */
    double efficiency;
    double tp, pp, ep;
    double v_stages, microbatches;
    int zero_stage;
    bool is_lora, activation_recomputation, overlap_comm;
    double overlap_efficiency, congestion, straggler, moe_imbalance;
    double grad_accum_steps, seq_len;
    step_model model_kind;      /* STEP_MLSYSIM unless set */
    bool wall_by_caller;        /* leave the Distributed Wall trace line out: the caller
                                   (measured mode) prices the step and states it */
} distributed_query;

/* Times in seconds. */
typedef struct {
    roofline_result node;       /* the whole model on one accelerator, local batch; with
                                   STEP_SHARDED, latency is the replica's share, footprint
                                   and feasible training_memory's */
    double dp;                  /* data-parallel replicas: accelerators / (tp x pp x ep) */
    double t_dp, t_tp, t_ep;    /* after congestion; t_dp amortised over accumulation steps */
    double t_comm;              /* t_dp + t_tp + t_ep (not reduced by overlap) */
    double t_bubble, bubble_fraction;
    double step;
    double scaling_efficiency;  /* node latency / step */
    double throughput;          /* samples/s over the fleet */
} distributed_result;

/* tp x pp x ep must not exceed, and must divide, the fleet's n accelerators;
 * 0, or -1 with mlsysim's "Infeasible 4D Parallelism: ..." message. */
int distributed_split_check(double n, double tp, double pp, double ep, solver_error *err);

/* The step (reference/solvers.md §18). The split must pass
 * distributed_split_check. Warnings and the trace go to msgs. */
int distributed_solve(const distributed_query *q, distributed_result *r, solver_outputs *msgs, solver_error *err);

#endif
