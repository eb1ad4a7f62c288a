/* test_solve.c - POST /solve and GET /solve/{solver} against the real daemon:
 * GET = POST, solver aliases, catalog ids in every spelling, inline and
 * custom entries, dotted query overrides, quantities with and without
 * units, the response's shape and every kind of client error as RFC 9457
 * problem+json.
 *
 * Numbers are hand calculations from the catalog (reference/catalog.md):
 * A100 = 312 TFLOP/s fp16, 2039 GB/s HBM, 80 GiB, 0.015 ms dispatch tax;
 * ResNet-50 = 25.6 M parameters, 50 layers, 8.2 GFLOP (current) / 4.1 GFLOP
 * (tutorial); the framework tax is 0.01 ms per layer (reference/solvers.md). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/solver.h"
#include "harness.h"

typedef struct {
    long status;
    char content_type[128];
    char allow[128];
    char request_id[128];
    bool has_allow;
    json_t *j; /* parsed body, NULL if not JSON */
} resp;

static resp call(const char *method, const char *path, const char *const *headers, const char *body)
{
    http_resp r;
    resp out = {0};
    cr_assert_eq(http_request(shared_daemon(), method, path, headers, body, body ? strlen(body) : 0, &r), 0,
                 "%s %s: transport error", method, path);
    out.status = r.status;
    snprintf(out.content_type, sizeof out.content_type, "%s", r.content_type);
    out.has_allow = http_header(&r, "Allow", out.allow, sizeof out.allow);
    http_header(&r, "X-Request-ID", out.request_id, sizeof out.request_id);
    out.j = http_json(&r);
    http_free(&r);
    return out;
}

static const char *const JSON_HDR[] = {"Content-Type: application/json", NULL};

static resp post(const char *body) { return call("POST", "/solve", JSON_HDR, body); }
static resp get(const char *path) { return call("GET", path, NULL, NULL); }

static json_t *res(const resp *r) { return json_object_get(r->j, "result"); }

static double rnum(const resp *r, const char *k)
{
    const json_t *v = json_object_get(res(r), k);
    cr_assert(json_is_number(v), "result.%s is not a number", k);
    return json_number_value(v);
}

static void ok(const resp *r, const char *what)
{
    cr_assert_eq(r->status, 200, "%s: status %ld: %s", what, r->status, r->j ? str_at(r->j, "detail") : "(no JSON)");
    cr_assert(!strncmp(r->content_type, "application/json", 16), "%s: content type %s", what, r->content_type);
    cr_assert_not_null(r->j);
}

/* Body equality, to say "these two requests are the same question". */
static void assert_same(const resp *a, const resp *b, const char *what)
{
    char *sa = json_dumps(a->j, JSON_SORT_KEYS | JSON_COMPACT), *sb = json_dumps(b->j, JSON_SORT_KEYS | JSON_COMPACT);
    cr_assert(json_equal(a->j, b->j), "%s:\n%.600s\nvs\n%.600s", what, sa, sb);
    free(sa);
    free(sb);
}

/* An RFC 9457 problem (the harness's check_problem on this file's reply). */
static void expect_resp_problem(const resp *r, long status, const char *field, const char *detail_has)
{
    check_problem(r->status, r->content_type, r->j, r->request_id, status, field, detail_has);
}

static void done(resp *r) { json_decref(r->j); }

/* ---- GET = POST -------------------------------------------------------------------------- */

/* The same question as GET /solve/{solver}?query and as POST /solve: the solver's
 * example (its descriptor's example_json), in an edition or the default. */
static void get_vs_post(const char *solver, const char *catalog)
{
    json_t *inputs = example_inputs(solver);
    char *query = inputs_query(inputs), *in = json_dumps(inputs, JSON_COMPACT);
    size_t np = strlen(solver) + strlen(query) + 64, nb = strlen(solver) + strlen(in) + 64;
    char *path = malloc(np), *body = malloc(nb);
    cr_assert(path && body && in);
    snprintf(path, np, "/solve/%s?%s%s%s", solver, query, catalog ? "&catalog=" : "", catalog ? catalog : "");
    snprintf(body, nb, "{\"solver\":\"%s\",\"inputs\":%s%s%s%s}", solver, in, catalog ? ",\"catalog\":\"" : "",
             catalog ? catalog : "", catalog ? "\"" : "");
    resp g = get(path), p = post(body);
    ok(&g, path);
    ok(&p, body);
    assert_same(&g, &p, path);
    cr_assert_str_eq(str_at(g.j, "catalog"), catalog ? catalog : "current");
    done(&g);
    done(&p);
    free(path);
    free(body);
    free(query);
    free(in);
    json_decref(inputs);
}

