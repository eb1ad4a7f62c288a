/* test_calibration.c - the request envelope's "calibration" (server/front.c):
 * "mlsysim" or "measured", any case, in a body or as ?calibration=, on every
 * path that runs a solver (/solve POST and GET, /batch items, /sweep POST and
 * GET, /optimize); echoed as "calibration" next to "catalog"; anything else a
 * 400 naming the field and the values allowed. The daemon's --calibration
 * (MLSYSD_CALIBRATION) sets the default. Both modes echo the same request;
 * their numbers differ (measured mode's are checked in test_measured.c). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define SN_INPUTS "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}"
#define SN_QUERY "/solve/single_node?model=ResNet50&hardware=A100&batch_size=256&precision=fp16"

static json_t *post_to(const daemon_t *d, const char *path, const char *body, long want)
{
    http_resp r;
    cr_assert_eq(http_post_json(d, path, body, &r), 0);
    cr_assert_eq(r.status, want, "POST %s %s: %ld %s", path, body, r.status, r.body);
    json_t *j = http_json(&r);
    cr_assert(j, "%s", r.body);
    http_free(&r);
    return j;
}

static json_t *get_from(const daemon_t *d, const char *path, long want)
{
    http_resp r;
    cr_assert_eq(http_get(d, path, &r), 0);
    cr_assert_eq(r.status, want, "GET %s: %ld %s", path, r.status, r.body);
    json_t *j = http_json(&r);
    cr_assert(j, "%s", r.body);
    http_free(&r);
    return j;
}

/* The answer without what the mode changes: the same request echoed. */
static json_t *without_calibration(const json_t *answer)
{
    json_t *c = json_deep_copy(answer);
    static const char *const MODE_DEPENDENT[] = {"calibration", "result", "results", "rows", "assumptions",
                                                 "trace", "warnings", "best", "top", "transitions", NULL};
    for (int i = 0; MODE_DEPENDENT[i]; i++)
        json_object_del(c, MODE_DEPENDENT[i]);
    return c;
}

static void expect_same_request(const json_t *a, const json_t *b)
{
    json_t *x = without_calibration(a), *y = without_calibration(b);
    cr_expect(json_equal(x, y), "the two calibrations echoed the request differently");
    json_decref(x);
    json_decref(y);
}

static void expect_bad_calibration(const json_t *p, const char *field)
{
    cr_expect_str_eq(str_at(p, "field"), field);
    const char *detail = str_at(p, "detail");
    cr_expect(strstr(detail, "\"mlsysim\"") && strstr(detail, "\"measured\""), "%s", detail);
    cr_expect(strstr(str_at(p, "type"), "invalid-input"), "%s", str_at(p, "type"));
}

Test(calibration, solve_post_takes_both_values_in_any_case_and_echoes_them)
{
    const daemon_t *d = shared_daemon();
    json_t *dflt = post_to(d, "/solve", "{\"solver\":\"single_node\",\"inputs\":" SN_INPUTS "}", 200);
    json_t *sim = post_to(d, "/solve", "{\"solver\":\"single_node\",\"calibration\":\"mlsysim\",\"inputs\":" SN_INPUTS "}", 200);
    json_t *meas = post_to(d, "/solve", "{\"solver\":\"single_node\",\"calibration\":\"Measured\",\"inputs\":" SN_INPUTS "}", 200);
    cr_expect_str_eq(str_at(dflt, "calibration"), "mlsysim");
    cr_expect_str_eq(str_at(sim, "calibration"), "mlsysim");
    cr_expect_str_eq(str_at(meas, "calibration"), "measured");
    cr_expect(json_equal(dflt, sim));
    expect_same_request(sim, meas);
    json_decref(dflt);
    json_decref(sim);
    json_decref(meas);
}

Test(calibration, a_bad_value_is_a_400_naming_the_field)
{
    const daemon_t *d = shared_daemon();
    json_t *p = post_to(d, "/solve", "{\"solver\":\"single_node\",\"calibration\":\"exact\",\"inputs\":" SN_INPUTS "}", 400);
    expect_bad_calibration(p, "calibration");
    cr_expect(strstr(str_at(p, "detail"), "exact"), "%s", str_at(p, "detail"));
    json_decref(p);
    p = post_to(d, "/solve", "{\"solver\":\"single_node\",\"calibration\":1,\"inputs\":" SN_INPUTS "}", 400);
    expect_bad_calibration(p, "calibration");
    json_decref(p);
    p = get_from(d, SN_QUERY "&calibration=fitted", 400);
    expect_bad_calibration(p, "calibration");
    json_decref(p);
    p = post_to(d, "/sweep", "{\"solver\":\"single_node\",\"calibration\":\"\",\"inputs\":" SN_INPUTS
                ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1,2]}]}", 400);
    expect_bad_calibration(p, "calibration");
    json_decref(p);
    p = get_from(d, "/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,2&calibration=x", 400);
    expect_bad_calibration(p, "calibration");
    json_decref(p);
    p = post_to(d, "/optimize", "{\"solver\":\"single_node\",\"calibration\":null,\"inputs\":" SN_INPUTS
                ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1,2]}],\"objective\":{\"maximize\":\"batch_size\"}}", 400);
    expect_bad_calibration(p, "calibration");
    json_decref(p);
}

