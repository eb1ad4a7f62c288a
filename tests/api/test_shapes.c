/* test_shapes.c - the input and output shapes beyond scalars, through every
 * endpoint: fleets (a cluster id, or node x count on a fabric, with ids or
 * inline records), lists, nullable inputs and record outputs, by POST /solve,
 * GET /solve (dotted members), POST /sweep and GET /sweep (a member as an
 * axis), and the bad shapes, each a problem naming the field.
 *
 * The solvers used: reliability (a fleet), placement (a list of grids),
 * economics (nullable grid and price), parallelism (a record output).
 * Expected figures are hand-computed from solvers.md (§22: a DGX H100 node
 * has 8 GPUs at 50,000 h MTTF, 8 NICs at 150,000 h and 2 PSUs at 100,000 h,
 * so its MTBF is 1 / (8/50000 + 8/150000 + 2/100000) = 4285.714285714286 h;
 * a fleet of n nodes has 4285.714.../n). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NODE_MTBF_H (1.0 / (8.0 / 50000 + 8.0 / 150000 + 2.0 / 100000))

#define RELIABILITY(fleet) "{\"solver\":\"reliability\",\"inputs\":{\"fleet\":" fleet ",\"job_duration_hours\":24}}"

Test(shapes, fleet_by_cluster_id_and_by_parts)
{
    long st;
    json_t *a = api_post("/solve", RELIABILITY("\"Research_256\""), &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(a, "detail")));
    cr_expect(close_enough(result_num(a, "fleet_mtbf"), NODE_MTBF_H / 32), "Research_256 is 32 DGX H100 nodes");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(a, "inputs"), "fleet")), "Research_256");
    json_decref(a);

    json_t *b =
        api_post("/solve", RELIABILITY("{\"node\":\"DGX_H100\",\"count\":64,\"fabric\":\"InfiniBand_NDR\"}"), &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(b, "detail")));
    cr_expect(close_enough(result_num(b, "fleet_mtbf"), NODE_MTBF_H / 64));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(b, "inputs"), "fleet")), "custom");
    json_decref(b);

    /* a cluster with one member overridden, and an inline node */
    json_t *c = api_post("/solve", RELIABILITY("{\"base\":\"Research_256\",\"count\":4}"), &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(c, "detail")));
    cr_expect(close_enough(result_num(c, "fleet_mtbf"), NODE_MTBF_H / 4));
    json_decref(c);
    json_t *d = api_post("/solve",
                         RELIABILITY("{\"node\":{\"name\":\"custom\",\"accelerator\":\"H100\","
                                     "\"accelerators_per_node\":4,\"intra_node_bw\":\"900 GB/s\",\"nics_per_node\":1,"
                                     "\"psus_per_node\":2},"
                                     "\"count\":10,\"fabric\":\"InfiniBand_NDR\"}"),
                         &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(d, "detail")));
    /* 4 GPUs, 1 NIC, 2 PSUs: 1 / (4/50000 + 1/150000 + 2/100000) h per node */
    cr_expect(close_enough(result_num(d, "fleet_mtbf"), 1.0 / (4.0 / 50000 + 1.0 / 150000 + 2.0 / 100000) / 10));
    json_decref(d);
}

Test(shapes, fleet_members_in_a_query_string)
{
    long st;
    json_t *a = api_get("/solve/reliability?fleet.node=DGX_H100&fleet.count=64&fleet.fabric=InfiniBand_NDR"
                        "&job_duration_hours=24",
                        &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(a, "detail")));
    cr_expect(close_enough(result_num(a, "fleet_mtbf"), NODE_MTBF_H / 64));
    json_decref(a);
    json_t *b = api_get("/solve/reliability?fleet=Research_256&fleet.count=2&job_duration_hours=24", &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(b, "detail")));
    cr_expect(close_enough(result_num(b, "fleet_mtbf"), NODE_MTBF_H / 2));
    json_decref(b);
}

