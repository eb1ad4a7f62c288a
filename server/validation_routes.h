/* validation_routes.h - GET /calibration (measured mode's fitted parameters)
 * and GET /validation (every published measurement against both modes).
 * Both answers are fixed for a build and its catalog: the route table
 * prebuilds them. Callers: the route table (server/app.c). */
#ifndef MLSYSD_VALIDATION_ROUTES_H
#define MLSYSD_VALIDATION_ROUTES_H

#include "server/context.h"
#include "server/request.h"

void handle_calibration(app *a, const app_request *req, app_response *resp, const char *param);
void handle_validation(app *a, const app_request *req, app_response *resp, const char *param);

#endif
