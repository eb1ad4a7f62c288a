/* catalog_routes.c - /catalog: the entries of an edition, every kind or one
 * kind, listed as summaries (optionally by group) or one entry in full by
 * id, with suggestions for an unknown id. One handler for every kind: the
 * kinds are the catalog's table, never named here. */
#include "server/catalog_routes.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/edition.h"
#include "server/query.h"
#include "server/reply.h"

const catalog_kind *catalog_route_kind(const char *param, const char **id)
{
    char name[64];
    const char *slash = strchr(param, '/');
    size_t n = slash ? (size_t)(slash - param) : strlen(param);
    *id = slash ? slash + 1 : NULL;
    if (n >= sizeof name)
        return NULL;
    memcpy(name, param, n);
    name[n] = '\0';
    return catalog_kind_find(name);
}

/* "hardware, models, nodes, ..." */
static void kind_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < catalog_kind_count() && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", catalog_kind_name(catalog_kind_at(i)));
}

/* Entries without a group are in no group. */
static bool group_matches(const json_t *entry, const char *want)
{
    const char *g = json_string_value(json_object_get(entry, "group"));
    return !want || (g && !strcasecmp(g, want));
}

/* The groups of the entries of one kind (or of every kind: only NULL), each once,
 * in catalog order, as "Cloud, Workstation, ..."; whether want is one of them. */
static bool group_known(const catalog_edition *ed, const catalog_kind *only, const char *want, char *list, size_t n)
{
    size_t used = 0;
    bool found = false;
    list[0] = '\0';
    for (size_t k = 0; k < catalog_kind_count(); k++) {
        const catalog_kind *c = catalog_kind_at(k);
        if (only && c != only)
            continue;
        for (size_t i = 0; i < edition_count(ed, c); i++) {
            const char *g = json_string_value(json_object_get(edition_entry_json(ed, c, i), "group"));
            if (!g)
                continue;
            found |= !strcasecmp(g, want);
            /* listed already? (a whole item of the list) */
            size_t gl = strlen(g);
            bool seen = false;
            for (const char *p = list; (p = strstr(p, g)) != NULL; p += gl)
                if ((p == list || p[-1] == ' ') && (p[gl] == ',' || p[gl] == '\0'))
                    seen = true;
            if (!seen && used < n)
                used += (size_t)snprintf(list + used, n - used, "%s%s", used ? ", " : "", g);
        }
    }
    return found;
}

static json_t *kind_list(const catalog_edition *ed, const catalog_kind *k, const char *group)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < edition_count(ed, k); i++)
        if (group_matches(edition_entry_json(ed, k, i), group))
            json_array_append_new(arr, edition_entry_summary(ed, k, i));
    return arr;
}

static void send_entry(const app_request *req, app_response *resp, const catalog_edition *ed,
                       const catalog_kind *k, const char *id)
{
    long idx = edition_find(ed, k, id);
    if (idx < 0) {
        const char *near[3];
        int n = edition_suggest(ed, k, id, near, 3);
        char sugg[200] = "", detail[400];
        size_t used = 0;
        for (int i = 0; i < n && used < sizeof sugg; i++)
            used += (size_t)snprintf(sugg + used, sizeof sugg - used, "%s%s", i ? ", " : "", near[i]);
        snprintf(detail, sizeof detail, "unknown %s '%.64s' in catalog '%s'%s%s%s", catalog_kind_singular(k), id,
                 edition_name(ed), n ? "; did you mean " : "", sugg, n ? "?" : "");
        reply_fail(resp, req, 404, "unknown-id", "id", detail);
        return;
    }
    json_t *e = json_deep_copy(edition_entry_json(ed, k, (size_t)idx));
    /* An entry the registry gives no name (reliability's Recovery, infrastructure's
     * AIR_COOLING_LIMIT_KW) is named as the list names it: CatalogEntry requires a name. */
    if (!json_is_string(json_object_get(e, "name"))) {
        json_t *summary = edition_entry_summary(ed, k, (size_t)idx);
        json_object_set(e, "name", json_object_get(summary, "name"));
        json_decref(summary);
    }
    json_object_set_new(e, "catalog", json_string(edition_name(ed)));
    json_object_set_new(e, "catalog_version", json_string(edition_version(ed)));
    reply_json(resp, e);
}

