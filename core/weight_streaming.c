/* weight_streaming.c - weight_streaming: mlsysim WeightStreamingModel
 * (reference/solvers.md §11): wafer-scale inference (Cerebras CS-3) that
 * keeps activations and the KV cache on the wafer and streams each layer's
 * weights in from external memory (Lie et al. 2022). Per layer, the weight
 * injection over the interconnect races the compute; the slower one binds.
 *
 * mlsysim checks none of these inputs, and neither does this file beyond
 * the efficiency of 0 it divides by (refused with its exception's text). */
#include <math.h>

#include "core/llm.h"
#include "core/precision.h"
#include "core/solver.h"

#define FALLBACK_INJECTION_BW 100e9 /* B/s: FALLBACK_INTERCONNECT_BANDWIDTH_GB_S */
#define SRAM_WORKING_OVERHEAD 1.1   /* KV cache + 10% working memory */

enum { I_MODEL, I_HARDWARE, I_SEQ_LEN, I_BATCH, I_PRECISION, I_EFFICIENCY, I_PHASE, I_N };

static const char *const PHASES[] = {"decode", "prefill", NULL};
enum { PHASE_DECODE, PHASE_PREFILL };

static const input_desc INPUTS[I_N] = {
    [I_MODEL] = LLM_INPUT_MODEL("The served LLM (a TransformerWorkload)"),
    [I_HARDWARE] = LLM_INPUT_HARDWARE("The wafer-scale node (Cerebras_CS3); its interconnect feeds the weights"),
    [I_SEQ_LEN] = {.name = "seq_len", .kind = IN_INTEGER, .int_max = 1e9,
                   .description = "Context length in tokens"},
    [I_BATCH] = {.name = "batch_size", .kind = IN_INTEGER, .has_default = true, .def_num = 1, .int_max = 1e9,
                 .description = "Sequences resident on the wafer"},
    [I_PRECISION] = LLM_INPUT_PRECISION,
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .description = "Fraction of peak compute achieved"},
    [I_PHASE] = {.name = "phase", .kind = IN_ENUM, .has_default = true, .def_str = "decode", .enum_values = PHASES,
                 .description = "decode: one token per sequence per step; prefill: all seq_len tokens at once (as "
                                "mlsysim tests phase == \"prefill\", another spelling decodes)"},
};

enum { O_FEASIBLE, O_THROUGHPUT, O_BOTTLENECK, O_COMPUTE, O_INJECTION, O_OPT_BATCH, O_UTIL, O_N };

static const output_desc OUTPUTS[O_N] = {
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "KV cache + 10% fits the wafer memory", .categorical = true},
    [O_THROUGHPUT] = {.name = "throughput", .kind = OUT_NUMBER, .unit = "tokens/s",
                      .description = "Tokens per second (0 when infeasible)"},
    [O_BOTTLENECK] = {.name = "bottleneck", .kind = OUT_STRING, .unit = "",
                      .description = "Compute-Bound or Interconnect-Bandwidth-Bound", .categorical = true},
    [O_COMPUTE] = {.name = "layer_compute_time", .kind = OUT_NUMBER, .unit = "ms",
                   .description = "One layer's compute + dispatch"},
    [O_INJECTION] = {.name = "layer_injection_time", .kind = OUT_NUMBER, .unit = "ms",
                     .description = "One layer's weights over the interconnect"},
    [O_OPT_BATCH] = {.name = "optimal_batch_size", .kind = OUT_INTEGER, .unit = "",
                     .description = "Batch whose decode compute hides the injection"},
    [O_UTIL] = {.name = "wafer_memory_utilization", .kind = OUT_NUMBER, .unit = "",
                .description = "Required / capacity as mlsysim computes it: GB over the capacity in its declared unit "
                               "(capped at 1 when feasible)"},
};

