/* test_ops.c - what an operator relies on, against the real binary: probes,
 * /version, request ids (response and log line), the JSON access log and
 * --log-level, CORS (listed origins, "*", preflight), Prometheus metrics that
 * move, problem+json on every error path, config errors that stop start-up
 * with exit code 2, and a graceful stop under SIGTERM while a large sweep is
 * still streaming to a slow client. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon_log.h"
#include "harness.h"

static const char *or_empty(const char *s) { return s ? s : ""; }

static bool contains_ci(const char *hay, const char *needle)
{
    for (size_t n = strlen(needle); *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return true;
    return false;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof sa;
    int port = 0;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && getsockname(fd, (struct sockaddr *)&sa, &n) == 0)
        port = ntohs(sa.sin_port);
    close(fd);
    return port;
}


/* Exit status of pid within timeout seconds; -1 if it had to be killed. */
static int wait_exit(pid_t pid, double timeout)
{
    double t0 = now_s();
    int status;
    while (now_s() - t0 < timeout) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        sleep_s(0.01);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static char *log_name(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "/tmp/mlsysd-ops-%d-%s.log", (int)getpid(), tag);
    return buf;
}

/* The log's JSON lines whose "msg" is msg (all lines when msg is NULL). */
static json_t *log_lines(const char *path, const char *msg)
{
    json_t *out = json_array();
    char *text = read_file(path, NULL);
    cr_assert(text, "cannot read %s", path);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_t *j = json_loads(line, 0, NULL);
        cr_assert(j && json_is_object(j), "log line is not a JSON object: %s", line);
        if (!msg || !strcmp(or_empty(json_string_value(json_object_get(j, "msg"))), msg))
            json_array_append_new(out, j);
        else
            json_decref(j);
    }
    free(text);
    return out;
}

static json_t *log_find_request(const char *path, const char *request_id)
{
    json_t *lines = log_lines(path, "request");
    json_t *hit = NULL;
    size_t i;
    json_t *l;
    json_array_foreach(lines, i, l) {
        if (!strcmp(or_empty(json_string_value(json_object_get(l, "request_id"))), request_id))
            hit = json_incref(l);
    }
    json_decref(lines);
    return hit;
}

/* Log lines are written by the request's thread after the response went
 * out: wait for the line (NULL if it is not there within 10 s). */
static json_t *await_request_line(const char *path, const char *request_id)
{
    for (double end = now_s() + 10;; sleep_s(0.01)) {
        json_t *l = log_find_request(path, request_id);
        if (l || now_s() > end)
            return l;
    }
}

/* A problem (problem_reply) whose instance starts with path_prefix. */
static void expect_problem_at(const http_resp *r, long status, const char *path_prefix)
{
    json_t *j = problem_reply(r, status);
    const char *inst = json_string_value(json_object_get(j, "instance"));
    cr_expect(inst && !strncmp(inst, path_prefix, strlen(path_prefix)), "instance '%s' for %s", inst ? inst : "",
              path_prefix);
    json_decref(j);
}

/* ---- probes and /version ---------------------------------------------------------------- */

Test(ops, liveness_and_readiness_probes)
{
    static const char *const paths[] = {"/healthz", "/livez", "/readyz"};
    for (size_t i = 0; i < 3; i++) {
        http_resp r;
        cr_assert_eq(http_get(shared_daemon(), paths[i], &r), 0);
        cr_expect_eq(r.status, 200, "%s: %ld", paths[i], r.status);
        cr_expect_str_eq(r.content_type, "application/json");
        json_t *j = http_json(&r);
        cr_expect(json_is_string(json_object_get(j, "status")), "%s: %s", paths[i], r.body);
        json_decref(j);
        http_free(&r);
        cr_assert_eq(http_request(shared_daemon(), "HEAD", paths[i], NULL, NULL, 0, &r), 0);
        cr_expect_eq(r.status, 200, "HEAD %s", paths[i]);
        cr_expect_eq(r.len, 0, "HEAD %s has a body", paths[i]);
        http_free(&r);
    }
}

Test(ops, version_names_build_and_catalog_hashes)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), "/version", &r), 0);
    cr_assert_eq(r.status, 200);
    json_t *j = http_json(&r);
    cr_expect_str_eq(json_string_value(json_object_get(j, "service")), "mlsysd");
    const char *v = json_string_value(json_object_get(j, "version"));
    cr_expect(v && strchr(v, '.'), "version '%s'", v ? v : "");
    const char *rev = json_string_value(json_object_get(j, "git_revision"));
    cr_expect(rev && *rev, "git_revision");
    json_t *eds = json_object_get(j, "catalog_editions");
    cr_assert(json_array_size(eds) >= 2, "editions: %s", r.body);
    bool current = false, tutorial = false;
    size_t i;
    json_t *e;
    json_array_foreach(eds, i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *hash = json_string_value(json_object_get(e, "version"));
        cr_assert(name && hash, "edition %zu: %s", i, r.body);
        current |= !strcmp(name, "current");
        tutorial |= !strcmp(name, "tutorial");
        cr_expect_eq(strlen(hash), 16, "%s hash '%s'", name, hash);
        cr_expect_eq(strspn(hash, "0123456789abcdef"), strlen(hash), "%s hash '%s' is not hex", name, hash);
        cr_expect(json_integer_value(json_object_get(e, "hardware")) > 0, "%s hardware count", name);
        cr_expect(json_integer_value(json_object_get(e, "models")) > 0, "%s model count", name);
    }
    cr_expect(current && tutorial);
    const char *h0 = json_string_value(json_object_get(json_array_get(eds, 0), "version"));
    const char *h1 = json_string_value(json_object_get(json_array_get(eds, 1), "version"));
    cr_expect_str_neq(h0, h1, "editions with different data must hash differently");
    json_decref(j);
    http_free(&r);
}

/* ---- request ids ---------------------------------------------------------------------------- */

static void id_of(const char *const *headers, char *out, size_t n)
{
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), "GET", "/healthz", headers, NULL, 0, &r), 0);
    cr_assert(http_header(&r, "X-Request-ID", out, n), "no X-Request-ID");
    http_free(&r);
}