Test(calibration, the_query_form_reads_calibration_not_as_an_input)
{
    const daemon_t *d = shared_daemon();
    json_t *sim = get_from(d, SN_QUERY, 200);
    json_t *meas = get_from(d, SN_QUERY "&calibration=MEASURED", 200);
    cr_expect_str_eq(str_at(sim, "calibration"), "mlsysim");
    cr_expect_str_eq(str_at(meas, "calibration"), "measured");
    cr_expect(!json_object_get(json_object_get(meas, "inputs"), "calibration"));
    expect_same_request(sim, meas);
    json_decref(sim);
    json_decref(meas);
}

Test(calibration, batch_items_each_carry_their_own)
{
    json_t *b = post_to(shared_daemon(), "/batch",
                        "{\"items\":[{\"solver\":\"single_node\",\"inputs\":" SN_INPUTS "},"
                        "{\"solver\":\"single_node\",\"calibration\":\"measured\",\"inputs\":" SN_INPUTS "},"
                        "{\"solver\":\"single_node\",\"calibration\":\"other\",\"inputs\":" SN_INPUTS "}]}",
                        200);
    json_t *items = json_object_get(b, "items");
    cr_assert_eq(json_array_size(items), 3);
    json_t *r0 = json_object_get(json_array_get(items, 0), "response");
    json_t *r1 = json_object_get(json_array_get(items, 1), "response");
    cr_expect_str_eq(str_at(r0, "calibration"), "mlsysim");
    cr_expect_str_eq(str_at(r1, "calibration"), "measured");
    expect_same_request(r0, r1);
    json_t *bad = json_array_get(items, 2);
    cr_expect_eq(json_integer_value(json_object_get(bad, "status")), 400);
    expect_bad_calibration(json_object_get(bad, "problem"), "items[2].calibration");
    json_decref(b);
}

Test(calibration, sweeps_and_optimize_echo_it_in_their_metadata)
{
    const daemon_t *d = shared_daemon();
    static const char SWEEP[] = "{\"solver\":\"single_node\",\"calibration\":\"measured\",\"inputs\":" SN_INPUTS
                                ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1,8,64]}]}";
    json_t *meas = post_to(d, "/sweep", SWEEP, 200);
    cr_expect_str_eq(str_at(meas, "calibration"), "measured");
    json_t *sim = get_from(d, "/sweep/single_node?model=ResNet50&hardware=A100&precision=fp16&batch_size=1,8,64", 200);
    cr_expect_str_eq(str_at(sim, "calibration"), "mlsysim");
    expect_same_request(sim, meas);
    json_decref(sim);
    sim = get_from(d, "/sweep/single_node?model=ResNet50&hardware=A100&precision=fp16&batch_size=1,8,64&calibration=measured", 200);
    cr_expect_str_eq(str_at(sim, "calibration"), "measured");
    json_decref(sim);
    json_decref(meas);
    json_t *o = post_to(d, "/optimize",
                        "{\"solver\":\"single_node\",\"calibration\":\"measured\",\"inputs\":" SN_INPUTS
                        ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1,8,64]}],"
                        "\"objective\":{\"maximize\":\"batch_size\"}}",
                        200);
    cr_expect_str_eq(str_at(o, "calibration"), "measured");
    cr_expect_str_eq(str_at(json_object_get(json_object_get(o, "best"), "answer"), "calibration"), "measured");
    json_decref(o);
}

Test(calibration, the_daemon_setting_sets_the_default_and_a_request_wins)
{
    const char *const args[] = {"--calibration", "measured", NULL};
    const char *const env[] = {"MLSYSD_CALIBRATION=Measured", NULL};
    daemon_t by_flag, by_env;
    cr_assert_eq(daemon_start(&by_flag, args, NULL), 0);
    cr_assert_eq(daemon_start(&by_env, NULL, env), 0);
    const daemon_t *both[] = {&by_flag, &by_env};
    for (int i = 0; i < 2; i++) {
        json_t *j = post_to(both[i], "/solve", "{\"solver\":\"single_node\",\"inputs\":" SN_INPUTS "}", 200);
        cr_expect_str_eq(str_at(j, "calibration"), "measured");
        json_decref(j);
        j = post_to(both[i], "/solve", "{\"solver\":\"single_node\",\"calibration\":\"mlsysim\",\"inputs\":" SN_INPUTS "}", 200);
        cr_expect_str_eq(str_at(j, "calibration"), "mlsysim");
        json_decref(j);
        j = get_from(both[i], SN_QUERY, 200);
        cr_expect_str_eq(str_at(j, "calibration"), "measured");
        json_decref(j);
    }
    cr_assert_eq(daemon_stop(&by_flag), 0);
    cr_assert_eq(daemon_stop(&by_env), 0);
}

Test(calibration, a_bad_daemon_setting_stops_start_up_naming_it)
{
    char log[128];
    snprintf(log, sizeof log, "/tmp/mlsysd-test-%d-calibration.log", (int)getpid());
    const char *const args[] = {"--port", "0", "--calibration", "fitted", NULL};
    pid_t pid = spawn_mlsysd(args, NULL, log);
    cr_assert(pid > 0);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
    size_t len;
    char *text = read_file(log, &len);
    cr_expect(text && strstr(text, "--calibration") && strstr(text, "mlsysim") && strstr(text, "measured"), "%s",
              text ? text : "(no log)");
    free(text);
    unlink(log);
}
