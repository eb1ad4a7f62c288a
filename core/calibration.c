/* calibration.c - see calibration.h: the parameters' descriptions and the
 * look-up of a fitted value. The values themselves are in
 * core/calibration_fit.c, written by tools/calibrate. */
#include "core/calibration.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/precision.h"

const char *const CALIB_FAMILY_NAMES[CF_N] = {
    [CF_CNN_INFERENCE] = "cnn_inference", [CF_CNN_TRAINING] = "cnn_training", [CF_ENCODER] = "encoder",
    [CF_LLM_DECODE] = "llm_decode",       [CF_LLM_PREFILL] = "llm_prefill",   [CF_LLM_TRAINING] = "llm_training",
};

const char *const CALIB_FAMILY_TITLES[CF_N] = {
    [CF_CNN_INFERENCE] = "CNN inference",
    [CF_CNN_TRAINING] = "CNN training",
    [CF_ENCODER] = "Transformer encoders",
    [CF_LLM_DECODE] = "LLM decode (time per output token)",
    [CF_LLM_PREFILL] = "LLM prefill (time to first token)",
    [CF_LLM_TRAINING] = "LLM training at scale",
};

int calib_family_find(const char *name)
{
    for (int f = 0; name && f < CF_N; f++)
        if (strcasecmp(name, CALIB_FAMILY_NAMES[f]) == 0)
            return f;
    return -1;
}

