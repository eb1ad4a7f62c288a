/* app.h - the service without sockets: one request in, one response out.
 * http.c adapts libmicrohttpd to this; tests and fuzzers call it directly.
 * app.c owns the app and routes each request to its handler file
 * (solver_routes.c, catalog_routes.c, sweep.c); handlers may read the app's
 * members but only app.c sets them. */
#ifndef MLSYSD_APP_H
#define MLSYSD_APP_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "catalog/catalog.h"
#include "server/config.h"
#include "server/inputs.h"
#include "server/request.h"

typedef struct app {
    const catalog *cat;
    const config *cfg;
    json_t *openapi;            /* the contract (contract.h), served as /openapi.json */
    char *openapi_yaml;         /* the same, served as /openapi.yaml */
    size_t openapi_yaml_len;
    atomic_bool ready;
    atomic_bool draining;
    struct app_prebuilt *pre;   /* answers rendered once by app_init (prebuilt.h); NULL: none */
    struct solve_parts *solve_parts; /* fixed parts of every solver's /solve answer (solve.h); NULL: none */
} app;

/* Build the app: the contract from the embedded openapi.yaml and the solver
 * descriptors, and the prebuilt answers. -1 with msg on failure. */
int app_init(app *a, const catalog *cat, const config *cfg, char *msg, size_t msglen);
void app_free(app *a);

void app_handle(app *a, const app_request *req, app_response *resp);
/* Frees the body and the stream, if any. */
void app_response_free(app_response *resp);

#endif
