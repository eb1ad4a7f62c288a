/* training_memory.c - mlsysim TrainingMemoryModel (engine/solvers/training.py):
 * bytes per accelerator for training under tensor, pipeline, data and expert
 * parallelism, ZeRO stages 0-3, activation checkpointing and a trainable
 * fraction (LoRA-style), and whether they fit. weight_precision and
 * activation_precision (default: precision) store the weights and the rest
 * in their own formats (a 4-bit frozen base under bf16 adapters). Formulas: reference/
 * solvers.md §15; activations §H.8 (Korthikanti et al. 2022); ZeRO
 * (Rajbhandari et al. 2020). */
#include <math.h>

#include "core/training_memory.h"

#include "core/llm.h"
#include "core/precision.h"

/* engine/calibration.py: optimizer bytes per trainable parameter
 * (Adam: fp32 master weights + two moments; SGD: momentum). */
static const char *const OPTIMIZERS[] = {"adam", "adamw", "sgd", "none", NULL};
static const double OPTIMIZER_BYTES[] = {TRAINING_ADAM_BYTES, TRAINING_ADAM_BYTES, 4.0, 0.0};

static const char *const CHECKPOINTING[] = {"none", "selective", "full", NULL};
static const activation_strategy CHECKPOINT_STRATEGY[] = {ACT_NONE, ACT_SELECTIVE, ACT_FULL};

enum {
    I_MODEL, I_HARDWARE, I_BATCH, I_SEQ, I_PRECISION, I_OPTIMIZER, I_CKPT, I_TP, I_PP, I_DP, I_EP, I_ZERO,
    I_GAS, I_TRAINABLE, I_BUFFER, I_WEIGHT_PREC, I_ACT_PREC, I_N
};

static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload with parameters and layers (Llama3_70B, GPT3, ...)"},
    [I_HARDWARE] = {.name = "hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE),
                    .description = "Accelerator whose memory capacity the state must fit in"},
    [I_BATCH] = {.name = "batch_size", .kind = IN_INTEGER, .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true,
                 .int_max = 1e12, .description = "Global batch size (sequences per step)"},
    [I_SEQ] = {.name = "seq_len", .kind = IN_INTEGER, .has_default = true, .def_num = 2048,
               .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e9,
               .description = "Tokens per sequence"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS,
                     .description = "Numeric format of weights, gradients and activations"},
    [I_OPTIMIZER] = {.name = "optimizer", .kind = IN_ENUM, .has_default = true, .def_str = "adam",
                     .enum_values = OPTIMIZERS,
                     .enum_refusal = "Unknown optimizer '{}'. Supported: adam, adamw, none, sgd",
                     .description = "Optimizer state per trainable parameter: adam/adamw 12 B, sgd 4 B, none 0"},
    [I_CKPT] = {.name = "activation_checkpointing", .kind = IN_ENUM, .has_default = true, .def_str = "selective",
                .enum_values = CHECKPOINTING,
                .enum_refusal = "activation_checkpointing must be 'none', 'selective', or 'full'",
                .description = "Activations kept: none (all), selective (recompute attention), full (layer "
                               "inputs only)"},
    [I_TP] = IN_DEGREE("tp_size", "Tensor-parallel degree (shards parameters)"),
    [I_PP] = IN_DEGREE("pp_size", "Pipeline-parallel degree (shards parameters and layers)"),
    [I_DP] = IN_DEGREE("dp_size", "Data-parallel degree (ZeRO shards over it; splits the batch)"),
    [I_EP] = IN_DEGREE("ep_size", "Expert-parallel degree (shards parameters)"),
    [I_ZERO] = {.name = "zero_stage", .kind = IN_INTEGER, .has_default = true, .def_num = 0, .int_max = 1e9,
                .description = "ZeRO stage: 1 shards optimizer state, 2 also gradients, 3 also weights, over "
                               "dp_size"},
    [I_GAS] = IN_DEGREE("gradient_accumulation_steps", "Micro-steps per optimizer step (splits the batch)"),
    [I_TRAINABLE] = {.name = "trainable_fraction", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0,
                     .check = CHECK_RANGE, .lo = 0, .hi = 1,
                     .description = "Fraction of parameters trained (gradients and optimizer state), e.g. "
                                    "0.01 for adapters"},
    [I_BUFFER] = {.name = "communication_buffer_fraction", .kind = IN_NUMBER, .has_default = true,
                  .def_num = TRAINING_BUFFER_FRACTION, .check = CHECK_RANGE, .lo = 0, .hi = 1,
                  .description = "Communication buffers as a fraction of the (sharded) gradients"},
    [I_WEIGHT_PREC] = {.name = "weight_precision", .kind = IN_ENUM, .optional = true, .enum_values = FORMAT_KEYS,
                       .enum_refusal = "weight_precision '{}' is not supported. Supported formats: " FORMAT_LIST,
                       .description = "Storage format of the weights (default: precision), e.g. int4_g128 for a "
                                      "QLoRA base under trainable_fraction. Bits per element, scales included: "
                                      LLM_FORMAT_BITS},
    [I_ACT_PREC] = {.name = "activation_precision", .kind = IN_ENUM, .optional = true,
                    .enum_values = PRECISION_KEYS,
                    .description = "Precision of gradients, activations and communication buffers (default: "
                                   "precision)"},
};

