/* batch.h - POST /batch: many independent /solve requests in one body, any
 * solvers and editions. app.c's route table names handle_batch. */
#ifndef MLSYSD_BATCH_H
#define MLSYSD_BATCH_H

#include "server/context.h"

/* Body {"items": [<a /solve body>, ...]} with 1..--batch-max-items items (more is
 * a 413 that states the cap). A 200 {"items": [...]} in the same order, each
 * {"index", "status": 200, "response": <the /solve answer>} or {"index",
 * "status", "problem": <the /solve problem, its field under items[i].>}; one bad
 * item does not fail the others. A body that is not such an object is a 400. */
void handle_batch(app *a, const app_request *req, app_response *resp, const char *param);

#endif
