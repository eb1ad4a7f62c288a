/* ops_routes.c - the operational endpoints and the dashboard's routes
 * (contract in ops_routes.h): answers about the service itself, not about
 * ML systems. */
#include "server/ops_routes.h"

#include <stdlib.h>

#include "build_info.h"
#include "server/contract.h"
#include "server/metrics.h"
#include "server/reply.h"
#include "server/ui.h"
#include "server/yaml2json.h"

void handle_healthz(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)a, (void)req, (void)param;
    reply_text(resp, 200, JSON_CT, "{\"status\":\"ok\"}\n");
}

void handle_readyz(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    if (atomic_load(&a->ready) && !atomic_load(&a->draining)) {
        reply_text(resp, 200, JSON_CT, "{\"status\":\"ready\"}\n");
    } else {
        resp->retry_after = 1;
        reply_fail(resp, req, 503, "not-ready", "", atomic_load(&a->draining) ? "draining: shutting down" : "starting");
    }
}

void handle_metrics(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)a, (void)req, (void)param;
    sb_reset(&resp->body);
    metrics_render(&resp->body);
    resp->status = 200;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
}

/* The contract, or a 500 answered: NULL. */
static const json_t *contract_or_fail(app *a, const app_request *req, app_response *resp)
{
    char msg[300];
    const json_t *doc = contract_get(a->contract, msg, sizeof msg);
    if (!doc)
        reply_fail(resp, req, 500, "internal", "", msg);
    return doc;
}

/* Both are rendered by their first request and kept (ROUTE_ON_FIRST_USE). */
void handle_openapi_yaml(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    const json_t *doc = contract_or_fail(a, req, resp);
    if (!doc)
        return;
    size_t len = 0;
    char *yaml = json_to_yaml(doc, &len);
    if (!yaml) {
        reply_fail(resp, req, 500, "internal", "", "out of memory writing the contract as YAML");
        return;
    }
    sb_reset(&resp->body);
    sb_append(&resp->body, yaml, len);
    free(yaml);
    resp->status = 200;
    resp->content_type = "application/yaml";
}

void handle_openapi_json(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    const json_t *doc = contract_or_fail(a, req, resp);
    if (doc)
        reply_json(resp, json_incref((json_t *)doc));
}

void handle_version(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)req, (void)param;
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

void handle_root(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    /* a browser gets the dashboard, an API client the index below */
    if (!a->cfg->no_dashboard && ui_wanted(req) && ui_send(req, resp, "index.html"))
        return;
    /* every path of the contract that takes no parameter, but this one */
    static const char *const endpoints[] = {"/solve", "/batch", "/sweep", "/optimize", "/evaluate", "/solvers",
                                            "/catalog", "/calibration", "/validation", "/openapi.yaml",
                                            "/openapi.json", "/schemas/plan.json", "/version", "/healthz", "/livez",
                                            "/readyz", "/metrics"};
    json_t *list = json_array();
    for (size_t i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++)
        json_array_append_new(list, json_string(endpoints[i]));
    reply_json(resp, json_pack("{s:s,s:s,s:o}", "service", "mlsysd", "version", MLSYSD_VERSION, "endpoints", list));
}

void handle_ui(app *a, const app_request *req, app_response *resp, const char *param)
{
    if (!a->cfg->no_dashboard && ui_send(req, resp, param))
        return;
    reply_fail(resp, req, 404, "not-found", "", "no such endpoint");
}
