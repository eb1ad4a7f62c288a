/* test_batch.c - POST /batch (server/batch.c): items of any solvers and
 * editions answered in order, each equal to POST /solve of the same body
 * (the answer, or the problem with its field under items[i]); one bad item does
 * not fail the others; the item cap (--batch-max-items, MLSYSD_BATCH_MAX_ITEMS)
 * is a 413 that states it; a body that is not a batch is a 400 naming why. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Items whose answers differ in solver, edition and outcome (index 3 and 5 fail). */
static const char *const ITEMS[] = {
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,"
    "\"precision\":\"fp16\"}}",
    "{\"solver\":\"SingleNodeModel\",\"catalog\":\"tutorial\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"pipeline\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":512,"
    "\"sample_size_bytes\":\"500 KB\",\"cpu_workers\":8}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":-3}}",
    "{\"solver\":\"data\",\"inputs\":{\"workload_data_rate\":\"1 GB/s\",\"hardware\":\"H100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A10\"}}",
    "{\"solver\":\"reliability\",\"inputs\":{\"fleet\":\"Research_256\",\"job_duration_hours\":24}}",
};
#define N_ITEMS (sizeof ITEMS / sizeof ITEMS[0])

static json_t *post(const daemon_t *d, const char *path, const char *body, long want)
{
    http_resp r;
    cr_assert_eq(http_post_json(d, path, body, &r), 0);
    cr_assert_eq(r.status, want, "POST %s: %ld %s", path, r.status, r.body);
    json_t *j = http_json(&r);
    cr_assert(j, "%s", r.body);
    http_free(&r);
    return j;
}

Test(batch, each_item_equals_its_own_solve)
{
    char body[8192] = "{\"items\":[";
    for (size_t i = 0; i < N_ITEMS; i++) {
        strcat(body, i ? "," : "");
        strcat(body, ITEMS[i]);
    }
    strcat(body, "]}");
    json_t *batch = post(shared_daemon(), "/batch", body, 200);
    json_t *items = json_object_get(batch, "items");
    cr_assert_eq(json_array_size(items), N_ITEMS);
    int failed = 0;
    for (size_t i = 0; i < N_ITEMS; i++) {
        json_t *it = json_array_get(items, i);
        cr_assert_eq(json_integer_value(json_object_get(it, "index")), (json_int_t)i);
        http_resp r;
        cr_assert_eq(http_post_json(shared_daemon(), "/solve", ITEMS[i], &r), 0);
        json_t *alone = http_json(&r);
        cr_assert(alone);
        cr_assert_eq(json_integer_value(json_object_get(it, "status")), r.status, "items[%zu]", i);
        if (r.status == 200) {
            cr_assert(json_equal(json_object_get(it, "response"), alone), "items[%zu] equals /solve", i);
            cr_assert_null(json_object_get(it, "problem"));
        } else {
            failed++;
            json_t *p = json_object_get(it, "problem");
            cr_assert(p && !json_object_get(it, "response"), "items[%zu]", i);
            static const char *const SAME[] = {"type", "title", "status", "detail"};
            for (size_t k = 0; k < 4; k++)
                cr_assert(json_equal(json_object_get(p, SAME[k]), json_object_get(alone, SAME[k])), "items[%zu].%s",
                          i, SAME[k]);
            char want[160];
            snprintf(want, sizeof want, "items[%zu].%s", i, json_string_value(json_object_get(alone, "field")));
            cr_assert_str_eq(json_string_value(json_object_get(p, "field")), want);
            cr_assert_str_eq(json_string_value(json_object_get(p, "instance")), "/batch");
        }
        json_decref(alone);
        http_free(&r);
    }
    cr_assert_eq(failed, 2, "items 3 and 5 fail, the others do not");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(json_array_get(items, 3), "problem"), "field")),
                     "items[3].inputs.batch_size");
    json_decref(batch);
}

Test(batch, items_that_are_not_solve_bodies_fail_alone)
{
    json_t *b = post(shared_daemon(), "/batch",
                     "{\"items\":[7,{\"solver\":\"nope\"},{\"inputs\":{}},{\"solver\":\"data\",\"inputs\":{},\"x\":1},"
                     "{\"solver\":\"data\",\"inputs\":{\"workload_data_rate\":1,\"hardware\":\"A100\"}}]}",
                     200);
    json_t *items = json_object_get(b, "items");
    static const struct {
        long status;
        const char *field;
    } WANT[] = {{400, "items[0]"}, {404, "items[1].solver"}, {400, "items[2].solver"}, {400, "items[3].x"},
                {200, NULL}};
    for (size_t i = 0; i < 5; i++) {
        json_t *it = json_array_get(items, i);
        cr_assert_eq(json_integer_value(json_object_get(it, "status")), WANT[i].status, "items[%zu]", i);
        if (WANT[i].field)
            cr_assert_str_eq(json_string_value(json_object_get(json_object_get(it, "problem"), "field")),
                             WANT[i].field);
    }
    json_decref(b);
}

Test(batch, a_body_that_is_not_a_batch_is_a_400)
{
    static const struct {
        const char *body, *field;
    } BAD[] = {
        {"{}", "items"},
        {"{\"items\":[]}", "items"},
        {"{\"items\":{}}", "items"},
        {"{\"items\":[{}],\"catalog\":\"current\"}", "catalog"},
        {"[1]", ""},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        json_t *p = post(shared_daemon(), "/batch", BAD[i].body, 400);
        const char *f = json_string_value(json_object_get(p, "field"));
        cr_assert_str_eq(f ? f : "", BAD[i].field, "%s", BAD[i].body);
        json_decref(p);
    }
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), "/batch", &r), 0);
    cr_assert_eq(r.status, 405);
    http_free(&r);
    const char *const text[] = {"Content-Type: text/plain", NULL};
    cr_assert_eq(http_request(shared_daemon(), "POST", "/batch", text, "{\"items\":[]}", 12, &r), 0);
    cr_assert_eq(r.status, 415);
    http_free(&r);
}

Test(batch, the_item_cap_is_configurable_and_a_413)
{
    const char *const args[] = {"--batch-max-items", "3", NULL};
    const char *const env[] = {"MLSYSD_BATCH_MAX_ITEMS=2", NULL};
    daemon_t by_flag, by_env;
    cr_assert_eq(daemon_start(&by_flag, args, env), 0);
    cr_assert_eq(daemon_start(&by_env, NULL, env), 0);
    static const char THREE[] = "{\"items\":[{\"solver\":\"data\",\"inputs\":{\"workload_data_rate\":1,\"hardware\":"
                                "\"A100\"}},7,7]}";
    json_t *ok = post(&by_flag, "/batch", THREE, 200);
    cr_assert_eq(json_array_size(json_object_get(ok, "items")), 3);
    json_decref(ok);
    json_t *p = post(&by_env, "/batch", THREE, 413);
    cr_assert_str_eq(json_string_value(json_object_get(p, "field")), "items");
    const char *detail = json_string_value(json_object_get(p, "detail"));
    cr_assert(strstr(detail, "3 items") && strstr(detail, "cap is 2") && strstr(detail, "MLSYSD_BATCH_MAX_ITEMS"),
              "%s", detail);
    json_decref(p);
    cr_assert_eq(daemon_stop(&by_flag), 0);
    cr_assert_eq(daemon_stop(&by_env), 0);
}
