/* test_catalog_api.c - GET /catalog, /catalog/{kind} and /catalog/{kind}/{id}
 * for every kind (hardware, models, nodes, fabrics, clusters, grids, ...) in
 * both editions.
 *
 * Hand-written values come from reference/catalog.md (A100: 312 TFLOP/s,
 * 80 GiB, 2039 GB/s, 400 W; ResNet-50: 25.6 M parameters, 8.2 GFLOP) and
 * reference/edition_tutorial.json (ResNet-50 4.1 GFLOP, A100 130 kg embodied
 * carbon, H100 25,000 USD). Where ../shared is present every quantity of
 * every entry is also compared with reference/catalog.json (and, for the
 * tutorial edition, with that file plus the overlay). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* 45 hardware nodes and 33 models: the sizes of reference/catalog.json's lists. */
#define N_HARDWARE 45
#define N_MODELS 33

static const json_t *at_path(const json_t *o, const char *dotted)
{
    char buf[200];
    snprintf(buf, sizeof buf, "%s", dotted);
    const json_t *cur = o;
    for (char *save = NULL, *part = strtok_r(buf, ".", &save); part && cur; part = strtok_r(NULL, ".", &save))
        cur = json_object_get(cur, part);
    return cur;
}

static double si_at(const json_t *o, const char *dotted)
{
    const json_t *q = at_path(o, dotted);
    cr_assert(json_is_object(q), "%s is not a quantity", dotted);
    cr_assert(json_is_number(json_object_get(q, "si")), "%s has no si", dotted);
    return json_number_value(json_object_get(q, "si"));
}

static const char *version_of(const char *edition)
{
    static char buf[2][64];
    json_t *v = api_get_ok("/version");
    size_t i;
    json_t *e;
    const char *found = NULL;
    json_array_foreach(json_object_get(v, "catalog_editions"), i, e)
        if (!strcmp(str_at(e, "name"), edition))
            found = str_at(e, "version");
    cr_assert_not_null(found, "/version lists no edition %s", edition);
    char *out = buf[!strcmp(edition, "tutorial")];
    snprintf(out, 64, "%s", found);
    json_decref(v);
    return out;
}

/* ---- lists ---------------------------------------------------------------------------------- */

static void check_list(const json_t *list, size_t want, const char *what)
{
    cr_assert(json_is_array(list), "%s is not a list", what);
    cr_assert_eq(json_array_size(list), want, "%s: %zu entries, want %zu", what, json_array_size(list), want);
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)list, i, e) {
        static const char *const keys[] = {"key", "id", "name", "group"};
        for (size_t k = 0; k < 4; k++)
            cr_assert(json_string_length(json_object_get(e, keys[k])) > 0, "%s[%zu] lacks %s", what, i, keys[k]);
        for (size_t j = 0; j < i; j++)
            cr_assert(strcasecmp(str_at(e, "key"), str_at(json_array_get(list, j), "key")), "%s: key %s twice", what,
                      str_at(e, "key"));
    }
}

Test(catalog_api, whole_catalog_in_both_editions)
{
    static const char *const editions[] = {NULL, "current", "tutorial"};
    for (size_t i = 0; i < 3; i++) {
        char path[80];
        snprintf(path, sizeof path, "/catalog%s%s", editions[i] ? "?catalog=" : "", editions[i] ? editions[i] : "");
        json_t *c = api_get_ok(path);
        const char *ed = editions[i] ? editions[i] : "current";
        cr_assert_str_eq(str_at(c, "catalog"), ed, "%s", path);
        cr_assert_str_eq(str_at(c, "catalog_version"), version_of(ed), "%s", path);
        check_list(json_object_get(c, "hardware"), N_HARDWARE, "hardware");
        check_list(json_object_get(c, "models"), N_MODELS, "models");
        json_decref(c);
    }
}

