/* solver.h - self-describing solvers.
 *
 * Each solver is one file in core/ that exports a solver_desc: its name and
 * aliases, a table of inputs, a table of outputs and a run() function that
 * computes on doubles in SI units. Everything generic (JSON <-> inputs,
 * validation, defaults, /solvers, /sweep, OpenAPI checks) is written once in
 * the server against these tables; it knows no solver by name.
 *
 * Core code never sees JSON: hardware and model inputs arrive resolved. */
#ifndef MLSYSD_SOLVER_H
#define MLSYSD_SOLVER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model.h"
#include "core/units.h"

#define SOLVER_MAX_INPUTS 32
#define SOLVER_MAX_OUTPUTS 40
#define SOLVER_MAX_MESSAGES 8
#define SOLVER_MESSAGE_LEN 320

typedef enum {
    IN_NUMBER,    /* a plain real number (efficiency)                      */
    IN_INTEGER,   /* a whole number (batch_size)                           */
    IN_BOOLEAN,
    IN_ENUM,      /* one of enum_values, case-insensitive (precision)      */
    IN_QUANTITY,  /* a number in `unit`, or a string with its own unit     */
    IN_HARDWARE,  /* a catalog id or an inline object                      */
    IN_MODEL
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

typedef struct {
    const char *name;
    input_kind kind;
    const char *description;
    /* IN_QUANTITY: dimension and the unit a bare JSON number means. The same
     * unit is used to echo the value back. */
    const dimension *dim;
    const char *unit;
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

/* One input value, after the generic layer parsed it. */
typedef struct {
    bool present;       /* given by the client or filled from the default */
    bool defaulted;
    bool num_was_int;   /* the client wrote an integer literal (for messages) */
    double num;         /* IN_NUMBER, IN_QUANTITY (SI), IN_INTEGER, IN_BOOLEAN (0/1) */
    int enum_index;     /* IN_ENUM: index into enum_values */
    const hw_node *hw;  /* IN_HARDWARE (points into catalog or into `hw_store`) */
    const model_t *model;
    hw_node hw_store;   /* inline hardware lives here */
    model_t model_store;
} input_value;

typedef struct {
    input_value v[SOLVER_MAX_INPUTS];
} solver_inputs;

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
} solver_outputs;

typedef struct {
    int status;             /* 400 (bad input), 422 never used; 0 = no error */
    char field[64];         /* input name, "" if none */
    char detail[SOLVER_MESSAGE_LEN];
} solver_error;

typedef struct solver_desc {
    const char *name;               /* snake_case: "single_node" */
    const char *const *aliases;     /* NULL-terminated: "SingleNodeModel", ... */
    const char *title;              /* one line */
    const char *description;        /* a paragraph: what it answers, its source */
    const input_desc *inputs;
    size_t n_inputs;
    const output_desc *outputs;
    size_t n_outputs;
    /* Compute. Inputs are present (defaults filled) and passed the generic
     * checks. Returns 0, or -1 with err filled (status 400). */
    int (*run)(const solver_inputs *in, solver_outputs *out, solver_error *err);
} solver_desc;

/* Registry */
size_t solver_count(void);
const solver_desc *solver_at(size_t i);
/* By name or alias, case-insensitive; NULL if unknown. */
const solver_desc *solver_find(const char *name);
/* Index of an input / output by name; -1 if absent. */
int solver_input_index(const solver_desc *s, const char *name);
int solver_output_index(const solver_desc *s, const char *name);

/* Generic bound check of one input (its `check`); 0 or -1 with err filled
 * with mlsysim's message. */
int solver_check_input(const solver_desc *s, size_t i, const input_value *v, solver_error *err);

/* Helpers for run() implementations. */
void solver_warn(solver_outputs *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void solver_trace(solver_outputs *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int solver_fail(solver_error *err, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void out_num(solver_outputs *o, int idx, double v);
void out_int(solver_outputs *o, int idx, double v);
void out_bool(solver_outputs *o, int idx, bool v);
void out_str(solver_outputs *o, int idx, const char *s);
void out_null(solver_outputs *o, int idx);

#endif
