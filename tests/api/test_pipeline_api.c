/* test_pipeline_api.c - the pipeline's cache, node, stall and dataset inputs
 * (docs/pipeline.md) through the real daemon: sweeps over
 * cache_fraction, accelerators_per_node and cpu_workers put binding_stage's
 * transition exactly where the solver's own cache_fraction_needed,
 * accelerators_per_node_max and workers_needed say, and where a hand
 * calculation from the accelerator step puts it; bad values are 400s naming
 * the input; a catalog dataset gives the decoded sample size and the epoch.
 *
 * The accelerator step comes from the service (single_node's latency, checked
 * by the golden cases); everything after it is recomputed here by hand. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static bool warns(const json_t *reply, const char *needle)
{
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(reply, "warnings"), i, w)
        if (strstr(json_string_value(w), needle))
            return true;
    return false;
}

/* A sweep of pipeline over one axis; must be 200. */
static json_t *sweep_ok(json_t *inputs, json_t *axis)
{
    long status;
    json_t *j = api_post_doc("/sweep",
                             json_pack("{s:s,s:o,s:[o],s:[s,s,s,s,s]}", "solver", "pipeline", "inputs", inputs,
                                       "axes", axis, "outputs", "binding_stage", "step_time",
                                       "accelerator_utilization", "fetch_stall_fraction", "prep_stall_fraction"),
                             &status);
    cr_assert_eq(status, 200, "status %ld: %s", status, json_dumps(j, JSON_COMPACT));
    return j;
}

/* The sweep's binding_stage transitions as "from_input->to_input:from->to" (numbers to 15
 * digits), joined by ';'. */
static void transitions(const json_t *doc, char *buf, size_t len)
{
    size_t i, used = 0;
    json_t *t;
    buf[0] = '\0';
    json_array_foreach(json_object_get(doc, "transitions"), i, t) {
        if (strcmp(json_string_value(json_object_get(t, "output")), "binding_stage"))
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%.15g->%.15g:%s->%s", used ? ";" : "",
                                 json_number_value(json_object_get(t, "from_input")),
                                 json_number_value(json_object_get(t, "to_input")),
                                 json_string_value(json_object_get(t, "from")),
                                 json_string_value(json_object_get(t, "to")));
        cr_assert_lt(used, len);
    }
}

/* Every row: busy + fetch stall + prep stall = 1 (columns: axis, binding, step, util, fetch, prep, error). */
static void rows_split_the_step(const json_t *doc)
{
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "rows"), i, row) {
        double sum = json_number_value(json_array_get(row, 3)) + json_number_value(json_array_get(row, 4)) +
                     json_number_value(json_array_get(row, 5));
        cr_expect(fabs(sum - 1) <= 1e-15, "row %zu: busy + fetch + prep = %.17g", i, sum);
    }
}

/* ResNet-50 on the A100 (current catalog), batch 256 of 500 KB: 128e6 B per accelerator. */
static json_t *resnet_a100(void)
{
    return json_pack("{s:s,s:s,s:i,s:s}", "model", "ResNet50", "hardware", "A100", "batch_size", 256,
                     "sample_size_bytes", "500 KB");
}

Test(pipeline_api, accelerators_per_node_sweep_crosses_where_the_cpu_runs_out)
{
    /* CPU 50 GB/s, storage 64 GB/s for the node. Per accelerator the CPU needs
     * 128e6 / 50e9 = 2.56 ms and storage 2 ms, so with T_acc ~ 13.97 ms the CPU
     * runs out first: n_max = floor(T_acc / 2.56 ms) (= 5); the sweep turns from
     * the accelerator (Compute) to Transformation between n_max and n_max + 1. */
    json_t *in = resnet_a100();
    json_object_update_new(in, json_pack("{s:s,s:s}", "cpu_throughput", "50 GB/s", "storage_bandwidth", "64 GB/s"));
    json_t *one = solve_inputs_ok("pipeline", json_deep_copy(in));
    double t_acc = result_num(one, "accelerator_step_time") / 1e3;
    double n_max = result_num(one, "accelerators_per_node_max");
    cr_assert_eq(n_max, floor(t_acc / (128e6 / 50e9)), "T_acc %.17g s", t_acc);
    cr_assert_eq(n_max, 5.0);
    json_decref(one);
    json_t *doc = sweep_ok(in, json_pack("{s:s,s:[i,i,i,i,i,i,i,i]}", "input", "accelerators_per_node", "values", 1, 2,
                                         3, 4, 5, 6, 7, 8));
    char t[256];
    transitions(doc, t, sizeof t);
    cr_expect_str_eq(t, "5->6:Compute->Transformation");
    rows_split_the_step(doc);
    json_decref(doc);
}

