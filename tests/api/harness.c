/* harness.c - see harness.h. */
#include "harness.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/solver.h"

extern char **environ;

/* The daemon logs {"msg":"listening",...,"port":N,...} once it is bound. */
static int read_port(const char *log_path)
{
    size_t len;
    char *text = read_file(log_path, &len);
    if (!text)
        return 0;
    int port = 0;
    char *p = strstr(text, "\"msg\":\"listening\"");
    if (p && (p = strstr(p, "\"port\":")))
        port = atoi(p + 7);
    free(text);
    return port;
}

pid_t spawn_mlsysd(const char *const *args, const char *const *env, const char *log_path)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = MLSYSD_BINARY;
    for (int i = 0; args && args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(MLSYSD_BINARY, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void sleep_s(double s)
{
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int daemon_start(daemon_t *d, const char *const *args, const char *const *env)
{
    static int seq;
    memset(d, 0, sizeof *d);
    snprintf(d->log_path, sizeof d->log_path, "/tmp/mlsysd-test-%d-%d.log", (int)getpid(), seq++);
    const char *argv[64];
    int n = 0;
    argv[n++] = "--port";
    argv[n++] = "0";
    argv[n++] = "--host";
    argv[n++] = "127.0.0.1";
    argv[n++] = "--drain-delay";
    argv[n++] = "0";
    for (int i = 0; args && args[i] && n < 62; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = spawn_mlsysd(argv, env, d->log_path);
    if (pid < 0)
        return -1;
    d->pid = pid;
    for (int i = 0; i < 500; i++) { /* up to 10 s (sanitizer builds start slower) */
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            d->pid = 0;
            return -1;
        }
        d->port = read_port(d->log_path);
        if (d->port) {
            snprintf(d->base, sizeof d->base, "http://127.0.0.1:%d", d->port);
            http_resp r;
            if (http_get(d, "/healthz", &r) == 0 && r.status == 200) {
                http_free(&r);
                return 0;
            }
            http_free(&r);
        }
        sleep_s(0.02);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    d->pid = 0;
    return -1;
}

int daemon_stop(daemon_t *d)
{
    if (d->pid <= 0)
        return -1;
    kill(d->pid, SIGTERM);
    for (int i = 0; i < 1500; i++) { /* up to 30 s */
        int status;
        pid_t w = waitpid(d->pid, &status, WNOHANG);
        if (w == d->pid) {
            d->pid = 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        sleep_s(0.02);
    }
    kill(d->pid, SIGKILL);
    waitpid(d->pid, NULL, 0);
    d->pid = 0;
    return -1;
}

/* --- the shared daemon: started in the runner, found by the workers through the environment --- */

static daemon_t g_shared;

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (daemon_start(&g_shared, NULL, NULL) != 0) {
        fprintf(stderr, "harness: could not start %s\n", MLSYSD_BINARY);
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%d", g_shared.port);
    setenv("MLSYSD_TEST_SHARED_PORT", buf, 1);
    snprintf(buf, sizeof buf, "%d", (int)g_shared.pid);
    setenv("MLSYSD_TEST_SHARED_PID", buf, 1);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    if (g_shared.pid > 0) {
        int rc = daemon_stop(&g_shared);
        if (rc != 0) {
            fprintf(stderr, "harness: shared daemon exited with %d (expected 0); log %s\n", rc, g_shared.log_path);
            exit(1);
        }
    }
}

const daemon_t *shared_daemon(void)
{
    static daemon_t d;
    if (!d.port) {
        const char *p = getenv("MLSYSD_TEST_SHARED_PORT");
        cr_assert(p, "the shared daemon did not start");
        d.port = atoi(p);
        const char *pid = getenv("MLSYSD_TEST_SHARED_PID");
        d.pid = pid ? atoi(pid) : 0;
        snprintf(d.base, sizeof d.base, "http://127.0.0.1:%d", d.port);
    }
    return &d;
}

/* --- HTTP ------------------------------------------------------------------------------------ */

typedef struct {
    char *data;
    size_t len;
} growbuf;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
    growbuf *g = ud;
    size_t n = size * nmemb;
    char *d = realloc(g->data, g->len + n + 1);
    if (!d)
        return 0;
    memcpy(d + g->len, ptr, n);
    g->len += n;
    d[g->len] = '\0';
    g->data = d;
    return n;
}

int http_request(const daemon_t *d, const char *method, const char *path, const char *const *headers,
                 const char *body, size_t body_len, http_resp *r)
{
    memset(r, 0, sizeof *r);
    CURL *c = curl_easy_init();
    if (!c)
        return -1;
    /* Heap-allocated: the bad-input catalogue sends request lines of 100 KB. */
    size_t url_len = strlen(d->base) + strlen(path) + 1;
    char *url = malloc(url_len);
    if (!url) {
        curl_easy_cleanup(c);
        return -1;
    }
    snprintf(url, url_len, "%s%s", d->base, path);
    growbuf b = {0}, h = {0};
    struct curl_slist *hl = NULL;
    for (int i = 0; headers && headers[i]; i++)
        hl = curl_slist_append(hl, headers[i]);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    }
    if (hl)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
        char *ct = NULL;
        curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
        if (ct)
            snprintf(r->content_type, sizeof r->content_type, "%s", ct);
    }
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    free(url);
    r->body = b.data ? b.data : calloc(1, 1);
    r->len = b.len;
    r->headers = h.data ? h.data : calloc(1, 1);
    return rc == CURLE_OK ? 0 : -1;
}

int http_get(const daemon_t *d, const char *path, http_resp *r)
{
    return http_request(d, "GET", path, NULL, NULL, 0, r);
}

int http_post_json(const daemon_t *d, const char *path, const char *body, http_resp *r)
{
    static const char *const h[] = {"Content-Type: application/json", NULL};
    return http_request(d, "POST", path, h, body, strlen(body), r);
}

bool http_header(const http_resp *r, const char *name, char *buf, size_t n)
{
    size_t nl = strlen(name);
    for (const char *p = r->headers; p && *p;) {
        const char *eol = strstr(p, "\r\n");
        size_t ll = eol ? (size_t)(eol - p) : strlen(p);
        if (ll > nl && !strncasecmp(p, name, nl) && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            size_t vl = ll - (size_t)(v - p);
            if (vl >= n)
                vl = n - 1;
            memcpy(buf, v, vl);
            buf[vl] = '\0';
            return true;
        }
        if (!eol)
            break;
        p = eol + 2;
    }
    return false;
}

json_t *http_json(const http_resp *r)
{
    json_error_t e;
    return json_loadb(r->body, r->len, 0, &e);
}

void http_free(http_resp *r)
{
    free(r->body);
    free(r->headers);
    memset(r, 0, sizeof *r);
}

const char *shared_dir(void)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s", MLSYSD_SHARED_DIR);
    struct stat st;
    return stat(dir, &st) == 0 ? dir : NULL;
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

json_t *example_inputs(const char *solver)
{
    const solver_desc *s = solver_at((size_t)solver_find(solver));
    cr_assert_not_null(s, "no solver %s", solver);
    cr_assert_not_null(s->example_json, "solver %s has no example_json in its descriptor", s->name);
    json_error_t je;
    json_t *j = json_loads(s->example_json, 0, &je);
    cr_assert(json_is_object(j), "%s's example_json is not a JSON object: %s", s->name, je.text);
    return j;
}

/* Appends text to *q (of *len, *cap), growing it. */
static void q_put(char **q, size_t *len, size_t *cap, const char *text, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *q = realloc(*q, *cap);
        cr_assert_not_null(*q);
    }
    memcpy(*q + *len, text, n);
    *len += n;
    (*q)[*len] = '\0';
}

static void q_value(char **q, size_t *len, size_t *cap, const json_t *v)
{
    char buf[64];
    if (json_is_string(v)) {
        for (const unsigned char *c = (const unsigned char *)json_string_value(v); *c; c++) {
            if (isalnum(*c) || strchr("-._~/", *c))
                q_put(q, len, cap, (const char *)c, 1);
            else
                q_put(q, len, cap, buf, (size_t)snprintf(buf, sizeof buf, "%%%02X", *c));
        }
    } else if (json_is_integer(v)) {
        q_put(q, len, cap, buf, (size_t)snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v)));
    } else if (json_is_real(v)) {
        int n = 0;
        for (int prec = 15; prec <= 17; prec++) {
            n = snprintf(buf, sizeof buf, "%.*g", prec, json_real_value(v));
            if (strtod(buf, NULL) == json_real_value(v))
                break;
        }
        q_put(q, len, cap, buf, (size_t)n);
    } else if (json_is_boolean(v)) {
        q_put(q, len, cap, json_is_true(v) ? "true" : "false", json_is_true(v) ? 4 : 5);
    } else if (json_is_array(v)) {
        size_t i;
        const json_t *item;
        json_array_foreach(v, i, item) {
            if (i)
                q_put(q, len, cap, ",", 1);
            q_value(q, len, cap, item);
        }
    } else {
        cr_assert_fail("inputs_query: a value of JSON type %d has no query form", (int)json_typeof(v));
    }
}

