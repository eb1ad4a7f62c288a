/* solver_routes.c - /solve (POST body or GET query) and /solvers: parse the
 * inputs, run the solver, and hand the point to the writer (solve.h). */
#include "server/solver_routes.h"

#include <stdio.h>
#include <string.h>

#include "server/body.h"
#include "server/edition.h"
#include "server/query.h"
#include "server/reply.h"
#include "server/solve.h"

static void solve_and_reply(app *a, app_response *resp, const app_request *req, const solver_desc *s,
                            const catalog_edition *ed, const json_t *inputs)
{
    api_error err;
    /* Per-thread scratch instead of calloc + free per request: allocating and
     * zeroing cost more than the solve. inputs_from_json() initialises every
     * input it returns. */
    static _Thread_local solver_inputs tl_in;
    static _Thread_local solver_outputs tl_out;
    solver_inputs *in = &tl_in;
    solver_outputs *out = &tl_out;
    solver_outputs_reset(out);
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
            reply_fail(resp, req, se.status ? se.status : 400, "invalid-input", field, se.detail);
        } else {
            solve_write(a, resp, s, ed, in, out);
        }
    }
    inputs_release(in);
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
        reply_fail(resp, req, 404, "unknown-solver", field, detail);
    }
    return s;
}

void handle_solve_post(app *a, const app_request *req, app_response *resp)
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
            reply_fail(resp, req, 400, "unknown-field", key, detail);
            json_decref(body);
            return;
        }
    }
    json_t *js = json_object_get(body, "solver"), *jc = json_object_get(body, "catalog");
    if (!json_is_string(js)) {
        reply_fail(resp, req, 400, js ? "invalid-input" : "missing-input", "solver",
             "solver must be a string naming a solver (e.g. \"single_node\"; GET /solvers lists them)");
    } else if (jc && !json_is_string(jc)) {
        reply_fail(resp, req, 400, "invalid-input", "catalog", "catalog must be a string: \"current\" or \"tutorial\"");
    } else {
        const solver_desc *s = find_solver(resp, req, json_string_value(js), "solver");
        const catalog_edition *ed = app_edition(a, jc ? json_string_value(jc) : NULL, &err);
        if (s && !ed)
            app_problem(resp, req, &err);
        else if (s)
            solve_and_reply(a, resp, req, s, ed, json_object_get(body, "inputs"));
    }
    json_decref(body);
}

void handle_solve_get(app *a, const app_request *req, app_response *resp, const char *name)
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
    solve_and_reply(a, resp, req, s, ed, inputs);
    json_decref(inputs);
}

/* --- /solvers ------------------------------------------------------------------------ */

void handle_solvers(app_response *resp, const app_request *req, const char *name)
{
    if (name) {
        const solver_desc *s = find_solver(resp, req, name, "name");
        if (s)
            reply_json(resp, solver_describe(s));
        return;
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < solver_count(); i++)
        json_array_append_new(arr, solver_describe(solver_at(i)));
    reply_json(resp, json_pack("{s:o}", "solvers", arr));
}
