/* solver.h - self-describing solvers.
 *
 * Each solver is one file in core/ that exports a solver_desc: its name and
 * aliases, a table of inputs, a table of outputs and a run() function that
 * computes on doubles in SI units. Everything generic (JSON <-> inputs,
 * validation, defaults, /solvers, /sweep, OpenAPI checks) is written once in
 * the server against these tables; it knows no solver by name.
 *
 * Core code never sees JSON: catalog references (hardware, models, fleets,
 * grids, ...) arrive resolved to records (core/model.h, core/fleet.h).
 * run() reads its inputs through the in_*() accessors below, never through
 * input_value's members, so the representation can change under it.
 *
 * Outputs are flat slots. A record output (best_config {tp, pp, dp}) is a
 * group of slots whose names share a dotted prefix ("best_config.tp"); the
 * server writes them as a nested object in JSON and as dotted columns in
 * CSV, and /solvers and the contract describe the nesting.
 *
 * A solver may also have one table output: rows of the same columns whose
 * number depends on the inputs (placement's regions ranked, synthesis's
 * qualifying accelerators). /solve writes it as an array of objects after
 * the flat outputs; sweeps report only the flat outputs (a flat summary of
 * the table, such as best_region, is what a sweep varies). */
#ifndef MLSYSD_SOLVER_H
#define MLSYSD_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "core/fleet.h"
#include "core/model.h"
#include "core/units.h"

#define SOLVER_MAX_INPUTS 32
#define SOLVER_MAX_OUTPUTS 40
#define SOLVER_MAX_MESSAGES 8
#define SOLVER_MESSAGE_LEN 320
#define SOLVER_MAX_ROWS 64
#define SOLVER_MAX_COLUMNS 12

typedef enum {
    IN_NUMBER,    /* a plain real number (efficiency)                      */
    IN_INTEGER,   /* a whole number (batch_size)                           */
    IN_BOOLEAN,
    IN_ENUM,      /* one of enum_values, case-insensitive (precision)      */
    IN_QUANTITY,  /* a number in `unit`, or a string with its own unit     */
    IN_REF,       /* a catalog record of one of the kinds in `refs`: an id,
                     or an inline object ({"base": id, field: value...} or
                     a whole custom entry). A fleet is a REC_CLUSTER ref.  */
    IN_LIST,      /* a JSON array of catalog ids of the kinds in `refs`    */
    IN_ROWS       /* a JSON array of objects of the number fields in
                     `row_fields` (a request trace), at most max_rows      */
} input_kind;

/* How a bound is checked, and which mlsysim message it gives
 * (core/_validation.py). */
typedef enum {
    CHECK_NONE,
    CHECK_RANGE,        /* "{name} must be in [{lo}, {hi}], got {v}"  lo <= v <= hi */
    CHECK_AT_LEAST,     /* "{name} must be >= {lo}, got {v}"          v >= lo       */
    CHECK_POSITIVE,     /* "{name} must be positive, got {v}"         v > 0         */
    CHECK_NONNEGATIVE   /* "{name} must be non-negative, got {v}"     v >= 0        */
} check_kind;