char *inputs_query(const json_t *inputs)
{
    char *q = NULL;
    size_t len = 0, cap = 0;
    q_put(&q, &len, &cap, "", 0);
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)inputs, k, v) {
        if (len)
            q_put(&q, &len, &cap, "&", 1);
        q_put(&q, &len, &cap, k, strlen(k));
        q_put(&q, &len, &cap, "=", 1);
        q_value(&q, &len, &cap, v);
    }
    return q;
}

bool close_enough(double got, double want) { return fabs(got - want) <= 1e-9 * fabs(want) + 1e-12; }

/* ---- JSON requests to the shared daemon --------------------------------------------------- */

static json_t *parsed(const char *method, const char *path, http_resp *r, long *status)
{
    *status = r->status;
    json_t *j = http_json(r);
    cr_assert_not_null(j, "%s %s: %ld, not JSON: %.300s", method, path, r->status, r->body ? r->body : "");
    http_free(r);
    return j;
}

json_t *api_get(const char *path, long *status)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), path, &r), 0, "GET %s: transport error", path);
    return parsed("GET", path, &r, status);
}

json_t *api_post(const char *path, const char *body, long *status)
{
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), path, body, &r), 0, "POST %s: transport error", path);
    return parsed("POST", path, &r, status);
}

json_t *api_post_doc(const char *path, json_t *body, long *status)
{
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    cr_assert_not_null(text);
    json_t *j = api_post(path, text, status);
    free(text);
    return j;
}

