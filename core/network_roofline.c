/* network_roofline.c - mlsysim NetworkRooflineModel (engine/solvers/
 * performance.py): the roofline of a fleet, with the gradient-sync network
 * in place of memory. One data-parallel training step of a model of N
 * parameters does 6N flop and moves 2N x b bytes of gradients across the
 * fabric's bisection, so its intensity is 3/b flop/B whatever the model;
 * whichever of fleet compute and fabric bandwidth takes longer binds.
 * Formulas: reference/solvers.md §4 (hfu as in the tutorial edition's
 * engine, min(1.1 x mfu, 1)). Same output record as single_node. */
#include <math.h>

#include "core/comm.h"
#include "core/numfmt.h"
#include "core/precision.h"
#include "core/solver.h"

#define HFU_MFU_RATIO 1.1

enum { I_MODEL, I_FLEET, I_PRECISION, I_EFFICIENCY, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload with a parameter count"},
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "Cluster: a catalog id (Research_256) or {node, count, fabric}"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS,
                     .description = "Numeric format: the accelerators' peak for it and the gradient width (mlsysim looks the "
                                    "peak up as written: \"FP8\" takes the default peak, with fp8's width)"},
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .check = CHECK_RANGE, .lo = 1e-9, .hi = 1.0,
                      .description = "Fraction of fleet peak compute achieved"},
};

enum {
    O_LATENCY, O_LAT_COMPUTE, O_LAT_NETWORK, O_LAT_OVERHEAD, O_THROUGHPUT, O_BOTTLENECK, O_INTENSITY, O_ENERGY,
    O_FOOTPRINT, O_PEAK_FLOPS, O_PEAK_BW, O_MFU, O_HFU, O_FEASIBLE, O_SPILL, O_OFFLOAD_BW, O_N
};
static const output_desc OUTPUTS[O_N] = {
    [O_LATENCY] = {.name = "latency", .kind = OUT_NUMBER, .unit = "ms", .description = "max(compute, gradient sync)"},
    [O_LAT_COMPUTE] = {.name = "latency_compute", .kind = OUT_NUMBER, .unit = "ms",
                       .description = "6N flop at the fleet's derated peak"},
    [O_LAT_NETWORK] = {.name = "latency_memory", .kind = OUT_NUMBER, .unit = "ms",
                       .description = "Gradient sync: 2N x b bytes over the bisection"},
    [O_LAT_OVERHEAD] = {.name = "latency_overhead", .kind = OUT_NUMBER, .unit = "ms", .description = "Always 0"},
    [O_THROUGHPUT] = {.name = "throughput", .kind = OUT_NUMBER, .unit = "1/s", .description = "Steps per second"},
    [O_BOTTLENECK] = {.name = "bottleneck", .kind = OUT_STRING, .unit = "",
                      .description = "Binding ceiling: Compute or Network", .categorical = true},
    [O_INTENSITY] = {.name = "arithmetic_intensity", .kind = OUT_NUMBER, .unit = "flop/B",
                     .description = "Training flop per synced byte: 3 / b"},
    [O_ENERGY] = {.name = "energy", .kind = OUT_NUMBER, .unit = "J", .description = "Always 0"},
    [O_FOOTPRINT] = {.name = "memory_footprint", .kind = OUT_NUMBER, .unit = "B",
                     .description = "Bytes synced per step: 2N x b"},
    [O_PEAK_FLOPS] = {.name = "peak_flops_actual", .kind = OUT_NUMBER, .unit = "TFLOP/s",
                      .description = "Fleet peak x efficiency"},
    [O_PEAK_BW] = {.name = "peak_bw_actual", .kind = OUT_NUMBER, .unit = "GB/s",
                   .description = "Fabric bandwidth / oversubscription"},
    [O_MFU] = {.name = "mfu", .kind = OUT_NUMBER, .unit = "",
               .description = "6N flop per step against the un-derated fleet peak"},
    [O_HFU] = {.name = "hfu", .kind = OUT_NUMBER, .unit = "", .description = "min(1.1 x MFU, 1)"},
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "Always true", .categorical = true},
    [O_SPILL] = {.name = "offload_spill_bytes", .kind = OUT_NUMBER, .unit = "B",
                 .description = "Always null", .nullable = true},
    [O_OFFLOAD_BW] = {.name = "offload_effective_bw", .kind = OUT_NUMBER, .unit = "GB/s",
                      .description = "Always null", .nullable = true},
};

