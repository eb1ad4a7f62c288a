/* pipeline.c - storage -> CPU preprocessing -> accelerator, in one answer.
 *
 * No single mlsysim solver answers this; it chains SingleNodeModel (the
 * accelerator step), DataModel (the storage supply path) and
 * TransformationModel (CPU time per batch) the way the tutorial "Starving
 * the GPU" does by hand. Model (docs/pipeline.md): the three stages overlap
 * under prefetching, each stage's time is linear in the batch, so the
 * slowest stage sets the step time. */
#include <math.h>

#include "core/data.h"
#include "core/roofline.h"
#include "core/solver.h"

#define DEFAULT_PER_WORKER_BPS 250e6 /* the tutorial's figure: 250 MB/s per worker */

enum {
    I_SAMPLE = RL_N_INPUTS, I_CPU, I_WORKERS, I_PER_WORKER, I_STORAGE, I_N
};

/* C cannot copy ROOFLINE_INPUTS into a constant initializer, so the table is
 * filled once, before first use, from the shared rows plus our own. */
static input_desc inputs_table[I_N];
static const input_desc OWN_INPUTS[I_N - RL_N_INPUTS] = {
    {.name = "sample_size_bytes", .kind = IN_QUANTITY, .dim = &DIM_BYTES, .unit = "B",
     .check = CHECK_NONNEGATIVE, .description = "Bytes per sample read and preprocessed (\"500 KB\")"},
    {.name = "cpu_throughput", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s", .optional = true,
     .check = CHECK_POSITIVE,
     .description = "Total CPU preprocessing throughput; give this or cpu_workers, not both"},
    {.name = "cpu_workers", .kind = IN_INTEGER, .optional = true, .check = CHECK_AT_LEAST, .lo = 1,
     .lo_is_int = true, .int_max = 1e9,
     .description = "Number of CPU preprocessing workers (x per_worker_throughput); give this or cpu_throughput"},
    {.name = "per_worker_throughput", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s",
     .has_default = true, .def_num = DEFAULT_PER_WORKER_BPS, .check = CHECK_POSITIVE,
     .description = "Throughput of one CPU worker (default 250 MB/s); also sizes workers_needed"},
    {.name = "storage_bandwidth", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s", .optional = true,
     .check = CHECK_POSITIVE,
     .description = "Storage read bandwidth; default: the supply path DataModel picks for the hardware"},
};

enum {
    O_ACC_STEP, O_ACC_BOTTLENECK, O_TRANSFORM, O_STORAGE_TIME, O_STEP, O_BINDING, O_ACC_UTIL, O_THROUGHPUT,
    O_SLOWDOWN, O_DEMAND, O_SUPPLY, O_PATH, O_STORAGE_UTIL, O_STORAGE_STALLED, O_CPU, O_CPU_NEEDED,
    O_WORKERS_NEEDED, O_PER_WORKER, O_FEASIBLE, O_N
};
static const output_desc OUTPUTS[O_N] = {
    [O_ACC_STEP] = {"accelerator_step_time", OUT_NUMBER, "ms", "single_node latency of one batch", false, false},
    [O_ACC_BOTTLENECK] = {"accelerator_bottleneck", OUT_STRING, "", "single_node bottleneck: Compute or Memory",
                          true, false},
    [O_TRANSFORM] = {"transform_time", OUT_NUMBER, "ms", "CPU preprocessing time of one batch", false, false},
    [O_STORAGE_TIME] = {"storage_time", OUT_NUMBER, "ms", "Time to read one batch (0 when no supply path)", false,
                        false},
    [O_STEP] = {"step_time", OUT_NUMBER, "ms", "max(accelerator, CPU, storage): the slowest stage sets the pace",
                false, false},
    [O_BINDING] = {"binding_stage", OUT_STRING, "",
                   "Transformation, Storage, or the accelerator's own bottleneck (Compute / Memory)", true, false},
    [O_ACC_UTIL] = {"accelerator_utilization", OUT_NUMBER, "", "accelerator_step_time / step_time", false, false},
    [O_THROUGHPUT] = {"throughput", OUT_NUMBER, "1/s", "Samples per second: batch_size / step_time", false, false},
    [O_SLOWDOWN] = {"slowdown_factor", OUT_NUMBER, "", "step_time / accelerator_step_time", false, false},
    [O_DEMAND] = {"data_demand_bw", OUT_NUMBER, "GB/s", "Bytes per batch / accelerator step time", false, false},
    [O_SUPPLY] = {"storage_supply_bw", OUT_NUMBER, "GB/s", "Storage supply bandwidth used", false, false},
    [O_PATH] = {"storage_path", OUT_STRING, "", "Storage, Interconnect, Override or Unknown", true, false},
    [O_STORAGE_UTIL] = {"storage_utilization", OUT_NUMBER, "", "Demand / supply (null when no supply path)",
                        false, true},
    [O_STORAGE_STALLED] = {"storage_stalled", OUT_BOOLEAN, "", "storage_utilization > 1", true, false},
    [O_CPU] = {"cpu_throughput", OUT_NUMBER, "GB/s", "CPU preprocessing throughput used", false, false},
    [O_CPU_NEEDED] = {"cpu_throughput_needed", OUT_NUMBER, "GB/s", "CPU throughput that keeps up with the accelerator",
                      false, false},
    [O_WORKERS_NEEDED] = {"workers_needed", OUT_INTEGER, "",
                          "Smallest n with n x per_worker_throughput >= cpu_throughput_needed", false, false},
    [O_PER_WORKER] = {"per_worker_throughput", OUT_NUMBER, "GB/s", "Throughput of one CPU worker", false, false},
    [O_FEASIBLE] = {"accelerator_feasible", OUT_BOOLEAN, "",
                    "The model fits in accelerator memory (false: the step includes offloading over the host link)",
                    true, false},
};

