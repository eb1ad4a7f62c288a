/* app.c - the app's life (init, free) and the route table: one row per
 * route (pattern, methods, handler, metrics label, flags), in the manner of
 * Redis's command table. The router matches a request to its row and calls
 * its handler; metrics (labels), conditional requests and gzip (http.c) and
 * prebuilt answers (prebuilt.c) read the same rows. Pure request -> response:
 * no sockets here. */
#include "server/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/batch.h"
#include "server/catalog_routes.h"
#include "server/contract.h"
#include "server/cpus.h"
#include "server/jsonw.h"
#include "server/metrics.h"
#include "server/ops_routes.h"
#include "server/optimize.h"
#include "server/plan_routes.h"
#include "server/prebuilt.h"
#include "server/reply.h"
#include "server/solve.h"
#include "server/solver_routes.h"
#include "server/sweep.h"
#include "server/validation_routes.h"

/* A static answer: rendered by its first request and kept (prebuilt.h). Not at
 * start-up: all of them together took ~40 ms and ~14 MiB there (the contract is
 * generated, /validation runs ~470 measurements in both modes, the catalog's
 * answers are rendered per entry and edition). */
#define STATIC_ANSWER (ROUTE_CACHEABLE | ROUTE_GZIP | ROUTE_PREBUILT | ROUTE_ON_FIRST_USE)

static const route ROUTES[] = {
    {"/solve", "/solve", 0, "POST", handle_solve_post, "/solve", 0, NULL},
    {"/solve/{solver}", "/solve/", 1, "GET", handle_solve_get, "/solve/{solver}", ROUTE_QUERY_INPUTS, NULL},
    {"/batch", "/batch", 0, "POST", handle_batch, "/batch", 0, NULL},
    {"/optimize", "/optimize", 0, "POST", optimize_handle, "/optimize", 0, NULL},
    {"/evaluate", "/evaluate", 0, "POST", handle_evaluate, "/evaluate", 0, NULL},
    {"/schemas/plan.json", "/schemas/plan.json", 0, "GET", handle_plan_schema, "/schemas/plan.json", ROUTE_CACHEABLE, NULL},
    {"/sweep", "/sweep", 0, "POST", handle_sweep, "/sweep", ROUTE_GZIP, NULL},
    {"/sweep/{solver}", "/sweep/", 1, "GET", handle_sweep, "/sweep/{solver}", ROUTE_GZIP | ROUTE_QUERY_INPUTS, NULL},
    {"/solvers", "/solvers", 0, "GET", handle_solvers, "/solvers", STATIC_ANSWER, NULL},
    {"/solvers/{name}", "/solvers/", 1, "GET", handle_solvers, "/solvers/{name}", STATIC_ANSWER, solvers_param},
    {"/catalog", "/catalog", 0, "GET", handle_catalog, "/catalog", STATIC_ANSWER | ROUTE_PER_EDITION, NULL},
    {"/catalog/{kind}", "/catalog/", 1, "GET", handle_catalog, "/catalog/{kind}", STATIC_ANSWER | ROUTE_PER_EDITION,
     catalog_kind_param},
    {"/catalog/{kind}/{id}", "/catalog/", 2, "GET", handle_catalog, "/catalog/{kind}/{id}",
     STATIC_ANSWER | ROUTE_PER_EDITION, catalog_entry_param},
    {"/healthz", "/healthz", 0, "GET", handle_healthz, "/healthz", ROUTE_PROBE, NULL},
    {"/livez", "/livez", 0, "GET", handle_healthz, "/livez", ROUTE_PROBE, NULL},
    {"/readyz", "/readyz", 0, "GET", handle_readyz, "/readyz", ROUTE_PROBE, NULL},
    {"/metrics", "/metrics", 0, "GET", handle_metrics, "/metrics", 0, NULL},
    {"/openapi.yaml", "/openapi.yaml", 0, "GET", handle_openapi_yaml, "/openapi.yaml", STATIC_ANSWER, NULL},
    {"/openapi.json", "/openapi.json", 0, "GET", handle_openapi_json, "/openapi.json", STATIC_ANSWER, NULL},
    {"/version", "/version", 0, "GET", handle_version, "/version", 0, NULL},
    {"/calibration", "/calibration", 0, "GET", handle_calibration, "/calibration", STATIC_ANSWER, NULL},
    {"/validation", "/validation", 0, "GET", handle_validation, "/validation", STATIC_ANSWER, NULL},
    {"/", "/", 0, "GET", handle_root, "/", ROUTE_GZIP | ROUTE_BY_ACCEPT, NULL},
    {"/ui/{file}", "/ui/", 1, "GET", handle_ui, "/ui/{file}", ROUTE_CACHEABLE | ROUTE_GZIP, NULL},
};
#define N_ROUTES (sizeof ROUTES / sizeof ROUTES[0])

