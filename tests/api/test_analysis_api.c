/* test_analysis_api.c - sensitivity's perturbation size through the real
 * server: a sweep over perturbation_pct reports where binding_constraint
 * changes, and every row equals /solve at that size. Llama-3-8B on an H100
 * (80 GiB) at fp16 streams 16.06 GB of weights: bandwidth binds, until a
 * -90 % perturbation leaves 8.6 GB of memory, too little for the weights,
 * and capacity binds. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

Test(analysis_api, a_perturbation_sweep_finds_where_the_binding_constraint_changes)
{
    static const int PCT[] = {-90, -50, 10, 100};
    json_t *sweep = api_get_ok("/sweep/sensitivity?model=Llama3_8B&hardware=H100&perturbation_pct=-90,-50,10,100"
                             "&outputs=binding_constraint");
    const json_t *rows = json_object_get(sweep, "rows"), *trans = json_object_get(sweep, "transitions");
    cr_assert_eq(json_array_size(rows), 4);
    for (size_t i = 0; i < 4; i++) {
        char path[200];
        snprintf(path, sizeof path, "/solve/sensitivity?model=Llama3_8B&hardware=H100&perturbation_pct=%d", PCT[i]);
        json_t *one = api_get_ok(path);
        const char *want = json_string_value(json_object_get(json_object_get(one, "result"), "binding_constraint"));
        const char *got = json_string_value(json_array_get(json_array_get(rows, i), 1));
        cr_expect(want && got && !strcmp(want, got), "%d %%: sweep %s, /solve %s", PCT[i], got, want);
        json_decref(one);
    }
    cr_assert_eq(json_array_size(trans), 1, "one change of binding constraint");
    const json_t *t = json_array_get(trans, 0);
    cr_expect_str_eq(json_string_value(json_object_get(t, "from")), "memory_capacity");
    cr_expect_str_eq(json_string_value(json_object_get(t, "to")), "memory_bandwidth");
    cr_expect_eq(json_number_value(json_object_get(t, "from_input")), -90);
    cr_expect_eq(json_number_value(json_object_get(t, "to_input")), -50);
    json_decref(sweep);
}
