/* http_stream.c - the stream adapter (contract in http_stream.h). */
#include "server/http_stream.h"

#include <stdlib.h>

#include "server/gzip.h"

typedef struct {
    body_stream s;
    gzip_stream *gz; /* non-NULL: the stream is sent gzip-encoded */
    unsigned long long *bytes;
} stream_wrap;

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream_wrap *w = cls;
    size_t n = w->gz ? gzip_stream_read(w->gz, buf, max) : w->s.read(w->s.ctx, buf, max);
    if (n == STREAM_FAILED || n == GZIP_STREAM_FAILED)
        return MHD_CONTENT_READER_END_WITH_ERROR; /* no final chunk: the client sees a broken transfer */
    if (n == 0)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (w->bytes)
        *w->bytes += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    stream_wrap *w = cls;
    gzip_stream_free(w->gz);
    if (w->s.free)
        w->s.free(w->s.ctx);
    free(w);
}

struct MHD_Response *http_stream_response(body_stream s, bool gzip, unsigned long long *bytes)
{
    stream_wrap *w = calloc(1, sizeof *w);
    if (!w) {
        if (s.free)
            s.free(s.ctx);
        return NULL;
    }
    w->s = s;
    w->bytes = bytes;
    if (gzip && !(w->gz = gzip_stream_new(w->s.read, w->s.ctx))) {
        stream_free(w);
        return NULL;
    }
    /* libmicrohttpd allocates (and zeroes) the block with each response; it sends a
     * chunked answer from the connection's pool, and from this block only an
     * HTTP/1.0 client's. 64 KiB unless the stream says it is smaller. */
    size_t block = s.size_hint && s.size_hint < 64 * 1024 ? s.size_hint : 64 * 1024;
    if (block < 4096)
        block = 4096;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block, stream_reader, w, stream_free);
    if (!r)
        stream_free(w);
    return r;
}