static int run_weight_streaming(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const hw_node *hw = in_hw(in, I_HARDWARE);
    if (llm_require_transformer(m, "model", err) != 0)
        return -1;
    if (in_num(in, I_EFFICIENCY) == 0)
        return solver_fail_divides_by_zero(err, "efficiency");
    int prec = in_enum(in, I_PRECISION);
    double b = precision_bytes(prec), s = in_num(in, I_SEQ_LEN), batch = in_num(in, I_BATCH);
    double rate = llm_peak_flops(hw, prec) * in_num(in, I_EFFICIENCY);
    /* Upstream tests phase == "prefill" as written: "Prefill" decodes. */
    bool prefill = in_enum(in, I_PHASE) == PHASE_PREFILL && !in_enum_respelled(in, I_PHASE);
    attn_dims d = llm_attn_dims(m);
    double layers = m->layers;

    /* 1-2. SRAM wall: the whole batch's KV cache stays on the wafer. */
    double required = s * d.kv_heads * d.head_dim * 2 * b * layers * batch * SRAM_WORKING_OVERHEAD;
    bool feasible = required <= hw->mem_capacity;
    /* [unit-dependent] upstream divides the GB figure by the capacity's
     * magnitude in the unit the catalog declares (GiB for the CS-3). */
    double unit = hw->mem_capacity_unit > 0 ? hw->mem_capacity_unit : 1.0;
    double capacity_declared = hw->mem_capacity / unit;
    double util = capacity_declared > 0 ? (required / 1e9) / capacity_declared : 1.0;

    /* 3-5. Per layer: weight injection vs compute. */
    double layer_params = m->parameters / layers;
    double inj_bw = hw->has_interconnect && !isnan(hw->interconnect_bw) ? hw->interconnect_bw : FALLBACK_INJECTION_BW;
    if (inj_bw == 0)
        inj_bw = FALLBACK_INJECTION_BW;
    double t_inj = layer_params * b / inj_bw;
    /* Prefill attention counts KV heads, as upstream does. */
    double flops = prefill ? 2 * layer_params * s * batch + 2 * d.kv_heads * s * s * d.head_dim * batch
                           : 2 * layer_params * batch;
    double t_cmp = flops / rate + hw->dispatch_tax;
    bool compute_bound = t_cmp >= t_inj;
    double t_layer = compute_bound ? t_cmp : t_inj;

    /* 6-7. */
    double t_token = t_layer * layers;
    double tokens = prefill ? batch * s : batch;
    double tps = t_token > 0 ? tokens / t_token : 0.0;
    if (!feasible)
        tps = 0.0;
    double optimal = fmax(1.0, trunc(t_inj * rate / (2 * layer_params)));

    if (!out->quiet) { /* the trace's two numbers cost more than the solve */
        char need[48], have[48];
        llm_format_gb(required, need, sizeof need);
        llm_format_gb(hw->mem_capacity, have, sizeof have);
        solver_trace(out, "SRAM Wall: %s. Required %s (KV + 10%% Overhead) %s Available %s on %s.",
                     feasible ? "Passed" : "FAILED", need, feasible ? "<=" : ">", have, hw->name);
    }

    out_bool(out, O_FEASIBLE, feasible);
    out_num(out, O_THROUGHPUT, tps);
    out_str(out, O_BOTTLENECK, compute_bound ? "Compute-Bound" : "Interconnect-Bandwidth-Bound");
    out_num(out, O_COMPUTE, t_cmp * 1e3);
    out_num(out, O_INJECTION, t_inj * 1e3);
    out_int(out, O_OPT_BATCH, optimal);
    out_num(out, O_UTIL, feasible ? fmin(util, 1.0) : util);
    return 0;
}

static const char *const ALIASES[] = {"WeightStreamingModel", NULL};

const solver_desc SOLVER_WEIGHT_STREAMING = {
    .name = "weight_streaming",
    .aliases = ALIASES,
    .title = "Wafer-scale weight streaming: injection- or compute-bound, tokens/s, the batch that balances them",
    .description = "mlsysim WeightStreamingModel. The KV cache (+10%) must fit the wafer's on-chip memory; each "
                   "layer's weights stream in over the interconnect (100 GB/s if none) while the wafer computes "
                   "the layer for the batch; the slower of the two sets the layer time. Reports the batch at which "
                   "decode compute hides the injection (Lie et al. 2022, Cerebras weight streaming).",
    .assumptions = "Weights streamed layer by layer over the interconnect; each layer takes the slower of injection "
                   "and compute; the KV cache stays on the wafer with 10% overhead. Leaves out overlap between "
                   "layers' injection and compute, on-wafer routing and activation traffic.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_weight_streaming,
    .example_json = "{\"model\":\"Llama3_70B\",\"hardware\":\"Cerebras_CS3\",\"seq_len\":2048,\"batch_size\":16,"
                    "\"phase\":\"prefill\"}",
};