Test(shapes, fleet_count_as_a_sweep_axis)
{
    long st;
    json_t *doc = api_post("/sweep",
                           "{\"solver\":\"reliability\",\"inputs\":{\"fleet\":\"Research_256\","
                           "\"job_duration_hours\":24},"
                           "\"axes\":[{\"input\":\"fleet.count\",\"range\":{\"start\":8,\"stop\":32,\"step\":8}}],"
                           "\"outputs\":[\"fleet_mtbf\"]}",
                           &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(doc, "detail")));
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(doc, "columns"), 0)), "fleet.count");
    const json_t *rows = json_object_get(doc, "rows");
    cr_assert_eq(json_array_size(rows), 4);
    for (size_t i = 0; i < 4; i++) {
        const json_t *row = json_array_get(rows, i);
        double n = json_number_value(json_array_get(row, 0));
        cr_expect_eq(n, 8.0 * (double)(i + 1));
        cr_expect(close_enough(json_number_value(json_array_get(row, 1)), NODE_MTBF_H / n), "row %zu", i);
    }
    json_decref(doc);

    /* the same from a query string: the other members are dotted arguments */
    json_t *g = api_get("/sweep/reliability?fleet.node=DGX_H100&fleet.fabric=InfiniBand_NDR&fleet.count=1,2"
                        "&job_duration_hours=24&outputs=fleet_mtbf",
                        &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(g, "detail")));
    rows = json_object_get(g, "rows");
    cr_assert_eq(json_array_size(rows), 2);
    cr_expect(close_enough(json_number_value(json_array_get(json_array_get(rows, 1), 1)), NODE_MTBF_H / 2));
    json_decref(g);
}

Test(shapes, bad_fleet_shapes_name_the_field)
{
    long st;
    json_t *j =
        api_post("/solve", RELIABILITY("{\"node\":\"DGX_H100\",\"count\":0,\"fabric\":\"InfiniBand_NDR\"}"), &st);
    expect_refusal(j, st, 400, "inputs.fleet.count", NULL);
    json_decref(j);
    j = api_post("/solve", RELIABILITY("{\"node\":\"DGX_H1000\",\"count\":8,\"fabric\":\"InfiniBand_NDR\"}"), &st);
    expect_refusal(j, st, 404, "inputs.fleet.node", NULL);
    json_decref(j);
    /* a fabric where a node belongs */
    j = api_post("/solve", RELIABILITY("{\"node\":\"InfiniBand_NDR\",\"count\":8,\"fabric\":\"InfiniBand_NDR\"}"), &st);
    expect_refusal(j, st, 404, "inputs.fleet.node", NULL);
    json_decref(j);
    /* a list where a scalar belongs */
    j = api_post("/solve", RELIABILITY("{\"node\":\"DGX_H100\",\"count\":[8],\"fabric\":\"InfiniBand_NDR\"}"), &st);
    expect_refusal(j, st, 400, "inputs.fleet.count", NULL);
    json_decref(j);
    j = api_post("/solve", RELIABILITY("\"Nowhere_512\""), &st);
    expect_refusal(j, st, 404, "inputs.fleet", NULL);
    json_decref(j);
    j = api_post("/solve", RELIABILITY("42"), &st);
    expect_refusal(j, st, 400, "inputs.fleet", NULL);
    json_decref(j);
}

#define PLACEMENT(regions)                                                                                             \
    "{\"solver\":\"placement\",\"inputs\":{\"fleet\":\"Research_256\",\"duration_days\":30,\"regions\":" regions "}}"

Test(shapes, list_input_by_post_and_query)
{
    long st;
    json_t *a = api_post("/solve", PLACEMENT("[\"US_Avg\",\"Quebec\",\"Nowhere\"]"), &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(a, "detail")));
    cr_expect_eq(result_num(a, "total_searched"), 2, "an unknown name is skipped, as upstream does");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(a, "result"), "best_region")), "Quebec");
    char *warnings = json_dumps(json_object_get(a, "warnings"), 0);
    cr_expect(strstr(warnings, "Nowhere") != NULL, "no warning names the skipped region: %s", warnings);
    free(warnings);
    cr_expect_eq(json_array_size(json_object_get(json_object_get(a, "inputs"), "regions")), 3);
    json_decref(a);
    /* in a query string, commas separate a list's items (it is not an axis) */
    json_t *b = api_get("/solve/placement?fleet=Research_256&duration_days=30&regions=US_Avg,Quebec", &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(b, "detail")));
    cr_expect_eq(result_num(b, "total_searched"), 2);
    json_decref(b);
    json_t *c = api_post("/solve", PLACEMENT("\"US_Avg\""), &st);
    expect_refusal(c, st, 400, "inputs.regions", NULL);
    json_decref(c);
    c = api_post("/solve", PLACEMENT("[\"US_Avg\", 7]"), &st);
    expect_refusal(c, st, 400, "inputs.regions[1]", NULL);
    json_decref(c);
}

