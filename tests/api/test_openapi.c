/* test_openapi.c - the served contract must describe exactly what the server does.
 *
 * - the document served is the file in the repository plus the parts the
 *   daemon generates from the solver descriptors (server/contract.c), the
 *   same as JSON and as YAML, and valid enough for tools: every $ref
 *   resolves, operation ids are unique, info.version is the running version;
 * - its paths are the router's routes (the pattern of every row of the route table), and
 *   a method outside a path's operations is a 405 whose Allow lists them;
 * - each solver's generated <name>_inputs / <name>_result / <name>_response
 *   schemas agree with the solver's descriptor from GET /solvers (names,
 *   types, units, defaults, bounds, required, nullable, catalog kinds,
 *   records, categorical), checked here independently of the generator; the
 *   unions list every solver and SolveResponse is discriminated by solver;
 * - every example is sent to the live daemon: status, content type and body
 *   are checked against the schemas with a small JSON-schema validator
 *   (type incl. arrays for nullable, required, properties,
 *   additionalProperties, items, enum, const, $ref, oneOf/anyOf/allOf,
 *   numeric bounds, pattern, minItems/maxItems);
 * - yaml_to_json (which reads openapi.yaml) on the YAML features the file
 *   uses, and its refusal of duplicate keys. */
#include <criterion/criterion.h>

#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness.h"
#include "schema.h"
#include "server/app.h"
#include "server/jsonw.h"
#include "server/metrics.h"
#include "server/strbuf.h"
#include "server/yaml2json.h"

static const char *const METHODS[] = {"get", "post", "options"};
#define N_METHODS 3

static json_t *spec_doc(void) { return api_get_ok("/openapi.json"); }

/* The validator itself: a validator that accepts everything would make
 * every test below pass. */
Test(openapi, validator_rejects_what_it_should)
{
    json_t *doc = json_loads("{\"components\":{\"schemas\":{\"P\":{\"type\":\"object\",\"required\":[\"a\"],"
                             "\"additionalProperties\":false,\"properties\":{\"a\":{\"type\":[\"integer\",\"null\"]},"
                             "\"b\":{\"enum\":[\"x\",\"y\"]},\"c\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                             "\"d\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"object\"}]},"
                             "\"e\":{\"anyOf\":[{\"const\":1},{\"const\":2}]},\"f\":{\"type\":\"number\",\"minimum\":0,"
                             "\"exclusiveMinimum\":-1},\"g\":{\"type\":\"string\",\"pattern\":\"^h[a-z]+$\"}}}}}}",
                             0, NULL);
    cr_assert(doc);
    json_t *ref = json_pack("{s:s}", "$ref", "#/components/schemas/P");
    static const char *const good[] = {"{\"a\":1}", "{\"a\":null}", "{\"a\":2.0,\"b\":\"y\",\"c\":[\"s\"]}",
                                       "{\"a\":1,\"d\":\"s\",\"e\":2,\"f\":0,\"g\":\"hello\"}", "{\"a\":1,\"d\":{}}", NULL};
    static const char *const bad[] = {"{}",           "{\"a\":1.5}",        "{\"a\":\"1\"}", "{\"a\":1,\"z\":0}",
                                      "{\"a\":1,\"b\":\"q\"}", "{\"a\":1,\"c\":[1]}", "{\"a\":1,\"d\":3}",
                                      "{\"a\":1,\"e\":3}",     "{\"a\":1,\"f\":-0.5}", "{\"a\":1,\"g\":\"Hello\"}",
                                      "[]",           NULL};
    char err[1024];
    for (int i = 0; good[i]; i++) {
        json_t *v = json_loads(good[i], 0, NULL);
        cr_expect(check_schema(doc, ref, v, err, sizeof err), "%s rejected: %s", good[i], err);
        json_decref(v);
    }
    for (int i = 0; bad[i]; i++) {
        json_t *v = json_loads(bad[i], 0, NULL);
        cr_expect_not(check_schema(doc, ref, v, err, sizeof err), "%s accepted", bad[i]);
        json_decref(v);
    }
    json_decref(ref);
    json_decref(doc);
}

/* ---- the document ---------------------------------------------------------------------------------- */

/* The names the daemon adds to components/schemas: per solver and the two unions. */
static bool generated_schema(const json_t *solvers, const char *key)
{
    if (!strcmp(key, "SolverInputs") || !strcmp(key, "SolveResponse"))
        return true;
    static const char *const SUFFIX[] = {"_inputs", "_result", "_response"};
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(solvers, "solvers"), i, s) {
        const char *n = json_string_value(json_object_get(s, "name"));
        size_t nl = strlen(n);
        for (int k = 0; k < 3; k++)
            if (!strncmp(key, n, nl) && !strcmp(key + nl, SUFFIX[k]))
                return true;
    }
    return false;
}

Test(openapi, served_document_is_the_repository_file_plus_the_generated_parts)
{
    char path[600];
    snprintf(path, sizeof path, "%s/openapi.yaml", MLSYSD_SOURCE_DIR);
    size_t len;
    char *file = read_file(path, &len);
    cr_assert(file, "cannot read %s", path);
    char err[256];
    json_t *from_file = yaml_to_json(file, len, err, sizeof err);
    cr_assert(from_file, "openapi.yaml: %s", err);
    json_t *served = spec_doc();
    json_t *solvers = api_get_ok("/solvers");
    /* everything hand-written is served unchanged; components/schemas gains exactly
     * the generated schemas (the file holds none of them) */
    json_t *file_schemas = json_object_get(json_object_get(from_file, "components"), "schemas");
    json_t *served_schemas = json_object_get(json_object_get(served, "components"), "schemas");
    const char *key;
    json_t *v;
    json_object_foreach(file_schemas, key, v) {
        cr_expect(!generated_schema(solvers, key), "openapi.yaml holds %s, which the daemon generates", key);
        cr_expect(json_equal(v, json_object_get(served_schemas, key)), "components/schemas/%s is not served as written", key);
    }
    json_object_foreach(served_schemas, key, v) {
        cr_expect(json_object_get(file_schemas, key) || generated_schema(solvers, key),
                  "components/schemas/%s is served but neither written nor generated", key);
    }
    json_t *a = json_deep_copy(from_file), *b = json_deep_copy(served);
    json_object_del(json_object_get(a, "components"), "schemas");
    json_object_del(json_object_get(b, "components"), "schemas");
    cr_expect(json_equal(a, b), "/openapi.json differs from openapi.yaml outside components/schemas");
    json_decref(a);
    json_decref(b);
    /* /openapi.yaml is the same document as /openapi.json */
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), "/openapi.yaml", &r), 0);
    cr_assert_eq(r.status, 200);
    cr_expect_str_eq(r.content_type, "application/yaml");
    json_t *yaml_doc = yaml_to_json(r.body, r.len, err, sizeof err);
    cr_expect(yaml_doc, "/openapi.yaml does not parse: %s", err);
    /* by value: JSON text does not tell 1.0 from 1, YAML does */
    cr_expect(yaml_doc && same_value(yaml_doc, served), "/openapi.yaml and /openapi.json differ");
    json_decref(yaml_doc);
    http_free(&r);
    json_decref(solvers);
    cr_expect_str_eq(json_string_value(json_object_get(served, "openapi")), "3.1.0");
    json_t *ver = api_get_ok("/version");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(served, "info"), "version")),
                     json_string_value(json_object_get(ver, "version")), "info.version is not the running version");
    json_decref(ver);
    json_decref(served);
    json_decref(from_file);
    free(file);
}