json_t *api_get_ok(const char *path)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), path, &r), 0, "GET %s: transport error", path);
    cr_assert_eq(r.status, 200, "GET %s: %ld %.300s", path, r.status, r.body ? r.body : "");
    cr_assert(!strncmp(r.content_type, "application/json", 16), "GET %s: %s", path, r.content_type);
    long status;
    return parsed("GET", path, &r, &status);
}

double num_at(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "%s is not a number", key);
    return json_number_value(v);
}

const char *str_at(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "(absent)";
}

double result_num(const json_t *doc, const char *name)
{
    const json_t *v = json_object_get(json_object_get(doc, "result"), name);
    cr_assert(json_is_number(v), "result.%s is not a number", name);
    return json_number_value(v);
}

const char *result_str(const json_t *doc, const char *name)
{
    const char *s = json_string_value(json_object_get(json_object_get(doc, "result"), name));
    cr_assert_not_null(s, "result.%s is not a string", name);
    return s;
}

void check_problem(long got_status, const char *content_type, const json_t *j, const char *request_id, long status,
                   const char *field, const char *detail_part)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    const char *shown = text ? text : "(not JSON)";
    cr_expect_eq(got_status, status, "want %ld, got %ld: %.600s", status, got_status, shown);
    cr_expect_str_eq(content_type, "application/problem+json", "status %ld: content type %s", status, content_type);
    cr_assert(json_is_object(j), "problem body is not a JSON object: %.600s", shown);
    const char *type = json_string_value(json_object_get(j, "type"));
    cr_expect(type && !strncmp(type, "https://", 8), "type must be a URI: %.600s", shown);
    cr_expect(json_is_string(json_object_get(j, "title")), "title: %.600s", shown);
    cr_expect_eq(json_integer_value(json_object_get(j, "status")), status, "status in the body: %.600s", shown);
    const char *detail = json_string_value(json_object_get(j, "detail"));
    cr_expect(detail && *detail, "detail: %.600s", shown);
    cr_expect(request_id && *request_id, "no X-Request-ID header");
    const char *brid = json_string_value(json_object_get(j, "request_id"));
    cr_expect(brid && request_id && !strcmp(brid, request_id), "request_id '%s' != header '%s'", brid ? brid : "",
              request_id ? request_id : "");
    free(text);
    if (field || detail_part)
        expect_refusal(j, status, status, field, detail_part); /* the status was checked above */
}

