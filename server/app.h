/* app.h - the service without sockets: one request in, one response out.
 * http.c adapts libmicrohttpd to this; the batch commands (cli.c), tests and
 * fuzzers call it directly. app.c owns the app (context.h) and the route
 * table, and routes each request to its row's handler. Only those callers
 * include this header: handlers include context.h. */
#ifndef MLSYSD_APP_H
#define MLSYSD_APP_H

#include "server/context.h"
#include "server/route.h"

/* Build the app: the prebuilt answers (the contract, from the embedded
 * openapi.yaml and the solver descriptors, and the costlier static answers
 * are built on first use). -1 with msg on failure. */
int app_init(app *a, const catalog *cat, const config *cfg, char *msg, size_t msglen);
void app_free(app *a);

void app_handle(app *a, const app_request *req, app_response *resp);

/* The route table, row by row (the contract's paths are its patterns). */
size_t route_count(void);
const route *route_at(size_t i);

#endif