const calib_param_desc CALIB_PARAMS[CP_N] = {
    [CP_GEMM_EFF] = {.name = "gemm_efficiency", .work = "dense_gemm", .unit = "",
                     .meaning = "Fraction of the precision's peak that the dense matrix multiplies of a transformer "
                                "forward pass sustain (prefill, encoders)",
                     .lo = 0.05, .hi = 0.95, .start = 0.6, .per_hardware = true},
    [CP_CONV_EFF] = {.name = "conv_efficiency", .work = "convolution", .unit = "",
                     .meaning = "Fraction of the precision's peak that convolution layers sustain",
                     .lo = 0.03, .hi = 0.95, .start = 0.45, .per_hardware = true},
    [CP_ATTN_EFF] = {.name = "attention_efficiency", .work = "attention", .unit = "",
                     .meaning = "Fraction of peak for the attention score and value products, which grow with "
                                "the square of the sequence length",
                     .lo = 0.02, .hi = 0.95, .start = 0.3},
    [CP_TRAIN_EFF] = {.name = "training_efficiency", .work = "dense_gemm", .unit = "",
                      .meaning = "Fraction of the precision's peak that a sharded LLM training step sustains on its "
                                 "model FLOPs (MFU before communication and the pipeline bubble)",
                      .lo = 0.05, .hi = 0.95, .start = 0.5, .per_hardware = true},
    [CP_EXPERT_HALF_TOKENS] = {.name = "expert_gemm_half_fill_tokens", .work = "dense_gemm", .unit = "tokens",
                               .meaning = "Tokens per expert per micro-batch at which a routed expert's matmuls reach "
                                          "half the dense training efficiency (an expert sees seq x k / E tokens "
                                          "per sequence)",
                               .lo = 1.0, .hi = 1e5, .start = 256.0},
    [CP_MEM_EFF] = {.name = "memory_efficiency", .work = "memory", .unit = "",
                    .meaning = "Fraction of peak memory bandwidth that streaming passes achieve (decode weight and "
                               "KV reads, activation traffic)",
                    .lo = 0.1, .hi = 1.0, .start = 0.75, .per_hardware = true},
    [CP_ACT_PASSES_INF] = {.name = "activation_passes_inference", .work = "convolution", .unit = "",
                           .meaning = "Bytes moved through memory per activation byte a CNN layer writes, in "
                                      "inference (write and read back; less with fusion)",
                           .lo = 0.1, .hi = 12.0, .start = 2.0},
    [CP_ACT_PASSES_TRAIN] = {.name = "activation_passes_training", .work = "convolution", .unit = "",
                             .meaning = "Bytes moved through memory per activation byte a CNN's forward pass "
                                        "writes, over a whole training step (forward, backward, normalisation)",
                             .lo = 0.5, .hi = 40.0, .start = 6.0},
    [CP_ACT_PASSES_INF_Q] = {.name = "activation_passes_inference", .work = "convolution", .unit = "",
                             .meaning = "Bytes moved through memory per activation byte a CNN layer writes, in "
                                        "8-bit inference (quantized engines fuse normalisation and activation)",
                             .lo = 0.1, .hi = 12.0, .start = 1.0, .precision = "fp8/int8"},
    [CP_TF_ACT_PASSES] = {.name = "transformer_activation_passes", .work = "memory", .unit = "",
                          .meaning = "Bytes moved through memory per byte of the activations a transformer layer "
                                     "keeps (Korthikanti et al. 2022: 34 s h + 5 a s^2 per layer at 16-bit), in a "
                                     "forward pass; a training step moves three times as much",
                          .lo = 0.05, .hi = 20.0, .start = 1.0},
    [CP_TF_ACT_PASSES_Q] = {.name = "transformer_activation_passes", .work = "memory", .unit = "",
                            .meaning = "The same in 8-bit inference (quantized engines fuse the layer's "
                                       "normalisation, activation and attention passes)",
                            .lo = 0.05, .hi = 20.0, .start = 0.5, .precision = "fp8/int8"},
    [CP_LAYER_S] = {.name = "kernel_overhead", .work = "overhead", .unit = "s",
                    .meaning = "Launch and framework time per kernel of a forward pass (one per CNN layer, eight "
                               "per transformer layer), which dominates at small batch",
                    .lo = 0.0, .hi = 2e-3, .start = 20e-6},
    [CP_LAYER_S_Q] = {.name = "kernel_overhead", .work = "overhead", .unit = "s",
                      .meaning = "Launch time per kernel in 8-bit inference (compiled, graph-captured engines)",
                      .lo = 0.0, .hi = 2e-3, .start = 5e-6, .precision = "fp8/int8"},
    [CP_DECODE_LAYER_S] = {.name = "decode_layer_overhead", .work = "overhead", .unit = "s",
                           .meaning = "Fixed time per layer per decode step (launches, sampling and scheduling "
                                      "spread over the layers)",
                           .lo = 0.0, .hi = 1e-3, .start = 10e-6},
    [CP_DECODE_SEQ_S] = {.name = "decode_sequence_overhead", .work = "overhead", .unit = "s",
                         .meaning = "Time per sequence of the batch per decode step outside the kernels' traffic "
                                    "(sampling, scheduling, KV-cache paging)",
                         .lo = 0.0, .hi = 1e-3, .start = 10e-6},
    [CP_PREFILL_LAYER_S] = {.name = "prefill_layer_overhead", .work = "overhead", .unit = "s",
                            .meaning = "Fixed time per layer of a prefill pass on top of a decode step's: engines "
                                       "replay decode steps as captured graphs but launch a prefill's "
                                       "variable-shape kernels one by one",
                            .lo = 0.0, .hi = 1e-3, .start = 10e-6},
    [CP_AR_LATENCY_S] = {.name = "allreduce_latency", .work = "communication", .unit = "s",
                         .meaning = "Fixed latency of one tensor-parallel all-reduce inside a node",
                         .lo = 1e-6, .hi = 1e-3, .start = 15e-6},
    [CP_LINK_EFF] = {.name = "link_efficiency", .work = "communication", .unit = "",
                     .meaning = "Fraction of a link's bandwidth that ring collectives achieve",
                     .lo = 0.05, .hi = 1.0, .start = 0.6},
    [CP_DP_EXPOSED] = {.name = "dp_exposed_fraction", .work = "communication", .unit = "",
                       .meaning = "Share of the data-parallel gradient all-reduce not hidden behind the backward "
                                  "pass",
                       .lo = 0.0, .hi = 1.0, .start = 0.3},
    [CP_OVERLAP] = {.name = "compute_memory_overlap", .work = "memory", .unit = "",
                    .meaning = "Share of the smaller of a step's compute and memory time hidden under the larger "
                               "(layers are compute- or memory-bound in turn)",
                    .lo = 0.0, .hi = 1.0, .start = 0.5},
    [CP_PREC_FP32] = {.name = "precision_factor", .work = "precision", .unit = "",
                      .meaning = "Compute efficiency at this precision relative to 16-bit formats",
                      .lo = 0.1, .hi = 3.0, .start = 1.0, .precision = "fp32/tf32"},
    [CP_PREC_8BIT] = {.name = "precision_factor", .work = "precision", .unit = "",
                      .meaning = "Compute efficiency at this precision relative to 16-bit formats",
                      .lo = 0.1, .hi = 3.0, .start = 0.8, .precision = "fp8/int8"},
    [CP_PREC_4BIT] = {.name = "precision_factor", .work = "precision", .unit = "",
                      .meaning = "Compute efficiency at this precision relative to 16-bit formats",
                      .lo = 0.05, .hi = 3.0, .start = 0.5, .precision = "int4"},
    [CP_FP32_VECTOR] = {.name = "fp32_vector_share", .work = "precision", .unit = "",
                        .meaning = "Rate of fp32 arithmetic as a share of the accelerator's default peak (its "
                                   "16-bit tensor rate) where the catalog states no fp32 rate: fp32 runs on the "
                                   "vector units, not the tensor cores",
                        .lo = 0.02, .hi = 1.0, .start = 0.125, .precision = "fp32"},
};

