/* pipeline.c - storage (and a cache) -> CPU preprocessing -> accelerators
 * of one node, in one answer.
 *
 * No single mlsysim solver answers this; it chains SingleNodeModel (the
 * accelerator step), DataModel (the storage supply path) and
 * TransformationModel (CPU time per batch) the way the tutorial "Starving
 * the GPU" does by hand. Model (docs/pipeline.md): the stages overlap under
 * prefetching, each stage's time is linear in the bytes it moves, so the
 * slowest stage sets the step time. Beyond the tutorial: a
 * fraction of the samples is fetched from a cache instead of storage
 * (DS-Analyzer's fetch model, Mohan et al., PVLDB 14(5) 2021), n
 * accelerators of one node share its storage, cache and CPU, the data stall
 * is split into fetch and prep stall the way DS-Analyzer measures it, and a
 * catalog dataset gives the epoch time and a default sample size.
 *
 * Every "what would it take" output (workers_needed, cache_fraction_needed,
 * accelerators_per_node_max) is found with the same stage-time expressions
 * and the same binding test run_pipeline() applies, so a sweep over the
 * input sees binding_stage change exactly there. */
#include <math.h>
#include <stdio.h>

#include "core/data.h"
#include "core/roofline.h"
#include "core/single_node.h"
#include "core/solver.h"

#define DEFAULT_PER_WORKER_BPS 250e6 /* the tutorial's figure: 250 MB/s per worker */

enum {
    I_SAMPLE = RL_N_INPUTS, I_CPU, I_WORKERS, I_PER_WORKER, I_STORAGE, I_CACHE_FRACTION, I_CACHE_BW, I_ACCELERATORS,
    I_DATASET, I_N
};

/* C cannot copy ROOFLINE_INPUTS into a constant initializer, so the table is
 * filled once, before first use, from the shared rows plus our own. */
static input_desc inputs_table[I_N];
static const input_desc OWN_INPUTS[I_N - RL_N_INPUTS] = {
    {.name = "sample_size_bytes", .kind = IN_QUANTITY, .dim = &DIM_BYTES, .unit = "B", .optional = true,
     .check = CHECK_NONNEGATIVE,
     .description = "Bytes per sample read and preprocessed (\"500 KB\"); required unless dataset implies it"},
    {.name = "cpu_throughput", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s", .optional = true,
     .check = CHECK_POSITIVE,
     .description = "Total CPU preprocessing throughput of the node; give this or cpu_workers, not both"},
    {.name = "cpu_workers", .kind = IN_INTEGER, .optional = true, .check = CHECK_AT_LEAST, .lo = 1,
     .lo_is_int = true, .int_max = 1e9,
     .description = "Number of CPU preprocessing workers of the node (x per_worker_throughput); give this or "
                    "cpu_throughput"},
    {.name = "per_worker_throughput", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s",
     .has_default = true, .def_num = DEFAULT_PER_WORKER_BPS, .check = CHECK_POSITIVE,
     .description = "Throughput of one CPU worker (one core; default 250 MB/s); also sizes workers_needed"},
    {.name = "storage_bandwidth", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s", .optional = true,
     .check = CHECK_POSITIVE,
     .description = "Storage read bandwidth of the node; default: the supply path DataModel picks for the hardware"},
    {.name = "cache_fraction", .kind = IN_NUMBER, .has_default = true, .def_num = 0, .check = CHECK_RANGE, .lo = 0,
     .hi = 1, .lo_is_int = true, .hi_is_int = true,
     .description = "Fraction of the samples served from a cache at cache_bandwidth instead of storage (default 0)"},
    {.name = "cache_bandwidth", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s", .optional = true,
     .check = CHECK_POSITIVE,
     .description = "Read bandwidth of the cache (host memory); default: the hardware's host interconnect, "
                    "required when cache_fraction > 0 and the hardware has none"},
    {.name = "accelerators_per_node", .kind = IN_INTEGER, .has_default = true, .def_num = 1,
     .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e6,
     .description = "Accelerators that share the node's storage, cache and CPU, each with its own batch "
                    "(default 1)"},
    {.name = "dataset", .kind = IN_REF, .refs = REC_BIT(REC_DATASET), .optional = true,
     .description = "Catalog dataset (ImageNet, CIFAR10, ...): gives epoch_time and, for image and audio sets, "
                    "the default sample_size_bytes (the decoded sample)"},
};

