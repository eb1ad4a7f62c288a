/* app.c - routing and the handlers of every endpoint except /sweep
 * (sweep.c). Pure request -> response: no sockets here. */
#include "server/app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "build_info.h"
#include "catalog/embedded.h"
#include "server/jsonw.h"
#include "server/yaml2json.h"

#define PROBLEM_BASE "https://mlsysd.dev/problems/"

static const char *const JSON_CT = "application/json";
static const char *const PROBLEM_CT = "application/problem+json";

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
    a->openapi_yaml = (const char *)f->data;
    a->openapi_yaml_len = f->len;
    char err[200];
    a->openapi = yaml_to_json(a->openapi_yaml, a->openapi_yaml_len, err, sizeof err);
    if (!a->openapi) {
        snprintf(msg, msglen, "embedded openapi.yaml: %s", err);
        return -1;
    }
    atomic_store(&a->ready, false);
    atomic_store(&a->draining, false);
    return 0;
}

void app_free(app *a) { json_decref(a->openapi); }

void app_response_free(app_response *resp)
{
    sb_free(&resp->body);
    if (resp->stream)
        sweep_stream_free(resp->stream);
    resp->stream = NULL;
}

static const char *status_title(int status)
{
    switch (status) {
    case 400: return "Invalid input";
    case 404: return "Not found";
    case 405: return "Method not allowed";
    case 406: return "Not acceptable";
    case 413: return "Too large";
    case 414: return "URI too long";
    case 415: return "Unsupported media type";
    case 429: return "Too many requests";
    case 503: return "Service unavailable";
    default: return "Error";
    }
}

void app_problem(app_response *resp, const app_request *req, const api_error *e)
{
    json_t *o = json_object();
    char type[128];
    snprintf(type, sizeof type, PROBLEM_BASE "%s", e->slug ? e->slug : "error");
    json_object_set_new(o, "type", json_string(type));
    json_object_set_new(o, "title", json_string(status_title(e->status)));
    json_object_set_new(o, "status", json_integer(e->status));
    /* Details quote client text: keep them valid UTF-8 for JSON. */
    json_object_set_new(o, "detail", json_stringn_nocheck(e->detail, strlen(e->detail)));
    if (e->field[0])
        json_object_set_new(o, "field", json_stringn_nocheck(e->field, strlen(e->field)));
    if (req && req->path)
        json_object_set_new(o, "instance", json_stringn_nocheck(req->path, strnlen(req->path, 256)));
    if (req && req->request_id)
        json_object_set_new(o, "request_id", json_string(req->request_id));
    sb_reset(&resp->body);
    json_write(&resp->body, o, 0);
    sb_putc(&resp->body, '\n');
    json_decref(o);
    resp->status = e->status;
    resp->content_type = PROBLEM_CT;
}

static void fail(app_response *resp, const app_request *req, int status, const char *slug, const char *field,
                 const char *detail)
{
    api_error e;
    api_fail(&e, status, slug, field, "%s", detail);
    app_problem(resp, req, &e);
}

static void send_json(app_response *resp, json_t *o)
{
    sb_reset(&resp->body);
    json_write(&resp->body, o, 0);
    sb_putc(&resp->body, '\n');
    json_decref(o);
    resp->status = 200;
    resp->content_type = JSON_CT;
}

const catalog_edition *app_edition(app *a, const char *name, api_error *err)
{
    if (!name)
        return catalog_default_edition(a->cat);
    const catalog_edition *e = catalog_edition_find(a->cat, name);
    if (!e) {
        char known[200] = "";
        size_t used = 0;
        for (size_t i = 0; i < catalog_edition_count(a->cat) && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     edition_name(catalog_edition_at(a->cat, i)));
        api_fail(err, 400, "invalid-input", "catalog", "unknown catalog edition '%.60s'; editions are: %s", name, known);
    }
    return e;
}

bool app_json_content_type(const char *ct)
{
    if (!ct || !*ct)
        return true; /* curl --data without -H: be lenient about a missing type */
    size_t n = strcspn(ct, ";");
    while (n && ct[n - 1] == ' ')
        n--;
    if (n == 16 && !strncasecmp(ct, "application/json", 16))
        return true;
    return n > 17 && !strncasecmp(ct, "application/", 12) && !strncasecmp(ct + n - 5, "+json", 5);
}