static void walk_refs(const json_t *doc, const json_t *v, const char *path, int *bad)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            if (!strcmp(k, "$ref")) {
                if (!json_is_string(x) || !resolve(doc, json_string_value(x))) {
                    cr_expect_fail("%s: $ref %s does not resolve", path, json_string_value(x));
                    (*bad)++;
                }
            } else {
                char sub[600];
                snprintf(sub, sizeof sub, "%s/%s", path, k);
                walk_refs(doc, x, sub, bad);
            }
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) walk_refs(doc, x, path, bad);
    }
}

Test(openapi, refs_resolve_and_operations_are_complete)
{
    json_t *doc = spec_doc();
    int bad = 0;
    walk_refs(doc, doc, "", &bad);
    cr_expect_eq(bad, 0);
    json_t *ids = json_object();
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(doc, "paths"), path, item) {
        cr_expect(json_object_get(item, "options"), "%s: no options operation (every path answers OPTIONS)", path);
        for (int m = 0; m < N_METHODS; m++) {
            const json_t *op = json_object_get(item, METHODS[m]);
            if (!op)
                continue;
            const json_t *resp = json_object_get(op, "responses");
            bool two = false;
            const char *code;
            json_t *rv;
            json_object_foreach((json_t *)resp, code, rv) two |= code[0] == '2';
            cr_expect(two, "%s %s: no 2xx response", METHODS[m], path);
            if (strcmp(METHODS[m], "options") != 0) {
                cr_expect(json_object_get(resp, "405"), "%s %s: 405 not listed", METHODS[m], path);
                const char *id = json_string_value(json_object_get(op, "operationId"));
                cr_expect(id, "%s %s: no operationId", METHODS[m], path);
                if (id) {
                    cr_expect(!json_object_get(ids, id), "operationId %s is used twice", id);
                    json_object_set_new(ids, id, json_true());
                }
            }
        }
    }
    json_decref(ids);
    json_decref(doc);
}

/* ---- paths = routes --------------------------------------------------------------------------------- */