Test(solve, get_equals_post_for_every_solver)
{
    /* every solver the service lists, with its descriptor's example */
    resp s = get("/solvers");
    ok(&s, "/solvers");
    cr_assert_eq(json_array_size(json_object_get(s.j, "solvers")), solver_count());
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(s.j, "solvers"), i, d) {
        get_vs_post(str_at(d, "name"), NULL);
        get_vs_post(str_at(d, "name"), "tutorial");
    }
    done(&s);
}

/* ---- names ------------------------------------------------------------------------------- */

Test(solve, solver_aliases_and_case)
{
#define SN_IN "{\"model\":\"ResNet50\",\"hardware\":\"A100\"}", "model=ResNet50&hardware=A100"
#define DATA_IN "{\"workload_data_rate\":10,\"hardware\":\"A100\"}", "workload_data_rate=10&hardware=A100"
#define TR_IN                                                                                                          \
    "{\"batch_size\":8,\"sample_size_bytes\":1000,\"cpu_throughput\":1,\"accelerator_step_time\":1}",                  \
        "batch_size=8&sample_size_bytes=1000&cpu_throughput=1&accelerator_step_time=1"
    static const struct {
        const char *name, *canonical, *inputs, *query;
    } cases[] = {
        {"SingleNodeModel", "single_node", SN_IN},
        {"singlenodemodel", "single_node", SN_IN},
        {"SINGLE_NODE", "single_node", SN_IN},
        {"DataModel", "data", DATA_IN},
        {"DATA", "data", DATA_IN},
        {"TransformationModel", "transformation", TR_IN},
        {"Transformation", "transformation", TR_IN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char a[400], b[400], path[200];
        snprintf(a, sizeof a, "{\"solver\":\"%s\",\"inputs\":%s}", cases[i].name, cases[i].inputs);
        snprintf(b, sizeof b, "{\"solver\":\"%s\",\"inputs\":%s}", cases[i].canonical, cases[i].inputs);
        resp ra = post(a), rb = post(b);
        ok(&ra, a);
        ok(&rb, b);
        cr_assert_str_eq(str_at(ra.j, "solver"), cases[i].canonical, "%s", cases[i].name);
        assert_same(&ra, &rb, cases[i].name);
        /* the GET route takes aliases too */
        snprintf(path, sizeof path, "/solve/%s?%s", cases[i].name, cases[i].query);
        resp g = get(path);
        ok(&g, path);
        assert_same(&g, &rb, path);
        done(&ra);
        done(&rb);
        done(&g);
    }
#undef SN_IN
#undef DATA_IN
#undef TR_IN
}

Test(solve, catalog_ids_by_key_path_and_case)
{
    static const char *const hw[] = {"A100", "a100", "Hardware.Cloud.A100", "hardware.cloud.a100",
                                     "HARDWARE.CLOUD.A100"};
    static const char *const models[] = {"ResNet50", "resnet50", "Models.Vision.ResNet50", "models.vision.resnet50"};
    resp base = post(
        "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":64}}");
    ok(&base, "base");
    for (size_t h = 0; h < sizeof hw / sizeof hw[0]; h++) {
        for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
            char body[300];
            snprintf(body, sizeof body,
                     "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"%s\",\"hardware\":\"%s\",\"batch_size\":64}}",
                     models[m], hw[h]);
            resp r = post(body);
            ok(&r, body);
            /* the echo names the entry by its key, whatever spelling was sent */
            assert_same(&r, &base, body);
            done(&r);
        }
        char path[200];
        snprintf(path, sizeof path, "/solve/single_node?model=%s&hardware=%s&batch_size=64", models[h % 4], hw[h]);
        resp g = get(path);
        ok(&g, path);
        assert_same(&g, &base, path);
        done(&g);
    }
    cr_assert_str_eq(str_at(json_object_get(base.j, "inputs"), "hardware"), "A100");
    cr_assert_str_eq(str_at(json_object_get(base.j, "inputs"), "model"), "ResNet50");
    done(&base);
}

/* ---- inline and custom entries ----------------------------------------------------------- */

/* Llama-2-70B at int8: 70e9 parameters x 1 B = 70 GB of weights. An A100 has
 * 80 GiB = 85.9 GB (fits); with its memory overridden to 40 GB it does not,
 * and 70 - 40 = 30 GB spill over the host link. */
