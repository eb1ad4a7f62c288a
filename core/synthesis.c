/* synthesis.c - mlsysim SynthesisSolver (engine/solvers/performance.py,
 * reference/solvers.md §7): the inverse roofline. Given a latency target
 * for one pass that streams every weight once (batch 1), the memory
 * bandwidth, compute rate and capacity an accelerator needs, and the
 * compute : bandwidth balance it should sit near. Williams et al. (2009);
 * Jouppi et al. (2017).
 *
 * Beyond mlsysim: which accelerators of `candidates` (absent: every one in
 * the catalog) meet all three requirements - peak rate at the precision
 * (the default peak where the entry lists none for it, as single_node
 * uses), memory bandwidth and capacity - listed cheapest first where a unit
 * cost is known, then the unpriced ones fastest first. weight_precision
 * stores the weights in another format (int4_g128, q4_k_m, ...): it sets
 * the bytes, precision the rate. */
#include <math.h>
#include <stdlib.h>

#include "core/llm.h"
#include "core/precision.h"
#include "core/solver.h"
#include "core/workload.h"

enum { I_MODEL, I_TARGET, I_PRECISION, I_EFFICIENCY, I_CANDIDATES, I_WEIGHT_PREC, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload to serve: a catalog id or an inline object"},
    /* target_latency and efficiency are not bounded, as upstream: only the
     * zeros it divides by are refused (run_synthesis). */
    [I_TARGET] = {.name = "target_latency", .kind = IN_QUANTITY, .dim = &DIM_TIME, .unit = "ms",
                  .description = "Latency target of one pass (\"20 ms\", \"1 s\")"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS, .description = "Numeric format; sets bytes per parameter"},
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .description = "Expected fraction of peak compute achieved; lower values raise the "
                                     "compute rate needed"},
    [I_CANDIDATES] = {.name = "candidates", .kind = IN_LIST, .refs = REC_BIT(REC_HARDWARE),
                      .list_all_by_default = true,
                      .description = "Accelerators to check against the requirements. Absent: every accelerator "
                                     "in the catalog"},
    [I_WEIGHT_PREC] = LLM_INPUT_WEIGHT_PRECISION,
};

enum { O_BW, O_FLOPS, O_MEMORY, O_RATIO, O_SIZE, O_OPS, O_COUNT, O_CHEAPEST, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_BW] = {.name = "required_bw", .kind = OUT_NUMBER, .unit = "GB/s",
              .description = "Bandwidth to stream the weights once within the target"},
    [O_FLOPS] = {.name = "required_flops", .kind = OUT_NUMBER, .unit = "flop/s",
                 .description = "Peak rate to compute one pass within the target at the given efficiency"},
    [O_MEMORY] = {.name = "required_memory", .kind = OUT_NUMBER, .unit = "B",
                  .description = "Memory to hold the weights"},
    [O_RATIO] = {.name = "compute_memory_ratio", .kind = OUT_NUMBER, .unit = "flop/B",
                 .description = "required_flops / required_bw: the balance point of a matching accelerator"},
    [O_SIZE] = {.name = "model_size", .kind = OUT_NUMBER, .unit = "B", .description = "Weight bytes at the precision"},
    [O_OPS] = {.name = "total_ops", .kind = OUT_NUMBER, .unit = "flop", .description = "Operations of one pass"},
    [O_COUNT] = {.name = "qualifying_count", .kind = OUT_INTEGER, .unit = "",
                 .description = "Candidates that meet all three requirements"},
    [O_CHEAPEST] = {.name = "cheapest_qualifying", .kind = OUT_STRING, .unit = "",
                    .description = "First of `qualifying`: the cheapest accelerator that meets the requirements (null "
                                   "when none does)", .categorical = true, .nullable = true},
};

enum { C_HARDWARE, C_COST, C_PEAK, C_BW, C_MEMORY, C_LATENCY, C_N };
static const output_desc COLUMNS[C_N] = {
    [C_HARDWARE] = {.name = "hardware", .kind = OUT_STRING, .unit = "", .description = "Hardware key"},
    [C_COST] = {.name = "unit_cost", .kind = OUT_NUMBER, .unit = "USD",
                .description = "Unit cost, null when the catalog gives none", .nullable = true},
    [C_PEAK] = {.name = "peak_flops", .kind = OUT_NUMBER, .unit = "flop/s",
                .description = "Peak rate at the precision"},
    [C_BW] = {.name = "memory_bandwidth", .kind = OUT_NUMBER, .unit = "GB/s", .description = "Memory bandwidth"},
    [C_MEMORY] = {.name = "memory_capacity", .kind = OUT_NUMBER, .unit = "B", .description = "Memory capacity"},
    [C_LATENCY] = {.name = "latency", .kind = OUT_NUMBER, .unit = "ms",
                   .description = "One pass on it by the same model: max(weights / bandwidth, ops / (peak x "
                                  "efficiency)), at most the target"},
};

static const table_desc TABLE = {
    .name = "qualifying",
    .description = "Candidates that meet every requirement: priced ones cheapest first, then unpriced ones "
                   "fastest first (ties in catalog order)",
    .columns = COLUMNS,
    .n_columns = C_N,
};

typedef struct {
    const hw_node *hw;
    int order;
    double peak, latency;
} fit;

