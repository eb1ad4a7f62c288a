/* app.c - routing and the handlers of every endpoint except /sweep
 * (sweep.c). Pure request -> response: no sockets here. */
#include "server/app.h"

#include <math.h>
#include <stdint.h>
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

static struct app_prebuilt *prebuild(const catalog *cat);
static void prebuild_responses(app *a);
static void prebuilt_free(struct app_prebuilt *pb);

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
    a->pre = prebuild(cat);
    prebuild_responses(a);
    return 0;
}

void app_free(app *a)
{
    json_decref(a->openapi);
    prebuilt_free(a->pre);
    a->pre = NULL;
}

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

/* The JSON path ("inputs.efficiency", "axes[0].values[2]") of the member
 * being read at byte `end` of a document that failed to parse there, so that
 * a NaN, 1e400 or a duplicate key is reported against its field like any
 * other bad value. Best effort: "" outside any member or when too deep. */
static void json_error_path(const char *s, size_t end, char *out, size_t n)
{
    enum { DEPTH = 32, KEY = 64 };
    struct {
        char type;       /* '{' or '[' */
        bool in_value;   /* object: after ':' */
        bool key_done;   /* object: a whole key was read (a duplicate is reported right after it) */
        long index;      /* array: current element */
        char key[KEY];
    } st[DEPTH];
    int depth = 0;
    out[0] = '\0';
    for (size_t i = 0; i < end;) {
        char c = s[i];
        if (c == '"') {
            size_t k = 0;
            char key[KEY];
            for (i++; i < end && s[i] != '"'; i++) {
                if (s[i] == '\\' && i + 1 < end)
                    i++;
                if (k < KEY - 1)
                    key[k++] = s[i];
            }
            key[k] = '\0';
            bool closed = i < end;
            i++;
            if (depth > 0 && depth <= DEPTH && st[depth - 1].type == '{' && !st[depth - 1].in_value &&
                !st[depth - 1].key_done) {
                memcpy(st[depth - 1].key, key, k + 1);
                st[depth - 1].key_done = closed;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth < DEPTH) {
                st[depth].type = c;
                st[depth].in_value = st[depth].key_done = false;
                st[depth].index = 0;
                st[depth].key[0] = '\0';
            }
            depth++;
        } else if ((c == '}' || c == ']') && depth > 0) {
            depth--;
        } else if (c == ':' && depth > 0 && depth <= DEPTH) {
            st[depth - 1].in_value = true;
        } else if (c == ',' && depth > 0 && depth <= DEPTH) {
            st[depth - 1].in_value = st[depth - 1].key_done = false;
            st[depth - 1].index++;
        }
        i++;
    }
    if (depth > DEPTH)
        return;
    size_t used = 0;
    for (int d = 0; d < depth && used < n; d++) {
        int w;
        if (st[d].type == '[')
            w = snprintf(out + used, n - used, "[%ld]", st[d].index);
        else if (st[d].key_done)
            w = snprintf(out + used, n - used, "%s%s", used ? "." : "", st[d].key);
        else
            break; /* inside a key of this object: the object is the field */
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (used >= n)
        out[n - 1] = '\0';
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
        char field[160];
        size_t at = jerr.position >= 0 && (size_t)jerr.position <= req->body_len ? (size_t)jerr.position : req->body_len;
        json_error_path(req->body, at, field, sizeof field);
        api_fail(err, 400, "invalid-json", field, "invalid JSON at line %d, column %d: %s", jerr.line, jerr.column,
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

/* --- text rendered once at start-up ------------------------------------------------ */

/* The "resolved" part of a /solve answer is the summary of a catalog entry: the
 * same text for every request that names the entry. It is rendered once per entry
 * at start-up (by the same hardware_summary / model_summary + json_write) and
 * looked up by the entry's address; inline entries are rendered per request. */
typedef struct {
    const void *key; /* a catalog hw_node * or model_t * */
    char *text;
    size_t len;
} prebuilt_entry;

/* Whole 200 answers of the static GET endpoints, rendered at start-up by their own
 * handlers (prebuild_responses) and copied out per request (send_prebuilt). */
typedef struct {
    char *body; /* NULL: not prebuilt, the handler runs */
    size_t len;
    const char *content_type;
} prebuilt_resp;

typedef struct {
    const catalog_edition *ed;
    prebuilt_resp lists[3];   /* /catalog, /catalog/hardware, /catalog/models */
    prebuilt_resp *hardware;  /* /catalog/hardware/{id}, by entry index */
    prebuilt_resp *models;    /* /catalog/models/{id} */
} prebuilt_edition;

/* The fixed parts of a solver's /solve answer: "name": of each output, the units object. */
typedef struct {
    char **keys;
    size_t *key_len;
    char *units;
    size_t units_len;
} prebuilt_solver;

struct app_prebuilt {
    prebuilt_entry *slots;
    size_t mask; /* number of slots - 1, a power of two */
    prebuilt_solver *frag;                        /* by registry index */
    prebuilt_resp openapi_json, solvers, *solver; /* solver: by registry index */
    prebuilt_edition *editions;
    size_t n_editions;
};

static size_t ptr_hash(const void *p)
{
    unsigned long long x = (unsigned long long)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static void prebuilt_put(struct app_prebuilt *pb, const void *key, json_t *j)
{
    size_t i = ptr_hash(key) & pb->mask;
    while (pb->slots[i].key && pb->slots[i].key != key)
        i = (i + 1) & pb->mask;
    if (!pb->slots[i].key && j) {
        strbuf b;
        sb_init(&b);
        json_write(&b, j, 0);
        if (!b.oom) {
            pb->slots[i].key = key;
            pb->slots[i].text = sb_detach(&b, &pb->slots[i].len);
        }
        sb_free(&b);
    }
    json_decref(j);
}

static const prebuilt_entry *prebuilt_get(const app *a, const void *key)
{
    const struct app_prebuilt *pb = a->pre;
    if (!pb)
        return NULL;
    for (size_t i = ptr_hash(key) & pb->mask; pb->slots[i].key; i = (i + 1) & pb->mask)
        if (pb->slots[i].key == key)
            return &pb->slots[i];
    return NULL;
}

static void prebuilt_free(struct app_prebuilt *pb)
{
    if (!pb)
        return;
    for (size_t i = 0; pb->slots && i <= pb->mask; i++)
        free(pb->slots[i].text);
    free(pb->slots);
    for (size_t i = 0; pb->frag && i < solver_count(); i++) {
        for (size_t k = 0; pb->frag[i].keys && k < solver_at(i)->n_outputs; k++)
            free(pb->frag[i].keys[k]);
        free(pb->frag[i].keys);
        free(pb->frag[i].key_len);
        free(pb->frag[i].units);
    }
    free(pb->frag);
    free(pb->openapi_json.body);
    free(pb->solvers.body);
    for (size_t i = 0; pb->solver && i < solver_count(); i++)
        free(pb->solver[i].body);
    free(pb->solver);
    for (size_t e = 0; e < pb->n_editions; e++) {
        prebuilt_edition *pe = &pb->editions[e];
        for (int k = 0; k < 3; k++)
            free(pe->lists[k].body);
        for (size_t i = 0; pe->hardware && i < edition_hardware_count(pe->ed); i++)
            free(pe->hardware[i].body);
        for (size_t i = 0; pe->models && i < edition_model_count(pe->ed); i++)
            free(pe->models[i].body);
        free(pe->hardware);
        free(pe->models);
    }
    free(pb->editions);
    free(pb);
}

/* NULL when out of memory: then everything is rendered per request, as before. */
static struct app_prebuilt *prebuild(const catalog *cat)
{
    size_t n = 0;
    for (size_t e = 0; e < catalog_edition_count(cat); e++) {
        const catalog_edition *ed = catalog_edition_at(cat, e);
        n += edition_hardware_count(ed) + edition_model_count(ed);
    }
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    struct app_prebuilt *pb = calloc(1, sizeof *pb);
    if (!pb || !(pb->slots = calloc(cap, sizeof *pb->slots))) {
        free(pb);
        return NULL;
    }
    pb->mask = cap - 1;
    for (size_t e = 0; e < catalog_edition_count(cat); e++) {
        const catalog_edition *ed = catalog_edition_at(cat, e);
        for (size_t i = 0; i < edition_hardware_count(ed); i++)
            prebuilt_put(pb, edition_hardware_at(ed, i), hardware_summary(edition_hardware_at(ed, i)));
        for (size_t i = 0; i < edition_model_count(ed); i++)
            prebuilt_put(pb, edition_model_at(ed, i), model_summary(edition_model_at(ed, i)));
    }
    return pb;
}

/* --- /solve ------------------------------------------------------------------------ */

/* A number as inputs.c's num_json() + json_write() print it. */
static void put_num(strbuf *b, double x, bool as_int)
{
    if (!isfinite(x))
        sb_puts(b, "null");
    else if (as_int && fabs(x) <= 9007199254740992.0 && x == floor(x)) {
        /* "%" JSON_INTEGER_FORMAT of (json_int_t)x, without printf */
        char tmp[24], *p = tmp + sizeof tmp;
        long long i = (long long)x;
        unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (i < 0)
            *--p = '-';
        sb_append(b, p, (size_t)(tmp + sizeof tmp - p));
    } else
        sb_number(b, x);
}

/* A message string as a JSON array element: json_string() refuses invalid UTF-8
 * (a message cut at SOLVER_MESSAGE_LEN inside a character), and such an element
 * was left out of the array; so it is here. */
static void put_message(strbuf *b, const char *msg, bool *first)
{
    json_t *j = json_string(msg);
    if (!j)
        return;
    if (!*first)
        sb_putc(b, ',');
    *first = false;
    sb_json_string(b, json_string_value(j));
    json_decref(j);
}

static void put_summary(app *a, strbuf *b, const void *entry, json_t *(*render)(const void *))
{
    const prebuilt_entry *pe = prebuilt_get(a, entry);
    if (pe) {
        sb_append(b, pe->text, pe->len);
        return;
    }
    json_t *j = render(entry);
    json_write(b, j, 0);
    json_decref(j);
}

/* Would json_string(s) accept s? jansson's rule (utf.c), without allocating: well-formed
 * UTF-8, no overlong forms, no surrogates, nothing above U+10FFFF. */
static bool utf8_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        size_t n;
        unsigned cp, min;
        if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; min = 0x80; }
        else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; min = 0x800; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; min = 0x10000; }
        else return false;
        for (size_t i = 1; i < n; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        p += n;
    }
    return true;
}


/* The inputs as used: numbers in each input's declared unit, records by
 * key (input_ref_key), lists as arrays of the ids given, null where null. */
static void write_echo(strbuf *b, const solver_desc *s, const solver_inputs *in)
{
    sb_putc(b, '{');
    bool first = true;
    for (size_t i = 0; i < s->n_inputs; i++) {
        const input_desc *d = &s->inputs[i];
        const input_value *v = &in->v[i];
        if (!v->present)
            continue;
        const char *key = d->kind == IN_REF && !v->is_null ? input_ref_key(v) : NULL;
        if (key && !utf8_ok(key))
            continue; /* not valid JSON text: left out */
        if (!first)
            sb_putc(b, ',');
        first = false;
        sb_json_string(b, d->name);
        sb_putc(b, ':');
        if (v->is_null) {
            sb_puts(b, "null");
            continue;
        }
        switch (d->kind) {
        case IN_NUMBER: put_num(b, v->num, v->num_was_int); break;
        case IN_INTEGER: put_num(b, v->num, true); break;
        case IN_BOOLEAN: sb_puts(b, v->num != 0 ? "true" : "false"); break;
        case IN_ENUM: sb_json_string(b, d->enum_values[v->enum_index]); break;
        case IN_QUANTITY: {
            double shown = v->num;
            units_to(v->num, d->unit, *d->dim, &shown);
            put_num(b, shown, false);
            break;
        }
        case IN_REF: sb_json_string(b, key); break;
        case IN_LIST:
            sb_putc(b, '[');
            for (int k = 0; k < v->n_items; k++) {
                if (k)
                    sb_putc(b, ',');
                sb_json_string(b, utf8_ok(v->items[k].name) ? v->items[k].name : "");
            }
            sb_putc(b, ']');
            break;
        }
    }
    sb_putc(b, '}');
}

/* {"output":"unit",...} for the outputs that have a unit. */
static void write_units(strbuf *b, const solver_desc *s)
{
    sb_putc(b, '{');
    bool first = true;
    for (size_t i = 0; i < s->n_outputs; i++) {
        const output_desc *d = &s->outputs[i];
        if (!d->unit[0])
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        sb_json_string(b, d->name);
        sb_putc(b, ':');
        sb_json_string(b, d->unit);
    }
    sb_putc(b, '}');
}

static const prebuilt_solver *solver_frag(const app *a, const solver_desc *s)
{
    for (size_t i = 0; a->pre && a->pre->frag && i < solver_count(); i++)
        if (solver_at(i) == s)
            return a->pre->frag[i].keys && a->pre->frag[i].units ? &a->pre->frag[i] : NULL;
    return NULL;
}

/* Render the fixed parts of every solver's answer (NULL members: rendered per request). */
static void prebuild_fragments(struct app_prebuilt *pb)
{
    pb->frag = calloc(solver_count(), sizeof *pb->frag);
    for (size_t i = 0; pb->frag && i < solver_count(); i++) {
        const solver_desc *s = solver_at(i);
        prebuilt_solver *f = &pb->frag[i];
        strbuf b;
        sb_init(&b);
        write_units(&b, s);
        f->units = b.oom ? NULL : sb_detach(&b, &f->units_len);
        sb_free(&b);
        char **keys = calloc(s->n_outputs + 1, sizeof *keys);
        f->key_len = calloc(s->n_outputs + 1, sizeof *f->key_len);
        bool ok = keys && f->key_len;
        for (size_t k = 0; ok && k < s->n_outputs; k++) {
            sb_init(&b);
            sb_json_string(&b, output_member_name(&s->outputs[k]));
            sb_putc(&b, ':');
            ok = !b.oom;
            keys[k] = ok ? sb_detach(&b, &f->key_len[k]) : NULL;
            sb_free(&b);
        }
        if (!ok && keys) {
            for (size_t k = 0; k < s->n_outputs; k++)
                free(keys[k]);
            free(keys);
            keys = NULL;
        }
        f->keys = keys;
    }
}

static json_t *render_hw(const void *p) { return hardware_summary(p); }
static json_t *render_model(const void *p) { return model_summary(p); }

/* The /solve answer, written straight into the response: the bytes that building
 * the JSON tree (solver, inputs, result, units, input_units, resolved, trace,
 * warnings, catalog, catalog_version) and json_write() gave, without the tree. */
static void write_solve(app *a, app_response *resp, const solver_desc *s, const catalog_edition *ed,
                        const solver_inputs *in, const solver_outputs *out)
{
    strbuf *b = &resp->body;
    /* One allocation of 4 KiB up front (an answer is 2-3 KB) instead of growing from 256 B. */
    if (b->cap < 4096) {
        static const char room[4000];
        sb_append(b, room, sizeof room);
    }
    sb_reset(b);
    sb_puts(b, "{\"solver\":");
    sb_json_string(b, s->name);
    sb_puts(b, ",\"inputs\":");
    write_echo(b, s, in);
    sb_puts(b, ",\"result\":{");
    const prebuilt_solver *ps = solver_frag(a, s);
    const output_desc *open = NULL; /* the first member of the record being written */
    for (size_t i = 0; i < s->n_outputs; i++) {
        const output_desc *d = &s->outputs[i];
        const output_value *v = &out->v[i];
        size_t plen = output_record_len(d);
        bool same = open && plen == output_record_len(open) && !memcmp(open->name, d->name, plen);
        if (open && !same) {
            sb_putc(b, '}');
            open = NULL;
        }
        if (i)
            sb_putc(b, ',');
        if (plen && !open) {
            sb_putc(b, '"');
            sb_append(b, d->name, plen);
            sb_puts(b, "\":{");
            open = d;
        }
        if (ps) {
            sb_append(b, ps->keys[i], ps->key_len[i]);
        } else {
            sb_json_string(b, output_member_name(d));
            sb_putc(b, ':');
        }
        if (v->is_null) {
            sb_puts(b, "null");
            continue;
        }
        switch (d->kind) {
        case OUT_STRING: sb_json_string(b, v->str ? v->str : ""); break;
        case OUT_BOOLEAN: sb_puts(b, v->num != 0 ? "true" : "false"); break;
        case OUT_INTEGER: put_num(b, v->num, true); break;
        case OUT_NUMBER: put_num(b, v->num, false); break;
        }
    }
    if (open)
        sb_putc(b, '}');
    sb_puts(b, "},\"units\":");
    if (ps)
        sb_append(b, ps->units, ps->units_len);
    else
        write_units(b, s);
    sb_puts(b, ",\"input_units\":{");
    bool first = true;
    for (size_t i = 0; i < s->n_inputs; i++) {
        if (s->inputs[i].kind != IN_QUANTITY || !in->v[i].present)
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        sb_json_string(b, s->inputs[i].name);
        sb_putc(b, ':');
        sb_json_string(b, s->inputs[i].unit);
    }
    sb_puts(b, "},\"resolved\":{");
    first = true;
    for (size_t i = 0; i < s->n_inputs; i++) {
        const input_value *v = &in->v[i];
        bool hw = s->inputs[i].kind == IN_REF && v->ref_kind == REC_HARDWARE && v->ref,
             model = s->inputs[i].kind == IN_REF && v->ref_kind == REC_MODEL && v->ref;
        if (!v->present || v->is_null || !(hw || model))
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        sb_json_string(b, s->inputs[i].name);
        sb_putc(b, ':');
        put_summary(a, b, v->ref, hw ? render_hw : render_model);
    }
    sb_puts(b, "},\"trace\":[");
    first = true;
    for (int i = 0; i < out->n_trace; i++)
        put_message(b, out->trace[i], &first);
    sb_puts(b, "],\"warnings\":[");
    first = true;
    for (size_t i = 0; i < s->n_outputs; i++) {
        const output_desc *d = &s->outputs[i];
        const output_value *v = &out->v[i];
        if ((d->kind == OUT_NUMBER || d->kind == OUT_INTEGER) && !v->is_null && !isfinite(v->num)) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s is %s, reported as null", d->name,
                     isnan(v->num) ? "undefined (NaN)" : v->num > 0 ? "infinite" : "-infinite");
            put_message(b, msg, &first);
        }
    }
    for (int i = 0; i < out->n_warnings; i++)
        put_message(b, out->warnings[i], &first);
    sb_puts(b, "],\"catalog\":");
    sb_json_string(b, edition_name(ed));
    sb_puts(b, ",\"catalog_version\":");
    sb_json_string(b, edition_version(ed));
    sb_puts(b, "}\n");
    resp->status = 200;
    resp->content_type = JSON_CT;
}

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
    /* as calloc'd for what is read: the values and the message counts (messages are
     * read only below their count) */
    memset(out->v, 0, sizeof out->v);
    out->n_warnings = 0;
    out->n_trace = 0;
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
            write_solve(a, resp, s, ed, in, out);
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
            solve_and_reply(a, resp, req, s, ed, json_object_get(body, "inputs"));
    }
    json_decref(body);
}

