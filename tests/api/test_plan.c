/* test_plan.c - capacity plans (issue 28) against the real daemon and binary:
 * POST /evaluate on JSON and YAML plans (a passing and a too-tight scenario,
 * whose failing assertion's actual is the /solve value; an infeasible plan;
 * sweeps at every point and at a named one; an optimize's best point; the
 * calibration a plan names); mlsysim's mlsys.yaml scored with single_node's
 * latency; invalid plans as problems naming the scenario and field; the
 * plan's JSON Schema served standalone; and `mlsysd eval`'s exit codes
 * (0 pass, 3 assertion failed, 1 invalid, 2 infeasible), its JUnit XML, and
 * every plan under examples/plans evaluating to 0. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static json_t *evaluate(const char *body, const char *content_type, long want)
{
    char ct[96];
    snprintf(ct, sizeof ct, "Content-Type: %s", content_type);
    const char *const headers[] = {ct, NULL};
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), "POST", "/evaluate", headers, body, strlen(body), &r), 0);
    cr_assert_eq(r.status, want, "POST /evaluate %ld (want %ld): %.600s\nbody: %.400s", r.status, want, r.body, body);
    json_t *j = http_json(&r);
    cr_assert(j, "not JSON: %.300s", r.body);
    http_free(&r);
    return j;
}

static const json_t *scenario(const json_t *ans, size_t i) { return json_array_get(json_object_get(ans, "scenarios"), i); }
static const json_t *assertion(const json_t *sc, size_t i) { return json_array_get(json_object_get(sc, "assertions"), i); }

#define TWO_SCENARIOS_JSON                                                                                              \
    "{\"version\": \"1\", \"name\": \"llm-service\", \"defaults\": {\"catalog\": \"current\"}, \"scenarios\": ["    \
    "{\"name\": \"decode-fits\", \"solver\": \"serving\", \"inputs\": {\"model\": \"Llama3_70B\", \"hardware\": "   \
    "\"H100\", \"seq_len\": 4096, \"batch_size\": 16, \"precision\": \"fp8\"}, \"assert\": [{\"output\": \"itl\", " \
    "\"<=\": \"50 ms\"}, {\"output\": \"feasible\", \"==\": true}]},"                                                  \
    "{\"name\": \"too-tight\", \"solver\": \"serving\", \"inputs\": {\"model\": \"Llama3_8B\", \"hardware\": "      \
    "\"H100\", \"seq_len\": 4096, \"batch_size\": 4}, \"assert\": [{\"output\": \"itl\", \"<=\": \"1 ms\"}]}]}"

static const char TWO_SCENARIOS_YAML[] = "version: \"1\"\n"
                                         "name: llm-service\n"
                                         "defaults: {catalog: current}\n"
                                         "scenarios:\n"
                                         "  - name: decode-fits\n"
                                         "    solver: serving\n"
                                         "    inputs: {model: Llama3_70B, hardware: H100, seq_len: 4096, batch_size: 16, "
                                         "precision: fp8}\n"
                                         "    assert:\n"
                                         "      - {output: itl, \"<=\": \"50 ms\"}\n"
                                         "      - {output: feasible, \"==\": true}\n"
                                         "  - name: too-tight\n"
                                         "    solver: serving\n"
                                         "    inputs: {model: Llama3_8B, hardware: H100, seq_len: 4096, batch_size: 4}\n"
                                         "    assert:\n"
                                         "      - {output: itl, \"<=\": 1 ms}\n";

static void check_two_scenarios(const json_t *ans)
{
    cr_expect_str_eq(str_at(ans, "status"), "fail");
    cr_expect_eq(json_integer_value(json_object_get(ans, "exit_code")), 3);
    cr_expect_str_eq(str_at(ans, "format"), "mlsysd");
    const json_t *ok = scenario(ans, 0), *tight = scenario(ans, 1);
    cr_expect_str_eq(str_at(ok, "status"), "pass");
    cr_expect_str_eq(str_at(tight, "status"), "fail");
    cr_expect(json_is_true(json_object_get(assertion(ok, 0), "passed")));
    cr_expect(json_is_true(json_object_get(assertion(ok, 1), "passed")));
    const json_t *bad = assertion(tight, 0);
    cr_expect(json_is_false(json_object_get(bad, "passed")));
    cr_expect_str_eq(str_at(bad, "expression"), "itl <= 1 ms");
    cr_expect_str_eq(str_at(bad, "unit"), "ms");
    cr_expect_eq(num_at(bad, "bound"), 1.0);
    /* the actual is the /solve value, and the scenario's answer is the /solve answer */
    json_t *solved = solve_ok("{\"solver\": \"serving\", \"inputs\": {\"model\": \"Llama3_8B\", \"hardware\": \"H100\", "
                              "\"seq_len\": 4096, \"batch_size\": 4}}");
    cr_expect_eq(num_at(bad, "actual"), result_num(solved, "itl"));
    cr_expect(json_equal(json_object_get(tight, "answer"), solved), "the scenario's answer differs from /solve's");
    json_decref(solved);
    const json_t *sum = json_object_get(ans, "summary");
    cr_expect_eq(json_integer_value(json_object_get(sum, "assertions")), 3);
    cr_expect_eq(json_integer_value(json_object_get(sum, "assertions_failed")), 1);
}

