/* plan_internal.h - what the plan files share, and nothing else includes:
 *  - plan.c (a plan read and checked whole, its scenarios run in order, the
 *    answer summed up) and plan_mlsysim.c (mlsysim's mlsys.yaml): field
 *    paths prefixed with where in the plan they are, the checks of a plan
 *    object's keys;
 *  - plan_scenario.c (one mlsysd scenario run: a solve, a sweep or an
 *    optimize), also used by plan_mlsysim.c for its solves: one solve run
 *    through the front end (front.h) with its /solve answer;
 *  - plan_assert.c (a scenario's assertions: read against the solver's
 *    outputs, checked, tallied over a sweep and written into the answer). */
#ifndef MLSYSD_PLAN_INTERNAL_H
#define MLSYSD_PLAN_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>

#include "server/constraint.h"
#include "server/front.h"
#include "server/plan.h"
#include "server/sweep.h"

/* --- plan_fields.c (and PLAN_STATUS_NAMES, plan.h) ------------------------------------------- */

/* "<prefix>.<field>" (or prefix alone for an empty field) into err->field; returns -1. */
int plan_prefix_field(api_error *err, const char *prefix);

/* A 400 "unknown-field" for the first key of obj not in keys (NULL-terminated),
 * named "<prefix>.<key>"; 0 when every key is known. */
int plan_known_keys(const json_t *obj, const char *const *keys, const char *prefix, api_error *err);

/* --- plan_scenario.c --------------------------------------------------------------------------- */

typedef struct {
    solver_request r;
    solver_inputs *in;   /* parsed and checked inputs (heap) */
    solver_outputs *out; /* the solver's outputs (heap) */
    json_t *answer;      /* the /solve answer, as POST /solve gives it */
} plan_solved;

/* Solve body ({solver, inputs, catalog, calibration}, as POST /solve takes
 * it) into ps: the same parsing, checks, solver and answer as /solve. On
 * failure err's field is prefixed with `prefix` ("scenarios[0]"). Call
 * plan_solved_free afterwards, on failure too. */
int plan_solve(app *a, const json_t *body, const char *prefix, plan_solved *ps, api_error *err);
void plan_solved_free(plan_solved *ps);

/* An mlsysd plan being evaluated: the request context, the plan's defaults
 * (NULL: none) and the assertions counted so far over its scenarios. */
typedef struct {
    app *a;
    const json_t *defaults;
    int n_assertions, n_failed;
} plan_ctx;

/* Scenario idx of the plan (sc, an object with a name, checked by the
 * caller): its entry {name, kind, solver, assertions, answer, status,
 * infeasible_reason?} and status, p's counts updated; NULL with err naming
 * the field ("scenarios[1].assert[0].output"). */
json_t *plan_run_scenario(plan_ctx *p, const json_t *sc, size_t idx, plan_status *st, api_error *err);

/* --- plan_assert.c ----------------------------------------------------------------------------- */

#define PLAN_MAX_ASSERTS 32

/* One assertion of a scenario: an /optimize constraint on an output, and for
 * a sweep the tally of the points it was checked at. */
typedef struct {
    constraint c;
    const json_t *src;   /* the assertion as written */
    const json_t *at;    /* a sweep's point, or NULL: every point */
    /* a sweep's tally */
    bool have;           /* a value was recorded */
    bool failed;
    unsigned long long checked, failures;
    output_value worst;  /* the value reported: the first failure's, else the one nearest the bound */
    json_t *point;       /* the sweep point of `worst` (owned) */
    char point_error[200]; /* the first failure was a point that failed to solve */
} plan_assertion;

/* The scenario's assert list (NULL: none) read against solver s into as
 * (PLAN_MAX_ASSERTS of them) and *n; `at` is accepted only in a sweep.
 * 0, or -1 with a 400 naming "<prefix>.assert[i]...". The caller releases
 * each as[i].point. */
int plan_parse_assertions(const solver_desc *s, const json_t *list, const char *prefix, bool sweep,
                          plan_assertion *as, int *n, api_error *err);

/* {expression, output, op, bound, unit, actual, passed} of an assertion on
 * solver s; actual NULL: null (no value). */
json_t *plan_assertion_json(const solver_desc *s, const plan_assertion *as, const output_value *actual, bool passed);

/* A sweep's point pt, checked against as: its value v (the output the
 * assertion reads) tallied, the worst kept with its point. */
void plan_assertion_record(const solver_desc *s, plan_assertion *as, const output_value *v, sweep_stream *sp,
                           unsigned long long pt);
/* A sweep's point pt that failed to solve (error, its message): a failure of as. */
void plan_assertion_record_error(plan_assertion *as, const char *error, sweep_stream *sp, unsigned long long pt);

/* Point pt of a sweep as a JSON object of its axis values (NULL out of memory). */
json_t *plan_point_json(sweep_stream *sp, unsigned long long pt);
/* Whether a sweep point (its axis values) is the one `at` names: numbers
 * equal, strings equal in any case. */
bool plan_point_matches(const json_t *at, const json_t *point);

/* The boolean output that says whether an answer is feasible ("feasible",
 * "is_feasible", "node_feasible", ...), or -1. */
int plan_feasible_col(const solver_desc *s);
/* The outputs say the answer is infeasible (that output is false). */
bool plan_infeasible_outputs(const solver_desc *s, const solver_outputs *out);

/* --- plan_mlsysim.c ------------------------------------------------------------------------------ */

/* An mlsysim-format plan (it has workload and hardware and no scenarios). */
bool plan_is_mlsysim(const json_t *plan);
/* Its one scenario entry (status, levels, assertions, answers) and status;
 * NULL with err naming the field ("constraints.assert[2].metric"). */
json_t *plan_mlsysim_evaluate(app *a, const json_t *plan, plan_status *st, api_error *err);

#endif
