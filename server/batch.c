/* batch.c - see batch.h. Each item is answered by the /solve body's own
 * code (solve_body, straight from the parsed item), so an item's answer is
 * byte for byte what POST /solve gives for it; its problem differs only in
 * naming the field under items[i]. The answers are written into one body as
 * they come. */
#include "server/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/body.h"
#include "server/jsonw.h"
#include "server/reply.h"
#include "server/solver_routes.h"

/* An item's problem as /batch states it: the /solve problem with its field
 * (or, for a problem without one, the item itself) named under items[i]. */
static void append_problem(strbuf *out, const app_request *req, const api_error *e, size_t i)
{
    api_error named = *e;
    char field[200];
    snprintf(field, sizeof field, "items[%zu]%s%.160s", i, e->field[0] ? "." : "", e->field);
    snprintf(named.field, sizeof named.field, "%.159s", field);
    json_t *p = problem_json(req, &named);
    json_write(out, p, 0);
    json_decref(p);
}

static void answer_item(app *a, const app_request *req, strbuf *out, json_t *item, size_t i)
{
    api_error err;
    sb_printf(out, "%s{\"index\":%zu,", i ? "," : "", i);
    size_t head = out->len;
    sb_puts(out, "\"status\":200,\"response\":");
    int rc = -1;
    if (!json_is_object(item))
        api_fail(&err, 400, "invalid-input", "", "items[%zu] must be a /solve body: {\"solver\", \"inputs\", \"catalog\", \"calibration\"}", i);
    else
        rc = solve_body(a, item, out, &err);
    if (rc != 0) {
        out->len = head; /* the answer begun, if any, is dropped */
        sb_printf(out, "\"status\":%d,\"problem\":", err.status);
        append_problem(out, req, &err, i);
    }
    sb_putc(out, '}');
}

void handle_batch(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
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
                   "items must be a non-empty array of /solve bodies ({\"solver\", \"inputs\", \"catalog\", \"calibration\"})");
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
