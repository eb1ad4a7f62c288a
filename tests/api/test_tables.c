/* test_tables.c - table outputs (a solver's rows of the same columns) and
 * list inputs that default to the whole catalog, through the real server:
 * placement ranks every grid (all of /catalog/grids when `regions` is
 * absent), synthesis lists the accelerators that meet its requirements
 * (checked here against /catalog/hardware, one entry at a time), /solvers
 * and the units describe the columns, and sweeps refuse a table by name
 * while they vary its flat summary (cheapest_qualifying). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *str(const json_t *o, const char *name)
{
    const char *s = json_string_value(json_object_get(o, name));
    cr_assert_not_null(s, "%s is not a string", name);
    return s;
}

Test(tables, placement_ranks_every_grid_of_the_catalog_when_regions_is_absent)
{
    long st;
    json_t *grids = api_get("/catalog/grids", &st);
    cr_assert_eq(st, 200);
    size_t n = json_array_size(json_object_get(grids, "grids"));
    cr_assert_gt(n, 3, "the catalog should have more grids than mlsysim's three defaults");
    json_t *doc = solve_ok("{\"solver\":\"placement\",\"inputs\":{\"fleet\":\"Research_256\",\"duration_days\":30,"
                           "\"carbon_tax_per_ton\":200}}");
    const json_t *res = json_object_get(doc, "result"), *rows = json_object_get(res, "top_candidates");
    cr_assert_eq(num_at(res, "total_searched"), (double)n);
    cr_assert_eq(json_array_size(rows), n, "one row per grid");
    cr_expect_eq(json_array_size(json_object_get(json_object_get(doc, "inputs"), "regions")), n,
                 "the echo lists the regions used");
    /* the first row is the answer; rows ascend by objective = tco + carbon x tax; each grid once */
    cr_expect_str_eq(str(json_array_get(rows, 0), "region"), str(res, "best_region"));
    cr_expect(close_enough(num_at(json_array_get(rows, 0), "objective"), num_at(res, "objective_value")));
    cr_expect(close_enough(num_at(json_array_get(rows, 0), "tco"), num_at(res, "lowest_tco")));
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        cr_expect(close_enough(num_at(row, "objective"), num_at(row, "tco") + num_at(row, "carbon") * 200), "row %zu",
                  i);
        if (i)
            cr_expect_geq(num_at(row, "objective"), num_at(json_array_get(rows, i - 1), "objective"), "row %zu", i);
        for (size_t k = 0; k < i; k++)
            cr_expect_str_neq(str(row, "region"), str(json_array_get(rows, k), "region"));
        size_t g;
        json_t *grid;
        bool known = false;
        json_array_foreach(json_object_get(grids, "grids"), g, grid)
            known |= !strcmp(str(grid, "key"), str(row, "region"));
        cr_expect(known, "%s is not a catalog grid", str(row, "region"));
    }
    const json_t *units = json_object_get(doc, "units");
    cr_expect_str_eq(str(units, "top_candidates.tco"), "USD");
    cr_expect_str_eq(str(units, "top_candidates.water"), "L");
    json_decref(doc);
    json_decref(grids);
}

Test(tables, placement_ranks_the_regions_given_and_skips_unknown_names)
{
    json_t *doc = solve_ok("{\"solver\":\"placement\",\"inputs\":{\"fleet\":\"Research_256\",\"duration_days\":30,"
                           "\"regions\":[\"Poland\",\"Atlantis\",\"Quebec\"],\"carbon_tax_per_ton\":0}}");
    const json_t *rows = json_object_get(json_object_get(doc, "result"), "top_candidates");
    cr_assert_eq(json_array_size(rows), 2);
    /* Quebec: PUE 1.06 against Poland's 1.58, so less energy to pay for even untaxed */
    cr_expect_str_eq(str(json_array_get(rows, 0), "region"), "Quebec");
    cr_expect_str_eq(str(json_array_get(rows, 1), "region"), "Poland");
    cr_expect_eq(num_at(json_array_get(rows, 0), "water"), 0, "Quebec's WUE is 0");
    json_decref(doc);
}