Test(catalog_api, list_key_numbers)
{
    json_t *c = api_get_ok("/catalog");
    const json_t *a100 = NULL, *r50 = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(c, "hardware"), i, e)
        if (!strcmp(str_at(e, "key"), "A100"))
            a100 = e;
    json_array_foreach(json_object_get(c, "models"), i, e)
        if (!strcmp(str_at(e, "key"), "ResNet50"))
            r50 = e;
    cr_assert(a100 && r50);
    cr_assert_str_eq(str_at(a100, "id"), "Hardware.Cloud.A100");
    cr_assert_str_eq(str_at(a100, "group"), "Cloud");
    cr_assert(close_enough(json_number_value(json_object_get(a100, "peak_flops")), 312e12));
    cr_assert(close_enough(json_number_value(json_object_get(a100, "memory_capacity")), 80.0 * 1024 * 1024 * 1024));
    cr_assert(close_enough(json_number_value(json_object_get(a100, "memory_bandwidth")), 2039e9));
    cr_assert_str_eq(str_at(r50, "id"), "Models.Vision.ResNet50");
    cr_assert(close_enough(json_number_value(json_object_get(r50, "inference_flops")), 8.2e9));
    cr_assert(close_enough(json_number_value(json_object_get(r50, "parameters")), 25.6e6));
    json_decref(c);
}

static size_t count_group(const json_t *list, const char *group)
{
    size_t n = 0, i;
    json_t *e;
    json_array_foreach((json_t *)list, i, e)
        n += !strcmp(str_at(e, "group"), group);
    return n;
}

Test(catalog_api, group_and_kind_filters)
{
    json_t *all = api_get_ok("/catalog");
    /* catalog.json: 26 Cloud nodes, 9 Vision models */
    size_t cloud = count_group(json_object_get(all, "hardware"), "Cloud");
    size_t vision = count_group(json_object_get(all, "models"), "Vision");
    cr_assert_eq(cloud, 26);
    cr_assert_eq(vision, 9);

    static const char *const cloud_paths[] = {"/catalog?group=Cloud", "/catalog?group=cloud",
                                              "/catalog/hardware?group=Cloud"};
    for (size_t i = 0; i < 3; i++) {
        json_t *c = api_get_ok(cloud_paths[i]);
        const json_t *hw = json_object_get(c, "hardware");
        cr_assert_eq(json_array_size(hw), cloud, "%s", cloud_paths[i]);
        cr_assert_eq(count_group(hw, "Cloud"), cloud, "%s: only Cloud nodes", cloud_paths[i]);
        cr_assert_eq(json_array_size(json_object_get(c, "models")), 0, "%s: no model is in group Cloud",
                     cloud_paths[i]);
        json_decref(c);
    }
    json_t *v = api_get_ok("/catalog?group=Vision&catalog=tutorial");
    cr_assert_eq(json_array_size(json_object_get(v, "models")), vision);
    cr_assert_eq(json_array_size(json_object_get(v, "hardware")), 0);
    cr_assert_str_eq(str_at(v, "catalog"), "tutorial");
    json_decref(v);

    json_t *m = api_get_ok("/catalog?kind=models");
    cr_assert_null(json_object_get(m, "hardware"));
    check_list(json_object_get(m, "models"), N_MODELS, "kind=models");
    json_decref(m);
    json_t *h = api_get_ok("/catalog?kind=hardware&group=Cloud");
    cr_assert_null(json_object_get(h, "models"));
    cr_assert_eq(json_array_size(json_object_get(h, "hardware")), cloud);
    json_decref(h);

    json_t *bad = api_get_problem("/catalog?kind=gpus", 400);
    cr_assert_str_eq(str_at(bad, "field"), "kind");
    json_decref(bad);
    json_t *unknown = api_get_problem("/catalog?grup=Cloud", 400);
    cr_assert(strstr(str_at(unknown, "detail"), "grup"), "%s", str_at(unknown, "detail"));
    json_decref(unknown);
    json_decref(all);
}