enum {
    O_ACC_STEP, O_ACC_BOTTLENECK, O_TRANSFORM, O_STORAGE_TIME, O_STEP, O_BINDING, O_ACC_UTIL, O_THROUGHPUT,
    O_SLOWDOWN, O_DEMAND, O_SUPPLY, O_PATH, O_STORAGE_UTIL, O_STORAGE_STALLED, O_CPU, O_CPU_NEEDED,
    O_WORKERS_NEEDED, O_PER_WORKER, O_FEASIBLE, O_SAMPLE, O_CACHE_BW, O_CACHE_NEEDED, O_NODE_THROUGHPUT,
    O_CORES_PER_ACC, O_ACC_MAX, O_FETCH_STALL, O_PREP_STALL, O_EPOCH, O_N
};
static const output_desc OUTPUTS[O_N] = {
    [O_ACC_STEP] = {.name = "accelerator_step_time", .kind = OUT_NUMBER, .unit = "ms",
                    .description = "single_node latency of one batch"},
    [O_ACC_BOTTLENECK] = {.name = "accelerator_bottleneck", .kind = OUT_STRING, .unit = "",
                          .description = "single_node bottleneck: Compute or Memory", .categorical = true},
    [O_TRANSFORM] = {.name = "transform_time", .kind = OUT_NUMBER, .unit = "ms",
                     .description = "CPU preprocessing time of one step (all the node's batches)"},
    [O_STORAGE_TIME] = {.name = "storage_time", .kind = OUT_NUMBER, .unit = "ms",
                        .description = "Time to fetch one step's batches from cache and storage (0 when no supply "
                                       "path)"},
    [O_STEP] = {.name = "step_time", .kind = OUT_NUMBER, .unit = "ms",
                .description = "max(accelerator, CPU, storage): the slowest stage sets the pace"},
    [O_BINDING] = {.name = "binding_stage", .kind = OUT_STRING, .unit = "",
                   .description = "Transformation, Storage, or the accelerator's own bottleneck (Compute / Memory)",
                   .categorical = true},
    [O_ACC_UTIL] = {.name = "accelerator_utilization", .kind = OUT_NUMBER, .unit = "",
                    .description = "accelerator_step_time / step_time"},
    [O_THROUGHPUT] = {.name = "throughput", .kind = OUT_NUMBER, .unit = "1/s",
                      .description = "Samples per second per accelerator: batch_size / step_time"},
    [O_SLOWDOWN] = {.name = "slowdown_factor", .kind = OUT_NUMBER, .unit = "",
                    .description = "step_time / accelerator_step_time"},
    [O_DEMAND] = {.name = "data_demand_bw", .kind = OUT_NUMBER, .unit = "GB/s",
                  .description = "Bytes the node's accelerators consume per second: accelerators_per_node x batch "
                                 "bytes / accelerator step time"},
    [O_SUPPLY] = {.name = "storage_supply_bw", .kind = OUT_NUMBER, .unit = "GB/s",
                  .description = "Storage supply bandwidth used"},
    [O_PATH] = {.name = "storage_path", .kind = OUT_STRING, .unit = "",
                .description = "Storage, Interconnect, Override or Unknown", .categorical = true},
    [O_STORAGE_UTIL] = {.name = "storage_utilization", .kind = OUT_NUMBER, .unit = "",
                        .description = "Demand / supply of the fetch path: storage_time / accelerator_step_time (null "
                                       "when no supply path)", .nullable = true},
    [O_STORAGE_STALLED] = {.name = "storage_stalled", .kind = OUT_BOOLEAN, .unit = "",
                           .description = "storage_utilization > 1", .categorical = true},
    [O_CPU] = {.name = "cpu_throughput", .kind = OUT_NUMBER, .unit = "GB/s",
               .description = "CPU preprocessing throughput of the node used"},
    [O_CPU_NEEDED] = {.name = "cpu_throughput_needed", .kind = OUT_NUMBER, .unit = "GB/s",
                      .description = "CPU throughput that keeps up with the node's accelerators"},
    [O_WORKERS_NEEDED] = {.name = "workers_needed", .kind = OUT_INTEGER, .unit = "",
                          .description = "Smallest n with n x per_worker_throughput >= cpu_throughput_needed (per "
                                         "node)"},
    [O_PER_WORKER] = {.name = "per_worker_throughput", .kind = OUT_NUMBER, .unit = "GB/s",
                      .description = "Throughput of one CPU worker"},
    [O_FEASIBLE] = {.name = "accelerator_feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "The model fits in accelerator memory (false: the step includes offloading over "
                                   "the host link)", .categorical = true},
    [O_SAMPLE] = {.name = "sample_size_bytes", .kind = OUT_NUMBER, .unit = "B",
                  .description = "Bytes per sample used (given, or the dataset's decoded sample)"},
    [O_CACHE_BW] = {.name = "cache_bandwidth", .kind = OUT_NUMBER, .unit = "GB/s",
                    .description = "Cache read bandwidth used (null when none was given and the hardware has no host "
                                   "link)", .nullable = true},
    [O_CACHE_NEEDED] = {.name = "cache_fraction_needed", .kind = OUT_NUMBER, .unit = "",
                        .description = "Smallest cache_fraction at which storage stops binding (0 when it does not "
                                       "bind uncached; null when even a full cache binds or there is no cache "
                                       "bandwidth)", .nullable = true},
    [O_NODE_THROUGHPUT] = {.name = "node_throughput", .kind = OUT_NUMBER, .unit = "1/s",
                           .description = "Samples per second of the node: accelerators_per_node x throughput"},
    [O_CORES_PER_ACC] = {.name = "cpu_cores_per_accelerator_needed", .kind = OUT_NUMBER, .unit = "",
                         .description = "CPU workers (cores at per_worker_throughput) one accelerator needs: batch "
                                        "bytes / accelerator step time / per_worker_throughput"},
    [O_ACC_MAX] = {.name = "accelerators_per_node_max", .kind = OUT_INTEGER, .unit = "",
                   .description = "Most accelerators the node's storage, cache and CPU feed without stalling (null "
                                  "when a batch has no bytes)", .nullable = true},
    [O_FETCH_STALL] = {.name = "fetch_stall_fraction", .kind = OUT_NUMBER, .unit = "",
                       .description = "Share of the step the accelerator waits for storage: (step - max(accelerator, "
                                      "CPU)) / step"},
    [O_PREP_STALL] = {.name = "prep_stall_fraction", .kind = OUT_NUMBER, .unit = "",
                      .description = "Share of the step the accelerator waits for the CPU: (max(accelerator, CPU) - "
                                     "accelerator) / step"},
    [O_EPOCH] = {.name = "epoch_time", .kind = OUT_NUMBER, .unit = "s",
                 .description = "The dataset's training examples once through at node_throughput (null without a "
                                "dataset)", .nullable = true},
};

/* The node's stages, everything a binding test needs. */
typedef struct {
    double bytes;       /* B per accelerator batch */
    double t_acc;       /* s */
    double cpu;         /* B/s, the node's */
    double supply;      /* B/s, storage; 0 = not modelled */
    double cache_bw;    /* B/s; NAN = none */
} stages;

/* Time to fetch `bytes`, a fraction x from the cache and the rest from
 * storage (DS-Analyzer's fetch model): bytes x (x / cache_bw + (1 - x) /
 * supply). Without a storage supply the fetch stage is not modelled (0).
 * x = 0 is exactly the uncached bytes / supply, so answers without a cache
 * are DataModel's to the last bit. */
static double fetch_time(const stages *s, double bytes, double x)
{
    if (!(s->supply > 0))
        return 0.0;
    if (x == 0)
        return bytes / s->supply;
    if (x == 1)
        return bytes / s->cache_bw;
    return bytes * x / s->cache_bw + bytes * (1 - x) / s->supply;
}

/* Does a node of n accelerators stall (some stage strictly slower than the
 * accelerator)? The binding test of run_pipeline(), with n in place of
 * accelerators_per_node. */
static bool node_stalls(const stages *s, double n, double x)
{
    double node_bytes = n * s->bytes;
    return node_bytes / s->cpu > s->t_acc || fetch_time(s, node_bytes, x) > s->t_acc;
}

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

/* Largest whole n whose node does not stall: min over CPU and fetch of
 * floor(T_acc / time of one accelerator's batch), then stepped to the
 * boundary of node_stalls() as workers_needed() does. +inf when a batch has
 * no bytes (or the fetch and CPU times of one batch are 0). */
static double accelerators_max(const stages *s, double x)
{
    double per_cpu = s->bytes / s->cpu, per_io = fetch_time(s, s->bytes, x);
    double worst = fmax(per_cpu, per_io);
    if (!(worst > 0))
        return INFINITY;
    double n = floor(s->t_acc / worst);
    if (!(n < 9007199254740992.0))
        return n;
    for (int i = 0; i < 8 && n > 0 && node_stalls(s, n, x); i++)
        n -= 1;
    for (int i = 0; i < 8 && !node_stalls(s, n + 1, x); i++)
        n += 1;
    return n;
}

/* Smallest cache fraction x at which storage stops binding for n
 * accelerators: T_io(x) <= max(T_acc, T_cpu) (the CPU wins ties, the
 * accelerator wins ties). T_io is linear in x, so the root of T_io(x) = T is
 * x = (N/S - T) / (N/S - N/C); that estimate brackets the boundary and a
 * bisection on the binding test itself finds the smallest double that does
 * not bind. Returns 0 when storage does not bind uncached, NAN when it binds
 * even fully cached (or there is no cache bandwidth): *why says which. */
static double cache_fraction_needed(const stages *s, double n, const char **why)
{
    double node_bytes = n * s->bytes;
    double other = fmax(s->t_acc, node_bytes / s->cpu);
    *why = NULL;
    if (!(fetch_time(s, node_bytes, 0) > other))
        return 0;
    if (isnan(s->cache_bw)) {
        *why = "no cache_bandwidth was given and the hardware has no host interconnect";
        return NAN;
    }
    if (fetch_time(s, node_bytes, 1) > other) {
        *why = "even with every sample from the cache, fetching is slower than the accelerator and the CPU";
        return NAN;
    }
    double lo = 0, hi = 1; /* lo binds, hi does not */
    double slow = node_bytes / s->supply, fast = node_bytes / s->cache_bw;
    double guess = (slow - other) / (slow - fast);
    if (guess > 0 && guess < 1) {
        if (fetch_time(s, node_bytes, guess) > other)
            lo = guess;
        else
            hi = guess;
    }
    for (;;) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        if (fetch_time(s, node_bytes, mid) > other)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
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

/* Bytes of one decoded sample as the catalog describes the dataset: an
 * image of width x height x channels bytes (8 bits per channel), or audio of
 * duration x rate x sample width. 0 when the entry gives neither. *how
 * describes it for the warning. */
static double dataset_sample_bytes(const dataset_t *d, char *how, size_t len)
{
    if (d->image_width > 0 && d->image_height > 0 && d->image_channels > 0) {
        snprintf(how, len, "a decoded %dx%dx%d image at one byte per channel", d->image_width, d->image_height,
                 d->image_channels);
        return (double)d->image_width * d->image_height * d->image_channels;
    }
    if (d->sample_duration > 0 && d->sample_rate > 0 && d->sample_width > 0) {
        snprintf(how, len, "%g s of decoded audio at %g Hz, %g B per sample", d->sample_duration, d->sample_rate,
                 d->sample_width);
        return d->sample_duration * d->sample_rate * d->sample_width;
    }
    return 0;
}

static int run_pipeline(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const dataset_t *ds = (const dataset_t *)in_ref(in, I_DATASET);
    double sample;
    if (in_has(in, I_SAMPLE)) {
        sample = in_num(in, I_SAMPLE);
    } else {
        char how[160];
        sample = ds ? dataset_sample_bytes(ds, how, sizeof how) : 0;
        if (!ds)
            return solver_fail(err, "sample_size_bytes",
                               "sample_size_bytes is required (e.g. \"500 KB\"), unless a dataset whose catalog "
                               "entry gives image or audio sizes implies it");
        if (!(sample > 0))
            return solver_fail(err, "sample_size_bytes",
                               "sample_size_bytes is required: dataset '%s' gives no image or audio size to derive "
                               "it from",
                               ds->name);
        solver_warn(out, "sample_size_bytes not given: %.17g B, %s (%s); give the stored (e.g. JPEG) size if the "
                         "pipeline reads compressed files",
                    sample, how, ds->name);
    }

    roofline_result acc;
    if (single_node_solve(in, &acc, out, err) != 0)
        return -1;
    const hw_node *hw = in_hw(in, RL_HARDWARE);
    double per_worker = in_num(in, I_PER_WORKER);
    double batch = in_num(in, RL_BATCH_SIZE);
    double n = in_num(in, I_ACCELERATORS);
    double x = in_num(in, I_CACHE_FRACTION);

    stages s = {.bytes = batch * sample, .t_acc = acc.latency, .cache_bw = NAN};
    s.cpu = in_has(in, I_CPU) ? in_num(in, I_CPU) : in_num(in, I_WORKERS) * per_worker;
    const char *path;
    if (in_has(in, I_STORAGE)) {
        s.supply = in_num(in, I_STORAGE);
        path = "Override";
    } else {
        data_supply_path(hw, &s.supply, &path);
    }
    if (in_has(in, I_CACHE_BW))
        s.cache_bw = in_num(in, I_CACHE_BW);
    else if (hw->has_interconnect && hw->interconnect_bw > 0)
        s.cache_bw = hw->interconnect_bw;
    if (x > 0 && isnan(s.cache_bw))
        return solver_fail(err, "cache_bandwidth",
                           "cache_bandwidth is required when cache_fraction > 0: hardware '%s' has no host "
                           "interconnect to default to (give e.g. \"100 GB/s\")",
                           hw->name);

    double node_bytes = n * s.bytes;
    double t_acc = s.t_acc;
    double t_cpu = node_bytes / s.cpu;
    double t_io = fetch_time(&s, node_bytes, x);
    if (!(s.supply > 0))
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

    double demand = node_bytes / t_acc; /* B/s: the tutorial's demand rate, for the whole node */
    out_num(out, O_ACC_STEP, t_acc * 1e3);
    out_str(out, O_ACC_BOTTLENECK, acc.memory_bound ? "Memory" : "Compute");
    out_num(out, O_TRANSFORM, t_cpu * 1e3);
    out_num(out, O_STORAGE_TIME, t_io * 1e3);
    out_num(out, O_STEP, step * 1e3);
    out_str(out, O_BINDING, binding);
    out_num(out, O_ACC_UTIL, t_acc / step);
    out_num(out, O_THROUGHPUT, batch / step);
    out_num(out, O_NODE_THROUGHPUT, n * batch / step);
    out_num(out, O_SLOWDOWN, step / t_acc);
    out_num(out, O_DEMAND, demand / 1e9);
    out_num(out, O_SUPPLY, s.supply / 1e9);
    out_str(out, O_PATH, path);
    /* Uncached, DataModel's demand / supply; with a cache, demand over the
     * fetch path's effective rate, which is the same T_io / T_acc. */
    double util = !(s.supply > 0) ? INFINITY : x == 0 ? (demand / 1e9) / (s.supply / 1e9) : t_io / t_acc;
    if (isinf(util)) {
        out_null(out, O_STORAGE_UTIL);
        solver_warn(out, "storage_utilization is infinite (no supply path), reported as null");
    } else {
        out_num(out, O_STORAGE_UTIL, util);
    }
    out_bool(out, O_STORAGE_STALLED, util > 1.0);
    out_num(out, O_CPU, s.cpu / 1e9);
    out_num(out, O_CPU_NEEDED, demand / 1e9);
    out_int(out, O_WORKERS_NEEDED, workers_needed(node_bytes, t_acc, per_worker));
    out_num(out, O_PER_WORKER, per_worker / 1e9);
    out_bool(out, O_FEASIBLE, acc.feasible);
    if (!acc.feasible)
        solver_warn(out, "the model does not fit in %s memory: accelerator_step_time includes offloading over the "
                         "host link (see trace)",
                    hw->name);

    out_num(out, O_SAMPLE, sample);
    if (isnan(s.cache_bw))
        out_null(out, O_CACHE_BW);
    else
        out_num(out, O_CACHE_BW, s.cache_bw / 1e9);
    const char *why;
    double needed = cache_fraction_needed(&s, n, &why);
    if (isnan(needed)) {
        out_null(out, O_CACHE_NEEDED);
        solver_warn(out, "cache_fraction_needed is null: %s", why);
    } else {
        out_num(out, O_CACHE_NEEDED, needed);
    }
    out_num(out, O_CORES_PER_ACC, t_acc > 0 ? s.bytes / t_acc / per_worker : 0);
    double n_max = accelerators_max(&s, x);
    if (isinf(n_max))
        out_null(out, O_ACC_MAX); /* nothing to feed: no bound, and nothing to warn about */
    else
        out_int(out, O_ACC_MAX, n_max);
    /* DS-Analyzer's split: prep stall is what remains with fetching free
     * (all cached), fetch stall the rest of the data stall. */
    double fed = fmax(t_acc, t_cpu);
    out_num(out, O_PREP_STALL, (fed - t_acc) / step);
    out_num(out, O_FETCH_STALL, (step - fed) / step);
    if (!ds) {
        out_null(out, O_EPOCH);
    } else if (isnan(ds->training_examples) || !(batch > 0)) {
        out_null(out, O_EPOCH);
        solver_warn(out, "epoch_time is null: %s", batch > 0 ? "the dataset gives no training example count"
                                                               : "batch_size 0 never finishes an epoch");
    } else {
        out_num(out, O_EPOCH, ds->training_examples / (n * batch / step));
    }
    return 0;
}

static const char *const ALIASES[] = {"PipelineModel", NULL};

/* Outputs monotone in an input (solver.h), checked by tests/api/test_optimize.c. */
static const monotone_desc MONOTONE[] = {
    {"batch_size", "step_time", +1},
    {"batch_size", "transform_time", +1},
    {"batch_size", "accelerator_step_time", +1},
    {NULL, NULL, 0},
};

const solver_desc SOLVER_PIPELINE = {
    .name = "pipeline",
    .aliases = ALIASES,
    .title = "Storage -> CPU -> accelerator: which stage starves the others?",
    .description = "The accelerator step (single_node), the storage supply (DataModel's path or an override, "
                   "optionally part-served by a cache) and CPU preprocessing (TransformationModel) as overlapped "
                   "stages of one node of accelerators_per_node accelerators: the slowest sets the step time. "
                   "Reports the binding stage, the utilization it leaves the accelerator, the fetch and prep "
                   "stall, how many CPU workers, how much cache and how many accelerators per node remove or "
                   "reach a stall, and a dataset's epoch time. See docs/pipeline.md.",
    .assumptions = "Storage, cache, CPU and accelerator as overlapped steady-rate stages; the slowest sets the step "
                   "(DS-Analyzer's fetch model for the cache). Leaves out start-up and epoch-boundary effects, "
                   "queueing jitter between stages, page-cache behaviour beyond cache_fraction, and single_node's "
                   "own omissions.",
    .inputs = inputs_table,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .monotone = MONOTONE,
    .run = run_pipeline,
    .example_json = "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":512,"
                    "\"sample_size_bytes\":\"500 KB\",\"cpu_workers\":8,\"is_training\":false}",
};

/* Runs before main(): fills the input table from the shared roofline rows. */
__attribute__((constructor)) static void pipeline_init_inputs(void)
{
    for (int i = 0; i < RL_N_INPUTS; i++)
        inputs_table[i] = ROOFLINE_INPUTS[i];
    for (int i = RL_N_INPUTS; i < I_N; i++)
        inputs_table[i] = OWN_INPUTS[i - RL_N_INPUTS];
}
