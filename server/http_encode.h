/* http_encode.h - the gzip adapter: validators and Content-Encoding of an
 * answer about to be sent, from the route table's flags (route.h).
 *
 * Contract: only a 200 of a ROUTE_GZIP route that its handler left plain is
 * touched (prebuilt.c sends its answers encoded and validated already; every
 * other answer passes unchanged). For a whole body of a ROUTE_CACHEABLE route
 * without an ETag: its ETag, and a 304 when If-None-Match matches it
 * (conditional.h). Then, when the media type is worth compressing and
 * Accept-Encoding allows gzip (gzip.h): a whole body of at least
 * HTTP_GZIP_MIN bytes is replaced by its gzip encoding at GZIP_PER_REQUEST
 * (its ETag, if any, gets the gzip suffix: etag_gzip); a stream is only
 * marked (content_encoding "gzip") and the stream adapter (http_stream.h)
 * compresses it as it is read. Out of memory leaves the plain body. Pure: no
 * libmicrohttpd, the request's header values are passed in (NULL: absent).
 * Caller: http.c's queue(). */
#ifndef MLSYSD_HTTP_ENCODE_H
#define MLSYSD_HTTP_ENCODE_H

#include "server/request.h"

/* Smaller whole bodies are sent plain: gzip's header and trailer would eat the gain. */
#define HTTP_GZIP_MIN 1024

void http_encode(const char *if_none_match, const char *accept_encoding, app_response *resp);

#endif