static void concrete(const char *tmpl, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = tmpl; *p && k + 8 < n; p++) {
        if (*p == '{') {
            k += (size_t)snprintf(out + k, n - k, "x1");
            p = strchr(p, '}');
            if (!p)
                break;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
}

Test(openapi, paths_are_exactly_the_routes)
{
    json_t *doc = spec_doc();
    json_t *paths = json_object_get(doc, "paths");
    size_t routes = 0;
    for (size_t r = 0; r < route_count(); r++) {
        routes++;
        cr_expect(json_object_get(paths, route_at(r)->pattern), "route %s is missing from openapi.yaml",
                  route_at(r)->pattern);
    }
    cr_expect_eq(json_object_size(paths), routes, "openapi.yaml has %zu paths, the router %zu",
                 json_object_size(paths), routes);
    /* Allow follows the operations, and other methods are 405 */
    const char *tmpl;
    json_t *item;
    json_object_foreach(paths, tmpl, item) {
        bool get = json_object_get(item, "get") != NULL, post = json_object_get(item, "post") != NULL;
        char want[64];
        snprintf(want, sizeof want, "%s%sOPTIONS", get ? "GET, HEAD, " : "", post ? "POST, " : "");
        char path[256];
        concrete(tmpl, path, sizeof path);
        static const char *const tries[] = {"GET", "POST", "PUT", "DELETE", "PATCH"};
        for (int t = 0; t < 5; t++) {
            if ((get && !strcmp(tries[t], "GET")) || (post && !strcmp(tries[t], "POST")))
                continue;
            static const char *const hs[] = {"Content-Type: application/json", NULL};
            http_resp r;
            cr_assert_eq(http_request(shared_daemon(), tries[t], path, hs, "{}", 2, &r), 0);
            cr_expect_eq(r.status, 405, "%s %s: %ld", tries[t], path, r.status);
            cr_expect_str_eq(r.content_type, "application/problem+json");
            char allow[128] = "";
            cr_expect(http_header(&r, "Allow", allow, sizeof allow), "%s %s: no Allow", tries[t], path);
            cr_expect_str_eq(allow, want, "%s %s", tries[t], path);
            http_free(&r);
        }
        http_resp r;
        if (get) {
            /* bytes that are not UTF-8 in a query are refused on every GET path: documented there */
            char bad[300];
            snprintf(bad, sizeof bad, "%s?x=%%FF", path);
            cr_assert_eq(http_get(shared_daemon(), bad, &r), 0);
            cr_expect_eq(r.status, 400, "GET %s: %ld", bad, r.status);
            cr_expect_str_eq(r.content_type, "application/problem+json");
            http_free(&r);
            cr_expect(json_object_get(json_object_get(json_object_get(item, "get"), "responses"), "400"),
                      "GET %s: 400 is not documented", tmpl);
        }
        cr_assert_eq(http_request(shared_daemon(), "OPTIONS", path, NULL, NULL, 0, &r), 0);
        cr_expect_eq(r.status, 204, "OPTIONS %s", path);
        char allow[128] = "";
        http_header(&r, "Allow", allow, sizeof allow);
        cr_expect_str_eq(allow, want, "OPTIONS %s", path);
        http_free(&r);
    }
    json_decref(doc);
}

/* ---- solver schemas = descriptors ------------------------------------------------------------------------- */

static bool num_or_absent_equal(const json_t *a, const json_t *b)
{
    if (!a || !b)
        return !a && !b;
    return same_value(a, b);
}

static bool type_has(const json_t *type, const char *t)
{
    if (json_is_string(type))
        return !strcmp(json_string_value(type), t);
    size_t i;
    json_t *x;
    json_array_foreach(type, i, x) if (!strcmp(json_string_value(x), t)) return true;
    return false;
}

/* Compares and reports; returns the number of differences. */
static int compare_solver(const json_t *doc, const json_t *s)
{
    const char *n = json_string_value(json_object_get(s, "name"));
    const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
    char key[128];
    int diffs = 0;
#define DIFF(...)                                                                                                     \
    do {                                                                                                             \
        cr_expect_fail(__VA_ARGS__);                                                                                 \
        diffs++;                                                                                                     \
    } while (0)
    snprintf(key, sizeof key, "%s_inputs", n);
    const json_t *is = json_object_get(schemas, key);
    snprintf(key, sizeof key, "%s_result", n);
    const json_t *rs = json_object_get(schemas, key);
    if (!is || !rs) {
        DIFF("solver %s: components/schemas/%s_inputs or _result is missing", n, n);
        return diffs;
    }
    const json_t *props = json_object_get(is, "properties");
    const json_t *ins = json_object_get(s, "inputs");
    if (json_object_size(props) != json_array_size(ins))
        DIFF("%s_inputs has %zu properties, the solver %zu inputs", n, json_object_size(props), json_array_size(ins));
    if (!json_is_false(json_object_get(is, "additionalProperties")))
        DIFF("%s_inputs must say additionalProperties: false (unknown inputs are a 400)", n);
    json_t *want_req = json_array();
    size_t i;
    json_t *in;
    json_array_foreach(ins, i, in) {
        const char *name = json_string_value(json_object_get(in, "name"));
        const char *t = json_string_value(json_object_get(in, "type"));
        if (json_is_true(json_object_get(in, "required")))
            json_array_append_new(want_req, json_string(name));
        const json_t *p = json_object_get(props, name);
        if (!p) {
            DIFF("%s_inputs: input %s is missing", n, name);
            continue;
        }
        const char *xt = json_string_value(json_object_get(p, "x-mlsysd-type"));
        if (!xt || strcmp(xt, t))
            DIFF("%s_inputs.%s: x-mlsysd-type %s, descriptor %s", n, name, xt ? xt : "(none)", t);
        if (!strcmp(t, "quantity")) {
            const char *u = json_string_value(json_object_get(p, "x-unit"));
            const char *du = json_string_value(json_object_get(in, "unit"));
            if (!u || strcmp(u, du))
                DIFF("%s_inputs.%s: x-unit %s, descriptor %s", n, name, u ? u : "(none)", du);
            const char *dim = json_string_value(json_object_get(p, "x-dimension"));
            if (!dim || strcmp(dim, json_string_value(json_object_get(in, "dimension"))))
                DIFF("%s_inputs.%s: x-dimension differs", n, name);
        } else if (json_object_get(p, "x-unit")) {
            DIFF("%s_inputs.%s: only quantities have a unit", n, name);
        }
        const json_t *type = json_object_get(p, "type");
        bool nullable = json_is_true(json_object_get(in, "nullable"));
        const json_t *kinds = json_object_get(in, "catalog_kinds");
        if (kinds && !same_value(kinds, json_object_get(p, "x-catalog-kinds")))
            DIFF("%s_inputs.%s: x-catalog-kinds differ from the descriptor's catalog_kinds", n, name);
        if (!strcmp(t, "list")) {
            if (!type_has(type, "array") || !json_object_get(p, "items"))
                DIFF("%s_inputs.%s: a list is an array of ids, with items", n, name);
            if (type_has(type, "null") != nullable)
                DIFF("%s_inputs.%s: null must be allowed exactly when the input is nullable", n, name);
        } else if (!strcmp(t, "rows")) {
            /* an array (at most maximum_rows) of objects of exactly the descriptor's fields */
            const json_t *items = json_object_get(p, "items");
            if (!type_has(type, "array") || !json_is_object(items))
                DIFF("%s_inputs.%s: rows are an array of objects, with items", n, name);
            if (!num_or_absent_equal(json_object_get(p, "maxItems"), json_object_get(in, "maximum_rows")))
                DIFF("%s_inputs.%s: maxItems differs from the descriptor's maximum_rows", n, name);
            const json_t *fprops = json_object_get(items, "properties");
            size_t k;
            json_t *f;
            json_array_foreach(json_object_get(in, "fields"), k, f) {
                const char *fname = json_string_value(json_object_get(f, "name"));
                const json_t *fp = json_object_get(fprops, fname);
                if (!fp || !type_has(json_object_get(fp, "type"), json_string_value(json_object_get(f, "type"))))
                    DIFF("%s_inputs.%s: row field %s is missing or of another type", n, name, fname);
            }
            if (json_object_size(fprops) != json_array_size(json_object_get(in, "fields")) ||
                !json_is_false(json_object_get(items, "additionalProperties")))
                DIFF("%s_inputs.%s: a row has exactly the descriptor's fields", n, name);
            if (type_has(type, "null") != nullable)
                DIFF("%s_inputs.%s: null must be allowed exactly when the input is nullable", n, name);
        } else if (kinds) { /* a catalog record: an id or an inline object (CustomEntry) */
            const json_t *one = json_object_get(deref(doc, p), "oneOf");
            bool id = false, inl = false, null = false;
            size_t k;
            json_t *alt;
            json_array_foreach(one, k, alt) {
                const char *ref = json_string_value(json_object_get(alt, "$ref"));
                id |= type_has(json_object_get(alt, "type"), "string");
                inl |= ref && !strcmp(ref, "#/components/schemas/CustomEntry");
                null |= type_has(json_object_get(alt, "type"), "null");
            }
            if (!id || !inl || null != nullable)
                DIFF("%s_inputs.%s: a record is oneOf an id string, a CustomEntry%s", n, name,
                     nullable ? " and null" : " (and not null)");
        } else {
            const char *jt = !strcmp(t, "enum")     ? "string"
                             : !strcmp(t, "quantity") ? "number"
                             : !strcmp(t, "list")     ? "array"
                                                      : t;
            if (!type_has(type, jt) || (!strcmp(t, "quantity") && !type_has(type, "string")))
                DIFF("%s_inputs.%s: JSON type does not fit a %s", n, name, t);
            if (type_has(type, "null") != nullable)
                DIFF("%s_inputs.%s: null must be allowed exactly when the input is nullable", n, name);
        }
        if (!num_or_absent_equal(json_object_get(p, "default"), json_object_get(in, "default")))
            DIFF("%s_inputs.%s: default differs from the descriptor's", n, name);
        static const char *const bounds[][2] = {{"minimum", "minimum"}, {"maximum", "maximum"},
                                                {"exclusiveMinimum", "exclusiveMinimum"},
                                                {"maximum_magnitude", "x-maximum-magnitude"}};
        for (int q = 0; q < 4; q++)
            if (!num_or_absent_equal(json_object_get(p, bounds[q][1]), json_object_get(in, bounds[q][0])))
                DIFF("%s_inputs.%s: %s differs from the descriptor's %s", n, name, bounds[q][1], bounds[q][0]);
        if (!strcmp(t, "enum")) {
            /* case-insensitive: x-enum lists the values, the pattern takes each in any case and nothing else */
            const json_t *want = json_object_get(in, "values");
            if (!same_value(json_object_get(p, "x-enum"), want))
                DIFF("%s_inputs.%s: x-enum differs from the descriptor's values", n, name);
            regex_t re;
            const char *pat = json_string_value(json_object_get(p, "pattern"));
            if (!pat || regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0) {
                DIFF("%s_inputs.%s: an enum input needs a pattern", n, name);
                continue;
            }
            size_t vi;
            json_t *v;
            json_array_foreach(want, vi, v) {
                char up[64], mixed[80];
                const char *low = json_string_value(v);
                size_t c;
                for (c = 0; low[c] && c + 1 < sizeof up; c++)
                    up[c] = (char)toupper((unsigned char)low[c]);
                up[c] = '\0';
                snprintf(mixed, sizeof mixed, "%sx", low);
                if (regexec(&re, low, 0, NULL, 0) || regexec(&re, up, 0, NULL, 0) || !regexec(&re, mixed, 0, NULL, 0))
                    DIFF("%s_inputs.%s: the pattern must take '%s' in any case and nothing longer", n, name, low);
            }
            regfree(&re);
        }
    }
    if (!same_value(json_object_get(is, "required"), want_req))
        DIFF("%s_inputs: required list differs from the descriptor's", n);
    json_decref(want_req);

    /* outputs: "rec.member" is member `member` of the object `rec`; a record lists its
     * members in order, the result its outputs and records in order of first appearance */
    const json_t *outs = json_object_get(s, "outputs");
    if (!json_is_false(json_object_get(rs, "additionalProperties")))
        DIFF("%s_result must say additionalProperties: false", n);
    json_t *all = json_array(), *members = json_object();
    json_t *out;
    json_array_foreach(outs, i, out) {
        const char *name = json_string_value(json_object_get(out, "name"));
        const char *t = json_string_value(json_object_get(out, "type"));
        const char *dot = strchr(name, '.');
        char top[128];
        snprintf(top, sizeof top, "%.*s", dot ? (int)(dot - name) : (int)strlen(name), name);
        if (!json_object_get(members, top)) {
            json_array_append_new(all, json_string(top));
            json_object_set_new(members, top, json_array());
        }
        const json_t *p = json_object_get(json_object_get(rs, "properties"), top);
        if (dot) {
            json_array_append_new(json_object_get(members, top), json_string(dot + 1));
            if (p && !json_is_false(json_object_get(p, "additionalProperties")))
                DIFF("%s_result.%s: a record must say additionalProperties: false", n, top);
            p = p ? json_object_get(json_object_get(p, "properties"), dot + 1) : NULL;
        }
        if (!p) {
            DIFF("%s_result: output %s is missing", n, name);
            continue;
        }
        const char *xt = json_string_value(json_object_get(p, "x-mlsysd-type"));
        if (!xt || strcmp(xt, t))
            DIFF("%s_result.%s: x-mlsysd-type %s, descriptor %s", n, name, xt ? xt : "(none)", t);
        const char *u = json_string_value(json_object_get(p, "x-unit"));
        const char *du = json_string_value(json_object_get(out, "unit"));
        if ((u ? u : "")[0] != du[0] || strcmp(u ? u : "", du))
            DIFF("%s_result.%s: x-unit '%s', descriptor '%s'", n, name, u ? u : "", du);
        bool nullable = json_is_true(json_object_get(out, "nullable"));
        bool numeric = !strcmp(t, "number") || !strcmp(t, "integer");
        const json_t *type = json_object_get(p, "type");
        if (!type_has(type, t) || type_has(type, "null") != (nullable || numeric))
            DIFF("%s_result.%s: type must be %s%s", n, name, t, nullable || numeric ? " or null" : "");
        if (json_is_true(json_object_get(p, "x-nullable")) != nullable)
            DIFF("%s_result.%s: x-nullable differs", n, name);
        if (json_is_true(json_object_get(p, "x-categorical")) != json_is_true(json_object_get(out, "categorical")))
            DIFF("%s_result.%s: x-categorical differs", n, name);
    }
    const json_t *table = json_object_get(s, "table");
    if (table) { /* the table output follows: an array of objects, one property per column */
        const char *tn = json_string_value(json_object_get(table, "name"));
        json_array_append_new(all, json_string(tn));
        const json_t *p = json_object_get(json_object_get(rs, "properties"), tn);
        const json_t *item = json_object_get(p, "items");
        const char *xt = json_string_value(json_object_get(p, "x-mlsysd-type"));
        if (!p || !xt || strcmp(xt, "table") || !json_is_false(json_object_get(item, "additionalProperties")))
            DIFF("%s_result.%s: must be a table (an array of closed objects)", n, tn);
        json_t *cols = json_array();
        json_array_foreach(json_object_get(table, "columns"), i, out) {
            const char *cn = json_string_value(json_object_get(out, "name"));
            json_array_append_new(cols, json_string(cn));
            const json_t *cp = json_object_get(json_object_get(item, "properties"), cn);
            const char *cu = json_string_value(json_object_get(cp, "x-unit"));
            if (!cp || strcmp(cu ? cu : "", json_string_value(json_object_get(out, "unit"))))
                DIFF("%s_result.%s.%s: missing, or its x-unit differs", n, tn, cn);
        }
        if (!same_value(json_object_get(item, "required"), cols))
            DIFF("%s_result.%s: rows must require every column, in order", n, tn);
        json_decref(cols);
    }
    if (!same_value(json_object_get(rs, "required"), all))
        DIFF("%s_result: required must list every output, in order", n);
    if (json_object_size(json_object_get(rs, "properties")) != json_array_size(all))
        DIFF("%s_result has %zu properties, the solver %zu outputs and records", n,
             json_object_size(json_object_get(rs, "properties")), json_array_size(all));
    const char *rec;
    json_t *mem;
    json_object_foreach(members, rec, mem) {
        const json_t *rp = json_object_get(json_object_get(rs, "properties"), rec);
        if (json_array_size(mem) && !same_value(json_object_get(rp, "required"), mem))
            DIFF("%s_result.%s: required must list every member, in order", n, rec);
    }
    json_decref(members);
    json_decref(all);
#undef DIFF
    return diffs;
}

static bool lists_ref(const json_t *doc, const char *schema, const char *of, const char *target)
{
    const json_t *s = json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), schema);
    char want[160];
    snprintf(want, sizeof want, "#/components/schemas/%s", target);
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(s, of), i, x) {
        const char *ref = json_string_value(json_object_get(x, "$ref"));
        if (ref && !strcmp(ref, want))
            return true;
    }
    return false;
}

