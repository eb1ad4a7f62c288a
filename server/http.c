/* http.c - libmicrohttpd glue (contract in http.h): requests taken apart for
 * app_handle, answers queued with their headers (CORS, request id, caching),
 * limits (body size, request target), access log lines and metrics. The
 * logger, request ids and CORS are in log.c, request_id.c and cors.c; the
 * gzip adapter (validators and encoding) in http_encode.c, the stream adapter
 * in http_stream.c and the read deadline's watchdog in read_deadline.c. */
#include "server/http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <microhttpd.h>
#include <netdb.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server/cors.h"
#include "server/http_encode.h"
#include "core/numfmt.h"
#include "server/http_stream.h"
#include "server/jsonw.h"
#include "server/metrics.h"
#include "server/read_deadline.h"
#include "server/reply.h"
#include "server/request_id.h"

#define DISCARD_MAX (64ULL << 20) /* bytes of an oversize body read and dropped before the 413 */
/* The longest request target (path + query) answered; longer is a 414
 * problem. Each connection's memory pool (--connection-memory) holds the
 * request line and headers (libmicrohttpd answers a line that overflows it
 * with its own 414 page, and headers with a 431), and a chunked answer's block
 * on its way out. Its size is paid on every request: libmicrohttpd 0.9.75
 * zeroes the whole pool after each one on a keep-alive connection
 * (docs/BENCHMARKS.md: 128 KiB cost a /healthz 5 us of its 12). The default,
 * 40 KiB, holds a target at the limit with ~7.5 KB of headers, or ~39 KB of
 * headers with a short target. */
#define MAX_URI_BYTES 32768

struct server {
    struct MHD_Daemon *d;
    app *a;
    const config *cfg;
    read_deadline *deadline;
    /* trim_idle_memory's state (the watchdog's thread only) */
    bool busy;
    struct timespec trimmed;
};

/* The request headers the service reads, found in one pass over the list
 * (take_header): each slot holds the first header of its name, or NULL. They
 * point into libmicrohttpd's memory for the connection, valid until the
 * request completes. */
enum { H_REQUEST_ID, H_CONTENT_LENGTH, H_CONTENT_ENCODING, H_CONTENT_TYPE, H_ACCEPT, H_ACCEPT_ENCODING,
       H_IF_NONE_MATCH, H_ORIGIN, H_COUNT };

#define HEADER_NAME(s) {s, sizeof s - 1}
static const struct {
    const char *name;
    size_t len;
} HEADERS[H_COUNT] = {
    [H_REQUEST_ID] = HEADER_NAME("X-Request-ID"),
    [H_CONTENT_LENGTH] = HEADER_NAME(MHD_HTTP_HEADER_CONTENT_LENGTH),
    [H_CONTENT_ENCODING] = HEADER_NAME(MHD_HTTP_HEADER_CONTENT_ENCODING),
    [H_CONTENT_TYPE] = HEADER_NAME(MHD_HTTP_HEADER_CONTENT_TYPE),
    [H_ACCEPT] = HEADER_NAME(MHD_HTTP_HEADER_ACCEPT),
    [H_ACCEPT_ENCODING] = HEADER_NAME(MHD_HTTP_HEADER_ACCEPT_ENCODING),
    [H_IF_NONE_MATCH] = HEADER_NAME(MHD_HTTP_HEADER_IF_NONE_MATCH),
    [H_ORIGIN] = HEADER_NAME(MHD_HTTP_HEADER_ORIGIN),
};
#undef HEADER_NAME

typedef struct {
    strbuf body;
    const char *hdr[H_COUNT]; /* the headers read, by H_ index */
    bool too_large;
    struct timespec t0;
    char request_id[72];
    char path[256];
    char method[16];
    const route *route;  /* the row that answered; NULL: none */
    int status;
    unsigned long long bytes;
    bool queued;
    bool started;      /* the handler has seen this request (headers parsed) */
    size_t uri_len;    /* the request target as received */
} request_ctx;

