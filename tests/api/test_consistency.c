/* test_consistency.c - the rules a client relies on across endpoints: every
 * /solve answer carries its solver's assumptions (what the model leaves out and
 * its error band, as /solvers states them); enumerated values are
 * case-insensitive everywhere and the contract says exactly that (x-enum and a
 * pattern); HEAD is declared on every GET path and answers like GET without a
 * body. */
#include <criterion/criterion.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Every solver's description states its assumptions, and its answer carries
 * exactly those of its calibration mode (leaves_out_measured, where a solver's
 * measured physics differs, in measured mode). */
Test(consistency, every_answer_states_its_solvers_assumptions)
{
    json_t *all = api_get_ok("/solvers");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(all, "solvers"), i, s) {
        const json_t *a = json_object_get(s, "assumptions");
        const char *name = json_string_value(json_object_get(s, "name"));
        const char *lo = json_string_value(json_object_get(a, "leaves_out"));
        cr_assert(lo && strlen(lo) > 40, "%s: leaves_out states what the model leaves out", name);
        /* the error band of each mode: its figures, or a basis saying why there are none */
        static const char *const MODES[] = {"mlsysim", "measured"};
        for (int m = 0; m < 2; m++) {
            const json_t *band = json_object_get(json_object_get(a, "error_band"), MODES[m]);
            cr_assert_str_eq(json_string_value(json_object_get(band, "calibration")), MODES[m], "%s", name);
            cr_assert(strlen(json_string_value(json_object_get(band, "basis"))) > 20, "%s", name);
            cr_assert(json_is_array(json_object_get(band, "bands")), "%s", name);
        }
    }
    /* each solver's answer to its example (its descriptor's example_json), by GET */
    json_array_foreach(json_object_get(all, "solvers"), i, s) {
        const char *name = json_string_value(json_object_get(s, "name"));
        json_t *inputs = example_inputs(name);
        char *query = inputs_query(inputs);
        size_t n = strlen(name) + strlen(query) + 16;
        char *path = malloc(n);
        cr_assert_not_null(path);
        snprintf(path, n, "/solve/%s?%s", name, query);
        json_t *ans = api_get_ok(path);
        /* the same leaves_out; the error band of the answer's mode, one of its solver's */
        const json_t *aa = json_object_get(ans, "assumptions"), *sa = json_object_get(s, "assumptions");
        cr_assert(json_equal(json_object_get(aa, "leaves_out"), json_object_get(sa, "leaves_out")), "%s", name);
        char *mpath = malloc(n + 24);
        cr_assert_not_null(mpath);
        snprintf(mpath, n + 24, "%s&calibration=measured", path);
        json_t *mans = api_get_ok(mpath);
        const json_t *measured_text = json_object_get(sa, "leaves_out_measured");
        cr_assert(json_equal(json_object_get(json_object_get(mans, "assumptions"), "leaves_out"),
                             measured_text ? measured_text : json_object_get(sa, "leaves_out")),
                  "%s: a measured answer states measured mode's leaves_out", name);
        if (!strcmp(name, "single_node") || !strcmp(name, "serving") || !strcmp(name, "distributed"))
            cr_assert(measured_text && strstr(json_string_value(measured_text), "Measured mode"),
                      "%s: measured mode's own physics is described", name);
        json_decref(mans);
        free(mpath);
        const json_t *band = json_object_get(aa, "error_band");
        cr_assert_str_eq(json_string_value(json_object_get(band, "calibration")), "mlsysim", "%s", name);
        const json_t *all_bands = json_object_get(json_object_get(json_object_get(sa, "error_band"), "mlsysim"), "bands");
        size_t k;
        json_t *b;
        json_array_foreach(json_object_get(band, "bands"), k, b) {
            bool listed = false;
            size_t j;
            json_t *c;
            json_array_foreach(all_bands, j, c) listed |= json_equal(b, c);
            cr_assert(listed, "%s: the answer's band is one its description lists", name);
        }
        json_decref(ans);
        free(path);
        free(query);
        json_decref(inputs);
    }
    json_decref(all);
}

