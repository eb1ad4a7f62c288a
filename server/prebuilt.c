/* prebuilt.c - answers rendered once (at start-up, or on first use for a
 * ROUTE_ON_FIRST_USE row), by the same handlers that render them per request
 * (the route table's rows), and copied out per request. */
#include "server/prebuilt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/conditional.h"
#include "server/gzip.h"
#include "server/jsonw.h"
#include "server/reply.h"

/* The "resolved" part of a /solve answer is the summary of a catalog entry: the
 * same text for every request that names the entry. It is rendered once per entry
 * at start-up (by the same edition_entry_summary + json_write) and looked up by
 * the entry's address; inline entries are rendered per request. */
typedef struct {
    const void *key; /* a record of the catalog (edition_record) */
    char *text;
    size_t len;
} prebuilt_entry;

/* Whole 200 answers of the ROUTE_PREBUILT rows, rendered at start-up by the
 * rows' own handlers (prebuild_responses) with their ETag, gzip-encoded on the
 * first request that accepts gzip (compressing all of them at start-up would
 * multiply its time), and copied out per request (prebuilt_send) in the
 * encoding the client accepts, or answered with a 304. Keyed by (row, edition
 * of a ROUTE_PER_EDITION row, {param} as rendered). */
typedef struct {
    const route *row;
    const catalog_edition *ed; /* NULL: the row does not depend on the edition */
    char *param;               /* "" for a row without one */
    char *body;
    size_t len;
    const char *content_type;
    char etag[ETAG_LEN];
    char gz_etag[ETAG_LEN];
    gzip_once gz;
    bool on_first_use; /* a ROUTE_ON_FIRST_USE row: body rendered by the first request (render_on_first_use) */
    atomic_bool ready; /* on_first_use: body, len, content_type and the ETags are set (release / acquire) */
} prebuilt_resp;