Test(ops, request_id_accepted_or_generated)
{
    char id[128];
    static const char *const good[] = {"X-Request-ID: trace-42.a:b_c-D", NULL};
    id_of(good, id, sizeof id);
    cr_expect_str_eq(id, "trace-42.a:b_c-D");
    /* 64 characters is the longest accepted */
    char h[200];
    snprintf(h, sizeof h, "X-Request-ID: %064d", 7);
    const char *const longest[] = {h, NULL};
    id_of(longest, id, sizeof id);
    cr_expect_eq(strlen(id), 64);
    /* too long, bad characters, empty: replaced by a generated id */
    char h65[200];
    snprintf(h65, sizeof h65, "X-Request-ID: %065d", 7);
    static const char *const bad_chars[] = {"X-Request-ID: a b", "X-Request-ID: <script>", "X-Request-ID: \"x\"",
                                            "X-Request-ID: ;", NULL};
    char seen[8][128];
    int n_seen = 0;
    for (int i = 0; i <= 4; i++) {
        const char *const hs[] = {i < 4 ? bad_chars[i] : h65, NULL};
        id_of(hs, id, sizeof id);
        cr_expect_eq(strlen(id), 20, "generated id '%s'", id);
        cr_expect_eq(strspn(id, "0123456789abcdef"), 20, "generated id '%s'", id);
        for (int k = 0; k < n_seen; k++)
            cr_expect_str_neq(seen[k], id, "generated ids repeat");
        snprintf(seen[n_seen++], sizeof seen[0], "%s", id);
    }
    id_of(NULL, id, sizeof id);
    cr_expect_eq(strlen(id), 20);
}

/* ---- access log ------------------------------------------------------------------------------- */

Test(ops, access_log_one_json_line_per_request)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, NULL, NULL), 0);
    static const char *const hs[] = {"X-Request-ID: log-test-1", NULL};
    http_resp r;
    cr_assert_eq(http_request(&d, "GET", "/solvers/single_node", hs, NULL, 0, &r), 0);
    size_t body_len = r.len;
    http_free(&r);
    static const char *const hs2[] = {"X-Request-ID: log-test-2", "Content-Type: application/json", NULL};
    cr_assert_eq(http_request(&d, "POST", "/solve", hs2, "{\"solver\":\"nope\"}", 17, &r), 0);
    cr_expect_eq(r.status, 404);
    http_free(&r);
    cr_assert_eq(http_get(&d, "/no/such/thing?x=1", &r), 0);
    char generated[128] = "";
    http_header(&r, "X-Request-ID", generated, sizeof generated);
    http_free(&r);

    json_t *l = await_request_line(d.log_path, "log-test-1");
    cr_assert(l, "no log line carries the client's request id");
    const char *ts = json_string_value(json_object_get(l, "ts"));
    cr_expect(ts && strlen(ts) == 24 && ts[4] == '-' && ts[10] == 'T' && ts[23] == 'Z', "ts '%s'", ts ? ts : "");
    cr_expect_str_eq(json_string_value(json_object_get(l, "level")), "info");
    cr_expect_str_eq(json_string_value(json_object_get(l, "method")), "GET");
    cr_expect_str_eq(json_string_value(json_object_get(l, "path")), "/solvers/single_node");
    cr_expect_str_eq(json_string_value(json_object_get(l, "route")), "/solvers/{name}");
    cr_expect_eq(json_integer_value(json_object_get(l, "status")), 200);
    cr_expect(json_is_number(json_object_get(l, "duration_ms")) && json_number_value(json_object_get(l, "duration_ms")) >= 0);
    cr_expect_eq((size_t)json_integer_value(json_object_get(l, "bytes")), body_len);
    json_decref(l);

    l = await_request_line(d.log_path, "log-test-2");
    cr_assert(l);
    cr_expect_str_eq(json_string_value(json_object_get(l, "method")), "POST");
    cr_expect_eq(json_integer_value(json_object_get(l, "status")), 404);
    json_decref(l);

    l = await_request_line(d.log_path, generated);
    cr_assert(l, "the generated id %s is not in the log", generated);
    cr_expect_str_eq(json_string_value(json_object_get(l, "path")), "/no/such/thing",
                     "the query string stays out of the log");
    json_decref(l);

    cr_assert_eq(daemon_stop(&d), 0);
    json_t *all = log_lines(d.log_path, NULL);
    cr_assert(json_array_size(all) >= 6);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(all, 0), "msg")), "listening",
                     "the first line announces the start");
    json_t *start = json_array_get(all, 0);
    cr_expect_eq(json_integer_value(json_object_get(start, "port")), d.port);
    cr_expect(json_is_string(json_object_get(start, "version")) && json_is_number(json_object_get(start, "startup_ms")));
    cr_expect(json_is_number(json_object_get(start, "sweep_max_points")), "the effective settings are logged");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(all, json_array_size(all) - 1), "msg")),
                     "stopped", "the last line announces the stop");
    json_t *drain = log_lines(d.log_path, "draining");
    cr_expect_eq(json_array_size(drain), 1);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(drain, 0), "signal")), "SIGTERM");
    json_decref(drain);
    json_decref(all);
    unlink(d.log_path);
}

