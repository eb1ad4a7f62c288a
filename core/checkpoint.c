/* checkpoint.c - mlsysim CheckpointModel (engine/solvers/training.py): the
 * I/O burst of writing a training checkpoint and the share of training time
 * it costs. Formulas: reference/solvers.md §16. */
#include <math.h>

#include "core/solver.h"

/* engine/calibration.py: checkpointed bytes per parameter. Adam keeps fp16
 * weights + fp32 master weights + two fp32 moments (14 B); every other
 * optimizer name, "adamw" included, is sized as SGD (4 B), as mlsysim does. */
#define CHECKPOINT_BYTES_ADAM 14.0
#define CHECKPOINT_BYTES_OTHER 4.0
#define FALLBACK_STORAGE_BW 1e9      /* B/s, when the hardware has no storage bandwidth */
#define STORAGE_BOTTLENECK_S 60.0    /* a write longer than a minute is a bottleneck */

static const char *const OPTIMIZERS[] = {"adam", "adamw", "sgd", "none", NULL};
enum { OPT_ADAM = 0 };

enum { I_MODEL, I_HARDWARE, I_OPTIMIZER, I_INTERVAL, I_WRITERS, I_FS_LIMIT, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload with a parameter count"},
    [I_HARDWARE] = {.name = "hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE),
                    .description = "Accelerator whose storage bandwidth each writer gets (1 GB/s if none)"},
    [I_OPTIMIZER] = {.name = "optimizer", .kind = IN_ENUM, .has_default = true, .def_str = "adam",
                     .enum_values = OPTIMIZERS,
                     .description = "adam: 14 B per parameter; any other: 4 B per parameter"},
    [I_INTERVAL] = {.name = "checkpoint_interval_hours", .kind = IN_QUANTITY, .dim = &DIM_TIME, .unit = "h",
                    .has_default = true, .def_num = 4 * 3600.0,
                    .description = "Time between checkpoints; 0 or less makes the penalty 1"},
    [I_WRITERS] = {.name = "n_writers", .kind = IN_INTEGER, .has_default = true, .def_num = 1, .int_max = 1e9,
                   .description = "Parallel writers, each at the storage bandwidth"},
    [I_FS_LIMIT] = {.name = "filesystem_limit_gbs", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s",
                    .has_default = true, .def_num = 500e9,
                    .description = "Aggregate bandwidth ceiling of the parallel filesystem"},
};

enum { O_SIZE, O_WRITE_TIME, O_BW, O_BOTTLENECK, O_PENALTY, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_SIZE] = {.name = "checkpoint_size", .kind = OUT_NUMBER, .unit = "B",
                .description = "Parameters x bytes per parameter"},
    [O_WRITE_TIME] = {.name = "write_time", .kind = OUT_NUMBER, .unit = "s",
                      .description = "Size / min(writers x storage bandwidth, filesystem limit)"},
    [O_BW] = {.name = "max_bandwidth_required", .kind = OUT_NUMBER, .unit = "GB/s",
              .description = "Storage bandwidth of one writer"},
    [O_BOTTLENECK] = {.name = "storage_bottleneck", .kind = OUT_BOOLEAN, .unit = "",
                      .description = "The write takes more than 60 s", .categorical = true},
    [O_PENALTY] = {.name = "mfu_penalty_pct", .kind = OUT_NUMBER, .unit = "",
                   .description = "Write time / checkpoint interval, a fraction (1 when the interval is 0)"},
};

static int run_checkpoint(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const hw_node *hw = in_hw(in, I_HARDWARE);
    if (isnan(m->parameters))
        return solver_fail(err, "model", "model '%s' has no parameter count", m->name);
    double bpp = in_enum(in, I_OPTIMIZER) == OPT_ADAM ? CHECKPOINT_BYTES_ADAM : CHECKPOINT_BYTES_OTHER;
    double size = m->parameters * bpp;
    double storage_bw = hw->has_storage && hw->storage_bandwidth > 0 ? hw->storage_bandwidth : FALLBACK_STORAGE_BW;
    double bw = fmin(storage_bw * in_num(in, I_WRITERS), in_num(in, I_FS_LIMIT));
    /* mlsysim bounds neither: no bandwidth is a division by zero, a negative
     * one a negative time. */
    if (bw == 0)
        return solver_fail(err, bw == in_num(in, I_FS_LIMIT) ? "filesystem_limit_gbs" : "n_writers",
                           "the write bandwidth min(n_writers x storage bandwidth, filesystem_limit_gbs) is 0 "
                           "(mlsysim: ZeroDivisionError: float division by zero)");
    double t = size / bw;
    double interval = in_num(in, I_INTERVAL);
    out_num(out, O_SIZE, size);
    out_num(out, O_WRITE_TIME, t);
    out_num(out, O_BW, storage_bw / 1e9);
    out_bool(out, O_BOTTLENECK, t > STORAGE_BOTTLENECK_S);
    out_num(out, O_PENALTY, interval > 0 ? t / interval : 1.0);
    return 0;
}

static const char *const ALIASES[] = {"CheckpointModel", NULL};

const solver_desc SOLVER_CHECKPOINT = {
    .name = "checkpoint",
    .aliases = ALIASES,
    .title = "Checkpoint cost: size, write time and the share of training it takes",
    .description = "mlsysim CheckpointModel. A checkpoint of parameters x bytes per parameter (14 for Adam) "
                   "written by n writers at the storage bandwidth, capped by the filesystem; its write time "
                   "against the checkpoint interval.",
    .assumptions = "Checkpoint size from bytes per parameter, written at min(storage bandwidth x writers, "
                   "file-system limit). Leaves out asynchronous or sharded checkpointing overlap, compression and "
                   "metadata cost.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_checkpoint,
    .example_json = "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"checkpoint_interval_hours\":\"30 min\","
                    "\"n_writers\":64}",
};