Test(catalog_api, hardware_and_model_lists)
{
    json_t *h = api_get_ok("/catalog/hardware");
    check_list(json_object_get(h, "hardware"), N_HARDWARE, "/catalog/hardware");
    cr_assert_null(json_object_get(h, "models"));
    json_decref(h);
    json_t *m = api_get_ok("/catalog/models?catalog=tutorial");
    check_list(json_object_get(m, "models"), N_MODELS, "/catalog/models");
    cr_assert_null(json_object_get(m, "hardware"));
    cr_assert_str_eq(str_at(m, "catalog"), "tutorial");
    json_decref(m);
}

/* ---- one entry -------------------------------------------------------------------------------- */

/* Every quantity anywhere in the entry carries value, unit, si and si_unit. */
static int check_quantities(const json_t *j, const char *path)
{
    int n = 0;
    if (json_is_object(j)) {
        if (json_object_get(j, "si")) {
            cr_assert(json_object_get(j, "value"), "%s: si without value", path);
            cr_assert(json_is_string(json_object_get(j, "unit")), "%s: si without unit", path);
            cr_assert(json_is_string(json_object_get(j, "si_unit")), "%s: si without si_unit", path);
            cr_assert(json_is_number(json_object_get(j, "si")), "%s: si is not a number", path);
            return 1;
        }
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) {
            char sub[300];
            snprintf(sub, sizeof sub, "%s.%s", path, k);
            n += check_quantities(v, sub);
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach((json_t *)j, i, v) {
            char sub[300];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            n += check_quantities(v, sub);
        }
    }
    return n;
}

Test(catalog_api, a100_every_field)
{
    json_t *a = api_get_ok("/catalog/hardware/A100");
    cr_assert_str_eq(str_at(a, "key"), "A100");
    cr_assert_str_eq(str_at(a, "id"), "Hardware.Cloud.A100");
    cr_assert_str_eq(str_at(a, "name"), "NVIDIA A100");
    cr_assert_str_eq(str_at(a, "group"), "Cloud");
    cr_assert_str_eq(str_at(a, "catalog"), "current");
    cr_assert_str_eq(str_at(a, "catalog_version"), version_of("current"));
    int n = check_quantities(a, "A100");
    cr_assert_geq(n, 10, "only %d quantities in the A100 entry", n);

    const json_t *peak = at_path(a, "compute.peak_flops");
    cr_assert_eq(json_number_value(json_object_get(peak, "value")), 312);
    cr_assert_str_eq(str_at(peak, "si_unit"), "flop/s");
    cr_assert(close_enough(si_at(a, "compute.peak_flops"), 312e12));
    cr_assert(close_enough(si_at(a, "compute.precision_flops.fp32"), 19.5e12));
    const json_t *cap = at_path(a, "memory.capacity");
    cr_assert_eq(json_number_value(json_object_get(cap, "value")), 80);
    cr_assert_str_eq(str_at(cap, "unit"), "GiB");
    cr_assert_eq(si_at(a, "memory.capacity"), 85899345920.0); /* 80 x 2^30 */
    cr_assert(close_enough(si_at(a, "memory.bandwidth"), 2039e9));
    cr_assert(close_enough(si_at(a, "interconnect.bandwidth"), 32e9)); /* PCIe Gen4 x16 */
    cr_assert(close_enough(si_at(a, "tdp"), 400));
    cr_assert(close_enough(si_at(a, "dispatch_tax"), 0.015e-3));

    const json_t *prov = json_object_get(a, "provenance");
    cr_assert(json_is_object(prov), "the entry states where its numbers come from");
    cr_assert(json_string_length(json_object_get(prov, "kind")) > 0);
    cr_assert(json_string_length(json_object_get(prov, "ref")) > 0);
    json_decref(a);
}

