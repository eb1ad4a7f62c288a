/* app.c - the app's life (init, free) and routing: each request goes to the
 * handler file of its endpoint (solver_routes.c, batch.c, catalog_routes.c, sweep.c, optimize.c)
 * or, for a static answer, to what prebuilt.c rendered at start-up. The
 * operational endpoints (health, readiness, metrics, version, the OpenAPI
 * document) are answered here; the dashboard's files by ui.c. Pure request -> response: no sockets here. */
#include "server/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_info.h"
#include "catalog/embedded.h"
#include "server/batch.h"
#include "server/catalog_routes.h"
#include "server/contract.h"
#include "server/jsonw.h"
#include "server/optimize.h"
#include "server/prebuilt.h"
#include "server/reply.h"
#include "server/solve.h"
#include "server/solver_routes.h"
#include "server/sweep.h"
#include "server/ui.h"
#include "server/yaml2json.h"

int app_init(app *a, const catalog *cat, const config *cfg, char *msg, size_t msglen)
{
    memset(a, 0, sizeof *a);
    a->cat = cat;
    a->cfg = cfg;
    const embedded_file *f = embedded_find("openapi.yaml");
    if (!f) {
        snprintf(msg, msglen, "openapi.yaml is not embedded");
        return -1;
    }
    a->openapi = contract_build((const char *)f->data, f->len, msg, msglen);
    if (!a->openapi)
        return -1;
    a->openapi_yaml = json_to_yaml(a->openapi, &a->openapi_yaml_len);
    if (!a->openapi_yaml) {
        snprintf(msg, msglen, "out of memory writing the contract as YAML");
        json_decref(a->openapi);
        a->openapi = NULL;
        return -1;
    }
    atomic_store(&a->ready, false);
    atomic_store(&a->draining, false);
    a->solve_parts = solve_parts_build();
    a->pre = prebuilt_build(a);
    return 0;
}

void app_free(app *a)
{
    json_decref(a->openapi);
    free(a->openapi_yaml);
    a->openapi_yaml = NULL;
    prebuilt_free(a->pre);
    a->pre = NULL;
    solve_parts_free(a->solve_parts);
    a->solve_parts = NULL;
}

void app_response_free(app_response *resp)
{
    sb_free(&resp->body);
    if (resp->stream)
        sweep_stream_free(resp->stream);
    resp->stream = NULL;
}

/* --- operations ------------------------------------------------------------------------ */

static void handle_version(app *a, app_response *resp)
{
    json_t *eds = json_array();
    for (size_t i = 0; i < catalog_edition_count(a->cat); i++) {
        const catalog_edition *e = catalog_edition_at(a->cat, i);
        json_array_append_new(eds, json_pack("{s:s,s:s,s:s,s:I,s:I}", "name", edition_name(e), "version",
                                             edition_version(e), "description", edition_description(e), "hardware",
                                             (json_int_t)edition_count(e, catalog_kind_of(REC_HARDWARE)), "models",
                                             (json_int_t)edition_count(e, catalog_kind_of(REC_MODEL))));
    }
    json_t *solvers = json_array();
    for (size_t i = 0; i < solver_count(); i++)
        json_array_append_new(solvers, json_string(solver_at(i)->name));
    reply_json(resp, json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "service", "mlsysd", "version", MLSYSD_VERSION,
                              "git_revision", MLSYSD_GIT_REVISION, "reference", "mlsysim (harvard-edge/cs249r_book)",
                              "catalog_editions", eds, "solvers", solvers));
}

/* --- routing ------------------------------------------------------------------------------ */

typedef struct {
    const char *prefix;   /* exact path, or prefix ending in '/' for a {param} route */
    int params;           /* path segments after the prefix: 0, 1 ({name}) or 2 ({kind}/{id}) */
    route_id route;
    const char *methods;  /* "GET" or "POST" (HEAD goes with GET) */
} route;

