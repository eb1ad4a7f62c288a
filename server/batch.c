/* batch.c - see batch.h. Each item is answered by the /solve handler itself
 * (handle_solve_post on a request whose body is the item), so an item's answer
 * is byte for byte what POST /solve gives for it; its problem differs only in
 * naming the field under items[i]. The answers are spliced into one body as
 * they come. */
#include "server/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/body.h"
#include "server/jsonw.h"
#include "server/reply.h"
#include "server/solver_routes.h"

/* An item's problem as /batch states it: the /solve problem with field and
 * (for a problem without one) the item itself named under items[i]. */
static void append_problem(strbuf *out, const app_response *one, size_t i)
{
    json_t *p = json_loadb(one->body.data, one->body.len, 0, NULL);
    if (!p) { /* the /solve writer wrote it: it parses, unless out of memory */
        out->oom = true;
        return;
    }
    const char *f = json_string_value(json_object_get(p, "field"));
    char field[200];
    snprintf(field, sizeof field, "items[%zu]%s%.160s", i, f && *f ? "." : "", f ? f : "");
    json_object_set_new(p, "field", json_string(field));
    json_write(out, p, 0);
    json_decref(p);
}

static void answer_item(app *a, const app_request *req, strbuf *out, json_t *item, size_t i)
{
    app_response one = {0};
    sb_init(&one.body);
    if (!json_is_object(item)) {
        char detail[160];
        snprintf(detail, sizeof detail, "items[%zu] must be a /solve body: {\"solver\", \"inputs\", \"catalog\"}", i);
        reply_fail(&one, req, 400, "invalid-input", "", detail);
    } else {
        char *text = json_dumps(item, JSON_COMPACT);
        app_request sub = *req;
        sub.body = text ? text : "";
        sub.body_len = text ? strlen(text) : 0;
        sub.content_type = JSON_CT;
        handle_solve_post(a, &sub, &one);
        free(text);
    }
    sb_printf(out, "%s{\"index\":%zu,\"status\":%d,", i ? "," : "", i, one.status);
    if (one.status == 200) {
        size_t n = one.body.len;
        while (n && one.body.data[n - 1] == '\n')
            n--;
        sb_puts(out, "\"response\":");
        sb_append(out, one.body.data, n);
    } else {
        sb_puts(out, "\"problem\":");
        append_problem(out, &one, i);
    }
    sb_putc(out, '}');
    app_response_free(&one);
}

void handle_batch(app *a, const app_request *req, app_response *resp)
{
    api_error err;
    json_t *body = app_parse_body(req, &err);
    if (!body) {
        app_problem(resp, req, &err);
        return;
    }
    const char *key;
    json_t *val, *items = json_object_get(body, "items");
    char detail[300];
    json_object_foreach(body, key, val) {
        if (strcmp(key, "items")) {
            snprintf(detail, sizeof detail, "unknown field '%.80s'; a /batch body has items", key);
            reply_fail(resp, req, 400, "unknown-field", key, detail);
            json_decref(body);
            return;
        }
    }
    size_t n = json_array_size(items);
    long long cap = a->cfg->batch_max_items;
    if (!json_is_array(items) || n == 0) {
        reply_fail(resp, req, 400, items ? "invalid-input" : "missing-input", "items",
                   "items must be a non-empty array of /solve bodies ({\"solver\", \"inputs\", \"catalog\"})");
    } else if ((long long)n > cap) {
        snprintf(detail, sizeof detail, "the batch has %zu items; the cap is %lld (--batch-max-items / "
                 "MLSYSD_BATCH_MAX_ITEMS)", n, cap);
        reply_fail(resp, req, 413, "too-many-items", "items", detail);
    } else {
        strbuf *out = &resp->body;
        sb_reset(out);
        sb_puts(out, "{\"items\":[");
        for (size_t i = 0; i < n && !out->oom; i++)
            answer_item(a, req, out, json_array_get(items, i), i);
        sb_puts(out, "]}\n");
        resp->status = 200;
        resp->content_type = JSON_CT;
        if (out->oom)
            reply_fail(resp, req, 503, "overloaded", "", "out of memory answering the batch; send fewer items");
    }
    json_decref(body);
}
