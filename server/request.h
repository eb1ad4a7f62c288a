/* request.h - the request and response every handler passes around: a
 * request already taken apart by http.c (or built by a test or fuzzer), and
 * the response a handler fills (reply.h) or hands to a stream (sweep.h).
 * Types only; any server file may include it. */
#ifndef MLSYSD_REQUEST_H
#define MLSYSD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "server/metrics.h"
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
} app_request;

typedef struct sweep_stream sweep_stream;

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
    sweep_stream *stream;       /* non-NULL: the body comes from sweep_stream_read (sweep.h) */
    route_id route;
} app_response;

#endif
