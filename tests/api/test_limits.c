/* test_limits.c - every resource limit is explicit in the configuration and
 * enforced: body size, sweep points, connections in total and per address,
 * the read deadline against slow clients, and the request (sweep computing)
 * timeout. Each test starts its own daemon with small limits, checks the
 * limit from both sides (just under passes, just over is refused), checks
 * that the daemon still serves afterwards, and that it exits 0 on SIGTERM
 * (in a sanitizer build a leak or an error report makes that non-zero). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "daemon_log.h"
#include "harness.h"

/* The test's own daemon. A failed cr_assert ends the test early: .fini
 * (cleanup) still stops the daemon so that none is left running. */
static daemon_t *g_running;

static void start(daemon_t *d, const char *const *args)
{
    cr_assert_eq(daemon_start(d, args, NULL), 0, "the daemon did not start");
    g_running = d;
}

static void stop(daemon_t *d)
{
    char log[160];
    snprintf(log, sizeof log, "%s", d->log_path);
    g_running = NULL;
    cr_expect_eq(daemon_stop(d), 0, "the daemon did not exit 0 on SIGTERM (log: %s)", log);
}

static void cleanup(void)
{
    if (g_running && g_running->pid > 0)
        daemon_stop(g_running);
    g_running = NULL;
}

static void expect_healthy(const daemon_t *d)
{
    http_resp r;
    cr_assert_eq(http_get(d, "/healthz", &r), 0, "/healthz did not answer");
    cr_assert_eq(r.status, 200);
    http_free(&r);
}

/* A connection the daemon has closed still holds its slot until the daemon's
 * thread has seen the close: after closing some, a test waits for /healthz to
 * be served again (10 s at most) rather than for a fixed time. */
static void await_healthy(const daemon_t *d)
{
    http_resp r = {0};
    int rc = -1;
    for (double end = now_s() + 10; now_s() < end; sleep_s(0.02)) {
        rc = http_get(d, "/healthz", &r);
        bool ok = rc == 0 && r.status == 200;
        http_free(&r);
        if (ok)
            return;
    }
    cr_assert_fail("/healthz was not served within 10 s (rc %d)", rc);
}

/* The lines of the read deadline's watchdog, once there are `count` (10 s at most). */
static size_t await_cut_lines(const daemon_t *d, size_t count)
{
    json_t *lines = daemon_log_await(d->log_path, "read deadline passed: connection closed", NULL, NULL, count, 10);
    size_t n = json_array_size(lines);
    json_decref(lines);
    return n;
}

/* --- raw sockets, for connection-level limits ------------------------------------------------- */

static int raw_connect(const daemon_t *d)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0, "connect: %s", strerror(errno));
    return fd;
}

static bool send_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
        if (k <= 0)
            return false;
        s += k;
        n -= (size_t)k;
    }
    return true;
}

typedef enum { R_ANSWERED, R_CLOSED, R_SILENT } raw_outcome;

/* Wait up to timeout_s for the start of a response: the status code, or
 * closed (EOF/reset without a response), or silent (nothing came). */
static raw_outcome raw_wait(int fd, double timeout_s, int *status)
{
    char buf[512];
    size_t got = 0;
    double end = now_s() + timeout_s;
    while (now_s() < end) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ms = (int)((end - now_s()) * 1000) + 1;
        if (poll(&p, 1, ms) <= 0)
            continue;
        ssize_t k = recv(fd, buf + got, sizeof buf - 1 - got, 0);
        if (k <= 0)
            return got >= 12 ? R_ANSWERED : R_CLOSED;
        got += (size_t)k;
        buf[got] = '\0';
        char *eol = strstr(buf, "\r\n");
        if (eol && !strncmp(buf, "HTTP/1.", 7)) {
            *status = atoi(buf + 9);
            return R_ANSWERED;
        }
    }
    return R_SILENT;
}

/* Read one whole small response (headers + Content-Length body) so that the
 * connection is idle in keep-alive afterwards. */
