/* fuzz_common.c - see fuzz_common.h. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "server/metrics.h"
#include "server/reply.h"
#include "server/sweep.h"

static config g_cfg;
static app g_app;
static catalog *g_cat;
static int g_ready;

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
    if (resp.stream.ctx) {
        /* Small reads exercise the chunking of sweep_stream_read. */
        char buf[257];
        size_t total = 0, n;
        while ((n = resp.stream.read(resp.stream.ctx, buf, sizeof buf - 1)) > 0 && n != STREAM_FAILED) {
            if (n > sizeof buf - 1)
                abort();
            total += n;
        }
        (void)total;
    }
    app_response_free(&resp);
}
