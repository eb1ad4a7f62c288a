/* inference_scaling.c - inference_scaling: mlsysim InferenceScalingModel
 * (reference/solvers.md §13): the cost of chain-of-thought reasoning, each
 * of n steps decoding 50 tokens after one prefill, at ServingModel's TTFT
 * and inter-token latency for one sequence (Wei et al. 2022; Snell et al.
 * 2024). Energy is the full TDP over the query's time. */
#include <math.h>

#include "core/llm.h"
#include "core/measured.h"
#include "core/solver.h"

#define TOKENS_PER_REASONING_STEP 50 /* engine/calibration.py */

enum {
    I_MODEL, I_HARDWARE, I_STEPS, I_CONTEXT, I_PRECISION, I_EFFICIENCY, I_TP, I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC,
    I_N
};

static const input_desc INPUTS[I_N] = {
    [I_MODEL] = LLM_INPUT_MODEL("The reasoning LLM (a TransformerWorkload)"),
    [I_HARDWARE] = LLM_INPUT_HARDWARE("The serving node"),
    [I_STEPS] = {.name = "reasoning_steps", .kind = IN_INTEGER, .has_default = true, .def_num = 8, .int_max = 1e9,
                 .description = "Chain-of-thought steps, 50 generated tokens each"},
    [I_CONTEXT] = {.name = "context_length", .kind = IN_INTEGER, .has_default = true, .def_num = 2048,
                   .int_max = 1e9, .description = "Prompt tokens (ServingModel's seq_len)"},
    [I_PRECISION] = LLM_INPUT_PRECISION,
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .description = "Fraction of peak compute prefill achieves, in (0, 1]"},
    [I_TP] = IN_DEGREE("tp", "Tensor-parallel degree: weights and KV cache split over tp accelerators of one "
                             "node (serving's tp; 1: mlsysim's answer)"),
    [I_WEIGHT_PREC] = LLM_INPUT_WEIGHT_PRECISION,
    [I_KV_PREC] = LLM_INPUT_KV_PRECISION,
    [I_ACT_PREC] = LLM_INPUT_ACTIVATION_PRECISION,
};

/* ServingModel validates what it is given: context_length is its seq_len. */
static int check_context(const solver_inputs *in, solver_error *err)
{
    return serving_check_seq_len(in_num(in, I_CONTEXT), "context_length", err);
}

static int check_efficiency(const solver_inputs *in, solver_error *err)
{
    return serving_check_efficiency(in_num(in, I_EFFICIENCY), in_was_int(in, I_EFFICIENCY), "efficiency", err);
}

static const char *const R_CONTEXT[] = {"context_length", NULL};
static const char *const R_EFF[] = {"efficiency", NULL};

static const input_constraint CONSTRAINTS[] = {
    {.rule = "context_length >= 1 (ServingModel's seq_len)", .inputs = R_CONTEXT, .check = check_context},
    {.rule = "0 < efficiency <= 1", .inputs = R_EFF, .check = check_efficiency},
};

enum { O_TOTAL, O_TTFT, O_ITL, O_TOKENS, O_STEP, O_ENERGY, O_FEASIBLE, O_N };

static const output_desc OUTPUTS[O_N] = {
    [O_TOTAL] = {.name = "total_reasoning_time", .kind = OUT_NUMBER, .unit = "ms",
                 .description = "ttft + reasoning_steps x time_per_step"},
    [O_TTFT] = {.name = "ttft", .kind = OUT_NUMBER, .unit = "ms",
                .description = "ServingModel time to first token (batch 1)"},
    [O_ITL] = {.name = "itl", .kind = OUT_NUMBER, .unit = "ms",
               .description = "ServingModel inter-token latency (batch 1)"},
    [O_TOKENS] = {.name = "tokens_generated", .kind = OUT_INTEGER, .unit = "", .description = "reasoning_steps x 50"},
    [O_STEP] = {.name = "time_per_step", .kind = OUT_NUMBER, .unit = "ms", .description = "50 x itl"},
    [O_ENERGY] = {.name = "energy_per_query", .kind = OUT_NUMBER, .unit = "J",
                  .description = "TDP x total_reasoning_time (0 without a TDP)"},
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "ServingModel's memory wall passes", .categorical = true},
};

static int run_inference_scaling(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    serving_params p = {.model = in_model(in, I_MODEL), .hw = in_hw(in, I_HARDWARE),
                        .seq_len = in_num(in, I_CONTEXT), .batch = 1, .precision = in_enum(in, I_PRECISION),
                        .efficiency = in_num(in, I_EFFICIENCY), .network_bw = 1, .acceptance = 0.7};
    llm_tensor_precisions(in, I_PRECISION, I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC, &p.precision, &p.weight_bytes,
                          &p.kv_bytes);
    if (llm_require_transformer(p.model, "model", err) != 0)
        return -1;
    serving_result sv = serving_answer(&p, in_num(in, I_TP), in->calibration, !in->v[I_EFFICIENCY].defaulted, out);
    double steps = in_num(in, I_STEPS);
    double itl_ms = sv.itl * 1e3;
    double step_ms = TOKENS_PER_REASONING_STEP * itl_ms;
    double total_ms = sv.ttft * 1e3 + steps * step_ms;
    double energy = isnan(p.hw->tdp) ? 0.0 : p.hw->tdp * (total_ms / 1e3);

    out_num(out, O_TOTAL, total_ms);
    out_num(out, O_TTFT, sv.ttft * 1e3);
    out_num(out, O_ITL, itl_ms);
    out_int(out, O_TOKENS, steps * TOKENS_PER_REASONING_STEP);
    out_num(out, O_STEP, step_ms);
    out_num(out, O_ENERGY, energy);
    out_bool(out, O_FEASIBLE, sv.feasible);
    return 0;
}

static const char *const TTFT[] = {"ttft", NULL};
static const char *const ITL[] = {"itl", "time_per_step", NULL};

static int inference_scaling_families(const solver_inputs *in, solver_band *bands)
{
    (void)in;
    bands[0] = (solver_band){CF_LLM_PREFILL, TTFT};
    bands[1] = (solver_band){CF_LLM_DECODE, ITL};
    return 2;
}

static const char *const ALIASES[] = {"InferenceScalingModel", NULL};

const solver_desc SOLVER_INFERENCE_SCALING = {
    .name = "inference_scaling",
    .aliases = ALIASES,
    .title = "Chain-of-thought cost: time, tokens and energy per query for n reasoning steps",
    .description = "mlsysim InferenceScalingModel. One prefill of the context, then reasoning_steps x 50 decoded "
                   "tokens at ServingModel's inter-token latency (batch 1); energy is the accelerator's TDP over "
                   "that time (Wei et al. 2022, chain of thought; Snell et al. 2024, test-time compute).",
    .assumptions = "One TTFT then reasoning_steps x 50 tokens at serving's ITL, batch 1; energy at full TDP. Leaves "
                   "out KV-cache growth during reasoning, batching with other requests and idle power.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .run = run_inference_scaling,
    .measured_families = inference_scaling_families,
    .example_json = "{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"reasoning_steps\":16}",
};