Test(shapes, null_is_the_references_none)
{
    long st;
    const char *fmt = "{\"solver\":\"economics\",\"inputs\":{\"fleet\":\"Research_256\",\"duration_days\":30%s}}";
    char body[300];
    snprintf(body, sizeof body, fmt, "");
    json_t *absent = api_post("/solve", body, &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(absent, "detail")));
    snprintf(body, sizeof body, fmt, ",\"grid\":null,\"kwh_price\":null");
    json_t *null = api_post("/solve", body, &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(null, "detail")));
    cr_expect(json_equal(json_object_get(absent, "result"), json_object_get(null, "result")));
    cr_expect(json_is_null(json_object_get(json_object_get(null, "inputs"), "grid")), "null echoes as null");
    json_decref(absent);
    json_decref(null);
    /* a nullable record input still checks a given id */
    snprintf(body, sizeof body, fmt, ",\"grid\":\"Atlantis\"");
    json_t *bad = api_post("/solve", body, &st);
    expect_refusal(bad, st, 404, "inputs.grid", NULL);
    json_decref(bad);
}

Test(shapes, record_outputs_nest_in_json_and_flatten_in_csv)
{
    long st;
    json_t *doc = api_post("/solve",
                           "{\"solver\":\"parallelism\",\"inputs\":{\"model\":\"Llama3_8B\",\"fleet\":\"Research_256\","
                           "\"batch_size\":256}}",
                           &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(doc, "detail")));
    const json_t *best = json_object_get(json_object_get(doc, "result"), "best_config");
    cr_assert(json_is_object(best), "best_config is not an object");
    double tp = json_number_value(json_object_get(best, "tp")), pp = json_number_value(json_object_get(best, "pp")),
           dp = json_number_value(json_object_get(best, "dp"));
    cr_expect_eq(tp * pp * dp, 256, "tp x pp x dp = %g x %g x %g must use the 256 GPUs", tp, pp, dp);
    json_decref(doc);

    http_resp r;
    cr_assert_eq(http_get(shared_daemon(),
                          "/sweep/parallelism?model=Llama3_8B&fleet=Research_256&batch_size=256,512&format=csv"
                          "&outputs=best_config.tp,best_config.dp",
                          &r),
                 0);
    cr_assert_eq(r.status, 200, "%.300s", r.body);
    cr_expect(!strncmp(r.body, "batch_size,best_config.tp,best_config.dp,error\r\n", 48), "header: %.80s", r.body);
    http_free(&r);
    /* a record's name projects all its members */
    cr_assert_eq(http_get(shared_daemon(),
                          "/sweep/parallelism?model=Llama3_8B&fleet=Research_256&batch_size=256,512&format=csv"
                          "&outputs=best_config",
                          &r),
                 0);
    cr_assert_eq(r.status, 200, "%.300s", r.body);
    cr_expect(!strncmp(r.body, "batch_size,best_config.tp,best_config.pp,best_config.dp,error\r\n", 63), "header: %.80s",
              r.body);
    http_free(&r);
}

Test(shapes, solvers_describe_kinds_constraints_and_records)
{
    long st;
    json_t *doc = api_get("/solvers/pipeline", &st);
    cr_assert_eq(st, 200);
    const json_t *rules = json_object_get(doc, "constraints");
    cr_assert_eq(json_array_size(rules), 1, "pipeline states its one rule");
    cr_expect(strstr(json_string_value(json_object_get(json_array_get(rules, 0), "rule")), "cpu_throughput") != NULL);
    json_decref(doc);
    doc = api_get("/solvers/reliability", &st);
    cr_assert_eq(st, 200);
    size_t i;
    json_t *in;
    bool found = false;
    json_array_foreach(json_object_get(doc, "inputs"), i, in) {
        if (strcmp(json_string_value(json_object_get(in, "name")), "fleet"))
            continue;
        found = true;
        cr_expect_str_eq(json_string_value(json_object_get(in, "type")), "fleet");
        cr_expect_str_eq(json_string_value(json_array_get(json_object_get(in, "catalog_kinds"), 0)), "clusters");
    }
    cr_expect(found, "reliability has no fleet input");
    json_decref(doc);
}