Test(solve, inline_hardware_override_makes_a_big_model_infeasible)
{
    resp plain = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"Llama2_70B\",\"hardware\":\"A100\","
                      "\"precision\":\"int8\"}}");
    ok(&plain, "plain A100");
    cr_assert(json_is_true(json_object_get(res(&plain), "feasible")));
    cr_assert(close_enough(rnum(&plain, "memory_footprint"), 70e9));
    cr_assert(json_is_null(json_object_get(res(&plain), "offload_spill_bytes")));
    cr_assert(
        !strncmp(json_string_value(json_array_get(json_object_get(plain.j, "trace"), 0)), "Memory Wall: Passed.", 20));

    static const char *const forms[] = {
        "{\"base\":\"A100\",\"memory\":{\"capacity\":\"40 GB\"}}",
        "{\"base\":\"A100\",\"memory.capacity\":\"40 GB\"}",
        "{\"base\":\"a100\",\"memory\":{\"capacity\":\"40000 MB\"}}",
    };
    resp first = {0};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char body[400];
        snprintf(
            body, sizeof body,
            "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"Llama2_70B\",\"hardware\":%s,\"precision\":\"int8\"}}",
            forms[i]);
        resp r = post(body);
        ok(&r, body);
        cr_assert(json_is_false(json_object_get(res(&r), "feasible")), "%s", body);
        cr_assert(close_enough(rnum(&r, "offload_spill_bytes"), 30e9), "%s", body);
        const json_t *rhw = json_object_get(json_object_get(r.j, "resolved"), "hardware");
        cr_assert(close_enough(json_number_value(json_object_get(rhw, "memory_capacity")), 40e9));
        /* the rest of the entry is the A100's */
        cr_assert(close_enough(json_number_value(json_object_get(rhw, "memory_bandwidth")), 2039e9));
        cr_assert(
            !strncmp(json_string_value(json_array_get(json_object_get(r.j, "trace"), 0)), "Memory Wall: FAILED", 19));
        if (i == 0)
            first = r;
        else {
            assert_same(&r, &first, body);
            done(&r);
        }
    }
    /* the same override from a query string */
    resp g = get("/solve/single_node?model=Llama2_70B&hardware=A100&hardware.memory.capacity=40%20GB&precision=int8");
    ok(&g, "dotted GET");
    assert_same(&g, &first, "dotted GET");
    done(&g);
    done(&first);
    done(&plain);
}

/* A custom chip and a custom CNN, no base. Hand calculation:
 *   compute  = 64 x 2e9 flop / (100e12 flop/s x 0.5)     = 2.56 ms
 *   memory   = 10e6 params x 2 B x (1 + 0.1 x 64) / 1e12 = 0.148 ms  (weights + 10% per sample)
 *   overhead = 0.01 ms default dispatch + 20 layers x 0.01 ms = 0.21 ms
 *   latency  = 2.56 + 0.21 = 2.77 ms; throughput = 64 / 2.77 ms = 23104.69 /s */
Test(solve, custom_entries_without_base)
{
    resp r = post("{\"solver\":\"single_node\",\"inputs\":{"
                  "\"model\":{\"key\":\"MyCNN\",\"type\":\"CNNWorkload\",\"parameters\":\"10e6 param\","
                  "\"inference_flops\":\"2 GFLOP\",\"layers\":20},"
                  "\"hardware\":{\"key\":\"MyChip\",\"compute\":{\"peak_flops\":\"100 TFLOP/s\"},"
                  "\"memory\":{\"capacity\":\"16 GB\",\"bandwidth\":\"1 TB/s\"}},\"batch_size\":64}}");
    ok(&r, "custom");
    cr_assert(close_enough(rnum(&r, "latency_compute"), 2.56), "%.17g", rnum(&r, "latency_compute"));
    cr_assert(close_enough(rnum(&r, "latency_memory"), 0.148), "%.17g", rnum(&r, "latency_memory"));
    cr_assert(close_enough(rnum(&r, "latency_overhead"), 0.21), "%.17g", rnum(&r, "latency_overhead"));
    cr_assert(close_enough(rnum(&r, "latency"), 2.77), "%.17g", rnum(&r, "latency"));
    cr_assert(close_enough(rnum(&r, "throughput"), 64 / 2.77e-3), "%.17g", rnum(&r, "throughput"));
    cr_assert_str_eq(str_at(res(&r), "bottleneck"), "Compute");
    cr_assert_str_eq(str_at(json_object_get(r.j, "inputs"), "hardware"), "MyChip");
    cr_assert_str_eq(str_at(json_object_get(r.j, "inputs"), "model"), "MyCNN");
    done(&r);

    /* a custom entry must carry the required fields of its kind, and the error says which */
    resp e = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\","
                  "\"hardware\":{\"key\":\"MyChip\",\"memory\":{\"capacity\":\"16 GB\",\"bandwidth\":\"1 TB/s\"}}}}");
    expect_resp_problem(&e, 400, "inputs.hardware.compute.peak_flops", "peak_flops");
    done(&e);
    /* an override of an unknown base is an unknown id */
    resp u = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":{\"base\":\"A10\"}}}");
    expect_resp_problem(&u, 404, NULL, "A100");
    done(&u);
}

