/* ops_routes.h - the handlers of the operational endpoints (health,
 * readiness, metrics, version, the contract) and of the dashboard's routes
 * ("/" and /ui/{file}). app.c's route table names them; they share every
 * handler's signature (route.h). */
#ifndef MLSYSD_OPS_ROUTES_H
#define MLSYSD_OPS_ROUTES_H

#include "server/context.h"

void handle_healthz(app *a, const app_request *req, app_response *resp, const char *param);
void handle_readyz(app *a, const app_request *req, app_response *resp, const char *param);
void handle_metrics(app *a, const app_request *req, app_response *resp, const char *param);
void handle_openapi_yaml(app *a, const app_request *req, app_response *resp, const char *param);
void handle_openapi_json(app *a, const app_request *req, app_response *resp, const char *param);
void handle_version(app *a, const app_request *req, app_response *resp, const char *param);
void handle_root(app *a, const app_request *req, app_response *resp, const char *param);
void handle_ui(app *a, const app_request *req, app_response *resp, const char *param);

#endif