Test(pipeline_api, accelerators_per_node_sweep_crosses_where_storage_runs_out)
{
    /* CPU 200 GB/s (0.64 ms per accelerator), storage 32 GB/s (4 ms): storage
     * runs out first, n_max = floor(T_acc / 4 ms) (= 3): Compute -> Storage. */
    json_t *in = resnet_a100();
    json_object_update_new(in, json_pack("{s:s,s:s}", "cpu_throughput", "200 GB/s", "storage_bandwidth", "32 GB/s"));
    json_t *one = solve_inputs_ok("pipeline", json_deep_copy(in));
    double t_acc = result_num(one, "accelerator_step_time") / 1e3;
    cr_assert_eq(result_num(one, "accelerators_per_node_max"), floor(t_acc / 4e-3));
    cr_assert_eq(result_num(one, "accelerators_per_node_max"), 3.0);
    json_decref(one);
    json_t *doc = sweep_ok(in, json_pack("{s:s,s:[i,i,i,i,i,i]}", "input", "accelerators_per_node", "values", 1, 2, 3,
                                         4, 5, 6));
    char t[256];
    transitions(doc, t, sizeof t);
    cr_expect_str_eq(t, "3->4:Compute->Storage");
    rows_split_the_step(doc);
    json_decref(doc);
}

Test(pipeline_api, cache_fraction_sweep_crosses_at_cache_fraction_needed)
{
    /* The H100 reads from its 7 GB/s NVMe; the cache defaults to its 64 GB/s host
     * link. With the CPU out of the way (1 TB/s), storage binds uncached:
     * 128e6 / 7e9 = 18.29 ms; fully cached 2 ms. Hand: x = (N/S - T_acc) / (N/S - N/C). */
    json_t *in = json_pack("{s:s,s:s,s:i,s:s,s:s}", "model", "ResNet50", "hardware", "H100", "batch_size", 256,
                           "sample_size_bytes", "500 KB", "cpu_throughput", "1 TB/s");
    json_t *one = solve_inputs_ok("pipeline", json_deep_copy(in));
    double t_acc = result_num(one, "accelerator_step_time") / 1e3;
    double x = result_num(one, "cache_fraction_needed");
    cr_assert_eq(result_num(one, "cache_bandwidth"), 64.0);
    cr_assert_str_eq(result_str(one, "binding_stage"), "Storage");
    double slow = 128e6 / 7e9, fast = 128e6 / 64e9;
    cr_assert(fabs(x - (slow - t_acc) / (slow - fast)) <= 1e-12, "cache_fraction_needed %.17g", x);
    json_decref(one);
    /* A coarse sweep crosses once, in the tenth that holds x ... */
    json_t *doc = sweep_ok(json_deep_copy(in), json_pack("{s:s,s:[f,f,f,f,f,f,f,f,f,f,f]}", "input", "cache_fraction",
                                                         "values", 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9,
                                                         1.0));
    char t[256], want[256];
    transitions(doc, t, sizeof t);
    double lo = floor(x * 10) / 10;
    snprintf(want, sizeof want, "%.1f->%.1f:Storage->Compute", lo, lo + 0.1);
    cr_expect_str_eq(t, want);
    rows_split_the_step(doc);
    json_decref(doc);
    /* ... and one double below x is still Storage, x itself is not. */
    doc = sweep_ok(in, json_pack("{s:s,s:[f,f]}", "input", "cache_fraction", "values", nextafter(x, 0), x));
    const json_t *rows = json_object_get(doc, "rows");
    cr_expect_str_eq(json_string_value(json_array_get(json_array_get(rows, 0), 1)), "Storage");
    cr_expect_str_eq(json_string_value(json_array_get(json_array_get(rows, 1), 1)), "Compute");
    json_decref(doc);
}

