/* test_ui.c - the dashboard's files over HTTP (server/ui.c): "/" answers the
 * page to a browser and the JSON index to an API client; /ui/{file} serves
 * every file of web/ byte for byte with its content type, an ETag that a
 * conditional request turns into a 304, and a Content-Security-Policy that
 * allows nothing outside the daemon; unknown files are 404 problems;
 * --no-dashboard (and MLSYSD_NO_DASHBOARD) turns all of it off. The page in a
 * real browser is tests/browser. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *const HTML[] = {"Accept: text/html,application/xhtml+xml,*/*;q=0.8", NULL};

Test(ui, root_is_the_page_for_a_browser_and_json_for_an_api_client)
{
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), "GET", "/", HTML, NULL, 0, &r), 0);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(r.content_type, "text/html; charset=utf-8");
    cr_assert(strstr(r.body, "<script src=\"/ui/dashboard.js\"") != NULL);
    char csp[400];
    cr_assert(http_header(&r, "Content-Security-Policy", csp, sizeof csp));
    cr_assert(strstr(csp, "default-src 'none'") && strstr(csp, "script-src 'self'") && strstr(csp, "connect-src 'self'"),
              "%s", csp);
    cr_assert(!strstr(csp, "unsafe-inline") && !strstr(csp, "http"), "nothing from outside the daemon: %s", csp);
    http_free(&r);

    cr_assert_eq(http_get(shared_daemon(), "/", &r), 0);
    cr_assert_eq(r.status, 200);
    json_t *j = http_json(&r);
    cr_assert(j && json_is_array(json_object_get(j, "endpoints")));
    json_decref(j);
    http_free(&r);
}

/* Every file the page loads, with the type a browser needs to use it under nosniff. */
Test(ui, assets_with_content_type_etag_and_304)
{
    static const struct {
        const char *path, *type, *needle;
    } FILES[] = {
        {"/ui/index.html", "text/html; charset=utf-8", "<!doctype html>"},
        {"/ui/dashboard.js", "text/javascript; charset=utf-8", "GET /solvers"},
        {"/ui/dashboard.css", "text/css; charset=utf-8", "#fields"},
        {"/ui/uPlot.iife.min.js", "text/javascript; charset=utf-8", "uPlot (v1.6.32)"},
        {"/ui/uPlot.min.css", "text/css; charset=utf-8", ".uplot"},
        {"/ui/uplot-LICENSE.txt", "text/plain; charset=utf-8", "MIT"},
    };
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        http_resp r;
        cr_assert_eq(http_get(shared_daemon(), FILES[i].path, &r), 0);
        cr_assert_eq(r.status, 200, "%s", FILES[i].path);
        cr_assert_str_eq(r.content_type, FILES[i].type, "%s", FILES[i].path);
        cr_assert(strstr(r.body, FILES[i].needle), "%s holds %s", FILES[i].path, FILES[i].needle);
        char etag[64], cc[64], nosniff[32];
        cr_assert(http_header(&r, "ETag", etag, sizeof etag), "%s has an ETag", FILES[i].path);
        cr_assert(http_header(&r, "Cache-Control", cc, sizeof cc));
        cr_assert_str_eq(cc, "no-cache");
        cr_assert(http_header(&r, "X-Content-Type-Options", nosniff, sizeof nosniff));
        http_free(&r);

        char inm[96];
        snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
        const char *const hdr[] = {inm, NULL};
        cr_assert_eq(http_request(shared_daemon(), "GET", FILES[i].path, hdr, NULL, 0, &r), 0);
        cr_assert_eq(r.status, 304, "%s revalidates", FILES[i].path);
        cr_assert_eq(r.len, 0);
        http_free(&r);
        const char *const stale[] = {"If-None-Match: \"0000000000000000\"", NULL};
        cr_assert_eq(http_request(shared_daemon(), "GET", FILES[i].path, stale, NULL, 0, &r), 0);
        cr_assert_eq(r.status, 200);
        http_free(&r);
    }
}

Test(ui, unknown_files_are_404_problems)
{
    static const char *const PATHS[] = {"/ui/", "/ui/nope.js", "/ui/..%2Fopenapi.yaml", "/ui/README.md",
                                        "/ui/dashboard.js/x"};
    for (size_t i = 0; i < sizeof PATHS / sizeof PATHS[0]; i++) {
        http_resp r;
        cr_assert_eq(http_get(shared_daemon(), PATHS[i], &r), 0);
        cr_assert_eq(r.status, 404, "%s", PATHS[i]);
        cr_assert_str_eq(r.content_type, "application/problem+json");
        http_free(&r);
    }
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/ui/dashboard.js", "{}", &r), 0);
    cr_assert_eq(r.status, 405);
    http_free(&r);
}

static void check_off(const char *const *args, const char *const *env)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, args, env), 0);
    http_resp r;
    cr_assert_eq(http_request(&d, "GET", "/", HTML, NULL, 0, &r), 0);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(r.content_type, "application/json", "the JSON index, not the page");
    http_free(&r);
    cr_assert_eq(http_get(&d, "/ui/dashboard.js", &r), 0);
    cr_assert_eq(r.status, 404);
    http_free(&r);
    cr_assert_eq(daemon_stop(&d), 0);
}

Test(ui, no_dashboard_flag_and_variable_turn_it_off)
{
    const char *const flag[] = {"--no-dashboard", NULL};
    check_off(flag, NULL);
    const char *const env[] = {"MLSYSD_NO_DASHBOARD=true", NULL};
    check_off(NULL, env);
}