typedef struct input_desc {
    const char *name;
    input_kind kind;
    const char *description;
    /* IN_QUANTITY: dimension and the unit a bare JSON number means. The same
     * unit is used to echo the value back. */
    const dimension *dim;
    const char *unit;
    /* IN_QUANTITY: a quantity of dimension alt_dim is accepted too and
     * converted into `dim` by multiplying its SI value by alt_factor
     * (scaling: a compute budget in GPU time, at a reference sustained rate,
     * becomes flop). NULL: only `dim`. */
    const dimension *alt_dim;
    double alt_factor;
    /* Default: absent means required (unless optional is true). For numbers,
     * integers, booleans and quantities def_num (SI for quantities, 0/1 for
     * booleans); for enums, ids: def_str. */
    bool has_default;
    double def_num;
    const char *def_str;
    bool optional;          /* may be absent without a default (solver decides) */
    /* Bounds, in SI for quantities. Checked by the generic layer with the
     * message of `check`, value printed as Python would print it. */
    check_kind check;
    double lo, hi;
    bool lo_is_int, hi_is_int;   /* print bounds as ints ("1") or floats ("1.0") */
    /* IN_INTEGER: largest accepted value (0 = 2^53). */
    double int_max;
    /* IN_ENUM: NULL-terminated list of canonical values. */
    const char *const *enum_values;
    /* IN_ENUM: mlsysim's message refusing a value, "{}" standing for the
     * value lower-cased. NULL: resolve_precision's form ("precision 'x' is
     * not supported. Supported precision values: ..."). */
    const char *enum_refusal;
    /* IN_REF, IN_LIST: REC_BIT() mask of the record kinds accepted; an id
     * is looked up in each kind, in record_kind order. */
    unsigned refs;
    /* May be JSON null by design (mlsysim's None): present, in_is_null(). */
    bool nullable;
    /* IN_LIST: an id of no accepted kind is kept as a NULL item (the solver
     * skips it, as upstream does) instead of being a 404. */
    bool list_skip_unknown;
    /* IN_LIST: absent means every record of the `refs` kinds in the
     * request's catalog edition, in catalog order. */
    bool list_all_by_default;
    /* The name of another input that, given (not null), replaces this one:
     * this one's default is then not filled, so run() sees it absent and the
     * answer does not echo it (a request_trace replaces the inputs of a
     * random draw). Refusing this input when given beside the other is the
     * solver's constraint. NULL: none. */
    const char *replaced_by;
    /* IN_ROWS: the fields of every row, all required, each an IN_NUMBER or
     * IN_INTEGER row with its bound check; max_rows: the most rows accepted
     * (a 413 beyond, naming the input). */
    const struct input_desc *row_fields;
    size_t n_row_fields;
    int max_rows;
} input_desc;



typedef enum { OUT_NUMBER, OUT_INTEGER, OUT_BOOLEAN, OUT_STRING } output_kind;

typedef struct {
    const char *name;
    output_kind kind;
    const char *unit;          /* unit of the reported value ("ms", "GB/s", "1/s", "B", "flop/B", "" for ratios) */
    const char *description;
    bool categorical;          /* changes of value are "transitions" in sweeps */
    bool nullable;             /* may be null by design (e.g. offload fields)  */
} output_desc;

/* A record output's members share a dotted prefix: "best_config.tp".
 * output_record_len() is the prefix's length (0 for a plain output);
 * output_member_name() is the name within the record ("tp"). */
size_t output_record_len(const output_desc *d);
const char *output_member_name(const output_desc *d);

/* The table output's shape: `columns` are plain outputs (no dotted names). */
typedef struct {
    const char *name;          /* "top_candidates" */
    const char *description;   /* what a row is and how rows are ordered */
    const output_desc *columns;
    size_t n_columns;          /* <= SOLVER_MAX_COLUMNS */
} table_desc;

/* An input_desc row of a parallel degree or step count: an integer >= 1, default 1. */
#define IN_DEGREE(nm, desc)                                                                                   \
    {.name = nm, .kind = IN_INTEGER, .has_default = true, .def_num = 1, .check = CHECK_AT_LEAST, .lo = 1,        \
     .lo_is_int = true, .int_max = 1e9, .description = desc}

/* One input value, after the generic layer parsed it. */
typedef struct {
    const void *ref;    /* the record (catalog-owned, or owned by the request) */
    const char *name;   /* the id as the client wrote it */
} input_item;

typedef struct {
    bool present;       /* given by the client or filled from the default */
    bool defaulted;
    bool is_null;       /* nullable input given as null (or null by default) */
    bool num_was_int;   /* the client wrote an integer literal (for messages) */
    double unit_scale;  /* IN_QUANTITY written with a unit of its own dimension: the
                           SI value of one of that unit ("1 EFLOP": 1e18); 0 otherwise */
    unsigned char ref_kind; /* IN_REF: the record_kind `ref` points to */
    int enum_index;     /* IN_ENUM: index into enum_values */
    bool enum_respelled; /* IN_ENUM: the client wrote the value in another case ("FP8") */
    double num;         /* IN_NUMBER, IN_QUANTITY (SI), IN_INTEGER, IN_BOOLEAN (0/1) */
    const void *ref;    /* IN_REF: the record (catalog-owned or request-owned) */
    const input_item *items; /* IN_LIST */
    const double *rows;      /* IN_ROWS: n_items rows of n_row_fields numbers, row after row */
    int n_items;             /* IN_LIST: items; IN_ROWS: rows */
} input_value;