Test(ops, log_level_warn_suppresses_request_lines)
{
    char log[128], port[16], url[64];
    log_name(log, sizeof log, "warn");
    snprintf(port, sizeof port, "%d", free_port());
    static const char *const env[] = {"MLSYSD_LOG_LEVEL=warn", NULL};
    const char *args[] = {"--host", "127.0.0.1", "--port", port, "--drain-delay", "0", NULL};
    pid_t pid = spawn_mlsysd(args, env, log);
    daemon_t d = {.pid = pid, .port = atoi(port)};
    snprintf(d.base, sizeof d.base, "http://127.0.0.1:%s", port);
    snprintf(url, sizeof url, "%s", d.base);
    bool up = false;
    for (int i = 0; i < 500 && !up; i++) {
        http_resp r;
        up = http_get(&d, "/healthz", &r) == 0 && r.status == 200;
        http_free(&r);
        if (!up)
            sleep_s(0.02);
    }
    cr_assert(up, "daemon at %s did not come up", url);
    for (int i = 0; i < 3; i++) {
        http_resp r;
        cr_assert_eq(http_get(&d, "/nope", &r), 0);
        http_free(&r);
    }
    kill(pid, SIGTERM);
    cr_assert_eq(wait_exit(pid, 20), 0);
    json_t *req = log_lines(log, "request");
    cr_expect_eq(json_array_size(req), 0, "request lines at --log-level warn");
    json_decref(req);
    json_t *all = log_lines(log, NULL);
    size_t i;
    json_t *l;
    json_array_foreach(all, i, l) {
        const char *lvl = json_string_value(json_object_get(l, "level"));
        cr_expect(lvl && (!strcmp(lvl, "warn") || !strcmp(lvl, "error")), "a %s line at warn", lvl ? lvl : "?");
    }
    json_decref(all);
    unlink(log);
}

/* Request lines held for --log-flush-interval: written whole, each once, in
 * batches, within the interval while the daemon is idle, and before the
 * shutdown's lines when it stops. (Their order is that of the requests'
 * completion on the worker threads, not of the client's sends.) */
Test(ops, held_request_lines_are_whole_and_written_in_time)
{
    daemon_t d;
    static const char *const args[] = {"--log-flush-interval", "0.3", "--threads", "2", NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    char id[64], hdr[96];
    for (int i = 0; i < 60; i++) { /* about 15 KB of lines: several batches by size */
        snprintf(id, sizeof id, "held-%02d", i);
        snprintf(hdr, sizeof hdr, "X-Request-ID: %s", id);
        const char *const hs[] = {hdr, NULL};
        http_resp r;
        cr_assert_eq(http_request(&d, "GET", "/solvers/single_node", hs, NULL, 0, &r), 0);
        http_free(&r);
    }
    double t0 = now_s();
    json_t *last = await_request_line(d.log_path, "held-59");
    cr_assert(last, "the last request's line was never written");
    cr_expect_lt(now_s() - t0, 2.0, "held for %.2f s with a flush interval of 0.3 s", now_s() - t0);
    json_decref(last);
    for (int i = 0; i < 3; i++) { /* held when the stop signal comes */
        snprintf(hdr, sizeof hdr, "X-Request-ID: late-%d", i);
        const char *const hs[] = {hdr, NULL};
        http_resp r;
        cr_assert_eq(http_request(&d, "GET", "/healthz/nope", hs, NULL, 0, &r), 0);
        http_free(&r);
    }
    cr_assert_eq(daemon_stop(&d), 0);
    json_t *all = log_lines(d.log_path, NULL); /* asserts that every line is one whole JSON object */
    int seen[60] = {0}, late = 0;
    bool stopped_seen = false;
    size_t i;
    json_t *l;
    json_array_foreach(all, i, l) {
        const char *rid = or_empty(json_string_value(json_object_get(l, "request_id")));
        const char *msg = or_empty(json_string_value(json_object_get(l, "msg")));
        if (!strncmp(rid, "held-", 5) && atoi(rid + 5) >= 0 && atoi(rid + 5) < 60)
            seen[atoi(rid + 5)]++;
        else if (!strncmp(rid, "late-", 5)) {
            cr_expect_not(stopped_seen, "%s written after the stopped line", rid);
            late++;
        } else if (!strcmp(msg, "stopped"))
            stopped_seen = true;
    }
    for (int k = 0; k < 60; k++)
        cr_expect_eq(seen[k], 1, "the line of held-%02d is written %d times", k, seen[k]);
    cr_expect_eq(late, 3, "%d of 3 request lines held at the stop signal", late);
    cr_expect(stopped_seen);
    json_decref(all);
    unlink(d.log_path);
}

/* A request that libmicrohttpd itself rejects (header over its memory
 * limit) never reaches the router, but still gets a log line, and does not
 * leave the in-flight gauge (which the drain waits on) counting. */
Test(ops, rejected_by_http_layer_is_logged_and_not_left_in_flight)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, NULL, NULL), 0);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d.port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    size_t big = 300000; /* past the connection memory (--connection-memory, 40 KiB) */
    char *req = malloc(big + 100);
    int k = snprintf(req, 100, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(req + k, 'a', big);
    memcpy(req + k + big, "\r\n\r\n", 4);
    ssize_t sent = send(fd, req, (size_t)k + big + 4, MSG_NOSIGNAL);
    (void)sent;
    char buf[256] = "";
    ssize_t got = recv(fd, buf, sizeof buf - 1, 0);
    close(fd);
    free(req);
    cr_expect(got > 12 && buf[9] == '4', "expected a 4xx from the HTTP layer, got '%.40s'", got > 0 ? buf : "");
    double inflight = -1;
    for (double end = now_s() + 10; now_s() < end;) {
        http_resp r;
        cr_assert_eq(http_get(&d, "/metrics", &r), 0);
        static const char key[] = "\nmlsysd_http_requests_in_flight ";
        char *p = strstr(r.body, key);
        inflight = p ? atof(p + sizeof key - 1) : -1;
        http_free(&r);
        if (inflight == 1)
            break;
        sleep_s(0.02);
    }
    cr_expect_eq(inflight, 1, "in flight while scraping: %g (only the scrape itself)", inflight);
    cr_assert_eq(daemon_stop(&d), 0);
    json_t *lines = log_lines(d.log_path, "request");
    bool found = false;
    size_t i;
    json_t *l;
    json_array_foreach(lines, i, l) found |= json_object_get(l, "error") != NULL;
    cr_expect(found, "no log line for the rejected request");
    json_decref(lines);
    unlink(d.log_path);
}

/* ---- CORS ---------------------------------------------------------------------------------------- */

static void cors_get(const daemon_t *d, const char *origin, http_resp *r)
{
    char h[256];
    snprintf(h, sizeof h, "Origin: %s", origin);
    const char *const hs[] = {h, NULL};
    cr_assert_eq(http_request(d, "GET", "/version", hs, NULL, 0, r), 0);
    cr_assert_eq(r->status, 200);
}

