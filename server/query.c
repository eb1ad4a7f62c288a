/* query.c - query string arguments: lookup, and parsing them straight into a
 * solver's input values (GET /solve, and the fixed inputs of GET /sweep). */
#include "server/query.h"

#include <stdbool.h>
#include <string.h>

const char *query_get(const app_request *req, const char *key)
{
    for (size_t i = 0; i < req->n_query; i++)
        if (!strcmp(req->query[i].key, key))
            return req->query[i].value ? req->query[i].value : "";
    return NULL;
}

json_t *member_from_text(const char *v)
{
    json_t *j = json_loads(v, JSON_DECODE_ANY, NULL);
    if (j && (json_is_number(j) || json_is_boolean(j) || json_is_null(j)))
        return j;
    json_decref(j);
    return json_string(v);
}

/* An argument's field in errors, as POST /solve names it: "inputs.%.140s" (field: 148 bytes
 * or more), without snprintf; composed only for an error. */
static const char *arg_field(char *field, const char *k)
{
    size_t kl = strnlen(k, 140);
    memcpy(field, "inputs.", 7);
    memcpy(field + 7, k, kl);
    field[7 + kl] = '\0';
    return field;
}

int query_collect_inputs(const solver_desc *s, const app_request *req, const char *const *reserved,
                         const char *text[SOLVER_MAX_INPUTS], json_t *record[SOLVER_MAX_INPUTS], api_error *err)
{
    if (req->query_overflow)
        return api_fail(err, 400, "invalid-input", "", "too many query arguments (at most %d)", APP_MAX_QUERY);
    /* Plain arguments are parsed from their text; dotted ones build an inline
     * record ({"base": id, member: value}), which the catalog resolves. */
    int rc = 0;
    for (size_t i = 0; i < req->n_query && rc == 0; i++) {
        const char *k = req->query[i].key, *v = req->query[i].value ? req->query[i].value : "";
        bool skip = false;
        for (const char *const *r = reserved; *r; r++)
            if (!strcmp(k, *r))
                skip = true;
        if (skip)
            continue;
        char name[128], field[160];
        const char *dot = strchr(k, '.');
        size_t n = dot ? (size_t)(dot - k) : strlen(k);
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, k, n);
        name[n] = '\0';
        int idx = solver_input_index(s, name);
        if (idx < 0) {
            rc = api_fail(err, 400, "unknown-input", arg_field(field, k),
                          "unknown input '%.100s' for solver %s (GET /solvers/%s lists its inputs)", name, s->name,
                          s->name);
            break;
        }
        const input_desc *d = &s->inputs[idx];
        if (dot) {
            if (d->kind != IN_REF) {
                rc = api_fail(err, 400, "unknown-input", arg_field(field, k),
                              "'%.100s': only catalog record inputs (model, hardware, fleet, ...) take dotted fields", k);
                break;
            }
            if (!record[idx]) {
                record[idx] = text[idx] ? json_pack("{s:s}", "base", text[idx]) : json_object();
                text[idx] = NULL;
            }
            if (json_object_get(record[idx], dot + 1)) {
                rc = api_fail(err, 400, "invalid-input", arg_field(field, k), "'%.100s' is given twice", k);
                break;
            }
            json_object_set_new(record[idx], dot + 1, member_from_text(v));
        } else if (record[idx] && !json_object_get(record[idx], "base")) {
            json_object_set_new(record[idx], "base", json_string(v));
        } else if (record[idx] || text[idx]) {
            rc = api_fail(err, 400, "invalid-input", arg_field(field, k), "'%.100s' is given twice", k);
            break;
        } else {
            text[idx] = v;
        }
    }
    return rc;
}

int query_parse_inputs(const solver_desc *s, const app_request *req, const char *const *reserved,
                       const catalog_edition *ed, solver_inputs *in, api_error *err)
{
    in->owned = NULL;
    const char *text[SOLVER_MAX_INPUTS] = {NULL};
    json_t *record[SOLVER_MAX_INPUTS] = {NULL};
    int rc = query_collect_inputs(s, req, reserved, text, record, err);
    if (rc == 0) {
        input_given given[SOLVER_MAX_INPUTS];
        for (size_t i = 0; i < s->n_inputs; i++)
            given[i] = input_given_query(record[i], text[i]);
        rc = inputs_parse_given(s, given, ed, in, err);
    }
    for (size_t i = 0; i < SOLVER_MAX_INPUTS; i++)
        json_decref(record[i]);
    return rc;
}
