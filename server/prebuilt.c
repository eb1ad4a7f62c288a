/* prebuilt.c - answers rendered once at start-up, by the same code that renders
 * them per request, and copied out per request. */
#include "server/prebuilt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/catalog_routes.h"
#include "server/conditional.h"
#include "server/gzip.h"
#include "server/jsonw.h"
#include "server/reply.h"
#include "server/solver_routes.h"

/* The "resolved" part of a /solve answer is the summary of a catalog entry: the
 * same text for every request that names the entry. It is rendered once per entry
 * at start-up (by the same edition_entry_summary + json_write) and looked up by
 * the entry's address; inline entries are rendered per request. */
typedef struct {
    const void *key; /* a record of the catalog (edition_record) */
    char *text;
    size_t len;
} prebuilt_entry;

/* Whole 200 answers of the static GET endpoints, rendered at start-up by their own
 * handlers (prebuild_responses) with their ETag, gzip-encoded on the first request
 * that accepts gzip (compressing all of them at start-up would multiply its
 * time), and copied out per request (prebuilt_send) in the encoding the client
 * accepts, or answered with a 304. */
typedef struct {
    char *body; /* NULL: not prebuilt, the handler runs */
    size_t len;
    const char *content_type;
    char etag[ETAG_LEN];
    char gz_etag[ETAG_LEN];
    gzip_once gz;
} prebuilt_resp;

typedef struct {
    const catalog_edition *ed;
    prebuilt_resp all;         /* /catalog                                          */
    prebuilt_resp *lists;      /* /catalog/{kind}, by kind index                    */
    prebuilt_resp **entries;   /* /catalog/{kind}/{id}, by kind index, entry index  */
} prebuilt_edition;

struct app_prebuilt {
    prebuilt_entry *slots;
    size_t mask; /* number of slots - 1, a power of two */
    prebuilt_resp openapi_json, openapi_yaml, solvers, *solver; /* solver: by registry index */
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

const char *prebuilt_summary(const struct app_prebuilt *pb, const void *entry, size_t *len)
{
    if (!pb)
        return NULL;
    for (size_t i = ptr_hash(entry) & pb->mask; pb->slots[i].key; i = (i + 1) & pb->mask)
        if (pb->slots[i].key == entry) {
            *len = pb->slots[i].len;
            return pb->slots[i].text;
        }
    return NULL;
}

static void resp_free(prebuilt_resp *p)
{
    free(p->body);
    gzip_once_free(&p->gz);
}

void prebuilt_free(struct app_prebuilt *pb)
{
    if (!pb)
        return;
    for (size_t i = 0; pb->slots && i <= pb->mask; i++)
        free(pb->slots[i].text);
    free(pb->slots);
    resp_free(&pb->openapi_json);
    resp_free(&pb->openapi_yaml);
    resp_free(&pb->solvers);
    for (size_t i = 0; pb->solver && i < solver_count(); i++)
        resp_free(&pb->solver[i]);
    free(pb->solver);
    for (size_t e = 0; e < pb->n_editions; e++) {
        prebuilt_edition *pe = &pb->editions[e];
        resp_free(&pe->all);
        for (size_t k = 0; k < catalog_kind_count(); k++) {
            if (pe->lists)
                resp_free(&pe->lists[k]);
            for (size_t i = 0; pe->entries && pe->entries[k] && i < edition_count(pe->ed, catalog_kind_at(k)); i++)
                resp_free(&pe->entries[k][i]);
            if (pe->entries)
                free(pe->entries[k]);
        }
        free(pe->lists);
        free(pe->entries);
    }
    free(pb->editions);
    free(pb);
}

/* The entry summaries; NULL when out of memory. */
static struct app_prebuilt *prebuild(const catalog *cat)
{
    size_t n = 0;
    for (size_t e = 0; e < catalog_edition_count(cat); e++) {
        const catalog_edition *ed = catalog_edition_at(cat, e);
        for (size_t k = 0; k < catalog_kind_count(); k++)
            n += edition_count(ed, catalog_kind_at(k));
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
        for (size_t k = 0; k < catalog_kind_count(); k++) {
            const catalog_kind *kind = catalog_kind_at(k);
            for (size_t i = 0; catalog_kind_record(kind) >= 0 && i < edition_count(ed, kind); i++)
                prebuilt_put(pb, edition_record(ed, kind, i), edition_entry_summary(ed, kind, i));
        }
    }
    return pb;
}


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
    case R_OPENAPI_JSON: reply_json(&resp, json_incref(a->openapi)); break;
    case R_OPENAPI_YAML:
        sb_append(&resp.body, a->openapi_yaml, a->openapi_yaml_len);
        resp.status = 200;
        resp.content_type = "application/yaml";
        break;
    case R_SOLVERS: handle_solvers(&resp, &req, NULL); break;
    case R_SOLVER: handle_solvers(&resp, &req, param); break;
    case R_CATALOG:
    case R_CATALOG_KIND:
    case R_CATALOG_ENTRY: handle_catalog(a, &req, &resp, param); break;
    default: break;
    }
    if (resp.status == 200 && !resp.stream && !resp.body.oom && resp.body.data) {
        out->content_type = resp.content_type;
        out->body = sb_detach(&resp.body, &out->len);
        etag_of(out->body, out->len, out->etag);
        etag_gzip(out->etag, out->gz_etag);
    }
    app_response_free(&resp);
}