Test(plan_api, a_too_tight_latency_bound_fails_the_plan_with_the_solve_value)
{
    json_t *ans = evaluate(TWO_SCENARIOS_JSON, "application/json", 200);
    check_two_scenarios(ans);
    json_decref(ans);
}

Test(plan_api, yaml_plans_evaluate_as_their_json)
{
    static const char *const TYPES[] = {"application/yaml", "application/x-yaml", "text/yaml",
                                        "application/x-www-form-urlencoded"};
    json_t *from_json = evaluate(TWO_SCENARIOS_JSON, "application/json", 200);
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++) {
        json_t *ans = evaluate(TWO_SCENARIOS_YAML, TYPES[i], 200);
        check_two_scenarios(ans);
        cr_expect(json_equal(ans, from_json), "%s: the YAML plan's evaluation differs from the JSON one's", TYPES[i]);
        json_decref(ans);
    }
    json_decref(from_json);
    /* JSON is YAML too */
    json_t *ans = evaluate(TWO_SCENARIOS_JSON, "application/yaml", 200);
    check_two_scenarios(ans);
    json_decref(ans);
}

Test(plan_api, a_passing_plan_passes)
{
    json_t *ans = evaluate("version: 1\nname: ok\nscenarios:\n  - name: resnet\n    solver: single_node\n"
                           "    inputs: {model: ResNet50, hardware: A100, batch_size: 64}\n"
                           "    assert: [{output: latency, '<': 1 s}, {output: bottleneck, '!=': Memory}]\n",
                           "application/yaml", 200);
    cr_expect_str_eq(str_at(ans, "status"), "pass");
    cr_expect_eq(json_integer_value(json_object_get(ans, "exit_code")), 0);
    cr_expect_str_eq(str_at(scenario(ans, 0), "kind"), "solve");
    json_decref(ans);
}

Test(plan_api, a_scenario_that_does_not_fit_is_infeasible)
{
    json_t *ans = evaluate("{\"version\": \"1\", \"name\": \"oom\", \"scenarios\": [{\"name\": \"ok\", \"solver\": "
                           "\"single_node\", \"inputs\": {\"model\": \"ResNet50\", \"hardware\": \"A100\"}, \"assert\": "
                           "[{\"output\": \"latency\", \"<=\": \"1 us\"}]}, {\"name\": \"big\", \"solver\": "
                           "\"single_node\", \"inputs\": {\"model\": \"Llama3_70B\", \"hardware\": \"A100\"}}]}",
                           "application/json", 200);
    /* infeasible wins over an assertion failure */
    cr_expect_str_eq(str_at(ans, "status"), "infeasible");
    cr_expect_eq(json_integer_value(json_object_get(ans, "exit_code")), 2);
    cr_expect_str_eq(str_at(scenario(ans, 0), "status"), "fail");
    cr_expect_str_eq(str_at(scenario(ans, 1), "status"), "infeasible");
    cr_expect(json_is_string(json_object_get(scenario(ans, 1), "infeasible_reason")));
    json_decref(ans);
}

