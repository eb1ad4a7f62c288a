/* test_shared_answers.c - answers sent from the app's own bytes (reply_shared,
 * server/reply.h): a request whose sender takes them (shared_ok, as http.c's)
 * gets a pointer to the prebuilt answer or dashboard file, the same one each
 * time; any other caller gets a copy with the same bytes. */
#include <criterion/criterion.h>

#include <string.h>

#include "app_fixture.h"
#include "server/app.h"
#include "server/reply.h"

static void get(const char *path, const char *accept, const char *accept_encoding, const char *if_none_match,
                bool shared_ok, app_response *resp)
{
    app_request req = {.method = "GET", .path = path, .accept = accept, .accept_encoding = accept_encoding,
                       .if_none_match = if_none_match, .request_id = "t", .shared_ok = shared_ok};
    memset(resp, 0, sizeof *resp);
    sb_init(&resp->body);
    app_handle(&fixture_app, &req, resp);
}

Test(shared_answers, a_sender_that_takes_them_gets_the_apps_bytes_others_a_copy, .init = app_fixture_setup,
     .fini = app_fixture_teardown)
{
    static const struct {
        const char *path, *accept;
    } cases[] = {{"/openapi.json", NULL}, {"/catalog/hardware/A100", NULL}, {"/solvers", NULL}, {"/", "text/html"}};
    static const char *const encodings[] = {NULL, "gzip"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t e = 0; e < 2; e++) {
            app_response copy, a, b;
            get(cases[c].path, cases[c].accept, encodings[e], NULL, false, &copy);
            get(cases[c].path, cases[c].accept, encodings[e], NULL, true, &a);
            get(cases[c].path, cases[c].accept, encodings[e], NULL, true, &b);
            cr_assert_eq(copy.status, 200, "%s", cases[c].path);
            cr_assert_null(copy.shared, "%s: an in-process caller gets a copy", cases[c].path);
            cr_assert_gt(copy.body.len, 0);
            cr_assert_not_null(a.shared, "%s (%s): copied for a sender that takes shared bytes", cases[c].path,
                               encodings[e] ? encodings[e] : "identity");
            cr_assert_eq(a.body.len, 0);
            cr_assert_eq(a.shared, b.shared, "%s: the same bytes each time", cases[c].path);
            cr_assert(a.shared_len == copy.body.len && !memcmp(a.shared, copy.body.data, copy.body.len),
                      "%s (%s): other bytes than the copy", cases[c].path, encodings[e] ? encodings[e] : "identity");
            cr_assert_eq(a.content_encoding, copy.content_encoding);
            cr_assert_str_eq(a.etag, copy.etag);
            /* the validator it carries answers a 304, with no body at all */
            app_response nm;
            get(cases[c].path, cases[c].accept, encodings[e], a.etag, true, &nm);
            cr_assert_eq(nm.status, 304, "%s: %d", cases[c].path, nm.status);
            cr_assert_null(nm.shared);
            cr_assert_eq(nm.body.len, 0);
            app_response_free(&copy);
            app_response_free(&a);
            app_response_free(&b);
            app_response_free(&nm);
        }
    }
}

Test(shared_answers, computed_answers_are_never_shared, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    app_response r;
    get("/version", NULL, NULL, NULL, true, &r);
    cr_assert_eq(r.status, 200);
    cr_assert_null(r.shared);
    cr_assert_gt(r.body.len, 0);
    app_response_free(&r);
}