Test(openapi, solver_schemas_match_the_descriptors)
{
    json_t *doc = spec_doc();
    json_t *list = api_get_ok("/solvers");
    const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
    const json_t *disc = json_object_get(json_object_get(schemas, "SolveResponse"), "discriminator");
    cr_expect_str_eq(json_string_value(json_object_get(disc, "propertyName")), "solver",
                     "SolveResponse is discriminated by solver");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(list, "solvers"), i, s) {
        const char *n = json_string_value(json_object_get(s, "name"));
        compare_solver(doc, s);
        char in[128], resp[128], ref[160];
        snprintf(in, sizeof in, "%s_inputs", n);
        snprintf(resp, sizeof resp, "%s_response", n);
        snprintf(ref, sizeof ref, "#/components/schemas/%s", resp);
        cr_expect(lists_ref(doc, "SolverInputs", "anyOf", in), "SolverInputs.anyOf does not list %s", in);
        cr_expect(lists_ref(doc, "SolveResponse", "oneOf", resp), "SolveResponse.oneOf does not list %s", resp);
        const char *mapped = json_string_value(json_object_get(json_object_get(disc, "mapping"), n));
        cr_expect(mapped && !strcmp(mapped, ref), "SolveResponse.discriminator.mapping.%s is not %s", n, ref);
        /* the response narrows solver to the name, inputs and result to the solver's schemas */
        const json_t *narrow = json_array_get(json_object_get(json_object_get(schemas, resp), "allOf"), 1);
        const json_t *props = json_object_get(narrow, "properties");
        const char *cst = json_string_value(json_object_get(json_object_get(props, "solver"), "const"));
        cr_expect(cst && !strcmp(cst, n), "%s: solver is not const %s", resp, n);
        char want[160];
        snprintf(want, sizeof want, "#/components/schemas/%s_inputs", n);
        const char *r1 = json_string_value(json_object_get(json_object_get(props, "inputs"), "$ref"));
        cr_expect(r1 && !strcmp(r1, want), "%s: inputs is not %s", resp, want);
        snprintf(want, sizeof want, "#/components/schemas/%s_result", n);
        const char *r2 = json_string_value(json_object_get(json_object_get(props, "result"), "$ref"));
        cr_expect(r2 && !strcmp(r2, want), "%s: result is not %s", resp, want);
    }
    json_decref(list);
    json_decref(doc);
}

