/* solver_routes.c - /solve (POST body or GET query) and /solvers: read the
 * request through the front end (front.h), run the solver, and hand the
 * point to the writer (solve.h). */
#include "server/solver_routes.h"

#include <stdio.h>
#include <string.h>

#include "server/body.h"
#include "server/body_scan.h"
#include "server/front.h"
#include "server/reply.h"
#include "server/solve.h"
#include "server/solver_describe.h"

/* Per-thread scratch instead of calloc + free per request: allocating and
 * zeroing cost more than the solve. The parsers initialise every input they
 * return. */
static _Thread_local solver_inputs tl_in;
static _Thread_local solver_outputs tl_out;

/* Parse (from the body's inputs, or the query when req is not NULL), run and
 * write the answer into out. */
static int solve_into(const app *a, const solver_request *r, const app_request *query, strbuf *out, api_error *err)
{
    static const char *const reserved[] = {"catalog", "calibration", NULL};
    solver_inputs *in = &tl_in;
    int rc = query ? front_inputs_query(r, query, reserved, in, err) : front_inputs(r, in, true, err);
    if (rc == 0)
        rc = front_run(r, in, &tl_out, err);
    if (rc == 0)
        solve_write(a, out, r, in, &tl_out);
    inputs_release(in);
    return rc;
}

int solve_body(const app *a, const json_t *body, strbuf *out, api_error *err)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)body, key, val) {
        if (strcmp(key, "solver") && strcmp(key, "inputs") && strcmp(key, "catalog") && strcmp(key, "calibration"))
            return api_fail(err, 400, "unknown-field", key,
                            "unknown field '%.80s'; a /solve body has solver, inputs, catalog and calibration", key);
    }
    solver_request r;
    if (front_read_body(a, body, &r, err) != 0)
        return -1;
    return solve_into(a, &r, NULL, out, err);
}

static void reply_solved(app_response *resp, const app_request *req, int rc, const api_error *err)
{
    if (rc != 0) {
        app_problem(resp, req, err);
        return;
    }
    sb_putc(&resp->body, '\n');
    resp->status = 200;
    resp->content_type = JSON_CT;
}

int solve_text(const app *a, const char *body, size_t len, strbuf *out, api_error *err)
{
    body_scan scanned;
    if (body_scan_solve(body, len, &scanned) != 0)
        return 1;
    input_given given[SOLVER_MAX_INPUTS];
    solver_request r;
    int rc = front_read_scan(a, &scanned, given, &r, err);
    if (rc == 0)
        rc = solve_into(a, &r, NULL, out, err);
    body_scan_release(&scanned);
    return rc == 0 ? 0 : -1;
}

void handle_solve_post(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    api_error err;
    /* The bodies clients send are read without a JSON tree (body_scan.h); any
     * other body, a malformed one included, takes jansson's path below. */
    if (app_json_content_type(req->content_type)) {
        sb_reset(&resp->body);
        int rc = solve_text(a, req->body, req->body_len, &resp->body, &err);
        if (rc != 1) {
            reply_solved(resp, req, rc, &err);
            return;
        }
    }
    json_t *body = app_parse_body(req, &err);
    if (!body) {
        app_problem(resp, req, &err);
        return;
    }
    sb_reset(&resp->body);
    int rc = solve_body(a, body, &resp->body, &err);
    reply_solved(resp, req, rc, &err);
    json_decref(body);
}

void handle_solve_get(app *a, const app_request *req, app_response *resp, const char *name)
{
    api_error err;
    solver_request r;
    sb_reset(&resp->body);
    int rc = front_read_query(a, name, req, &r, &err);
    if (rc == 0)
        rc = solve_into(a, &r, req, &resp->body, &err);
    reply_solved(resp, req, rc, &err);
}

/* --- /solvers ------------------------------------------------------------------------ */

void handle_solvers(app *a, const app_request *req, app_response *resp, const char *name)
{
    (void)a;
    if (name) {
        api_error err;
        solver_request r;
        if (front_find_solver(name, &r, &err) != 0) {
            snprintf(err.field, sizeof err.field, "name");
            app_problem(resp, req, &err);
        } else {
            reply_json(resp, solver_describe(r.s));
        }
        return;
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < solver_count(); i++)
        json_array_append_new(arr, solver_describe(solver_at(i)));
    reply_json(resp, json_pack("{s:o}", "solvers", arr));
}

const char *solvers_param(const app *a, const catalog_edition *ed, size_t i, char *buf, size_t n)
{
    (void)a, (void)ed;
    if (i >= solver_count())
        return NULL;
    snprintf(buf, n, "%s", solver_at(i)->name);
    return buf;
}
