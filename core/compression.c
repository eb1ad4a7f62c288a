/* compression.c - mlsysim CompressionModel (engine/solvers/compression.py),
 * the fixed FP32-baseline version (reference/solvers.md §28): what
 * quantization to a bit width, or pruning to a sparsity, does to the model's
 * size, its estimated accuracy and its inference speed on one accelerator.
 * Gholami et al. (2021) for quantization, Blalock et al. (2020) for pruning. */
#include <math.h>
#include <stdio.h>

#include "core/precision.h"
#include "core/solver.h"
#include "core/workload.h"

/* engine/calibration.py */
#define QUANT_ACCURACY_DELTA_FP8 (-0.002)     /* 8 bits (FP8 and INT8 alike) */
#define QUANT_ACCURACY_DELTA_INT4 (-0.025)    /* 4 to 15 bits, except 8 */
#define QUANT_ACCURACY_DELTA_SUB_INT4 (-0.050)
#define PRUNING_ACCURACY_THRESHOLD 0.5
#define PRUNING_MILD_DELTA (-0.001)
#define PRUNING_STEEP_COEFFICIENT 0.01
#define PRUNING_STEEP_EXPONENT 2.0

#define BASELINE_BYTES 4.0           /* sizes are measured against FP32 */
#define BASELINE_BITS 32.0
#define FULLY_PRUNED_RATIO 100.0     /* compression ratio reported at sparsity 1 */
#define NM_SPARSITY 0.5              /* 2:4 sparsity pays only at (about) 50 % */
#define NM_TOLERANCE 0.05
#define NM_SPEEDUP 2.0
#define BOTTLENECK_EPS_S 1e-18       /* calc_bottleneck's 1e-15 ms (H.1) */

static const char *const METHODS[] = {"quantization", "pruning", "distillation", NULL};
enum { M_QUANTIZATION, M_PRUNING, M_DISTILLATION };
static const char *const SPARSITY_TYPES[] = {"unstructured", "structured", "n_m", NULL};
enum { SP_UNSTRUCTURED, SP_STRUCTURED, SP_N_M };

enum { I_MODEL, I_HARDWARE, I_METHOD, I_BITS, I_SPARSITY, I_SPARSITY_TYPE, I_WEIGHT_PREC, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload to compress: a catalog id or an inline object"},
    [I_HARDWARE] = {.name = "hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE),
                    .description = "Accelerator it runs on (its roofline regime and low-precision rates "
                                   "set the speed-up of quantization)"},
    [I_METHOD] = {.name = "method", .kind = IN_ENUM, .has_default = true, .def_str = "quantization",
                  .enum_values = METHODS,
                  .description = "quantization (to target_bitwidth), pruning (to sparsity), or distillation "
                                 "(no size model: ratio 1, as mlsysim does for any other method, and for a method "
                                 "spelled in another case)"},
    [I_BITS] = {.name = "target_bitwidth", .kind = IN_INTEGER, .has_default = true, .def_num = 8,
                .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1024,
                .description = "Bits per weight after quantization (8 for INT8/FP8, 4 for INT4)"},
    [I_SPARSITY] = {.name = "sparsity", .kind = IN_NUMBER, .has_default = true, .def_num = 0.0,
                    .check = CHECK_RANGE, .lo = 0.0, .hi = 1.0,
                    .description = "Fraction of weights pruned"},
    [I_SPARSITY_TYPE] = {.name = "sparsity_type", .kind = IN_ENUM, .has_default = true, .def_str = "unstructured",
                         .enum_values = SPARSITY_TYPES,
                         .description = "Pruning pattern: unstructured (storage only), structured (rows and "
                                        "columns: compute too), n_m (2:4, a 2x speed-up at 50 %); as in mlsysim, a "
                                        "value spelled in another case gives no speed-up"},
    [I_WEIGHT_PREC] = {.name = "weight_precision", .kind = IN_ENUM, .optional = true, .enum_values = FORMAT_KEYS,
                       .enum_refusal = "weight_precision '{}' is not supported. Supported formats: " FORMAT_LIST,
                       .description = "Quantization to a named storage format instead of target_bitwidth: its "
                                      "effective bits, scales included (int4_g128 4.125, q4_k_m 4.84, nvfp4 4.5, "
                                      "...), set the ratio; the accuracy delta is that of its whole bits; a "
                                      "compute-bound model speeds up by the accelerator's rate at the format's "
                                      "native precision (none for GGUF k-quants, which are dequantized first)"},
};

