/* contract.c - the per-solver parts of the OpenAPI document, generated from
 * the solver descriptors (contract in contract.h).
 *
 * The source is each solver's GET /solvers description (solver_describe), so
 * the contract and /solvers cannot disagree: units, defaults and bounds come
 * already in the declared unit of each input, and each <solver>_inputs
 * schema's examples are the descriptor's worked example (example_json). No
 * solver is named here. */
#include "server/contract.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/embedded.h"
#include "core/solver.h"
#include "server/inputs.h"
#include "server/solver_describe.h"
#include "server/yaml2json.h"

#define SCHEMA_REF "#/components/schemas/"

static json_t *ref_to(const char *schema)
{
    char buf[160];
    snprintf(buf, sizeof buf, SCHEMA_REF "%s", schema);
    return json_pack("{s:s}", "$ref", buf);
}

/* A JSON type, or [type, "null"] when null is allowed too. */
static json_t *schema_type(const char *t, bool nullable)
{
    return nullable ? json_pack("[s,s]", t, "null") : json_string(t);
}

static void copy_member(json_t *to, const char *to_key, const json_t *from, const char *from_key)
{
    json_t *v = json_object_get(from, from_key);
    if (v)
        json_object_set(to, to_key, v);
}

/* What a catalog id names, for descriptions: "/catalog/fabrics or /catalog/nodes". */
static void kinds_text(const json_t *kinds, char *buf, size_t n)
{
    size_t used = 0, i;
    json_t *k;
    buf[0] = '\0';
    json_array_foreach(kinds, i, k) {
        int w = snprintf(buf + used, n - used, "%s/catalog/%s", i == 0 ? "" : i + 1 == json_array_size(kinds) ? " or " : ", ",
                         json_string_value(k));
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
}

/* A pattern that matches exactly the values, in any case ("fp16": "^([Ff][Pp]16)$"):
 * enumerated values are case-insensitive everywhere (the API's one rule), which
 * JSON Schema's enum cannot say. Any other character is taken literally
 * ("[.]"), in ECMA-262 and POSIX regular expressions alike. */
static json_t *any_case_pattern(const json_t *values)
{
    char buf[1024];
    size_t used = 0;
    size_t i;
    json_t *v;
    buf[used++] = '^';
    buf[used++] = '(';
    json_array_foreach(values, i, v) {
        if (i && used < sizeof buf)
            buf[used++] = '|';
        for (const char *c = json_string_value(v); *c && used + 5 < sizeof buf; c++) {
            if (isalpha((unsigned char)*c))
                used += (size_t)snprintf(buf + used, sizeof buf - used, "[%c%c]", toupper((unsigned char)*c),
                                         tolower((unsigned char)*c));
            else if (isdigit((unsigned char)*c) || *c == '_')
                buf[used++] = *c;
            else
                used += (size_t)snprintf(buf + used, sizeof buf - used, "[%c]", *c);
        }
    }
    snprintf(buf + used, sizeof buf - used, ")$");
    return json_string(buf);
}

static json_t *input_schema(const json_t *in);

/* A rows input: an array (maxItems: its cap) of objects of exactly its fields. */
static json_t *rows_schema(const json_t *in, bool nullable)
{
    json_t *props = json_object(), *req = json_array();
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(in, "fields"), i, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        json_object_set_new(props, name, input_schema(f));
        json_array_append_new(req, json_string(name));
    }
    json_t *item = json_pack("{s:s,s:b,s:o,s:o}", "type", "object", "additionalProperties", 0, "required", req,
                             "properties", props);
    json_t *p = json_pack("{s:o,s:o}", "type", schema_type("array", nullable), "items", item);
    copy_member(p, "maxItems", in, "maximum_rows");
    return p;
}

