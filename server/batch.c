/* batch.c - see batch.h. Each item is answered by the /solve body's own
 * code, so an item's answer is byte for byte what POST /solve gives for it;
 * its problem differs only in naming the field under items[i]. The answers are
 * written into one body as they come.
 *
 * Two readings of the body, as for POST /solve: a body that is exactly
 * {"items": [{...}, ...]} has its items found by their brackets and each read
 * without a JSON tree (solve_text); if any item is one the scan declines, or
 * the body has any other shape, the whole body is parsed by jansson and each
 * item answered from its tree (solve_body), which also gives every error about
 * the body itself. The scan accepts only what jansson reads the same way, so
 * both readings answer alike. */
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

/* Item i's entry: its answer (rc 0) or its problem (rc -1, err). */
static void close_item(const app_request *req, strbuf *out, size_t head, int rc, const api_error *err, size_t i)
{
    if (rc != 0) {
        out->len = head; /* the answer begun, if any, is dropped */
        sb_printf(out, "\"status\":%d,\"problem\":", err->status);
        append_problem(out, req, err, i);
    }
    sb_putc(out, '}');
}

static size_t open_item(strbuf *out, size_t i)
{
    sb_printf(out, "%s{\"index\":%zu,", i ? "," : "", i);
    size_t head = out->len;
    sb_puts(out, "\"status\":200,\"response\":");
    return head;
}

static void answer_item(app *a, const app_request *req, strbuf *out, json_t *item, size_t i)
{
    api_error err;
    size_t head = open_item(out, i);
    int rc = -1;
    if (!json_is_object(item))
        api_fail(&err, 400, "invalid-input", "", "items[%zu] must be a /solve body: {\"solver\", \"inputs\", \"catalog\", \"calibration\"}", i);
    else
        rc = solve_body(a, item, out, &err);
    close_item(req, out, head, rc, &err, i);
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Past blanks, the character c: false if another comes first. */
static bool take(const char **p, const char *end, char c)
{
    *p = skip_ws(*p, end);
    if (*p == end || **p != c)
        return false;
    (*p)++;
    return true;
}

/* The end of the JSON object at p (one past its closing brace), matching brackets
 * outside strings; NULL if it does not close before end. Its content is not
 * checked here: the scan of each item does that. */
static const char *object_end(const char *p, const char *end)
{
    int depth = 0;
    for (; p < end; p++) {
        if (*p == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\' && ++p == end)
                    return NULL;
            if (p == end)
                return NULL;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            if (--depth == 0)
                return *p == '}' ? p + 1 : NULL;
            if (depth < 0)
                return NULL;
        }
    }
    return NULL;
}

/* The items into out without a JSON tree: false (out then holds nothing to keep)
 * unless the body is {"items": [<object>, ...]} with 1..cap items, each of which
 * the scan reads. */
static bool answer_scanned(app *a, const app_request *req, strbuf *out, long long cap)
{
    const char *p = req->body, *end = req->body + req->body_len;
    static const char key[] = "\"items\"";
    if (!take(&p, end, '{'))
        return false;
    p = skip_ws(p, end);
    if ((size_t)(end - p) < sizeof key - 1 || memcmp(p, key, sizeof key - 1))
        return false;
    p += sizeof key - 1;
    if (!take(&p, end, ':') || !take(&p, end, '['))
        return false;
    sb_reset(out);
    sb_puts(out, "{\"items\":[");
    size_t i = 0;
    do {
        if (!take(&p, end, '{') || (long long)i >= cap)
            return false;
        const char *item = p - 1, *item_end = object_end(item, end);
        if (!item_end)
            return false;
        api_error err;
        size_t at = open_item(out, i);
        int rc = solve_text(a, item, (size_t)(item_end - item), out, &err);
        if (rc == 1)
            return false;
        close_item(req, out, at, rc, &err, i++);
        p = item_end;
    } while (take(&p, end, ','));
    if (!take(&p, end, ']') || !take(&p, end, '}') || skip_ws(p, end) != end)
        return false;
    sb_puts(out, "]}\n");
    return true;
}

/* The items into out from jansson's tree: false when the body is not a batch
 * (resp then holds its problem). */
static bool answer_tree(app *a, const app_request *req, app_response *resp)
{
    api_error err;
    json_t *body = app_parse_body(req, &err);
    if (!body) {
        app_problem(resp, req, &err);
        return false;
    }
    const char *key;
    json_t *val, *items = json_object_get(body, "items");
    char detail[300];
    bool ok = false;
    size_t n = json_array_size(items);
    long long cap = a->cfg->batch_max_items;
    json_object_foreach(body, key, val) {
        if (strcmp(key, "items")) {
            snprintf(detail, sizeof detail, "unknown field '%.80s'; a /batch body has items", key);
            reply_fail(resp, req, 400, "unknown-field", key, detail);
            json_decref(body);
            return false;
        }
    }
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
        ok = true;
    }
    json_decref(body);
    return ok;
}

void handle_batch(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    bool scanned = app_json_content_type(req->content_type) &&
                   answer_scanned(a, req, &resp->body, a->cfg->batch_max_items);
    if (!scanned && !answer_tree(a, req, resp))
        return;
    resp->status = 200;
    resp->content_type = JSON_CT;
    if (resp->body.oom)
        reply_fail(resp, req, 503, "overloaded", "", "out of memory answering the batch; send fewer items");
}