/* How a request is answered. CALIBRATION_MLSYSIM: mlsysim's first-order
 * model, exactly (the golden parity). CALIBRATION_MEASURED: inputs the client
 * left to their defaults come from the table fitted to published measurements
 * (core/calibration.h), and the solvers that have measured physics add it. */
typedef enum { CALIBRATION_MLSYSIM = 0, CALIBRATION_MEASURED = 1 } calibration_mode;
/* NULL-terminated names, indexed by calibration_mode: "mlsysim", "measured". */
extern const char *const CALIBRATION_MODES[];
#define CALIBRATION_MODE_COUNT 2

/* Inputs are compact: records are referred to, never embedded. Records of
 * inline objects and list items are owned by `owned`, which the server
 * allocates and frees (server/inputs.h); core code never touches it. */
typedef struct {
    input_value v[SOLVER_MAX_INPUTS];
    struct input_store *owned;
    calibration_mode calibration; /* set by the request's front end; 0 = mlsysim */
} solver_inputs;

/* Accessors for run(). */
static inline double in_num(const solver_inputs *in, int i) { return in->v[i].num; }
static inline int in_int(const solver_inputs *in, int i) { return (int)in->v[i].num; }
static inline bool in_bool(const solver_inputs *in, int i) { return in->v[i].num != 0; }
static inline int in_enum(const solver_inputs *in, int i) { return in->v[i].enum_index; }
/* The enum value was written in another case than listed ("FP8" for fp8).
 * Enums match in any case; the few solvers whose upstream compares or looks
 * up the string as written (no lower-casing) use this to do the same. */
static inline bool in_enum_respelled(const solver_inputs *in, int i) { return in->v[i].enum_respelled; }
/* Given (or defaulted) and not null. */
static inline bool in_has(const solver_inputs *in, int i) { return in->v[i].present && !in->v[i].is_null; }
static inline bool in_is_null(const solver_inputs *in, int i) { return in->v[i].is_null; }
/* A quantity as Pint's .magnitude reads it: the number in the unit the client
 * wrote ("1 EFLOP" -> 1), else the value in SI. For mlsysim code that reads
 * .magnitude without converting first (solvers.md [unit-dependent]). */
static inline double in_magnitude(const solver_inputs *in, int i)
{
    return in->v[i].unit_scale > 0 ? in->v[i].num / in->v[i].unit_scale : in->v[i].num;
}
/* The client wrote an integer literal: mlsysim messages print it as an int ("2", not "2.0"). */
static inline bool in_was_int(const solver_inputs *in, int i) { return in->v[i].num_was_int; }
static inline record_kind in_ref_kind(const solver_inputs *in, int i) { return (record_kind)in->v[i].ref_kind; }
static inline const void *in_ref(const solver_inputs *in, int i) { return in_has(in, i) ? in->v[i].ref : NULL; }
static inline const hw_node *in_hw(const solver_inputs *in, int i) { return (const hw_node *)in_ref(in, i); }
static inline const model_t *in_model(const solver_inputs *in, int i) { return (const model_t *)in_ref(in, i); }
static inline const fleet_t *in_fleet(const solver_inputs *in, int i) { return (const fleet_t *)in_ref(in, i); }
static inline const fabric_t *in_fabric(const solver_inputs *in, int i) { return (const fabric_t *)in_ref(in, i); }
static inline int in_list_len(const solver_inputs *in, int i) { return in_has(in, i) ? in->v[i].n_items : 0; }
/* Item j of a list: its record (NULL for a skipped unknown id) and name. */
static inline const void *in_list_ref(const solver_inputs *in, int i, int j) { return in->v[i].items[j].ref; }
static inline const char *in_list_name(const solver_inputs *in, int i, int j) { return in->v[i].items[j].name; }
/* Rows of an IN_ROWS input: how many (0 when absent), and row j's numbers in
 * the order of the descriptor's row_fields. */
static inline int in_rows_len(const solver_inputs *in, int i) { return in_has(in, i) ? in->v[i].n_items : 0; }
static inline const double *in_row(const solver_inputs *in, int i, int j, size_t n_fields)
{
    return in->v[i].rows + (size_t)j * n_fields;
}