/* The schema of one input, from its /solvers description. */
static json_t *input_schema(const json_t *in)
{
    const char *t = json_string_value(json_object_get(in, "type"));
    bool nullable = json_is_true(json_object_get(in, "nullable"));
    const json_t *kinds = json_object_get(in, "catalog_kinds");
    json_t *p = json_object();
    char buf[400];
    if (!strcmp(t, "number") || !strcmp(t, "integer") || !strcmp(t, "boolean")) {
        json_object_set_new(p, "type", schema_type(t, nullable));
    } else if (!strcmp(t, "enum")) {
        json_object_set_new(p, "type", schema_type("string", nullable));
        json_object_set_new(p, "pattern", any_case_pattern(json_object_get(in, "values")));
        json_object_set_new(p, "x-enum", json_deep_copy(json_object_get(in, "values")));
    } else if (!strcmp(t, "quantity")) {
        json_object_set_new(p, "type", nullable ? json_pack("[s,s,s]", "number", "string", "null")
                                                : json_pack("[s,s]", "number", "string"));
        copy_member(p, "x-unit", in, "unit");
        copy_member(p, "x-dimension", in, "dimension");
    } else if (!strcmp(t, "list")) {
        kinds_text(kinds, buf, sizeof buf);
        json_object_set_new(p, "type", schema_type("array", nullable));
        char d[480];
        snprintf(d, sizeof d, "An id of %s.", buf);
        json_object_set_new(p, "items", json_pack("{s:s,s:s}", "type", "string", "description", d));
    } else if (!strcmp(t, "rows")) {
        json_decref(p);
        p = rows_schema(in, nullable);
    } else { /* a catalog record of the kinds in x-catalog-kinds: an id or an inline object */
        json_object_set_new(p, "$ref", json_string(nullable ? SCHEMA_REF "NullableCatalogRef" : SCHEMA_REF "CatalogRef"));
    }
    json_object_set_new(p, "x-mlsysd-type", json_string(t));
    if (kinds)
        json_object_set_new(p, "x-catalog-kinds", json_deep_copy(kinds));
    copy_member(p, "default", in, "default");
    copy_member(p, "minimum", in, "minimum");
    copy_member(p, "maximum", in, "maximum");
    copy_member(p, "exclusiveMinimum", in, "exclusiveMinimum");
    copy_member(p, "x-maximum-magnitude", in, "maximum_magnitude");
    const char *desc = json_string_value(json_object_get(in, "description"));
    if (kinds && strcmp(t, "list")) {
        kinds_text(kinds, buf, sizeof buf);
        char d[900];
        snprintf(d, sizeof d, "%s. An id of %s (any case), or an inline object.", desc, buf);
        json_object_set_new(p, "description", json_string(d));
    } else if (!strcmp(t, "quantity")) {
        snprintf(buf, sizeof buf, "%s. A number in %s, or a string with a unit of dimension %s.", desc,
                 json_string_value(json_object_get(in, "unit")), json_string_value(json_object_get(in, "dimension")));
        json_object_set_new(p, "description", json_string(buf));
    } else if (json_is_true(json_object_get(in, "default_all"))) {
        kinds_text(kinds, buf, sizeof buf);
        char d[900];
        snprintf(d, sizeof d, "%s. Absent: every entry of %s in the request's catalog edition.", desc, buf);
        json_object_set_new(p, "description", json_string(d));
    } else if (!strcmp(t, "enum")) {
        size_t used = (size_t)snprintf(buf, sizeof buf, "%s. One of ", desc), i;
        json_t *v;
        json_array_foreach(json_object_get(in, "values"), i, v)
            if (used < sizeof buf)
                used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "", json_string_value(v));
        if (used < sizeof buf)
            snprintf(buf + used, sizeof buf - used, " (any case; x-enum lists them).");
        json_object_set_new(p, "description", json_string(buf));
    } else {
        json_object_set_new(p, "description", json_string(desc));
    }
    return p;
}

static json_t *inputs_schema(const json_t *s)
{
    const char *n = json_string_value(json_object_get(s, "name"));
    json_t *props = json_object(), *req = json_array(), *rules = json_array();
    size_t i;
    json_t *in;
    json_array_foreach(json_object_get(s, "inputs"), i, in) {
        const char *name = json_string_value(json_object_get(in, "name"));
        json_object_set_new(props, name, input_schema(in));
        if (json_is_true(json_object_get(in, "required")))
            json_array_append_new(req, json_string(name));
    }
    char d[2048];
    int used = snprintf(d, sizeof d, "Inputs of %s: %s. Matches GET /solvers/%s.", n,
                        json_string_value(json_object_get(s, "title")), n);
    json_t *c;
    json_array_foreach(json_object_get(s, "constraints"), i, c) {
        json_array_append(rules, c);
        if (used > 0 && (size_t)used < sizeof d)
            used += snprintf(d + used, sizeof d - (size_t)used, "%s%s", i ? "; " : " Constraints between inputs: ",
                             json_string_value(json_object_get(c, "rule")));
    }
    json_t *o = json_pack("{s:s,s:s,s:b,s:o,s:o}", "type", "object", "description", d, "additionalProperties", 0,
                          "required", req, "properties", props);
    if (json_array_size(rules))
        json_object_set_new(o, "x-constraints", rules);
    else
        json_decref(rules);
    /* the descriptor's worked example (GET /solvers/{name} "example") */
    const json_t *ex = json_object_get(s, "example");
    if (ex)
        json_object_set_new(o, "examples", json_pack("[O]", ex));
    return o;
}

