/* body.h - a JSON request body: its media type checked, parsed without
 * duplicate keys, and a parse error reported against the member it is in.
 * Any handler taking a body calls app_parse_body. */
#ifndef MLSYSD_BODY_H
#define MLSYSD_BODY_H

#include <jansson.h>
#include <stdbool.h>

#include "server/inputs.h"
#include "server/request.h"

/* The body as a JSON object (a new reference), or NULL with err filled (415, 400). */
json_t *app_parse_body(const app_request *req, api_error *err);
/* The same, parsed into this thread's scratch arena (faster): the tree must be
 * released (json_decref) before the thread's next app_parse_body_scratch, and
 * neither kept beyond the request nor handed to another thread. Needs
 * app_body_allocator_init (app_init calls it) to be in effect. */
json_t *app_parse_body_scratch(const app_request *req, api_error *err);
/* jansson's allocator that app_parse_body_scratch needs; call once before any
 * other thread uses jansson (it is malloc and free for everything else). */
void app_body_allocator_init(void);
/* application/json or application/...+json (parameters ignored); a missing type too. */
bool app_json_content_type(const char *ct);

#endif