static json_t *problem_of(const http_resp *r, long status, const char *field, const char *detail_part)
{
    json_t *j = http_json(r);
    cr_assert(json_is_object(j), "%ld: problem body is not a JSON object: %.600s", r->status, r->body ? r->body : "");
    char rid[128] = "";
    http_header(r, "X-Request-ID", rid, sizeof rid);
    check_problem(r->status, r->content_type, j, rid, status, field, detail_part);
    return j;
}

json_t *problem_reply(const http_resp *r, long status) { return problem_of(r, status, NULL, NULL); }

void expect_problem(const http_resp *r, long status, const char *field, const char *detail_part)
{
    json_decref(problem_of(r, status, field, detail_part));
}

json_t *api_get_problem(const char *path, long status)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), path, &r), 0, "GET %s: transport error", path);
    json_t *j = problem_reply(&r, status);
    http_free(&r);
    return j;
}

json_t *solve_ok(const char *body)
{
    long status;
    json_t *doc = api_post("/solve", body, &status);
    if (status != 200) {
        char *text = json_dumps(doc, JSON_COMPACT);
        cr_assert_fail("POST /solve %.600s: status %ld: %.600s", body, status, text);
    }
    return doc;
}

json_t *solve_inputs_ok(const char *solver, json_t *inputs)
{
    json_t *body = json_pack("{s:s,s:o}", "solver", solver, "inputs", inputs);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    cr_assert_not_null(text);
    json_t *doc = solve_ok(text);
    free(text);
    return doc;
}

void expect_refusal(const json_t *doc, long status, long want, const char *field, const char *detail_part)
{
    const char *detail = json_string_value(json_object_get(doc, "detail"));
    cr_expect_eq(status, want, "status %ld, want %ld: %s", status, want, detail ? detail : "(no detail)");
    if (field) {
        const char *f = json_string_value(json_object_get(doc, "field"));
        cr_expect(f && !strcmp(f, field), "field %s, want %s (%s)", f ? f : "(none)", field,
                  detail ? detail : "(no detail)");
    }
    if (detail_part)
        cr_expect(detail && strstr(detail, detail_part), "detail \"%s\" lacks \"%s\"", detail ? detail : "(none)",
                  detail_part);
}

/* In a sanitizer build (MLSYSD_SANITIZE) LeakSanitizer checks this runner
 * too. Criterion's own runner leaks one 48-byte block when it runs long
 * tests on parallel workers (--jobs 2); that is Criterion's, not ours.
 * The daemons started by the tests are checked without this suppression. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcriterion.so\n"; }

void expect_same_json(const json_t *got, const json_t *want, const char *what)
{
    if (json_equal(got, want))
        return;
    char *g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY), *w = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
    cr_expect_fail("%s differs:\n got  %.1500s\n want %.1500s", what, g ? g : "(none)", w ? w : "(none)");
    free(g);
    free(w);
}

void expect_cell(const json_t *cell, const json_t *want, const char *what)
{
    if (json_is_number(cell) && json_is_number(want)) {
        cr_expect(json_number_value(cell) == json_number_value(want), "%s: sweep %.17g, /solve %.17g", what,
                  json_number_value(cell), json_number_value(want));
        return;
    }
    expect_same_json(cell, want ? want : json_null(), what);
}