enum { O_ORIGINAL, O_COMPRESSED, O_RATIO, O_ACCURACY, O_SAVINGS, O_SPEEDUP, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_ORIGINAL] = {.name = "original_size", .kind = OUT_NUMBER, .unit = "B",
                    .description = "Model size at FP32 (model_size if the workload sets it)"},
    [O_COMPRESSED] = {.name = "compressed_size", .kind = OUT_NUMBER, .unit = "B",
                      .description = "original_size / compression_ratio"},
    [O_RATIO] = {.name = "compression_ratio", .kind = OUT_NUMBER, .unit = "",
                 .description = "32 / bits, 1 / (1 - sparsity), or 1"},
    [O_ACCURACY] = {.name = "estimated_accuracy_delta", .kind = OUT_NUMBER, .unit = "",
                    .description = "Signed accuracy change (-0.002 = -0.2 points), from survey medians"},
    [O_SAVINGS] = {.name = "memory_savings", .kind = OUT_NUMBER, .unit = "%",
                   .description = "(1 - 1 / compression_ratio) x 100"},
    [O_SPEEDUP] = {.name = "inference_speedup", .kind = OUT_NUMBER, .unit = "",
                   .description = "Memory-bound: the compression ratio; compute-bound: what the low-precision rate "
                                  "gives"},
};

/* calc_bottleneck (H.1) at batch 1 with no derating: is streaming the FP32
 * weights slower than computing on them at the default peak? */
static bool memory_bound(double ops, double bytes, const hw_node *hw)
{
    double t_compute = ops / hw->peak_flops;
    double t_memory = bytes / hw->mem_bandwidth;
    if (t_compute < BOTTLENECK_EPS_S)
        return true;
    if (t_memory < BOTTLENECK_EPS_S)
        return false;
    return t_memory > t_compute;
}

static int quantize(const solver_inputs *in, double *ratio, double *accuracy, double *speedup,
                    solver_error *err)
{
    const model_t *model = in_model(in, I_MODEL);
    const hw_node *hw = in_hw(in, I_HARDWARE);
    /* A named format: its effective bits set the ratio, its whole bits the
     * accuracy class, its native precision the compute-bound speed-up. */
    const precision_format *fmt = in_has(in, I_WEIGHT_PREC) ? &PRECISION_FORMATS[in_enum(in, I_WEIGHT_PREC)] : NULL;
    const int bits = fmt ? (int)floor(fmt->bits) : in_int(in, I_BITS);
    *ratio = BASELINE_BITS / (fmt ? fmt->bits : bits);
    if (bits >= 16)
        *accuracy = 0.0;
    else if (bits == 8)
        *accuracy = QUANT_ACCURACY_DELTA_FP8;
    else if (bits >= 4)
        *accuracy = QUANT_ACCURACY_DELTA_INT4;
    else
        *accuracy = QUANT_ACCURACY_DELTA_SUB_INT4;

    lowered_graph g;
    if (workload_lower(model, BASELINE_BYTES, &g, err) != 0)
        return -1;
    if (memory_bound(g.total_ops, g.weight_bytes, hw)) {
        *speedup = *ratio;
        return 0;
    }
    /* Compute-bound: only a native low-precision rate helps. mlsysim divides
     * the rates in their declared units; every catalog entry declares them in
     * the same scale, so the physical ratio is the same number. */
    char key[16];
    snprintf(key, sizeof key, "%s%d", bits <= 8 ? "int" : "fp", bits);
    const hw_precision_flops *pf = fmt == NULL ? hw_find_precision(hw, key)
                                   : fmt->native ? hw_find_precision(hw, fmt->native) : NULL;
    *speedup = pf ? fmin(pf->flops / hw->peak_flops, *ratio) : 1.0;
    return 0;
}