Test(catalog_api, resnet50_in_both_editions)
{
    json_t *cur = api_get_ok("/catalog/models/ResNet50");
    json_t *tut = api_get_ok("/catalog/models/ResNet50?catalog=tutorial");
    cr_assert_str_eq(str_at(cur, "catalog"), "current");
    cr_assert_str_eq(str_at(tut, "catalog"), "tutorial");
    cr_assert_str_eq(str_at(tut, "catalog_version"), version_of("tutorial"));
    /* 1 MAC = 2 FLOP upstream now (8.2e9); the tutorials were rendered with 4.1e9 */
    cr_assert_eq(si_at(cur, "inference_flops"), 8.2e9);
    cr_assert_eq(si_at(tut, "inference_flops"), 4.1e9);
    cr_assert_str_eq(str_at(json_object_get(cur, "inference_flops"), "si_unit"), "flop");
    cr_assert_eq(si_at(cur, "parameters"), 25.6e6);
    cr_assert_eq(si_at(tut, "parameters"), 25.6e6);
    cr_assert_eq(json_integer_value(json_object_get(cur, "layers")), 50);
    cr_assert(json_is_object(json_object_get(cur, "provenance")));
    check_quantities(cur, "ResNet50");
    check_quantities(tut, "ResNet50");
    json_decref(cur);
    json_decref(tut);

    /* hardware overlays too (edition_tutorial.json) */
    json_t *a = api_get_ok("/catalog/hardware/A100?catalog=tutorial");
    json_t *b = api_get_ok("/catalog/hardware/A100");
    cr_assert_eq(json_number_value(json_object_get(a, "embodied_carbon_kg")), 130);
    cr_assert_eq(json_number_value(json_object_get(b, "embodied_carbon_kg")), 150);
    json_decref(a);
    json_decref(b);
    json_t *h = api_get_ok("/catalog/hardware/H100?catalog=tutorial");
    cr_assert_eq(si_at(h, "unit_cost"), 25000);
    json_decref(h);
}

Test(catalog_api, ids_are_case_insensitive_keys_or_paths)
{
    json_t *a = api_get_ok("/catalog/hardware/A100");
    static const char *const hw[] = {"/catalog/hardware/a100", "/catalog/hardware/Hardware.Cloud.A100",
                                     "/catalog/hardware/hardware.cloud.a100"};
    for (size_t i = 0; i < 3; i++) {
        json_t *b = api_get_ok(hw[i]);
        cr_assert(json_equal(a, b), "%s differs from /catalog/hardware/A100", hw[i]);
        json_decref(b);
    }
    json_decref(a);
    json_t *m = api_get_ok("/catalog/models/ResNet50");
    static const char *const models[] = {"/catalog/models/resnet50", "/catalog/models/Models.Vision.ResNet50",
                                         "/catalog/models/MODELS.VISION.RESNET50"};
    for (size_t i = 0; i < 3; i++) {
        json_t *b = api_get_ok(models[i]);
        cr_assert(json_equal(m, b), "%s differs from /catalog/models/ResNet50", models[i]);
        json_decref(b);
    }
    json_decref(m);
}

Test(catalog_api, unknown_ids_are_404_with_suggestions)
{
    json_t *p = api_get_problem("/catalog/hardware/A10", 404);
    cr_assert(strstr(str_at(p, "detail"), "A100"), "%s", str_at(p, "detail"));
    json_decref(p);
    p = api_get_problem("/catalog/models/ResNet51?catalog=tutorial", 404);
    cr_assert(strstr(str_at(p, "detail"), "ResNet50"), "%s", str_at(p, "detail"));
    cr_assert(strstr(str_at(p, "detail"), "tutorial"), "names the edition: %s", str_at(p, "detail"));
    json_decref(p);
    /* a model is not a hardware node */
    p = api_get_problem("/catalog/hardware/ResNet50", 404);
    json_decref(p);
    p = api_get_problem("/catalog/hardware/A100?catalog=1999", 400);
    cr_assert_str_eq(str_at(p, "field"), "catalog");
    json_decref(p);
}

/* ---- parity with reference/catalog.json ------------------------------------------------------ */

typedef struct {
    int compared;
    int failed;
    char first[1200];
    size_t used;
} diff;

