/* llm.h - the LLM inference arithmetic several serving solvers share, after
 * mlsysim engine/solvers/serving.py (reference/solvers.md §8, §9, §H.9):
 * attention dimensions, KV-cache sizes, ServingModel (prefill, decode, KV
 * cache, prefix caching, chunked prefill, speculative decoding,
 * disaggregated decode) and ContinuousBatchingModel (PagedAttention
 * capacity). Callers: core/serving.c, continuous_batching.c,
 * serving_capacity.c, inference_scaling.c, batching_optimizer.c. Pure
 * functions on SI values (s, B, flop/s); inputs are validated by the caller
 * with the checks below, in mlsysim's order. */
#ifndef MLSYSD_LLM_H
#define MLSYSD_LLM_H

#include <stdbool.h>

#include "core/model.h"
#include "core/precision.h"
#include "core/solver.h"

/* engine/calibration.py */
#define LLM_LAYER_TAX_S 0.01e-3      /* FRAMEWORK_LAYER_TAX_MS per layer per decode step */
#define LLM_SPECULATIVE_GAMMA 4      /* draft tokens per speculative step */

/* Attention shape as the serving formulas read it: layers (or 1), heads
 * (or 32), head_dim (or (hidden_dim or 4096) // heads), kv_heads (or heads). */
typedef struct {
    double layers, heads, head_dim, kv_heads;
} attn_dims;

attn_dims llm_attn_dims(const model_t *m);

/* The model is a TransformerWorkload (or its sparse MoE subclass) with
 * parameters and layers, as every serving formula needs; else -1 with a
 * 400 naming `field`. */
int llm_require_transformer(const model_t *m, const char *field, solver_error *err);

/* Input rows the serving solvers share (model, hardware, precision). */
#define LLM_INPUT_MODEL(desc)                                                                          \
    {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL), .description = desc}