/* A catalog entry's peak at fp16: its precision_flops.fp16, else peak_flops. */
static double fp16_peak(const json_t *hw)
{
    const json_t *p = json_object_get(json_object_get(hw, "precision_flops"), "fp16");
    return json_is_number(p) ? json_number_value(p) : json_number_value(json_object_get(hw, "peak_flops"));
}

Test(tables, synthesis_lists_exactly_the_catalog_accelerators_that_qualify_cheapest_first)
{
    long st;
    json_t *cat = api_get("/catalog/hardware", &st);
    cr_assert_eq(st, 200);
    json_t *doc = solve_ok("{\"solver\":\"synthesis\",\"inputs\":{\"model\":\"Llama3_8B\",\"target_latency\":\"10 ms\"}}");
    const json_t *res = json_object_get(doc, "result"), *rows = json_object_get(res, "qualifying");
    double bw = num_at(res, "required_bw") * 1e9, flops = num_at(res, "required_flops");
    double mem = num_at(res, "required_memory");
    size_t i, want = 0;
    json_t *hw;
    json_array_foreach(json_object_get(cat, "hardware"), i, hw) {
        const json_t *cap = json_object_get(hw, "memory_capacity"), *mbw = json_object_get(hw, "memory_bandwidth");
        bool fits = json_is_number(cap) && json_is_number(mbw) && fp16_peak(hw) >= flops &&
                    json_number_value(mbw) >= bw && json_number_value(cap) >= mem;
        bool listed = false;
        size_t r;
        json_t *row;
        json_array_foreach(rows, r, row) listed |= !strcmp(str(row, "hardware"), str(hw, "key"));
        cr_expect_eq(listed, fits, "%s: listed %d, meets the requirements %d", str(hw, "key"), listed, fits);
        want += fits;
    }
    cr_assert_gt(want, 0, "10 ms for Llama-3-8B should be within reach of some catalog accelerator");
    cr_expect_eq(num_at(res, "qualifying_count"), (double)want);
    cr_expect_str_eq(str(res, "cheapest_qualifying"), str(json_array_get(rows, 0), "hardware"));
    /* priced rows first, ascending; then unpriced, fastest first; latency within the target */
    bool unpriced_seen = false;
    json_t *row;
    json_array_foreach(rows, i, row) {
        const json_t *cost = json_object_get(row, "unit_cost");
        cr_expect_leq(num_at(row, "latency"), 10.0 * (1 + 1e-12), "%s", str(row, "hardware"));
        if (json_is_null(cost)) {
            if (unpriced_seen)
                cr_expect_geq(num_at(row, "latency"), num_at(json_array_get(rows, i - 1), "latency"));
            unpriced_seen = true;
            continue;
        }
        cr_expect(!unpriced_seen, "%s is priced but follows an unpriced row", str(row, "hardware"));
        if (i)
            cr_expect_geq(json_number_value(cost), num_at(json_array_get(rows, i - 1), "unit_cost"));
    }
    json_decref(doc);
    json_decref(cat);
}