static void diff_fail(diff *d, const char *entry, const char *path, const char *what)
{
    d->failed++;
    if (d->failed <= 5 && d->used < sizeof d->first)
        d->used += (size_t)snprintf(d->first + d->used, sizeof d->first - d->used, "  %s %s: %s\n", entry, path, what);
}

/* overlay: the entry's tutorial overrides ({"memory.capacity": {...si...} | number | null}) or NULL. */
static void compare_tree(diff *d, const char *entry, const json_t *ref, const json_t *got, const char *path,
                         const json_t *overlay)
{
    if (overlay && path[0] && json_object_get(overlay, path))
        return; /* checked from the overlay */
    if (overlay && !strcmp(path, "ridge_point_flop_per_byte"))
        return; /* derived from overlaid numbers: checked by check_ridge */
    if (json_is_object(ref) && json_object_get(ref, "si") && json_object_get(ref, "unit")) {
        d->compared++;
        const json_t *gsi = json_object_get(got, "si");
        if (!json_is_object(got) || !json_is_number(gsi))
            diff_fail(d, entry, path, "missing");
        else if (!close_enough(json_number_value(gsi), json_number_value(json_object_get(ref, "si"))))
            diff_fail(d, entry, path, "si differs");
        else if (!json_equal(json_object_get(ref, "unit"), json_object_get(got, "unit")))
            diff_fail(d, entry, path, "unit differs");
        return;
    }
    if (json_is_object(ref)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)ref, k, v) {
            /* derived tables the service does not serve per entry */
            if (!path[0] && (!strcmp(k, "variants") || !strcmp(k, "lowered")))
                continue;
            char sub[300];
            snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", k);
            compare_tree(d, entry, v, json_object_get(got, k), sub, overlay);
        }
    } else if (json_is_array(ref)) {
        size_t i;
        json_t *v;
        json_array_foreach((json_t *)ref, i, v) {
            char sub[300];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            compare_tree(d, entry, v, json_array_get(got, i), sub, NULL);
        }
    } else if (json_is_number(ref) && path[0]) {
        d->compared++;
        if (!json_is_number(got) || !close_enough(json_number_value(got), json_number_value(ref)))
            diff_fail(d, entry, path, "number differs");
    } else if (json_is_string(ref) && strcmp(path, "key") && strcmp(path, "kind")) {
        d->compared++;
        if (!json_equal((json_t *)ref, (json_t *)got))
            diff_fail(d, entry, path, "differs");
    }
}

static void compare_overlay(diff *d, const char *entry, const json_t *overlay, const json_t *got)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)overlay, k, v) {
        const json_t *g = at_path(got, k);
        d->compared++;
        if (json_is_null(v)) {
            if (g && !json_is_null(g))
                diff_fail(d, entry, k, "the tutorial edition removes it");
        } else if (json_is_number(v)) {
            if (!json_is_number(g) || !close_enough(json_number_value(g), json_number_value(v)))
                diff_fail(d, entry, k, "tutorial value differs");
        } else if (!json_is_object(g) || !close_enough(json_number_value(json_object_get(g, "si")),
                                                       json_number_value(json_object_get(v, "si")))) {
            diff_fail(d, entry, k, "tutorial si differs");
        }
    }
}

/* The ridge point is peak / bandwidth of the same edition's entry. */
static void check_ridge(diff *d, const char *entry, const json_t *got)
{
    const json_t *ridge = json_object_get(got, "ridge_point_flop_per_byte");
    if (!json_is_number(ridge))
        return;
    d->compared++;
    double peak = json_number_value(json_object_get(at_path(got, "compute.peak_flops"), "si"));
    double bw = json_number_value(json_object_get(at_path(got, "memory.bandwidth"), "si"));
    if (!close_enough(json_number_value(ridge), peak / bw))
        diff_fail(d, entry, "ridge_point_flop_per_byte", "is not peak_flops / memory.bandwidth");
}

static json_t *load_ref(const char *name)
{
    const char *dir = shared_dir();
    if (!dir)
        cr_skip_test("../shared is absent (a user's checkout): no reference catalog to compare with");
    char path[700];
    snprintf(path, sizeof path, "%s/reference/%s", dir, name);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s: %s", path, e.text);
    return j;
}

