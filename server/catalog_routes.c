/* catalog_routes.c - /catalog: the entries of an edition, listed (optionally
 * by group and kind) or one by id, with suggestions for an unknown id. */
#include "server/catalog_routes.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/edition.h"
#include "server/query.h"
#include "server/reply.h"

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

void handle_catalog(app *a, const app_request *req, app_response *resp, int kind, const char *id)
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
            reply_fail(resp, req, 400, "unknown-field", k, detail);
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
            reply_fail(resp, req, 404, "unknown-id", "id", detail);
            return;
        }
        json_t *e = json_deep_copy(kind == CAT_HARDWARE ? edition_hardware_json(ed, (size_t)idx)
                                                        : edition_model_json(ed, (size_t)idx));
        json_object_set_new(e, "catalog", json_string(edition_name(ed)));
        json_object_set_new(e, "catalog_version", json_string(edition_version(ed)));
        reply_json(resp, e);
        return;
    }
    const char *want = query_get(req, "kind");
    if (want && strcmp(want, "hardware") && strcmp(want, "models")) {
        reply_fail(resp, req, 400, "invalid-input", "kind", "kind must be hardware or models");
        return;
    }
    json_t *o = json_object();
    json_object_set_new(o, "catalog", json_string(edition_name(ed)));
    json_object_set_new(o, "catalog_version", json_string(edition_version(ed)));
    if (kind != CAT_MODEL && (!want || !strcmp(want, "hardware")))
        json_object_set_new(o, "hardware", hw_list(ed, group));
    if (kind != CAT_HARDWARE && (!want || !strcmp(want, "models")))
        json_object_set_new(o, "models", model_list(ed, group));
    reply_json(resp, o);
}