Test(ops, cors_listed_origins)
{
    daemon_t d;
    static const char *const args[] = {"--cors-origins", "https://app.example.com, http://localhost:3000", NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    char v[256];
    http_resp r;
    static const char *const ok[] = {"https://app.example.com", "http://localhost:3000"};
    for (int i = 0; i < 2; i++) {
        cors_get(&d, ok[i], &r);
        cr_expect(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v) && !strcmp(v, ok[i]), "%s: '%s'", ok[i],
                  v);
        cr_expect(http_header(&r, "Vary", v, sizeof v) && strstr(v, "Origin"), "Vary: %s", v);
        cr_expect(http_header(&r, "Access-Control-Expose-Headers", v, sizeof v) && strstr(v, "X-Request-ID"),
                  "exposed: %s", v);
        http_free(&r);
    }
    /* a near miss is not a match: scheme, port and subdomain all count */
    static const char *const no[] = {"https://evil.example.com", "http://app.example.com", "http://localhost:3001",
                                     "https://x.app.example.com", "null"};
    for (int i = 0; i < 5; i++) {
        cors_get(&d, no[i], &r);
        cr_expect_not(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v), "%s was allowed", no[i]);
        cr_expect(http_header(&r, "Vary", v, sizeof v) && strstr(v, "Origin"), "Vary missing for %s", no[i]);
        http_free(&r);
    }
    /* preflight from an allowed origin */
    static const char *const pre[] = {"Origin: https://app.example.com", "Access-Control-Request-Method: POST",
                                      "Access-Control-Request-Headers: content-type, x-request-id", NULL};
    cr_assert_eq(http_request(&d, "OPTIONS", "/solve", pre, NULL, 0, &r), 0);
    cr_expect_eq(r.status, 204);
    cr_expect(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v) && !strcmp(v, "https://app.example.com"));
    cr_expect(http_header(&r, "Access-Control-Allow-Methods", v, sizeof v) && strstr(v, "POST"), "methods: %s", v);
    cr_expect(http_header(&r, "Access-Control-Allow-Headers", v, sizeof v) && contains_ci(v, "content-type") &&
                  contains_ci(v, "x-request-id"),
              "headers: %s", v);
    cr_expect(http_header(&r, "Access-Control-Max-Age", v, sizeof v) && atoi(v) > 0);
    cr_expect(http_header(&r, "Allow", v, sizeof v) && !strcmp(v, "POST, OPTIONS"), "Allow: %s", v);
    http_free(&r);
    /* the Allow list follows the path */
    static const char *const pre_get[] = {"Origin: https://app.example.com", "Access-Control-Request-Method: GET",
                                          NULL};
    cr_assert_eq(http_request(&d, "OPTIONS", "/catalog/hardware/A100", pre_get, NULL, 0, &r), 0);
    cr_expect_eq(r.status, 204);
    cr_expect(http_header(&r, "Access-Control-Allow-Methods", v, sizeof v) && !strcmp(v, "GET, HEAD, OPTIONS"), "%s",
              v);
    http_free(&r);
    /* preflight from another origin: answered, but without permission */
    static const char *const pre_bad[] = {"Origin: https://evil.example.com", "Access-Control-Request-Method: POST",
                                          NULL};
    cr_assert_eq(http_request(&d, "OPTIONS", "/solve", pre_bad, NULL, 0, &r), 0);
    cr_expect_eq(r.status, 204);
    cr_expect_not(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
    cr_expect_not(http_header(&r, "Access-Control-Allow-Methods", v, sizeof v));
    http_free(&r);
    /* preflight of an unknown path is its 404 */
    cr_assert_eq(http_request(&d, "OPTIONS", "/nope", pre, NULL, 0, &r), 0);
    expect_problem_at(&r, 404, "/nope");
    http_free(&r);
    /* CORS headers on errors too, or the browser hides the problem from the page */
    static const char *const err_h[] = {"Origin: http://localhost:3000", NULL};
    cr_assert_eq(http_request(&d, "GET", "/solvers/nope", err_h, NULL, 0, &r), 0);
    cr_expect_eq(r.status, 404);
    cr_expect(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v) && !strcmp(v, "http://localhost:3000"));
    http_free(&r);
    cr_assert_eq(daemon_stop(&d), 0);
    unlink(d.log_path);
}

Test(ops, cors_any_origin)
{
    daemon_t d;
    static const char *const env[] = {"MLSYSD_CORS_ORIGINS=*", NULL};
    cr_assert_eq(daemon_start(&d, NULL, env), 0);
    char v[256];
    http_resp r;
    cors_get(&d, "https://whoever.example", &r);
    cr_expect(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v) && !strcmp(v, "*"), "'%s'", v);
    http_free(&r);
    /* no Origin, no CORS headers (not a browser) */
    cr_assert_eq(http_get(&d, "/version", &r), 0);
    cr_expect_not(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
    http_free(&r);
    cr_assert_eq(daemon_stop(&d), 0);
    unlink(d.log_path);
}