json_t *app_parse_body(const app_request *req, api_error *err)
{
    if (!app_json_content_type(req->content_type)) {
        api_fail(err, 415, "unsupported-media-type", "",
                 "send the body as JSON with Content-Type: application/json (got '%.80s'; with curl add "
                 "-H 'Content-Type: application/json')",
                 req->content_type);
        return NULL;
    }
    if (req->body_len == 0) {
        api_fail(err, 400, "invalid-json", "", "the request body is empty; expected a JSON object");
        return NULL;
    }
    json_error_t jerr;
    json_t *j = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        api_fail(err, 400, "invalid-json", "", "invalid JSON at line %d, column %d: %s", jerr.line, jerr.column,
                 jerr.text);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        api_fail(err, 400, "invalid-json", "", "the request body must be a JSON object");
        return NULL;
    }
    return j;
}

/* --- /solve ------------------------------------------------------------------------ */

static json_t *solve_to_json(const solver_desc *s, const catalog_edition *ed, const solver_inputs *in,
                             const solver_outputs *out)
{
    json_t *o = json_object();
    json_object_set_new(o, "solver", json_string(s->name));
    json_object_set_new(o, "inputs", inputs_echo(s, in));
    json_t *units = json_object(), *res = json_object(), *warn = json_array(), *trace = json_array();
    for (size_t i = 0; i < s->n_outputs; i++) {
        const output_desc *d = &s->outputs[i];
        const output_value *v = &out->v[i];
        json_object_set_new(res, d->name, output_to_json(d, v));
        if ((d->kind == OUT_NUMBER || d->kind == OUT_INTEGER) && !v->is_null && !isfinite(v->num)) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s is %s, reported as null", d->name,
                     isnan(v->num) ? "undefined (NaN)" : v->num > 0 ? "infinite" : "-infinite");
            json_array_append_new(warn, json_string(msg));
        }
        if (d->unit[0])
            json_object_set_new(units, d->name, json_string(d->unit));
    }
    json_object_set_new(o, "result", res);
    json_object_set_new(o, "units", units);
    json_t *in_units = json_object();
    for (size_t i = 0; i < s->n_inputs; i++)
        if (s->inputs[i].kind == IN_QUANTITY && in->v[i].present)
            json_object_set_new(in_units, s->inputs[i].name, json_string(s->inputs[i].unit));
    json_object_set_new(o, "input_units", in_units);
    json_object_set_new(o, "resolved", inputs_resolved(s, in));
    for (int i = 0; i < out->n_trace; i++)
        json_array_append_new(trace, json_string(out->trace[i]));
    for (int i = 0; i < out->n_warnings; i++)
        json_array_append_new(warn, json_string(out->warnings[i]));
    json_object_set_new(o, "trace", trace);
    json_object_set_new(o, "warnings", warn);
    json_object_set_new(o, "catalog", json_string(edition_name(ed)));
    json_object_set_new(o, "catalog_version", json_string(edition_version(ed)));
    return o;
}

static void solve_and_reply(app_response *resp, const app_request *req, const solver_desc *s,
                            const catalog_edition *ed, const json_t *inputs)
{
    api_error err;
    solver_inputs *in = calloc(1, sizeof *in);
    solver_outputs *out = calloc(1, sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        fail(resp, req, 503, "overloaded", "", "out of memory");
        return;
    }
    if (inputs_from_json(s, inputs, ed, in, &err) != 0) {
        app_problem(resp, req, &err);
    } else {
        solver_error se = {0};
        for (size_t i = 0; i < solver_count(); i++)
            if (solver_at(i) == s)
                metrics_solve((unsigned)i);
        if (s->run(in, out, &se) != 0) {
            char field[96];
            snprintf(field, sizeof field, "%s%s", se.field[0] ? "inputs." : "", se.field);
            fail(resp, req, se.status ? se.status : 400, "invalid-input", field, se.detail);
        } else {
            send_json(resp, solve_to_json(s, ed, in, out));
        }
    }
    free(in);
    free(out);
}

