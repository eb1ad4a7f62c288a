/* app.h - the service without sockets: one request in, one response out.
 * http.c adapts libmicrohttpd to this; tests and fuzzers call it directly. */
#ifndef MLSYSD_APP_H
#define MLSYSD_APP_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "catalog/catalog.h"
#include "server/config.h"
#include "server/inputs.h"
#include "server/metrics.h"
#include "server/strbuf.h"

#define APP_MAX_QUERY 64

typedef struct {
    const char *key;
    const char *value;
} kv;

typedef struct {
    const char *method;
    const char *path;
    kv query[APP_MAX_QUERY];
    size_t n_query;
    bool query_overflow;        /* more than APP_MAX_QUERY arguments */
    const char *body;
    size_t body_len;
    const char *content_type;   /* NULL if absent */
    const char *accept;         /* NULL if absent */
    const char *request_id;
} app_request;

typedef struct sweep_stream sweep_stream;

typedef struct {
    int status;
    const char *content_type;
    strbuf body;
    char allow[64];             /* 405: the Allow header */
    char disposition[160];      /* Content-Disposition, for CSV */
    int retry_after;            /* seconds, 503 */
    sweep_stream *stream;       /* non-NULL: the body comes from sweep_stream_read */
    route_id route;
} app_response;

typedef struct app {
    const catalog *cat;
    const config *cfg;
    json_t *openapi;            /* parsed openapi.yaml, served as /openapi.json */
    const char *openapi_yaml;
    size_t openapi_yaml_len;
    atomic_bool ready;
    atomic_bool draining;
    struct app_prebuilt *pre;   /* text rendered once by app_init (app.c): the "resolved"
                                   fragment of every catalog entry, static bodies */
} app;

/* Build the app: parses the embedded openapi.yaml. -1 with msg on failure. */
int app_init(app *a, const catalog *cat, const config *cfg, char *msg, size_t msglen);
void app_free(app *a);

void app_handle(app *a, const app_request *req, app_response *resp);
void app_response_free(app_response *resp);

/* Fill resp with an RFC 9457 problem. */
void app_problem(app_response *resp, const app_request *req, const api_error *e);

/* Streaming sweeps (sweep.c). */
int sweep_start(app *a, const app_request *req, const char *solver_name, app_response *resp);
/* Next bytes of the body into buf; returns 0 at the end, or
 * SWEEP_STREAM_FAILED when the body cannot be completed (out of memory): the
 * transfer must then end as an error, not as a complete body. */
#define SWEEP_STREAM_FAILED ((size_t)-1)
size_t sweep_stream_read(sweep_stream *s, char *buf, size_t max);
void sweep_stream_free(sweep_stream *s);

/* Helpers shared by app.c and sweep.c. */
const catalog_edition *app_edition(app *a, const char *name, api_error *err);
json_t *app_parse_body(const app_request *req, api_error *err);
bool app_json_content_type(const char *ct);

#endif