void handle_catalog(app *a, const app_request *req, app_response *resp, const char *param)
{
    api_error err;
    char kinds[400], detail[600];
    const char *id = NULL;
    const catalog_kind *k = NULL;
    if (param) {
        k = catalog_route_kind(param, &id);
        if (!k) {
            kind_names(kinds, sizeof kinds);
            snprintf(detail, sizeof detail, "no catalog kind '%.60s'; the kinds are: %s", param, kinds);
            reply_fail(resp, req, 404, "not-found", "kind", detail);
            return;
        }
    }
    const catalog_edition *ed = app_edition(a, query_get(req, "catalog"), &err);
    if (!ed) {
        app_problem(resp, req, &err);
        return;
    }
    const char *group = query_get(req, "group");
    for (size_t i = 0; i < req->n_query; i++) {
        const char *q = req->query[i].key;
        if (strcmp(q, "catalog") && strcmp(q, "group") && strcmp(q, "kind")) {
            snprintf(detail, sizeof detail, "unknown query parameter '%.80s'; /catalog takes catalog, group and kind", q);
            reply_fail(resp, req, 400, "unknown-field", q, detail);
            return;
        }
    }
    if (id) {
        send_entry(req, resp, ed, k, id);
        return;
    }
    const char *want = query_get(req, "kind");
    const catalog_kind *only = want ? catalog_kind_find(want) : k;
    if (want && (!only || (k && only != k))) {
        kind_names(kinds, sizeof kinds);
        snprintf(detail, sizeof detail, "kind must be one of %s%s", k ? catalog_kind_name(k) : kinds,
                 k ? " on this path" : "");
        reply_fail(resp, req, 400, "invalid-input", "kind", detail);
        return;
    }
    char groups[1200];
    if (group && !group_known(ed, only, group, groups, sizeof groups)) {
        if (groups[0])
            snprintf(detail, sizeof detail, "unknown group '%.60s'; the groups%s%s are: %s", group,
                     only ? " of " : "", only ? catalog_kind_name(only) : "", groups);
        else
            snprintf(detail, sizeof detail, "unknown group '%.60s'; entries of %s have no group", group,
                     only ? catalog_kind_name(only) : "this catalog");
        reply_fail(resp, req, 400, "invalid-input", "group", detail);
        return;
    }
    json_t *o = json_object();
    json_object_set_new(o, "catalog", json_string(edition_name(ed)));
    json_object_set_new(o, "catalog_version", json_string(edition_version(ed)));
    for (size_t i = 0; i < catalog_kind_count(); i++) {
        const catalog_kind *c = catalog_kind_at(i);
        if (!only || c == only)
            json_object_set_new(o, catalog_kind_name(c), kind_list(ed, c, group));
    }
    reply_json(resp, o);
}

const char *catalog_kind_param(const app *a, const catalog_edition *ed, size_t i, char *buf, size_t n)
{
    (void)a, (void)ed;
    if (i >= catalog_kind_count())
        return NULL;
    snprintf(buf, n, "%s", catalog_kind_name(catalog_kind_at(i)));
    return buf;
}

const char *catalog_entry_param(const app *a, const catalog_edition *ed, size_t i, char *buf, size_t n)
{
    (void)a;
    for (size_t k = 0; k < catalog_kind_count(); k++) {
        const catalog_kind *kind = catalog_kind_at(k);
        size_t count = edition_count(ed, kind);
        if (i < count) {
            const char *key = json_string_value(json_object_get(edition_entry_json(ed, kind, i), "key"));
            snprintf(buf, n, "%s/%s", catalog_kind_name(kind), key ? key : "");
            return buf;
        }
        i -= count;
    }
    return NULL;
}