/* /openapi.json, /openapi.yaml, /solvers, /solvers/{name} and the /catalog answers of every entry and
 * edition do not change while the daemon runs: render them at start-up. Whatever fails
 * to render (out of memory) is simply rendered per request. */
static void prebuild_responses(app *a, struct app_prebuilt *pb)
{
    render_once(a, R_OPENAPI_JSON, NULL, NULL, &pb->openapi_json);
    render_once(a, R_OPENAPI_YAML, NULL, NULL, &pb->openapi_yaml);
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
        render_once(a, R_CATALOG, pe->ed, NULL, &pe->all);
        pe->lists = calloc(catalog_kind_count(), sizeof *pe->lists);
        pe->entries = calloc(catalog_kind_count(), sizeof *pe->entries);
        for (size_t k = 0; pe->lists && pe->entries && k < catalog_kind_count(); k++) {
            const catalog_kind *kind = catalog_kind_at(k);
            char param[200];
            render_once(a, R_CATALOG_KIND, pe->ed, catalog_kind_name(kind), &pe->lists[k]);
            size_t count = edition_count(pe->ed, kind);
            pe->entries[k] = calloc(count + 1, sizeof *pe->entries[k]);
            for (size_t i = 0; pe->entries[k] && i < count; i++) {
                const char *key = json_string_value(json_object_get(edition_entry_json(pe->ed, kind, i), "key"));
                snprintf(param, sizeof param, "%s/%s", catalog_kind_name(kind), key);
                render_once(a, R_CATALOG_ENTRY, pe->ed, param, &pe->entries[k][i]);
            }
        }
    }
}

bool prebuilt_send(const app *a, const app_request *req, app_response *resp, route_id rt, const char *param)
{
    struct app_prebuilt *pb = a->pre;
    prebuilt_resp *p = NULL;
    if (!pb)
        return false;
    switch (rt) {
    case R_OPENAPI_JSON: p = &pb->openapi_json; break;
    case R_OPENAPI_YAML: p = &pb->openapi_yaml; break;
    case R_SOLVERS: p = &pb->solvers; break;
    case R_SOLVER: {
        long i = solver_find(param);
        if (i >= 0 && pb->solver)
            p = &pb->solver[i];
        break;
    }
    case R_CATALOG:
    case R_CATALOG_KIND:
    case R_CATALOG_ENTRY: {
        const catalog_edition *ed;
        if (req->n_query == 0)
            ed = catalog_default_edition(a->cat);
        else if (req->n_query == 1 && !strcmp(req->query[0].key, "catalog") && req->query[0].value)
            ed = catalog_edition_find(a->cat, req->query[0].value);
        else
            return false;
        prebuilt_edition *pe = NULL;
        for (size_t e = 0; ed && e < pb->n_editions; e++)
            if (pb->editions[e].ed == ed)
                pe = &pb->editions[e];
        if (!pe)
            return false;
        if (rt == R_CATALOG) {
            p = &pe->all;
            break;
        }
        const char *id;
        const catalog_kind *kind = catalog_route_kind(param, &id);
        if (!kind || !pe->lists || !pe->entries)
            return false;
        size_t k = 0;
        while (catalog_kind_at(k) != kind)
            k++;
        if (!id) {
            p = &pe->lists[k];
        } else {
            long idx = edition_find(ed, kind, id);
            if (idx >= 0 && pe->entries[k])
                p = &pe->entries[k][idx];
        }
        break;
    }
    default: break;
    }
    if (!p || !p->body)
        return false;
    size_t gz_len = 0;
    const char *gz = gzip_accepted(req->accept_encoding) ? gzip_once_get(&p->gz, p->body, p->len, &gz_len) : NULL;
    resp->status = 200;
    resp->content_type = p->content_type;
    if (conditional_apply(req->if_none_match, resp, gz ? p->gz_etag : p->etag))
        return true;
    sb_reset(&resp->body);
    sb_append(&resp->body, gz ? gz : p->body, gz ? gz_len : p->len);
    resp->content_encoding = gz ? "gzip" : NULL;
    return !resp->body.oom;
}

struct app_prebuilt *prebuilt_build(app *a)
{
    struct app_prebuilt *pb = prebuild(a->cat);
    if (pb)
        prebuild_responses(a, pb);
    return pb;
}
