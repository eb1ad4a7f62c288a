/* calibration.h - the fitted parameters of measured mode and the error each
 * family of answers is known to carry.
 *
 * Measured mode (CALIBRATION_MEASURED, core/measured.h) answers with a few
 * parameters that have a physical meaning: the fraction of peak a dense
 * matrix multiply sustains, the fraction of peak memory bandwidth a
 * streaming pass achieves, the fixed cost of a layer's kernels, the latency
 * of an all-reduce, ... Each parameter is keyed at most by accelerator and
 * by precision class; none by model or batch size.
 *
 * The values are data: tools/calibrate fits them to the published
 * measurements in validation/measurements/ and writes core/calibration_fit.c
 * (never edited by hand). That file also records, per family of
 * measurements, the error of mlsysim's defaults and the leave-one-source-out
 * error of measured mode, which every answer states (assumptions.error_band).
 *
 * Callers: core/measured.c reads values; the server serves the table
 * (GET /calibration, /validation); tools/calibrate swaps in trial tables. */
#ifndef MLSYSD_CALIBRATION_H
#define MLSYSD_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model.h"

/* Families of published measurements: what kind of answer a measurement checks. */
typedef enum {
    CF_CNN_INFERENCE,
    CF_CNN_TRAINING,
    CF_ENCODER,
    CF_LLM_DECODE,
    CF_LLM_PREFILL,
    CF_LLM_TRAINING,
    CF_N
} calib_family;

/* "cnn_inference", ... and their titles ("CNN inference"); calib_family_find: -1 if unknown. */
extern const char *const CALIB_FAMILY_NAMES[CF_N];
extern const char *const CALIB_FAMILY_TITLES[CF_N];
int calib_family_find(const char *name);

/* The parameters. Order is the table's; names are the API's. */
typedef enum {
    CP_GEMM_EFF,         /* dense GEMM: fraction of peak (transformer matmuls, inference)       */
    CP_CONV_EFF,         /* convolution: fraction of peak (CNN layers)                          */
    CP_ATTN_EFF,         /* attention: fraction of peak for the s^2 score and value matmuls     */
    CP_TRAIN_EFF,        /* sharded training step: fraction of peak for the model FLOPs          */
    CP_EXPERT_HALF_TOKENS, /* tokens per expert per micro-batch at which an expert GEMM runs at half the dense efficiency */
    CP_MEM_EFF,          /* memory-bound passes: fraction of peak memory bandwidth               */
    CP_ACT_PASSES_INF,   /* CNN activation bytes moved per byte written, inference (framework)   */
    CP_ACT_PASSES_TRAIN, /* the same for a CNN training step (forward + backward, unfused)       */
    CP_TF_ACT_PASSES,    /* transformer activation bytes moved per byte kept, forward (framework) */
    CP_LAYER_S,          /* launch and framework time per kernel of a forward pass, s            */
    CP_LAYER_S_Q,        /* the same for 8-bit inference (compiled engines), s                   */
    CP_DECODE_LAYER_S,   /* the same per layer per decode step (graph-captured), s               */
    CP_DECODE_SEQ_S,     /* per sequence per decode step (sampling, scheduling, paging), s       */
    CP_PREFILL_LAYER_S,  /* per layer of a prefill pass on top of the decode step's, s           */
    CP_AR_LATENCY_S,     /* fixed latency of one all-reduce inside a node, s                     */
    CP_LINK_EFF,         /* collectives: fraction of link bandwidth achieved                    */
    CP_DP_EXPOSED,       /* share of the data-parallel gradient all-reduce not hidden            */
    CP_PP_INTERLEAVE,    /* pipeline stages per device as schedules run them (interleaved 1F1B) when a request gives none */
    CP_OVERLAP,          /* share of the smaller of compute and memory time hidden by the other  */
    CP_PREFILL_OVERLAP,  /* the same for a prefill's compute and its weight reads                */
    CP_PREC_FP32,        /* fp32/tf32 efficiency relative to 16-bit                              */
    CP_PREC_8BIT,        /* fp8/int8 efficiency relative to 16-bit                               */
    CP_PREC_4BIT,        /* int4 efficiency relative to 16-bit                                   */
    CP_FP32_VECTOR,      /* fp32 rate as a share of the default (16-bit tensor) peak, where the catalog states no fp32 rate */
    CP_N
} calib_param;

typedef struct {
    const char *name;     /* "gemm_efficiency" */
    const char *work;     /* kind of work: "dense_gemm", "convolution", "attention", "memory", "communication", "overhead", "precision" */
    const char *unit;     /* "" for ratios, "s" */
    const char *meaning;  /* one sentence */
    double lo, hi;        /* bounds the fit keeps to */
    double start;         /* the fit's starting value */
    bool per_hardware;    /* may have entries keyed by accelerator */
    const char *precision; /* the precision class it is keyed by, or NULL */
} calib_param_desc;

extern const calib_param_desc CALIB_PARAMS[CP_N];

/* One fitted value: for every accelerator (hardware NULL) or one (its catalog key). */
typedef struct {
    calib_param param;
    const char *hardware;
    double value;
    int support;          /* measurements whose answer reads this value */
} calib_entry;

/* Error of a set of answers: error = max(p/m, m/p) - 1. */
typedef struct {
    double median, p90;
    int n;
    int within_25pct;
} calib_stat;

typedef struct {
    calib_stat mlsysim;   /* mlsysim's defaults */
    calib_stat measured;  /* measured mode, fitted on every measurement */
    calib_stat loso;      /* measured mode, each source predicted by a fit without it */
    int sources;
} calib_family_stats;

/* A measurement's leave-one-source-out prediction (in its output's unit). */
typedef struct {
    const char *id;
    double predicted;
} calib_loso_row;

typedef struct {
    const calib_entry *entries;
    size_t n_entries;
    calib_family_stats families[CF_N];
    calib_family_stats overall;
    int measurements;
    const calib_loso_row *loso;
    size_t n_loso;
} calib_table;

/* The table in force: the generated one (core/calibration_fit.c) unless
 * tools/calibrate installed a trial table with calibration_use(). */
const calib_table *calibration_table(void);
extern const calib_table CALIBRATION_FITTED;
/* tools/calibrate only: NULL restores the fitted table; call it again after
 * changing a value of the table in use (the rows below are built from it).
 * Not thread-safe: no solve may run meanwhile. */
void calibration_use(const calib_table *t);

/* Every parameter's value for an accelerator, indexed by calib_param: its
 * entry keyed by hw->key, else the entry for every accelerator (hw NULL: only
 * those), else the descriptor's start value. The row stays valid until the
 * next calibration_use(); a solve looks it up once per accelerator and
 * indexes it. */
const double *calib_row(const hw_node *hw);

/* One value of calib_row(hw). */
double calib_value(calib_param p, const hw_node *hw);

/* The parameter of a precision's factor (PRECISION_KEYS index), or CP_N for
 * 16-bit formats (factor 1). */
calib_param calib_precision_param(int precision);

/* The precision-class factor for a precision index (PRECISION_KEYS): 1 for 16-bit. */
double calib_precision_factor(int precision);

#endif
