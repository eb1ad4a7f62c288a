/* front.c - the front end of solver requests (contract in front.h). */
#include "server/front.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/edition.h"
#include "server/metrics.h"
#include "server/query.h"

int calibration_from_text(const char *text, calibration_mode *mode)
{
    for (int i = 0; text && CALIBRATION_MODES[i]; i++)
        if (!strcasecmp(text, CALIBRATION_MODES[i])) {
            *mode = (calibration_mode)i;
            return 0;
        }
    return -1;
}

int calibration_fail(api_error *err, const char *text)
{
    char allowed[120] = "";
    size_t used = 0;
    for (int i = 0; CALIBRATION_MODES[i] && used < sizeof allowed; i++)
        used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"",
                                 !i ? "" : CALIBRATION_MODES[i + 1] ? ", " : " or ", CALIBRATION_MODES[i]);
    if (!text)
        return api_fail(err, 400, "invalid-input", "calibration", "calibration must be a string: %s", allowed);
    return api_fail(err, 400, "invalid-input", "calibration", "calibration must be %s (any case), got '%.60s'",
                    allowed, text);
}

int front_find_solver(const char *name, solver_request *r, api_error *err)
{
    long i = solver_find(name);
    if (i >= 0) {
        r->index = (size_t)i;
        r->s = solver_at(r->index);
        return 0;
    }
    char known[300] = "";
    size_t used = 0;
    for (size_t k = 0; k < solver_count() && used < sizeof known; k++)
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "", solver_at(k)->name);
    return api_fail(err, 404, "unknown-solver", "solver",
                    "unknown solver '%.60s'; solvers are: %s (GET /solvers describes them)", name, known);
}

/* What every envelope reads: the solver, the catalog edition (its name; NULL:
 * the default) and the calibration (when given; NULL text: not a string). */
static int front_envelope(const app *a, const char *solver, const char *edition, bool calibration_given,
                          const char *calibration, solver_request *r, api_error *err)
{
    if (front_find_solver(solver, r, err) != 0)
        return -1;
    if (!(r->ed = app_edition(a, edition, err)))
        return -1;
    if (calibration_given && calibration_from_text(calibration, &r->calibration) != 0)
        return calibration_fail(err, calibration);
    return 0;
}

int front_read_body(const app *a, const json_t *body, solver_request *r, api_error *err)
{
    memset(r, 0, sizeof *r);
    r->calibration = a->cfg->calibration;
    /* one pass over the members instead of a hash look-up per name */
    const json_t *js = NULL, *jc = NULL, *jk = NULL, *ji = NULL;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)body, key, val) {
        if (!strcmp(key, "solver"))
            js = val;
        else if (!strcmp(key, "inputs"))
            ji = val;
        else if (!strcmp(key, "catalog"))
            jc = val;
        else if (!strcmp(key, "calibration"))
            jk = val;
    }
    if (!json_is_string(js))
        return api_fail(err, 400, js ? "invalid-input" : "missing-input", "solver",
                        "solver must be a string naming a solver (e.g. \"%s\"; GET /solvers lists them)",
                        solver_at(0)->name);
    if (jc && !json_is_string(jc))
        return api_fail(err, 400, "invalid-input", "catalog", "catalog must be a string: \"current\" or \"tutorial\"");
    if (front_envelope(a, json_string_value(js), json_string_value(jc), jk != NULL, json_string_value(jk), r, err) != 0)
        return -1;
    r->inputs = ji;
    return 0;
}

int front_read_scan(const app *a, const body_scan *b, input_given given[SOLVER_MAX_INPUTS], solver_request *r,
                    api_error *err)
{
    memset(r, 0, sizeof *r);
    r->calibration = a->cfg->calibration;
    if (front_envelope(a, b->solver, b->catalog, b->calibration != NULL, b->calibration, r, err) != 0)
        return -1;
    memset(given, 0, r->s->n_inputs * sizeof *given);
    for (size_t k = 0; k < b->n_inputs; k++) {
        int i = inputs_index(r->s, b->key[k], err);
        if (i < 0)
            return -1;
        /* null stands for "not given" unless the input is nullable, as in inputs_parse */
        if (b->value[k].t != GIVEN_NULL || r->s->inputs[i].nullable)
            given[i] = b->value[k];
    }
    r->given = given;
    return 0;
}

int front_read_query(const app *a, const char *solver, const app_request *req, solver_request *r, api_error *err)
{
    memset(r, 0, sizeof *r);
    r->calibration = a->cfg->calibration;
    if (front_find_solver(solver, r, err) != 0)
        return -1;
    if (!(r->ed = app_edition(a, query_get(req, "catalog"), err)))
        return -1;
    const char *k = query_get(req, "calibration");
    if (k && calibration_from_text(k, &r->calibration) != 0)
        return calibration_fail(err, k);
    return 0;
}

int front_inputs(const solver_request *r, solver_inputs *in, bool check, api_error *err)
{
    in->calibration = r->calibration;
    int rc = r->given ? inputs_parse_given(r->s, r->given, r->ed, in, err) : inputs_parse(r->s, r->inputs, r->ed, in, err);
    if (rc != 0)
        return -1;
    return check ? inputs_check(r->s, in, err) : 0;
}

int front_inputs_query(const solver_request *r, const app_request *req, const char *const *reserved,
                       solver_inputs *in, api_error *err)
{
    in->calibration = r->calibration;
    if (query_parse_inputs(r->s, req, reserved, r->ed, in, err) != 0)
        return -1;
    return inputs_check(r->s, in, err);
}

int front_run(const solver_request *r, const solver_inputs *in, solver_outputs *out, api_error *err)
{
    solver_error se = {0};
    solver_outputs_reset(out);
    metrics_solve((unsigned)r->index);
    if (r->s->run(in, out, &se) != 0)
        return api_solver_fail(err, &se, "");
    return 0;
}