typedef struct {
    bool is_null;       /* reported as null (by design, or non-finite) */
    double num;         /* OUT_NUMBER (in the output's unit), OUT_INTEGER, OUT_BOOLEAN (0/1) */
    const char *str;    /* OUT_STRING: static string */
} output_value;

typedef struct {
    output_value v[SOLVER_MAX_OUTPUTS];
    int n_warnings;
    char warnings[SOLVER_MAX_MESSAGES][SOLVER_MESSAGE_LEN];
    int n_trace;
    char trace[SOLVER_MAX_MESSAGES][SOLVER_MESSAGE_LEN];
    int n_rows;         /* rows of the table output, in order */
    output_value rows[SOLVER_MAX_ROWS][SOLVER_MAX_COLUMNS];
    /* Set by a caller that discards warnings and trace (a sweep's rows carry
     * neither): solver_warn() and solver_trace() drop them, and run() may
     * skip composing their text. No output may depend on it. */
    bool quiet;
} solver_outputs;

typedef struct solver_error {
    int status;             /* 400 (bad input), 422 never used; 0 = no error */
    char field[64];         /* input name, "" if none */
    char detail[SOLVER_MESSAGE_LEN];
} solver_error;

/* A rule between inputs (cached_prefix_len < seq_len; tp x pp x ep divides
 * the fleet), stated in the descriptor so /solvers shows it and every sweep
 * point is checked before run(). check() runs after the bound checks, on
 * present inputs; it returns 0, or -1 with mlsysim's message in err. */
typedef struct {
    const char *rule;               /* human form: "cached_prefix_len < seq_len" */
    const char *const *inputs;      /* NULL-terminated names of the inputs it reads */
    int (*check)(const solver_inputs *in, solver_error *err);
} input_constraint;

/* A family of published measurements (core/calibration.h calib_family) and
 * the outputs of an answer it checks (NULL-terminated names). */
#define SOLVER_MAX_BANDS 4
typedef struct {
    int family;
    const char *const *outputs;
} solver_band;

/* An output monotone in an input, all else fixed: dir +1 nondecreasing, -1
 * nonincreasing as the input grows (a boolean output reads as 0/1). `input`
 * is an input's name or a record input's member ("fleet.count"). /optimize
 * bisects only where this is on record; tests/api/test_optimize.c checks every
 * entry against the exhaustive search. */
typedef struct {
    const char *input;
    const char *output;
    int dir;
} monotone_desc;

typedef struct solver_desc {
    const char *name;               /* snake_case: "single_node" */
    const char *const *aliases;     /* NULL-terminated: "SingleNodeModel", ... */
    const char *title;              /* one line */
    const char *description;        /* a paragraph: what it answers, its source */
    /* What the model leaves out, in a sentence or two: every answer and the
     * solver's description carry it as assumptions.leaves_out, next to
     * the error band of measured_families below. */
    const char *assumptions;
    /* The same for measured mode, where its physics differs from mlsysim's:
     * what it adds and what it still leaves out. NULL: assumptions holds in
     * both modes. solver_leaves_out() picks one. */
    const char *measured_assumptions;
    const input_desc *inputs;
    size_t n_inputs;
    const output_desc *outputs;
    size_t n_outputs;
    const input_constraint *constraints;
    size_t n_constraints;
    const table_desc *table;        /* NULL: no table output */
    const monotone_desc *monotone;  /* terminated by {NULL}; NULL: none on record */
    /* Compute. Inputs are present (defaults filled) and passed the generic
     * checks. Returns 0, or -1 with err filled (status 400). */
    int (*run)(const solver_inputs *in, solver_outputs *out, solver_error *err);
    /* The families of measurements that check this solver's answers: fills
     * bands (at most SOLVER_MAX_BANDS) and returns how many; in == NULL asks
     * for every family it can be checked by. NULL: none, no error band. */
    int (*measured_families)(const solver_inputs *in, solver_band *bands);
    /* A worked example: the "inputs" object of a request, as JSON text (catalog
     * ids by key, quantities as strings with their unit). It answers 200 in
     * every catalog edition; the API tests and the benchmarks take each
     * solver's example from here. */
    const char *example_json;
    /* The level of an mlsysim mlsys.yaml plan this solver answers
     * (server/plan_mlsysim.c finds it by this role, never by name):
     *  - "node": one accelerator running the workload; its feasibility
     *    (does it fit) and performance levels when hardware.nodes is 1, and
     *    the accelerator a fleet is built of otherwise;
     *  - "fleet": a fleet of such nodes running the workload together (the
     *    plan runs it with tp = pp = 1); the performance level when
     *    hardware.nodes > 1;
     *  - "macro": the fleet's cost and carbon over a run; the macro level,
     *    when the plan has ops.
     * At most one solver holds each role. NULL: none. */
    const char *plan_role;
} solver_desc;

