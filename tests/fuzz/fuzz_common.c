/* fuzz_common.c - see fuzz_common.h. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api/schema.h"
#include "catalog/catalog.h"
#include "server/metrics.h"
#include "server/reply.h"
#include "server/sweep.h"

static config g_cfg;
static app g_app;
static catalog *g_cat;
static int g_ready;
static json_t *g_contract; /* the served contract (GET /openapi.json), NULL: not checked */

app *fuzz_app(void)
{
    if (g_ready)
        return &g_app;
    char msg[600];
    config_defaults(&g_cfg);
    /* One input must not run for long: cap the points, cut off long sweeps. */
    g_cfg.sweep_max_points = 10000;
    g_cfg.request_timeout = 2.0;
    g_cfg.max_body_bytes = 1 << 20;
    metrics_init();
    if (catalog_load(&g_cat, NULL, msg, sizeof msg) != 0) {
        fprintf(stderr, "fuzz: catalog: %s\n", msg);
        abort();
    }
    if (app_init(&g_app, g_cat, &g_cfg, msg, sizeof msg) != 0) {
        fprintf(stderr, "fuzz: app: %s\n", msg);
        abort();
    }
    atomic_store(&g_app.ready, true);
    g_ready = 1;
    /* Every answer is checked against the served contract, as a client holds the service
     * to it (MLSYSD_FUZZ_CONTRACT=0: status checks only, for raw speed). */
    const char *check = getenv("MLSYSD_FUZZ_CONTRACT");
    if (!check || strcmp(check, "0") != 0) {
        app_request req = {.method = "GET", .path = "/openapi.json", .request_id = "fuzz"};
        app_response resp = {0};
        sb_init(&resp.body);
        app_handle(&g_app, &req, &resp);
        g_contract = resp.status == 200 ? json_loadb(resp.body.data, resp.body.len, 0, NULL) : NULL;
        app_response_free(&resp);
        if (!g_contract) {
            fprintf(stderr, "fuzz: GET /openapi.json did not give the contract\n");
            abort();
        }
    }
    return &g_app;
}

static int allowed_status(int s)
{
    switch (s) {
    case 200: case 400: case 404: case 405: case 406: case 413: case 414: case 415:
        return 1;
    default:
        return 0;
    }
}

void fuzz_run(app *a, const app_request *req)
{
    app_response resp = {0};
    sb_init(&resp.body);
    app_handle(a, req, &resp);
    if (resp.status == 500 || !allowed_status(resp.status)) {
        fprintf(stderr, "fuzz: %s %s answered %d: %.*s\n", req->method, req->path, resp.status,
                (int)(resp.body.len > 2000 ? 2000 : resp.body.len), resp.body.data ? resp.body.data : "");
        abort();
    }
    if (resp.status >= 400) {
        if (!resp.content_type || strcmp(resp.content_type, "application/problem+json") != 0 || resp.stream.ctx) {
            fprintf(stderr, "fuzz: error %d without problem+json\n", resp.status);
            abort();
        }
    }
    strbuf streamed;
    sb_init(&streamed);
    bool whole = true;
    if (resp.stream.ctx) {
        /* Small reads exercise the chunking of sweep_stream_read. */
        char buf[257];
        size_t total = 0, n;
        while ((n = resp.stream.read(resp.stream.ctx, buf, sizeof buf - 1)) > 0 && n != STREAM_FAILED) {
            if (n > sizeof buf - 1)
                abort();
            total += n;
            if (g_contract && total <= (4u << 20))
                sb_append(&streamed, buf, n);
        }
        whole = total <= (4u << 20);
    }
    /* The answer, 2xx or 4xx, as the contract declares it for this path, method, status and media type. */
    if (g_contract && whole && resp.content_type) {
        const char *body = resp.stream.ctx ? streamed.data : resp.body.data;
        size_t len = resp.stream.ctx ? streamed.len : resp.body.len;
        char err[1400];
        if (!contract_check(g_contract, req->method, req->path, resp.status, resp.content_type, body ? body : "", len,
                            err, sizeof err)) {
            fprintf(stderr, "fuzz: the answer differs from the served contract: %s\n  answer %d %s: %.1500s\n", err,
                    resp.status, resp.content_type, body ? body : "");
            abort();
        }
    }
    sb_free(&streamed);
    app_response_free(&resp);
}