static const route ROUTE_TABLE[] = {
    {"/solve", 0, R_SOLVE, "POST"},
    {"/solve/", 1, R_SOLVE_GET, "GET"},
    {"/batch", 0, R_BATCH, "POST"},
    {"/optimize", 0, R_OPTIMIZE, "POST"},
    {"/sweep", 0, R_SWEEP, "POST"},
    {"/sweep/", 1, R_SWEEP_GET, "GET"},
    {"/solvers", 0, R_SOLVERS, "GET"},
    {"/solvers/", 1, R_SOLVER, "GET"},
    {"/catalog", 0, R_CATALOG, "GET"},
    {"/catalog/", 1, R_CATALOG_KIND, "GET"},
    {"/catalog/", 2, R_CATALOG_ENTRY, "GET"},
    {"/healthz", 0, R_HEALTHZ, "GET"},
    {"/livez", 0, R_LIVEZ, "GET"},
    {"/readyz", 0, R_READYZ, "GET"},
    {"/metrics", 0, R_METRICS, "GET"},
    {"/openapi.yaml", 0, R_OPENAPI_YAML, "GET"},
    {"/openapi.json", 0, R_OPENAPI_JSON, "GET"},
    {"/version", 0, R_VERSION, "GET"},
    {"/", 0, R_ROOT, "GET"},
    {"/ui/", 1, R_UI, "GET"},
};

static const route *match_route(const char *path, const char **param)
{
    *param = NULL;
    for (size_t i = 0; i < sizeof ROUTE_TABLE / sizeof ROUTE_TABLE[0]; i++) {
        const route *r = &ROUTE_TABLE[i];
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
    resp->route = r ? r->route : R_OTHER;
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
            bool input = (r->route == R_SOLVE_GET || r->route == R_SWEEP_GET) && strcmp(k, "catalog") &&
                         strcmp(k, "calibration") && strcmp(k, "format") && strcmp(k, "outputs");
            snprintf(field, sizeof field, "%s%.140s", input ? "inputs." : "", k);
            snprintf(detail, sizeof detail, "the value of query parameter '%.100s' is not valid UTF-8", k);
        }
        reply_fail(resp, req, 400, "invalid-input", field, detail);
        return;
    }
    if (prebuilt_send(a, req, resp, r->route, param))
        return;
    switch (r->route) {
    case R_SOLVE: handle_solve_post(a, req, resp); return;
    case R_SOLVE_GET: handle_solve_get(a, req, resp, param); return;
    case R_BATCH: handle_batch(a, req, resp); return;
    case R_OPTIMIZE: optimize_handle(a, req, resp); return;
    case R_SWEEP: sweep_start(a, req, NULL, resp); return;
    case R_SWEEP_GET: sweep_start(a, req, param, resp); return;
    case R_SOLVERS: handle_solvers(resp, req, NULL); return;
    case R_SOLVER: handle_solvers(resp, req, param); return;
    case R_CATALOG:
    case R_CATALOG_KIND:
    case R_CATALOG_ENTRY: handle_catalog(a, req, resp, param); return;
    case R_HEALTHZ:
    case R_LIVEZ: reply_text(resp, 200, JSON_CT, "{\"status\":\"ok\"}\n"); return;
    case R_READYZ:
        if (atomic_load(&a->ready) && !atomic_load(&a->draining)) {
            reply_text(resp, 200, JSON_CT, "{\"status\":\"ready\"}\n");
        } else {
            resp->retry_after = 1;
            reply_fail(resp, req, 503, "not-ready", "", atomic_load(&a->draining) ? "draining: shutting down" : "starting");
        }
        return;
    case R_METRICS:
        sb_reset(&resp->body);
        metrics_render(&resp->body);
        resp->status = 200;
        resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
        return;
    case R_OPENAPI_YAML:
        sb_reset(&resp->body);
        sb_append(&resp->body, a->openapi_yaml, a->openapi_yaml_len);
        resp->status = 200;
        resp->content_type = "application/yaml";
        return;
    case R_OPENAPI_JSON:
        reply_json(resp, json_incref(a->openapi));
        return;
    case R_VERSION: handle_version(a, resp); return;
    case R_ROOT:
        /* a browser gets the dashboard, an API client the index below */
        if (!a->cfg->no_dashboard && ui_wanted(req) && ui_send(req, resp, "index.html"))
            return;
        reply_json(resp, json_pack("{s:s,s:s,s:[s,s,s,s,s,s]}", "service", "mlsysd", "version", MLSYSD_VERSION,
                                  "endpoints", "/solve", "/sweep", "/solvers", "/catalog", "/openapi.yaml",
                                  "/metrics"));
        return;
    case R_UI:
        if (!a->cfg->no_dashboard && ui_send(req, resp, param))
            return;
        break;
    case R_OTHER:
    case R__N:
        break;
    }
    reply_fail(resp, req, 404, "not-found", "", "no such endpoint");
}