static const solver_desc *find_solver(app_response *resp, const app_request *req, const char *name,
                                      const char *field)
{
    const solver_desc *s = solver_find(name);
    if (!s) {
        char known[300] = "", detail[500];
        size_t used = 0;
        for (size_t i = 0; i < solver_count() && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", solver_at(i)->name);
        snprintf(detail, sizeof detail, "unknown solver '%.60s'; solvers are: %s (GET /solvers describes them)", name,
                 known);
        fail(resp, req, 404, "unknown-solver", field, detail);
    }
    return s;
}

static void handle_solve_post(app *a, const app_request *req, app_response *resp)
{
    api_error err;
    json_t *body = app_parse_body(req, &err);
    if (!body) {
        app_problem(resp, req, &err);
        return;
    }
    const char *key;
    json_t *val;
    json_object_foreach(body, key, val) {
        if (strcmp(key, "solver") && strcmp(key, "inputs") && strcmp(key, "catalog")) {
            char detail[200];
            snprintf(detail, sizeof detail, "unknown field '%.80s'; a /solve body has solver, inputs and catalog", key);
            fail(resp, req, 400, "unknown-field", key, detail);
            json_decref(body);
            return;
        }
    }
    json_t *js = json_object_get(body, "solver"), *jc = json_object_get(body, "catalog");
    if (!json_is_string(js)) {
        fail(resp, req, 400, js ? "invalid-input" : "missing-input", "solver",
             "solver must be a string naming a solver (e.g. \"single_node\"; GET /solvers lists them)");
    } else if (jc && !json_is_string(jc)) {
        fail(resp, req, 400, "invalid-input", "catalog", "catalog must be a string: \"current\" or \"tutorial\"");
    } else {
        const solver_desc *s = find_solver(resp, req, json_string_value(js), "solver");
        const catalog_edition *ed = app_edition(a, jc ? json_string_value(jc) : NULL, &err);
        if (s && !ed)
            app_problem(resp, req, &err);
        else if (s)
            solve_and_reply(resp, req, s, ed, json_object_get(body, "inputs"));
    }
    json_decref(body);
}

/* Query string -> an "inputs" object. Dotted names build inline entries:
 * model=ResNet50&model.inference_flops=4.1%20GFLOP. */
int query_to_inputs(const solver_desc *s, const app_request *req, const char *const *reserved, json_t **out,
                    api_error *err);
int query_to_inputs(const solver_desc *s, const app_request *req, const char *const *reserved, json_t **out,
                    api_error *err)
{
    if (req->query_overflow)
        return api_fail(err, 400, "invalid-input", "", "too many query arguments (at most %d)", APP_MAX_QUERY);
    json_t *o = json_object();
    for (size_t i = 0; i < req->n_query; i++) {
        const char *k = req->query[i].key, *v = req->query[i].value ? req->query[i].value : "";
        bool skip = false;
        for (const char *const *r = reserved; *r; r++)
            if (!strcmp(k, *r))
                skip = true;
        if (skip)
            continue;
        char name[128], field[160];
        snprintf(field, sizeof field, "inputs.%.140s", k); /* errors name it as POST /solve would */
        const char *dot = strchr(k, '.');
        size_t n = dot ? (size_t)(dot - k) : strlen(k);
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, k, n);
        name[n] = '\0';
        int idx = solver_input_index(s, name);
        if (idx < 0) {
            json_decref(o);
            return api_fail(err, 400, "unknown-input", field,
                            "unknown input '%.100s' for solver %s (GET /solvers/%s lists its inputs)", name, s->name,
                            s->name);
        }
        const input_desc *d = &s->inputs[idx];
        json_t *cur = json_object_get(o, name);
        if (dot) {
            if (d->kind != IN_MODEL && d->kind != IN_HARDWARE) {
                json_decref(o);
                return api_fail(err, 400, "unknown-input", field, "'%.100s': only model and hardware take dotted fields", k);
            }
            if (!cur) {
                cur = json_object();
                json_object_set_new(o, name, cur);
            } else if (json_is_string(cur)) {
                json_t *obj = json_pack("{s:O}", "base", cur);
                json_object_set_new(o, name, obj);
                cur = obj;
            }
            if (json_object_get(cur, dot + 1)) {
                json_decref(o);
                return api_fail(err, 400, "invalid-input", field, "'%.100s' is given twice", k);
            }
            json_object_set_new(cur, dot + 1, json_string(v));
        } else {
            if (cur && json_is_object(cur) && !json_object_get(cur, "base")) {
                json_object_set_new(cur, "base", json_string(v));
            } else if (cur) {
                json_decref(o);
                return api_fail(err, 400, "invalid-input", field, "'%.100s' is given twice", k);
            } else {
                json_object_set_new(o, name, input_from_text(d, v));
            }
        }
    }
    *out = o;
    return 0;
}