/* The first n bytes of src into dst (capacity cap > 0), cut to fit, NUL-terminated. */
static void copy_text(char *dst, size_t cap, const char *src, size_t n)
{
    if (n > cap - 1)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void add_common_headers(struct MHD_Response *r, server *srv, request_ctx *ctx)
{
    MHD_add_response_header(r, "X-Request-ID", ctx->request_id);
    const char *allow = allowed_origin(srv->cfg, ctx->hdr[H_ORIGIN]);
    /* Whether CORS headers appear depends on Origin, so caches must key on it. */
    if (srv->cfg->cors_origins[0])
        MHD_add_response_header(r, "Vary", "Origin");
    if (allow) {
        MHD_add_response_header(r, "Access-Control-Allow-Origin", allow);
        MHD_add_response_header(r, "Access-Control-Expose-Headers", "X-Request-ID, Content-Disposition, Retry-After");
    }
    /* While draining, a keep-alive client would otherwise keep sending to a
     * process that is about to go away; make it reconnect (elsewhere). */
    if (atomic_load(&srv->a->draining))
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
}

static bool has_flag(const route *rt, unsigned flag) { return rt && (rt->flags & flag); }

static enum MHD_Result queue(server *srv, struct MHD_Connection *c, request_ctx *ctx, app_response *resp)
{
    struct MHD_Response *r;
    http_encode(ctx->hdr[H_IF_NONE_MATCH], ctx->hdr[H_ACCEPT_ENCODING], resp);
    if (resp->stream.ctx) {
        body_stream s = resp->stream;
        resp->stream = (body_stream){0}; /* the response owns it now */
        r = http_stream_response(s, resp->content_encoding != NULL, &ctx->bytes);
        if (!r)
            return MHD_NO;
    } else if (resp->shared) { /* the app's own bytes, unchanged until after the daemon stops */
        r = MHD_create_response_from_buffer(resp->shared_len, (void *)resp->shared, MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        ctx->bytes = resp->shared_len;
    } else {
        size_t len;
        char *data = sb_detach(&resp->body, &len);
        r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
        if (!r) {
            free(data);
            return MHD_NO;
        }
        ctx->bytes = len;
    }
    /* a 304 carries the validators, not the representation's metadata (RFC 9110 §15.4.5) */
    if (resp->content_type && resp->status != 304)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
    if (resp->allow[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, resp->allow);
    if (resp->disposition[0])
        MHD_add_response_header(r, "Content-Disposition", resp->disposition);
    if (resp->retry_after > 0) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", resp->retry_after);
        MHD_add_response_header(r, "Retry-After", ra);
    }
    MHD_add_response_header(r, "Cache-Control", resp->cache_control ? resp->cache_control : "no-store");
    if (resp->etag[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, resp->etag);
    if (resp->content_encoding && resp->status == 200)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, resp->content_encoding);
    if (has_flag(resp->route, ROUTE_GZIP) && (resp->status == 200 || resp->status == 304))
        MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, has_flag(resp->route, ROUTE_BY_ACCEPT)
                                                             ? "Accept, Accept-Encoding"
                                                             : "Accept-Encoding");
    if (resp->csp) {
        MHD_add_response_header(r, "Content-Security-Policy", resp->csp);
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    }
    add_common_headers(r, srv, ctx);
    ctx->status = resp->status;
    ctx->route = resp->route;
    ctx->queued = true;
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)resp->status, r);
    MHD_destroy_response(r);
    return ret;
}

/* One header of the request into its slot of HEADERS, if the service reads
 * that name and the slot is empty: the first of a name wins, as a lookup by
 * name would have it. */
static enum MHD_Result take_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    const char **slot = cls;
    size_t n = strlen(key);
    for (size_t i = 0; i < H_COUNT; i++)
        if (HEADERS[i].len == n && !strcasecmp(HEADERS[i].name, key)) {
            if (!slot[i])
                slot[i] = value;
            break;
        }
    return MHD_YES;
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    app_request *req = cls;
    if (req->n_query >= APP_MAX_QUERY) {
        req->query_overflow = true;
        return MHD_NO;
    }
    req->query[req->n_query].key = key;
    req->query[req->n_query].value = value;
    req->n_query++;
    return MHD_YES;
}