/* ResNet-50 with the tutorial's 4.1 GFLOP on the current catalog, A100, batch 256:
 * 256 x 4.1e9 / (312e12 x 0.5) s = 6.728205128 ms + 0.515 ms overhead = 7.243205128 ms */
Test(solve, dotted_query_override)
{
    double want = 256 * 4.1e9 / (312e12 * 0.5) * 1e3 + 0.515;
    resp g = get("/solve/single_node?model=ResNet50&model.inference_flops=4.1%20GFLOP&hardware=A100&batch_size=256");
    ok(&g, "dotted");
    cr_assert(close_enough(rnum(&g, "latency"), want), "latency %.17g, want %.17g", rnum(&g, "latency"), want);
    const json_t *rm = json_object_get(json_object_get(g.j, "resolved"), "model");
    cr_assert(close_enough(json_number_value(json_object_get(rm, "inference_flops")), 4.1e9));
    cr_assert_str_eq(str_at(g.j, "catalog"), "current");
    /* the dotted field may come before the id */
    resp g2 = get("/solve/single_node?model.inference_flops=4.1%20GFLOP&model=ResNet50&hardware=A100&batch_size=256");
    ok(&g2, "dotted first");
    assert_same(&g2, &g, "order of model and model.inference_flops");
    resp p = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":{\"base\":\"ResNet50\",\"inference_flops\":"
                  "\"4.1 GFLOP\"},\"hardware\":\"A100\",\"batch_size\":256}}");
    ok(&p, "inline");
    assert_same(&g, &p, "GET dotted vs POST inline");
    /* a field given twice is an error, not a silent pick */
    resp twice = get("/solve/single_node?model=ResNet50&model.inference_flops=1%20GFLOP&model.inference_flops=2%20GFLOP"
                     "&hardware=A100");
    expect_resp_problem(&twice, 400, "inputs.model.inference_flops", "twice");
    /* only catalog entries take dotted fields */
    resp bad = get("/solve/single_node?model=ResNet50&hardware=A100&batch_size.x=1");
    expect_resp_problem(&bad, 400, "inputs.batch_size.x", NULL);
    done(&g);
    done(&g2);
    done(&p);
    done(&twice);
    done(&bad);
}

/* ---- quantities ---------------------------------------------------------------------------- */

