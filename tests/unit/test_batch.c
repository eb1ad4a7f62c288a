/* test_batch.c - POST /batch answers the same bytes whichever way its body is
 * read: a plain {"items": [...]} body is read item by item without a JSON tree
 * (server/batch.c), the same body with its key spelt "\u0069tems" is parsed by
 * jansson whole. Items of every kind: answers, problems of each sort, items the
 * scan declines (which send the whole body to jansson), escapes and brackets
 * inside strings. (An item that is not JSON is left out: its problem names the
 * body's key as written.) */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_fixture.h"
#include "server/app.h"
#include "server/reply.h"

static const char *const ITEMS[] = {
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}}",
    "{ \"solver\" : \"serving\" , \"inputs\" : {\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"precision\":\"fp8\",\"seq_len\":4096,\"batch_size\":8,\"tp\":2}, \"calibration\":\"measured\"}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256},\"catalog\":\"tutorial\"}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"NoSuchModel\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"no_such_solver\",\"inputs\":{}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":-3}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":\"many\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},\"extra\":1}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"Res}Net[50\\\"\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":{\"name\":\"x\",\"peak_flops\":1e15,\"memory_bandwidth\":2e12,\"memory_capacity\":8e10}}}",
    "{\"solver\":\"tail_latency\",\"inputs\":{\"arrival_rate_qps\":30,\"service_latency_ms\":\"100 ms\",\"num_replicas\":4}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"efficiency\":null}}",
    "{\"solver\":\"single_node\",\"inputs\":[1,2,3]}",
    "{}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},\"calibration\":\"guessed\"}",
    "{\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},\"solver\":\"single_node\"}",
};
#define N_ITEMS (sizeof ITEMS / sizeof ITEMS[0])

static void post_batch(const char *body, app_response *resp)
{
    app_request req = {.method = "POST", .path = "/batch", .content_type = "application/json", .request_id = "t",
                       .body = body, .body_len = strlen(body)};
    memset(resp, 0, sizeof *resp);
    sb_init(&resp->body);
    app_handle(&fixture_app, &req, resp);
}

/* {"<key>":[items from..to]} with `sep` between the items; "items" is padded to the
 * length of "\u0069tems", so that a position in either body is the same. */
static char *batch_of(const char *key, size_t from, size_t to, const char *sep)
{
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "{%s\"%s\":[", strcmp(key, "items") ? "" : "     ", key);
    for (size_t i = from; i < to; i++)
        sb_printf(&b, "%s%s", i > from ? sep : "", ITEMS[i]);
    sb_puts(&b, "]}");
    size_t len;
    return sb_detach(&b, &len);
}

static void expect_same(const char *scanned_body, const char *tree_body, const char *what)
{
    app_response a, b;
    post_batch(scanned_body, &a);
    post_batch(tree_body, &b);
    cr_expect_eq(a.status, b.status, "%s: %d vs %d", what, a.status, b.status);
    cr_expect(a.body.len == b.body.len && !memcmp(a.body.data, b.body.data, a.body.len),
              "%s: other bytes\n%.600s\n%.600s", what, a.body.data, b.body.data);
    app_response_free(&a);
    app_response_free(&b);
}

Test(batch, both_readings_answer_the_same_bytes, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    /* every item alone, then every run of consecutive items, with and without spaces */
    for (size_t from = 0; from < N_ITEMS; from++) {
        for (size_t to = from + 1; to <= N_ITEMS; to++) {
            for (int spaced = 0; spaced < 2; spaced++) {
                const char *sep = spaced ? " ,\n\t" : ",";
                char *plain = batch_of("items", from, to, sep), *escaped = batch_of("\\u0069tems", from, to, sep);
                char what[80];
                snprintf(what, sizeof what, "items %zu..%zu%s", from, to - 1, spaced ? ", spaced" : "");
                expect_same(plain, escaped, what);
                free(plain);
                free(escaped);
            }
        }
    }
}

Test(batch, bodies_of_other_shapes_are_answered_as_before, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    /* JSON of another shape: as sent (padded as batch_of does), and read whole by jansson */
    static const char *const bodies[][2] = {
        {"{     \"items\":[]}", "{\"\\u0069tems\":[]}"},
        {"{     \"items\":[1]}", "{\"\\u0069tems\":[1]}"},
        {"{     \"items\":[{}],\"more\":1}", "{\"\\u0069tems\":[{}],\"more\":1}"},
        {"{     \"items\":[{\"a\":\"}\"}]}", "{\"\\u0069tems\":[{\"a\":\"}\"}]}"},
        {" {     \"items\" :[ {} ] } ", " {\"\\u0069tems\" :[ {} ] } "},
        {"{     \"items\":{}}", "{\"\\u0069tems\":{}}"},
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
        expect_same(bodies[i][0], bodies[i][1], bodies[i][0]);
    /* not JSON: jansson's 400 */
    static const char *const broken[] = {"{\"items\":[{\"solver\":\"single_node\"}", "{\"items\":[{}]} x",
                                         "{\"items\":[{}],}", "{\"items\":[{\"a\":\"\\\"}]}"};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        app_response r;
        post_batch(broken[i], &r);
        cr_expect_eq(r.status, 400, "%s: %d", broken[i], r.status);
        cr_expect(strstr(r.body.data, "invalid-json") != NULL, "%s: %s", broken[i], r.body.data);
        app_response_free(&r);
    }
    /* one item over the cap: the 413 that states it */
    long long cap = fixture_app.cfg->batch_max_items;
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "{\"items\":[");
    for (long long i = 0; i <= cap; i++)
        sb_printf(&b, "%s{}", i ? "," : "");
    sb_puts(&b, "]}");
    app_response r;
    post_batch(b.data, &r);
    cr_expect_eq(r.status, 413, "%d", r.status);
    app_response_free(&r);
    sb_free(&b);
}