static enum MHD_Result problem_now(server *srv, struct MHD_Connection *c, request_ctx *ctx, int status,
                                   const char *slug, const char *detail)
{
    app_response resp = {0};
    app_request req = {.method = ctx->method, .path = ctx->path, .request_id = ctx->request_id};
    api_error e;
    api_fail(&e, status, slug, "", "%s", detail);
    app_problem(&resp, &req, &e);
    resp.route = NULL;
    enum MHD_Result r = queue(srv, c, ctx, &resp);
    app_response_free(&resp);
    return r;
}

/* OPTIONS (CORS preflight): Allow lists the methods of that path. The route
 * table lives in app.c; asking it with OPTIONS yields its 405 Allow list for
 * a known path and its 404 problem for an unknown one. */
static enum MHD_Result preflight(server *srv, struct MHD_Connection *c, request_ctx *ctx, const char *url)
{
    app_request req = {0};
    req.method = "OPTIONS";
    req.path = url;
    req.body = "";
    req.request_id = ctx->request_id;
    app_response probe = {0};
    sb_init(&probe.body);
    app_handle(srv->a, &req, &probe);
    if (probe.status != 405) {
        enum MHD_Result r = queue(srv, c, ctx, &probe);
        app_response_free(&probe);
        return r;
    }
    char allow[64];
    snprintf(allow, sizeof allow, "%s", probe.allow);
    ctx->route = probe.route;
    app_response_free(&probe);
    struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    if (allowed_origin(srv->cfg, ctx->hdr[H_ORIGIN])) {
        MHD_add_response_header(r, "Access-Control-Allow-Methods", allow);
        MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type, Accept, X-Request-ID");
        MHD_add_response_header(r, "Access-Control-Max-Age", "600");
    }
    add_common_headers(r, srv, ctx);
    ctx->status = 204;
    ctx->queued = true;
    enum MHD_Result ret = MHD_queue_response(c, 204, r);
    MHD_destroy_response(r);
    return ret;
}

/* First sight of a request, as soon as its request line is parsed: from
 * here on it has an id, counts as in flight and gets a log line, even if
 * libmicrohttpd itself rejects it later (header too large, bad HTTP
 * version) and the handler never runs. */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    request_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    clock_gettime(CLOCK_MONOTONIC, &ctx->t0);
    sb_init(&ctx->body);
    size_t n = strcspn(uri, "?");
    copy_text(ctx->path, sizeof ctx->path, uri, n);
    ctx->uri_len = strlen(uri);
    ctx->route = NULL;
    new_request_id(ctx->request_id, sizeof ctx->request_id);
    metrics_inflight(1);
    return ctx;
}

/* Once a burst of requests is over (nothing in flight), give the memory it
 * freed back to the system, at most once a second: glibc keeps each thread
 * arena's high-water mark mapped, so RSS would otherwise stay at the largest
 * burst seen (tens of MB of stream buffers) and tell nothing about real use or
 * leaks. Runs on the read deadline's watchdog thread, at each of its ticks. */