Test(ops, cors_off_by_default)
{
    char v[256];
    http_resp r;
    cors_get(shared_daemon(), "https://app.example.com", &r);
    cr_expect_not(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
    cr_expect_not(http_header(&r, "Vary", v, sizeof v));
    http_free(&r);
    static const char *const pre[] = {"Origin: https://app.example.com", "Access-Control-Request-Method: POST", NULL};
    cr_assert_eq(http_request(shared_daemon(), "OPTIONS", "/solve", pre, NULL, 0, &r), 0);
    cr_expect_eq(r.status, 204);
    cr_expect(http_header(&r, "Allow", v, sizeof v) && !strcmp(v, "POST, OPTIONS"), "Allow: %s", v);
    cr_expect_not(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
    http_free(&r);
}

/* ---- metrics ----------------------------------------------------------------------------------------- */

/* Value of one exact series ("name{labels}") in a scrape; -1 if absent. */
static double series(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = text; p && *p;) {
        if (!strncmp(p, key, n) && p[n] == ' ')
            return atof(p + n + 1);
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return -1;
}

static char *scrape(const daemon_t *d)
{
    http_resp r;
    cr_assert_eq(http_get(d, "/metrics", &r), 0);
    cr_assert_eq(r.status, 200);
    cr_assert(!strncmp(r.content_type, "text/plain", 10), "%s", r.content_type);
    char *t = strdup(r.body);
    http_free(&r);
    return t;
}

/* A request is counted when its connection reports it complete, which can
 * be a moment after the client has read the response: scrape until the
 * series has reached want (or give up after 10 s and let the checks fail). */
static char *scrape_until(const daemon_t *d, const char *key, double want)
{
    char *t = NULL;
    for (double end = now_s() + 10;; sleep_s(0.02)) {
        free(t);
        t = scrape(d);
        if (series(t, key) == want || now_s() > end)
            return t;
    }
}

/* Each sample line is name{labels} value, and each family has HELP and TYPE. */
static void check_exposition_format(const char *text)
{
    char *copy = strdup(text);
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') {
            cr_expect(!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7), "comment: %s", line);
            continue;
        }
        size_t name = strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
        cr_expect(name > 0, "sample without a name: %s", line);
        const char *rest = line + name;
        if (*rest == '{') {
            const char *close = strstr(rest, "} ");
            cr_expect(close != NULL, "labels: %s", line);
            rest = close ? close + 1 : rest;
        }
        cr_expect(*rest == ' ', "no value: %s", line);
        char *end;
        strtod(rest + 1, &end);
        cr_expect(end != rest + 1 && *end == '\0', "value: %s", line);
        char family[128];
        snprintf(family, sizeof family, "%.*s", (int)name, line);
        /* a histogram's samples belong to the family without the suffix */
        static const char *const suffixes[] = {"_bucket", "_sum", "_count"};
        for (int k = 0; k < 3; k++) {
            size_t fl = strlen(family), sl = strlen(suffixes[k]);
            char base[160];
            snprintf(base, sizeof base, "# TYPE %.*s histogram", (int)(fl > sl ? fl - sl : 0), family);
            if (fl > sl && !strcmp(family + fl - sl, suffixes[k]) && strstr(text, base))
                family[fl - sl] = '\0';
        }
        char want[200];
        snprintf(want, sizeof want, "# TYPE %s ", family);
        cr_expect(strstr(text, want) != NULL, "no TYPE for %s", family);
    }
    free(copy);
}

Test(ops, metrics_names_labels_and_movement)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, NULL, NULL), 0);
    char *before = scrape_until(&d, "mlsysd_http_requests_in_flight", 1);
    check_exposition_format(before);
    static const char *const families[] = {
        "# TYPE mlsysd_http_requests_total counter", "# TYPE mlsysd_http_request_duration_seconds histogram",
        "# TYPE mlsysd_http_response_bytes_total counter", "# TYPE mlsysd_solves_total counter",
        "# TYPE mlsysd_sweep_points_total counter", "# TYPE mlsysd_http_requests_in_flight gauge",
        "# TYPE mlsysd_sweep_helper_threads gauge",
        "# TYPE mlsysd_build_info gauge", "# TYPE process_cpu_seconds_total counter",
        "# TYPE process_resident_memory_bytes gauge", "# TYPE process_virtual_memory_bytes gauge",
        "# TYPE process_start_time_seconds gauge", "# TYPE process_open_fds gauge", "# TYPE process_max_fds gauge"};
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        cr_expect(strstr(before, families[i]), "missing '%s'", families[i]);
    cr_expect(strstr(before, "mlsysd_build_info{version=\""), "build_info labels");
    cr_expect(series(before, "process_resident_memory_bytes") > 0);
    cr_expect(series(before, "process_open_fds") > 0);
    cr_expect(series(before, "process_start_time_seconds") > 1.6e9);
    cr_expect_eq(series(before, "mlsysd_http_requests_in_flight"), 1, "the scrape itself");
    cr_expect_eq(series(before, "mlsysd_solves_total{solver=\"single_node\"}"), 0);
    cr_expect_eq(series(before, "mlsysd_sweep_points_total"), 0);

    http_resp r;
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(http_post_json(&d, "/solve",
                                    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}",
                                    &r),
                     0);
        cr_assert_eq(r.status, 200, "%s", r.body);
        http_free(&r);
    }
    cr_assert_eq(http_get(&d, "/solvers/nope", &r), 0);
    http_free(&r);
    cr_assert_eq(http_request(&d, "DELETE", "/solve", NULL, NULL, 0, &r), 0);
    http_free(&r);
    cr_assert_eq(http_post_json(&d, "/sweep",
                                "{\"solver\":\"data\",\"inputs\":{\"hardware\":\"A100\"},\"axes\":[{\"input\":"
                                "\"workload_data_rate\",\"values\":[1,2,3,4,5,6,7]}]}",
                                &r),
                 0);
    cr_assert_eq(r.status, 200, "%s", r.body);
    size_t sweep_bytes = r.len;
    http_free(&r);

    /* a request is counted after its answer is sent: wait for each series the checks read */
    free(scrape_until(&d, "mlsysd_http_requests_total{route=\"/solve\",method=\"POST\",status=\"200\"}", 2));
    free(scrape_until(&d, "mlsysd_http_requests_total{route=\"/solve\",method=\"other\",status=\"405\"}", 1));
    char *after = scrape_until(&d, "mlsysd_http_requests_total{route=\"/sweep\",method=\"POST\",status=\"200\"}", 1);
    check_exposition_format(after);
    cr_expect_eq(series(after, "mlsysd_http_requests_total{route=\"/solve\",method=\"POST\",status=\"200\"}"), 2);
    cr_expect_eq(series(after, "mlsysd_http_requests_total{route=\"/solvers/{name}\",method=\"GET\",status=\"404\"}"), 1);
    cr_expect_eq(series(after, "mlsysd_http_requests_total{route=\"/solve\",method=\"other\",status=\"405\"}"), 1);
    cr_expect_eq(series(after, "mlsysd_http_requests_total{route=\"/sweep\",method=\"POST\",status=\"200\"}"), 1);
    cr_expect(series(after, "mlsysd_http_requests_total{route=\"/metrics\",method=\"GET\",status=\"200\"}") >= 1);
    cr_expect_eq(series(after, "mlsysd_solves_total{solver=\"single_node\"}"), 2);
    cr_expect_eq(series(after, "mlsysd_solves_total{solver=\"data\"}"), 7);
    cr_expect_eq(series(after, "mlsysd_sweep_points_total"), 7);
    cr_expect_eq(series(after, "mlsysd_sweep_helper_threads"), 0, "helpers are given back when a sweep ends");
    cr_expect_eq(series(after, "mlsysd_http_response_bytes_total{route=\"/sweep\"}"), (double)sweep_bytes);
    cr_expect_eq(series(after, "mlsysd_http_request_duration_seconds_count{route=\"/solve\"}"), 3,
                 "two 200s and a 405 on /solve");
    cr_expect_eq(series(after, "mlsysd_http_request_duration_seconds_bucket{route=\"/solve\",le=\"+Inf\"}"), 3);
    cr_expect(series(after, "mlsysd_http_request_duration_seconds_sum{route=\"/solve\"}") > 0);
    /* buckets are cumulative */
    double prev = 0;
    static const char *const les[] = {"0.0001", "0.001", "0.01", "0.1", "1", "10", "60", "+Inf"};
    for (size_t i = 0; i < sizeof les / sizeof les[0]; i++) {
        char key[160];
        snprintf(key, sizeof key, "mlsysd_http_request_duration_seconds_bucket{route=\"/solve\",le=\"%s\"}", les[i]);
        double v = series(after, key);
        cr_expect(v >= prev, "%s = %g < %g", key, v, prev);
        prev = v;
    }
    cr_expect(series(after, "process_cpu_seconds_total") >= series(before, "process_cpu_seconds_total"));
    free(before);
    free(after);
    cr_assert_eq(daemon_stop(&d), 0);
    unlink(d.log_path);
}

