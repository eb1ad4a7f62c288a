/* test_faults.c - faults (issue 30, section 3), each against its own daemon:
 *   - a client vanishes in the middle of a 10M-point sweep (a close, and a reset):
 *     the worker is freed (the daemon's CPU time stops, nothing is left in
 *     flight) and its memory returns to where it was;
 *   - SIGTERM during a sweep longer than the drain timeout: the daemon exits 0
 *     and the client never sees a complete-looking body (the chunked stream
 *     ends without its last chunk, or with an error row);
 *   - corrupt input: a gzip, truncated gzip or other encoded body is a 415
 *     problem that says why; request lines and headers at and past the limits;
 *   - the catalog directory changes, then disappears, then comes back, while the
 *     daemon runs: answers continue from the loaded catalog, and the log has a
 *     line for each change (server/catalog_watch.h).
 * Slowloris: many slow clients on headers and on bodies at once (one of each is
 * test_limits.c's); the drain of a sweep that finishes in time is test_ops.c's. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "daemon_log.h"
#include "harness.h"
#include "proc_status.h"
#include "sanitizer.h"
#include "schema.h"

/* utime + stime of the process, in seconds. */
static double cpu_seconds(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int connect_to(const daemon_t *d)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static double metric(const daemon_t *d, const char *name)
{
    http_resp r;
    cr_assert_eq(http_get(d, "/metrics", &r), 0);
    char key[128];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(r.body, key);
    double v = p ? atof(p + strlen(key)) : -1;
    http_free(&r);
    return v;
}

/* 10,000 x 1,000 points of the cheapest solver, as CSV. */
static const char TEN_MILLION[] =
    "{\"solver\":\"transformation\",\"inputs\":{\"cpu_throughput\":\"2 GB/s\",\"accelerator_step_time\":\"7 ms\"},"
    "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":0,\"stop\":9999,\"step\":1}},"
    "{\"input\":\"sample_size_bytes\",\"range\":{\"start\":1,\"stop\":1000,\"step\":1}}],"
    "\"outputs\":[\"is_bottleneck\"],\"format\":\"csv\"}";

/* Sends the 10M-point sweep on a raw socket, reads `want` bytes of the answer, and
 * vanishes: with reset, an abortive close (RST). */
static void start_and_vanish(const daemon_t *d, size_t want, bool gzip, bool reset)
{
    int fd = connect_to(d);
    char head[400];
    int n = snprintf(head, sizeof head,
                     "POST /sweep HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nAccept-Encoding: %s\r\n\r\n",
                     strlen(TEN_MILLION), gzip ? "gzip" : "identity");
    cr_assert_eq(send(fd, head, (size_t)n, MSG_NOSIGNAL), n);
    cr_assert_eq(send(fd, TEN_MILLION, strlen(TEN_MILLION), MSG_NOSIGNAL), (ssize_t)strlen(TEN_MILLION));
    char buf[65536];
    size_t got = 0;
    bool ok_status = false;
    while (got < want) {
        ssize_t k = recv(fd, buf, sizeof buf, 0);
        if (k <= 0)
            break;
        if (got == 0)
            ok_status = k > 12 && !memcmp(buf, "HTTP/1.1 200", 12);
        got += (size_t)k;
    }
    cr_expect(ok_status, "the sweep did not start with a 200");
    cr_expect_geq(got, want, "the stream ended after %zu bytes", got);
    if (reset) {
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(fd);
}

/* Waits until the daemon's CPU time stands still (under 5 % of a core for 0.5 s) and
 * the only request in flight is the scrape itself; false after `deadline` seconds. */
static bool settles(const daemon_t *d, double deadline, double *cpu_rate)
{
    double t_end = now_s() + deadline;
    while (now_s() < t_end) {
        double c0 = cpu_seconds(d->pid), t0 = now_s();
        sleep_s(0.5);
        double c1 = cpu_seconds(d->pid), t1 = now_s();
        *cpu_rate = (c1 - c0) / (t1 - t0);
        if (*cpu_rate < 0.05 && metric(d, "mlsysd_http_requests_in_flight") == 1)
            return true;
    }
    return false;
}

/* A /solve, answered within 5 s: a worker is free (a worker still on a
 * 10M-point sweep would take far longer; the bound leaves room for a loaded machine). */
static void solve_at_once(const daemon_t *d)
{
    http_resp r;
    double t0 = now_s();
    cr_assert_eq(http_post_json(d, "/solve", "{\"solver\":\"tail_latency\",\"inputs\":{\"arrival_rate_qps\":30,"
                                             "\"service_latency_ms\":100,\"num_replicas\":4}}", &r), 0);
    cr_expect_eq(r.status, 200);
    cr_expect_lt(now_s() - t0, 5.0, "a /solve took %.2f s", now_s() - t0);
    http_free(&r);
}

/* The RSS of an idle daemon: the smallest of 3 s of samples with nothing sent (the
 * daemon returns freed memory a moment after its last request: server/http.c). */
static long idle_rss(const daemon_t *d)
{
    long least = -1;
    for (int i = 0; i < 12; i++) {
        sleep_s(0.25);
        long v = proc_status_kib(d->pid, "VmRSS");
        if (least < 0 || (v >= 0 && v < least))
            least = v;
    }
    return least;
}

Test(faults, a_client_vanishing_mid_sweep_frees_the_worker_and_the_memory, .timeout = 240)
{
    daemon_t d;
    static const char *const args[] = {"--sweep-max-points", "20000000", "--threads", "2", NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    /* warm-up: one vanishing client of each kind, so that one-off allocations are made */
    start_and_vanish(&d, 1 << 20, false, false);
    start_and_vanish(&d, 1 << 20, true, true);
    double rate;
    cr_assert(settles(&d, 30, &rate), "the daemon did not settle after the warm-up (%.2f cores busy)", rate);
    solve_at_once(&d);
    long before = idle_rss(&d);
    for (int i = 0; i < 6; i++) {
        double t0 = now_s();
        start_and_vanish(&d, (size_t)(256 << 10) << (i % 3), i % 2, i >= 3);
        cr_assert(settles(&d, 20, &rate), "vanish %d: the worker kept computing (%.2f cores busy after %.1f s)", i,
                  rate, now_s() - t0);
    }
    /* a request needing a worker is answered at once */
    solve_at_once(&d);
    long after = idle_rss(&d);
    cr_log_info("faults: RSS %ld kB before 6 vanished 10M-point sweeps, %ld kB after", before, after);
#ifdef UNDER_ASAN
    /* AddressSanitizer keeps freed memory in quarantine: RSS does not come back
     * (its leak check at exit covers what this bound checks in the plain build) */
    (void)before;
#else
    cr_expect_leq(after, before + 1024, "RSS %ld kB before, %ld kB after 6 vanished sweeps", before, after);
#endif
    cr_assert_eq(daemon_stop(&d), 0);
    unlink(d.log_path);
}

/* ---- SIGTERM during a sweep longer than the drain timeout ------------------------------------------ */

typedef struct {
    unsigned long long bytes;
    char tail[256];
    size_t tail_len;
} tail_buf;

static size_t keep_tail(char *ptr, size_t size, size_t nmemb, void *ud)
{
    tail_buf *t = ud;
    size_t n = size * nmemb;
    t->bytes += n;
    if (n >= sizeof t->tail - 1) {
        memcpy(t->tail, ptr + n - (sizeof t->tail - 1), sizeof t->tail - 1);
        t->tail_len = sizeof t->tail - 1;
    } else {
        if (t->tail_len + n > sizeof t->tail - 1) {
            size_t drop = t->tail_len + n - (sizeof t->tail - 1);
            memmove(t->tail, t->tail + drop, t->tail_len - drop);
            t->tail_len -= drop;
        }
        memcpy(t->tail + t->tail_len, ptr, n);
        t->tail_len += n;
    }
    t->tail[t->tail_len] = '\0';
    return n;
}

typedef struct {
    const daemon_t *d;
    tail_buf t;
    CURLcode rc;
    long status;
} term_client;

Test(faults, sigterm_during_a_long_sweep_ends_it_visibly_and_exits_0, .timeout = 120)
{
    daemon_t d;
    static const char *const args[] = {"--sweep-max-points", "20000000", "--drain-delay", "0", "--drain-timeout", "1",
                                       NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    term_client c = {.d = &d};
    CURLM *m = curl_multi_init();
    CURL *e = curl_easy_init();
    char url[128];
    snprintf(url, sizeof url, "%s/sweep", d.base);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, TEN_MILLION);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, keep_tail);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &c.t);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 90L);
    curl_multi_add_handle(m, e);
    bool signalled = false;
    double t_sig = 0;
    int running = 1;
    while (running) {
        curl_multi_perform(m, &running);
        if (!signalled && c.t.bytes > (1u << 20)) {
            kill(d.pid, SIGTERM);
            signalled = true;
            t_sig = now_s();
        }
        if (running)
            curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(m, &left)))
        if (msg->msg == CURLMSG_DONE)
            c.rc = msg->data.result;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &c.status);
    curl_multi_remove_handle(m, e);
    curl_easy_cleanup(e);
    curl_multi_cleanup(m);
    curl_slist_free_all(h);
    cr_assert(signalled, "the sweep ended before 1 MB was read");
    cr_expect_eq(c.status, 200);
    /* Never a complete-looking body: the transfer fails (no last chunk), or its last row is an error. */
    bool complete_looking = c.rc == CURLE_OK && strstr(c.t.tail, "\r\n9999,1000,false,\r\n") != NULL;
    cr_expect_not(complete_looking, "the client got a complete-looking body after SIGTERM");
    bool says_so = c.rc != CURLE_OK || strstr(c.t.tail, "cut off") || strstr(c.t.tail, "shutting down") ||
                   strstr(c.t.tail, "stopp");
    cr_expect(says_so, "the cut stream ended cleanly without an error row: rc %d (%s), tail '%s'", (int)c.rc,
              curl_easy_strerror(c.rc), c.t.tail);
    cr_log_info("faults: SIGTERM after %llu bytes of a 10M-point sweep: curl %s, tail '%.80s'", c.t.bytes,
                curl_easy_strerror(c.rc), c.t.tail);
    int status = 0;
    pid_t w = 0;
    for (int i = 0; i < 1000 && (w = waitpid(d.pid, &status, WNOHANG)) != d.pid; i++)
        sleep_s(0.02);
    cr_assert_eq(w, d.pid, "the daemon did not exit within 20 s of SIGTERM");
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", status);
    cr_expect_lt(now_s() - t_sig, 10.0, "the drain took %.1f s with a 1 s drain timeout", now_s() - t_sig);
    d.pid = 0;
    unlink(d.log_path);
}