/* ---- every example, live ------------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    int checked;
} example_stats;

static void add_query(strbuf *q, const char *key, const char *value)
{
    char *k = curl_easy_escape(NULL, key, 0), *v = curl_easy_escape(NULL, value, 0);
    sb_printf(q, "%s%s=%s", q->len ? "&" : "?", k, v);
    curl_free(k);
    curl_free(v);
}

static void scalar_text(const json_t *v, char *buf, size_t n)
{
    if (json_is_string(v))
        snprintf(buf, n, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, n, "%.17g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, n, "%s", json_is_true(v) ? "true" : "false");
    else
        snprintf(buf, n, "null");
}

/* Arrays are comma-joined (an axis in GET /sweep, the outputs list). */
static void value_text(const json_t *v, char *buf, size_t n)
{
    if (!json_is_array(v)) {
        scalar_text(v, buf, n);
        return;
    }
    size_t k = 0, i;
    json_t *x;
    buf[0] = '\0';
    json_array_foreach(v, i, x) {
        char one[256];
        scalar_text(x, one, sizeof one);
        k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s", i ? "," : "", one);
    }
}

/* Form style, explode true: an object's members are arguments; nested
 * objects become dotted names (model.inference_flops). */
static void add_object_query(strbuf *q, const char *prefix, const json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        char key[256];
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (json_is_object(v)) {
            add_object_query(q, key, v);
        } else {
            char text[2048];
            value_text(v, text, sizeof text);
            add_query(q, key, text);
        }
    }
}

/* Every example name of an operation: parameters (path-level and its own),
 * request body. */
static void collect_names(const json_t *doc, const json_t *item, const json_t *op, json_t *names)
{
    const json_t *lists[2] = {json_object_get(item, "parameters"), json_object_get(op, "parameters")};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *p;
        json_array_foreach(lists[l], i, p) {
            const json_t *pp = deref(doc, p);
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(pp, "examples"), k, v) json_object_set_new(names, k, json_true());
        }
    }
    const json_t *content = json_object_get(deref(doc, json_object_get(op, "requestBody")), "content");
    const char *mt;
    json_t *m;
    json_object_foreach((json_t *)content, mt, m) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(m, "examples"), k, v) json_object_set_new(names, k, json_true());
    }
}

/* Where the named example's answer is documented: status and media type. */
static bool expected_response(const json_t *doc, const json_t *op, const char *name, char *status, size_t sn,
                              char *media, size_t mn, const json_t **media_obj, const json_t **example)
{
    const json_t *resps = json_object_get(op, "responses");
    const char *code;
    json_t *r;
    json_object_foreach((json_t *)resps, code, r) {
        const json_t *content = json_object_get(deref(doc, r), "content");
        const char *mt;
        json_t *m;
        json_object_foreach((json_t *)content, mt, m) {
            const json_t *ex = json_object_get(json_object_get(m, "examples"), name);
            if (ex) {
                snprintf(status, sn, "%s", code);
                snprintf(media, mn, "%s", mt);
                *media_obj = m;
                *example = deref(doc, ex);
                return true;
            }
        }
    }
    /* not named: the lowest 2xx, JSON if it has several media types */
    const char *best = NULL;
    json_object_foreach((json_t *)resps, code, r) if (code[0] == '2' && (!best || strcmp(code, best) < 0)) best = code;
    cr_assert(best, "no 2xx response");
    snprintf(status, sn, "%s", best);
    const json_t *content = json_object_get(deref(doc, json_object_get(resps, best)), "content");
    media[0] = '\0';
    *media_obj = NULL;
    *example = NULL;
    if (json_object_get(content, "application/json")) {
        snprintf(media, mn, "application/json");
        *media_obj = json_object_get(content, "application/json");
    } else if (json_object_size(content) == 1) {
        const char *mt;
        json_t *m;
        json_object_foreach((json_t *)content, mt, m) {
            snprintf(media, mn, "%s", mt);
            *media_obj = m;
        }
    }
    return false;
}

static bool is_json_media(const char *m) { return !strcmp(m, "application/json") || strstr(m, "+json") != NULL; }

static char *first_line(const char *s)
{
    size_t n = strcspn(s, "\r\n");
    char *l = malloc(n + 1);
    memcpy(l, s, n);
    l[n] = '\0';
    return l;
}

static bool same_keys(const json_t *a, const json_t *b)
{
    if (json_object_size(a) != json_object_size(b))
        return false;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v) if (!json_object_get(b, k)) return false;
    return true;
}

