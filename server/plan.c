/* plan.c - mlsysd's plans (contract in plan.h): the text read into an
 * object, the plan checked whole (version, name, defaults, scenario names)
 * before anything runs, its scenarios run in order (plan_scenario.c) and the
 * answer summed up: the worst status of any scenario, the exit code, counts.
 * An mlsysim mlsys.yaml goes to plan_mlsysim.c and is summed up the same
 * way. Also the plan's JSON Schema, from the contract. */
#include "server/plan.h"

#include <stdio.h>
#include <string.h>

#include "server/contract.h"
#include "server/edition.h"
#include "server/plan_internal.h"
#include "server/yaml2json.h"

#define PLAN_MAX_SCENARIOS 64

int plan_exit_code(plan_status st) { return st == PLAN_PASS ? 0 : st == PLAN_FAIL ? 3 : 2; }

/* --- reading -------------------------------------------------------------------------------- */

json_t *plan_read(const char *text, size_t len, bool yaml, api_error *err)
{
    json_t *j;
    if (yaml) {
        char msg[300] = "";
        j = yaml_to_json(text, len, msg, sizeof msg);
        if (!j) {
            api_fail(err, 400, "invalid-plan", "", "the plan is not valid YAML: %s", msg);
            return NULL;
        }
    } else {
        json_error_t jerr;
        j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!j) {
            api_fail(err, 400, "invalid-plan", "", "the plan is not valid JSON: line %d, column %d: %s", jerr.line,
                     jerr.column, jerr.text);
            return NULL;
        }
    }
    if (!json_is_object(j)) {
        json_decref(j);
        api_fail(err, 400, "invalid-plan", "", "a plan is an object (version, name, scenarios)");
        return NULL;
    }
    return j;
}

/* --- the plan ------------------------------------------------------------------------------- */

static int check_version(const json_t *plan, api_error *err)
{
    const json_t *v = json_object_get(plan, "version");
    if (!v)
        return api_fail(err, 400, "missing-input", "version", "a plan needs version: \"1\"");
    bool one = (json_is_string(v) && !strcmp(json_string_value(v), "1")) ||
               (json_is_integer(v) && json_integer_value(v) == 1);
    if (!one)
        return api_fail(err, 400, "invalid-input", "version", "this mlsysd reads plans of version \"1\"");
    return 0;
}

static int check_defaults(app *a, const json_t *d, api_error *err)
{
    if (!d)
        return 0;
    if (!json_is_object(d))
        return api_fail(err, 400, "invalid-input", "defaults",
                        "defaults is an object: solver, catalog, calibration and inputs shared by the scenarios");
    static const char *const KEYS[] = {"solver", "catalog", "calibration", "inputs", NULL};
    if (plan_known_keys(d, KEYS, "defaults", err) != 0)
        return -1;
    const json_t *jc = json_object_get(d, "catalog"), *jk = json_object_get(d, "calibration"),
                 *js = json_object_get(d, "solver"), *ji = json_object_get(d, "inputs");
    if (jc && !json_is_string(jc))
        return api_fail(err, 400, "invalid-input", "defaults.catalog", "catalog must be a string naming an edition");
    if (jc && !app_edition(a, json_string_value(jc), err))
        return plan_prefix_field(err, "defaults");
    calibration_mode m;
    if (jk && calibration_from_text(json_string_value(jk), &m) != 0) {
        calibration_fail(err, json_string_value(jk));
        return plan_prefix_field(err, "defaults");
    }
    solver_request r;
    if (js && (!json_is_string(js) || front_find_solver(json_string_value(js), &r, err) != 0)) {
        if (!json_is_string(js))
            api_fail(err, 400, "invalid-input", "solver", "solver must be a string naming a solver");
        return plan_prefix_field(err, "defaults");
    }
    if (ji && !json_is_object(ji))
        return api_fail(err, 400, "invalid-input", "defaults.inputs", "inputs is an object of solver inputs");
    return 0;
}

static int check_names(const json_t *scs, api_error *err)
{
    for (size_t i = 0; i < json_array_size(scs); i++) {
        const json_t *sc = json_array_get(scs, i);
        char field[64];
        snprintf(field, sizeof field, "scenarios[%zu]", i);
        if (!json_is_object(sc))
            return api_fail(err, 400, "invalid-input", field,
                            "a scenario is an object: name, solver, inputs, assert (and axes or objective)");
        const char *name = json_string_value(json_object_get(sc, "name"));
        snprintf(field, sizeof field, "scenarios[%zu].name", i);
        if (!name || !*name)
            return api_fail(err, 400, json_object_get(sc, "name") ? "invalid-input" : "missing-input", field,
                            "every scenario has a name (a non-empty string)");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(name, json_string_value(json_object_get(json_array_get(scs, k), "name"))))
                return api_fail(err, 400, "invalid-input", field, "scenario name '%.80s' is used twice", name);
    }
    return 0;
}

static json_t *answer_head(const json_t *plan, const char *format)
{
    const json_t *name = json_object_get(plan, "name");
    return json_pack("{s:O, s:s}", "plan", json_is_string(name) ? name : json_null(), "format", format);
}

