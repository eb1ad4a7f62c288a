/* plan_routes.c - POST /evaluate and GET /schemas/plan.json (contract in
 * plan_routes.h). A body is YAML when its media type says so
 * (application/yaml, application/x-yaml, text/yaml, text/x-yaml) or says
 * nothing useful (none, text/plain, or curl's default form type, so that
 * `curl --data-binary @plan.yaml` works); JSON when it is JSON
 * (application/json, +json); anything else is a 415. */
#include "server/plan_routes.h"

#include <string.h>
#include <strings.h>

#include "server/body.h"
#include "server/jsonw.h"
#include "server/plan.h"
#include "server/reply.h"

static bool type_is(const char *ct, const char *want)
{
    size_t n = strcspn(ct, ";");
    while (n && ct[n - 1] == ' ')
        n--;
    return n == strlen(want) && !strncasecmp(ct, want, n);
}

/* 1 YAML, 0 JSON, -1 neither. */
static int body_kind(const char *ct)
{
    if (!ct || !*ct)
        return 1;
    static const char *const YAML[] = {"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml",
                                       "text/plain", "application/x-www-form-urlencoded", NULL};
    for (size_t i = 0; YAML[i]; i++)
        if (type_is(ct, YAML[i]))
            return 1;
    return app_json_content_type(ct) ? 0 : -1;
}

void handle_evaluate(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    api_error err;
    int kind = body_kind(req->content_type);
    if (kind < 0) {
        api_fail(&err, 415, "unsupported-media-type", "",
                 "send the plan as YAML (Content-Type: application/yaml) or JSON (application/json); got '%.80s'",
                 req->content_type);
        app_problem(resp, req, &err);
        return;
    }
    if (req->body_len == 0) {
        api_fail(&err, 400, "invalid-plan", "", "the request body is empty; expected a plan");
        app_problem(resp, req, &err);
        return;
    }
    json_t *plan = plan_read(req->body, req->body_len, kind == 1, &err);
    json_t *answer = plan ? plan_evaluate(a, plan, &err) : NULL;
    json_decref(plan);
    if (!answer) {
        app_problem(resp, req, &err);
        return;
    }
    sb_reset(&resp->body);
    json_write(&resp->body, answer, 0);
    sb_putc(&resp->body, '\n');
    json_decref(answer);
    resp->status = 200;
    resp->content_type = JSON_CT;
}

void handle_plan_schema(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    json_t *s = plan_schema(a);
    if (!s) {
        reply_fail(resp, req, 404, "not-found", "", "this build's contract has no Plan schema");
        return;
    }
    sb_reset(&resp->body);
    json_write(&resp->body, s, 2);
    sb_putc(&resp->body, '\n');
    json_decref(s);
    resp->status = 200;
    resp->content_type = "application/schema+json";
}