Test(tables, synthesis_candidates_narrow_the_search_and_none_qualifying_is_null)
{
    json_t *doc = solve_ok("{\"solver\":\"synthesis\",\"inputs\":{\"model\":\"Llama3_8B\",\"target_latency\":\"10 ms\","
                           "\"candidates\":[\"H100\",\"A100\",\"T4\"]}}");
    const json_t *res = json_object_get(doc, "result");
    /* 16.06 GB in 10 ms needs 1,606 GB/s: the A100 (2,039) and H100 (3,350) do, the T4 (320) does not */
    cr_expect_eq(num_at(res, "qualifying_count"), 2);
    cr_expect_str_eq(str(res, "cheapest_qualifying"), "A100");
    cr_expect_str_eq(str(json_array_get(json_object_get(res, "qualifying"), 1), "hardware"), "H100");
    json_decref(doc);
    doc = solve_ok("{\"solver\":\"synthesis\",\"inputs\":{\"model\":\"Llama3_8B\",\"target_latency\":\"1 ms\","
                   "\"candidates\":[\"T4\"]}}");
    res = json_object_get(doc, "result");
    cr_expect_eq(num_at(res, "qualifying_count"), 0);
    cr_expect(json_is_null(json_object_get(res, "cheapest_qualifying")));
    cr_expect_eq(json_array_size(json_object_get(res, "qualifying")), 0);
    json_decref(doc);
    long st;
    json_t *bad = api_post("/solve",
                           "{\"solver\":\"synthesis\",\"inputs\":{\"model\":\"Llama3_8B\",\"target_latency\":\"1 ms\","
                           "\"candidates\":[\"T4\",\"Abacus\"]}}",
                           &st);
    cr_expect_eq(st, 404);
    cr_expect_str_eq(str(bad, "field"), "inputs.candidates[1]");
    json_decref(bad);
}

Test(tables, sweeps_vary_the_flat_summary_and_refuse_the_table_by_name)
{
    long st;
    json_t *doc = api_post("/sweep",
                           "{\"solver\":\"synthesis\",\"inputs\":{\"model\":\"Llama3_8B\"},\"axes\":[{\"input\":"
                           "\"target_latency\",\"values\":[\"2 ms\",\"5 ms\",\"20 ms\"]}],\"outputs\":["
                           "\"cheapest_qualifying\",\"qualifying_count\"]}",
                           &st);
    cr_assert_eq(st, 200, "%s", json_string_value(json_object_get(doc, "detail")));
    char *text = json_dumps(doc, JSON_COMPACT);
    /* a looser target admits more accelerators, and a cheaper one first */
    json_t *rows = json_object_get(doc, "rows");
    cr_assert_eq(json_array_size(rows), 3, "%s", text);
    double prev = -1;
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        const json_t *out = json_is_object(row) ? json_object_get(row, "outputs") : NULL;
        const json_t *count = out ? json_object_get(out, "qualifying_count") : json_array_get(row, 2);
        cr_assert(json_is_number(count), "row %zu: %s", i, text);
        cr_expect_geq(json_number_value(count), prev);
        prev = json_number_value(count);
    }
    cr_expect(strstr(text, "\"transitions\"") != NULL, "no transitions reported: %s", text);
    free(text);
    json_decref(doc);
    json_t *bad = api_get("/sweep/placement?fleet=Research_256&duration_days=30&carbon_tax_per_ton=0,500"
                          "&outputs=top_candidates",
                          &st);
    cr_expect_eq(st, 400);
    cr_expect_str_eq(str(bad, "field"), "outputs[0]");
    cr_expect(strstr(str(bad, "detail"), "table") != NULL, "%s", str(bad, "detail"));
    json_decref(bad);
}

Test(tables, solvers_describe_the_table_and_the_catalog_wide_default)
{
    long st;
    json_t *s = api_get("/solvers/synthesis", &st);
    cr_assert_eq(st, 200);
    const json_t *t = json_object_get(s, "table");
    cr_assert(json_is_object(t), "no table in /solvers/synthesis");
    cr_expect_str_eq(str(t, "name"), "qualifying");
    cr_expect_eq(json_array_size(json_object_get(t, "columns")), 6);
    size_t i;
    json_t *in;
    bool found = false;
    json_array_foreach(json_object_get(s, "inputs"), i, in) {
        if (strcmp(str(in, "name"), "candidates"))
            continue;
        found = true;
        cr_expect(json_is_true(json_object_get(in, "default_all")));
        cr_expect(json_is_false(json_object_get(in, "required")));
    }
    cr_expect(found, "synthesis has no candidates input");
    json_decref(s);
    s = api_get("/solvers/single_node", &st);
    cr_expect_null(json_object_get(s, "table"), "single_node has no table");
    json_decref(s);
}
