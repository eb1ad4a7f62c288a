/* synthesis.c - mlsysim SynthesisSolver (engine/solvers/performance.py,
 * reference/solvers.md §7): the inverse roofline. Given a latency target
 * for one pass that streams every weight once (batch 1), the memory
 * bandwidth, compute rate and capacity an accelerator needs, and the
 * compute : bandwidth balance it should sit near. Williams et al. (2009);
 * Jouppi et al. (2017). */
#include "core/precision.h"
#include "core/solver.h"
#include "core/workload.h"

enum { I_MODEL, I_TARGET, I_PRECISION, I_EFFICIENCY, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload to serve: a catalog id or an inline object"},
    [I_TARGET] = {.name = "target_latency", .kind = IN_QUANTITY, .dim = &DIM_TIME, .unit = "ms",
                  .check = CHECK_POSITIVE, .description = "Latency target of one pass (\"20 ms\", \"1 s\")"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS, .description = "Numeric format; sets bytes per parameter"},
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .check = CHECK_RANGE, .lo = 1e-9, .hi = 1.0,
                      .description = "Expected fraction of peak compute achieved; lower values raise the "
                                     "compute rate needed"},
};

enum { O_BW, O_FLOPS, O_MEMORY, O_RATIO, O_SIZE, O_OPS, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_BW] = {"required_bw", OUT_NUMBER, "GB/s", "Bandwidth to stream the weights once within the target", false,
              false},
    [O_FLOPS] = {"required_flops", OUT_NUMBER, "flop/s", "Peak rate to compute one pass within the target at "
                                                          "the given efficiency",
                 false, false},
    [O_MEMORY] = {"required_memory", OUT_NUMBER, "B", "Memory to hold the weights", false, false},
    [O_RATIO] = {"compute_memory_ratio", OUT_NUMBER, "flop/B",
                 "required_flops / required_bw: the balance point of a matching accelerator", false, false},
    [O_SIZE] = {"model_size", OUT_NUMBER, "B", "Weight bytes at the precision", false, false},
    [O_OPS] = {"total_ops", OUT_NUMBER, "flop", "Operations of one pass", false, false},
};

static int run_synthesis(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *model = in_model(in, I_MODEL);
    const double b = precision_bytes(in_enum(in, I_PRECISION));
    double weights;
    lowered_graph g;
    if (workload_size_bytes(model, b, &weights, err) != 0 || workload_lower(model, b, &g, err) != 0)
        return -1;
    if (!(weights > 0))
        return solver_fail(err, "model", "model '%s' has no weight bytes: the compute : bandwidth ratio divides "
                                         "by them",
                           model->name);
    const double t = in_num(in, I_TARGET);
    const double bw = weights / t;                              /* B/s */
    const double flops = g.total_ops / (t * in_num(in, I_EFFICIENCY)); /* flop/s */
    out_num(out, O_BW, bw / 1e9);
    out_num(out, O_FLOPS, flops);
    out_num(out, O_MEMORY, weights);
    out_num(out, O_RATIO, flops / bw);
    out_num(out, O_SIZE, weights);
    out_num(out, O_OPS, g.total_ops);
    return 0;
}

static const char *const ALIASES[] = {"SynthesisSolver", NULL};

const solver_desc SOLVER_SYNTHESIS = {
    .name = "synthesis",
    .aliases = ALIASES,
    .title = "Synthesis: the hardware a latency target needs (inverse roofline)",
    .description = "mlsysim SynthesisSolver. For one pass that streams every weight once: bandwidth = weight "
                   "bytes / target, compute rate = ops / (target x efficiency), capacity = weight bytes, and "
                   "their ratio, the arithmetic intensity a matching accelerator should balance at (Williams et "
                   "al. 2009).",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_synthesis,
};