/* Every kind of the catalog, where its entries are in reference/catalog.json
 * (a section; the reference kinds taken from it, NULL: all; whether the key
 * is "<namespace>.<key>"), where the tutorial overlay keeps its changes,
 * and how many entries it has. */
typedef struct {
    const char *kind, *section, *ref_kinds;
    bool ns_key;
    const char *overlay;
    size_t n;
} kind_map;

static const kind_map KINDS[] = {
    {"hardware", "hardware", NULL, false, "hardware", N_HARDWARE},
    {"models", "models", NULL, false, "models", N_MODELS},
    {"grids", "infrastructure", "grid", false, NULL, 12},
    {"cooling", "infrastructure", "cooling", false, NULL, 6},
    {"datacenters", "infrastructure", "datacenter", false, NULL, 7},
    {"racks", "infrastructure", "rack", false, NULL, 3},
    {"nodes", "systems", "node", false, "systems.nodes", 3},
    {"fabrics", "systems", "fabric", false, NULL, 10},
    {"clusters", "systems", "cluster", false, NULL, 7},
    {"datasets", "datasets", NULL, false, NULL, 8},
    {"reliability", "systems", "reliability_component reliability_scalar recovery_profile", false, NULL, 12},
    {"prices", "infrastructure", "price", true, NULL, 25},
    {"network", "systems", "switch_fabric_scalar network_energy_scalar", false, NULL, 11},
    {"pods", "systems", "pod", false, NULL, 1},
    {"infrastructure", "infrastructure", "capacity scalar", false, NULL, 4},
};
#define N_KINDS (sizeof KINDS / sizeof *KINDS)

static bool kind_takes(const kind_map *k, const json_t *e)
{
    if (!k->ref_kinds)
        return true;
    char want[64], list[128];
    snprintf(want, sizeof want, " %s ", str_at(e, "kind"));
    snprintf(list, sizeof list, " %s ", k->ref_kinds);
    return strstr(list, want) != NULL;
}

static void kind_key(const kind_map *k, const json_t *e, char *out, size_t n)
{
    if (k->ns_key)
        snprintf(out, n, "%s.%s", str_at(e, "namespace"), str_at(e, "key"));
    else
        snprintf(out, n, "%s", str_at(e, "key"));
}

/* Every entry of every kind through /catalog/{kind}/{key} (and by its
 * mlsysim path), compared with the reference, in one edition. */
static void compare_edition(const char *edition)
{
    json_t *ref = load_ref("catalog.json");
    json_t *overlay = !strcmp(edition, "tutorial") ? load_ref("edition_tutorial.json") : NULL;
    diff d = {0};
    size_t entries = 0;
    for (size_t k = 0; k < N_KINDS; k++) {
        const kind_map *km = &KINDS[k];
        size_t i, n = 0;
        json_t *e;
        json_array_foreach(json_object_get(ref, km->section), i, e) {
            if (!kind_takes(km, e))
                continue;
            n++;
            char key[128], path[300], entry[200];
            kind_key(km, e, key, sizeof key);
            snprintf(entry, sizeof entry, "%s/%s", km->kind, key);
            snprintf(path, sizeof path, "/catalog/%s/%s?catalog=%s", km->kind, key, edition);
            json_t *got = api_get_ok(path);
            cr_assert_str_eq(str_at(got, "catalog"), edition);
            if (strcmp(str_at(got, "key"), key))
                diff_fail(&d, entry, "key", "differs");
            const json_t *ov = overlay && km->overlay ? json_object_get(at_path(overlay, km->overlay), key) : NULL;
            compare_tree(&d, entry, e, got, "", ov);
            if (ov)
                compare_overlay(&d, entry, ov, got);
            if (k == 0)
                check_ridge(&d, entry, got);
            const json_t *prov = json_object_get(e, "provenance");
            if (prov ? !json_equal(prov, json_object_get(got, "provenance")) : json_object_get(got, "provenance") != NULL)
                diff_fail(&d, entry, "provenance", "differs");
            if (!json_object_get(got, "source"))
                diff_fail(&d, entry, "source", "missing");
            /* the same entry by its mlsysim path */
            snprintf(path, sizeof path, "/catalog/%s/%s?catalog=%s", km->kind, str_at(e, "id"), edition);
            json_t *by_id = api_get_ok(path);
            if (!json_equal(by_id, got))
                diff_fail(&d, entry, "id", "by path differs from by key");
            json_decref(by_id);
            json_decref(got);
        }
        cr_assert_eq(n, km->n, "%s: the reference has %zu", km->kind, n);
        entries += n;
    }
    cr_assert_eq(entries, 187);
    /* well over one number per field of 187 entries */
    cr_assert_gt(d.compared, 1500, "only %d values compared", d.compared);
    cr_assert_eq(d.failed, 0, "%s edition: %d of %d values differ from the reference; first:\n%s", edition, d.failed,
                 d.compared, d.first);
    json_decref(overlay);
    json_decref(ref);
}