/* transformation: 256 x 500 KB / 2 GB/s = 128e6 B / 2e9 B/s = 64 ms, whatever the spelling. */
Test(solve, quantities_with_units_and_bare_numbers)
{
    static const char *const step[] = {"7.24", "\"7.24 ms\"", "\"0.00724 s\"", "\"7240 us\"", "\"7.24ms\""};
    static const char *const cpu[] = {"2",           "\"2 GB/s\"",     "\"2000 MB/s\"",
                                      "\"16 Gbps\"", "\"7.2 TB / h\"", "\"2e9 B/s\""};
    static const char *const sample[] = {"500000", "\"500 KB\"", "\"0.5 MB\"", "\"488.28125 KiB\"", "\"500000 B\""};
    resp base = post("{\"solver\":\"transformation\",\"inputs\":{\"batch_size\":256,\"sample_size_bytes\":500000,"
                     "\"cpu_throughput\":2,\"accelerator_step_time\":7.24}}");
    ok(&base, "base");
    cr_assert(close_enough(rnum(&base, "transform_time"), 64));
    /* a bare number is in the declared unit, exactly: 7.24 (ms) echoes as 7.24, not 7.240000000000001 */
    const json_t *echo = json_object_get(base.j, "inputs");
    cr_assert_eq(json_number_value(json_object_get(echo, "accelerator_step_time")), 7.24);
    cr_assert_eq(json_number_value(json_object_get(echo, "cpu_throughput")), 2);
    cr_assert_eq(json_number_value(json_object_get(echo, "sample_size_bytes")), 500000);
    cr_assert_eq(rnum(&base, "accelerator_step_time"), 7.24);
    const json_t *iu = json_object_get(base.j, "input_units");
    cr_assert_str_eq(str_at(iu, "accelerator_step_time"), "ms");
    cr_assert_str_eq(str_at(iu, "cpu_throughput"), "GB/s");
    cr_assert_str_eq(str_at(iu, "sample_size_bytes"), "B");
    for (size_t a = 0; a < sizeof step / sizeof step[0]; a++)
        for (size_t b = 0; b < sizeof cpu / sizeof cpu[0]; b++)
            for (size_t c = 0; c < sizeof sample / sizeof sample[0]; c += (a == 0 && b == 0) ? 1 : 4) {
                char body[400];
                snprintf(body, sizeof body,
                         "{\"solver\":\"transformation\",\"inputs\":{\"batch_size\":256,\"sample_size_bytes\":%s,"
                         "\"cpu_throughput\":%s,\"accelerator_step_time\":%s}}",
                         sample[c], cpu[b], step[a]);
                resp r = post(body);
                ok(&r, body);
                assert_same(&r, &base, body);
                done(&r);
            }
    done(&base);

    /* data: 17.672 (GB/s) = "17.672 GB/s"; A100 supplies 32 GB/s over PCIe, so 17.672 / 32 = 0.55225 */
    resp d1 = post("{\"solver\":\"data\",\"inputs\":{\"workload_data_rate\":17.672,\"hardware\":\"A100\"}}");
    resp d2 = post("{\"solver\":\"data\",\"inputs\":{\"workload_data_rate\":\"17.672 GB/s\",\"hardware\":\"A100\"}}");
    ok(&d1, "data bare");
    ok(&d2, "data unit");
    assert_same(&d1, &d2, "data bare vs unit");
    cr_assert(close_enough(rnum(&d1, "utilization"), 17.672 / 32));
    done(&d1);
    done(&d2);
}

/* ---- the response ---------------------------------------------------------------------------- */

/* ResNet-50, A100, all defaults (batch 1, fp16, efficiency 0.5), current catalog:
 *   compute = 8.2e9 / 156e12 s = 0.052564 ms; memory = 51.2e6 B x 1.1 / 2039e9 = 0.0276 ms
 *   latency = 0.052564 + 0.515 = 0.567564102564 ms */