static void trim_idle_memory(void *arg)
{
#ifdef __GLIBC__
    server *srv = arg;
    if (metrics_inflight_now() > 0) {
        srv->busy = true;
    } else if (srv->busy && since(&srv->trimmed) >= 1.0) {
        srv->busy = false;
        malloc_trim(0);
        clock_gettime(CLOCK_MONOTONIC, &srv->trimmed);
    }
#else
    (void)arg;
#endif
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    server *srv = cls;
    request_ctx *ctx = *con_cls;
    if (!ctx) {
        ctx = on_request_line(NULL, url, c);
        if (!ctx)
            return MHD_NO;
        *con_cls = ctx;
    }
    if (!ctx->started) {
        ctx->started = true;
        copy_text(ctx->path, sizeof ctx->path, url, strlen(url));
        copy_text(ctx->method, sizeof ctx->method, method, strlen(method));
        MHD_get_connection_values(c, MHD_HEADER_KIND, take_header, ctx->hdr);
        const char *rid = ctx->hdr[H_REQUEST_ID];
        if (rid && valid_request_id(rid))
            copy_text(ctx->request_id, sizeof ctx->request_id, rid, strlen(rid));
        /* An oversize body is refused with 413. Up to DISCARD_MAX bytes it is read and
         * dropped first: answering while the client still sends makes the kernel reset
         * the connection, and the client may lose the 413 itself. Beyond that we answer
         * at once (the read deadline bounds the rest). */
        const char *cl = ctx->hdr[H_CONTENT_LENGTH];
        unsigned long long announced = cl ? strtoull(cl, NULL, 10) : 0;
        if (ctx->uri_len > MAX_URI_BYTES) {
            char d[200];
            snprintf(d, sizeof d,
                     "the request target is %zu bytes; the limit is %d (send long inputs as a POST body instead)",
                     ctx->uri_len, MAX_URI_BYTES);
            return problem_now(srv, c, ctx, 414, "uri-too-long", d);
        }
        if (announced > srv->cfg->max_body_bytes && announced <= DISCARD_MAX)
            ctx->too_large = true;
        else if (announced > srv->cfg->max_body_bytes) {
            char d[160];
            snprintf(d, sizeof d, "request body is larger than the limit of %zu bytes", srv->cfg->max_body_bytes);
            return problem_now(srv, c, ctx, 413, "too-large", d);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        if (!ctx->too_large) {
            if (ctx->body.len + *upload_size > srv->cfg->max_body_bytes) {
                ctx->too_large = true;
                sb_free(&ctx->body);
            } else {
                sb_append(&ctx->body, upload, *upload_size);
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    read_deadline_reading(srv->deadline, c, false); /* the whole request is in: the read deadline is met */
    if (ctx->queued)
        return MHD_YES;
    if (ctx->too_large || ctx->body.oom) {
        char d[160];
        snprintf(d, sizeof d, "request body is larger than the limit of %zu bytes", srv->cfg->max_body_bytes);
        return problem_now(srv, c, ctx, 413, "too-large", d);
    }
    if (!strcmp(method, "OPTIONS"))
        return preflight(srv, c, ctx, url);
    /* No request content coding is decoded: a gzip (or any non-identity) body is a 415
     * that says so (RFC 9110 15.5.16), not a 400 about the JSON its bytes do not make. */
    const char *ce = ctx->hdr[H_CONTENT_ENCODING];
    if (ce && *ce && strcasecmp(ce, "identity") != 0 && ctx->body.len > 0 && !strcmp(method, "POST")) {
        char d[200];
        snprintf(d, sizeof d,
                 "the request body has Content-Encoding '%.40s'; the service reads bodies only unencoded (identity): "
                 "send it without Content-Encoding",
                 ce);
        return problem_now(srv, c, ctx, 415, "unsupported-media-type", d);
    }
    app_request req = {0};
    req.method = method;
    req.path = url;
    req.body = ctx->body.data ? ctx->body.data : "";
    req.body_len = ctx->body.len;
    req.content_type = ctx->hdr[H_CONTENT_TYPE];
    req.accept = ctx->hdr[H_ACCEPT];
    req.if_none_match = ctx->hdr[H_IF_NONE_MATCH];
    req.accept_encoding = ctx->hdr[H_ACCEPT_ENCODING];
    req.request_id = ctx->request_id;
    req.shared_ok = true; /* queue() sends resp.shared without copying it */
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &req);
    app_response resp = {0};
    sb_init(&resp.body);
    app_handle(srv->a, &req, &resp);
    enum MHD_Result r = queue(srv, c, ctx, &resp);
    app_response_free(&resp);
    return r;
}

static void put_uint(strbuf *b, unsigned long long u)
{
    char tmp[24], *p = tmp + sizeof tmp;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    sb_append(b, p, (size_t)(tmp + sizeof tmp - p));
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    server *srv = cls;
    if (srv && c)
        read_deadline_reading(srv->deadline, c, true); /* a keep-alive connection now waits for its next request */
    request_ctx *ctx = *con_cls;
    if (!ctx)
        return;
    double dur = since(&ctx->t0);
    int status = ctx->queued ? ctx->status : 0;
    metrics_request(ctx->route, method_of(ctx->method), status, dur);
    metrics_response_bytes(ctx->route, ctx->bytes);
    metrics_inflight(-1);
    /* Successful probes come every few seconds from every orchestrator: keep them out of info logs. */
    bool probe = has_flag(ctx->route, ROUTE_PROBE) && status == 200;
    log_level lvl = probe ? LOG_DEBUG : LOG_INFO;
    if (log_enabled(lvl)) {
        strbuf own, *kept = log_extra_buffer(); /* kept per thread: a line per request */
        sb_init(&own);
        strbuf e = kept ? *kept : own;
        sb_reset(&e);
        sb_puts(&e, "\"request_id\":");
        sb_json_string(&e, ctx->request_id);
        sb_puts(&e, ",\"method\":");
        sb_json_string(&e, ctx->method);
        sb_puts(&e, ",\"path\":");
        sb_json_string(&e, ctx->path);
        sb_puts(&e, ",\"route\":");
        sb_json_string(&e, route_label(ctx->route));
        /* ,"status":%d,"duration_ms":%.3f,"bytes":%llu without printf (fmt_fixed is printf's %.3f) */
        char num[48];
        sb_puts(&e, ",\"status\":");
        if (status < 0)
            sb_putc(&e, '-');
        put_uint(&e, status < 0 ? 0ULL - (unsigned long long)status : (unsigned long long)status);
        sb_puts(&e, ",\"duration_ms\":");
        sb_append(&e, num, (size_t)fmt_fixed(num, sizeof num, dur * 1e3, 3));
        sb_puts(&e, ",\"bytes\":");
        put_uint(&e, (unsigned long long)ctx->bytes);
        if (!ctx->started)
            sb_puts(&e, ",\"error\":\"rejected by the HTTP layer before routing (malformed or oversized request)\"");
        else if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
            sb_printf(&e, ",\"aborted\":%d", (int)toe);
        log_request(lvl, "request", e.data);
        if (e.oom || e.cap > 65536 || !kept)
            sb_free(&e);
        if (kept)
            *kept = e;
    }
    sb_free(&ctx->body);
    free(ctx);
    *con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    log_line(LOG_DEBUG, msg, "\"source\":\"libmicrohttpd\"");
}

int server_start(server **out, app *a, const config *cfg, char *msg, size_t msglen)
{
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char port[16];
    snprintf(port, sizeof port, "%d", cfg->port);
    int rc = getaddrinfo(cfg->host, port, &hints, &ai);
    if (rc != 0) {
        snprintf(msg, msglen, "--host '%s': %s", cfg->host, gai_strerror(rc));
        return -1;
    }
    server *s = calloc(1, sizeof *s);
    if (!s) {
        freeaddrinfo(ai);
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    s->a = a;
    s->cfg = cfg;
    clock_gettime(CLOCK_MONOTONIC, &s->trimmed);
    if (!(s->deadline = read_deadline_start(cfg->read_timeout, trim_idle_memory, s, msg, msglen))) {
        freeaddrinfo(ai);
        free(s);
        return -1;
    }
    /* A pool of internal threads on poll, never epoll (docs/BENCHMARKS.md, "Threading"):
     * with one thread, libmicrohttpd 0.9.75's epoll loop stalls at 256 open connections (a
     * few hundred requests/s; reproduced without mlsysd); with a pool, MHD_quiesce_daemon
     * (server_quiesce, at a stop signal) races the workers' own removal of the listening
     * socket from their epoll sets, and the loser aborts the process ("Failed to remove
     * listen FD from epoll set", an open libmicrohttpd defect; once in about 1,500 stops on
     * a loaded machine). On poll, quiescing signals the workers through their ITC instead. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    s->d = MHD_start_daemon(
        flags, (uint16_t)cfg->port, NULL, NULL, handler, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)cfg->threads, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)cfg->max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)cfg->max_connections_per_ip,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->connection_timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        cfg->connection_memory, MHD_OPTION_NOTIFY_COMPLETED, completed,
        s, MHD_OPTION_NOTIFY_CONNECTION, read_deadline_connection, s->deadline, MHD_OPTION_URI_LOG_CALLBACK, on_request_line, NULL, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!s->d) {
        snprintf(msg, msglen, "cannot listen on %s:%d (address in use, or not allowed)", cfg->host, cfg->port);
        read_deadline_stop(s->deadline);
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

uint16_t server_port(const server *s)
{
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    return i ? i->port : 0;
}

void server_quiesce(server *s)
{
    MHD_socket fd = MHD_quiesce_daemon(s->d);
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
}

void server_stop(server *s)
{
    MHD_stop_daemon(s->d); /* closes every connection: none is tracked after it */
    read_deadline_stop(s->deadline);
    free(s);
}