Test(plan_api, sweeps_hold_at_every_point_or_at_a_named_one)
{
    json_t *ans = evaluate(
        "version: '1'\nname: sweeps\ndefaults: {solver: single_node, inputs: {model: ResNet50, hardware: A100}}\n"
        "scenarios:\n"
        "  - name: every-point\n    axes: [{input: batch_size, values: [1, 8, 64, 512]}]\n"
        "    assert: [{output: latency, '<=': 10 ms}, {output: latency, '<=': 40 ms, at: {batch_size: 64}}]\n",
        "application/yaml", 200);
    const json_t *sc = scenario(ans, 0);
    cr_expect_str_eq(str_at(sc, "kind"), "sweep");
    cr_expect_str_eq(str_at(sc, "status"), "fail");
    const json_t *every = assertion(sc, 0), *at = assertion(sc, 1);
    /* batch 512 is over 10 ms: the first failing point is reported with its value */
    cr_expect(json_is_false(json_object_get(every, "passed")));
    cr_expect_eq(json_integer_value(json_object_get(every, "points_checked")), 4);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(every, "point"), "batch_size")), 512);
    json_t *solved = solve_ok("{\"solver\": \"single_node\", \"inputs\": {\"model\": \"ResNet50\", \"hardware\": "
                              "\"A100\", \"batch_size\": 512}}");
    cr_expect_eq(num_at(every, "actual"), result_num(solved, "latency"));
    json_decref(solved);
    cr_expect(json_is_true(json_object_get(at, "passed")));
    cr_expect_eq(json_integer_value(json_object_get(at, "points_checked")), 1);
    cr_expect_str_eq(str_at(at, "scope"), "point");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(sc, "answer"), "points")), 4);
    json_decref(ans);
}

Test(plan_api, an_optimize_scenario_asserts_on_its_best_point)
{
    json_t *ans = evaluate("{\"version\": \"1\", \"name\": \"opt\", \"scenarios\": [{\"name\": \"largest\", \"solver\": "
                           "\"single_node\", \"inputs\": {\"model\": \"ResNet50\", \"hardware\": \"A100\"}, \"axes\": "
                           "[{\"input\": \"batch_size\", \"range\": {\"start\": 1, \"stop\": 4096, \"step\": 1}}], "
                           "\"constraints\": [{\"output\": \"latency\", \"<=\": \"10 ms\"}], \"objective\": "
                           "{\"maximize\": \"batch_size\"}, \"assert\": [{\"output\": \"latency\", \"<=\": \"10 ms\"}, "
                           "{\"output\": \"throughput\", \">=\": 1e9}]}, {\"name\": \"nothing\", \"solver\": "
                           "\"single_node\", \"inputs\": {\"model\": \"ResNet50\", \"hardware\": \"A100\"}, \"axes\": "
                           "[{\"input\": \"batch_size\", \"values\": [1, 2]}], \"constraints\": [{\"output\": "
                           "\"latency\", \"<=\": \"1 us\"}], \"objective\": {\"maximize\": \"batch_size\"}}]}",
                           "application/json", 200);
    const json_t *sc = scenario(ans, 0);
    cr_expect_str_eq(str_at(sc, "kind"), "optimize");
    cr_expect_str_eq(str_at(sc, "status"), "fail");
    const json_t *best = json_object_get(json_object_get(sc, "answer"), "best");
    cr_assert(json_is_object(best));
    double latency = result_num(json_object_get(best, "answer"), "latency");
    cr_expect_eq(num_at(assertion(sc, 0), "actual"), latency);
    cr_expect(json_is_true(json_object_get(assertion(sc, 0), "passed")));
    cr_expect(json_is_false(json_object_get(assertion(sc, 1), "passed")));
    /* an optimize whose constraints no point meets is infeasible */
    cr_expect_str_eq(str_at(scenario(ans, 1), "status"), "infeasible");
    cr_expect_str_eq(str_at(ans, "status"), "infeasible");
    json_decref(ans);
}