static const calib_table *g_active;
static unsigned long g_generation = 1; /* changes whenever a table may have changed */

const calib_table *calibration_table(void) { return g_active ? g_active : &CALIBRATION_FITTED; }

void calibration_use(const calib_table *t)
{
    g_active = t;
    g_generation++;
}

/* Every parameter's value for one accelerator key, looked up once: a solve
 * reads a dozen values, mostly for the same accelerator. */
typedef struct {
    unsigned long generation;
    char key[ID_LEN];
    double v[CP_N];
} calib_cache;

static void fill(calib_cache *c, const char *key)
{
    const calib_table *t = calibration_table();
    for (int p = 0; p < CP_N; p++)
        c->v[p] = CALIB_PARAMS[p].start;
    for (size_t i = 0; i < t->n_entries; i++) /* common values first, then the accelerator's */
        if (!t->entries[i].hardware)
            c->v[t->entries[i].param] = t->entries[i].value;
    for (size_t i = 0; key[0] && i < t->n_entries; i++)
        if (t->entries[i].hardware && strcmp(t->entries[i].hardware, key) == 0)
            c->v[t->entries[i].param] = t->entries[i].value;
    snprintf(c->key, sizeof c->key, "%s", key);
    c->generation = g_generation;
}

double calib_value(calib_param p, const hw_node *hw)
{
    /* Two slots: the common values (no accelerator) and the last accelerator's. */
    static _Thread_local calib_cache common, keyed;
    if (!hw || !hw->key[0]) {
        if (common.generation != g_generation)
            fill(&common, "");
        return common.v[p];
    }
    if (keyed.generation != g_generation || strcmp(keyed.key, hw->key) != 0)
        fill(&keyed, hw->key);
    return keyed.v[p];
}

/* The parameter of each precision's factor (CP_N: none), from its key once
 * (PRECISION_KEYS is constant): a solve asks a few times. */
static calib_param g_prec_param[PRECISION_COUNT];
static pthread_once_t g_prec_once = PTHREAD_ONCE_INIT;

static calib_param precision_param(const char *k)
{
    if (strcmp(k, "fp32") == 0 || strcmp(k, "tf32") == 0)
        return CP_PREC_FP32;
    if (strcmp(k, "fp8") == 0 || strcmp(k, "int8") == 0)
        return CP_PREC_8BIT;
    if (strcmp(k, "int4") == 0)
        return CP_PREC_4BIT;
    return CP_N;
}

static void precision_params_init(void)
{
    for (int i = 0; i < PRECISION_COUNT; i++)
        g_prec_param[i] = precision_param(PRECISION_KEYS[i]);
}

double calib_precision_factor(int precision)
{
    if (precision >= 0 && precision < PRECISION_COUNT) {
        pthread_once(&g_prec_once, precision_params_init);
        calib_param p = g_prec_param[precision];
        return p == CP_N ? 1.0 : calib_value(p, NULL);
    }
    const char *k = PRECISION_KEYS[precision];
    if (strcmp(k, "fp32") == 0 || strcmp(k, "tf32") == 0)
        return calib_value(CP_PREC_FP32, NULL);
    if (strcmp(k, "fp8") == 0 || strcmp(k, "int8") == 0)
        return calib_value(CP_PREC_8BIT, NULL);
    if (strcmp(k, "int4") == 0)
        return calib_value(CP_PREC_4BIT, NULL);
    return 1.0;
}