static int run_network_roofline(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const fleet_t *fleet = in_fleet(in, I_FLEET);
    const hw_node *acc = &fleet->node.accelerator;
    const int prec = in_enum(in, I_PRECISION);
    if (isnan(m->parameters))
        return solver_fail(err, "model", "NetworkRooflineModel requires a workload with a parameter count.");

    /* 1-2. Fleet peak for this precision (the default peak if the accelerator
     *      lists no rate for it) and the bisection bandwidth. Upstream looks
     *      the precision up as written, before resolve_precision lower-cases
     *      it: "FP8" finds no entry and takes the default peak. */
    const hw_precision_flops *pf =
        in_enum_respelled(in, I_PRECISION) ? NULL : hw_find_precision(acc, PRECISION_KEYS[prec]);
    double fleet_peak = (pf ? pf->flops : acc->peak_flops) * fleet_total_accelerators(fleet);
    double bisection = comm_fabric_bw(&fleet->fabric);
    if (!(fleet_peak > 0) || !(bisection > 0))
        return solver_fail(err, "fleet", "fleet '%s' needs positive peak compute and fabric bandwidth",
                           fleet->name);

    /* 3-6. One step: 6N flop against 2N x b bytes of gradient sync. */
    double b = precision_bytes(prec);
    double sync_bytes = 2.0 * m->parameters * b;
    double ops = 6.0 * m->parameters;
    double intensity = ops / sync_bytes;
    double flops_eff = fleet_peak * in_num(in, I_EFFICIENCY);
    double t_compute = ops / flops_eff;
    double t_network = sync_bytes / bisection;
    bool network_bound = t_network > t_compute;
    double latency = fmax(t_compute, t_network);
    if (!(latency > 0))
        return solver_fail(err, "model", "model '%s' has no parameters: the step takes no time", m->name);
    double mfu = fmin((ops / latency) / fleet_peak, 1.0);

    out_num(out, O_LATENCY, latency * 1e3);
    out_num(out, O_LAT_COMPUTE, t_compute * 1e3);
    out_num(out, O_LAT_NETWORK, t_network * 1e3);
    out_num(out, O_LAT_OVERHEAD, 0.0);
    out_num(out, O_THROUGHPUT, 1.0 / latency);
    out_str(out, O_BOTTLENECK, network_bound ? "Network" : "Compute");
    out_num(out, O_INTENSITY, intensity);
    out_num(out, O_ENERGY, 0.0);
    out_num(out, O_FOOTPRINT, sync_bytes);
    out_num(out, O_PEAK_FLOPS, flops_eff / 1e12);
    out_num(out, O_PEAK_BW, bisection / 1e9);
    out_num(out, O_MFU, mfu);
    out_num(out, O_HFU, fmin(HFU_MFU_RATIO * mfu, 1.0));
    out_bool(out, O_FEASIBLE, true);
    out_null(out, O_SPILL);
    out_null(out, O_OFFLOAD_BW);

    char ci[40], ridge[40];
    fmt_pyrepr(ci, sizeof ci, intensity);
    fmt_pyrepr(ridge, sizeof ridge, fleet_peak / bisection);
    solver_trace(out, "Network Roofline: CI %s vs ridge %s; binding ceiling is %s.", ci, ridge,
                 network_bound ? "network" : "compute");
    return 0;
}

static const char *const ALIASES[] = {"NetworkRooflineModel", NULL};

const solver_desc SOLVER_NETWORK_ROOFLINE = {
    .name = "network_roofline",
    .aliases = ALIASES,
    .title = "Network roofline: fleet compute against the gradient-sync ceiling",
    .description = "mlsysim NetworkRooflineModel. A data-parallel training step (6N flop) against the "
                   "gradient all-reduce (2N x b bytes) over the fabric's bisection bandwidth: the roofline of "
                   "the network, with intensity 3/b flop per byte.",
    .assumptions = "Training compute (6 N flop) at peak x efficiency against one gradient sync of 2 N b bytes at the "
                   "fabric's bisection bandwidth per step. Leaves out compute/communication overlap, per-message "
                   "latency, activation and pipeline traffic, and the collective's algorithm.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_network_roofline,
    .example_json = "{\"model\":\"Llama3_70B\",\"fleet\":\"Research_256\",\"precision\":\"bf16\"}",
};
