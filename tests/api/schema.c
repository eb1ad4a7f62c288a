/* schema.c - a JSON-schema subset, enough for the served contract (/openapi.json):
 * type (incl. arrays for nullable), required, properties, additionalProperties,
 * items, enum, const, $ref, oneOf/anyOf/allOf, numeric bounds, pattern,
 * minItems/maxItems. Shared by the API tests (test_openapi.c, test_oracles.c,
 * test_faults.c) and the fuzz targets (tests/fuzz/fuzz_common.c); no Criterion here. */
#include "schema.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "#/components/schemas/X" -> the value (JSON pointer with ~0 ~1). */
const json_t *resolve(const json_t *doc, const char *ref)
{
    if (strncmp(ref, "#/", 2) != 0)
        return NULL;
    const json_t *cur = doc;
    const char *p = ref + 2;
    while (cur && *p) {
        char key[256];
        size_t n = 0;
        while (*p && *p != '/' && n + 1 < sizeof key) {
            if (p[0] == '~' && p[1] == '1') {
                key[n++] = '/';
                p += 2;
            } else if (p[0] == '~' && p[1] == '0') {
                key[n++] = '~';
                p += 2;
            } else {
                key[n++] = *p++;
            }
        }
        key[n] = '\0';
        if (*p == '/')
            p++;
        cur = json_is_array(cur) ? json_array_get(cur, (size_t)atoi(key)) : json_object_get(cur, key);
    }
    return cur;
}

/* An object that may be a {$ref}: follow it. */
const json_t *deref(const json_t *doc, const json_t *v)
{
    for (int i = 0; i < 8 && v; i++) {
        const json_t *r = json_object_get(v, "$ref");
        if (!json_is_string(r))
            return v;
        v = resolve(doc, json_string_value(r));
    }
    return v;
}

/* ---- a JSON-schema subset ------------------------------------------------------------------ */

bool same_value(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same_value(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v) {
            if (!json_object_get(b, k) || !same_value(v, json_object_get(b, k)))
                return false;
        }
        return true;
    }
    return json_equal(a, b);
}

static bool type_is(const char *t, const json_t *v)
{
    if (!strcmp(t, "null"))
        return json_is_null(v);
    if (!strcmp(t, "boolean"))
        return json_is_boolean(v);
    if (!strcmp(t, "object"))
        return json_is_object(v);
    if (!strcmp(t, "array"))
        return json_is_array(v);
    if (!strcmp(t, "string"))
        return json_is_string(v);
    if (!strcmp(t, "number"))
        return json_is_number(v);
    if (!strcmp(t, "integer"))
        return json_is_integer(v) || (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)));
    return false;
}

typedef struct {
    const json_t *doc;
    char err[1024];
} vctx;

static bool fail_at(vctx *c, const char *path, const char *what)
{
    snprintf(c->err, sizeof c->err, "%s: %s", *path ? path : "(root)", what);
    return false;
}

static bool validate(vctx *c, const json_t *s, const json_t *v, const char *path, int depth);

static bool validate_all(vctx *c, const json_t *list, const json_t *v, const char *path, int depth, int *matched)
{
    *matched = 0;
    size_t i;
    json_t *sub;
    char first_err[1024] = "";
    json_array_foreach(list, i, sub) {
        if (validate(c, sub, v, path, depth + 1))
            (*matched)++;
        else if (!first_err[0])
            snprintf(first_err, sizeof first_err, "%s", c->err);
    }
    snprintf(c->err, sizeof c->err, "%s", first_err);
    return true;
}