/* ---- corrupt input ----------------------------------------------------------------------------------- */

static void expect_415_problem(const char *what, const char *encoding, const unsigned char *body, size_t len)
{
    char ce[96];
    snprintf(ce, sizeof ce, "Content-Encoding: %s", encoding);
    const char *const h[] = {"Content-Type: application/json", ce, NULL};
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), "POST", "/solve", h, (const char *)body, len, &r), 0);
    json_t *p = problem_reply(&r, 415);
    cr_expect(strstr(json_string_value(json_object_get(p, "detail")) ?: "", "Content-Encoding"),
              "%s: the detail does not name Content-Encoding: %s", what, r.body);
    json_t *doc = api_get_ok("/openapi.json");
    char err[1400];
    cr_expect(contract_check(doc, "POST", "/solve", r.status, r.content_type, r.body, r.len, err, sizeof err), "%s: %s",
              what, err);
    json_decref(doc);
    json_decref(p);
    http_free(&r);
}

Test(faults, encoded_bodies_are_415_problems_that_say_why)
{
    const char *json = "{\"solver\":\"data\",\"inputs\":{\"hardware\":\"A100\",\"workload_data_rate\":\"1 GB/s\"}}";
    unsigned char gz[512];
    z_stream z = {0};
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)json;
    z.avail_in = (uInt)strlen(json);
    z.next_out = gz;
    z.avail_out = sizeof gz;
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t gz_len = z.total_out;
    deflateEnd(&z);
    expect_415_problem("a whole gzip body", "gzip", gz, gz_len);
    expect_415_problem("a truncated gzip body", "gzip", gz, gz_len / 2);
    unsigned char corrupt[64];
    memcpy(corrupt, gz, sizeof corrupt);
    for (size_t i = 10; i < sizeof corrupt; i += 3)
        corrupt[i] ^= 0x5a;
    expect_415_problem("a corrupt gzip body", "gzip", corrupt, sizeof corrupt);
    expect_415_problem("a deflate body", "deflate", gz, gz_len);
    expect_415_problem("a br body", "br", (const unsigned char *)json, strlen(json));
    /* identity is no encoding: the body is read */
    const char *const h[] = {"Content-Type: application/json", "Content-Encoding: identity", NULL};
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), "POST", "/solve", h, json, strlen(json), &r), 0);
    cr_expect_eq(r.status, 200, "%s", r.body);
    http_free(&r);
}