/* Smallest whole n for which n workers stop the CPU binding, judged by the
 * same test run_pipeline() applies (T_cpu = bytes / (n x per_worker) > T_acc
 * binds). In exact arithmetic that is n x per_worker >= bytes / T_acc; in
 * binary64 the product, the quotient and ceil(demand / per_worker) can each be
 * one off at an exact multiple, and then a sweep over cpu_workers would see the
 * binding stage change one worker away from workers_needed. So start at the
 * ceil and step to the boundary of the binding test itself. */
static double workers_needed(double bytes, double t_acc, double per_worker)
{
    if (!(bytes > 0) || !(t_acc > 0))
        return 0;
    double n = ceil(bytes / t_acc / per_worker);
    /* Past 2^53 (or at infinity) n - 1 == n: the exact-step loops below
     * would never end (found by fuzz_query), and there is nothing to adjust. */
    if (!(n < 9007199254740992.0))
        return n;
    if (n < 1)
        n = 1;
    /* Rounding moves the boundary by at most an ulp or two of the quotient:
     * a few steps suffice; the bound only guards against the unforeseen. */
    for (int i = 0; i < 8 && n > 1 && !(bytes / ((n - 1) * per_worker) > t_acc); i++)
        n -= 1;
    for (int i = 0; i < 8 && bytes / (n * per_worker) > t_acc; i++)
        n += 1;
    return n;
}

/* CPU capacity is given one way: a rate, or workers at a per-worker rate. */
static int check_cpu_capacity(const solver_inputs *in, solver_error *err)
{
    if (in_has(in, I_CPU) && in_has(in, I_WORKERS))
        return solver_fail(err, "cpu_throughput",
                           "give CPU capacity one way: cpu_throughput or cpu_workers (x per_worker_throughput), "
                           "not both");
    if (!in_has(in, I_CPU) && !in_has(in, I_WORKERS))
        return solver_fail(err, "cpu_throughput",
                           "CPU capacity is required: give cpu_throughput (e.g. \"2 GB/s\") or cpu_workers "
                           "(e.g. 8, at per_worker_throughput each)");
    return 0;
}

static const char *const CPU_CAPACITY_INPUTS[] = {"cpu_throughput", "cpu_workers", NULL};
static const input_constraint CONSTRAINTS[] = {
    {.rule = "exactly one of cpu_throughput, cpu_workers", .inputs = CPU_CAPACITY_INPUTS,
     .check = check_cpu_capacity},
};

