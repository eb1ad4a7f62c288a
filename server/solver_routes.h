/* solver_routes.h - the handlers of POST /solve, GET /solve/{solver} and
 * GET /solvers[/{name}]. app.c's route table names them; prebuilt.c renders
 * the /solvers answers with them at start-up; batch.c answers items with
 * solve_body. */
#ifndef MLSYSD_SOLVER_ROUTES_H
#define MLSYSD_SOLVER_ROUTES_H

#include "server/context.h"

void handle_solve_post(app *a, const app_request *req, app_response *resp, const char *param);
/* A /solve body (a JSON object) answered into out: the answer's JSON object
 * (no trailing newline) and 0, or -1 with the problem in err. POST /solve
 * and every /batch item go through it. */
int solve_body(const app *a, const json_t *body, strbuf *out, api_error *err);
/* The same for the body's text, read without a JSON tree (body_scan.h): 0 with the
 * answer appended to out, -1 with err filled, or 1 when the scan declines the
 * text (nothing written): only solve_body, on jansson's tree, answers it then. */
int solve_text(const app *a, const char *body, size_t len, strbuf *out, api_error *err);
void handle_solve_get(app *a, const app_request *req, app_response *resp, const char *name);
/* name NULL: every solver; otherwise that one (404 if unknown). */
void handle_solvers(app *a, const app_request *req, app_response *resp, const char *name);
/* The i-th solver's name, for the /solvers/{name} answers prebuilt at start-up; NULL past the last. */
const char *solvers_param(const app *a, const catalog_edition *ed, size_t i, char *buf, size_t n);

#endif