static bool validate(vctx *c, const json_t *s, const json_t *v, const char *path, int depth)
{
    char msg[600];
    if (depth > 64)
        return fail_at(c, path, "schema nesting too deep (a $ref cycle?)");
    if (json_is_true(s) || !s)
        return true;
    if (json_is_false(s))
        return fail_at(c, path, "no value allowed here");
    const json_t *ref = json_object_get(s, "$ref");
    if (ref) {
        const json_t *target = resolve(c->doc, json_string_value(ref));
        if (!target)
            return fail_at(c, path, "unresolvable $ref");
        if (!validate(c, target, v, path, depth + 1))
            return false;
    }
    const json_t *type = json_object_get(s, "type");
    if (type) {
        bool ok = false;
        if (json_is_string(type)) {
            ok = type_is(json_string_value(type), v);
        } else {
            size_t i;
            json_t *t;
            json_array_foreach(type, i, t) ok |= type_is(json_string_value(t), v);
        }
        if (!ok) {
            char *ts = json_dumps(type, JSON_COMPACT | JSON_ENCODE_ANY);
            char *vs = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            snprintf(msg, sizeof msg, "expected type %s, got %.200s", ts, vs);
            free(ts);
            free(vs);
            return fail_at(c, path, msg);
        }
    }
    const json_t *en = json_object_get(s, "enum");
    if (en) {
        bool ok = false;
        size_t i;
        json_t *e;
        json_array_foreach(en, i, e) ok |= same_value(e, v);
        if (!ok) {
            char *vs = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            snprintf(msg, sizeof msg, "%.200s is not one of the enum values", vs);
            free(vs);
            return fail_at(c, path, msg);
        }
    }
    const json_t *cn = json_object_get(s, "const");
    if (cn && !same_value(cn, v))
        return fail_at(c, path, "does not equal const");
    if (json_is_number(v)) {
        double x = json_number_value(v);
        const json_t *mn = json_object_get(s, "minimum"), *mx = json_object_get(s, "maximum"),
                     *emn = json_object_get(s, "exclusiveMinimum");
        if (mn && x < json_number_value(mn))
            return fail_at(c, path, "below minimum");
        if (mx && x > json_number_value(mx))
            return fail_at(c, path, "above maximum");
        if (emn && x <= json_number_value(emn))
            return fail_at(c, path, "not above exclusiveMinimum");
    }
    if (json_is_string(v)) {
        const json_t *pat = json_object_get(s, "pattern");
        if (pat) {
            regex_t re;
            if (regcomp(&re, json_string_value(pat), REG_EXTENDED | REG_NOSUB) != 0) {
                snprintf(msg, sizeof msg, "the schema's pattern %.200s does not compile", json_string_value(pat));
                return fail_at(c, path, msg);
            }
            int m = regexec(&re, json_string_value(v), 0, NULL, 0);
            regfree(&re);
            if (m != 0) {
                snprintf(msg, sizeof msg, "'%.100s' does not match %s", json_string_value(v), json_string_value(pat));
                return fail_at(c, path, msg);
            }
        }
    }
    if (json_is_object(v)) {
        const json_t *req = json_object_get(s, "required");
        size_t i;
        json_t *r;
        json_array_foreach(req, i, r) {
            if (!json_object_get(v, json_string_value(r))) {
                snprintf(msg, sizeof msg, "missing required property '%s'", json_string_value(r));
                return fail_at(c, path, msg);
            }
        }
        const json_t *props = json_object_get(s, "properties"), *addl = json_object_get(s, "additionalProperties");
        const char *k;
        json_t *pv;
        json_object_foreach((json_t *)v, k, pv) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", path, k);
            const json_t *ps = json_object_get(props, k);
            if (ps) {
                if (!validate(c, ps, pv, sub, depth + 1))
                    return false;
            } else if (json_is_false(addl)) {
                return fail_at(c, sub, "property not allowed by the schema");
            } else if (json_is_object(addl) && !validate(c, addl, pv, sub, depth + 1)) {
                return false;
            }
        }
    }
    if (json_is_array(v)) {
        const json_t *items = json_object_get(s, "items"), *mni = json_object_get(s, "minItems"),
                     *mxi = json_object_get(s, "maxItems");
        if (mni && json_array_size(v) < (size_t)json_integer_value(mni))
            return fail_at(c, path, "too few items");
        if (mxi && json_array_size(v) > (size_t)json_integer_value(mxi))
            return fail_at(c, path, "too many items");
        if (items) {
            size_t i;
            json_t *it;
            json_array_foreach(v, i, it) {
                char sub[512];
                snprintf(sub, sizeof sub, "%s[%zu]", path, i);
                if (!validate(c, items, it, sub, depth + 1))
                    return false;
            }
        }
    }
    const json_t *all = json_object_get(s, "allOf"), *any = json_object_get(s, "anyOf"),
                 *one = json_object_get(s, "oneOf");
    int m;
    if (all) {
        validate_all(c, all, v, path, depth, &m);
        if ((size_t)m != json_array_size(all))
            return false;
    }
    if (any) {
        validate_all(c, any, v, path, depth, &m);
        if (m == 0) {
            snprintf(msg, sizeof msg, "matches none of anyOf (first reason: %.400s)", c->err);
            return fail_at(c, path, msg);
        }
    }
    if (one) {
        validate_all(c, one, v, path, depth, &m);
        if (m != 1) {
            snprintf(msg, sizeof msg, "matches %d of oneOf, not exactly 1 (%.400s)", m, c->err);
            return fail_at(c, path, msg);
        }
    }
    return true;
}