Test(pipeline_api, cpu_workers_sweep_for_a_node_crosses_at_workers_needed)
{
    /* Four A100s share the CPU: workers_needed is the node's, four times one
     * accelerator's demand 128e6 / T_acc at 250 MB/s each, rounded up; one worker
     * fewer binds on the CPU. cpu_cores_per_accelerator_needed is a quarter of the
     * unrounded count. */
    json_t *in = resnet_a100();
    json_object_update_new(in, json_pack("{s:i,s:i,s:s}", "accelerators_per_node", 4, "cpu_workers", 1,
                                         "storage_bandwidth", "1 TB/s"));
    json_t *one = solve_inputs_ok("pipeline", json_deep_copy(in));
    double t_acc = result_num(one, "accelerator_step_time") / 1e3;
    double w = result_num(one, "workers_needed");
    cr_assert_eq(w, ceil(4 * 128e6 / t_acc / 250e6), "T_acc %.17g s", t_acc);
    cr_assert(fabs(result_num(one, "cpu_cores_per_accelerator_needed") - 128e6 / t_acc / 250e6) <= 1e-12 * w);
    json_decref(one);
    json_t *doc = sweep_ok(in, json_pack("{s:s,s:[I,I]}", "input", "cpu_workers", "values", (json_int_t)w - 1, (json_int_t)w));
    char t[256], want[256];
    transitions(doc, t, sizeof t);
    snprintf(want, sizeof want, "%.0f->%.0f:Transformation->Compute", w - 1, w);
    cr_expect_str_eq(t, want);
    json_decref(doc);
}

Test(pipeline_api, node_outputs_per_node_and_per_accelerator)
{
    /* Eight accelerators, CPU 50 GB/s: T_cpu = 8 x 128e6 / 50e9 = 20.48 ms binds;
     * throughput 256 / 20.48 ms = 12500 per accelerator, 100000 for the node;
     * prep stall (20.48 ms - T_acc) / 20.48 ms, no fetch stall (storage 8 x 2 ms = 16 ms). */
    json_t *in = resnet_a100();
    json_object_update_new(in, json_pack("{s:s,s:s,s:i}", "cpu_throughput", "50 GB/s", "storage_bandwidth", "64 GB/s",
                                         "accelerators_per_node", 8));
    json_t *r = solve_inputs_ok("pipeline", in);
    double t_acc = result_num(r, "accelerator_step_time");
    cr_expect_str_eq(result_str(r, "binding_stage"), "Transformation");
    cr_expect(fabs(result_num(r, "transform_time") - 20.48) <= 1e-12);
    cr_expect(fabs(result_num(r, "storage_time") - 16) <= 1e-12);
    cr_expect(fabs(result_num(r, "throughput") - 12500) <= 1e-9);
    cr_expect(fabs(result_num(r, "node_throughput") - 100000) <= 1e-8);
    cr_expect(fabs(result_num(r, "prep_stall_fraction") - (20.48 - t_acc) / 20.48) <= 1e-15);
    cr_expect_eq(result_num(r, "fetch_stall_fraction"), 0.0);
    cr_expect(fabs(result_num(r, "data_demand_bw") - 8 * 128e6 / (t_acc / 1e3) / 1e9) <= 1e-12);
    json_decref(r);
}

/* A 400 naming the input. */
static void refused(json_t *inputs, long want_status, const char *field, const char *detail_part)
{
    long status;
    json_t *j = api_post_doc("/solve", json_pack("{s:s,s:o}", "solver", "pipeline", "inputs", inputs), &status);
    expect_refusal(j, status, want_status, field, detail_part);
    json_decref(j);
}