Test(plan_api, a_plan_can_assert_on_measured_numbers)
{
    json_t *ans = evaluate("{\"version\": \"1\", \"name\": \"measured\", \"defaults\": {\"calibration\": "
                           "\"measured\"}, \"scenarios\": [{\"name\": \"m\", \"solver\": \"single_node\", \"inputs\": "
                           "{\"model\": \"ResNet50\", \"hardware\": \"A100\", \"batch_size\": 64}, \"assert\": "
                           "[{\"output\": \"latency\", \">\": 0}]}, {\"name\": \"f\", \"solver\": \"single_node\", "
                           "\"calibration\": \"mlsysim\", \"inputs\": {\"model\": \"ResNet50\", \"hardware\": "
                           "\"A100\", \"batch_size\": 64}}]}",
                           "application/json", 200);
    const json_t *m = json_object_get(scenario(ans, 0), "answer"), *f = json_object_get(scenario(ans, 1), "answer");
    cr_expect_str_eq(str_at(m, "calibration"), "measured");
    cr_expect_str_eq(str_at(f, "calibration"), "mlsysim");
    json_t *solved = solve_ok("{\"solver\": \"single_node\", \"calibration\": \"measured\", \"inputs\": {\"model\": "
                              "\"ResNet50\", \"hardware\": \"A100\", \"batch_size\": 64}}");
    cr_expect_eq(num_at(assertion(scenario(ans, 0), 0), "actual"), result_num(solved, "latency"));
    json_decref(solved);
    json_decref(ans);
    /* and an mlsysim plan, with mlsysd's calibration member */
    ans = evaluate("version: '1'\nname: n\ncalibration: measured\nworkload: {name: ResNet50, batch_size: 64}\n"
                   "hardware: {name: A100}\n",
                   "application/yaml", 200);
    cr_expect_str_eq(str_at(json_object_get(json_object_get(scenario(ans, 0), "answer"), "single_node"), "calibration"),
                     "measured");
    json_decref(ans);
}

Test(plan_api, mlsysim_plans_are_scored_with_single_node)
{
    json_t *ans = evaluate("version: \"1\"\nname: llama-node\nworkload:\n  name: Llama3_8B\n  batch_size: 8\n"
                           "hardware:\n  name: H100\n  precision: fp16\n  efficiency: 0.5\n"
                           "constraints:\n  assert:\n    - metric: performance.latency\n      max: 1.0\n"
                           "    - metric: feasibility.memory_utilization\n      max: 0.9\n",
                           "application/yaml", 200);
    cr_expect_str_eq(str_at(ans, "format"), "mlsysim");
    cr_expect_str_eq(str_at(ans, "status"), "fail");
    cr_expect_eq(json_integer_value(json_object_get(ans, "exit_code")), 3);
    const json_t *sc = scenario(ans, 0);
    json_t *solved = solve_ok("{\"solver\": \"single_node\", \"inputs\": {\"model\": \"Llama3_8B\", \"hardware\": "
                              "\"H100\", \"batch_size\": 8, \"precision\": \"fp16\", \"efficiency\": 0.5}}");
    double latency = result_num(solved, "latency");
    const json_t *lat = assertion(sc, 0);
    cr_expect_eq(num_at(lat, "actual"), latency);
    cr_expect(json_is_false(json_object_get(lat, "passed")));
    cr_expect(strstr(str_at(lat, "message"), "exceeds max (1)"), "%s", str_at(lat, "message"));
    cr_expect(json_is_true(json_object_get(assertion(sc, 1), "passed")));
    const json_t *levels = json_object_get(sc, "levels");
    cr_expect_eq(num_at(json_object_get(json_object_get(levels, "performance"), "metrics"), "latency"), latency);
    cr_expect_str_eq(str_at(json_object_get(levels, "macro"), "status"), "SKIPPED");
    double fp = result_num(solved, "memory_footprint");
    cr_expect(close_enough(num_at(json_object_get(json_object_get(levels, "feasibility"), "metrics"), "memory_used_gb"),
                           fp / 1e9));
    json_decref(solved);
    json_decref(ans);
    /* a bound with units; a fleet plan has no performance.latency (as mlsysim: the assertion fails) and has macro */
    ans = evaluate("version: '1'\nname: fleet\nworkload: {name: Llama3_8B, batch_size: 256}\n"
                   "hardware: {name: H100, nodes: 16, accelerators_per_node: 8}\nops: {duration_days: 30}\n"
                   "constraints: {assert: [{metric: performance.step_latency, max: 10 s}, {metric: macro.tco_usd, min: 1},"
                   " {metric: performance.latency, max: 10}]}\n",
                   "application/yaml", 200);
    sc = scenario(ans, 0);
    cr_expect_str_eq(str_at(sc, "solver"), "distributed");
    cr_expect_eq(num_at(assertion(sc, 0), "max"), 10000.0);
    cr_expect(json_is_true(json_object_get(assertion(sc, 0), "passed")));
    cr_expect(json_is_true(json_object_get(assertion(sc, 1), "passed")));
    cr_expect(json_is_false(json_object_get(assertion(sc, 2), "passed")));
    cr_expect(json_is_null(json_object_get(assertion(sc, 2), "actual")));
    cr_expect_str_eq(str_at(json_object_get(json_object_get(sc, "levels"), "macro"), "status"), "PASS");
    json_decref(ans);
    /* one that does not fit is infeasible */
    ans = evaluate("version: '1'\nname: oom\nworkload: {name: Llama3_70B}\nhardware: {name: A100}\n",
                   "application/yaml", 200);
    cr_expect_str_eq(str_at(ans, "status"), "infeasible");
    json_decref(ans);
}