static int raw_request(int fd, const char *req)
{
    cr_assert(send_all(fd, req, strlen(req)));
    char buf[4096];
    size_t got = 0;
    double end = now_s() + 10;
    while (now_s() < end && got < sizeof buf - 1) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t k = recv(fd, buf + got, sizeof buf - 1 - got, 0);
        if (k <= 0)
            break;
        got += (size_t)k;
        buf[got] = '\0';
        char *hdr_end = strstr(buf, "\r\n\r\n");
        if (!hdr_end)
            continue;
        const char *cl = strstr(buf, "\r\nContent-Length:"); /* libmicrohttpd's spelling */
        size_t body = cl ? (size_t)strtoul(cl + 17, NULL, 10) : 0;
        if (got >= (size_t)(hdr_end + 4 - buf) + body)
            return atoi(buf + 9);
    }
    return -1;
}

static const char HEALTHZ_KEEPALIVE[] = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";

/* A new connection on which /healthz was served (it stays open in keep-alive).
 * A slot a closed connection held frees a moment after the close: a connection
 * closed unanswered is retried, for 10 s at most. */
static int served_connection(const daemon_t *d)
{
    for (double end = now_s() + 10;; sleep_s(0.02)) {
        int fd = raw_connect(d);
        if (raw_request(fd, HEALTHZ_KEEPALIVE) == 200)
            return fd;
        close(fd);
        cr_assert(now_s() < end, "no connection was served within 10 s");
    }
}

/* --- body size ------------------------------------------------------------------------------------ */

Test(limits, body_size, .timeout = 60, .fini = cleanup)
{
    daemon_t d;
    start(&d, (const char *const[]){"--max-body-bytes", "1024", NULL});
    /* 1024 bytes exactly: a valid request padded with spaces is accepted. */
    char body[2048];
    const char *json = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}";
    memset(body, ' ', sizeof body);
    memcpy(body, json, strlen(json));
    static const char *const h[] = {"Content-Type: application/json", "Expect:", NULL};
    http_resp r;
    cr_assert_eq(http_request(&d, "POST", "/solve", h, body, 1024, &r), 0);
    cr_expect_eq(r.status, 200, "a body of exactly the limit was refused: %ld %.200s", r.status, r.body);
    http_free(&r);
    /* 1025 bytes: 413 naming the limit, with Content-Length announced ... */
    cr_assert_eq(http_request(&d, "POST", "/solve", h, body, 1025, &r), 0);
    expect_problem(&r, 413, NULL, "1024");
    http_free(&r);
    /* ... and without (chunked): counted while reading. */
    static const char *const hc[] = {"Content-Type: application/json", "Transfer-Encoding: chunked", "Expect:", NULL};
    cr_assert_eq(http_request(&d, "POST", "/sweep", hc, body, 2048, &r), 0);
    expect_problem(&r, 413, NULL, "1024");
    http_free(&r);
    expect_healthy(&d);
    stop(&d);
}

/* --- sweep points ------------------------------------------------------------------------------------ */

Test(limits, sweep_points, .timeout = 60, .fini = cleanup)
{
    daemon_t d;
    start(&d, (const char *const[]){"--sweep-max-points", "100", NULL});
    http_resp r;
    /* 10 x 10 = 100 points: at the cap, accepted and complete. */
    cr_assert_eq(http_get(&d, "/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,2,3,4,5,6,7,8,9,10"
                              "&seq_len=1,2,3,4,5,6,7,8,9,10&format=ndjson",
                          &r),
                 0);
    cr_expect_eq(r.status, 200, "%.300s", r.body);
    size_t lines = 0;
    for (const char *p = r.body; (p = strchr(p, '\n')); p++)
        lines++;
    cr_expect_eq(lines, 101, "%zu lines, expected the units line and 100 rows", lines);
    http_free(&r);
    /* 101 points (a range in the body): 413 stating the cap. */
    cr_assert_eq(http_post_json(&d, "/sweep",
                                "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},"
                                "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":101,\"step\":1}}]}",
                                &r),
                 0);
    expect_problem(&r, 413, NULL, "100");
    http_free(&r);
    /* A product over the cap from small axes: 11 x 10. */
    cr_assert_eq(http_get(&d, "/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,2,3,4,5,6,7,8,9,10,11"
                              "&seq_len=1,2,3,4,5,6,7,8,9,10",
                          &r),
                 0);
    expect_problem(&r, 413, NULL, "100");
    http_free(&r);
    expect_healthy(&d);
    stop(&d);
}

/* --- connections in total ---------------------------------------------------------------------------- */