static void check_body(const json_t *doc, const char *label, const char *media, const json_t *media_obj,
                       const json_t *example, const http_resp *r)
{
    char err[1024];
    const json_t *schema = json_object_get(media_obj, "schema");
    if (is_json_media(media)) {
        json_t *j = http_json(r);
        cr_assert(j, "%s: body is not JSON: %.300s", label, r->body);
        cr_expect(check_schema(doc, schema, j, err, sizeof err), "%s: response does not fit its schema: %s", label, err);
        const json_t *ev = json_object_get(example, "value");
        if (json_is_object(ev)) {
            cr_expect(same_keys(ev, j), "%s: the example's fields differ from the live response's", label);
            if (!strcmp(media, "application/problem+json")) {
                cr_expect_str_eq(json_string_value(json_object_get(j, "type")),
                                 json_string_value(json_object_get(ev, "type")), "%s: problem type", label);
                cr_expect_str_eq(json_string_value(json_object_get(j, "field")) ? json_string_value(json_object_get(j, "field")) : "",
                                 json_string_value(json_object_get(ev, "field")) ? json_string_value(json_object_get(ev, "field")) : "",
                                 "%s: problem field", label);
            }
        }
        json_decref(j);
    } else if (!strcmp(media, "application/x-ndjson")) {
        const json_t *line_schema = json_object_get(media_obj, "x-ndjson-line");
        cr_assert(line_schema, "%s: application/x-ndjson without x-ndjson-line", label);
        char *copy = strdup(r->body);
        int lines = 0;
        json_t *first = NULL;
        for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save), lines++) {
            json_t *j = json_loads(l, 0, NULL);
            cr_assert(j, "%s: line %d is not JSON", label, lines + 1);
            cr_expect(check_schema(doc, line_schema, j, err, sizeof err), "%s: line %d: %s", label, lines + 1, err);
            if (!first)
                first = j;
            else
                json_decref(j);
        }
        cr_expect(lines > 0, "%s: no lines", label);
        const json_t *ev = json_object_get(example, "value");
        if (json_is_string(ev) && first) {
            json_t *ej = json_loads(json_string_value(ev), JSON_DISABLE_EOF_CHECK, NULL);
            cr_expect(ej && same_keys(ej, first), "%s: the example's fields differ from the live lines'", label);
            json_decref(ej);
        }
        json_decref(first);
        free(copy);
    } else if (!strcmp(media, "text/csv")) {
        cr_expect(r->len > 2 && !strcmp(r->body + r->len - 2, "\r\n"), "%s: CSV lines end with CRLF", label);
        char *head = first_line(r->body);
        size_t hl = strlen(head);
        cr_expect(hl >= 6 && !strcmp(head + hl - 6, ",error") , "%s: CSV header '%s'", label, head);
        const json_t *ev = json_object_get(example, "value");
        if (json_is_string(ev)) {
            char *eh = first_line(json_string_value(ev));
            cr_expect_str_eq(head, eh, "%s: the example's CSV header differs from the live one", label);
            free(eh);
        }
        free(head);
    } else {
        cr_expect(r->len > 0 || json_object_size(media_obj) == 0, "%s: empty body", label);
    }
}

static void run_example(const json_t *doc, const char *path_tmpl, const json_t *item, const char *method,
                        const json_t *op, const char *name)
{
    char label[300];
    snprintf(label, sizeof label, "%s %s example '%s'", method, path_tmpl, name);
    char path[1024];
    snprintf(path, sizeof path, "%s", path_tmpl);
    strbuf q;
    sb_init(&q);
    const json_t *lists[2] = {json_object_get(item, "parameters"), json_object_get(op, "parameters")};
    char err[1024];
    char status[8], media[96];
    const json_t *media_obj, *example;
    expected_response(doc, op, name, status, sizeof status, media, sizeof media, &media_obj, &example);
    bool success = status[0] == '2';
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *p0;
        json_array_foreach(lists[l], i, p0) {
            const json_t *p = deref(doc, p0);
            const char *pname = json_string_value(json_object_get(p, "name"));
            const char *in = json_string_value(json_object_get(p, "in"));
            const json_t *ex = deref(doc, json_object_get(json_object_get(p, "examples"), name));
            const json_t *val = json_object_get(ex, "value");
            if (!val) {
                cr_expect(!(json_is_true(json_object_get(p, "required")) && !strcmp(in, "path")),
                          "%s: path parameter %s has no example of that name", label, pname);
                continue;
            }
            if (success)
                cr_expect(check_schema(doc, json_object_get(p, "schema"), val, err, sizeof err),
                          "%s: parameter %s example does not fit its schema: %s", label, pname, err);
            if (!strcmp(in, "path")) {
                char tok[128], text[256], rest[1024];
                snprintf(tok, sizeof tok, "{%s}", pname);
                char *at = strstr(path, tok);
                cr_assert(at, "%s: no {%s} in the path", label, pname);
                scalar_text(val, text, sizeof text);
                char *esc = curl_easy_escape(NULL, text, 0);
                snprintf(rest, sizeof rest, "%s", at + strlen(tok));
                snprintf(at, sizeof path - (size_t)(at - path), "%s%s", esc, rest);
                curl_free(esc);
            } else if (!strcmp(in, "query")) {
                if (json_is_object(val) && json_is_true(json_object_get(p, "explode"))) {
                    add_object_query(&q, "", val);
                } else {
                    char text[2048];
                    value_text(val, text, sizeof text);
                    add_query(&q, pname, text);
                }
            }
        }
    }
    char full[2048];
    snprintf(full, sizeof full, "%s%s", path, q.data ? q.data : "");
    sb_free(&q);
    const char *body = NULL;
    char *body_text = NULL;
    const char *const json_hdr[] = {"Content-Type: application/json", NULL};
    const json_t *rb = deref(doc, json_object_get(op, "requestBody"));
    if (rb) {
        const json_t *m = json_object_get(json_object_get(rb, "content"), "application/json");
        const json_t *ex = deref(doc, json_object_get(json_object_get(m, "examples"), name));
        const json_t *val = json_object_get(ex, "value");
        cr_assert(val || !json_is_true(json_object_get(rb, "required")), "%s: no request body of that name", label);
        if (val) {
            body_text = json_dumps(val, JSON_COMPACT);
            body = body_text;
            if (success) {
                cr_expect(check_schema(doc, json_object_get(m, "schema"), val, err, sizeof err),
                          "%s: request body does not fit its schema: %s", label, err);
            }
        }
    }
    char upper[16];
    size_t k;
    for (k = 0; method[k] && k + 1 < sizeof upper; k++)
        upper[k] = (char)(method[k] - 32);
    upper[k] = '\0';
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), upper, full, body ? json_hdr : NULL, body, body ? strlen(body) : 0, &r),
                 0, "%s: transport error", label);
    cr_expect_eq(r.status, atol(status), "%s: %s %s answered %ld, documented %s: %.300s", label, upper, full, r.status,
                 status, r.body);
    char rid[80];
    cr_expect(http_header(&r, "X-Request-ID", rid, sizeof rid), "%s: no X-Request-ID", label);
    if (r.status == atol(status)) {
        if (media[0]) {
            char ct[128];
            snprintf(ct, sizeof ct, "%.*s", (int)strcspn(r.content_type, "; "), r.content_type);
            cr_expect_str_eq(ct, media, "%s: content type", label);
            check_body(doc, label, media, media_obj, example, &r);
        } else {
            cr_expect_eq(r.len, 0, "%s: a body where none is documented", label);
        }
    }
    http_free(&r);
    free(body_text);
}

