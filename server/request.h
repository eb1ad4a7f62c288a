/* request.h - the request and response every handler passes around: a
 * request already taken apart by http.c (or built by a test or fuzzer), and
 * the response a handler fills (reply.h) or hands to a stream (a body_stream,
 * e.g. a sweep's). Types only; any server file may include it. */
#ifndef MLSYSD_REQUEST_H
#define MLSYSD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "server/strbuf.h"

#define APP_MAX_QUERY 64

typedef struct {
    const char *key;
    const char *value;
} kv;

typedef struct {
    const char *method;
    const char *path;
    kv query[APP_MAX_QUERY];
    size_t n_query;
    bool query_overflow;        /* more than APP_MAX_QUERY arguments */
    const char *body;
    size_t body_len;
    const char *content_type;   /* NULL if absent */
    const char *accept;         /* NULL if absent */
    const char *if_none_match;  /* NULL if absent */
    const char *accept_encoding; /* NULL if absent */
    const char *request_id;
    bool shared_ok;             /* the caller sends an app_response's `shared` bytes itself (http.c) */
} app_request;

/* A body produced as it is sent: read() gives the next bytes into buf (0 at
 * the end, STREAM_FAILED when the body cannot be completed: the transfer must
 * then end as an error), free() releases ctx. Whoever sends the response
 * reads it; app_response_free (reply.h) frees it. */
#define STREAM_FAILED ((size_t)-1)
typedef struct {
    size_t (*read)(void *ctx, char *buf, size_t max);
    void (*free)(void *ctx);
    void *ctx;                  /* NULL: no stream */
    size_t size_hint;           /* about how many bytes it will give; 0: unknown */
} body_stream;

struct route;

typedef struct {
    int status;
    const char *content_type;
    strbuf body;
    char allow[64];             /* 405: the Allow header */
    char disposition[160];      /* Content-Disposition, for CSV */
    int retry_after;            /* seconds, 503 */
    const char *cache_control;  /* NULL: no-store */
    const char *csp;            /* Content-Security-Policy of a page (ui.c); NULL: none */
    char etag[24];              /* ETag, quoted; "": none (conditional.h) */
    const char *content_encoding; /* "gzip" when the body is already encoded (gzip.h); NULL: identity */
    body_stream stream;         /* stream.ctx non-NULL: the body comes from stream.read */
    /* Non-NULL: the body is these bytes, which the app keeps unchanged until app_free
     * (a prebuilt answer, a dashboard file); set only for a request with shared_ok
     * (reply_shared), else they are copied into body. */
    const char *shared;
    size_t shared_len;
    const struct route *route;  /* the row of the route table that answered (route.h); NULL: none */
} app_response;

#endif