/* ---- problem+json on every error path -------------------------------------------------------------- */

typedef struct {
    const char *method, *path, *content_type, *body;
    long status;
    const char *field;   /* expected "field", or NULL */
} err_case;

Test(ops, every_error_is_problem_json)
{
    static const err_case cases[] = {
        {"GET", "/nope", NULL, NULL, 404, NULL},
        {"GET", "/solvers/", NULL, NULL, 404, NULL},
        {"GET", "/solvers/nope", NULL, NULL, 404, "name"},
        {"GET", "/solve/nope?model=ResNet50", NULL, NULL, 404, "solver"},
        {"GET", "/sweep/nope?batch_size=1,2", NULL, NULL, 404, "solver"},
        {"GET", "/catalog/hardware/NOPE", NULL, NULL, 404, "id"},
        {"GET", "/catalog/models/NOPE", NULL, NULL, 404, "id"},
        {"GET", "/catalog?kind=gpus", NULL, NULL, 400, "kind"},
        {"GET", "/catalog?catalog=1999", NULL, NULL, 400, "catalog"},
        {"GET", "/catalog/hardware?colour=red", NULL, NULL, 400, "colour"},
        {"GET", "/solve/single_node?model=ResNet50&hardware=A100&efficiency=2", NULL, NULL, 400, "inputs.efficiency"},
        {"GET", "/solve/single_node?model=ResNet50&hardware=A100&batchsize=2", NULL, NULL, 400, "inputs.batchsize"},
        {"GET", "/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,2&format=xml", NULL, NULL, 400, "format"},
        {"POST", "/solve", "application/json", "{", 400, NULL},
        {"POST", "/solve", "application/json", "[]", 400, NULL},
        {"POST", "/solve", "application/json", "", 400, NULL},
        {"POST", "/solve", "text/plain", "{}", 415, NULL},
        {"POST", "/sweep", "application/xml", "<a/>", 415, NULL},
        {"POST", "/solve", "application/json", "{\"solver\":\"single_node\",\"inputs\":{},\"extra\":1}", 400, "extra"},
        {"POST", "/sweep", "application/json", "{\"solver\":\"data\",\"axes\":[]}", 400, "axes"},
        {"POST", "/sweep", "application/json",
         "{\"solver\":\"data\",\"inputs\":{\"hardware\":\"A100\"},\"axes\":[{\"input\":\"workload_data_rate\","
         "\"range\":{\"start\":1,\"stop\":100000000,\"step\":1}}]}",
         413, NULL},
        {"PUT", "/solve", "application/json", "{}", 405, NULL},
        {"DELETE", "/catalog", NULL, NULL, 405, NULL},
        {"POST", "/healthz", "application/json", "{}", 405, NULL},
        {"GET", "/sweep", NULL, NULL, 405, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const err_case *c = &cases[i];
        char ct[160];
        snprintf(ct, sizeof ct, "Content-Type: %s", c->content_type ? c->content_type : "");
        const char *const hs[] = {ct, NULL};
        http_resp r;
        cr_assert_eq(http_request(shared_daemon(), c->method, c->path, c->content_type ? hs : NULL, c->body,
                                  c->body ? strlen(c->body) : 0, &r),
                     0, "%s %s", c->method, c->path);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%.*s", (int)strcspn(c->path, "?"), c->path);
        cr_expect_eq(r.status, c->status, "case %zu %s %s: %ld %s", i, c->method, c->path, r.status, r.body);
        expect_problem_at(&r, c->status, prefix);
        json_t *j = http_json(&r);
        if (c->field)
            cr_expect_str_eq(or_empty(json_string_value(json_object_get(j, "field"))), c->field, "case %zu %s %s",
                             i, c->method, c->path);
        if (c->status == 405) {
            char allow[128] = "";
            cr_expect(http_header(&r, "Allow", allow, sizeof allow) && strstr(allow, "OPTIONS"),
                      "405 without Allow: %s %s", c->method, c->path);
        }
        json_decref(j);
        http_free(&r);
    }
}

Test(ops, body_over_the_limit_is_413_problem)
{
    daemon_t d;
    static const char *const args[] = {"--max-body-bytes", "1024", NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    char body[4096];
    memset(body, ' ', sizeof body);
    body[0] = '{';
    body[sizeof body - 1] = '}';
    http_resp r;
    /* announced with Content-Length: refused before it is read */
    static const char *const hs[] = {"Content-Type: application/json", NULL};
    cr_assert_eq(http_request(&d, "POST", "/solve", hs, body, sizeof body, &r), 0);
    expect_problem_at(&r, 413, "/solve");
    cr_expect(strstr(r.body, "1024"), "the detail states the limit: %s", r.body);
    http_free(&r);
    /* chunked, so only counting reveals it */
    static const char *const chunked[] = {"Content-Type: application/json", "Transfer-Encoding: chunked", NULL};
    cr_assert_eq(http_request(&d, "POST", "/sweep", chunked, body, sizeof body, &r), 0);
    expect_problem_at(&r, 413, "/sweep");
    http_free(&r);
    /* a body within the limit still works on the same daemon */
    cr_assert_eq(http_post_json(&d, "/solve", "{\"solver\":\"data\",\"inputs\":{\"hardware\":\"A100\",\"workload_data_rate\":1}}", &r), 0);
    cr_expect_eq(r.status, 200, "%s", r.body);
    http_free(&r);
    cr_assert_eq(daemon_stop(&d), 0);
    unlink(d.log_path);
}

/* ---- configuration errors stop start-up -------------------------------------------------------------- */

static int run_to_exit(const char *const *args, const char *const *env, char **output)
{
    char log[128];
    static int seq;
    char tag[32];
    snprintf(tag, sizeof tag, "cfg%d", seq++);
    log_name(log, sizeof log, tag);
    pid_t pid = spawn_mlsysd(args, env, log);
    int rc = wait_exit(pid, 10);
    *output = read_file(log, NULL);
    unlink(log);
    return rc;
}

Test(ops, bad_configuration_exits_2_naming_the_setting)
{
    char *out;
    static const char *const bad_port[] = {"--port", "70000", NULL};
    cr_expect_eq(run_to_exit(bad_port, NULL, &out), 2);
    cr_expect(out && strstr(out, "--port") && strstr(out, "70000"), "message: %s", out ? out : "");
    free(out);
    static const char *const env[] = {"MLSYSD_THREADS=lots", NULL};
    static const char *const port0[] = {"--port", "0", NULL};
    cr_expect_eq(run_to_exit(port0, env, &out), 2);
    cr_expect(out && strstr(out, "MLSYSD_THREADS") && strstr(out, "lots"), "message: %s", out ? out : "");
    free(out);
    static const char *const bad_cors[] = {"--port", "0", "--cors-origins", "https://app.example.com/", NULL};
    cr_expect_eq(run_to_exit(bad_cors, NULL, &out), 2);
    cr_expect(out && strstr(out, "--cors-origins"), "message: %s", out ? out : "");
    free(out);
    static const char *const bad_dir[] = {"--port", "0", "--catalog-dir", "/nonexistent/mlsysd", NULL};
    cr_expect_eq(run_to_exit(bad_dir, NULL, &out), 2);
    cr_expect(out && strstr(out, "catalog-dir"), "message: %s", out ? out : "");
    free(out);
    static const char *const help[] = {"--help", NULL};
    cr_expect_eq(run_to_exit(help, NULL, &out), 0);
    cr_expect(out && strstr(out, "--sweep-max-points") && strstr(out, "MLSYSD_SWEEP_MAX_POINTS"), "help: %s",
              out ? out : "");
    free(out);
}

Test(ops, port_in_use_exits_2)
{
    char *out;
    char port[16];
    snprintf(port, sizeof port, "%d", shared_daemon()->port);
    const char *const args[] = {"--host", "127.0.0.1", "--port", port, NULL};
    cr_expect_eq(run_to_exit(args, NULL, &out), 2);
    cr_expect(out && strstr(out, port), "message: %s", out ? out : "");
    free(out);
}

/* ---- graceful stop ---------------------------------------------------------------------------------------- */

#define DRAIN_POINTS 1000000
/* long enough for two requests on a loaded machine; the test waits it out */
#define DRAIN_DELAY_S "5"

/* A client that reads the first 100 kB of a large sweep and then stops
 * reading (its write callback waits) until the test lets it go on: the
 * response is still streaming for as long as the test needs, however slow
 * the machine. */
typedef struct {
    const daemon_t *d;
    atomic_ullong bytes;
    atomic_bool hold, done;
    unsigned long long lines;
    char last[256];
    size_t last_len;
    CURLcode rc;
    long status;
    double t_end;
} slow_read;

static size_t slow_write(char *p, size_t size, size_t nmemb, void *ud)
{
    slow_read *s = ud;
    size_t n = size * nmemb;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            s->lines++;
            s->last_len = 0;
        } else if (s->last_len + 1 < sizeof s->last) {
            s->last[s->last_len++] = p[i];
            s->last[s->last_len] = '\0';
        }
    }
    if (atomic_fetch_add(&s->bytes, n) + n >= 100000)
        while (atomic_load(&s->hold))
            sleep_s(0.01);
    return n;
}