/* The response examples themselves must fit their schemas, and the request
 * bodies of the successful ones theirs. */
static void check_static_examples(const json_t *doc, const char *path, const char *method, const json_t *op)
{
    char err[1024];
    const char *code;
    json_t *r;
    json_object_foreach(json_object_get(op, "responses"), code, r) {
        const char *mt;
        json_t *m;
        json_object_foreach(json_object_get(deref(doc, r), "content"), mt, m) {
            const char *en;
            json_t *ex;
            json_object_foreach(json_object_get(m, "examples"), en, ex) {
                const json_t *val = json_object_get(deref(doc, ex), "value");
                cr_expect(val != NULL, "%s %s %s %s: example '%s' has no value", method, path, code, mt, en);
                if (val && is_json_media(mt))
                    cr_expect(check_schema(doc, json_object_get(m, "schema"), val, err, sizeof err),
                              "%s %s %s %s: example '%s' does not fit the schema: %s", method, path, code, mt, en, err);
            }
        }
    }
}

Test(openapi, every_example_holds_against_the_live_daemon, .timeout = 120)
{
    json_t *doc = spec_doc();
    int runs = 0;
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(doc, "paths"), path, item) {
        for (int m = 0; m < N_METHODS; m++) {
            const json_t *op = json_object_get(item, METHODS[m]);
            if (!op)
                continue;
            check_static_examples(doc, path, METHODS[m], op);
            json_t *names = json_object();
            collect_names(doc, item, op, names);
            const char *n;
            json_t *v;
            json_object_foreach(names, n, v) {
                run_example(doc, path, item, METHODS[m], op, n);
                runs++;
            }
            /* and the bare request, where it needs nothing */
            if (!strchr(path, '{') && !json_is_true(json_object_get(deref(doc, json_object_get(op, "requestBody")), "required"))) {
                run_example(doc, path, item, METHODS[m], op, "(no example)");
                runs++;
            }
            json_decref(names);
        }
    }
    cr_expect(runs > 80, "only %d example requests", runs);
    /* Worked examples are documentation, not a duty of each solver: a new solver
     * edits no YAML (its schemas are generated), and golden parity covers it. */
    json_decref(doc);
}

/* Each solver's worked example (its descriptor's example_json) is served in
 * GET /solvers/{name} and is the example of its <name>_inputs schema; it fits
 * that schema, and POST /solve with it answers what <name>_response says. */
Test(openapi, every_solver_example_fits_its_schemas)
{
    json_t *doc = spec_doc();
    const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
    json_t *list = api_get_ok("/solvers");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(list, "solvers"), i, s) {
        const char *n = json_string_value(json_object_get(s, "name"));
        char path[160], key[160], err[1024];
        snprintf(path, sizeof path, "/solvers/%s", n);
        json_t *d = api_get_ok(path);
        const json_t *ex = json_object_get(d, "example");
        cr_assert(json_is_object(ex), "%s has no example", path);
        json_t *want = example_inputs(n);
        cr_expect(same_value(ex, want), "%s: the example is not the descriptor's example_json", path);
        json_decref(want);
        snprintf(key, sizeof key, "%s_inputs", n);
        const json_t *in_schema = json_object_get(schemas, key);
        cr_expect(json_equal(json_array_get(json_object_get(in_schema, "examples"), 0), ex),
                  "%s.examples[0] is not GET %s's example", key, path);
        cr_expect(check_schema(doc, in_schema, ex, err, sizeof err), "%s's example does not fit %s: %s", n, key, err);
        long status;
        json_t *ans = api_post_doc("/solve", json_pack("{s:s,s:O}", "solver", n, "inputs", ex), &status);
        cr_expect_eq(status, 200, "%s's example: POST /solve answered %ld", n, status);
        snprintf(key, sizeof key, "%s_response", n);
        cr_expect(check_schema(doc, json_object_get(schemas, key), ans, err, sizeof err),
                  "%s's example: the answer does not fit %s: %s", n, key, err);
        json_decref(ans);
        json_decref(d);
    }
    json_decref(list);
    json_decref(doc);
}

/* ---- sweep transitions -------------------------------------------------------------------------------------- */

/* The schema a route declares for a 200 JSON body in the served contract. */
static const json_t *ok_json_schema(const json_t *doc, const char *path, const char *method)
{
    const json_t *op = json_object_get(json_object_get(json_object_get(doc, "paths"), path), method);
    const json_t *resp = deref(doc, json_object_get(json_object_get(op, "responses"), "200"));
    const json_t *schema =
        json_object_get(json_object_get(json_object_get(resp, "content"), "application/json"), "schema");
    cr_assert_not_null(schema, "the contract declares no 200 application/json schema for %s %s", method, path);
    return schema;
}

/* Sweeps `body` (POST /sweep) and checks the answer against the contract's
 * schema; returns how many of its transitions have integer from/to. */
static int sweep_integer_transitions(const json_t *doc, const char *body)
{
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/sweep", body, &r), 0);
    cr_assert_eq(r.status, 200, "%s: %ld %s", body, r.status, r.body);
    json_t *j = http_json(&r);
    cr_assert_not_null(j, "%s: not JSON", body);
    char err[1024];
    cr_expect(check_schema(doc, ok_json_schema(doc, "/sweep", "post"), j, err, sizeof err),
              "%s: the answer does not fit the served contract: %s", body, err);
    int integers = 0;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(j, "transitions"), i, t)
        if (json_is_integer(json_object_get(t, "from")) && json_is_integer(json_object_get(t, "to")))
            integers++;
    json_decref(j);
    http_free(&r);
    return integers;
}

/* A sweep of a fleet input moves the data-parallel degree, an integer
 * categorical output: its transitions carry integers, and the contract says so. */
Test(openapi, integer_transitions_fit_the_contract)
{
    json_t *doc = spec_doc();
    /* two (three) catalog fleets */
    int n = sweep_integer_transitions(
        doc, "{\"solver\":\"distributed\",\"inputs\":{\"model\":\"Llama3_70B\",\"batch_size\":256,\"tp_size\":8,"
             "\"pp_size\":2,\"microbatch_count\":8},\"axes\":[{\"input\":\"fleet\",\"values\":[\"Research_256\","
             "\"Training_1K\",\"Production_2K\"]}]}");
    cr_expect(n >= 2, "a sweep over three fleets gave %d integer transitions", n);
    /* the node count of one fleet, crossed with the tensor-parallel degree (transitions with `at`) */
    n = sweep_integer_transitions(
        doc, "{\"solver\":\"distributed\",\"inputs\":{\"model\":\"Llama3_70B\",\"fleet\":\"Research_256\","
             "\"batch_size\":256,\"pp_size\":2,\"microbatch_count\":8},\"axes\":[{\"input\":\"fleet.count\","
             "\"values\":[8,16,32]},{\"input\":\"tp_size\",\"values\":[4,8]}]}");
    cr_expect(n >= 4, "a sweep over fleet.count x tp_size gave %d integer transitions", n);
    json_decref(doc);
}