static int run_pipeline(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    roofline_result acc;
    if (roofline_solve(in, &acc, out, err) != 0)
        return -1;
    const hw_node *hw = in_hw(in, RL_HARDWARE);
    double per_worker = in_num(in, I_PER_WORKER);
    double cpu = in_has(in, I_CPU) ? in_num(in, I_CPU) : in_num(in, I_WORKERS) * per_worker;
    double bytes = in_num(in, RL_BATCH_SIZE) * in_num(in, I_SAMPLE);

    double supply;
    const char *path;
    if (in_has(in, I_STORAGE)) {
        supply = in_num(in, I_STORAGE);
        path = "Override";
    } else {
        data_supply_path(hw, &supply, &path);
    }

    double t_acc = acc.latency;
    double t_cpu = bytes / cpu;
    double t_io = 0.0;
    if (supply > 0)
        t_io = bytes / supply;
    else
        solver_warn(out, "storage_time is 0: hardware '%s' has no storage or interconnect bandwidth and no "
                         "storage_bandwidth was given, so storage is not modelled",
                    hw->name);
    double step = fmax(t_acc, fmax(t_cpu, t_io));

    const char *binding;
    if (t_cpu > t_acc && t_cpu >= t_io)
        binding = "Transformation";
    else if (t_io > t_acc && t_io > t_cpu)
        binding = "Storage";
    else
        binding = acc.memory_bound ? "Memory" : "Compute";

    double demand = bytes / t_acc; /* B/s: the tutorial's demand rate */
    out_num(out, O_ACC_STEP, t_acc * 1e3);
    out_str(out, O_ACC_BOTTLENECK, acc.memory_bound ? "Memory" : "Compute");
    out_num(out, O_TRANSFORM, t_cpu * 1e3);
    out_num(out, O_STORAGE_TIME, t_io * 1e3);
    out_num(out, O_STEP, step * 1e3);
    out_str(out, O_BINDING, binding);
    out_num(out, O_ACC_UTIL, t_acc / step);
    out_num(out, O_THROUGHPUT, in_num(in, RL_BATCH_SIZE) / step);
    out_num(out, O_SLOWDOWN, step / t_acc);
    out_num(out, O_DEMAND, demand / 1e9);
    out_num(out, O_SUPPLY, supply / 1e9);
    out_str(out, O_PATH, path);
    double util = supply > 0 ? (demand / 1e9) / (supply / 1e9) : INFINITY;
    if (isinf(util)) {
        out_null(out, O_STORAGE_UTIL);
        solver_warn(out, "storage_utilization is infinite (no supply path), reported as null");
    } else {
        out_num(out, O_STORAGE_UTIL, util);
    }
    out_bool(out, O_STORAGE_STALLED, util > 1.0);
    out_num(out, O_CPU, cpu / 1e9);
    out_num(out, O_CPU_NEEDED, demand / 1e9);
    out_int(out, O_WORKERS_NEEDED, workers_needed(bytes, t_acc, per_worker));
    out_num(out, O_PER_WORKER, per_worker / 1e9);
    out_bool(out, O_FEASIBLE, acc.feasible);
    if (!acc.feasible)
        solver_warn(out, "the model does not fit in %s memory: accelerator_step_time includes offloading over the "
                         "host link (see trace)",
                    hw->name);
    return 0;
}

static const char *const ALIASES[] = {"PipelineModel", NULL};

const solver_desc SOLVER_PIPELINE = {
    .name = "pipeline",
    .aliases = ALIASES,
    .title = "Storage -> CPU -> accelerator: which stage starves the others?",
    .description = "The accelerator step (single_node), the storage supply (DataModel's path or an override) and "
                   "CPU preprocessing (TransformationModel) as three overlapped stages: the slowest sets the "
                   "step time. Reports the binding stage, the utilization it leaves the accelerator and how many "
                   "CPU workers would remove a CPU stall. See docs/pipeline.md.",
    .inputs = inputs_table,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .run = run_pipeline,
};

/* Runs before main(): fills the input table from the shared roofline rows. */
__attribute__((constructor)) static void pipeline_init_inputs(void)
{
    for (int i = 0; i < RL_N_INPUTS; i++)
        inputs_table[i] = ROOFLINE_INPUTS[i];
    for (int i = RL_N_INPUTS; i < I_N; i++)
        inputs_table[i] = OWN_INPUTS[i - RL_N_INPUTS];
}
