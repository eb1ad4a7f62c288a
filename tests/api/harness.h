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

/* ../shared/golden etc.: NULL (and the test should skip) when absent. */
const char *shared_dir(void);
/* Read a whole file (NUL-terminated); NULL on error. */
char *read_file(const char *path, size_t *len);

/* Relative comparison used by the parity tests: |a-b| <= 1e-9*|b| + 1e-12. */
bool close_enough(double got, double want);

#endif