bool check_schema(const json_t *doc, const json_t *schema, const json_t *v, char *err, size_t errlen)
{
    vctx c = {.doc = doc};
    bool ok = validate(&c, schema, v, "", 0);
    snprintf(err, errlen, "%s", c.err);
    return ok;
}

/* ---- the contract as an oracle ---------------------------------------------------------------- */

/* Does template "/solvers/{name}" match the path part "/solvers/serving"? */
static bool template_matches(const char *tmpl, const char *path, size_t plen)
{
    const char *t = tmpl, *p = path, *end = path + plen;
    while (*t && p < end) {
        if (*t == '{') {
            const char *close = strchr(t, '}');
            if (!close)
                return false;
            t = close + 1;
            const char *seg = p;
            while (p < end && *p != '/')
                p++;
            if (p == seg)
                return false;
        } else if (*t++ != *p++) {
            return false;
        }
    }
    return !*t && p == end;
}

const json_t *contract_operation(const json_t *doc, const char *method, const char *path)
{
    char m[16];
    size_t k;
    for (k = 0; method[k] && k + 1 < sizeof m; k++)
        m[k] = (char)((method[k] >= 'A' && method[k] <= 'Z') ? method[k] + 32 : method[k]);
    m[k] = '\0';
    size_t plen = strcspn(path, "?");
    const json_t *paths = json_object_get(doc, "paths");
    const char *tmpl;
    json_t *item;
    const json_t *by_template = NULL;
    json_object_foreach((json_t *)paths, tmpl, item) {
        if (strlen(tmpl) == plen && !strncmp(tmpl, path, plen))
            return json_object_get(item, m);
        if (!by_template && strchr(tmpl, '{') && template_matches(tmpl, path, plen))
            by_template = json_object_get(item, m);
    }
    return by_template;
}