static json_t *output_schema(const json_t *out)
{
    const char *t = json_string_value(json_object_get(out, "type"));
    const char *unit = json_string_value(json_object_get(out, "unit"));
    bool nullable = json_is_true(json_object_get(out, "nullable"));
    /* non-finite numbers are reported as null, with a warning */
    bool numeric = !strcmp(t, "number") || !strcmp(t, "integer");
    json_t *p = json_pack("{s:o,s:s}", "type", schema_type(t, nullable || numeric), "x-mlsysd-type", t);
    if (unit && *unit)
        json_object_set_new(p, "x-unit", json_string(unit));
    if (json_is_true(json_object_get(out, "categorical")))
        json_object_set_new(p, "x-categorical", json_true());
    if (nullable)
        json_object_set_new(p, "x-nullable", json_true());
    char d[600];
    const char *desc = json_string_value(json_object_get(out, "description"));
    if (unit && *unit)
        snprintf(d, sizeof d, "%s (%s)", desc, unit);
    else
        snprintf(d, sizeof d, "%s", desc);
    json_object_set_new(p, "description", json_string(d));
    return p;
}

static json_t *object_schema(const char *description)
{
    json_t *o = json_pack("{s:s,s:b,s:[],s:{}}", "type", "object", "additionalProperties", 0, "required", "properties");
    if (description)
        json_object_set_new(o, "description", json_string(description));
    return o;
}

static void add_property(json_t *obj, const char *name, json_t *schema)
{
    json_array_append_new(json_object_get(obj, "required"), json_string(name));
    json_object_set_new(json_object_get(obj, "properties"), name, schema);
}

/* Outputs by name; "best_config.tp" is member tp of the object best_config. */
static json_t *result_schema(const json_t *s)
{
    char d[300];
    snprintf(d, sizeof d,
             "Outputs of %s (the result object of /solve; the columns of /sweep, a record's members as dotted "
             "columns). Number outputs are null when not finite, with a warning.",
             json_string_value(json_object_get(s, "name")));
    json_t *o = object_schema(d);
    size_t i;
    json_t *out;
    json_array_foreach(json_object_get(s, "outputs"), i, out) {
        const char *name = json_string_value(json_object_get(out, "name"));
        const char *dot = strchr(name, '.');
        if (!dot) {
            add_property(o, name, output_schema(out));
            continue;
        }
        char rec[128];
        snprintf(rec, sizeof rec, "%.*s", (int)(dot - name), name);
        json_t *r = json_object_get(json_object_get(o, "properties"), rec);
        if (!r) {
            r = object_schema(NULL);
            json_object_set_new(r, "x-mlsysd-type", json_string("record"));
            add_property(o, rec, r);
        }
        add_property(r, dot + 1, output_schema(out));
    }
    const json_t *table = json_object_get(s, "table");
    if (table) {
        json_t *row = object_schema(NULL);
        json_array_foreach(json_object_get(table, "columns"), i, out)
            add_property(row, json_string_value(json_object_get(out, "name")), output_schema(out));
        add_property(o, json_string_value(json_object_get(table, "name")),
                     json_pack("{s:s,s:s,s:s,s:o}", "type", "array", "x-mlsysd-type", "table", "description",
                               json_string_value(json_object_get(table, "description")), "items", row));
    }
    return o;
}

/* A /solve answer of this solver: the common shape, narrowed. */
static json_t *response_schema(const char *n)
{
    char in[128], res[128];
    snprintf(in, sizeof in, "%s_inputs", n);
    snprintf(res, sizeof res, "%s_result", n);
    return json_pack("{s:[o,{s:s,s:{s:{s:s,s:s},s:o,s:o}}]}", "allOf", ref_to("SolveResponseCommon"), "type", "object",
                     "properties", "solver", "type", "string", "const", n, "inputs", ref_to(in), "result",
                     ref_to(res));
}