Test(solve, response_shape)
{
    resp r = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}");
    ok(&r, "defaults");
    static const char *const keys[] = {"solver",   "inputs",  "result",          "units",   "trace",
                                       "warnings", "catalog", "catalog_version", "resolved"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cr_assert_not_null(json_object_get(r.j, keys[i]), "response lacks %s", keys[i]);
    cr_assert_str_eq(str_at(r.j, "solver"), "single_node");

    /* the echo fills mlsysim's defaults */
    const json_t *in = json_object_get(r.j, "inputs");
    cr_assert_eq(json_integer_value(json_object_get(in, "batch_size")), 1);
    cr_assert(json_is_integer(json_object_get(in, "batch_size")));
    cr_assert_str_eq(str_at(in, "precision"), "fp16");
    cr_assert_eq(json_number_value(json_object_get(in, "efficiency")), 0.5);
    cr_assert(json_is_false(json_object_get(in, "is_training")));
    cr_assert_str_eq(str_at(in, "model"), "ResNet50");
    cr_assert_str_eq(str_at(in, "hardware"), "A100");

    double want = 8.2e9 / (312e12 * 0.5) * 1e3 + 0.515;
    cr_assert(close_enough(rnum(&r, "latency"), want), "latency %.17g, want %.17g", rnum(&r, "latency"), want);
    cr_assert(close_enough(rnum(&r, "throughput"), 1 / (want * 1e-3)));
    cr_assert_str_eq(str_at(res(&r), "bottleneck"), "Compute");
    cr_assert(json_is_true(json_object_get(res(&r), "feasible")));

    /* every output of /solvers/single_node is there, with its unit */
    resp d = get("/solvers/single_node");
    ok(&d, "/solvers/single_node");
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(d.j, "outputs"), i, o) {
        const char *name = str_at(o, "name"), *unit = str_at(o, "unit");
        cr_assert(json_object_get(res(&r), name), "result lacks %s", name);
        if (unit[0])
            cr_assert_str_eq(str_at(json_object_get(r.j, "units"), name), unit, "units.%s", name);
        else
            cr_assert_null(json_object_get(json_object_get(r.j, "units"), name), "units.%s for a ratio", name);
    }
    done(&d);
    cr_assert_str_eq(str_at(json_object_get(r.j, "units"), "latency"), "ms");
    cr_assert_str_eq(str_at(json_object_get(r.j, "units"), "throughput"), "1/s");

    const json_t *trace = json_object_get(r.j, "trace");
    cr_assert(json_is_array(trace) && json_array_size(trace) >= 1);
    cr_assert(!strncmp(json_string_value(json_array_get(trace, 0)), "Memory Wall: Passed.", 20), "trace: %s",
              json_string_value(json_array_get(trace, 0)));
    cr_assert(json_is_array(json_object_get(r.j, "warnings")));
    cr_assert_eq(json_array_size(json_object_get(r.j, "warnings")), 0);

    /* the resolved entries carry the numbers the solver used */
    const json_t *rs = json_object_get(r.j, "resolved");
    cr_assert(close_enough(json_number_value(json_object_get(json_object_get(rs, "hardware"), "peak_flops")), 312e12));
    cr_assert(close_enough(json_number_value(json_object_get(json_object_get(rs, "model"), "inference_flops")), 8.2e9));

    /* the edition and its version, as /version states them */
    resp v = get("/version");
    ok(&v, "/version");
    const char *cur_version = NULL, *tut_version = NULL;
    json_array_foreach(json_object_get(v.j, "catalog_editions"), i, o) {
        if (!strcmp(str_at(o, "name"), "current"))
            cur_version = str_at(o, "version");
        if (!strcmp(str_at(o, "name"), "tutorial"))
            tut_version = str_at(o, "version");
    }
    cr_assert(cur_version && tut_version && strcmp(cur_version, tut_version));
    cr_assert_str_eq(str_at(r.j, "catalog"), "current");
    cr_assert_str_eq(str_at(r.j, "catalog_version"), cur_version);

    resp t = post("{\"solver\":\"single_node\",\"catalog\":\"tutorial\",\"inputs\":{\"model\":\"ResNet50\","
                  "\"hardware\":\"A100\"}}");
    ok(&t, "tutorial");
    cr_assert_str_eq(str_at(t.j, "catalog"), "tutorial");
    cr_assert_str_eq(str_at(t.j, "catalog_version"), tut_version);
    const json_t *tm = json_object_get(json_object_get(t.j, "resolved"), "model");
    cr_assert(close_enough(json_number_value(json_object_get(tm, "inference_flops")), 4.1e9));
    done(&t);
    done(&v);
    done(&r);
}

Test(solve, nonfinite_is_null_with_a_warning)
{
    /* step time 0: slowdown = transform / 0 is infinite (mlsysim gives inf); JSON has null and a warning */
    resp r = post("{\"solver\":\"transformation\",\"inputs\":{\"batch_size\":256,\"sample_size_bytes\":\"1 MB\","
                  "\"cpu_throughput\":\"1 TB/s\",\"accelerator_step_time\":\"0 ms\"}}");
    ok(&r, "zero step");
    cr_assert(json_is_null(json_object_get(res(&r), "slowdown_factor")));
    const json_t *w = json_object_get(r.j, "warnings");
    cr_assert_geq(json_array_size(w), 1);
    cr_assert(strstr(json_string_value(json_array_get(w, 0)), "slowdown_factor"), "%s",
              json_string_value(json_array_get(w, 0)));
    /* 256 x 1 MB / 1 TB/s = 0.256 ms */
    cr_assert(close_enough(rnum(&r, "transform_time"), 0.256));
    done(&r);
}

/* ---- errors ------------------------------------------------------------------------------------ */

Test(solve_errors, unknown_solver)
{
    resp p = post("{\"solver\":\"roofline_v2\",\"inputs\":{}}");
    expect_resp_problem(&p, 404, "solver", "single_node"); /* lists the solvers there are */
    resp g = get("/solve/nope?model=ResNet50");
    expect_resp_problem(&g, 404, NULL, "nope");
    done(&p);
    done(&g);
}