static void *slow_sweep(void *arg)
{
    slow_read *s = arg;
    CURL *c = curl_easy_init();
    char url[128];
    snprintf(url, sizeof url, "%s/sweep", s->d->base);
    char body[512];
    snprintf(body, sizeof body,
             "{\"solver\":\"transformation\",\"format\":\"csv\",\"outputs\":[\"transform_time\"],"
             "\"inputs\":{\"sample_size_bytes\":\"500 KB\",\"cpu_throughput\":\"2 GB/s\",\"accelerator_step_time\":\"7.24 ms\"},"
             "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":%d,\"step\":1}}]}",
             DRAIN_POINTS);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, slow_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 50L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    s->rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &s->status);
    s->t_end = now_s();
    atomic_store(&s->done, true);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

/* The number of the log's lines whose "msg" is msg, once there are `count` (timeout_s at most). */
static size_t await_log(const daemon_t *d, const char *msg, size_t count, double timeout_s)
{
    json_t *lines = daemon_log_await(d->log_path, msg, NULL, NULL, count, timeout_s);
    size_t n = json_array_size(lines);
    json_decref(lines);
    return n;
}

Test(ops, sigterm_drains_a_streaming_sweep_and_exits_0, .timeout = 60)
{
    daemon_t d;
    static const char *const args[] = {"--drain-delay", DRAIN_DELAY_S, "--drain-timeout", "30", NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    slow_read s = {.d = &d};
    atomic_store(&s.hold, true);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, slow_sweep, &s), 0);
    for (double end = now_s() + 10; atomic_load(&s.bytes) < 100000 && !atomic_load(&s.done) && now_s() < end;)
        sleep_s(0.01);
    cr_assert(atomic_load(&s.bytes) >= 100000 && !atomic_load(&s.done), "the sweep did not stream (rc %d)", (int)s.rc);
    kill(d.pid, SIGTERM);
    cr_assert_eq(await_log(&d, "draining", 1, 10), 1, "no \"draining\" line within 10 s of SIGTERM");

    /* during the drain delay: not ready, still alive, still serving */
    http_resp r;
    cr_assert_eq(http_get(&d, "/readyz", &r), 0, "new connections are served during the drain delay");
    expect_problem_at(&r, 503, "/readyz");
    char v[32];
    cr_expect(http_header(&r, "Retry-After", v, sizeof v), "503 without Retry-After");
    cr_expect(http_header(&r, "Connection", v, sizeof v) && !strcasecmp(v, "close"), "draining keeps connections");
    http_free(&r);
    cr_assert_eq(http_get(&d, "/healthz", &r), 0);
    cr_expect_eq(r.status, 200, "liveness holds while draining");
    http_free(&r);

    /* after it: the listening socket is closed, while the sweep still streams */
    cr_assert_eq(await_log(&d, "refusing new connections", 1, 20), 1, "the drain delay (%s s) did not end within 20 s",
                 DRAIN_DELAY_S);
    double t_refusing = now_s();
    int rc = http_get(&d, "/healthz", &r);
    cr_expect_neq(rc, 0, "a new connection was accepted after the drain delay (status %ld)", r.status);
    http_free(&r);
    cr_assert_not(atomic_load(&s.done), "the sweep ended before the listener closed: nothing was tested");
    atomic_store(&s.hold, false);

    pthread_join(th, NULL);
    cr_expect_eq(s.rc, CURLE_OK, "transfer: %s", curl_easy_strerror(s.rc));
    cr_expect_eq(s.status, 200);
    cr_expect_eq(s.lines, DRAIN_POINTS + 1, "rows: %llu (header + %d expected)", s.lines, DRAIN_POINTS);
    cr_expect(s.last_len == 0, "trailing partial line: %s", s.last);
    cr_expect(s.t_end > t_refusing, "the sweep completed after the listener closed");

    cr_expect_eq(wait_exit(d.pid, 20), 0, "the daemon did not exit 0 within 20 s of its last request");
    d.pid = 0;
    json_t *stopped = log_lines(d.log_path, "stopped");
    cr_assert_eq(json_array_size(stopped), 1);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(stopped, 0), "unfinished_requests")), 0);
    json_decref(stopped);
    json_t *refusing = log_lines(d.log_path, "refusing new connections");
    cr_expect_eq(json_array_size(refusing), 1);
    json_decref(refusing);
    unlink(d.log_path);
}