bool contract_check(const json_t *doc, const char *method, const char *path, long status, const char *content_type,
                    const char *body, size_t len, char *err, size_t errlen)
{
    err[0] = '\0';
    const json_t *op = contract_operation(doc, method, path);
    if (!op && (status == 404 || status == 405)) {
        /* A path or a method the contract has not (no document can list what is
         * absent): the refusal is a Problem, as components/responses says. */
        char media[128];
        snprintf(media, sizeof media, "%.*s", (int)strcspn(content_type ? content_type : "", "; "),
                 content_type ? content_type : "");
        if (strcmp(media, "application/problem+json") != 0) {
            snprintf(err, errlen, "%s %s %ld: media type '%s', not application/problem+json", method, path, status,
                     media);
            return false;
        }
        json_t *j = json_loadb(body, len, 0, NULL);
        char sub[1024];
        bool ok = j && check_schema(doc, resolve(doc, "#/components/schemas/Problem"), j, sub, sizeof sub);
        if (!ok)
            snprintf(err, errlen, "%s %s %ld: not a Problem: %.700s", method, path, status, j ? sub : "not JSON");
        json_decref(j);
        return ok;
    }
    if (!op) {
        snprintf(err, errlen, "the contract has no %s %s", method, path);
        return false;
    }
    char code[8];
    snprintf(code, sizeof code, "%ld", status);
    const json_t *resps = json_object_get(op, "responses");
    const json_t *resp = deref(doc, json_object_get(resps, code));
    if (!resp)
        resp = deref(doc, json_object_get(resps, "default"));
    if (!resp) {
        snprintf(err, errlen, "%s %s: status %ld is not declared", method, path, status);
        return false;
    }
    const json_t *content = json_object_get(resp, "content");
    if (!content || json_object_size(content) == 0) {
        if (len != 0) {
            snprintf(err, errlen, "%s %s %ld: a body where none is declared", method, path, status);
            return false;
        }
        return true;
    }
    char media[128];
    snprintf(media, sizeof media, "%.*s", (int)strcspn(content_type ? content_type : "", "; "),
             content_type ? content_type : "");
    const json_t *mo = json_object_get(content, media);
    if (!mo) {
        snprintf(err, errlen, "%s %s %ld: media type '%s' is not declared", method, path, status, media);
        return false;
    }
    char sub[1024];
    if (!strcmp(media, "application/json") || strstr(media, "+json")) {
        json_error_t je;
        json_t *j = json_loadb(body, len, 0, &je);
        if (!j) {
            snprintf(err, errlen, "%s %s %ld: the body is not JSON (%s): %.200s", method, path, status, je.text, body);
            return false;
        }
        bool ok = check_schema(doc, json_object_get(mo, "schema"), j, sub, sizeof sub);
        if (!ok)
            snprintf(err, errlen, "%s %s %ld %s: %.700s", method, path, status, media, sub);
        json_decref(j);
        return ok;
    }
    if (!strcmp(media, "application/x-ndjson")) {
        const json_t *ls = json_object_get(mo, "x-ndjson-line");
        if (!ls) {
            snprintf(err, errlen, "%s %s %ld: application/x-ndjson without x-ndjson-line", method, path, status);
            return false;
        }
        int line = 0;
        for (const char *p = body, *end = body + len; p < end; line++) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) {
                snprintf(err, errlen, "%s %s: NDJSON line %d does not end in LF", method, path, line + 1);
                return false;
            }
            json_t *j = json_loadb(p, (size_t)(nl - p), 0, NULL);
            if (!j) {
                snprintf(err, errlen, "%s %s: NDJSON line %d is not JSON: %.200s", method, path, line + 1, p);
                return false;
            }
            bool ok = check_schema(doc, ls, j, sub, sizeof sub);
            json_decref(j);
            if (!ok) {
                snprintf(err, errlen, "%s %s: NDJSON line %d: %.700s", method, path, line + 1, sub);
                return false;
            }
            p = nl + 1;
        }
        return true;
    }
    if (!strcmp(media, "text/csv")) {
        if (len == 0)
            return true; /* a shard past the header */
        if (len < 2 || body[len - 2] != '\r' || body[len - 1] != '\n') {
            snprintf(err, errlen, "%s %s: CSV does not end in CRLF", method, path);
            return false;
        }
        for (size_t i = 0; i < len; i++)
            if (body[i] == '\n' && (i == 0 || body[i - 1] != '\r')) {
                snprintf(err, errlen, "%s %s: a CSV line ends in a bare LF at byte %zu", method, path, i);
                return false;
            }
        return true;
    }
    if (len == 0) {
        snprintf(err, errlen, "%s %s %ld %s: empty body", method, path, status, media);
        return false;
    }
    return true;
}