static int put_new(json_t *schemas, const char *key, json_t *v, char *msg, size_t msglen)
{
    if (json_object_get(schemas, key)) {
        json_decref(v);
        snprintf(msg, msglen, "openapi.yaml: components/schemas/%s is generated from the solver descriptors; "
                              "remove it from the file", key);
        return -1;
    }
    json_object_set_new(schemas, key, v);
    return 0;
}

json_t *contract_build(const char *yaml, size_t len, char *msg, size_t msglen)
{
    char err[200];
    json_t *doc = yaml_to_json(yaml, len, err, sizeof err);
    if (!doc) {
        snprintf(msg, msglen, "embedded openapi.yaml: %s", err);
        return NULL;
    }
    json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
    if (!json_is_object(schemas) || !json_object_get(schemas, "SolveResponseCommon") ||
        !json_object_get(schemas, "CatalogRef") || !json_object_get(schemas, "NullableCatalogRef")) {
        snprintf(msg, msglen, "embedded openapi.yaml: components/schemas must hold SolveResponseCommon, CatalogRef and "
                              "NullableCatalogRef (the generated schemas refer to them)");
        json_decref(doc);
        return NULL;
    }
    json_t *inputs_union = json_array(), *responses = json_array(), *mapping = json_object();
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < solver_count(); i++) {
        json_t *s = solver_describe(solver_at(i));
        const char *n = json_string_value(json_object_get(s, "name"));
        char key[128];
        snprintf(key, sizeof key, "%s_inputs", n);
        rc |= put_new(schemas, key, inputs_schema(s), msg, msglen);
        json_array_append_new(inputs_union, ref_to(key));
        snprintf(key, sizeof key, "%s_result", n);
        rc |= put_new(schemas, key, result_schema(s), msg, msglen);
        snprintf(key, sizeof key, "%s_response", n);
        rc |= put_new(schemas, key, response_schema(n), msg, msglen);
        json_array_append_new(responses, ref_to(key));
        char ref[160];
        snprintf(ref, sizeof ref, SCHEMA_REF "%s", key);
        json_object_set_new(mapping, n, json_string(ref));
        json_decref(s);
    }
    rc |= put_new(schemas, "SolverInputs",
                  json_pack("{s:s,s:o}", "description",
                            "The inputs of the solver named in `solver`: one of the <solver>_inputs schemas.", "anyOf",
                            inputs_union),
                  msg, msglen);
    rc |= put_new(schemas, "SolveResponse",
                  json_pack("{s:s,s:o,s:{s:s,s:o}}", "description",
                            "A /solve answer: one of the <solver>_response schemas, told apart by `solver` (the "
                            "canonical name of the solver that ran).",
                            "oneOf", responses, "discriminator", "propertyName", "solver", "mapping", mapping),
                  msg, msglen);
    if (rc != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

struct contract_cache {
    pthread_mutex_t lock;
    _Atomic(json_t *) doc; /* NULL until built (release / acquire) */
};

struct contract_cache *contract_cache_new(void)
{
    struct contract_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    atomic_init(&c->doc, NULL);
    return c;
}

void contract_cache_free(struct contract_cache *c)
{
    if (!c)
        return;
    json_decref(atomic_load(&c->doc));
    pthread_mutex_destroy(&c->lock);
    free(c);
}

const json_t *contract_get(struct contract_cache *c, char *msg, size_t msglen)
{
    if (!c) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    json_t *doc = atomic_load_explicit(&c->doc, memory_order_acquire);
    if (doc)
        return doc;
    pthread_mutex_lock(&c->lock);
    doc = atomic_load_explicit(&c->doc, memory_order_relaxed);
    if (!doc) {
        const embedded_file *f = embedded_find("openapi.yaml");
        if (!f)
            snprintf(msg, msglen, "openapi.yaml is not embedded");
        else if ((doc = contract_build((const char *)f->data, f->len, msg, msglen)))
            atomic_store_explicit(&c->doc, doc, memory_order_release);
    }
    pthread_mutex_unlock(&c->lock);
    return doc;
}
