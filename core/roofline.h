/* roofline.h - the single-node roofline (mlsysim SingleNodeModel /
 * Engine.solve, engine/engine.py commit 1d9b72db), shared by single_node
 * and pipeline. */
#ifndef MLSYSD_ROOFLINE_H
#define MLSYSD_ROOFLINE_H

#include <stdbool.h>

#include "core/solver.h"

/* The inputs single_node takes, as rows of an input_desc table; pipeline
 * starts its table with the same rows so the indices below hold in both. */
enum {
    RL_MODEL, RL_HARDWARE, RL_BATCH_SIZE, RL_PRECISION, RL_EFFICIENCY, RL_IS_TRAINING,
    RL_SEQ_LEN, RL_ZERO_STAGE, RL_DP_SIZE, RL_IS_LORA, RL_ACTIVATION_RECOMPUTATION,
    RL_N_INPUTS
};
extern const input_desc ROOFLINE_INPUTS[RL_N_INPUTS];

typedef struct {
    double latency;         /* s */
    double t_compute;       /* s */
    double t_memory;        /* s */
    double overhead;        /* s: dispatch tax + layer tax */
    double throughput;      /* samples/s */
    bool memory_bound;      /* "Memory" vs "Compute" */
    double intensity;       /* flop/B; may be +inf */
    double energy;          /* J */
    double footprint;       /* B */
    double peak;            /* flop/s: the precision's rate (or the default peak it fell back to) */
    double flops_eff;       /* flop/s */
    double bw_eff;          /* B/s */
    double mfu, hfu;
    bool feasible;
    double spill;           /* B, offload only */
    double offload_bw;      /* B/s, offload only */
} roofline_result;

/* One roofline question: the values of the RL_* inputs, records resolved. */
typedef struct {
    const model_t *model;
    const hw_node *hw;
    double batch_size;
    int precision;          /* index into PRECISION_KEYS */
    double efficiency;
    bool is_training;
    double seq_len;
    int zero_stage;
    double dp_size;
    bool is_lora;
    bool activation_recomputation;
    calibration_mode calibration; /* measured: core/measured.c prices the step */
    bool efficiency_given;        /* the client set efficiency (measured mode keeps it) */
} roofline_query;

/* mlsysim's roofline of one question (the calibration fields are read by
 * core/single_node.c, which adds measured mode's physics). Warnings and the
 * constraint trace go to msgs. */
int roofline_run(const roofline_query *q, roofline_result *r, solver_outputs *msgs, solver_error *err);

#endif