Test(catalog_api, every_entry_matches_reference_current) { compare_edition("current"); }
Test(catalog_api, every_entry_matches_reference_tutorial) { compare_edition("tutorial"); }

/* ---- every kind: lists, filters, errors ------------------------------------------------------- */

Test(catalog_api, every_kind_lists)
{
    json_t *all = api_get_ok("/catalog?catalog=tutorial");
    for (size_t k = 0; k < N_KINDS; k++) {
        char path[120];
        snprintf(path, sizeof path, "/catalog/%s?catalog=tutorial", KINDS[k].kind);
        json_t *one = api_get_ok(path);
        const json_t *list = json_object_get(one, KINDS[k].kind);
        cr_assert_eq(json_array_size(list), KINDS[k].n, "%s", path);
        cr_assert_eq(json_object_size(one), 3, "%s: catalog, catalog_version and the list", path);
        cr_assert(json_equal(list, json_object_get(all, KINDS[k].kind)), "%s = its part of /catalog", path);
        size_t i;
        json_t *e;
        json_array_foreach((json_t *)list, i, e) {
            cr_assert(json_string_length(json_object_get(e, "key")) > 0, "%s[%zu] lacks key", path, i);
            cr_assert(json_string_length(json_object_get(e, "id")) > 0, "%s[%zu] lacks id", path, i);
            cr_assert(json_object_size(e) < 25, "%s[%zu]: a summary, not the entry", path, i);
        }
        json_decref(one);
        /* ?kind= takes every kind, plural or singular */
        snprintf(path, sizeof path, "/catalog?kind=%s", KINDS[k].kind);
        one = api_get_ok(path);
        cr_assert_eq(json_object_size(one), 3, "%s", path);
        json_decref(one);
    }
    cr_assert_eq(json_object_size(all), 2 + N_KINDS);
    json_decref(all);

    /* a cluster in the list names its node, fabric and count; the tutorial node is the overlaid one */
    json_t *cl = api_get_ok("/catalog/clusters");
    const json_t *r = json_array_get(json_object_get(cl, "clusters"), 0);
    cr_assert_str_eq(str_at(r, "key"), "Research_256");
    cr_assert_str_eq(str_at(r, "node"), "DGX_H100");
    cr_assert_str_eq(str_at(r, "fabric"), "Ethernet_100G");
    cr_assert_eq(json_integer_value(json_object_get(r, "count")), 32);
    json_decref(cl);
    json_t *nodes = api_get_ok("/catalog/nodes?catalog=tutorial");
    const json_t *h = json_array_get(json_object_get(nodes, "nodes"), 0);
    cr_assert_str_eq(str_at(h, "key"), "DGX_H100");
    cr_assert(close_enough(json_number_value(json_object_get(h, "intra_node_bw")), 450e9));
    json_decref(nodes);
}

