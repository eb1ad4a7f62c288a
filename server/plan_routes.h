/* plan_routes.h - the plan endpoints: POST /evaluate (a plan, JSON or YAML,
 * evaluated: plan.h) and GET /schemas/plan.json (the plan's JSON Schema).
 * app.c's route table names them; `mlsysd eval` (plan_cli.c) posts to the
 * first through app_handle. */
#ifndef MLSYSD_PLAN_ROUTES_H
#define MLSYSD_PLAN_ROUTES_H

#include "server/context.h"

/* 200 with the evaluation (status pass, fail or infeasible); 400 for an
 * invalid plan naming the field; 404 for an unknown solver or catalog id;
 * 415 for a body neither JSON nor YAML. */
void handle_evaluate(app *a, const app_request *req, app_response *resp, const char *param);
/* 200 with the plan's JSON Schema (application/schema+json). */
void handle_plan_schema(app *a, const app_request *req, app_response *resp, const char *param);

#endif