/* Checked after every bound, as mlsysim checks it last. */
static int check_zero_stage(const solver_inputs *in, solver_error *err)
{
    int z = in_int(in, I_ZERO);
    if (z < 0 || z > 3)
        return solver_fail(err, "zero_stage", "zero_stage must be 0, 1, 2, or 3");
    return 0;
}

static const char *const ZERO_INPUTS[] = {"zero_stage", NULL};
static const input_constraint CONSTRAINTS[] = {
    {.rule = "zero_stage in {0, 1, 2, 3}", .inputs = ZERO_INPUTS, .check = check_zero_stage},
};

enum {
    O_FEASIBLE, O_TOTAL, O_AVAILABLE, O_UTIL, O_WEIGHTS, O_GRADS, O_OPT, O_ACT, O_BUFFERS, O_N
};
static const output_desc OUTPUTS[O_N] = {
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "total_memory <= available_memory", .categorical = true},
    [O_TOTAL] = {.name = "total_memory", .kind = OUT_NUMBER, .unit = "B",
                 .description = "Weights + gradients + optimizer + activations + buffers"},
    [O_AVAILABLE] = {.name = "available_memory", .kind = OUT_NUMBER, .unit = "B",
                     .description = "Accelerator memory capacity"},
    [O_UTIL] = {.name = "memory_utilization", .kind = OUT_NUMBER, .unit = "",
                .description = "total_memory / available_memory"},
    [O_WEIGHTS] = {.name = "weights", .kind = OUT_NUMBER, .unit = "B",
                   .description = "Parameters / (tp x pp x ep) x bytes (/ dp under ZeRO-3)"},
    [O_GRADS] = {.name = "gradients", .kind = OUT_NUMBER, .unit = "B",
                 .description = "Trainable parameters x bytes (/ dp under ZeRO-2+)"},
    [O_OPT] = {.name = "optimizer_state", .kind = OUT_NUMBER, .unit = "B",
               .description = "Trainable parameters x optimizer bytes (/ dp under ZeRO-1+)"},
    [O_ACT] = {.name = "activations", .kind = OUT_NUMBER, .unit = "B",
               .description = "Activations of one microbatch over this stage's layers"},
    [O_BUFFERS] = {.name = "communication_buffers", .kind = OUT_NUMBER, .unit = "B",
                   .description = "Gradient-bucket buffers + pipeline send/receive buffers"},
};

int training_memory(const training_memory_query *q, training_memory_result *r, solver_error *err)
{
    const model_t *m = q->model;
    if (isnan(m->parameters))
        return solver_fail(err, "model", "model '%s' has no parameter count", m->name);
    if (m->layers < 1)
        return solver_fail(err, "model", "model '%s' has no layer count (needed for activations)", m->name);
    const double b = q->bytes_per_element;
    const double wb = q->weight_bytes > 0 ? q->weight_bytes : b;

    /* 1. Model-parallel shards of parameters; only the trainable fraction
     *    carries gradients and optimizer state. */
    double params = m->parameters / (q->tp * q->pp * q->ep);
    double trainable = params * q->trainable_fraction;
    r->weights = params * wb;
    r->grads = trainable * b;
    r->opt = trainable * q->optimizer_bytes;

    /* 2. ZeRO sharding over data-parallel ranks. */
    if (q->zero_stage >= 1)
        r->opt /= q->dp;
    if (q->zero_stage >= 2)
        r->grads /= q->dp;
    if (q->zero_stage >= 3)
        r->weights /= q->dp;

    /* 3. Activations of one microbatch on one pipeline stage (not split by tp). */
    double micro = fmax(1.0, ceil(q->batch_size / (q->dp * q->grad_accum_steps)));
    int stage_layers = (int)fmax(1.0, ceil((double)m->layers / q->pp));
    double hidden = m->hidden_dim > 0 ? m->hidden_dim : 4096;
    if (activation_memory(stage_layers, q->seq_len, micro, hidden, m->heads, b, q->checkpointing, &r->act, err) != 0)
        return -1;

    /* 4. Gradient buckets, plus one activation send/receive pair between stages. */
    r->buffers = r->grads * q->buffer_fraction + (q->pp > 1 ? 2.0 * micro * q->seq_len * hidden * b : 0.0);
    r->total = r->weights + r->grads + r->opt + r->act + r->buffers;
    return 0;
}

/* TrainingMemoryModel reads model.parameters, model.layers (divided by pp)
 * and model.hidden_dim, in that order; workloads without them fail there
 * in Python, with these errors. */
