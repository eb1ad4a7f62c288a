/* plan_internal.h - what plan.c (mlsysd's plans) and plan_mlsysim.c
 * (mlsysim's mlsys.yaml) share: one solve run through the front end
 * (front.h) with its /solve answer, field paths prefixed with where in the
 * plan they are, and the checks of a plan object's keys. Nothing else
 * includes it. */
#ifndef MLSYSD_PLAN_INTERNAL_H
#define MLSYSD_PLAN_INTERNAL_H

#include <jansson.h>

#include "server/front.h"
#include "server/plan.h"

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

/* "<prefix>.<field>" (or prefix alone for an empty field) into err->field; returns -1. */
int plan_prefix_field(api_error *err, const char *prefix);

/* A 400 "unknown-field" for the first key of obj not in keys (NULL-terminated),
 * named "<prefix>.<key>"; 0 when every key is known. */
int plan_known_keys(const json_t *obj, const char *const *keys, const char *prefix, api_error *err);

/* An mlsysim-format plan (it has workload and hardware and no scenarios). */
bool plan_is_mlsysim(const json_t *plan);
/* Its one scenario entry (status, levels, assertions, answers) and status;
 * NULL with err naming the field ("constraints.assert[2].metric"). */
json_t *plan_mlsysim_evaluate(app *a, const json_t *plan, plan_status *st, api_error *err);

#endif