/* A member of an inline record from a query string: what the text reads as
 * in JSON (64, 2.5, true, null), else the string ("4.1 GFLOP", "DGX_H100"). */
static json_t *member_from_text(const char *v)
{
    json_t *j = json_loads(v, JSON_DECODE_ANY, NULL);
    if (j && (json_is_number(j) || json_is_boolean(j) || json_is_null(j)))
        return j;
    json_decref(j);
    return json_string(v);
}

/* Query string -> an "inputs" object. Dotted names build inline records:
 * model=ResNet50&model.inference_flops=4.1%20GFLOP, fleet.node=DGX_H100&fleet.count=64. */
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
        /* errors name it as POST /solve would: "inputs.%.140s", without snprintf per argument */
        size_t kl = strnlen(k, 140);
        memcpy(field, "inputs.", 7);
        memcpy(field + 7, k, kl);
        field[7 + kl] = '\0';
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
            if (d->kind != IN_REF) {
                json_decref(o);
                return api_fail(err, 400, "unknown-input", field,
                                "'%.100s': only catalog record inputs (model, hardware, fleet, ...) take dotted fields",
                                k);
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
            json_object_set_new(cur, dot + 1, member_from_text(v));
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
    solve_and_reply(a, resp, req, s, ed, inputs);
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

/* --- static answers, rendered once ---------------------------------------------------------- */

/* Run a handler on a synthetic GET (with ?catalog=EDITION when ed is not NULL) and
 * keep its answer if it is a 200. */
static void render_once(app *a, route_id rt, const catalog_edition *ed, const char *param, prebuilt_resp *out)
{
    app_request req = {.method = "GET", .path = "/", .request_id = "prebuilt"};
    if (ed) {
        req.query[0].key = "catalog";
        req.query[0].value = edition_name(ed);
        req.n_query = 1;
    }
    app_response resp = {0};
    sb_init(&resp.body);
    switch (rt) {
    case R_OPENAPI_JSON: send_json(&resp, json_incref(a->openapi)); break;
    case R_SOLVERS: handle_solvers(&resp, &req, NULL); break;
    case R_SOLVER: handle_solvers(&resp, &req, param); break;
    case R_CATALOG: handle_catalog(a, &req, &resp, -1, param); break;
    case R_CATALOG_HW:
    case R_CATALOG_HW_ID: handle_catalog(a, &req, &resp, CAT_HARDWARE, param); break;
    case R_CATALOG_MODELS:
    case R_CATALOG_MODEL_ID: handle_catalog(a, &req, &resp, CAT_MODEL, param); break;
    default: break;
    }
    if (resp.status == 200 && !resp.stream && !resp.body.oom && resp.body.data) {
        out->content_type = resp.content_type;
        out->body = sb_detach(&resp.body, &out->len);
    }
    app_response_free(&resp);
}

/* /openapi.json, /solvers, /solvers/{name} and the /catalog answers of every entry and
 * edition do not change while the daemon runs: render them at start-up. Whatever fails
 * to render (out of memory) is simply rendered per request. */
static void prebuild_responses(app *a)
{
    struct app_prebuilt *pb = a->pre;
    if (!pb)
        return;
    prebuild_fragments(pb);
    render_once(a, R_OPENAPI_JSON, NULL, NULL, &pb->openapi_json);
    render_once(a, R_SOLVERS, NULL, NULL, &pb->solvers);
    pb->solver = calloc(solver_count(), sizeof *pb->solver);
    for (size_t i = 0; pb->solver && i < solver_count(); i++)
        render_once(a, R_SOLVER, NULL, solver_at(i)->name, &pb->solver[i]);
    size_t n = catalog_edition_count(a->cat);
    pb->editions = calloc(n, sizeof *pb->editions);
    if (!pb->editions)
        return;
    pb->n_editions = n;
    for (size_t e = 0; e < n; e++) {
        prebuilt_edition *pe = &pb->editions[e];
        pe->ed = catalog_edition_at(a->cat, e);
        render_once(a, R_CATALOG, pe->ed, NULL, &pe->lists[0]);
        render_once(a, R_CATALOG_HW, pe->ed, NULL, &pe->lists[1]);
        render_once(a, R_CATALOG_MODELS, pe->ed, NULL, &pe->lists[2]);
        pe->hardware = calloc(edition_hardware_count(pe->ed) + 1, sizeof *pe->hardware);
        pe->models = calloc(edition_model_count(pe->ed) + 1, sizeof *pe->models);
        for (size_t i = 0; pe->hardware && i < edition_hardware_count(pe->ed); i++)
            render_once(a, R_CATALOG_HW_ID, pe->ed, edition_hardware_at(pe->ed, i)->key, &pe->hardware[i]);
        for (size_t i = 0; pe->models && i < edition_model_count(pe->ed); i++)
            render_once(a, R_CATALOG_MODEL_ID, pe->ed, edition_model_at(pe->ed, i)->key, &pe->models[i]);
    }
}

/* The prebuilt answer for this request, if there is one: true when resp is filled. Catalog
 * answers are prebuilt for requests without query arguments or with only ?catalog=. */
static bool send_prebuilt(app *a, const app_request *req, app_response *resp, route_id rt, const char *param)
{
    const struct app_prebuilt *pb = a->pre;
    const prebuilt_resp *p = NULL;
    if (!pb)
        return false;
    switch (rt) {
    case R_OPENAPI_JSON: p = &pb->openapi_json; break;
    case R_SOLVERS: p = &pb->solvers; break;
    case R_SOLVER: {
        const solver_desc *s = solver_find(param);
        for (size_t i = 0; s && pb->solver && i < solver_count(); i++)
            if (solver_at(i) == s)
                p = &pb->solver[i];
        break;
    }
    case R_CATALOG:
    case R_CATALOG_HW:
    case R_CATALOG_MODELS:
    case R_CATALOG_HW_ID:
    case R_CATALOG_MODEL_ID: {
        const catalog_edition *ed;
        if (req->n_query == 0)
            ed = catalog_default_edition(a->cat);
        else if (req->n_query == 1 && !strcmp(req->query[0].key, "catalog") && req->query[0].value)
            ed = catalog_edition_find(a->cat, req->query[0].value);
        else
            return false;
        const prebuilt_edition *pe = NULL;
        for (size_t e = 0; ed && e < pb->n_editions; e++)
            if (pb->editions[e].ed == ed)
                pe = &pb->editions[e];
        if (!pe)
            return false;
        if (rt == R_CATALOG || rt == R_CATALOG_HW || rt == R_CATALOG_MODELS) {
            p = &pe->lists[rt == R_CATALOG ? 0 : rt == R_CATALOG_HW ? 1 : 2];
        } else {
            bool hw = rt == R_CATALOG_HW_ID;
            long idx = hw ? edition_find_hardware(ed, param) : edition_find_model(ed, param);
            if (idx >= 0 && (hw ? pe->hardware : pe->models))
                p = hw ? &pe->hardware[idx] : &pe->models[idx];
        }
        break;
    }
    default: break;
    }
    if (!p || !p->body)
        return false;
    sb_reset(&resp->body);
    sb_append(&resp->body, p->body, p->len);
    resp->status = 200;
    resp->content_type = p->content_type;
    return !resp->body.oom;
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
        /* utf8_ok() is json_string()'s test, without allocating two strings per argument */
        bool key_ok = utf8_ok(k), value_ok = !v || utf8_ok(v);
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
    if (send_prebuilt(a, req, resp, r->route, param))
        return;
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
