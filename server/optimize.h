/* optimize.h - POST /optimize: the inverse question. Over the points of a
 * /sweep search space, the best by an objective among those that meet
 * constraints on the outputs. app.c's route table names it; nothing else calls it. */
#ifndef MLSYSD_OPTIMIZE_H
#define MLSYSD_OPTIMIZE_H

#include "server/context.h"

/* Fills resp with the answer (200) or a problem. */
void optimize_handle(app *a, const app_request *req, app_response *resp, const char *param);

#endif