Test(solve_errors, unknown_hardware_suggests_nearest)
{
    resp p = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A10\"}}");
    expect_resp_problem(&p, 404, "inputs.hardware", "A100");
    cr_assert(strstr(str_at(p.j, "detail"), "'A10'"), "%s", str_at(p.j, "detail"));
    resp g = get("/solve/single_node?model=ResNet50&hardware=A10");
    expect_resp_problem(&g, 404, "inputs.hardware", "A100");
    done(&p);
    done(&g);
}

Test(solve_errors, unknown_model)
{
    resp p = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet51\",\"hardware\":\"A100\"}}");
    expect_resp_problem(&p, 404, "inputs.model", "ResNet50");
    /* a model id is not a hardware id */
    resp x = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"A100\",\"hardware\":\"A100\"}}");
    expect_resp_problem(&x, 404, "inputs.model", NULL);
    done(&p);
    done(&x);
}

Test(solve_errors, unknown_input_is_named)
{
    resp p = post(
        "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batchsize\":256}}");
    expect_resp_problem(&p, 400, "inputs.batchsize", "'batchsize'");
    resp g = get("/solve/single_node?model=ResNet50&hardware=A100&batchsize=256");
    expect_resp_problem(&g, 400, "inputs.batchsize", "'batchsize'");
    /* and an unknown top-level member of the body */
    resp t = post("{\"solver\":\"single_node\",\"input\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}");
    expect_resp_problem(&t, 400, "input", "'input'");
    done(&p);
    done(&g);
    done(&t);
}

Test(solve_errors, wrong_dimension_says_what_was_expected)
{
    resp p = post("{\"solver\":\"transformation\",\"inputs\":{\"batch_size\":256,\"sample_size_bytes\":\"500 KB\","
                  "\"cpu_throughput\":\"5 ms\",\"accelerator_step_time\":\"7 ms\"}}");
    expect_resp_problem(&p, 400, "inputs.cpu_throughput", "data rate");
    cr_assert(strstr(str_at(p.j, "detail"), "5 ms"), "%s", str_at(p.j, "detail"));
    resp u =
        post("{\"solver\":\"transformation\",\"inputs\":{\"batch_size\":256,\"sample_size_bytes\":\"500 furlongs\","
             "\"cpu_throughput\":\"2 GB/s\",\"accelerator_step_time\":\"7 ms\"}}");
    expect_resp_problem(&u, 400, "inputs.sample_size_bytes", "furlongs");
    resp t = post("{\"solver\":\"transformation\",\"inputs\":{\"batch_size\":256,\"sample_size_bytes\":true,"
                  "\"cpu_throughput\":\"2 GB/s\",\"accelerator_step_time\":\"7 ms\"}}");
    expect_resp_problem(&t, 400, "inputs.sample_size_bytes", NULL);
    done(&p);
    done(&u);
    done(&t);
}

Test(solve_errors, bad_precision_with_mlsysims_message)
{
    resp p = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"precision\":"
                  "\"fp64\"}}");
    /* resolve_precision's ValueError (reference/solvers.md) */
    expect_resp_problem(
        &p, 400, "inputs.precision",
        "precision 'fp64' is not supported. Supported precision values: bf16, fp16, fp32, fp8, int4, int8, tf32");
    /* case-insensitive when valid */
    resp ok_upper = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\","
                         "\"precision\":\"FP16\"}}");
    ok(&ok_upper, "FP16");
    cr_assert_str_eq(str_at(json_object_get(ok_upper.j, "inputs"), "precision"), "fp16");
    done(&p);
    done(&ok_upper);
}

Test(solve_errors, efficiency_out_of_range_with_mlsysims_message)
{
    resp p = post(
        "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"efficiency\":1.5}}");
    expect_resp_problem(&p, 400, "inputs.efficiency", "efficiency must be in [1e-09, 1.0], got 1.5");
    resp z = post(
        "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"efficiency\":0.0}}");
    expect_resp_problem(&z, 400, "inputs.efficiency", "efficiency must be in [1e-09, 1.0], got 0.0");
    resp i = get("/solve/single_node?model=ResNet50&hardware=A100&efficiency=2");
    expect_resp_problem(&i, 400, "inputs.efficiency", "efficiency must be in [1e-09, 1.0], got 2");
    resp b =
        post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":0}}");
    expect_resp_problem(&b, 400, "inputs.batch_size", "batch_size must be >= 1, got 0");
    done(&p);
    done(&z);
    done(&i);
    done(&b);
}

