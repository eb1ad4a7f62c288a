/* reply.c - the reply layer (contract in reply.h). */
#include "server/reply.h"

#include <stdio.h>
#include <string.h>

#include "server/jsonw.h"

#define PROBLEM_BASE "https://mlsysd.dev/problems/"

const char *const JSON_CT = "application/json";
static const char *const PROBLEM_CT = "application/problem+json";

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

json_t *problem_json(const app_request *req, const api_error *e)
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
    return o;
}

void app_problem(app_response *resp, const app_request *req, const api_error *e)
{
    json_t *o = problem_json(req, e);
    sb_reset(&resp->body);
    json_write(&resp->body, o, 0);
    sb_putc(&resp->body, '\n');
    json_decref(o);
    resp->status = e->status;
    resp->content_type = PROBLEM_CT;
}

void reply_fail(app_response *resp, const app_request *req, int status, const char *slug, const char *field,
                const char *detail)
{
    api_error e;
    api_fail(&e, status, slug, field, "%s", detail);
    app_problem(resp, req, &e);
}

void reply_json(app_response *resp, json_t *o)
{
    sb_reset(&resp->body);
    json_write(&resp->body, o, 0);
    sb_putc(&resp->body, '\n');
    json_decref(o);
    resp->status = 200;
    resp->content_type = JSON_CT;
}

void reply_text(app_response *resp, int status, const char *ct, const char *body)
{
    sb_reset(&resp->body);
    sb_puts(&resp->body, body);
    resp->status = status;
    resp->content_type = ct;
}

void reply_stream(app_response *resp, const char *ct, size_t (*read)(void *, char *, size_t), void (*free_ctx)(void *),
                  void *ctx)
{
    resp->status = 200;
    resp->content_type = ct;
    resp->stream = (body_stream){.read = read, .free = free_ctx, .ctx = ctx};
}

bool reply_shared(const app_request *req, app_response *resp, const char *data, size_t len)
{
    sb_reset(&resp->body);
    if (req->shared_ok) {
        resp->shared = data;
        resp->shared_len = len;
        return true;
    }
    sb_append(&resp->body, data, len);
    return !resp->body.oom;
}

void app_response_free(app_response *resp)
{
    sb_free(&resp->body);
    if (resp->stream.ctx && resp->stream.free)
        resp->stream.free(resp->stream.ctx);
    resp->stream = (body_stream){0};
}
