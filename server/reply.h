/* reply.h - the reply layer: filling an app_response with a whole body (a
 * JSON value, fixed text, an RFC 9457 problem) or a stream, and freeing it.
 * Any handler, and whoever sends a response, may call these. */
#ifndef MLSYSD_REPLY_H
#define MLSYSD_REPLY_H

#include <jansson.h>

#include "server/inputs.h"
#include "server/request.h"

extern const char *const JSON_CT;

/* 200 with o compactly written; takes the reference to o. */
void reply_json(app_response *resp, json_t *o);
void reply_text(app_response *resp, int status, const char *ct, const char *body);
/* A 200 whose body comes from a stream (read, free, ctx: request.h). */
void reply_stream(app_response *resp, const char *ct, size_t (*read)(void *, char *, size_t), void (*free_ctx)(void *),
                  void *ctx);
/* The body is `len` bytes at data, which stay unchanged until app_free: referred
 * to (resp->shared) when the request's sender takes them (req->shared_ok), else
 * copied into resp->body; false when out of memory. */
bool reply_shared(const app_request *req, app_response *resp, const char *data, size_t len);
/* Frees the body and the stream, if any. */
void app_response_free(app_response *resp);

/* An RFC 9457 problem for e: type from its slug, title from its status,
 * its detail and field, the request's path and id. */
void app_problem(app_response *resp, const app_request *req, const api_error *e);
/* The problem object of e for request req (the body app_problem writes); a new reference. */
json_t *problem_json(const app_request *req, const api_error *e);
/* The same from the parts of an error. */
void reply_fail(app_response *resp, const app_request *req, int status, const char *slug, const char *field,
                const char *detail);

#endif
