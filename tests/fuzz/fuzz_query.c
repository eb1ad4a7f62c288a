/* fuzz_query.c - query string -> inputs: the first byte picks the route
 * (GET /solve/<solver> or GET /sweep/<solver>; digits: the first solvers,
 * '@'.. every solver), the rest is a query string
 * split like libmicrohttpd does ('&' between arguments, the first '='
 * between key and value, %XX and '+' decoded). Every answer must be a 2xx
 * or a problem+json 4xx; sweeps are drained to the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* In-place %XX and '+' decoding (as libmicrohttpd's unescaper). */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '+') {
            *w++ = ' ';
        } else if (*r == '%' && hexval(r[1]) >= 0 && hexval(r[2]) >= 0) {
            *w++ = (char)(hexval(r[1]) * 16 + hexval(r[2]));
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 16384)
        return 0;
    app *a = fuzz_app();
    unsigned sel = (unsigned)(data[0] - '0') % 10u;
    bool sweep = sel >= 5;
    unsigned which = sel % 5;
    const char *solver;
    if (which < solver_count())
        solver = solver_at(which)->name;
    else
        solver = which == 4 ? "SingleNodeModel" : "no_such_solver";
    /* '@'..'_': GET /solve of solver 0..31 (GET /solvers' order), '`'..DEL: GET /sweep of it;
     * the digits above keep the meaning of the first seeds. */
    if (data[0] >= 0x40 && data[0] <= 0x7f) {
        unsigned idx = (unsigned)(data[0] - 0x40);
        sweep = idx >= 32;
        which = idx % 32;
        solver = which < solver_count() ? solver_at(which)->name : "no_such_solver";
    }

    char *q = malloc(size);
    if (!q)
        return 0;
    memcpy(q, data + 1, size - 1);
    q[size - 1] = '\0';

    app_request req = {0};
    req.method = "GET";
    char path[96];
    snprintf(path, sizeof path, "/%s/%s", sweep ? "sweep" : "solve", solver);
    req.path = path;
    req.request_id = "fuzz";
    char *save = NULL;
    for (char *arg = strtok_r(q, "&", &save); arg; arg = strtok_r(NULL, "&", &save)) {
        if (req.n_query >= APP_MAX_QUERY) {
            req.query_overflow = true;
            break;
        }
        char *eq = strchr(arg, '=');
        if (eq)
            *eq = '\0';
        unescape(arg);
        if (eq)
            unescape(eq + 1);
        req.query[req.n_query].key = arg;
        req.query[req.n_query].value = eq ? eq + 1 : NULL;
        req.n_query++;
    }
    fuzz_run(a, &req);
    free(q);
    return 0;
}