static int cheapest_first(const void *a, const void *b)
{
    const fit *x = a, *y = b;
    double cx = x->hw->unit_cost, cy = y->hw->unit_cost;
    bool px = isfinite(cx), py = isfinite(cy);
    if (px != py)
        return px ? -1 : 1;
    if (px && cx != cy)
        return cx < cy ? -1 : 1;
    if (!px && x->latency != y->latency)
        return x->latency < y->latency ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* The candidates that meet bandwidth `bw` (B/s), rate `flops` and capacity
 * `weights`, as rows of the table. */
static int list_qualifying(const solver_inputs *in, double bw, double flops, double weights, double ops,
                           solver_outputs *out, solver_error *err)
{
    int n = in_list_len(in, I_CANDIDATES);
    fit *f = malloc((size_t)(n ? n : 1) * sizeof *f);
    if (!f) {
        solver_fail(err, "candidates", "out of memory checking %d candidates", n);
        err->status = 503;
        return -1;
    }
    const double eff = in_num(in, I_EFFICIENCY);
    int count = 0;
    for (int j = 0; j < n; j++) {
        const hw_node *hw = in_list_ref(in, I_CANDIDATES, j);
        double peak = llm_peak_flops(hw, in_enum(in, I_PRECISION));
        if (!(peak >= flops && hw->mem_bandwidth >= bw && hw->mem_capacity >= weights))
            continue;
        double t_mem = weights / hw->mem_bandwidth, t_compute = ops / (peak * eff);
        f[count++] = (fit){.hw = hw, .order = j, .peak = peak, .latency = t_mem > t_compute ? t_mem : t_compute};
    }
    qsort(f, (size_t)count, sizeof *f, cheapest_first);
    out_int(out, O_COUNT, count);
    if (count)
        out_str(out, O_CHEAPEST, f[0].hw->key);
    else
        out_null(out, O_CHEAPEST);
    for (int j = 0; j < count; j++) {
        int r = out_row(out);
        if (r < 0) {
            solver_warn(out, "qualifying lists the first %d of %d accelerators", SOLVER_MAX_ROWS, count);
            break;
        }
        out_cell_str(out, r, C_HARDWARE, f[j].hw->key);
        if (isfinite(f[j].hw->unit_cost))
            out_cell_num(out, r, C_COST, f[j].hw->unit_cost);
        out_cell_num(out, r, C_PEAK, f[j].peak);
        out_cell_num(out, r, C_BW, f[j].hw->mem_bandwidth / 1e9);
        out_cell_num(out, r, C_MEMORY, f[j].hw->mem_capacity);
        out_cell_num(out, r, C_LATENCY, f[j].latency * 1e3);
    }
    free(f);
    return 0;
}

static int run_synthesis(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *model = in_model(in, I_MODEL);
    const double b = precision_bytes(in_enum(in, I_PRECISION));
    /* Weights stored at weight_precision (default: precision); ops as at precision. */
    const double wb = in_has(in, I_WEIGHT_PREC) ? format_bytes(in_enum(in, I_WEIGHT_PREC)) : b;
    double weights;
    lowered_graph g;
    if (workload_size_bytes(model, wb, &weights, err) != 0 || workload_lower(model, b, &g, err) != 0)
        return -1;
    /* The divisions in upstream's order: bandwidth by the target, compute
     * rate by target x efficiency, their ratio by the bandwidth. */
    const double t = in_num(in, I_TARGET);
    if (t == 0)
        return solver_fail_divides_by_zero(err, "target_latency");
    if (in_num(in, I_EFFICIENCY) == 0)
        return solver_fail_divides_by_zero(err, "efficiency");
    if (weights == 0)
        return solver_fail(err, "model",
                           "model '%s' has no weight bytes: the compute : bandwidth ratio divides by them (mlsysim: "
                           "ZeroDivisionError: float division by zero)",
                           model->name);
    const double bw = weights / t;                              /* B/s */
    const double flops = g.total_ops / (t * in_num(in, I_EFFICIENCY)); /* flop/s */
    out_num(out, O_BW, bw / 1e9);
    out_num(out, O_FLOPS, flops);
    out_num(out, O_MEMORY, weights);
    out_num(out, O_RATIO, flops / bw);
    out_num(out, O_SIZE, weights);
    out_num(out, O_OPS, g.total_ops);
    return list_qualifying(in, bw, flops, weights, g.total_ops, out, err);
}

static const char *const ALIASES[] = {"SynthesisSolver", NULL};

const solver_desc SOLVER_SYNTHESIS = {
    .name = "synthesis",
    .aliases = ALIASES,
    .title = "Synthesis: the hardware a latency target needs (inverse roofline)",
    .description = "mlsysim SynthesisSolver. For one pass that streams every weight once: bandwidth = weight "
                   "bytes / target, compute rate = ops / (target x efficiency), capacity = weight bytes, and "
                   "their ratio, the arithmetic intensity a matching accelerator should balance at (Williams et "
                   "al. 2009). Then the catalog accelerators (or `candidates`) that meet all three, cheapest "
                   "first.",
    .assumptions = "Inverse roofline at batch 1: bandwidth to read the weights once and compute for the ops within "
                   "the target latency. Leaves out KV cache and activation traffic, overheads, batching and "
                   "memory-capacity headroom.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .table = &TABLE,
    .run = run_synthesis,
    .example_json = "{\"model\":\"GPT2\",\"target_latency\":\"20 ms\",\"precision\":\"int8\",\"efficiency\":0.3}",
};
