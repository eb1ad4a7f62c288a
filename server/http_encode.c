/* http_encode.c - the gzip adapter (contract in http_encode.h). */
#include "server/http_encode.h"

#include <stdlib.h>

#include "server/conditional.h"
#include "server/gzip.h"
#include "server/route.h"

static bool has_flag(const route *rt, unsigned flag) { return rt && (rt->flags & flag); }

void http_encode(const char *if_none_match, const char *accept_encoding, app_response *resp)
{
    if (resp->status != 200 || !has_flag(resp->route, ROUTE_GZIP) || resp->content_encoding)
        return;
    if (!resp->stream.ctx && has_flag(resp->route, ROUTE_CACHEABLE) && !resp->etag[0] &&
        conditional_apply(if_none_match, resp, NULL))
        return;
    if (!gzip_compressible(resp->content_type) || !gzip_accepted(accept_encoding))
        return;
    if (resp->stream.ctx) {
        resp->content_encoding = "gzip"; /* the stream adapter compresses it */
        return;
    }
    if (resp->body.len < HTTP_GZIP_MIN)
        return;
    size_t len;
    char *gz = gzip_buffer(resp->body.data, resp->body.len, GZIP_PER_REQUEST, &len);
    if (!gz)
        return; /* out of memory: the plain body still answers */
    sb_reset(&resp->body);
    sb_append(&resp->body, gz, len);
    free(gz);
    resp->content_encoding = "gzip";
    if (resp->etag[0])
        etag_gzip(resp->etag, resp->etag);
}