static int check_model_attributes(const model_t *m, solver_error *err)
{
    const char *kind = workload_kind_name(m->kind);
    if (m->kind == WL_GENERIC && isnan(m->parameters))
        return solver_fail(err, "model",
                           "AttributeError: 'NoneType' object has no attribute 'to' (model '%s' has no parameter "
                           "count)",
                           m->name);
    if (m->kind == WL_GENERIC || m->kind == WL_DIFFUSION)
        return solver_fail(err, "model", "AttributeError: '%s' object has no attribute 'layers' (model '%s')", kind,
                           m->name);
    if (m->kind == WL_CNN && m->layers < 1)
        return solver_fail(err, "model",
                           "TypeError: unsupported operand type(s) for /: 'NoneType' and 'int' (model '%s' has no "
                           "layer count)",
                           m->name);
    if (m->kind == WL_CNN)
        return solver_fail(err, "model", "AttributeError: '%s' object has no attribute 'hidden_dim' (model '%s')",
                           kind, m->name);
    return 0;
}

static int run_training_memory(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    if (check_model_attributes(m, err) != 0)
        return -1;
    const hw_node *hw = in_hw(in, I_HARDWARE);
    /* Gradients, activations and buffers at activation_precision, the
     * weights at weight_precision; both default to precision. */
    int act_prec;
    double weight_bytes, unused_kv;
    llm_tensor_precisions(in, I_PRECISION, I_WEIGHT_PREC, -1, I_ACT_PREC, &act_prec, &weight_bytes, &unused_kv);
    const training_memory_query q = {
        .model = m, .batch_size = in_num(in, I_BATCH), .seq_len = in_num(in, I_SEQ),
        .bytes_per_element = precision_bytes(act_prec), .weight_bytes = weight_bytes,
        .optimizer_bytes = OPTIMIZER_BYTES[in_enum(in, I_OPTIMIZER)],
        .checkpointing = CHECKPOINT_STRATEGY[in_enum(in, I_CKPT)], .tp = in_num(in, I_TP), .pp = in_num(in, I_PP),
        .dp = in_num(in, I_DP), .ep = in_num(in, I_EP), .zero_stage = in_int(in, I_ZERO),
        .grad_accum_steps = in_num(in, I_GAS), .trainable_fraction = in_num(in, I_TRAINABLE),
        .buffer_fraction = in_num(in, I_BUFFER)};
    training_memory_result r;
    if (training_memory(&q, &r, err) != 0)
        return -1;
    const double weights = r.weights, grads = r.grads, opt = r.opt, act = r.act, buffers = r.buffers;

    /* 5. Fit. */
    double total = r.total;
    double available = hw->mem_capacity;
    out_bool(out, O_FEASIBLE, total <= available);
    out_num(out, O_TOTAL, total);
    out_num(out, O_AVAILABLE, available);
    if (available > 0) {
        out_num(out, O_UTIL, total / available);
    } else {
        out_null(out, O_UTIL);
        solver_warn(out, "memory_utilization is infinite (hardware '%s' has no memory), reported as null",
                    hw->name);
    }
    out_num(out, O_WEIGHTS, weights);
    out_num(out, O_GRADS, grads);
    out_num(out, O_OPT, opt);
    out_num(out, O_ACT, act);
    out_num(out, O_BUFFERS, buffers);
    solver_trace(out, "Training memory: %.4g GB of %.4g GB on %s (%s).", total / 1e9, available / 1e9, hw->name,
                 total <= available ? "fits" : "does not fit");
    return 0;
}

static const char *const ALIASES[] = {"TrainingMemoryModel", NULL};

/* Outputs monotone in an input (solver.h), checked by tests/api/test_optimize.c. */
static const monotone_desc MONOTONE[] = {
    {"batch_size", "total_memory", +1},
    {"batch_size", "activations", +1},
    {"batch_size", "memory_utilization", +1},
    {"batch_size", "feasible", -1},
    {NULL, NULL, 0},
};

const solver_desc SOLVER_TRAINING_MEMORY = {
    .name = "training_memory",
    .aliases = ALIASES,
    .title = "Training memory per accelerator: does this split fit?",
    .description = "mlsysim TrainingMemoryModel. Weights, gradients, optimizer state, activations and "
                   "communication buffers per accelerator under TP/PP/DP/EP sharding, ZeRO stages 0-3, "
                   "activation checkpointing (Korthikanti et al. 2022) and a trainable fraction, against the "
                   "accelerator's memory.",
    .assumptions = "Weights, gradients, optimizer state, activations and a communication buffer per accelerator, "
                   "split by TP/PP/EP and ZeRO. Leaves out allocator fragmentation, framework workspace, temporary "
                   "buffers of kernels and imbalance between pipeline stages.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .monotone = MONOTONE,
    .run = run_training_memory,
    .example_json = "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"batch_size\":256,\"tp_size\":8,\"pp_size\":4,"
                    "\"dp_size\":8,\"zero_stage\":1}",
};
