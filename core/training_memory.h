/* training_memory.h - bytes per accelerator of a training run under
 * tensor, pipeline, data and expert parallelism and ZeRO (mlsysim
 * TrainingMemoryModel, reference/solvers.md §15), for the training_memory
 * solver and for parallelism's exhaustive search, which sizes every
 * configuration it ranks. */
#ifndef MLSYSD_TRAINING_MEMORY_H
#define MLSYSD_TRAINING_MEMORY_H

#include "core/model.h"
#include "core/solver.h"
#include "core/workload.h"

/* mlsysim's default communication_buffer_fraction: gradient buckets as a
 * share of the gradients. */
#define TRAINING_BUFFER_FRACTION 0.05
/* Adam's optimizer state per trainable parameter (engine/calibration.py
 * TRAINING_OPTIMIZER_BYTES_ADAM: fp32 master weights and two moments). */
#define TRAINING_ADAM_BYTES 12.0

typedef struct {
    const model_t *model;
    double batch_size;          /* global */
    double seq_len;
    double bytes_per_element;   /* of weights, gradients and activations */
    double weight_bytes;        /* storage width of the weights (a quantized frozen base, QLoRA); 0 = bytes_per_element */
    double optimizer_bytes;     /* per trainable parameter: Adam 12 */
    activation_strategy checkpointing;
    double tp, pp, dp, ep;      /* >= 1 (the caller checked) */
    int zero_stage;             /* 0..3 */
    double grad_accum_steps;    /* splits the local batch into microbatches */
    double trainable_fraction, buffer_fraction;
} training_memory_query;

/* Bytes per accelerator. */
typedef struct {
    double weights, grads, opt, act, buffers, total;
} training_memory_result;

/* 0, or -1 when the model lacks a parameter or layer count. */
int training_memory(const training_memory_query *q, training_memory_result *r, solver_error *err);

#endif