#define LLM_INPUT_HARDWARE(desc)                                                                       \
    {.name = "hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE), .description = desc}
#define LLM_INPUT_PRECISION                                                                            \
    {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",                    \
     .enum_values = PRECISION_KEYS,                                                                    \
     .description = "Numeric format of weights and KV cache; sets bytes per element and the peak rate"}

/* Per-tensor precision (weight-only quantization, a KV cache in another
 * format): optional inputs whose default is `precision`, so an answer
 * without them is unchanged. Weights and the KV cache take any storage
 * format (FORMAT_KEYS, block scales included); activations are a compute
 * precision and set the peak rate. */
/* PRECISION_FORMATS' bits, as /solvers shows them (tests/unit/test_precision.c
 * checks the text against the table). */
#define LLM_FORMAT_BITS                                                                                \
    "fp32 32, tf32 32, bf16 16, fp16 16, fp8 8, int8 8, int4 4, fp8_e4m3 8, fp8_e5m2 8, int4_g128 "    \
    "4.125 (fp16 scale per 128), int4_g64 4.25, int4_g32 4.5, nvfp4 4.5 (E2M1 + E4M3 scale per 16), "   \
    "mxfp4 4.25 (E2M1 + E8M0 scale per 32), mxfp8 8.25, q8_0 8.5 (GGUF), q5_k_m 5.68 (GGUF), q4_k_m "   \
    "4.84 (GGUF)"
#define LLM_INPUT_WEIGHT_PRECISION                                                                     \
    {.name = "weight_precision", .kind = IN_ENUM, .optional = true, .enum_values = FORMAT_KEYS,        \
     .enum_refusal = "weight_precision '{}' is not supported. Supported formats: " FORMAT_LIST,       \
     .description = "Storage format of the weights (default: precision): a precision or a quantization " \
                    "format. Effective bits per element, scales included: " LLM_FORMAT_BITS}
#define LLM_INPUT_KV_PRECISION                                                                         \
    {.name = "kv_precision", .kind = IN_ENUM, .optional = true, .enum_values = FORMAT_KEYS,            \
     .enum_refusal = "kv_precision '{}' is not supported. Supported formats: " FORMAT_LIST,           \
     .description = "Storage format of the KV cache (default: precision), e.g. fp8 under bf16 weights. " \
                    "Bits per element: " LLM_FORMAT_BITS}
#define LLM_INPUT_ACTIVATION_PRECISION                                                                 \
    {.name = "activation_precision", .kind = IN_ENUM, .optional = true, .enum_values = PRECISION_KEYS,  \
     .description = "Precision the matmuls compute at (default: precision); sets the peak rate. "      \
                    "Weight-only quantization: weight_precision int4 under activation_precision fp16"}

/* The three inputs above (indices; -1 = the solver has no such input) laid
 * into p: p->precision becomes the compute precision, p->weight_bytes and
 * p->kv_bytes the storage widths (0 when they are precision's, so
 * serving_solve reads precision as before). */
void llm_tensor_precisions(const solver_inputs *in, int i_precision, int i_weight, int i_kv, int i_act,
                           int *precision, double *weight_bytes, double *kv_bytes);

/* The peak rate a precision computes at: precision_flops[key] or peak_flops. */
double llm_peak_flops(const hw_node *hw, int precision);

/* TransformerWorkload.get_kv_cache_size(S, B, b) (§0.7): 2 L H_kv d_h S B b,
 * or the MLA latent cache when the model has kv_lora_rank and qk_rope_head_dim. */
double llm_kv_cache_bytes(const model_t *m, double seq_len, double batch, double bytes_per_elem);

/* ServingModel's validation messages (§8), shared by the solvers that call
 * it with their own inputs (inference_scaling's context_length is its
 * seq_len). `value_was_int`: print the value as Python prints an int. */
int serving_check_seq_len(double seq_len, const char *field, solver_error *err);
int serving_check_efficiency(double efficiency, bool value_was_int, const char *field, solver_error *err);

typedef struct {
    const model_t *model;
    const hw_node *hw;          /* prefill node (and decode node unless decode_hw) */
    double seq_len, batch;
    int precision;              /* index into PRECISION_KEYS */
    double efficiency;
    const hw_node *decode_hw;   /* NULL: decode on hw */
    double network_bw;          /* B/s, prefill -> decode KV transfer */
    const model_t *draft;       /* NULL: no speculative decoding */
    double acceptance;
    double cached_prefix;       /* tokens */
    double chunk_tokens;        /* 0: no chunked prefill */
    /* Per-tensor precision (llm_tensor_precisions): B per weight and per KV
     * element; 0 = precision_bytes(precision). `precision` is the compute one. */
    double weight_bytes, kv_bytes;
} serving_params;

typedef struct {
    bool feasible;
    double ttft, itl;                     /* s */
    double kv_cache, weights, total;      /* B */
    double memory_utilization;
    double cache_hit_ratio;
    double chunks;
    double chunk_time;                    /* s; the slowest chunk (chunked prefill only) */
    const hw_node *decode_node;
} serving_result;

/* ServingModel.solve on validated parameters. */
serving_result serving_solve(const serving_params *p);

typedef struct {
    bool feasible;
    double throughput;          /* tokens/s */
    double active;              /* requests that fit (<= max batch) */
    double fragmentation;       /* fraction of the padded KV pages unused */
    double paged_kv;            /* B */
    double ttft, itl;           /* s */
    double speedup;             /* over static batching */
    double weights, kv_budget;  /* B */
} cb_result;

/* ContinuousBatchingModel.solve (§9, the version before max_seq_len);
 * page_size >= 1, seq_len >= 1. `precision` is the compute one; weight_bytes
 * and kv_bytes the storage widths (0 = precision_bytes(precision)), as
 * llm_tensor_precisions lays them out. */
cb_result cb_solve(const model_t *m, const hw_node *hw, double seq_len, double max_batch, double page_size,
                   int precision, double efficiency, double weight_bytes, double kv_bytes);

/* "12.5 GB" for traces. */
void llm_format_gb(double bytes, char *buf, unsigned long n);

#endif