struct app_prebuilt {
    prebuilt_entry *slots;
    size_t mask; /* number of slots - 1, a power of two */
    prebuilt_resp *resps;
    size_t n_resps, cap_resps;
    size_t *index;   /* open addressing over resps: i + 1, 0 empty */
    size_t index_mask;
    pthread_mutex_t first_use; /* one renderer at a time of the ROUTE_ON_FIRST_USE answers */
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

void prebuilt_free(struct app_prebuilt *pb)
{
    if (!pb)
        return;
    for (size_t i = 0; pb->slots && i <= pb->mask; i++)
        free(pb->slots[i].text);
    free(pb->slots);
    for (size_t i = 0; i < pb->n_resps; i++) {
        free(pb->resps[i].param);
        free(pb->resps[i].body);
        gzip_once_free(&pb->resps[i].gz);
    }
    free(pb->resps);
    free(pb->index);
    pthread_mutex_destroy(&pb->first_use);
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
    pthread_mutex_init(&pb->first_use, NULL);
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


static size_t resp_hash(const route *row, const catalog_edition *ed, const char *param)
{
    size_t h = ptr_hash(row) ^ (ptr_hash(ed) * 31);
    for (const char *p = param; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    return h;
}

/* Run the row's handler on a synthetic GET (with ?catalog=EDITION when ed is
 * not NULL) and give its answer to out if it is a 200: false otherwise. */
static bool render(app *a, const route *row, const catalog_edition *ed, const char *param, prebuilt_resp *out)
{
    app_request req = {.method = "GET", .path = "/", .request_id = "prebuilt"};
    if (ed) {
        req.query[0].key = "catalog";
        req.query[0].value = edition_name(ed);
        req.n_query = 1;
    }
    app_response resp = {0};
    sb_init(&resp.body);
    row->handler(a, &req, &resp, param);
    bool ok = resp.status == 200 && !resp.stream.ctx && !resp.body.oom && resp.body.data;
    if (ok) {
        out->content_type = resp.content_type;
        out->body = sb_detach(&resp.body, &out->len);
        etag_of(out->body, out->len, out->etag);
        etag_gzip(out->etag, out->gz_etag);
    }
    app_response_free(&resp);
    return ok;
}

/* A new entry of resps for (row, ed, param), its body not set; NULL when out of memory. */
static prebuilt_resp *add_resp(struct app_prebuilt *pb, const route *row, const catalog_edition *ed,
                               const char *param)
{
    if (pb->n_resps == pb->cap_resps) {
        size_t cap = pb->cap_resps ? 2 * pb->cap_resps : 64;
        prebuilt_resp *r = realloc(pb->resps, cap * sizeof *r);
        if (!r)
            return NULL;
        pb->resps = r;
        pb->cap_resps = cap;
    }
    prebuilt_resp *out = &pb->resps[pb->n_resps];
    memset(out, 0, sizeof *out);
    out->param = strdup(param ? param : "");
    if (!out->param)
        return NULL;
    out->row = row;
    out->ed = ed;
    atomic_init(&out->ready, false);
    return out;
}

/* At start-up: render the answer now and keep it if it is a 200; for a
 * ROUTE_ON_FIRST_USE row, only its place (the first request renders it). */
static void render_once(app *a, struct app_prebuilt *pb, const route *row, const catalog_edition *ed,
                        const char *param)
{
    prebuilt_resp *out = add_resp(pb, row, ed, param);
    if (!out)
        return;
    if (row->flags & ROUTE_ON_FIRST_USE) {
        out->on_first_use = true;
        pb->n_resps++;
    } else if (render(a, row, ed, param, out)) {
        pb->n_resps++;
    } else {
        free(out->param);
    }
}

/* The first request of a ROUTE_ON_FIRST_USE answer renders it, under the lock;
 * the others wait for it, then read it as a start-up answer. False when it
 * could not be rendered (not a 200, out of memory): the handler answers that
 * request, and the next one tries again. */
static bool render_on_first_use(app *a, struct app_prebuilt *pb, prebuilt_resp *p)
{
    if (atomic_load_explicit(&p->ready, memory_order_acquire))
        return true;
    pthread_mutex_lock(&pb->first_use);
    bool ok = atomic_load_explicit(&p->ready, memory_order_relaxed);
    if (!ok && render(a, p->row, p->ed, p->row->params ? p->param : NULL, p)) { /* "": a row without {param} */
        atomic_store_explicit(&p->ready, true, memory_order_release);
        ok = true;
    }
    pthread_mutex_unlock(&pb->first_use);
    return ok;
}

/* The answers of every ROUTE_PREBUILT row, for every {param} the row lists and,
 * for a ROUTE_PER_EDITION row, every edition; then their index. Whatever fails
 * to render (out of memory) is simply rendered per request. */
static void prebuild_responses(app *a, struct app_prebuilt *pb, const route *table, size_t n_routes)
{
    for (size_t r = 0; r < n_routes; r++) {
        const route *row = &table[r];
        if (!(row->flags & ROUTE_PREBUILT))
            continue;
        bool per_edition = row->flags & ROUTE_PER_EDITION;
        size_t n_ed = per_edition ? catalog_edition_count(a->cat) : 1;
        for (size_t e = 0; e < n_ed; e++) {
            const catalog_edition *ed = per_edition ? catalog_edition_at(a->cat, e) : NULL;
            if (!row->params) {
                render_once(a, pb, row, ed, NULL);
                continue;
            }
            char param[200];
            for (size_t i = 0; row->prebuilt_param && row->prebuilt_param(a, ed, i, param, sizeof param); i++)
                render_once(a, pb, row, ed, param);
        }
    }
    size_t cap = 16;
    while (cap < 2 * pb->n_resps)
        cap *= 2;
    pb->index = calloc(cap, sizeof *pb->index);
    if (!pb->index)
        return;
    pb->index_mask = cap - 1;
    for (size_t i = 0; i < pb->n_resps; i++) {
        const prebuilt_resp *p = &pb->resps[i];
        size_t k = resp_hash(p->row, p->ed, p->param) & pb->index_mask;
        while (pb->index[k])
            k = (k + 1) & pb->index_mask;
        pb->index[k] = i + 1;
    }
}

static prebuilt_resp *find_resp(struct app_prebuilt *pb, const route *row, const catalog_edition *ed,
                                const char *param)
{
    if (!pb->index)
        return NULL;
    for (size_t k = resp_hash(row, ed, param) & pb->index_mask; pb->index[k]; k = (k + 1) & pb->index_mask) {
        prebuilt_resp *p = &pb->resps[pb->index[k] - 1];
        if (p->row == row && p->ed == ed && !strcmp(p->param, param))
            return p;
    }
    return NULL;
}

bool prebuilt_send(app *a, const app_request *req, app_response *resp, const route *row, const char *param)
{
    struct app_prebuilt *pb = a->pre;
    const catalog *cat = a->cat;
    if (!pb)
        return false;
    const catalog_edition *ed = NULL;
    if (row->flags & ROUTE_PER_EDITION) {
        /* prebuilt for requests without query arguments or with only ?catalog= */
        if (req->n_query == 0)
            ed = catalog_default_edition(cat);
        else if (req->n_query == 1 && !strcmp(req->query[0].key, "catalog") && req->query[0].value)
            ed = catalog_edition_find(cat, req->query[0].value);
        if (!ed)
            return false;
    }
    prebuilt_resp *p = find_resp(pb, row, ed, param ? param : "");
    if (!p || (p->on_first_use && !render_on_first_use(a, pb, p)) || !p->body)
        return false;
    size_t gz_len = 0;
    const char *gz = gzip_accepted(req->accept_encoding) ? gzip_once_get(&p->gz, p->body, p->len, &gz_len) : NULL;
    resp->status = 200;
    resp->content_type = p->content_type;
    if (conditional_apply(req->if_none_match, resp, gz ? p->gz_etag : p->etag))
        return true;
    resp->content_encoding = gz ? "gzip" : NULL;
    return reply_shared(req, resp, gz ? gz : p->body, gz ? gz_len : p->len);
}

struct app_prebuilt *prebuilt_build(app *a, const route *table, size_t n_routes)
{
    struct app_prebuilt *pb = prebuild(a->cat);
    if (pb)
        prebuild_responses(a, pb, table, n_routes);
    return pb;
}
