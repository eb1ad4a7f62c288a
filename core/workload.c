/* workload.c - see workload.h. Formulas from mlsysim models/types.py
 * (commit 087dd538) and physics/memory.py (commit 1c1141d9). */
#include "core/workload.h"

#include <math.h>

/* mlsysim treats a zero or missing inference_flops as "not set" (truthiness). */
static bool has_flops(const model_t *m) { return !isnan(m->inference_flops) && m->inference_flops != 0; }

int workload_lower(const model_t *m, double b, lowered_graph *g, solver_error *err)
{
    bool has_params = !isnan(m->parameters);
    switch (m->kind) {
    case WL_TRANSFORMER:
    case WL_SSM:
        g->total_ops = has_flops(m) ? m->inference_flops : 2.0 * m->parameters;
        g->weight_bytes = m->parameters * b;
        return 0;
    case WL_SPARSE_TRANSFORMER:
        /* MoE: total parameters set the footprint, active ones the compute. */
        g->total_ops = has_flops(m) ? m->inference_flops : 2.0 * m->active_parameters;
        g->weight_bytes = m->parameters * b;
        return 0;
    case WL_CNN:
        g->total_ops = m->inference_flops;
        g->weight_bytes = m->parameters * b;
        return 0;
    case WL_DIFFUSION: {
        /* inference_flops is per denoising step. */
        double per_step = has_flops(m) ? m->inference_flops : 2.0 * m->parameters;
        g->total_ops = per_step * (double)m->denoising_steps;
        g->weight_bytes = m->parameters * b;
        return 0;
    }
    case WL_GENERIC:
    case WL_EMBODIED:
        break;
    }
    /* Base Workload.lower. */
    if (!has_params && !isnan(m->model_size)) {
        g->weight_bytes = m->model_size;
        g->total_ops = has_flops(m) ? m->inference_flops : 0.0;
        return 0;
    }
    if (!has_params)
        return solver_fail(err, "model", "%s has no 'parameters'; set parameters or model_size",
                           workload_kind_name(m->kind));
    g->weight_bytes = m->parameters * b;
    g->total_ops = has_flops(m) ? m->inference_flops : 2.0 * m->parameters;
    return 0;
}

int workload_size_bytes(const model_t *m, double b, double *bytes, solver_error *err)
{
    bool base = m->kind == WL_GENERIC || m->kind == WL_EMBODIED;
    if (base && !isnan(m->model_size)) {
        *bytes = m->model_size;
        return 0;
    }
    if (isnan(m->parameters))
        return solver_fail(err, "model", "%s has no 'parameters'; set parameters or model_size",
                           workload_kind_name(m->kind));
    *bytes = m->parameters * b;
    return 0;
}

int workload_layer_count(const model_t *m)
{
    /* The base Workload and DiffusionWorkload have no `layers` attribute. */
    if (m->kind == WL_GENERIC || m->kind == WL_DIFFUSION)
        return 1;
    return m->layers > 0 ? m->layers : 1;
}

bool workload_has_training_memory(const model_t *m)
{
    return m->kind == WL_TRANSFORMER || m->kind == WL_SPARSE_TRANSFORMER;
}

int activation_memory(int layers, double s, double b, double h, int heads, double bpe,
                      activation_strategy strategy, double *bytes, solver_error *err)
{
    if (layers < 1)
        return solver_fail(err, "model", "n_layers must be >= 1, got %d", layers);
    /* Korthikanti et al. (2022): coefficients are for 2-byte activations. */
    double scale = bpe / 2.0;
    double per_layer;
    switch (strategy) {
    case ACT_FULL:
        per_layer = 2.0 * s * b * h * scale;
        break;
    case ACT_SELECTIVE:
        per_layer = 34.0 * s * b * h * scale;
        break;
    case ACT_NONE:
    default:
        if (heads <= 0)
            return solver_fail(err, "model",
                               "strategy='none' requires n_heads: the dominant 5*a*s^2*b attention term scales "
                               "with the head count (Korthikanti et al. 2023, Sec. 4.1). (The model has no "
                               "'heads'; activation strategy 'none' is training without activation "
                               "recomputation.)");
        per_layer = (34.0 * s * b * h + 5.0 * (double)heads * s * s * b) * scale;
        break;
    }
    *bytes = (double)layers * per_layer;
    return 0;
}

int workload_training_memory(const model_t *m, const training_memory_params *p, double *bytes,
                             solver_error *err)
{
    double n = m->parameters;
    double weights = n * p->bytes_per_element;
    double grads = n * p->bytes_per_element;
    /* Adam: fp32 master weights + momentum + variance = 12 B/param; SGD 4. */
    double opt = n * (p->adam ? 12.0 : 4.0);
    if (p->is_lora) {
        /* Adapters on Q, K, V, O of every layer: 2 * r * d_model each. */
        double d_model = m->hidden_dim > 0 ? m->hidden_dim : 4096;
        double lora_params = 2.0 * p->lora_rank * d_model * (4.0 * m->layers);
        double f = fmin(lora_params / n, 1.0);
        grads *= f;
        opt *= f;
    }
    /* ZeRO (Rajbhandari et al. 2020): stage 1 shards optimizer state, 2 gradients, 3 weights. */
    if (p->zero_stage >= 1)
        opt /= p->dp_size;
    if (p->zero_stage >= 2)
        grads /= p->dp_size;
    if (p->zero_stage >= 3)
        weights /= p->dp_size;
    double act = 0.0;
    if (activation_memory(m->layers, p->seq_len, p->batch_size, m->hidden_dim > 0 ? m->hidden_dim : 4096,
                          m->heads, p->bytes_per_element, p->strategy, &act, err) != 0)
        return -1;
    *bytes = weights + grads + opt + act;
    return 0;
}