static void answer_tail(json_t *ans, json_t *scenarios, plan_status st, int n_assertions, int n_failed)
{
    size_t n = json_array_size(scenarios), by[3] = {0, 0, 0}, i;
    json_t *sc;
    json_array_foreach(scenarios, i, sc) {
        const char *s = json_string_value(json_object_get(sc, "status"));
        for (int k = 0; k < 3; k++)
            if (s && !strcmp(s, PLAN_STATUS_NAMES[k]))
                by[k]++;
    }
    json_object_set_new(ans, "status", json_string(PLAN_STATUS_NAMES[st]));
    json_object_set_new(ans, "exit_code", json_integer(plan_exit_code(st)));
    json_object_set_new(ans, "summary",
                        json_pack("{s:I, s:I, s:I, s:I, s:i, s:i}", "scenarios", (json_int_t)n, "passed",
                                  (json_int_t)by[PLAN_PASS], "failed", (json_int_t)by[PLAN_FAIL], "infeasible",
                                  (json_int_t)by[PLAN_INFEASIBLE], "assertions", n_assertions, "assertions_failed",
                                  n_failed));
    json_object_set_new(ans, "scenarios", scenarios);
}

static plan_status worse(plan_status a, plan_status b)
{
    if (a == PLAN_INFEASIBLE || b == PLAN_INFEASIBLE)
        return PLAN_INFEASIBLE;
    return a == PLAN_FAIL || b == PLAN_FAIL ? PLAN_FAIL : PLAN_PASS;
}

json_t *plan_evaluate(app *a, const json_t *plan, api_error *err)
{
    if (plan_is_mlsysim(plan)) {
        plan_status st;
        json_t *sc = plan_mlsysim_evaluate(a, plan, &st, err);
        if (!sc)
            return NULL;
        json_t *ans = answer_head(plan, "mlsysim");
        const json_t *asserts = json_object_get(sc, "assertions");
        int failed = 0;
        size_t i;
        json_t *x;
        json_array_foreach(asserts, i, x) failed += !json_is_true(json_object_get(x, "passed"));
        json_t *list = json_array();
        json_array_append_new(list, sc);
        answer_tail(ans, list, st, (int)json_array_size(asserts), failed);
        return ans;
    }
    static const char *const KEYS[] = {"version", "name", "description", "defaults", "scenarios", NULL};
    if (check_version(plan, err) != 0 || plan_known_keys(plan, KEYS, "", err) != 0)
        return NULL;
    const json_t *name = json_object_get(plan, "name");
    if (!json_is_string(name) || !*json_string_value(name)) {
        api_fail(err, 400, name ? "invalid-input" : "missing-input", "name", "a plan has a name (a non-empty string)");
        return NULL;
    }
    const json_t *scs = json_object_get(plan, "scenarios");
    if (!json_is_array(scs) || json_array_size(scs) == 0 || json_array_size(scs) > PLAN_MAX_SCENARIOS) {
        api_fail(err, 400, scs ? "invalid-input" : "missing-input", "scenarios",
                 "scenarios is an array of 1 to %d scenarios (or write mlsysim's form: workload, hardware, "
                 "constraints)",
                 PLAN_MAX_SCENARIOS);
        return NULL;
    }
    plan_ctx p = {.a = a, .defaults = json_object_get(plan, "defaults")};
    if (check_defaults(a, p.defaults, err) != 0 || check_names(scs, err) != 0)
        return NULL;
    json_t *list = json_array();
    plan_status st = PLAN_PASS;
    for (size_t i = 0; i < json_array_size(scs); i++) {
        plan_status one;
        json_t *entry = plan_run_scenario(&p, json_array_get(scs, i), i, &one, err);
        if (!entry) {
            json_decref(list);
            return NULL;
        }
        json_array_append_new(list, entry);
        st = worse(st, one);
    }
    json_t *ans = answer_head(plan, "mlsysd");
    answer_tail(ans, list, st, p.n_assertions, p.n_failed);
    return ans;
}
/* --- the schema ----------------------------------------------------------------------------- */

/* v with every "#/components/schemas/X" reference replaced by a copy of X
 * (the plan's schemas are not recursive; depth bounds a mistake). */
static json_t *inline_refs(const json_t *schemas, const json_t *v, int depth)
{
    if (depth > 16)
        return json_object();
    if (json_is_array(v)) {
        json_t *arr = json_array();
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) json_array_append_new(arr, inline_refs(schemas, x, depth + 1));
        return arr;
    }
    if (!json_is_object(v))
        return json_deep_copy(v);
    const char *ref = json_string_value(json_object_get(v, "$ref"));
    static const char PREFIX[] = "#/components/schemas/";
    if (ref && !strncmp(ref, PREFIX, sizeof PREFIX - 1))
        return inline_refs(schemas, json_object_get(schemas, ref + sizeof PREFIX - 1), depth + 1);
    json_t *o = json_object();
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) json_object_set_new(o, k, inline_refs(schemas, x, depth + 1));
    return o;
}

json_t *plan_schema(const app *a)
{
    char msg[300];
    const json_t *schemas = json_object_get(json_object_get(contract_get(a->contract, msg, sizeof msg), "components"),
                                            "schemas");
    const json_t *plan = json_object_get(schemas, "Plan");
    if (!plan)
        return NULL;
    json_t *s = inline_refs(schemas, plan, 0);
    json_t *out = json_pack("{s:s, s:s}", "$schema", "https://json-schema.org/draft/2020-12/schema", "$id",
                            "https://mlsysd.dev/schemas/plan.json");
    json_object_update(out, s);
    json_decref(s);
    return out;
}