Test(solve_errors, fractional_batch_size)
{
    resp p = post(
        "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":2.5}}");
    expect_resp_problem(&p, 400, "inputs.batch_size", "2.5");
    resp g = get("/solve/single_node?model=ResNet50&hardware=A100&batch_size=2.5");
    expect_resp_problem(&g, 400, "inputs.batch_size", "2.5");
    /* 256.0 is a whole number */
    resp w = post(
        "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256.0}}");
    ok(&w, "256.0");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(w.j, "inputs"), "batch_size")), 256);
    done(&p);
    done(&g);
    done(&w);
}

Test(solve_errors, missing_required_input)
{
    resp p = post("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\"}}");
    expect_resp_problem(&p, 400, "inputs.hardware", "hardware");
    resp n = post("{\"solver\":\"single_node\"}");
    expect_resp_problem(&n, 400, "inputs.model", "model");
    resp t = post(
        "{\"solver\":\"transformation\",\"inputs\":{\"batch_size\":1,\"sample_size_bytes\":1,\"cpu_throughput\":1}}");
    expect_resp_problem(&t, 400, "inputs.accelerator_step_time", "time"); /* says what kind of value it wants */
    resp s = post("{\"inputs\":{}}");
    expect_resp_problem(&s, 400, "solver", NULL);
    done(&p);
    done(&n);
    done(&t);
    done(&s);
}

Test(solve_errors, unknown_catalog_edition)
{
    resp p = post(
        "{\"solver\":\"single_node\",\"catalog\":\"2019\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}");
    expect_resp_problem(&p, 400, "catalog", "tutorial"); /* names the editions there are */
    resp g = get("/solve/single_node?model=ResNet50&hardware=A100&catalog=2019");
    expect_resp_problem(&g, 400, "catalog", "2019");
    done(&p);
    done(&g);
}

Test(solve_errors, invalid_json)
{
    resp p = post("{\"solver\":\"single_node\",");
    expect_resp_problem(&p, 400, NULL, "JSON");
    resp a = post("[1,2]");
    expect_resp_problem(&a, 400, NULL, "object");
    resp e = post("");
    expect_resp_problem(&e, 400, NULL, NULL);
    resp i = post("{\"solver\":\"single_node\",\"inputs\":[1]}");
    expect_resp_problem(&i, 400, "inputs", NULL);
    done(&p);
    done(&a);
    done(&e);
    done(&i);
}

Test(solve_errors, wrong_content_type_is_415)
{
    static const char *const text[] = {"Content-Type: text/plain", NULL};
    resp p = call("POST", "/solve", text,
                  "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}");
    expect_resp_problem(&p, 415, NULL, "application/json");
    static const char *const utf8[] = {"Content-Type: application/json; charset=utf-8", NULL};
    resp q = call("POST", "/solve", utf8,
                  "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}");
    ok(&q, "json with charset");
    done(&p);
    done(&q);
}

Test(solve_errors, wrong_method_is_405_with_allow)
{
    resp g = get("/solve");
    expect_resp_problem(&g, 405, NULL, NULL);
    cr_assert(g.has_allow && strstr(g.allow, "POST"), "Allow: %s", g.allow);
    resp p = call("POST", "/solve/single_node", JSON_HDR, "{}");
    expect_resp_problem(&p, 405, NULL, "/solve/single_node");
    cr_assert(p.has_allow && strstr(p.allow, "GET"), "Allow: %s", p.allow);
    cr_assert(!strstr(p.allow, "POST"), "Allow: %s", p.allow);
    resp d = call("DELETE", "/solve", NULL, NULL);
    expect_resp_problem(&d, 405, NULL, NULL);
    cr_assert(d.has_allow && strstr(d.allow, "POST"));
    done(&g);
    done(&p);
    done(&d);
}

Test(solve_errors, unknown_route_is_404)
{
    resp r = get("/solvez");
    expect_resp_problem(&r, 404, NULL, "/solvez");
    resp s = get("/solve/single_node/extra");
    expect_resp_problem(&s, 404, NULL, NULL);
    done(&r);
    done(&s);
}

Test(solve_errors, request_id_is_echoed)
{
    static const char *const h[] = {"X-Request-ID: parity-check-42", NULL};
    resp r = call("GET", "/solve/nope", h, NULL);
    expect_resp_problem(&r, 404, NULL, NULL);
    cr_assert_str_eq(r.request_id, "parity-check-42");
    done(&r);
}
