/* calibration.c - see calibration.h: the parameters' descriptions and the
 * look-up of a fitted value. The values themselves are in
 * core/calibration_fit.c, written by tools/calibrate. */
#include "core/calibration.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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
                                      "inference as a framework runs it (convolution, normalisation and "
                                      "activation each write and read back); an 8-bit engine's fused layer "
                                      "writes its output once and the next reads it once (2)",
                           .lo = 0.1, .hi = 12.0, .start = 2.0},
    [CP_ACT_PASSES_TRAIN] = {.name = "activation_passes_training", .work = "convolution", .unit = "",
                             .meaning = "Bytes moved through memory per activation byte a CNN's forward pass "
                                        "writes, over a whole training step (forward, backward, normalisation)",
                             .lo = 0.5, .hi = 40.0, .start = 6.0},
    [CP_TF_ACT_PASSES] = {.name = "transformer_activation_passes", .work = "memory", .unit = "",
                          .meaning = "Bytes moved through memory per byte of the activations a transformer layer "
                                     "keeps (Korthikanti et al. 2022: 34 s h + 5 a s^2 per layer at 16-bit), in a "
                                     "forward pass as a framework runs it; a training step moves three times as "
                                     "much; an 8-bit engine's fused kernels write each once and read it once (2) "
                                     "and keep attention scores on chip",
                          .lo = 0.05, .hi = 20.0, .start = 1.0},
    [CP_LAYER_S] = {.name = "kernel_overhead", .work = "overhead", .unit = "s",
                    .meaning = "Launch and framework time per kernel of a forward pass (one per CNN layer, eight "
                               "per transformer layer), which dominates at small batch",
                    .lo = 0.0, .hi = 2e-3, .start = 20e-6},
    [CP_LAYER_S_Q] = {.name = "kernel_overhead", .work = "overhead", .unit = "s",
                      .meaning = "Launch time per kernel in 8-bit inference (compiled engines: one fused kernel "
                                 "per CNN layer, eight per transformer layer)",
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
    [CP_PP_INTERLEAVE] = {.name = "pipeline_interleave", .work = "overhead", .unit = "",
                          .meaning = "Model chunks per pipeline stage that training schedules run (interleaved 1F1B, "
                                     "Megatron's virtual pipeline), dividing the bubble (pp - 1) / micro-batches, "
                                     "when the request gives no v_stages",
                          .lo = 1.0, .hi = 8.0, .start = 1.0},
    [CP_OVERLAP] = {.name = "compute_memory_overlap", .work = "memory", .unit = "",
                    .meaning = "Share of the smaller of a step's compute and memory time hidden under the larger "
                               "(layers are compute- or memory-bound in turn)",
                    .lo = 0.0, .hi = 1.0, .start = 0.5},
    [CP_PREFILL_OVERLAP] = {.name = "prefill_overlap", .work = "memory", .unit = "",
                            .meaning = "Share of the smaller of a prefill pass's compute time and its weight-read "
                                       "time hidden under the larger: near the ridge point a prefill's matmuls are "
                                       "neither compute- nor bandwidth-bound, and their time is more than the "
                                       "larger of the two",
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
static unsigned long g_generation = 1; /* changes whenever the table may have changed */

const calib_table *calibration_table(void) { return g_active ? g_active : &CALIBRATION_FITTED; }

/* The table in force as dense rows: the common values (each parameter's
 * common entry, else its start value) and, per accelerator key the table
 * names, the common values overlaid with that key's entries. Built once for
 * the fitted table and again by calibration_use(); read without locks. */
typedef struct {
    const char *key;
    double v[CP_N];
} calib_keyed_row;

static struct {
    double common[CP_N];
    calib_keyed_row *keyed;
    size_t n_keyed;
} g_rows;
static pthread_once_t g_rows_once = PTHREAD_ONCE_INIT;
static atomic_bool g_rows_ready; /* the rows are built: calib_row() skips pthread_once */

static void rows_build(void)
{
    const calib_table *t = calibration_table();
    free(g_rows.keyed);
    g_rows.keyed = NULL;
    g_rows.n_keyed = 0;
    for (int p = 0; p < CP_N; p++)
        g_rows.common[p] = CALIB_PARAMS[p].start;
    for (size_t i = 0; i < t->n_entries; i++)
        if (!t->entries[i].hardware)
            g_rows.common[t->entries[i].param] = t->entries[i].value;
    if (t->n_entries && !(g_rows.keyed = calloc(t->n_entries, sizeof *g_rows.keyed)))
        abort(); /* a few KiB at start-up or in tools/calibrate */
    for (size_t i = 0; i < t->n_entries; i++) {
        const char *key = t->entries[i].hardware;
        if (!key || !key[0])
            continue;
        size_t r = 0;
        while (r < g_rows.n_keyed && strcmp(g_rows.keyed[r].key, key) != 0)
            r++;
        if (r == g_rows.n_keyed) {
            g_rows.keyed[r].key = key;
            memcpy(g_rows.keyed[r].v, g_rows.common, sizeof g_rows.common);
            g_rows.n_keyed++;
        }
        g_rows.keyed[r].v[t->entries[i].param] = t->entries[i].value;
    }
}

static void rows_build_once(void)
{
    rows_build();
    atomic_store_explicit(&g_rows_ready, true, memory_order_release);
}

static void rows_init(void) { pthread_once(&g_rows_once, rows_build_once); }

void calibration_use(const calib_table *t)
{
    rows_init();
    g_active = t;
    rows_build();
    g_generation++;
}

const double *calib_row(const hw_node *hw)
{
    if (!atomic_load_explicit(&g_rows_ready, memory_order_acquire))
        rows_init();
    if (!hw || !hw->key[0])
        return g_rows.common;
    /* The last accelerator this thread asked for: a solve asks for one or two. */
    static _Thread_local struct {
        unsigned long generation;
        char key[ID_LEN];
        const double *row;
    } last;
    if (last.generation == g_generation && strcmp(last.key, hw->key) == 0)
        return last.row;
    const double *row = g_rows.common;
    for (size_t r = 0; r < g_rows.n_keyed; r++)
        if (strcmp(g_rows.keyed[r].key, hw->key) == 0) {
            row = g_rows.keyed[r].v;
            break;
        }
    snprintf(last.key, sizeof last.key, "%s", hw->key);
    last.row = row;
    last.generation = g_generation;
    return row;
}

double calib_value(calib_param p, const hw_node *hw) { return calib_row(hw)[p]; }

/* The precision classes the factors are keyed by (CALIB_PARAMS[].precision). */
static const struct {
    const char *key;
    calib_param param;
} PRECISION_CLASSES[] = {
    {"fp32", CP_PREC_FP32}, {"tf32", CP_PREC_FP32}, {"fp8", CP_PREC_8BIT},
    {"int8", CP_PREC_8BIT}, {"int4", CP_PREC_4BIT},
};

/* Each precision's parameter, from its key once (PRECISION_KEYS is constant). */
static calib_param g_prec_param[PRECISION_COUNT];
static pthread_once_t g_prec_once = PTHREAD_ONCE_INIT;

static void precision_params_init(void)
{
    for (int i = 0; i < PRECISION_COUNT; i++) {
        g_prec_param[i] = CP_N;
        for (size_t c = 0; c < sizeof PRECISION_CLASSES / sizeof PRECISION_CLASSES[0]; c++)
            if (strcmp(PRECISION_KEYS[i], PRECISION_CLASSES[c].key) == 0)
                g_prec_param[i] = PRECISION_CLASSES[c].param;
    }
}

calib_param calib_precision_param(int precision)
{
    if (precision < 0 || precision >= PRECISION_COUNT)
        return CP_N;
    pthread_once(&g_prec_once, precision_params_init);
    return g_prec_param[precision];
}

double calib_precision_factor(int precision)
{
    calib_param p = calib_precision_param(precision);
    return p == CP_N ? 1.0 : calib_row(NULL)[p];
}
