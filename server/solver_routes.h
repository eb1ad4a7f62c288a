/* solver_routes.h - the handlers of POST /solve, GET /solve/{solver} and
 * GET /solvers[/{name}]. app.c routes to them; prebuilt.c renders the
 * /solvers answers with them at start-up. */
#ifndef MLSYSD_SOLVER_ROUTES_H
#define MLSYSD_SOLVER_ROUTES_H

#include "server/app.h"

void handle_solve_post(app *a, const app_request *req, app_response *resp);
/* A /solve body (a JSON object) answered into out: the answer's JSON object
 * (no trailing newline) and 0, or -1 with the problem in err. POST /solve
 * and every /batch item go through it. */
int solve_body(const app *a, const json_t *body, strbuf *out, api_error *err);
void handle_solve_get(app *a, const app_request *req, app_response *resp, const char *name);
/* name NULL: every solver; otherwise that one (404 if unknown). */
void handle_solvers(app_response *resp, const app_request *req, const char *name);

#endif