static const char *query_get(const app_request *req, const char *key)
{
    for (size_t i = 0; i < req->n_query; i++)
        if (!strcmp(req->query[i].key, key))
            return req->query[i].value ? req->query[i].value : "";
    return NULL;
}

static void handle_solve_get(app *a, const app_request *req, app_response *resp, const char *name)
{
    const solver_desc *s = find_solver(resp, req, name, "solver");
    if (!s)
        return;
    api_error err;
    const catalog_edition *ed = app_edition(a, query_get(req, "catalog"), &err);
    json_t *inputs = NULL;
    static const char *const reserved[] = {"catalog", NULL};
    if (!ed || query_to_inputs(s, req, reserved, &inputs, &err) != 0) {
        app_problem(resp, req, &err);
        return;
    }
    solve_and_reply(resp, req, s, ed, inputs);
    json_decref(inputs);
}

/* --- /solvers ------------------------------------------------------------------------ */

static void handle_solvers(app_response *resp, const app_request *req, const char *name)
{
    if (name) {
        const solver_desc *s = find_solver(resp, req, name, "name");
        if (s)
            send_json(resp, solver_describe(s));
        return;
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < solver_count(); i++)
        json_array_append_new(arr, solver_describe(solver_at(i)));
    send_json(resp, json_pack("{s:o}", "solvers", arr));
}

/* --- /catalog ------------------------------------------------------------------------ */

static bool group_matches(const char *group, const char *want) { return !want || !strcasecmp(group, want); }

static json_t *hw_list(const catalog_edition *ed, const char *group)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < edition_hardware_count(ed); i++) {
        const hw_node *hw = edition_hardware_at(ed, i);
        if (group_matches(hw->group, group))
            json_array_append_new(arr, hardware_summary(hw));
    }
    return arr;
}

static json_t *model_list(const catalog_edition *ed, const char *group)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < edition_model_count(ed); i++) {
        const model_t *m = edition_model_at(ed, i);
        if (group_matches(m->group, group))
            json_array_append_new(arr, model_summary(m));
    }
    return arr;
}