/* Registry */
size_t solver_count(void);
const solver_desc *solver_at(size_t i);
/* The registry index of the solver called name (or an alias), any case; -1
 * if unknown (solver_at(-1) is NULL). */
long solver_find(const char *name);
/* Index of an input / output by name; -1 if absent. */
/* What s's model leaves out in a calibration mode (measured_assumptions or assumptions). */
const char *solver_leaves_out(const solver_desc *s, calibration_mode mode);
int solver_input_index(const solver_desc *s, const char *name);
int solver_output_index(const solver_desc *s, const char *name);

/* Generic bound check of one input (its `check`); 0 or -1 with err filled
 * with mlsysim's message. */
int solver_check_input(const solver_desc *s, size_t i, const input_value *v, solver_error *err);
/* The same check of a value against one input_desc (a row field of an IN_ROWS input). */
int input_check_bound(const input_desc *d, const input_value *v, solver_error *err);
/* The descriptor's constraints, in order; 0 or -1 with the first failure. */
int solver_check_constraints(const solver_desc *s, const solver_inputs *in, solver_error *err);

/* Fresh outputs before run(): every value unset, no messages, no rows. Only
 * what is read is cleared (messages and rows are read below their counts). */
void solver_outputs_reset(solver_outputs *o);

/* Helpers for run() implementations. */
void solver_warn(solver_outputs *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void solver_trace(solver_outputs *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A trace line composed in place, without vsnprintf (for run()s whose trace
 * is a measurable share of a solve): solver_line_open() gives the next line,
 * or false when the trace is quiet or full (then compose nothing: not even
 * the numbers); solver_line_put() appends, cutting the text at
 * SOLVER_MESSAGE_LEN as solver_trace cuts it; solver_line_close() keeps it. */
typedef struct {
    char *dst;
    size_t len;
} solver_line;
static inline bool solver_line_open(solver_outputs *out, solver_line *l)
{
    if (out->quiet || out->n_trace >= SOLVER_MAX_MESSAGES)
        return false;
    l->dst = out->trace[out->n_trace];
    l->len = 0;
    return true;
}
static inline void solver_line_put(solver_line *l, const char *s, size_t n)
{
    if (n > SOLVER_MESSAGE_LEN - 1 - l->len)
        n = SOLVER_MESSAGE_LEN - 1 - l->len;
    memcpy(l->dst + l->len, s, n);
    l->len += n;
}
static inline void solver_line_str(solver_line *l, const char *s) { solver_line_put(l, s, strlen(s)); }
static inline void solver_line_close(solver_outputs *out, solver_line *l)
{
    l->dst[l->len] = '\0';
    out->n_trace++;
}
/* solver_trace of the parts joined, through a solver_line. */
void solver_trace_parts(solver_outputs *out, const char *const *parts, size_t n);
int solver_fail(solver_error *err, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An input of 0 that mlsysim divides by: its ZeroDivisionError, named on the input. */
int solver_fail_divides_by_zero(solver_error *err, const char *field);
void out_num(solver_outputs *o, int idx, double v);
void out_int(solver_outputs *o, int idx, double v);
void out_bool(solver_outputs *o, int idx, bool v);
void out_str(solver_outputs *o, int idx, const char *s);
void out_null(solver_outputs *o, int idx);
/* Table rows: out_row() appends a row whose cells are null and returns its
 * index, or -1 when SOLVER_MAX_ROWS are written (the caller warns). */
int out_row(solver_outputs *o);
void out_cell_num(solver_outputs *o, int row, int col, double v);
void out_cell_str(solver_outputs *o, int row, int col, const char *s);

#endif
