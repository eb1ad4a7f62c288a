/* conditional.h - validators and conditional GET (RFC 9110 §8.8.3, §13.1.2):
 * the strong ETag of an answer that depends only on the build and the catalog
 * edition (the dashboard's files, /catalog..., /solvers..., /openapi.*), and
 * If-None-Match turning such an answer into a 304. ui.c, prebuilt.c and http.c
 * call these; they read and write only the request and response given. */
#ifndef MLSYSD_CONDITIONAL_H
#define MLSYSD_CONDITIONAL_H

#include <stdbool.h>
#include <stddef.h>

#include "server/request.h"

#define ETAG_LEN 24 /* a quoted tag with its NUL, as app_response.etag holds it */

/* The strong tag of bytes: "<64-bit FNV-1a of the bytes, hex>", quoted. The
 * bytes are the whole answer, so the tag changes exactly when a build or a
 * catalog edition changes the answer. */
void etag_of(const void *data, size_t len, char out[ETAG_LEN]);
/* The tag of the gzip-encoded representation of the same answer: the identity
 * tag with "-gzip" before its closing quote (a strong validator names one
 * representation, RFC 9110 §8.8.1). */
void etag_gzip(const char *identity, char out[ETAG_LEN]);

/* Whether an If-None-Match field value matches a tag: "*", or a comma-separated
 * list of entity tags compared weakly (W/ ignored, RFC 9110 §8.8.3.2). A listed
 * tag of the other encoding of the same answer matches too: the content is the
 * same. A NULL or malformed header matches nothing. */
bool etag_matches(const char *if_none_match, const char *etag);

/* Give a 200 answer of a ROUTE_CACHEABLE route (route.h) its validator: resp->etag (etag, or
 * the tag of the body when etag is NULL), Cache-Control: no-cache; and when the
 * request's If-None-Match field value (NULL: absent) matches, make it a 304
 * with an empty body. Returns whether it became a 304. */
bool conditional_apply(const char *if_none_match, app_response *resp, const char *etag);

#endif