static void handle_catalog(app *a, const app_request *req, app_response *resp, int kind, const char *id)
{
    api_error err;
    const catalog_edition *ed = app_edition(a, query_get(req, "catalog"), &err);
    if (!ed) {
        app_problem(resp, req, &err);
        return;
    }
    const char *group = query_get(req, "group");
    for (size_t i = 0; i < req->n_query; i++) {
        const char *k = req->query[i].key;
        if (strcmp(k, "catalog") && strcmp(k, "group") && strcmp(k, "kind")) {
            char detail[200];
            snprintf(detail, sizeof detail, "unknown query parameter '%.80s'; /catalog takes catalog, group and kind", k);
            fail(resp, req, 400, "unknown-field", k, detail);
            return;
        }
    }
    if (id) {
        long idx = kind == CAT_HARDWARE ? edition_find_hardware(ed, id) : edition_find_model(ed, id);
        if (idx < 0) {
            const char *near[3];
            int n = edition_suggest(ed, (catalog_kind)kind, id, near, 3);
            char sugg[200] = "", detail[400];
            size_t used = 0;
            for (int i = 0; i < n && used < sizeof sugg; i++)
                used += (size_t)snprintf(sugg + used, sizeof sugg - used, "%s%s", i ? ", " : "", near[i]);
            snprintf(detail, sizeof detail, "unknown %s '%.64s' in catalog '%s'%s%s%s",
                     kind == CAT_HARDWARE ? "hardware" : "model", id, edition_name(ed), n ? "; did you mean " : "",
                     sugg, n ? "?" : "");
            fail(resp, req, 404, "unknown-id", "id", detail);
            return;
        }
        json_t *e = json_deep_copy(kind == CAT_HARDWARE ? edition_hardware_json(ed, (size_t)idx)
                                                        : edition_model_json(ed, (size_t)idx));
        json_object_set_new(e, "catalog", json_string(edition_name(ed)));
        json_object_set_new(e, "catalog_version", json_string(edition_version(ed)));
        send_json(resp, e);
        return;
    }
    const char *want = query_get(req, "kind");
    if (want && strcmp(want, "hardware") && strcmp(want, "models")) {
        fail(resp, req, 400, "invalid-input", "kind", "kind must be hardware or models");
        return;
    }
    json_t *o = json_object();
    json_object_set_new(o, "catalog", json_string(edition_name(ed)));
    json_object_set_new(o, "catalog_version", json_string(edition_version(ed)));
    if (kind != CAT_MODEL && (!want || !strcmp(want, "hardware")))
        json_object_set_new(o, "hardware", hw_list(ed, group));
    if (kind != CAT_HARDWARE && (!want || !strcmp(want, "models")))
        json_object_set_new(o, "models", model_list(ed, group));
    send_json(resp, o);
}

/* --- operations ------------------------------------------------------------------------ */

static void handle_version(app *a, app_response *resp)
{
    json_t *eds = json_array();
    for (size_t i = 0; i < catalog_edition_count(a->cat); i++) {
        const catalog_edition *e = catalog_edition_at(a->cat, i);
        json_array_append_new(eds, json_pack("{s:s,s:s,s:s,s:I,s:I}", "name", edition_name(e), "version",
                                             edition_version(e), "description", edition_description(e), "hardware",
                                             (json_int_t)edition_hardware_count(e), "models",
                                             (json_int_t)edition_model_count(e)));
    }
    json_t *solvers = json_array();
    for (size_t i = 0; i < solver_count(); i++)
        json_array_append_new(solvers, json_string(solver_at(i)->name));
    send_json(resp, json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "service", "mlsysd", "version", MLSYSD_VERSION,
                              "git_revision", MLSYSD_GIT_REVISION, "reference", "mlsysim (harvard-edge/cs249r_book)",
                              "catalog_editions", eds, "solvers", solvers));
}

static void text(app_response *resp, int status, const char *ct, const char *body)
{
    sb_reset(&resp->body);
    sb_puts(&resp->body, body);
    resp->status = status;
    resp->content_type = ct;
}

/* --- routing ------------------------------------------------------------------------------ */

typedef struct {
    const char *prefix;   /* exact path, or prefix ending in '/' for a {param} route */
    bool has_param;
    route_id route;
    const char *methods;  /* "GET" or "POST" (HEAD goes with GET) */
} route;

static const route ROUTE_TABLE[] = {
    {"/solve", false, R_SOLVE, "POST"},
    {"/solve/", true, R_SOLVE_GET, "GET"},
    {"/sweep", false, R_SWEEP, "POST"},
    {"/sweep/", true, R_SWEEP_GET, "GET"},
    {"/solvers", false, R_SOLVERS, "GET"},
    {"/solvers/", true, R_SOLVER, "GET"},
    {"/catalog", false, R_CATALOG, "GET"},
    {"/catalog/hardware", false, R_CATALOG_HW, "GET"},
    {"/catalog/hardware/", true, R_CATALOG_HW_ID, "GET"},
    {"/catalog/models", false, R_CATALOG_MODELS, "GET"},
    {"/catalog/models/", true, R_CATALOG_MODEL_ID, "GET"},
    {"/healthz", false, R_HEALTHZ, "GET"},
    {"/livez", false, R_LIVEZ, "GET"},
    {"/readyz", false, R_READYZ, "GET"},
    {"/metrics", false, R_METRICS, "GET"},
    {"/openapi.yaml", false, R_OPENAPI_YAML, "GET"},
    {"/openapi.json", false, R_OPENAPI_JSON, "GET"},
    {"/version", false, R_VERSION, "GET"},
    {"/", false, R_ROOT, "GET"},
};