static void prune(const solver_inputs *in, double *ratio, double *accuracy, double *speedup)
{
    const double s = in_num(in, I_SPARSITY);
    *ratio = s < 1.0 ? 1.0 / (1.0 - s) : FULLY_PRUNED_RATIO;
    *accuracy = s <= PRUNING_ACCURACY_THRESHOLD ? PRUNING_MILD_DELTA
                                                : -PRUNING_STEEP_COEFFICIENT * exp(s * PRUNING_STEEP_EXPONENT);
    /* Upstream compares the strings as written: "Structured" is neither
     * "structured" nor "n_m" (no speed-up). */
    switch (in_enum_respelled(in, I_SPARSITY_TYPE) ? SP_UNSTRUCTURED : in_enum(in, I_SPARSITY_TYPE)) {
    case SP_STRUCTURED:
        *speedup = *ratio;
        break;
    case SP_N_M:
        *speedup = fabs(s - NM_SPARSITY) < NM_TOLERANCE ? NM_SPEEDUP : 1.0;
        break;
    default:
        *speedup = 1.0;
        break;
    }
}

static int run_compression(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const hw_node *hw = in_hw(in, I_HARDWARE);
    double original;
    if (workload_size_bytes(in_model(in, I_MODEL), BASELINE_BYTES, &original, err) != 0)
        return -1;
    double ratio = 1.0, accuracy = 0.0, speedup = 1.0;
    if (in_has(in, I_WEIGHT_PREC)) {
        if (in_enum_respelled(in, I_METHOD) || in_enum(in, I_METHOD) != M_QUANTIZATION)
            return solver_fail(err, "weight_precision", "weight_precision applies to method 'quantization' only");
        if (!in->v[I_BITS].defaulted)
            return solver_fail(err, "weight_precision",
                               "give either target_bitwidth or weight_precision, not both");
    }
    /* "Quantization" is not upstream's "quantization": the no-op branch. */
    switch (in_enum_respelled(in, I_METHOD) ? M_DISTILLATION : in_enum(in, I_METHOD)) {
    case M_QUANTIZATION:
        if (!(hw->peak_flops > 0) || !(hw->mem_bandwidth > 0))
            return solver_fail(err, "hardware",
                               "hardware '%s' needs a positive peak_flops and memory bandwidth to tell the "
                               "roofline regime of quantization (mlsysim divides by them)",
                               hw->name);
        if (quantize(in, &ratio, &accuracy, &speedup, err) != 0)
            return -1;
        break;
    case M_PRUNING:
        prune(in, &ratio, &accuracy, &speedup);
        break;
    default:
        break;
    }
    out_num(out, O_ORIGINAL, original);
    out_num(out, O_COMPRESSED, original / ratio);
    out_num(out, O_RATIO, ratio);
    out_num(out, O_ACCURACY, accuracy);
    out_num(out, O_SAVINGS, (1.0 - 1.0 / ratio) * 100.0);
    out_num(out, O_SPEEDUP, speedup);
    return 0;
}

static const char *const ALIASES[] = {"CompressionModel", NULL};

const solver_desc SOLVER_COMPRESSION = {
    .name = "compression",
    .aliases = ALIASES,
    .title = "Compression: what quantization or pruning buys in size and speed, and costs in accuracy",
    .description = "mlsysim CompressionModel (FP32 baseline). Quantization to b bits shrinks the model 32/b-fold "
                   "and speeds a memory-bound model up as much; a compute-bound one only by the accelerator's "
                   "native rate at that width. Pruning shrinks it 1/(1-s)-fold; structured pruning speeds it up "
                   "as much, 2:4 sparsity twice at 50 %. Accuracy deltas are survey medians (Gholami et al. 2021, "
                   "Blalock et al. 2020).",
    .assumptions = "Size, accuracy change and speedup of quantization or pruning against an FP32 baseline, by fixed "
                   "rules. The accuracy deltas are typical values, not measured for the model; the speedup assumes "
                   "the hardware's precision table and a batch-1 roofline regime.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_compression,
    .example_json = "{\"model\":\"Llama3_8B\",\"hardware\":\"A100\",\"method\":\"pruning\",\"sparsity\":0.5,"
                    "\"sparsity_type\":\"n_m\"}",
};