static void expect_invalid(const char *body, const char *ct, long status, const char *field, const char *detail_part)
{
    char hdr[96];
    snprintf(hdr, sizeof hdr, "Content-Type: %s", ct);
    const char *const headers[] = {hdr, NULL};
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), "POST", "/evaluate", headers, body, strlen(body), &r), 0);
    expect_problem(&r, status, field, detail_part);
    http_free(&r);
}

Test(plan_api, invalid_plans_name_the_scenario_and_field)
{
    const char *y = "application/yaml";
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - name: a\n    solver: single_node\n"
                   "    inputs: {model: ResNet50, hardware: A100}\n"
                   "    assert: [{output: latency, '<=': 1 s}, {output: latncy, '<=': 3}]\n",
                   y, 400, "scenarios[0].assert[1].output", "must name an output of solver single_node");
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - name: a\n    solver: single_node\n"
                   "    inputs: {model: ResNet50, hardware: A100}\n    assert: [{output: latency, '<=': 5 GB}]\n",
                   y, 400, "scenarios[0].assert[0].<=", "the bound on 'latency'");
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - {name: a, solver: single_node, inputs: {model: ResNet50, "
                   "hardware: A100}}\n  - {name: b, solver: nosuch}\n",
                   y, 404, "scenarios[1].solver", "unknown solver 'nosuch'");
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - {name: a, solver: single_node, inputs: {model: ResNet50, "
                   "hardware: A100, batch_sise: 2}}\n",
                   y, 400, "scenarios[0].inputs.batch_sise", NULL);
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - {name: a, solver: single_node, inputs: {model: ResNet50, "
                   "hardware: NoSuchGPU}}\n",
                   y, 404, "scenarios[0].inputs.hardware", NULL);
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - {solver: single_node}\n", y, 400, "scenarios[0].name",
                   NULL);
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - {name: a, solver: single_node}\n  - {name: a, solver: "
                   "single_node}\n",
                   y, 400, "scenarios[1].name", "used twice");
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - {name: a, solver: single_node, asert: []}\n", y, 400,
                   "scenarios[0].asert", "unknown field");
    expect_invalid("version: '2'\nname: p\nscenarios: []\n", y, 400, "version", NULL);
    expect_invalid("name: p\nscenarios: []\n", y, 400, "version", NULL);
    expect_invalid("version: '1'\nname: p\n", y, 400, "scenarios", NULL);
    expect_invalid("version: '1'\nname: p\ndefaults: {calibration: nope}\nscenarios: [{name: a, solver: single_node}]\n",
                   y, 400, "defaults.calibration", NULL);
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - name: a\n    solver: single_node\n"
                   "    inputs: {model: ResNet50, hardware: A100}\n    axes: [{input: batch_size, values: [1, 2]}]\n"
                   "    assert: [{output: latency, '<=': 1 s, at: {batch_size: 3}}]\n",
                   y, 400, "scenarios[0].assert[0].at", "no point");
    expect_invalid("version: '1'\nname: p\nscenarios:\n  - name: a\n    solver: single_node\n"
                   "    inputs: {model: ResNet50, hardware: A100}\n    axes: [{input: batch_size, values: [1, 2]}]\n"
                   "    objective: {maximize: nothing}\n",
                   y, 400, "scenarios[0].objective.maximize", NULL);
    /* mlsysim's form */
    expect_invalid("version: '1'\nname: m\nworkload: {name: ResNet50}\nhardware: {name: A100}\n"
                   "constraints: {assert: [{metric: performance.latency, max: 1}, {metric: performance.latency, max: 2},"
                   " {metric: performance.latancy, max: 1}]}\n",
                   y, 400, "constraints.assert[2].metric", "performance.latency");
    expect_invalid("version: '1'\nname: m\nworkload: {name: NoSuchModel}\nhardware: {name: A100}\n", y, 404,
                   "workload.name", NULL);
    expect_invalid("version: '1'\nname: m\nworkload: {name: ResNet50, batch_size: 0}\nhardware: {name: A100}\n", y, 400,
                   "workload.batch_size", NULL);
    expect_invalid("version: '1'\nname: m\nworkload: {name: ResNet50}\nhardware: {name: A100, nodes: 12, "
                   "accelerators_per_node: 8}\n",
                   y, 400, "hardware.nodes", "divisible");
    expect_invalid("version: '1'\nname: m\nworkload: {name: ResNet50}\nhardware: {name: A100, gpus: 2}\n", y, 400,
                   "hardware.gpus", "unknown field");
    /* not a plan at all */
    expect_invalid("version: [1\n", y, 400, NULL, "not valid YAML");
    expect_invalid("{\"version\": ", "application/json", 400, NULL, "not valid JSON");
    expect_invalid("[1, 2]", "application/json", 400, NULL, "a plan is an object");
    expect_invalid("version: '1'", "image/png", 415, NULL, NULL);
}

