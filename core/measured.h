/* measured.h - measured mode's physics: the terms the first-order model
 * leaves out and published measurements show matter, priced with the fitted
 * parameters of core/calibration.h.
 *
 *  - single node: compute at a fitted fraction of peak per kind of work
 *    (convolution, dense GEMM, attention that grows with the square of the
 *    sequence), plus activation and normalisation traffic (what makes
 *    depthwise networks memory-bound), weight and optimizer traffic, and a
 *    kernel-launch cost per layer;
 *  - serving: prefill with causal attention, decode at the achieved memory
 *    bandwidth with the experts a batch actually touches, both split over
 *    tp accelerators with two all-reduces per layer;
 *  - sharded training: model FLOPs at a fitted fraction of peak, the
 *    tensor-parallel all-reduces, the pipeline bubble of micro-batches, the
 *    exposed share of the gradient all-reduce and the optimizer pass.
 *
 * Every term is named in the answer's trace. An input the client gave
 * (efficiency, microbatch_count, ...) wins over the fitted value.
 *
 * Callers: core/roofline.c, core/llm.c (serving), core/distributed.c, and
 * the error-band look-up of the solvers they serve. */
#ifndef MLSYSD_MEASURED_H
#define MLSYSD_MEASURED_H

#include <stdbool.h>

#include "core/calibration.h"
#include "core/distributed.h"
#include "core/llm.h"
#include "core/roofline.h"

/* single_node (and pipeline's roofline): replace r's times, throughput,
 * bottleneck, MFU and energy with measured mode's. `peak` is the rate the
 * precision computes at, as mlsysim chose it. */
void measured_roofline(const roofline_query *q, double peak, roofline_result *r, solver_outputs *msgs);

/* serving: TTFT and ITL of p at tensor-parallel degree tp (>= 1), in
 * measured mode when `measured`, else mlsysim's times split over tp (tp 1:
 * mlsysim's exactly). Overwrites r->ttft and r->itl; r's memory fields are
 * per accelerator already. */
void serving_times(const serving_params *p, double tp, bool measured, bool efficiency_given, serving_result *r,
                   solver_outputs *msgs);

/* ServingModel at tensor-parallel degree tp in either mode: serving_solve,
 * the memory wall per accelerator (weights and KV cache split over tp), and
 * serving_times when tp > 1 or measured. tp 1 in mlsysim mode is
 * serving_solve's answer exactly. Trace lines go to msgs unless it is quiet. */
serving_result serving_answer(const serving_params *p, double tp, calibration_mode mode, bool efficiency_given,
                              solver_outputs *msgs);

/* distributed (step_model sharded or not): the whole step in measured mode. */
int measured_training_step(const distributed_query *q, bool efficiency_given, bool microbatches_given,
                           distributed_result *r, solver_outputs *msgs, solver_error *err);

/* Which family of measurements covers a single_node answer. */
calib_family measured_single_node_family(const model_t *m, bool training);

#endif