Test(ops, second_signal_stops_at_once)
{
    daemon_t d;
    static const char *const args[] = {"--drain-delay", "30", NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    kill(d.pid, SIGTERM);
    cr_assert_eq(await_log(&d, "draining", 1, 10), 1, "no \"draining\" line within 10 s of SIGTERM");
    http_resp r;
    cr_assert_eq(http_get(&d, "/readyz", &r), 0);
    cr_expect_eq(r.status, 503);
    http_free(&r);
    double t0 = now_s();
    kill(d.pid, SIGINT);
    /* at once: well inside the 30 s drain delay the second signal cuts short */
    cr_expect_eq(wait_exit(d.pid, 20), 0);
    cr_expect(now_s() - t0 < 15, "took %.1f s", now_s() - t0);
    d.pid = 0;
    unlink(d.log_path);
}

/* Orchestrators probe every few seconds: a successful probe is a debug line,
 * anything else (and every probe under --log-level debug) stays visible. */
static void probe_then_marker(const daemon_t *d, const char *probe_id, const char *marker_id)
{
    const char *const hp[] = {probe_id, NULL};
    const char *const hm[] = {marker_id, NULL};
    http_resp r;
    cr_assert_eq(http_request(d, "GET", "/healthz", hp, NULL, 0, &r), 0);
    http_free(&r);
    cr_assert_eq(http_request(d, "GET", "/version", hm, NULL, 0, &r), 0);
    http_free(&r);
}

Test(ops, successful_probes_are_logged_at_debug_only)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, NULL, NULL), 0);
    probe_then_marker(&d, "X-Request-ID: probe-info", "X-Request-ID: marker-info");
    json_t *m = await_request_line(d.log_path, "marker-info");
    cr_assert(m, "the non-probe request is logged at info");
    json_decref(m);
    json_t *p = log_find_request(d.log_path, "probe-info");
    cr_expect(p == NULL, "a 200 /healthz must not be an info line");
    json_decref(p);
    cr_expect_eq(daemon_stop(&d), 0);

    static const char *const dbg[] = {"--log-level", "debug", NULL};
    cr_assert_eq(daemon_start(&d, dbg, NULL), 0);
    probe_then_marker(&d, "X-Request-ID: probe-debug", "X-Request-ID: marker-debug");
    json_decref(await_request_line(d.log_path, "marker-debug"));
    p = await_request_line(d.log_path, "probe-debug");
    cr_expect(p != NULL, "with --log-level debug the probe is logged");
    cr_expect_str_eq(json_string_value(json_object_get(p, "level")), "debug");
    json_decref(p);
    cr_expect_eq(daemon_stop(&d), 0);
}