static const route *match_route(const char *path, const char **param)
{
    *param = NULL;
    for (size_t i = 0; i < sizeof ROUTE_TABLE / sizeof ROUTE_TABLE[0]; i++) {
        const route *r = &ROUTE_TABLE[i];
        size_t n = strlen(r->prefix);
        if (!r->has_param) {
            if (!strcmp(path, r->prefix))
                return r;
        } else if (!strncmp(path, r->prefix, n) && path[n] && !strchr(path + n, '/')) {
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
        fail(resp, req, 404, "not-found", "", detail);
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
        fail(resp, req, 405, "method-not-allowed", "", detail);
        return;
    }
    /* Query arguments are client bytes after percent-decoding. jansson's
     * json_string() refuses invalid UTF-8 with NULL, which the handlers would
     * take for an absent value ("model=%FF" read as "missing model"): refuse
     * such an argument here, by name. */
    for (size_t i = 0; i < req->n_query; i++) {
        const char *k = req->query[i].key, *v = req->query[i].value;
        json_t *jk = json_string(k), *jv = v ? json_string(v) : json_null();
        bool key_ok = jk != NULL, value_ok = jv != NULL;
        json_decref(jk);
        json_decref(jv);
        if (key_ok && value_ok)
            continue;
        char field[160] = "", detail[300];
        if (!key_ok) {
            snprintf(detail, sizeof detail, "a query parameter name is not valid UTF-8");
        } else {
            bool input = (r->route == R_SOLVE_GET || r->route == R_SWEEP_GET) && strcmp(k, "catalog") &&
                         strcmp(k, "format") && strcmp(k, "outputs");
            snprintf(field, sizeof field, "%s%.140s", input ? "inputs." : "", k);
            snprintf(detail, sizeof detail, "the value of query parameter '%.100s' is not valid UTF-8", k);
        }
        fail(resp, req, 400, "invalid-input", field, detail);
        return;
    }
    switch (r->route) {
    case R_SOLVE: handle_solve_post(a, req, resp); return;
    case R_SOLVE_GET: handle_solve_get(a, req, resp, param); return;
    case R_SWEEP: sweep_start(a, req, NULL, resp); return;
    case R_SWEEP_GET: sweep_start(a, req, param, resp); return;
    case R_SOLVERS: handle_solvers(resp, req, NULL); return;
    case R_SOLVER: handle_solvers(resp, req, param); return;
    case R_CATALOG: handle_catalog(a, req, resp, -1, NULL); return;
    case R_CATALOG_HW: handle_catalog(a, req, resp, CAT_HARDWARE, NULL); return;
    case R_CATALOG_HW_ID: handle_catalog(a, req, resp, CAT_HARDWARE, param); return;
    case R_CATALOG_MODELS: handle_catalog(a, req, resp, CAT_MODEL, NULL); return;
    case R_CATALOG_MODEL_ID: handle_catalog(a, req, resp, CAT_MODEL, param); return;
    case R_HEALTHZ:
    case R_LIVEZ: text(resp, 200, JSON_CT, "{\"status\":\"ok\"}\n"); return;
    case R_READYZ:
        if (atomic_load(&a->ready) && !atomic_load(&a->draining)) {
            text(resp, 200, JSON_CT, "{\"status\":\"ready\"}\n");
        } else {
            resp->retry_after = 1;
            fail(resp, req, 503, "not-ready", "", atomic_load(&a->draining) ? "draining: shutting down" : "starting");
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
        send_json(resp, json_incref(a->openapi));
        return;
    case R_VERSION: handle_version(a, resp); return;
    case R_ROOT:
        send_json(resp, json_pack("{s:s,s:s,s:[s,s,s,s,s,s]}", "service", "mlsysd", "version", MLSYSD_VERSION,
                                  "endpoints", "/solve", "/sweep", "/solvers", "/catalog", "/openapi.yaml",
                                  "/metrics"));
        return;
    case R_OTHER:
    case R__N:
        break;
    }
    fail(resp, req, 404, "not-found", "", "no such endpoint");
}