/* Every categorical output of every solver has a type (and nullability) that a
 * transition's from and to allow in the served contract. */
Test(openapi, every_categorical_output_kind_fits_a_transition)
{
    json_t *doc = spec_doc();
    const json_t *sweep = deref(doc, ok_json_schema(doc, "/sweep", "post"));
    const json_t *item = deref(doc, json_object_get(json_object_get(sweep, "properties"), "transitions"));
    const json_t *props = json_object_get(deref(doc, json_object_get(item, "items")), "properties");
    json_t *list = api_get_ok("/solvers");
    int checked = 0;
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(list, "solvers"), i, s) {
        char path[160];
        snprintf(path, sizeof path, "/solvers/%s", json_string_value(json_object_get(s, "name")));
        json_t *d = api_get_ok(path);
        size_t k;
        json_t *o;
        json_array_foreach(json_object_get(d, "outputs"), k, o) {
            if (!json_is_true(json_object_get(o, "categorical")))
                continue;
            const char *type = json_string_value(json_object_get(o, "type"));
            for (int e = 0; e < 2; e++) {
                const char *end = e ? "to" : "from";
                const json_t *types = json_object_get(deref(doc, json_object_get(props, end)), "type");
                cr_expect(type_has(types, type), "%s: categorical output %s is %s, which a transition's %s does not allow",
                          path, json_string_value(json_object_get(o, "name")), type, end);
                if (json_is_true(json_object_get(o, "nullable")))
                    cr_expect(type_has(types, "null"), "%s: %s is nullable, a transition's %s is not", path,
                              json_string_value(json_object_get(o, "name")), end);
            }
            checked++;
        }
        json_decref(d);
    }
    cr_expect(checked > 10, "only %d categorical outputs", checked);
    json_decref(list);
    json_decref(doc);
}

/* ---- yaml_to_json -------------------------------------------------------------------------------------------------- */

static json_t *yaml(const char *text, char *err, size_t n) { return yaml_to_json(text, strlen(text), err, n); }

Test(yaml2json, scalars_follow_the_core_schema)
{
    char err[200];
    json_t *j = yaml("a: 1\nb: -2.5\nc: 1.0e-09\nd: true\ne: false\nf: null\ng: ~\nh:\ni: '1'\nj: \"true\"\n"
                     "k: 3.1.0\nl: 0x1F\nm: .inf\nn: 007\no: 1e3\np: |\n  line 1\n  line 2\nq: >\n  folded\n  text\n"
                     "'200': ok\nr: [1, two, {s: 3}]\n",
                     err, sizeof err);
    cr_assert(j, "%s", err);
    cr_expect(json_is_integer(json_object_get(j, "a")) && json_integer_value(json_object_get(j, "a")) == 1);
    cr_expect(json_is_real(json_object_get(j, "b")) && json_real_value(json_object_get(j, "b")) == -2.5);
    cr_expect(json_is_real(json_object_get(j, "c")) && json_real_value(json_object_get(j, "c")) == 1e-9);
    cr_expect(json_is_true(json_object_get(j, "d")) && json_is_false(json_object_get(j, "e")));
    cr_expect(json_is_null(json_object_get(j, "f")) && json_is_null(json_object_get(j, "g")) &&
              json_is_null(json_object_get(j, "h")));
    cr_expect_str_eq(json_string_value(json_object_get(j, "i")), "1", "quoted numbers stay strings");
    cr_expect_str_eq(json_string_value(json_object_get(j, "j")), "true");
    cr_expect_str_eq(json_string_value(json_object_get(j, "k")), "3.1.0");
    cr_expect(json_is_string(json_object_get(j, "l")), "hex is not a JSON number");
    cr_expect(json_is_string(json_object_get(j, "m")), "infinity has no JSON form");
    cr_expect(json_integer_value(json_object_get(j, "n")) == 7);
    cr_expect(json_is_real(json_object_get(j, "o")) && json_real_value(json_object_get(j, "o")) == 1000);
    cr_expect_str_eq(json_string_value(json_object_get(j, "p")), "line 1\nline 2\n");
    cr_expect_str_eq(json_string_value(json_object_get(j, "q")), "folded text\n");
    cr_expect_str_eq(json_string_value(json_object_get(j, "200")), "ok");
    json_t *r = json_object_get(j, "r");
    cr_expect(json_array_size(r) == 3 && json_is_string(json_array_get(r, 1)) &&
              json_integer_value(json_object_get(json_array_get(r, 2), "s")) == 3);
    json_decref(j);
}

Test(yaml2json, anchors_and_aliases_expand)
{
    char err[200];
    json_t *j = yaml("a: &x {k: [1, 2]}\nb: *x\nc: *x\n", err, sizeof err);
    cr_assert(j, "%s", err);
    cr_expect(json_equal(json_object_get(j, "a"), json_object_get(j, "b")));
    cr_expect(json_equal(json_object_get(j, "a"), json_object_get(j, "c")));
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(json_object_get(j, "c"), "k"), 1)), 2);
    json_decref(j);
}

Test(yaml2json, errors_are_reported_with_a_line)
{
    char err[200] = "";
    cr_expect_null(yaml("a: 1\nb: [1, 2\nc: 3\n", err, sizeof err));
    cr_expect(strstr(err, "line"), "%s", err);
    /* a duplicate key would silently drop half of a path or schema */
    err[0] = '\0';
    cr_expect_null(yaml("paths:\n  /a: 1\n  /b: 2\n  /a: 3\n", err, sizeof err));
    cr_expect(strstr(err, "/a") && strstr(err, "line 4"), "%s", err);
    err[0] = '\0';
    cr_expect_null(yaml("[1, 2]: x\n", err, sizeof err));
    cr_expect(err[0]);
    err[0] = '\0';
    cr_expect_null(yaml("", err, sizeof err));
    cr_expect(err[0]);
    /* deep nesting is refused rather than overflowing the stack */
    char deep[1200];
    size_t n = 0;
    for (int i = 0; i < 200; i++)
        deep[n++] = '[';
    for (int i = 0; i < 200; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    err[0] = '\0';
    cr_expect_null(yaml(deep, err, sizeof err));
    cr_expect(err[0]);
}
