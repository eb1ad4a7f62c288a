/* plan.h - capacity plans as code: a plan read, checked whole and evaluated.
 *
 * A plan is a JSON object (YAML text is read into one by plan_read) in one of
 * two forms:
 *  - mlsysd's: {version: "1", name, description?, defaults?: {solver,
 *    catalog, calibration, inputs}, scenarios: [{name, kind?, solver,
 *    inputs, axes?, objective?, constraints?, top_k?, method?, catalog?,
 *    calibration?, assert: [...]}]}. A scenario is a solve, a sweep (it has
 *    axes) or an optimize (it has an objective); its assertions are
 *    /optimize constraints on its outputs ({output: itl, "<=": "50 ms"});
 *    a sweep's hold at every point, or at the one named by `at`; an
 *    optimize's at its best point.
 *  - mlsysim's mlsys.yaml ({version, name, workload, hardware, ops?,
 *    constraints: {assert: [{metric, min, max}]}}), scored as mlsysim scores
 *    it (plan_mlsysim.c).
 *
 * Evaluating answers with the status of the plan: "infeasible" when any
 * scenario is (its solver's feasible output is false; no point of a sweep
 * is feasible; an optimize has no best point; mlsysim's feasibility level
 * fails), else "fail" when any assertion fails, else "pass". The exit code
 * of `mlsysd eval` is the status's: 0 pass, 3 fail, 2 infeasible (1: the
 * plan is invalid, a 4xx).
 *
 * Callers: plan_routes.c (POST /evaluate), plan_cli.c (mlsysd eval, through
 * the same handler). */
#ifndef MLSYSD_PLAN_H
#define MLSYSD_PLAN_H

#include <jansson.h>
#include <stdbool.h>

#include "server/context.h"

typedef enum { PLAN_PASS = 0, PLAN_FAIL = 1, PLAN_INFEASIBLE = 2 } plan_status;
/* "pass", "fail", "infeasible" by plan_status. */
extern const char *const PLAN_STATUS_NAMES[];
/* The exit code of `mlsysd eval` for a status: 0, 3, 2. */
int plan_exit_code(plan_status st);

/* The text of a plan, YAML (yaml true) or JSON, as a JSON object (a new
 * reference); NULL with a 400 in err ("invalid-plan" text: the line and reason). */
json_t *plan_read(const char *text, size_t len, bool yaml, api_error *err);

/* Evaluate plan (an object) into a new answer object {plan, format, status,
 * exit_code, summary, scenarios}; NULL with err when the plan is invalid (a
 * 400 naming the field: "scenarios[1].assert[0].output",
 * "constraints.assert[2].metric"; 404 for an unknown solver or catalog id). */
json_t *plan_evaluate(app *a, const json_t *plan, api_error *err);

/* The JSON Schema of a plan (a new reference): the contract's
 * components/schemas/Plan, with $schema and $id added. NULL if absent. */
json_t *plan_schema(const app *a);

#endif