static json_t *get_schema(void)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), "/schemas/plan.json", &r), 0);
    cr_assert_eq(r.status, 200);
    cr_expect_str_eq(r.content_type, "application/schema+json");
    json_t *s = http_json(&r);
    cr_assert(s);
    http_free(&r);
    return s;
}

Test(plan_api, the_plan_schema_is_served_standalone)
{
    json_t *s = get_schema();
    cr_expect(json_is_array(json_object_get(s, "oneOf")));
    cr_expect_str_eq(str_at(s, "$schema"), "https://json-schema.org/draft/2020-12/schema");
    char *text = json_dumps(s, 0);
    cr_expect(!strstr(text, "\"$ref\""), "the schema still has references");
    free(text);
    json_decref(s);
}

/* ---- mlsysd eval ------------------------------------------------------------------------------------------------ */

/* Run build/mlsysd with args; stdout into *out (malloc'd); the exit code. */
static int run_eval(const char *const *args, char **out)
{
    char outp[] = "/tmp/mlsysd-eval-out-XXXXXX";
    int fo = mkstemp(outp);
    cr_assert(fo >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(fo, 1);
        dup2(devnull, 2);
        const char *argv[16] = {MLSYSD_BINARY};
        for (int i = 0; args[i] && i < 14; i++)
            argv[i + 1] = args[i];
        execv(MLSYSD_BINARY, (char *const *)argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    close(fo);
    size_t n;
    *out = read_file(outp, &n);
    unlink(outp);
    cr_assert(*out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

Test(plan_cli, eval_exits_0_3_1_and_2, .timeout = 60)
{
    char dir[] = "/tmp/mlsysd-plans-XXXXXX";
    cr_assert(mkdtemp(dir));
    char pass[128], fail[128], unknown[128], oom[128], json[128], junit[160];
    snprintf(pass, sizeof pass, "%s/pass.yaml", dir);
    snprintf(fail, sizeof fail, "%s/fail.yaml", dir);
    snprintf(unknown, sizeof unknown, "%s/unknown.yaml", dir);
    snprintf(oom, sizeof oom, "%s/oom.yaml", dir);
    snprintf(json, sizeof json, "%s/fail.json", dir);
    snprintf(junit, sizeof junit, "%s/junit.xml", dir);
    write_text(pass, "version: '1'\nname: pass\nscenarios:\n  - name: a\n    solver: single_node\n"
                     "    inputs: {model: ResNet50, hardware: A100}\n    assert: [{output: latency, '<=': 1 s}]\n");
    write_text(fail, TWO_SCENARIOS_YAML);
    write_text(json, TWO_SCENARIOS_JSON);
    write_text(unknown, "version: '1'\nname: u\nscenarios:\n  - {name: a, solver: no_such_solver}\n");
    write_text(oom, "version: '1'\nname: oom\nscenarios:\n  - name: big\n    solver: single_node\n"
                    "    inputs: {model: Llama3_70B, hardware: A100}\n");
    char *out;
    cr_expect_eq(run_eval((const char *const[]){"eval", pass, NULL}, &out), 0, "%s", out);
    cr_expect(strstr(out, "PASS"), "%s", out);
    free(out);
    cr_expect_eq(run_eval((const char *const[]){"eval", fail, "--junit", junit, NULL}, &out), 3, "%s", out);
    cr_expect(strstr(out, "itl <= 1 ms"), "%s", out);
    free(out);
    char *xml = read_file(junit, &(size_t){0});
    cr_assert(xml);
    cr_expect(!strncmp(xml, "<?xml", 5));
    cr_expect_eq(count(xml, "<testcase "), 3, "%s", xml);
    cr_expect_eq(count(xml, "<failure "), 1, "%s", xml);
    cr_expect(strstr(xml, "tests=\"3\" failures=\"1\""), "%s", xml);
    cr_expect(strstr(xml, "expected itl &lt;= 1 ms"), "%s", xml);
    free(xml);
    /* parseable by an XML parser, where python3 is there to say so */
    if (system("python3 -c '' 2>/dev/null") == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
                 "sys.exit(0 if len(r.findall(\".//failure\")) == 1 and len(r.findall(\".//testcase\")) == 3 "
                 "else 1)' %s",
                 junit);
        cr_expect_eq(system(cmd), 0, "the JUnit XML does not parse, or has not 3 cases and 1 failure");
    }
    cr_expect_eq(run_eval((const char *const[]){"eval", unknown, NULL}, &out), 1);
    free(out);
    cr_expect_eq(run_eval((const char *const[]){"eval", oom, NULL}, &out), 2);
    free(out);
    /* --format json is the service's answer */
    cr_expect_eq(run_eval((const char *const[]){"eval", json, "--format", "json", NULL}, &out), 3);
    json_t *ans = json_loads(out, 0, NULL);
    cr_assert(ans, "%s", out);
    check_two_scenarios(ans);
    json_decref(ans);
    free(out);
    /* usage errors and a missing file are 1 too */
    cr_expect_eq(run_eval((const char *const[]){"eval", NULL}, &out), 1);
    free(out);
    cr_expect_eq(run_eval((const char *const[]){"eval", "/nonexistent/plan.yaml", NULL}, &out), 1);
    free(out);
    cr_expect_eq(run_eval((const char *const[]){"eval", pass, "--format", "xml", NULL}, &out), 1);
    free(out);
    /* mlsysd schema prints what the daemon serves */
    cr_expect_eq(run_eval((const char *const[]){"schema", NULL}, &out), 0);
    json_t *printed = json_loads(out, 0, NULL), *served = get_schema();
    cr_expect(printed && json_equal(printed, served), "mlsysd schema differs from GET /schemas/plan.json");
    json_decref(printed);
    json_decref(served);
    free(out);
    const char *files[] = {pass, fail, unknown, oom, json, junit};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(files[i]);
    rmdir(dir);
}

Test(plan_cli, every_example_plan_holds, .timeout = 120)
{
    static const char *const EXAMPLES[] = {"starving-the-gpu.yaml", "llm-service.yaml", "training-cluster.yaml",
                                           "mlsys.yaml"};
    for (size_t i = 0; i < sizeof EXAMPLES / sizeof EXAMPLES[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/examples/plans/%s", MLSYSD_SOURCE_DIR, EXAMPLES[i]);
        char *out;
        cr_expect_eq(run_eval((const char *const[]){"eval", path, NULL}, &out), 0, "%s:\n%s", EXAMPLES[i], out);
        free(out);
    }
}