/* The request target at the limit (32 KiB, server/http.c MAX_URI_BYTES) is read; one
 * byte over is a 414 problem; a header past the connection memory is a 4xx, and the
 * daemon answers the next client. */
Test(faults, request_lines_and_headers_at_the_limits)
{
    const daemon_t *d = shared_daemon();
    json_t *doc = api_get_ok("/openapi.json");
    const char *prefix = "/solve/tail_latency?arrival_rate_qps=30&service_latency_ms=100&num_replicas=4&x=";
    for (int over = 0; over < 2; over++) {
        size_t target = 32768 + (size_t)over;
        char *path = malloc(target + 1);
        size_t pl = strlen(prefix);
        memcpy(path, prefix, pl);
        memset(path + pl, 'a', target - pl);
        path[target] = '\0';
        http_resp r;
        cr_assert_eq(http_get(d, path, &r), 0);
        if (over) {
            cr_expect_eq(r.status, 414, "a request target of %zu bytes: %ld", target, r.status);
        } else {
            /* read whole: its unknown input x is what it is refused for */
            cr_expect_eq(r.status, 400, "a request target of %zu bytes: %ld %.200s", target, r.status, r.body);
            json_t *p = http_json(&r);
            cr_expect_str_eq(json_string_value(json_object_get(p, "field")), "inputs.x");
            json_decref(p);
        }
        char err[1400];
        /* both answers are what the contract declares (the 414 on every operation) */
        bool ok = contract_check(doc, "GET", path, r.status, r.content_type, r.body, r.len, err, sizeof err);
        cr_expect(ok, "%.300s", err + (strlen(err) > 300 ? strlen(err) - 300 : 0));
        if (over)
            cr_expect(strstr(r.content_type, "application/problem+json"), "%s", r.content_type);
        http_free(&r);
        free(path);
    }
    /* a target at the limit with 4 KB of headers is read (--connection-memory,
     * 40 KiB, holds the request line and the headers), and so are 30 KB of headers */
    {
        size_t target = 32768;
        char *path = malloc(target + 1);
        size_t pl = strlen(prefix);
        memcpy(path, prefix, pl);
        memset(path + pl, 'a', target - pl);
        path[target] = '\0';
        char pad[4096 + 16];
        snprintf(pad, sizeof pad, "X-Pad: %04096d", 0);
        const char *const hs[] = {pad, NULL};
        http_resp r;
        cr_assert_eq(http_request(d, "GET", path, hs, NULL, 0, &r), 0);
        cr_expect_eq(r.status, 400, "a request target at the limit with 4 KB of headers: %ld", r.status);
        http_free(&r);
        free(path);
        char *big_pad = malloc(30000 + 16);
        snprintf(big_pad, 30000 + 16, "X-Pad: %030000d", 0);
        const char *const hb[] = {big_pad, NULL};
        cr_assert_eq(http_request(d, "GET", "/healthz", hb, NULL, 0, &r), 0);
        cr_expect_eq(r.status, 200, "30 KB of headers: %ld", r.status);
        http_free(&r);
        free(big_pad);
    }
    /* a 200 KB header: past the connection memory */
    int fd = connect_to(d);
    size_t big = 200000;
    char *req = malloc(big + 128);
    int k = snprintf(req, 128, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(req + k, 'b', big);
    memcpy(req + k + big, "\r\n\r\n", 4);
    (void)send(fd, req, (size_t)k + big + 4, MSG_NOSIGNAL);
    char buf[64] = "";
    ssize_t got = recv(fd, buf, sizeof buf - 1, 0);
    close(fd);
    free(req);
    cr_expect(got > 12 && buf[9] == '4', "a 200 KB header: '%.30s'", got > 0 ? buf : "(nothing)");
    http_resp r;
    cr_assert_eq(http_get(d, "/healthz", &r), 0);
    cr_expect_eq(r.status, 200);
    http_free(&r);
    json_decref(doc);
}

/* ---- the catalog directory changes or disappears ------------------------------------------------- */

static const char CATALOG_FILE[] =
    "{\"hardware\": [{\"key\": \"SoakNPU\", \"name\": \"Soak NPU\", \"release_year\": 2025,"
    " \"compute\": {\"peak_flops\": \"100 TFLOP/s\"},"
    " \"memory\": {\"capacity\": \"64 GB\", \"bandwidth\": \"2 TB/s\"}, \"tdp\": \"300 W\"}]}\n";

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static char *get_body(const daemon_t *d, const char *path, long want)
{
    http_resp r;
    cr_assert_eq(http_get(d, path, &r), 0);
    cr_expect_eq(r.status, want, "GET %s: %ld %.300s", path, r.status, r.body);
    char *b = strdup(r.body);
    http_free(&r);
    return b;
}

Test(faults, answers_continue_when_the_catalog_dir_changes_or_disappears, .timeout = 60)
{
    char dir[] = "/tmp/mlsysd-faults-catalog-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char file[128];
    snprintf(file, sizeof file, "%s/soak.json", dir);
    write_text(file, CATALOG_FILE);
    daemon_t d;
    const char *const args[] = {"--catalog-dir", dir, NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    const char *solve = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"SoakNPU\"}}";
    char *entry0 = get_body(&d, "/catalog/hardware/SoakNPU", 200);
    char *version0 = get_body(&d, "/version", 200);
    http_resp r;
    cr_assert_eq(http_post_json(&d, "/solve", solve, &r), 0);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *ans0 = http_json(&r);
    http_free(&r);
    /* each phase, and the log line it must leave (file NULL: the directory's own) */
    static const struct {
        const char *file, *change;
    } LOGGED[] = {{"soak.json", "written"}, {"soak.json", "removed"}, {NULL, "directory removed"},
                  {NULL, "directory back"}};
    for (int phase = 0; phase < 4; phase++) {
        if (phase == 0) {
            write_text(file, "{\"hardware\": [ {\"key\": \"SoakNPU\",, }"); /* corrupt */
            write_text("/tmp/mlsysd-faults-extra.json", "{}");
        } else if (phase == 1) {
            unlink(file);
        } else if (phase == 2) {
            cr_assert_eq(rmdir(dir), 0);
        } else {
            cr_assert_eq(mkdir(dir, 0700), 0); /* back, empty: looked for once a second */
        }
        json_t *lines = daemon_log_await(d.log_path, "catalog directory changed", "change", LOGGED[phase].change, 1, 10);
        cr_expect_eq(json_array_size(lines), 1, "phase %d: %zu log lines of the change '%s'", phase,
                     json_array_size(lines), LOGGED[phase].change);
        const json_t *l = json_array_get(lines, 0);
        cr_expect_str_eq(json_string_value(json_object_get(l, "catalog_dir")), dir);
        cr_expect_str_eq(json_string_value(json_object_get(l, "level")), "warn");
        if (LOGGED[phase].file)
            cr_expect_str_eq(json_string_value(json_object_get(l, "file")), LOGGED[phase].file);
        cr_expect(strstr(json_string_value(json_object_get(l, "answers")), "loaded at start-up"));
        json_decref(lines);
        char *entry = get_body(&d, "/catalog/hardware/SoakNPU", 200);
        cr_expect_str_eq(entry, entry0, "phase %d: the entry changed", phase);
        free(entry);
        char *version = get_body(&d, "/version", 200);
        cr_expect_str_eq(version, version0, "phase %d: /version (its catalog hashes) changed", phase);
        free(version);
        cr_assert_eq(http_post_json(&d, "/solve", solve, &r), 0);
        cr_expect_eq(r.status, 200, "phase %d: %s", phase, r.body);
        json_t *ans = http_json(&r);
        cr_expect(json_equal(json_object_get(ans, "result"), json_object_get(ans0, "result")), "phase %d: the answer changed",
                  phase);
        json_decref(ans);
        http_free(&r);
        free(get_body(&d, "/readyz", 200));
    }
    unlink("/tmp/mlsysd-faults-extra.json");
    /* a file outside the directory, and files not *.json, are no change of it */
    json_t *all = daemon_log_lines(d.log_path, "catalog directory changed", NULL, NULL);
    cr_expect_eq(json_array_size(all), 4, "%zu catalog lines in all", json_array_size(all));
    json_decref(all);
    rmdir(dir);
    cr_expect_eq(daemon_stop(&d), 0);
    free(entry0);
    free(version0);
    json_decref(ans0);
    unlink(d.log_path);
}

/* ---- slowloris: many slow clients at once, on headers and on bodies ---------------------------- */

/* 16 connections trickle headers and 16 trickle an announced body, one byte every
 * 0.25 s each; meanwhile /healthz and /readyz answer every time, each well within
 * the 5 s read deadline (a probe stuck behind the slow connections would wait
 * for their cut), and the daemon cuts every slow connection off at its read
 * deadline, never before (later only bounds a hang: the machine may be loaded).
 * The idle timeout (30 s) never fires, so every cut is the read deadline's. */
Test(faults, slowloris_is_cut_off_and_the_probes_still_answer, .timeout = 60)
{
    daemon_t d;
    static const char *const args[] = {"--connection-timeout", "30", "--read-timeout", "5", NULL};
    cr_assert_eq(daemon_start(&d, args, NULL), 0);
    enum { N = 32 };
    int fd[N];
    size_t pos[N];
    double closed_at[N];
    static const char head[] = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: "
                               "00000000000000000000000000000000000000000000000000000000000000000000\r\n\r\n";
    static const char body_head[] = "POST /solve HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                    "Content-Length: 200\r\n\r\n";
    double t0 = now_s();
    for (int i = 0; i < N; i++) {
        fd[i] = connect_to(&d);
        pos[i] = 0;
        closed_at[i] = 0;
        if (i % 2)
            cr_assert_eq(send(fd[i], body_head, strlen(body_head), MSG_NOSIGNAL), (ssize_t)strlen(body_head));
    }
    int open_n = N, probes = 0;
    double worst_probe = 0;
    while (open_n > 0 && now_s() - t0 < 25) {
        for (int i = 0; i < N; i++) {
            if (closed_at[i])
                continue;
            char c = i % 2 ? ' ' : head[pos[i] % (sizeof head - 1)];
            ssize_t k = send(fd[i], &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            pos[i]++;
            char buf[256];
            ssize_t got = recv(fd[i], buf, sizeof buf, MSG_DONTWAIT);
            if (k < 0 || got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
                closed_at[i] = now_s() - t0;
                open_n--;
            } else if (got > 0) {
                cr_expect_fail("slow connection %d was answered: %.40s", i, buf);
                closed_at[i] = now_s() - t0;
                open_n--;
            }
        }
        const char *probe = probes % 2 ? "/readyz" : "/healthz";
        http_resp r;
        double p0 = now_s();
        cr_assert_eq(http_get(&d, probe, &r), 0, "%s during the slowloris", probe);
        double took = now_s() - p0;
        cr_expect_eq(r.status, 200, "%s during the slowloris: %ld", probe, r.status);
        if (took > worst_probe)
            worst_probe = took;
        http_free(&r);
        probes++;
        sleep_s(0.25);
    }
    double first = 1e9, last = 0;
    for (int i = 0; i < N; i++) {
        close(fd[i]);
        if (closed_at[i] && closed_at[i] < first)
            first = closed_at[i];
        if (closed_at[i] > last)
            last = closed_at[i];
    }
    cr_expect_eq(open_n, 0, "%d slow connections still open after 25 s", open_n);
    cr_expect(first > 4.5, "slow connections cut off between %.2f s and %.2f s (read-timeout 5 s)", first, last);
    cr_expect_lt(worst_probe, 2.5, "a probe took %.2f s during the slowloris", worst_probe);
    cr_log_info("faults: %d slow connections cut off between %.2f and %.2f s; %d probes, slowest %.3f s", N, first, last,
                probes, worst_probe);
    cr_assert_eq(daemon_stop(&d), 0);
    unlink(d.log_path);
}
