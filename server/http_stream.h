/* http_stream.h - the stream adapter: a streamed answer (a body_stream of the
 * reply layer, request.h) as a libmicrohttpd response, sent with chunked
 * transfer encoding, optionally gzip-encoded as it is read (gzip.h).
 *
 * Contract: the response owns the stream from the call on, whether it
 * succeeds or not: libmicrohttpd frees it (the stream's free, then the gzip
 * state) when the response is done, and a failed call frees it at once. A
 * stream read that returns STREAM_FAILED (or a gzip failure) ends the transfer
 * without its final chunk, so the client sees a broken transfer, never a
 * complete-looking body. Every byte sent is added to *bytes (may be NULL),
 * which must outlive the transfer (http.c's request context does: the request
 * completes after its response). Caller: http.c's queue(). */
#ifndef MLSYSD_HTTP_STREAM_H
#define MLSYSD_HTTP_STREAM_H

#include <microhttpd.h>
#include <stdbool.h>

#include "server/request.h"

/* A response of unknown size reading s (gzip-encoded when `gzip`); NULL when
 * out of memory (s is freed then too). */
struct MHD_Response *http_stream_response(body_stream s, bool gzip, unsigned long long *bytes);

#endif