Test(limits, max_connections, .timeout = 60, .fini = cleanup)
{
    daemon_t d;
    /* One worker thread: libmicrohttpd divides the limit among its workers. */
    start(&d, (const char *const[]){"--max-connections", "4", "--threads", "1", "--connection-timeout", "30", NULL});
    int held[4]; /* the first may wait for the start-up probe's connection to be closed */
    for (int i = 0; i < 4; i++)
        held[i] = served_connection(&d);
    /* A fifth is not served while four are open ... */
    int extra = raw_connect(&d);
    cr_assert(send_all(extra, HEALTHZ_KEEPALIVE, strlen(HEALTHZ_KEEPALIVE)));
    int status = 0;
    raw_outcome o = raw_wait(extra, 1.0, &status);
    cr_expect_neq(o, R_ANSWERED, "a fifth connection was served (status %d) over --max-connections 4", status);
    /* ... and is served (or may retry) once one of them closes. */
    close(held[0]);
    if (o == R_SILENT) {
        o = raw_wait(extra, 10.0, &status);
        cr_expect_eq(o, R_ANSWERED, "the waiting connection was not served within 10 s of a slot freeing");
        cr_expect_eq(status, 200);
    } else {
        close(extra);
        extra = served_connection(&d);
    }
    close(extra);
    for (int i = 1; i < 4; i++)
        close(held[i]);
    expect_healthy(&d);
    stop(&d);
}

/* --- connections per address ------------------------------------------------------------------------- */

Test(limits, max_connections_per_ip, .timeout = 60, .fini = cleanup)
{
    daemon_t d;
    start(&d, (const char *const[]){"--max-connections-per-ip", "2", "--connection-timeout", "30", NULL});
    int a = served_connection(&d), b = served_connection(&d); /* once the start-up probe's has closed */
    /* A third from 127.0.0.1 is closed without an answer. */
    int c = raw_connect(&d);
    send_all(c, HEALTHZ_KEEPALIVE, strlen(HEALTHZ_KEEPALIVE));
    int status = 0;
    raw_outcome o = raw_wait(c, 2.0, &status);
    cr_expect_neq(o, R_ANSWERED, "a third connection from one address was served (status %d)", status);
    close(c);
    /* With one closed, a new one is served. */
    close(a);
    c = served_connection(&d);
    close(c);
    close(b);
    await_healthy(&d);
    stop(&d);
}

/* --- connection memory ------------------------------------------------------------------------------- */

/* --connection-memory bounds a request's line and headers: 60 KB of headers are a 431 at
 * the default (40 KiB) and read at 128 KiB. */
Test(limits, connection_memory_bounds_the_headers, .timeout = 60, .fini = cleanup)
{
    char *pad = malloc(60000 + 16);
    snprintf(pad, 60000 + 16, "X-Pad: %060000d", 0);
    const char *const h[] = {pad, NULL};
    static const char *const sizes[] = {NULL, "131072"};
    static const long want[] = {431, 200};
    for (int i = 0; i < 2; i++) {
        daemon_t d;
        start(&d, sizes[i] ? (const char *const[]){"--connection-memory", sizes[i], NULL} : NULL);
        http_resp r;
        cr_assert_eq(http_request(&d, "GET", "/healthz", h, NULL, 0, &r), 0);
        cr_expect_eq(r.status, want[i], "--connection-memory %s: %ld", sizes[i] ? sizes[i] : "(default)", r.status);
        http_free(&r);
        expect_healthy(&d);
        stop(&d);
    }
    free(pad);
}

/* --- slow clients: the read deadline ------------------------------------------------------------------ */

/* Send `req` one byte every `gap` seconds; return the seconds until the
 * daemon closed the connection, or -1 if it never did within `limit_s`
 * (or answered, which it must not: the request is never complete in time). */
static double trickle(const daemon_t *d, const char *req, double gap, double limit_s, bool *answered)
{
    int fd = raw_connect(d);
    double t0 = now_s();
    *answered = false;
    for (size_t i = 0; req[i] && now_s() - t0 < limit_s; i++) {
        if (!send_all(fd, req + i, 1))
            break;
        int status = 0;
        raw_outcome o = raw_wait(fd, gap, &status);
        if (o == R_ANSWERED) {
            *answered = true;
            break;
        }
        if (o == R_CLOSED)
            break;
    }
    double took = now_s() - t0;
    close(fd);
    return took < limit_s ? took : -1;
}

