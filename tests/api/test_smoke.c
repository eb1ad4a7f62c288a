/* test_smoke.c - the daemon answers, and the worked example of the spec
 * (reference/solvers.md §W) comes back through POST /solve. */
#include <criterion/criterion.h>

#include "harness.h"

Test(smoke, healthz)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), "/healthz", &r), 0);
    cr_assert_eq(r.status, 200);
    http_free(&r);
}

Test(smoke, resnet50_a100_current)
{
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/solve",
                                "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\","
                                "\"batch_size\":256,\"precision\":\"fp16\"}}",
                                &r),
                 0);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *j = http_json(&r);
    json_t *res = json_object_get(j, "result");
    /* hand check: 256 x 8.2e9 / (312e12 x 0.5) s + 0.015 ms + 50 x 0.01 ms */
    cr_assert(close_enough(json_number_value(json_object_get(res, "latency")), 13.971410256410256));
    cr_assert(close_enough(json_number_value(json_object_get(res, "throughput")), 18323.132404085267));
    cr_assert_str_eq(json_string_value(json_object_get(res, "bottleneck")), "Compute");
    json_decref(j);
    http_free(&r);
}
