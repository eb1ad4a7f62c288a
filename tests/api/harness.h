/* harness.h - API tests talk to a real mlsysd over loopback with libcurl.
 *
 * One shared daemon per test binary is started before the first test (on
 * --port 0: it picks a free port and logs it) and stopped with SIGTERM after
 * the last; its exit code must be 0. Tests that need special settings start
 * their own with daemon_start(). */
#ifndef MLSYSD_TEST_HARNESS_H
#define MLSYSD_TEST_HARNESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
    pid_t pid;
    int port;
    char base[64];        /* "http://127.0.0.1:PORT" */
    char log_path[128];   /* the daemon's stdout + stderr */
} daemon_t;

/* Start build/mlsysd with extra args (NULL-terminated, may be NULL) and
 * extra environment "K=V" strings (NULL-terminated, may be NULL); wait until
 * /healthz answers. Returns 0 or -1. */
int daemon_start(daemon_t *d, const char *const *args, const char *const *env);
/* Run build/mlsysd with args (NULL-terminated, after the program name) and
 * env ("K=V", NULL-terminated), stdout + stderr into log_path; no waiting.
 * For settings daemon_start cannot express (a fixed port, bad flags). */
pid_t spawn_mlsysd(const char *const *args, const char *const *env, const char *log_path);

/* Monotonic seconds, and a sleep that resumes after signals. */
double now_s(void);
void sleep_s(double s);

/* SIGTERM and wait; returns the exit status (or -1 if killed by a signal / timeout). */
int daemon_stop(daemon_t *d);

/* The shared daemon (started by the harness). */
const daemon_t *shared_daemon(void);

typedef struct {
    long status;
    char *body;
    size_t len;
    char *headers;        /* raw response headers, "Name: value\r\n" lines */
    char content_type[128];
} http_resp;

/* method "GET"/"POST"/...; headers: NULL-terminated "Name: value" list or NULL; body may be NULL. */
int http_request(const daemon_t *d, const char *method, const char *path, const char *const *headers,
                 const char *body, size_t body_len, http_resp *r);
int http_get(const daemon_t *d, const char *path, http_resp *r);
/* POST with Content-Type: application/json */
int http_post_json(const daemon_t *d, const char *path, const char *body, http_resp *r);
/* Value of a response header (case-insensitive name), copied into buf; false if absent. */
bool http_header(const http_resp *r, const char *name, char *buf, size_t n);
json_t *http_json(const http_resp *r);   /* parsed body or NULL */
void http_free(http_resp *r);

/* The shared folder beside the checkout (../shared, with reference/catalog.json):
 * NULL (and the test should skip) when absent. The golden files are found
 * through tests/common/golden_files.h instead: they are vendored. */
const char *shared_dir(void);
/* Read a whole file (NUL-terminated); NULL on error. */
char *read_file(const char *path, size_t *len);

/* ---- each solver's example (core/solver.h: solver_desc.example_json) ------------------ */

/* The example inputs of `solver` (name or alias), parsed; the caller owns them. A
 * solver without an example, or one that is not JSON, stops the test. */
json_t *example_inputs(const char *solver);
/* Inputs as a GET /solve query: name=value joined by '&', strings
 * percent-encoded, numbers as the shortest text that reads back the same,
 * lists joined by ','. malloc'd. */
char *inputs_query(const json_t *inputs);

/* Relative comparison used by the parity tests: |a-b| <= 1e-9*|b| + 1e-12. */
bool close_enough(double got, double want);

/* ---- JSON requests to the shared daemon, for tests ------------------------------
 * A transport error or a reply that is not JSON is a Criterion assertion (the
 * test stops); the caller owns (json_decref) the returned document. */

/* GET path / POST body (Content-Type: application/json) to path; *status is
 * the reply's. */
json_t *api_get(const char *path, long *status);
json_t *api_post(const char *path, const char *body, long *status);
/* POST a body built with json_pack (stolen). */
json_t *api_post_doc(const char *path, json_t *body, long *status);
/* GET that must answer 200 with application/json. */
json_t *api_get_ok(const char *path);

/* Member `key` of object o: num_at asserts it is a number; str_at gives
 * "(absent)" for a missing or non-string member. result_num and result_str:
 * member `name` of a reply's "result", asserted to be a number / string. */
double num_at(const json_t *o, const char *key);
const char *str_at(const json_t *o, const char *key);
double result_num(const json_t *doc, const char *name);
const char *result_str(const json_t *doc, const char *name);

/* POST /solve with this body text, which must answer 200 (else the test
 * stops, showing the body and the reply); the caller owns the reply. */
json_t *solve_ok(const char *body);
/* The same for {"solver": solver, "inputs": inputs} (inputs stolen). */
json_t *solve_inputs_ok(const char *solver, json_t *inputs);

/* ---- problems (RFC 9457) -----------------------------------------------------------
 * One set of checks, in check_problem; the others read a reply and call it.
 * Expectations (the test goes on), except a body that is not a JSON object. */

/* A reply already read (its status, content type, parsed body and
 * X-Request-ID header) is a problem with status `status`: content type
 * application/problem+json, a type URI, a title, the status again, a
 * detail, a request_id equal to the header; and, where not NULL, "field" is
 * `field` and "detail" contains `detail_part`. */
void check_problem(long got_status, const char *content_type, const json_t *body, const char *request_id, long status,
                   const char *field, const char *detail_part);
/* check_problem on r (not freed); returns the parsed body for the caller's own
 * checks (instance, suggestions). */
json_t *problem_reply(const http_resp *r, long status);
/* check_problem on r (not freed), with field and detail_part (either may be NULL). */
void expect_problem(const http_resp *r, long status, const char *field, const char *detail_part);
/* GET path whose answer is a problem with this status; returns its body. */
json_t *api_get_problem(const char *path, long status);
/* A refusal already parsed (api_post's doc and status): the status is `want`,
 * and, where not NULL, "field" is `field` and "detail" contains `detail_part`. */
void expect_refusal(const json_t *doc, long status, long want, const char *field, const char *detail_part);
/* Two JSON values equal (json_equal), else one failed expectation naming `what`
 * and showing both. */
void expect_same_json(const json_t *got, const json_t *want, const char *what);
/* A sweep row's cell against the same output of /solve's answer: numbers
 * exactly (a row carries the solve's double), anything else as JSON. */
void expect_cell(const json_t *cell, const json_t *want, const char *what);

#endif