Test(consistency, enumerated_values_take_any_case_everywhere)
{
    /* the same answer, whatever the case of an enum input, the edition or the format */
    json_t *lower = api_get_ok("/solve/single_node?model=ResNet50&hardware=A100&precision=fp16&catalog=tutorial");
    json_t *upper = api_get_ok("/solve/single_node?model=ResNet50&hardware=A100&precision=FP16&catalog=Tutorial");
    cr_assert(json_equal(json_object_get(lower, "result"), json_object_get(upper, "result")));
    cr_assert_str_eq(json_string_value(json_object_get(upper, "catalog")), "tutorial", "answers spell values as listed");
    json_decref(lower);
    json_decref(upper);
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), "/sweep/data?workload_data_rate=1,2&hardware=A100&format=CSV", &r), 0);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.content_type, "text/csv"), "%s", r.content_type);
    http_free(&r);
    json_t *k = api_get_ok("/catalog?kind=Hardware&group=CLOUD");
    cr_assert_gt(json_array_size(json_object_get(k, "hardware")), 0);
    json_decref(k);

    /* the contract: every enumerated schema lists x-enum and its pattern takes exactly those, any case */
    json_t *doc = api_get_ok("/openapi.json");
    json_t *p = json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), "single_node_inputs");
    json_t *prec = json_object_get(json_object_get(p, "properties"), "precision");
    cr_assert_null(json_object_get(prec, "enum"), "a case-sensitive enum would refuse what the server takes");
    regex_t re;
    cr_assert_eq(regcomp(&re, json_string_value(json_object_get(prec, "pattern")), REG_EXTENDED | REG_NOSUB), 0);
    static const char *const TAKE[] = {"fp16", "FP16", "Fp16", "int4", "TF32"}, *const REFUSE[] = {"fp", "fp166", "x"};
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(regexec(&re, TAKE[i], 0, NULL, 0), 0, "%s", TAKE[i]);
    for (size_t i = 0; i < 3; i++)
        cr_assert_neq(regexec(&re, REFUSE[i], 0, NULL, 0), 0, "%s", REFUSE[i]);
    regfree(&re);
    json_t *cat = json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), "CatalogEdition");
    cr_assert(json_object_get(cat, "x-enum") && json_object_get(cat, "pattern") && !json_object_get(cat, "enum"));
    json_decref(doc);
}

Test(consistency, head_is_declared_on_every_get_path_and_answers_like_get)
{
    json_t *doc = api_get_ok("/openapi.json");
    const char *path;
    json_t *item;
    int gets = 0;
    json_object_foreach(json_object_get(doc, "paths"), path, item) {
        if (!json_object_get(item, "get"))
            continue;
        gets++;
        json_t *head = json_object_get(item, "head");
        cr_assert(head, "HEAD %s is not declared", path);
        json_t *gr = json_object_get(json_object_get(item, "get"), "responses");
        const char *code;
        json_t *v;
        json_object_foreach(gr, code, v)
            cr_assert(json_object_get(json_object_get(head, "responses"), code), "HEAD %s lacks GET's %s", path, code);
    }
    cr_assert_geq(gets, 16);
    json_decref(doc);
    static const char *const PATHS[] = {"/catalog/hardware/A100", "/solvers/data", "/healthz", "/version",
                                        "/solve/single_node?model=ResNet50&hardware=A100", "/catalog/hardware/nope"};
    for (size_t i = 0; i < sizeof PATHS / sizeof PATHS[0]; i++) {
        http_resp g, h;
        cr_assert_eq(http_get(shared_daemon(), PATHS[i], &g), 0);
        cr_assert_eq(http_request(shared_daemon(), "HEAD", PATHS[i], NULL, NULL, 0, &h), 0);
        cr_assert_eq(h.status, g.status, "HEAD %s", PATHS[i]);
        cr_assert_eq(h.len, 0, "HEAD %s has no body", PATHS[i]);
        cr_assert_str_eq(h.content_type, g.content_type, "HEAD %s", PATHS[i]);
        http_free(&g);
        http_free(&h);
    }
}