Test(catalog_api, group_filter_on_every_kind)
{
    /* prices: group = the pricing namespace (catalog.json: 6 Cloud, 6 Labeling) */
    json_t *p = api_get_ok("/catalog/prices?group=cloud");
    cr_assert_eq(json_array_size(json_object_get(p, "prices")), 6);
    json_decref(p);
    p = api_get_ok("/catalog?group=Labeling&kind=price");
    cr_assert_eq(json_array_size(json_object_get(p, "prices")), 6);
    json_decref(p);
    p = api_get_ok("/catalog/reliability?group=Components");
    cr_assert_eq(json_array_size(json_object_get(p, "reliability")), 8);
    json_decref(p);
    /* a group no entry in scope has is a 400 listing the groups (none, for a kind without groups) */
    p = api_get_problem("/catalog/fabrics?group=Cloud", 400);
    cr_assert_str_eq(str_at(p, "field"), "group");
    cr_assert(strstr(str_at(p, "detail"), "fabrics have no group"), "%s", str_at(p, "detail"));
    json_decref(p);
    p = api_get_problem("/catalog/hardware?group=Mainframe", 400);
    cr_assert(strstr(str_at(p, "detail"), "Cloud, Workstation, Mobile, Edge, Tiny"), "%s", str_at(p, "detail"));
    json_decref(p);
}

Test(catalog_api, unknown_kinds_and_ids)
{
    json_t *p = api_get_problem("/catalog/gpus", 404);
    cr_assert(strstr(str_at(p, "detail"), "fabrics") && strstr(str_at(p, "detail"), "clusters"),
              "names the kinds: %s", str_at(p, "detail"));
    json_decref(p);
    p = api_get_problem("/catalog/gpus/A100", 404);
    cr_assert(strstr(str_at(p, "detail"), "hardware"), "%s", str_at(p, "detail"));
    json_decref(p);
    p = api_get_problem("/catalog/fabrics/InfiniBand_NDX", 404);
    cr_assert(strstr(str_at(p, "detail"), "InfiniBand_NDR"), "%s", str_at(p, "detail"));
    cr_assert(strstr(str_at(p, "detail"), "fabric"), "%s", str_at(p, "detail"));
    json_decref(p);
    p = api_get_problem("/catalog/nodes/InfiniBand_NDR?catalog=tutorial", 404);
    cr_assert(strstr(str_at(p, "detail"), "tutorial"), "%s", str_at(p, "detail"));
    json_decref(p);
    p = api_get_problem("/catalog/grids/Quebec?catalog=2024", 400);
    cr_assert_str_eq(str_at(p, "field"), "catalog");
    json_decref(p);
}

Test(catalog_api, systems_entries_by_hand)
{
    json_t *c = api_get_ok("/catalog/clusters/systems.clusters.frontier_8k");
    cr_assert_str_eq(str_at(c, "key"), "Frontier_8K");
    cr_assert_str_eq(str_at(c, "node"), "Systems.Nodes.DGX_H100");
    cr_assert_eq(json_integer_value(json_object_get(c, "count")), 1024);
    json_decref(c);
    json_t *n = api_get_ok("/catalog/nodes/DGX_H100?catalog=tutorial");
    cr_assert(close_enough(si_at(n, "intra_node_bw"), 450e9));
    cr_assert(json_is_array(json_object_get(n, "edition_overrides")));
    json_decref(n);
    n = api_get_ok("/catalog/nodes/dgx_h100");
    cr_assert(close_enough(si_at(n, "intra_node_bw"), 900e9));
    json_decref(n);
    json_t *g = api_get_ok("/catalog/grids/Quebec");
    cr_assert(close_enough(json_number_value(json_object_get(g, "carbon_intensity_g_kwh")), 20));
    json_decref(g);
    json_t *pr = api_get_ok("/catalog/prices/OnPremises.ElectricityPerKwh");
    cr_assert(close_enough(si_at(pr, "rate"), 0.07 / 3.6e6));
    cr_assert_str_eq(str_at(pr, "group"), "OnPremises");
    json_decref(pr);
}
