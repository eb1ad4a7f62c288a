/* fuzz_request.c - the whole request path without sockets: the first byte
 * picks the route and headers, the rest is the body handed to app_handle.
 * Streams are drained fully through a small buffer; the app's config caps
 * sweeps at 10,000 points so that no input runs for long. Never a 500, a
 * crash, a leak or a sanitizer report. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    const char *method, *path, *content_type, *accept;
} route_sel;

/* Seeds start with a digit: '0' = POST /solve, '1' = POST /sweep, ..., ':' = POST /optimize,
 * ';' = POST /batch, '<' = POST /evaluate (YAML), '=' = POST /evaluate (JSON), '>' = an NDJSON sweep
 * (new routes are appended: the committed seeds keep their meaning) */
static const route_sel ROUTES[] = {
    {"POST", "/solve", "application/json", NULL},
    {"POST", "/sweep", "application/json", NULL},
    {"POST", "/sweep", "application/json; charset=utf-8", "text/csv"},
    {"POST", "/sweep", "application/json", "application/x-ndjson"},
    {"POST", "/solve", NULL, "*/*"},
    {"POST", "/sweep", "application/problem+json", NULL},
    {"POST", "/solve", "text/plain", NULL},
    {"PUT", "/solve", "application/json", NULL},
    {"GET", "/solvers/single_node", NULL, NULL},
    {"POST", "/sweep", NULL, "text/csv, application/x-ndjson"},
    {"POST", "/optimize", "application/json", NULL},
    {"POST", "/batch", "application/json", NULL},
    {"POST", "/evaluate", "application/yaml", NULL},
    {"POST", "/evaluate", "application/json", NULL},
    {"POST", "/sweep", "application/json", "application/x-ndjson"},
};
#define N_ROUTES (sizeof ROUTES / sizeof ROUTES[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    app *a = fuzz_app();
    const route_sel *r = &ROUTES[(unsigned)(data[0] - '0') % N_ROUTES];
    /* The body is not NUL-terminated in the daemon either: copy it into an
     * exact-size allocation so that ASan catches any read past its end. */
    size_t len = size - 1;
    char *body = malloc(len ? len : 1);
    if (!body)
        return 0;
    if (len)
        memcpy(body, data + 1, len);
    app_request req = {0};
    req.method = r->method;
    req.path = r->path;
    req.content_type = r->content_type;
    req.accept = r->accept;
    req.body = body;
    req.body_len = len;
    req.request_id = "fuzz";
    fuzz_run(a, &req);
    free(body);
    return 0;
}
