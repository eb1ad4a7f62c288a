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
/* application/json or application/...+json (parameters ignored); a missing type too. */
bool app_json_content_type(const char *ct);

#endif
