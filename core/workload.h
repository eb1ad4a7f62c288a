/* workload.h - lowering a workload to ops and bytes, and its training
 * memory, after mlsysim models/types.py (Workload.lower and subclasses,
 * TransformerWorkload.training_memory) and physics/memory.py
 * (calc_activation_memory). */
#ifndef MLSYSD_WORKLOAD_H
#define MLSYSD_WORKLOAD_H

#include <stdbool.h>

#include "core/model.h"
#include "core/solver.h"

typedef struct {
    double total_ops;     /* flop per sample (per step for diffusion: x denoising steps) */
    double weight_bytes;  /* B */
} lowered_graph;

/* Workload.lower(bytes_per_element). -1 with err for a workload that has
 * neither parameters nor model_size (mlsysim: NotImplementedError). */
int workload_lower(const model_t *m, double bytes_per_element, lowered_graph *g, solver_error *err);

/* Workload.size_in_bytes(bytes_per_element): the base Workload prefers
 * model_size when set; every subclass is parameters x b. -1 with err when
 * neither is set (mlsysim: NotImplementedError). */
int workload_size_bytes(const model_t *m, double bytes_per_element, double *bytes, solver_error *err);

/* getattr(model, "layers", 1) or 1 */
int workload_layer_count(const model_t *m);

/* Transformer-family workloads have training_memory(). */
bool workload_has_training_memory(const model_t *m);

typedef enum { ACT_FULL, ACT_SELECTIVE, ACT_NONE } activation_strategy;

/* calc_activation_memory (H.8, FP16-byte-based constants, scale = b/2). */
int activation_memory(int layers, double seq_len, double batch, double hidden, int heads,
                      double bytes_per_element, activation_strategy s, double *bytes, solver_error *err);

typedef struct {
    double batch_size, seq_len;
    double bytes_per_element;
    bool adam;              /* optimizer "adam" (12 B/param) vs sgd (4 B/param) */
    activation_strategy strategy;
    int zero_stage;
    double dp_size;
    bool is_lora;
    int lora_rank;          /* default 16 */
} training_memory_params;

/* TransformerWorkload.training_memory: weights + grads + optimizer + activations, in B. */
int workload_training_memory(const model_t *m, const training_memory_params *p, double *bytes,
                             solver_error *err);

#endif