size_t route_count(void) { return N_ROUTES; }
const route *route_at(size_t i) { return i < N_ROUTES ? &ROUTES[i] : NULL; }

int app_init(app *a, const catalog *cat, const config *cfg, char *msg, size_t msglen)
{
    memset(a, 0, sizeof *a);
    a->cat = cat;
    a->cfg = cfg;
    a->contract = contract_cache_new();
    if (!a->contract) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    atomic_store(&a->ready, false);
    atomic_store(&a->draining, false);
    a->solve_parts = solve_parts_build();
    a->sweep_threads = cfg->sweep_threads > 0 ? cfg->sweep_threads : cpus_available(64);
    sweep_set_threads(a->sweep_threads);
    metrics_routes(ROUTES, N_ROUTES);
    a->pre = prebuilt_build(a, ROUTES, N_ROUTES);
    return 0;
}

void app_free(app *a)
{
    contract_cache_free(a->contract);
    a->contract = NULL;
    prebuilt_free(a->pre);
    a->pre = NULL;
    solve_parts_free(a->solve_parts);
    a->solve_parts = NULL;
}

static const route *match_route(const char *path, const char **param)
{
    *param = NULL;
    for (size_t i = 0; i < N_ROUTES; i++) {
        const route *r = &ROUTES[i];
        size_t n = strlen(r->prefix);
        if (!r->params) {
            if (!strcmp(path, r->prefix))
                return r;
            continue;
        }
        if (strncmp(path, r->prefix, n) || !path[n])
            continue;
        /* {kind}/{id}: one '/' between two non-empty segments */
        const char *slash = strchr(path + n, '/');
        bool two = slash && slash > path + n && slash[1] && !strchr(slash + 1, '/');
        if (r->params == 1 ? !slash : two) {
            *param = path + n;
            return r;
        }
    }
    return NULL;
}

void app_handle(app *a, const app_request *req, app_response *resp)
{
    resp->status = 500;
    resp->content_type = JSON_CT;
    const char *param;
    const route *r = match_route(req->path, &param);
    resp->route = r;
    if (!r) {
        char detail[300];
        snprintf(detail, sizeof detail, "no such endpoint '%.120s'; see GET /openapi.yaml for the API", req->path);
        reply_fail(resp, req, 404, "not-found", "", detail);
        return;
    }
    const char *m = req->method;
    bool get = !strcmp(m, "GET") || !strcmp(m, "HEAD");
    bool ok = !strcmp(r->methods, "GET") ? get : !strcmp(m, r->methods);
    if (!ok) {
        snprintf(resp->allow, sizeof resp->allow, "%s, OPTIONS", !strcmp(r->methods, "GET") ? "GET, HEAD" : r->methods);
        char detail[300];
        /* the request's path: a {param} route's prefix ("/solve/") would read as a typo */
        snprintf(detail, sizeof detail, "%.10s is not allowed on %.120s; allowed: %s", m, req->path, resp->allow);
        reply_fail(resp, req, 405, "method-not-allowed", "", detail);
        return;
    }
    /* Query arguments are client bytes after percent-decoding. jansson's
     * json_string() refuses invalid UTF-8 with NULL, which the handlers would
     * take for an absent value ("model=%FF" read as "missing model"): refuse
     * such an argument here, by name. */
    for (size_t i = 0; i < req->n_query; i++) {
        const char *k = req->query[i].key, *v = req->query[i].value;
        /* json_utf8_ok() is json_string()'s test, without allocating two strings per argument */
        bool key_ok = json_utf8_ok(k), value_ok = !v || json_utf8_ok(v);
        if (key_ok && value_ok)
            continue;
        char field[160] = "", detail[300];
        if (!key_ok) {
            snprintf(detail, sizeof detail, "a query parameter name is not valid UTF-8");
        } else {
            bool input = (r->flags & ROUTE_QUERY_INPUTS) && strcmp(k, "catalog") &&
                         strcmp(k, "calibration") && strcmp(k, "format") && strcmp(k, "outputs");
            snprintf(field, sizeof field, "%s%.140s", input ? "inputs." : "", k);
            snprintf(detail, sizeof detail, "the value of query parameter '%.100s' is not valid UTF-8", k);
        }
        reply_fail(resp, req, 400, "invalid-input", field, detail);
        return;
    }
    if ((r->flags & ROUTE_PREBUILT) && prebuilt_send(a, req, resp, r, param))
        return;
    r->handler(a, req, resp, param);
}