Test(pipeline_api, bad_new_inputs_name_the_field)
{
    json_t *in = resnet_a100();
    json_object_set_new(in, "cpu_throughput", json_string("2 GB/s"));
    json_t *a = json_deep_copy(in);
    json_object_set_new(a, "cache_fraction", json_real(1.5));
    refused(a, 400, "inputs.cache_fraction", "cache_fraction must be in [0, 1], got 1.5");
    json_t *b = json_deep_copy(in);
    json_object_set_new(b, "accelerators_per_node", json_integer(0));
    refused(b, 400, "inputs.accelerators_per_node", "accelerators_per_node must be >= 1, got 0");
    json_t *c = json_deep_copy(in);
    json_object_set_new(c, "hardware", json_string("MI300X")); /* no host link to default the cache to */
    json_object_set_new(c, "cache_fraction", json_real(0.5));
    refused(c, 400, "inputs.cache_bandwidth", "cache_bandwidth is required when cache_fraction > 0");
    json_t *d = json_deep_copy(in);
    json_object_del(d, "sample_size_bytes");
    refused(d, 400, "inputs.sample_size_bytes", "sample_size_bytes is required");
    json_t *e = json_deep_copy(in);
    json_object_set_new(e, "dataset", json_string("NoSuchDataset"));
    refused(e, 404, "inputs.dataset", "NoSuchDataset");
    json_decref(in);
}

Test(pipeline_api, no_new_inputs_no_new_warnings)
{
    /* The tutorial's one-call question answers as before: no warning from the new outputs. */
    json_t *in = resnet_a100();
    json_object_set_new(in, "cpu_throughput", json_string("2 GB/s"));
    json_t *r = solve_inputs_ok("pipeline", in);
    cr_expect_eq(json_array_size(json_object_get(r, "warnings")), 0);
    cr_expect_eq(result_num(r, "cache_fraction_needed"), 0.0);
    cr_expect(json_is_null(json_object_get(json_object_get(r, "result"), "epoch_time")));
    json_decref(r);
}

/* A catalog dataset; skipped while the catalog does not serve datasets. */
static json_t *solve_with_dataset(json_t *inputs)
{
    long status;
    json_t *j = api_post_doc("/solve", json_pack("{s:s,s:o}", "solver", "pipeline", "inputs", inputs), &status);
    if (status == 404 && !strcmp(json_string_value(json_object_get(j, "field")), "inputs.dataset")) {
        json_decref(j);
        cr_skip_test("the catalog serves no datasets yet");
    }
    cr_assert_eq(status, 200, "status %ld: %s", status, json_dumps(j, JSON_COMPACT));
    return j;
}

Test(pipeline_api, imagenet_gives_the_decoded_sample_and_the_epoch)
{
    /* ImageNet-1k: 224 x 224 x 3 = 150528 B decoded, 1281167 training images.
     * Eight A100s, batch 256, CPU 50 GB/s: T_cpu = 8 x 256 x 150528 / 50e9 = 6.1656... ms
     * < T_acc ~ 13.97 ms, storage over the host link 32 GB/s: 9.63 ms: the accelerator binds;
     * epoch = 1281167 / (8 x 256 / T_acc). */
    json_t *r = solve_with_dataset(json_pack("{s:s,s:s,s:i,s:s,s:s,s:i}", "model", "ResNet50", "hardware", "A100",
                                             "batch_size", 256, "dataset", "ImageNet", "cpu_throughput", "50 GB/s",
                                             "accelerators_per_node", 8));
    double t_acc = result_num(r, "accelerator_step_time") / 1e3;
    cr_expect_eq(result_num(r, "sample_size_bytes"), 150528.0);
    cr_expect(warns(r, "sample_size_bytes not given: 150528 B, a decoded 224x224x3 image"));
    cr_expect(fabs(result_num(r, "transform_time") - 8 * 256 * 150528 / 50e9 * 1e3) <= 1e-12);
    cr_expect_str_eq(result_str(r, "binding_stage"), "Compute");
    double epoch = 1281167 / (8 * 256 / t_acc);
    cr_expect(fabs(result_num(r, "epoch_time") - epoch) <= 1e-12 * epoch, "epoch %.17g, want %.17g",
              result_num(r, "epoch_time"), epoch);
    json_decref(r);
    /* A dataset without sizes (robot episodes) needs sample_size_bytes. */
    long status;
    json_t *j = api_post_doc("/solve",
                             json_pack("{s:s,s:{s:s,s:s,s:s,s:s}}", "solver", "pipeline", "inputs", "model", "ResNet50",
                             "hardware", "A100", "dataset", "DROID", "cpu_throughput", "50 GB/s"),
                             &status);
    cr_expect_eq(status, 400);
    cr_expect_str_eq(json_string_value(json_object_get(j, "field")), "inputs.sample_size_bytes");
    json_decref(j);
}