/* The slow-client tests trickle a request that would take over 50 s to
 * complete, a byte every 0.5 s: the idle timeout (--connection-timeout 30)
 * never fires, so only the read deadline can cut the connection, and its
 * watchdog's log line says it did. A cut before the deadline fails; a cut
 * later than the deadline only counts as a hang past 20 s (the machine may be
 * loaded). */
static const char *const SLOW_ARGS[] = {"--connection-timeout", "30", "--read-timeout", "3", NULL};

Test(limits, slow_client_headers, .timeout = 60, .fini = cleanup)
{
    daemon_t d;
    start(&d, SLOW_ARGS);
    char req[256];
    snprintf(req, sizeof req, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: %080d\r\n\r\n", 0);
    bool answered;
    double took = trickle(&d, req, 0.5, 20, &answered);
    cr_expect(!answered, "a request trickled at 2 bytes/s over the read deadline was answered");
    cr_expect(took > 2.5, "the slow client was cut off after %.2f s (read-timeout 3 s; -1: not within 20 s)", took);
    cr_expect_eq(await_cut_lines(&d, 1), 1, "no log line of the read deadline for the cut-off connection within 10 s");
    expect_healthy(&d);
    stop(&d);
}

Test(limits, slow_client_body, .timeout = 60, .fini = cleanup)
{
    daemon_t d;
    start(&d, SLOW_ARGS);
    /* Headers arrive at once; the announced 200-byte body comes 1 byte every 0.5 s. */
    char req[512];
    int n = snprintf(req, sizeof req,
                     "POST /solve HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     "Content-Length: 200\r\n\r\n");
    int fd = raw_connect(&d);
    cr_assert(send_all(fd, req, (size_t)n));
    double t0 = now_s();
    bool closed = false;
    for (int i = 0; i < 200 && now_s() - t0 < 20; i++) {
        if (!send_all(fd, " ", 1)) {
            closed = true;
            break;
        }
        int status = 0;
        raw_outcome o = raw_wait(fd, 0.5, &status);
        cr_assert_neq(o, R_ANSWERED, "answered %d before the body was complete", status);
        if (o == R_CLOSED) {
            closed = true;
            break;
        }
    }
    double took = now_s() - t0;
    close(fd);
    cr_expect(closed, "a body trickled at 2 bytes/s was not cut off within 20 s");
    cr_expect(took > 2.0, "the slow body was cut off after %.2f s (read-timeout 3 s)", took);
    cr_expect_eq(await_cut_lines(&d, 1), 1, "no log line of the read deadline for the cut-off connection within 10 s");
    expect_healthy(&d);
    stop(&d);
}

Test(limits, keepalive_idle_then_fast_request, .timeout = 60, .fini = cleanup)
{
    /* The read deadline restarts after each response: a keep-alive client
     * that pauses 1 s between quick requests is not cut off, though its
     * connection is open longer than the 4 s deadline (each request has 3 s
     * to spare, for a loaded machine). */
    daemon_t d;
    start(&d, (const char *const[]){"--connection-timeout", "30", "--read-timeout", "4", NULL});
    int fd = raw_connect(&d);
    double t0 = now_s();
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(raw_request(fd, HEALTHZ_KEEPALIVE), 200, "request %d on the keep-alive connection", i);
        if (i < 5)
            sleep_s(1.0);
    }
    cr_expect_gt(now_s() - t0, 4.0);
    close(fd);
    cr_expect_eq(await_cut_lines(&d, 0), 0, "the read deadline cut a connection");
    stop(&d);
}

/* --- request (sweep computing) timeout ----------------------------------------------------------------- */

static const char LONG_SWEEP[] =
    "{\"solver\":\"pipeline\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"sample_size_bytes\":\"500 KB\","
    "\"cpu_throughput\":\"2 GB/s\"},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":1000,\"step\":1}},"
    "{\"input\":\"seq_len\",\"range\":{\"start\":1,\"stop\":1000,\"step\":1}}],\"format\":\"%s\"}";

Test(limits, request_timeout, .timeout = 120, .fini = cleanup)
{
    daemon_t d;
    start(&d, (const char *const[]){"--request-timeout", "0.3", NULL});
    const char *formats[] = {"csv", "ndjson", "json"};
    for (int f = 0; f < 3; f++) {
        char body[1024];
        snprintf(body, sizeof body, LONG_SWEEP, formats[f]);
        http_resp r;
        double t0 = now_s();
        cr_assert_eq(http_post_json(&d, "/sweep", body, &r), 0);
        double took = now_s() - t0;
        cr_expect_eq(r.status, 200, "[%s] %ld", formats[f], r.status);
        cr_expect_lt(took, 15.0, "[%s] a 1e6-point sweep with --request-timeout 0.3 took %.1f s", formats[f], took);
        /* The end of the stream says it was cut off, and where. */
        cr_assert_gt(r.len, 10);
        size_t tail = r.len > 400 ? r.len - 400 : 0;
        const char *end = r.body + tail;
        cr_expect(strstr(end, "request timeout") && strstr(end, "of 1000000 points"),
                  "[%s] no cut-off marker at the end of the stream: ...%s", formats[f], end);
        if (f == 2) {
            json_t *j = http_json(&r);
            cr_expect_not_null(j, "[json] a cut-off JSON sweep is not valid JSON");
            cr_expect(json_is_string(json_object_get(j, "error")), "[json] no top-level error member");
            json_decref(j);
        } else if (f == 1) {
            const char *last = r.body + r.len - 1;
            while (last > r.body && last[-1] != '\n')
                last--;
            json_t *j = json_loads(last, 0, NULL);
            cr_expect(j && json_is_string(json_object_get(j, "error")), "[ndjson] the last line is not an error object: %s",
                      last);
            json_decref(j);
        }
        http_free(&r);
    }
    /* A sweep that fits in the time is complete, with no marker. */
    http_resp r;
    cr_assert_eq(http_get(&d, "/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,2,4&format=csv", &r), 0);
    cr_expect_eq(r.status, 200);
    cr_expect(!strstr(r.body, "timeout"), "a small sweep carries a timeout marker: %s", r.body);
    http_free(&r);
    expect_healthy(&d);
    stop(&d);
}

/* --- the limits are in the configuration ------------------------------------------------------------------ */

Test(limits, documented_in_help)
{
    /* Every limit above is a flag with an environment variable (one table in config.c). */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s --help", MLSYSD_BINARY);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    pclose(p);
    const char *flags[] = {"--max-body-bytes",   "MLSYSD_MAX_BODY_BYTES",   "--sweep-max-points",
                           "MLSYSD_SWEEP_MAX_POINTS", "--max-connections", "MLSYSD_MAX_CONNECTIONS",
                           "--max-connections-per-ip", "MLSYSD_MAX_CONNECTIONS_PER_IP", "--connection-timeout",
                           "MLSYSD_CONNECTION_TIMEOUT", "--read-timeout", "MLSYSD_READ_TIMEOUT",
                           "--request-timeout", "MLSYSD_REQUEST_TIMEOUT"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        cr_expect(strstr(buf, flags[i]), "--help does not mention %s", flags[i]);
}

Test(limits, read_timeout_from_env, .timeout = 60, .fini = cleanup)
{
    /* The environment sets it too (flags and env share one table). */
    daemon_t d;
    cr_assert_eq(daemon_start(&d, NULL, (const char *const[]){"MLSYSD_READ_TIMEOUT=2", "MLSYSD_CONNECTION_TIMEOUT=30",
                                                              NULL}),
                 0);
    g_running = &d;
    char req[256];
    snprintf(req, sizeof req, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: %080d\r\n\r\n", 0);
    bool answered;
    double took = trickle(&d, req, 0.5, 20, &answered);
    cr_expect(!answered);
    cr_expect(took > 1.5, "cut off after %.2f s with MLSYSD_READ_TIMEOUT=2 (-1: not within 20 s)", took);
    json_t *cut = daemon_log_await(d.log_path, "read deadline passed: connection closed", NULL, NULL, 1, 10);
    cr_expect_eq(json_number_value(json_object_get(json_array_get(cut, 0), "read_timeout_s")), 2,
                 "no log line of a 2 s read deadline within 10 s");
    json_decref(cut);
    stop(&d);
}
