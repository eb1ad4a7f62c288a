/* test_catalog.c - the catalog: embedded data, both editions, lookups,
 * suggestions, inline entries and --catalog-dir files.
 *
 * The numbers are checked against ../shared/reference/catalog.json (the
 * reference read of mlsysim's registries) where that file is present, and
 * against a few hand-written values (A100, ResNet-50, the tutorial overlay)
 * everywhere. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "core/model.h"

#ifndef MLSYSD_SHARED_DIR
#define MLSYSD_SHARED_DIR "../shared"
#endif

static catalog *cat;
static const catalog_edition *cur, *tut;

static void load(void)
{
    char err[512];
    cr_assert_eq(catalog_load(&cat, NULL, err, sizeof err), 0, "catalog_load: %s", err);
    cur = catalog_edition_find(cat, "current");
    tut = catalog_edition_find(cat, "tutorial");
    cr_assert_not_null(cur);
    cr_assert_not_null(tut);
}

static void unload(void)
{
    catalog_free(cat);
    cat = NULL;
}

TestSuite(catalog, .init = load, .fini = unload);

/* ---- helpers ------------------------------------------------------------ */

static bool rel_eq(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

#define assert_q(got, want) \
    cr_assert(rel_eq((got), (want)), "%s = %.17g, want %.17g", #got, (double)(got), (double)(want))

static const hw_node *hw(const catalog_edition *e, const char *id)
{
    long i = edition_find_hardware(e, id);
    cr_assert_geq(i, 0, "hardware %s not found in %s", id, edition_name(e));
    return edition_hardware_at(e, (size_t)i);
}

static const model_t *model(const catalog_edition *e, const char *id)
{
    long i = edition_find_model(e, id);
    cr_assert_geq(i, 0, "model %s not found in %s", id, edition_name(e));
    return edition_model_at(e, (size_t)i);
}

static const json_t *hw_json(const catalog_edition *e, const char *id)
{
    return edition_hardware_json(e, (size_t)edition_find_hardware(e, id));
}

static double prec(const hw_node *h, const char *k)
{
    const hw_precision_flops *p = hw_find_precision(h, k);
    return p ? p->flops : NAN;
}

static json_t *J(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
    cr_assert_not_null(v, "bad test JSON %s: %s", text, je.text);
    return v;
}

typedef struct {
    int rc;
    char field[128];
    char err[512];
} res;

static res resolve_hw(const catalog_edition *e, const char *text, hw_node *out)
{
    res r;
    json_t *v = J(text);
    r.rc = edition_resolve_hardware(e, v, out, r.field, sizeof r.field, r.err, sizeof r.err);
    json_decref(v);
    return r;
}

static res resolve_model(const catalog_edition *e, const char *text, model_t *out)
{
    res r;
    json_t *v = J(text);
    r.rc = edition_resolve_model(e, v, out, r.field, sizeof r.field, r.err, sizeof r.err);
    json_decref(v);
    return r;
}

/* ---- editions ----------------------------------------------------------- */

Test(catalog, editions_and_counts)
{
    cr_assert_eq(catalog_edition_count(cat), 2);
    cr_assert_eq(catalog_default_edition(cat), cur);
    cr_assert_eq(catalog_edition_find(cat, "TUTORIAL"), tut);
    cr_assert_null(catalog_edition_find(cat, "legacy"));
    cr_assert_str_eq(edition_name(cur), "current");
    cr_assert_str_eq(edition_name(tut), "tutorial");
    for (size_t i = 0; i < 2; i++) {
        const catalog_edition *e = catalog_edition_at(cat, i);
        cr_assert_eq(edition_hardware_count(e), 45);
        cr_assert_eq(edition_model_count(e), 33);
        cr_assert_eq(strlen(edition_version(e)), 16);
        cr_assert_eq(strspn(edition_version(e), "0123456789abcdef"), 16);
        cr_assert_gt(strlen(edition_description(e)), 10);
    }
    cr_assert_str_neq(edition_version(cur), edition_version(tut));
    cr_assert_null(catalog_edition_at(cat, 2));
}

Test(catalog, version_is_stable)
{
    catalog *c2;
    char err[256];
    cr_assert_eq(catalog_load(&c2, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(edition_version(catalog_edition_at(c2, 0)), edition_version(cur));
    cr_assert_str_eq(edition_version(catalog_edition_at(c2, 1)), edition_version(tut));
    catalog_free(c2);
}

Test(catalog, a100_every_field)
{
    for (int ed = 0; ed < 2; ed++) {
        const hw_node *a = hw(ed ? tut : cur, "A100");
        cr_assert_str_eq(a->key, "A100");
        cr_assert_str_eq(a->id, "Hardware.Cloud.A100");
        cr_assert_str_eq(a->name, "NVIDIA A100");
        cr_assert_str_eq(a->group, "Cloud");
        cr_assert_eq(a->release_year, 2020);
        assert_q(a->peak_flops, 312e12);
        cr_assert_eq(a->n_precisions, 4);
        assert_q(prec(a, "fp32"), 19.5e12);
        assert_q(prec(a, "tf32"), 156e12);
        assert_q(prec(a, "int8"), 624e12);
        assert_q(prec(a, "fp16_sparse"), 624e12);
        cr_assert_null(hw_find_precision(a, "fp8"));
        cr_assert_null(hw_find_precision(a, "FP32"), "lookup is exact (lower case)");
        assert_q(a->mem_capacity, 85899345920.0);
        assert_q(a->mem_bandwidth, 2039e9);
        cr_assert(isnan(a->sram_capacity) && isnan(a->sram_bandwidth));
        cr_assert(isnan(a->flash_capacity) && isnan(a->flash_bandwidth));
        cr_assert_not(a->has_storage);
        cr_assert(isnan(a->storage_capacity) && isnan(a->storage_bandwidth));
        cr_assert(a->has_interconnect);
        cr_assert_str_eq(a->interconnect_name, "PCIe Gen4 x16");
        assert_q(a->interconnect_bw, 32e9);
        cr_assert(a->has_nvlink);
        assert_q(a->nvlink_bw, 600e9);
        assert_q(a->nvlink_latency, 5e-7);
        assert_q(a->tdp, 400);
        assert_q(a->unit_cost, 15000);
        assert_q(a->dispatch_tax, 1.5e-5);
    }
}

Test(catalog, resnet50_every_field)
{
    for (int ed = 0; ed < 2; ed++) {
        const model_t *m = model(ed ? tut : cur, "ResNet50");
        cr_assert_str_eq(m->key, "ResNet50");
        cr_assert_str_eq(m->id, "Models.Vision.ResNet50");
        cr_assert_str_eq(m->name, "ResNet-50");
        cr_assert_str_eq(m->group, "Vision");
        cr_assert_str_eq(m->architecture, "CNN");
        cr_assert_eq(m->kind, WL_CNN);
        assert_q(m->parameters, 25.6e6);
        assert_q(m->inference_flops, ed ? 4.1e9 : 8.2e9);
        cr_assert(isnan(m->model_size) && isnan(m->active_parameters));
        cr_assert_eq(m->layers, 50);
        cr_assert_eq(m->hidden_dim + m->heads + m->kv_heads + m->experts +
                         m->active_experts_per_token + m->state_size + m->denoising_steps,
                     0);
    }
}

Test(catalog, other_models)
{
    const model_t *m = model(cur, "DeepSeek_V3");
    cr_assert_eq(m->kind, WL_SPARSE_TRANSFORMER);
    assert_q(m->active_parameters, 37e9);
    cr_assert_eq(m->experts, 256);
    cr_assert_eq(m->active_experts_per_token, 8);
    m = model(cur, "Mamba_130M");
    cr_assert_eq(m->kind, WL_SSM);
    cr_assert_eq(m->state_size, 16);
    cr_assert_eq(m->hidden_dim, 768);
    m = model(cur, "StableDiffusion_v1_5");
    cr_assert_eq(m->kind, WL_DIFFUSION);
    cr_assert_eq(m->denoising_steps, 50);
    m = model(cur, "DLRM");
    cr_assert_eq(m->kind, WL_GENERIC);
    cr_assert(isnan(m->parameters));
    assert_q(m->model_size, 100e9);
    m = model(cur, "Llama2_70B");
    cr_assert_eq(m->kind, WL_TRANSFORMER);
    cr_assert_eq(m->kv_heads, 8);
    cr_assert_eq(model(cur, "ACT_ALOHA")->kind, WL_EMBODIED);
}

Test(catalog, hardware_extras)
{
    const hw_node *h = hw(cur, "H100");
    cr_assert(h->has_storage);
    cr_assert(!isnan(h->storage_capacity) && !isnan(h->storage_bandwidth));
    const hw_node *e = hw(cur, "ESP32_S3");
    cr_assert(!isnan(e->sram_capacity) && !isnan(e->flash_capacity));
    assert_q(hw(cur, "GB200_NVL72")->tdp, 120e3);
    assert_q(hw(cur, "RoboTaxi")->interconnect_bw, 30e9 / 8);
    assert_q(hw(cur, "Cerebras_CS3")->mem_bandwidth, 21e15);
    cr_assert(isnan(hw(cur, "Graphcore_GC200")->tdp));
    cr_assert(isnan(hw(cur, "Gaudi3")->unit_cost));
    cr_assert(hw(cur, "TPUv5p")->has_nvlink);
    cr_assert(isnan(hw(cur, "TPUv5p")->nvlink_latency));
}

/* ---- the tutorial overlay --------------------------------------------------- */

Test(catalog, tutorial_overlay_every_difference)
{
    /* hardware */
    cr_assert_eq(json_real_value(json_object_get(hw_json(cur, "A100"), "embodied_carbon_kg")), 150.0);
    cr_assert_eq(json_real_value(json_object_get(hw_json(tut, "A100"), "embodied_carbon_kg")), 130.0);
    assert_q(hw(cur, "Cerebras_CS3")->mem_capacity, 44.0 * 1073741824);
    assert_q(hw(tut, "Cerebras_CS3")->mem_capacity, 44e9);
    assert_q(hw(cur, "GB200_NVL72")->mem_capacity, 13.5 * 1099511627776.0);
    assert_q(hw(tut, "GB200_NVL72")->mem_capacity, 13.8e12);
    assert_q(prec(hw(cur, "Gaudi3"), "fp8"), 1835e12);
    assert_q(prec(hw(tut, "Gaudi3"), "fp8"), 3670e12);
    assert_q(hw(cur, "H100")->unit_cost, 30000);
    assert_q(hw(tut, "H100")->unit_cost, 25000);
    cr_assert_eq(json_real_value(json_object_get(hw_json(cur, "H100"), "embodied_carbon_kg")), 164.0);
    cr_assert_eq(json_real_value(json_object_get(hw_json(tut, "H100"), "embodied_carbon_kg")), 150.0);
    cr_assert_not(isnan(hw(cur, "TPUv5p")->sram_capacity));
    cr_assert(isnan(hw(tut, "TPUv5p")->sram_capacity));

    const hw_node *sc = hw(cur, "DGX_Spark"), *st = hw(tut, "DGX_Spark");
    assert_q(sc->peak_flops, 125e12);
    assert_q(st->peak_flops, 250e12);
    assert_q(prec(sc, "fp8"), 250e12);
    assert_q(prec(st, "fp8"), 500e12);
    assert_q(prec(sc, "fp4"), 500e12);
    assert_q(prec(st, "fp4"), 1000e12);
    assert_q(prec(sc, "fp4_sparse"), 1000e12);
    cr_assert_null(hw_find_precision(st, "fp4_sparse"));
    cr_assert_eq(st->n_precisions, 2);
    assert_q(sc->mem_bandwidth, 273e9);
    assert_q(st->mem_bandwidth, 500e9);
    /* the derived ridge point follows the overlaid numbers */
    assert_q(json_number_value(json_object_get(hw_json(tut, "DGX_Spark"), "ridge_point_flop_per_byte")),
             250e12 / 500e9);

    assert_q(hw(cur, "MacBookM3Max")->mem_capacity, 128.0 * 1073741824);
    assert_q(hw(tut, "MacBookM3Max")->mem_capacity, 128e9);
    assert_q(hw(cur, "iPhone15Pro")->mem_capacity, 8.0 * 1073741824);
    assert_q(hw(tut, "iPhone15Pro")->mem_capacity, 8e9);
    assert_q(hw(cur, "iPhone15Pro")->mem_bandwidth, 51.2e9);
    assert_q(hw(tut, "iPhone15Pro")->mem_bandwidth, 100e9);
    assert_q(hw(cur, "JetsonAGXOrin")->mem_capacity, 64.0 * 1073741824);
    assert_q(hw(tut, "JetsonAGXOrin")->mem_capacity, 64e9);
    assert_q(hw(cur, "HimaxWE1")->mem_capacity, 2.0 * 1048576);
    assert_q(hw(tut, "HimaxWE1")->mem_capacity, 2e6);
    assert_q(hw(cur, "nRF52840")->mem_capacity, 1048576);
    assert_q(hw(tut, "nRF52840")->mem_capacity, 1e6);

    /* models */
    assert_q(model(cur, "ResNet50")->inference_flops, 8.2e9);
    assert_q(model(tut, "ResNet50")->inference_flops, 4.1e9);
    assert_q(model(cur, "MobileNetV2")->parameters, 3504872);
    assert_q(model(tut, "MobileNetV2")->parameters, 3.5e6);
    assert_q(model(cur, "MobileNetV2")->inference_flops, 6e8);
    assert_q(model(tut, "MobileNetV2")->inference_flops, 3e8);
}

Test(catalog, tutorial_changes_only_overlaid_entries)
{
    static const char *const hw_changed[] = {"A100", "Cerebras_CS3", "GB200_NVL72", "Gaudi3", "H100",
                                             "TPUv5p", "DGX_Spark", "MacBookM3Max", "iPhone15Pro",
                                             "JetsonAGXOrin", "HimaxWE1", "nRF52840"};
    size_t nchanged = 0;
    for (size_t i = 0; i < edition_hardware_count(cur); i++) {
        const json_t *a = edition_hardware_json(cur, i), *b = edition_hardware_json(tut, i);
        const char *key = edition_hardware_at(cur, i)->key;
        bool listed = false;
        for (size_t j = 0; j < sizeof hw_changed / sizeof *hw_changed; j++)
            listed = listed || strcmp(hw_changed[j], key) == 0;
        cr_assert_str_eq(key, edition_hardware_at(tut, i)->key, "same order in both editions");
        if (json_equal(a, b)) {
            cr_assert_not(listed, "%s should differ", key);
            cr_assert_eq(memcmp(edition_hardware_at(cur, i), edition_hardware_at(tut, i), sizeof(hw_node)), 0);
        } else {
            cr_assert(listed, "%s differs but is not in the overlay", key);
            cr_assert_not_null(json_object_get(b, "edition_overrides"));
            cr_assert_null(json_object_get(a, "edition_overrides"));
            nchanged++;
        }
    }
    cr_assert_eq(nchanged, sizeof hw_changed / sizeof *hw_changed);
    size_t mchanged = 0;
    for (size_t i = 0; i < edition_model_count(cur); i++)
        if (!json_equal(edition_model_json(cur, i), edition_model_json(tut, i)))
            mchanged++;
        else
            cr_assert_eq(memcmp(edition_model_at(cur, i), edition_model_at(tut, i), sizeof(model_t)), 0);
    cr_assert_eq(mchanged, 2);
    /* an overlaid quantity carries its SI unit and says where it came from */
    const json_t *q = json_object_get(json_object_get(hw_json(tut, "H100"), "unit_cost"), "si_unit");
    cr_assert_str_eq(json_string_value(q), "USD");
    const json_t *mem = json_object_get(hw_json(tut, "Cerebras_CS3"), "memory");
    cr_assert_not_null(json_object_get(json_object_get(mem, "capacity"), "note"));
    cr_assert_not_null(json_object_get(mem, "bandwidth"), "siblings of an overlaid field stay");
}

/* ---- against the reference extraction ----------------------------------- */

static json_t *reference(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reference/catalog.json", MLSYSD_SHARED_DIR);
    if (access(path, R_OK) != 0)
        return NULL;
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    cr_assert_not_null(r, "%s: %s", path, je.text);
    return r;
}

static double ref_q(const json_t *entry, const char *a, const char *b)
{
    const json_t *v = json_object_get(entry, a);
    if (b != NULL)
        v = json_object_get(v, b);
    const json_t *si = json_object_get(v, "si");
    return json_is_number(si) ? json_number_value(si) : NAN;
}

static int ref_i(const json_t *entry, const char *a)
{
    const json_t *v = json_object_get(entry, a);
    return json_is_integer(v) ? (int)json_integer_value(v) : 0;
}

Test(catalog, every_quantity_matches_reference)
{
    json_t *ref = reference();
    if (ref == NULL)
        cr_skip_test("%s/reference/catalog.json is absent (not a dev checkout)", MLSYSD_SHARED_DIR);
    size_t i;
    json_t *e;
    json_t *hws = json_object_get(ref, "hardware");
    cr_assert_eq(json_array_size(hws), edition_hardware_count(cur));
    json_array_foreach(hws, i, e) {
        const char *key = json_string_value(json_object_get(e, "key"));
        const hw_node *h = hw(cur, key);
        cr_assert_eq(edition_find_hardware(cur, json_string_value(json_object_get(e, "id"))),
                     edition_find_hardware(cur, key));
        cr_assert_str_eq(h->name, json_string_value(json_object_get(e, "name")));
        cr_assert_str_eq(h->group, json_string_value(json_object_get(e, "group")));
        cr_assert_eq(h->release_year, ref_i(e, "release_year"), "%s", key);
        assert_q(h->peak_flops, ref_q(e, "compute", "peak_flops"));
        const json_t *pf = json_object_get(json_object_get(e, "compute"), "precision_flops");
        cr_assert_eq((size_t)h->n_precisions, json_object_size(pf), "%s precisions", key);
        const char *pk;
        json_t *pv;
        json_object_foreach((json_t *)pf, pk, pv) assert_q(prec(h, pk), json_number_value(json_object_get(pv, "si")));
        assert_q(h->mem_capacity, ref_q(e, "memory", "capacity"));
        assert_q(h->mem_bandwidth, ref_q(e, "memory", "bandwidth"));
        assert_q(h->sram_capacity, ref_q(e, "memory", "sram_capacity"));
        assert_q(h->sram_bandwidth, ref_q(e, "memory", "sram_bandwidth"));
        assert_q(h->flash_capacity, ref_q(e, "memory", "flash_capacity"));
        assert_q(h->flash_bandwidth, ref_q(e, "memory", "flash_bandwidth"));
        cr_assert_eq(h->has_storage, json_is_object(json_object_get(e, "storage")), "%s", key);
        assert_q(h->storage_capacity, ref_q(e, "storage", "capacity"));
        assert_q(h->storage_bandwidth, ref_q(e, "storage", "bandwidth"));
        const json_t *ic = json_object_get(e, "interconnect");
        cr_assert_eq(h->has_interconnect, json_is_object(ic), "%s", key);
        if (json_is_object(ic))
            cr_assert_str_eq(h->interconnect_name, json_string_value(json_object_get(ic, "name")));
        assert_q(h->interconnect_bw, ref_q(e, "interconnect", "bandwidth"));
        cr_assert_eq(h->has_nvlink, json_is_object(json_object_get(e, "nvlink")), "%s", key);
        assert_q(h->nvlink_bw, ref_q(e, "nvlink", "bandwidth"));
        assert_q(h->nvlink_latency, ref_q(e, "nvlink", "latency"));
        assert_q(h->tdp, ref_q(e, "tdp", NULL));
        assert_q(h->unit_cost, ref_q(e, "unit_cost", NULL));
        double dt = ref_q(e, "dispatch_tax", NULL);
        assert_q(h->dispatch_tax, isnan(dt) ? 1e-5 : dt);

        /* The embedded entry is the reference entry minus variants/lowered. */
        json_t *want = json_copy(e);
        json_object_del(want, "variants");
        json_object_del(want, "lowered");
        cr_assert(json_equal(want, edition_hardware_json(cur, (size_t)edition_find_hardware(cur, key))),
                  "%s JSON differs from the reference", key);
        json_decref(want);
    }
    json_t *ms = json_object_get(ref, "models");
    cr_assert_eq(json_array_size(ms), edition_model_count(cur));
    json_array_foreach(ms, i, e) {
        const char *key = json_string_value(json_object_get(e, "key"));
        const model_t *m = model(cur, key);
        workload_kind k;
        cr_assert(workload_kind_parse(json_string_value(json_object_get(e, "type")), &k));
        cr_assert_eq(m->kind, k, "%s", key);
        cr_assert_str_eq(m->name, json_string_value(json_object_get(e, "name")));
        assert_q(m->parameters, ref_q(e, "parameters", NULL));
        assert_q(m->inference_flops, ref_q(e, "inference_flops", NULL));
        assert_q(m->model_size, ref_q(e, "model_size", NULL));
        assert_q(m->active_parameters, ref_q(e, "active_parameters", NULL));
        cr_assert_eq(m->layers, ref_i(e, "layers"), "%s", key);
        cr_assert_eq(m->hidden_dim, ref_i(e, "hidden_dim"), "%s", key);
        cr_assert_eq(m->heads, ref_i(e, "heads"), "%s", key);
        cr_assert_eq(m->kv_heads, ref_i(e, "kv_heads"), "%s", key);
        cr_assert_eq(m->experts, ref_i(e, "experts"), "%s", key);
        cr_assert_eq(m->active_experts_per_token, ref_i(e, "active_experts_per_token"), "%s", key);
        cr_assert_eq(m->state_size, ref_i(e, "state_size"), "%s", key);
        cr_assert_eq(m->denoising_steps, ref_i(e, "denoising_steps"), "%s", key);
        json_t *want = json_copy(e);
        json_object_del(want, "variants");
        json_object_del(want, "lowered");
        cr_assert(json_equal(want, edition_model_json(cur, (size_t)edition_find_model(cur, key))),
                  "%s JSON differs from the reference", key);
        json_decref(want);
    }
    json_decref(ref);
}

Test(catalog, tutorial_matches_reference_overlay)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reference/edition_tutorial.json", MLSYSD_SHARED_DIR);
    if (access(path, R_OK) != 0)
        cr_skip_test("%s is absent (not a dev checkout)", path);
    json_t *ov = json_load_file(path, 0, NULL);
    cr_assert_not_null(ov);
    const char *key, *fp;
    json_t *changes, *v;
    json_object_foreach(json_object_get(ov, "hardware"), key, changes) {
        json_object_foreach(changes, fp, v) {
            /* walk the dotted path in the tutorial entry */
            char buf[128];
            snprintf(buf, sizeof buf, "%s", fp);
            const json_t *node = hw_json(tut, key);
            for (char *save = NULL, *seg = strtok_r(buf, ".", &save); seg && node;
                 seg = strtok_r(NULL, ".", &save))
                node = json_object_get(node, seg);
            if (json_is_null(v))
                cr_assert(node == NULL || json_is_null(node), "%s.%s should be absent", key, fp);
            else if (json_is_object(v))
                assert_q(json_number_value(json_object_get(node, "si")),
                         json_number_value(json_object_get(v, "si")));
            else
                cr_assert(json_equal(node, v), "%s.%s", key, fp);
        }
    }
    json_object_foreach(json_object_get(ov, "models"), key, changes) {
        json_object_foreach(changes, fp, v) {
            const json_t *node = json_object_get(edition_model_json(tut, (size_t)edition_find_model(tut, key)), fp);
            assert_q(json_number_value(json_object_get(node, "si")), json_number_value(json_object_get(v, "si")));
        }
    }
    json_decref(ov);
}

/* ---- lookups and suggestions -------------------------------------------- */

Test(catalog, lookups)
{
    long a = edition_find_hardware(cur, "A100");
    cr_assert_geq(a, 0);
    static const char *const same[] = {"a100", "Hardware.Cloud.A100", "HARDWARE.CLOUD.A100",
                                       "Hardware.A100", "hardware.a100"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        cr_assert_eq(edition_find_hardware(cur, same[i]), a, "%s", same[i]);
    cr_assert_eq(edition_find_hardware(tut, "hardware.a100"), a);
    cr_assert_str_eq(hw(cur, "Hardware.NVL72")->key, "GB200_NVL72");
    cr_assert_str_eq(hw(cur, "Hardware.Edge.Generic_Phone")->key, "iPhone15Pro");
    cr_assert_str_eq(hw(cur, "hardware.jetson")->key, "JetsonOrinNX");
    cr_assert_eq(edition_find_hardware(cur, "Hardware.Networks"), -1);
    cr_assert_eq(edition_find_hardware(cur, "A10"), -1);
    cr_assert_eq(edition_find_hardware(cur, ""), -1);
    cr_assert_eq(edition_find_hardware(cur, NULL), -1);
    cr_assert_eq(edition_find_hardware(cur, "ResNet50"), -1, "kinds are separate");

    long r = edition_find_model(cur, "ResNet50");
    cr_assert_geq(r, 0);
    cr_assert_eq(edition_find_model(cur, "resnet50"), r);
    cr_assert_eq(edition_find_model(cur, "Models.Vision.ResNet50"), r);
    cr_assert_eq(edition_find_model(cur, "models.resnet50"), r);
    cr_assert_eq(edition_find_model(cur, "Models.ResNet50"), r);
    cr_assert_str_eq(model(cur, "Models.Mamba_2_8B")->key, "Mamba_2_8B");
    cr_assert_eq(edition_find_model(cur, "Models.AlexNet"), edition_find_model(cur, "AlexNet"));
    cr_assert_eq(edition_find_model(cur, "A100"), -1);
    for (size_t i = 0; i < edition_hardware_count(cur); i++) {
        const hw_node *h = edition_hardware_at(cur, i);
        cr_assert_eq(edition_find_hardware(cur, h->key), (long)i);
        cr_assert_eq(edition_find_hardware(cur, h->id), (long)i);
    }
    for (size_t i = 0; i < edition_model_count(cur); i++) {
        const model_t *m = edition_model_at(cur, i);
        cr_assert_eq(edition_find_model(cur, m->key), (long)i);
        cr_assert_eq(edition_find_model(cur, m->id), (long)i);
    }
    cr_assert_null(edition_hardware_at(cur, 45));
    cr_assert_null(edition_model_json(cur, 33));
}

Test(catalog, suggestions)
{
    const char *s[5];
    int n = edition_suggest(cur, CAT_HARDWARE, "A10", s, 5);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(s[0], "A100");
    n = edition_suggest(cur, CAT_MODEL, "resnet", s, 5);
    cr_assert_geq(n, 2);
    cr_assert_str_eq(s[0], "ResNet18");
    cr_assert_str_eq(s[1], "ResNet50");
    n = edition_suggest(cur, CAT_HARDWARE, "H1OO", s, 5);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(s[0], "H100");
    n = edition_suggest(cur, CAT_HARDWARE, "Hardware.Cloud.A10", s, 5);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(s[0], "A100");
    n = edition_suggest(cur, CAT_HARDWARE, "jetson", s, 5);
    cr_assert_eq(n, 3);
    n = edition_suggest(cur, CAT_MODEL, "lama3_8b", s, 1);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(s[0], "Llama3_8B");
    n = edition_suggest(cur, CAT_MODEL, "resnet", s, 1);
    cr_assert_eq(n, 1, "max is respected");
    cr_assert_eq(edition_suggest(cur, CAT_HARDWARE, "qqqqqqqqqqqq", s, 5), 0);
    cr_assert_eq(edition_suggest(cur, CAT_HARDWARE, "", s, 5), 0);
}

Test(catalog, entry_json_has_units_and_sources)
{
    const json_t *a = hw_json(cur, "A100");
    const json_t *cap = json_object_get(json_object_get(a, "memory"), "capacity");
    cr_assert_str_eq(json_string_value(json_object_get(cap, "unit")), "GiB");
    cr_assert_str_eq(json_string_value(json_object_get(cap, "si_unit")), "B");
    cr_assert_not_null(json_object_get(a, "provenance"));
    cr_assert_not_null(json_object_get(json_object_get(a, "source"), "commit"));
    cr_assert_null(json_object_get(a, "variants"));
    const json_t *r = edition_model_json(cur, (size_t)edition_find_model(cur, "ResNet50"));
    cr_assert_null(json_object_get(r, "lowered"));
    cr_assert_str_eq(json_string_value(json_object_get(r, "type")), "CNNWorkload");
}

/* ---- inline entries ----------------------------------------------------- */

Test(catalog, inline_id_and_base)
{
    model_t m;
    res r = resolve_model(cur, "\"resnet50\"", &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(memcmp(&m, model(cur, "ResNet50"), sizeof m), 0);
    r = resolve_model(cur, "{\"base\": \"Models.ResNet50\"}", &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(memcmp(&m, model(cur, "ResNet50"), sizeof m), 0);
    r = resolve_model(tut, "{\"base\": \"ResNet50\"}", &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    assert_q(m.inference_flops, 4.1e9);
}

Test(catalog, inline_model_override)
{
    static const char *const forms[] = {
        "{\"base\": \"ResNet50\", \"inference_flops\": \"4.1 GFLOP\"}",
        "{\"base\": \"ResNet50\", \"inference_flops\": {\"value\": 4.1, \"unit\": \"GFLOP\"}}",
        "{\"base\": \"ResNet50\", \"inference_flops\": {\"value\": 4.1, \"unit\": \"GFLOP\", \"si\": 4.1e9}}",
        "{\"base\": \"ResNet50\", \"inference_flops\": 4.1e9}",
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        model_t m;
        res r = resolve_model(cur, forms[i], &m);
        cr_assert_eq(r.rc, 0, "%s: %s", forms[i], r.err);
        assert_q(m.inference_flops, 4.1e9);
        cr_assert_str_eq(m.key, "ResNet50");
        cr_assert_eq(m.kind, WL_CNN);
        assert_q(m.parameters, 25.6e6);
        cr_assert_eq(m.layers, 50);
    }
    /* the catalog itself is untouched */
    assert_q(model(cur, "ResNet50")->inference_flops, 8.2e9);
    const json_t *j = edition_model_json(cur, (size_t)edition_find_model(cur, "ResNet50"));
    assert_q(json_number_value(json_object_get(json_object_get(j, "inference_flops"), "si")), 8.2e9);
}

Test(catalog, inline_hardware_nested_and_dotted)
{
    json_t *before = json_deep_copy(hw_json(cur, "A100"));
    hw_node a, b;
    res r = resolve_hw(cur, "{\"base\": \"A100\", \"memory\": {\"capacity\": \"40 GB\"}}", &a);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory.capacity\": \"40 GB\"}", &b);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    assert_q(a.mem_capacity, 40e9);
    assert_q(a.mem_bandwidth, 2039e9);
    assert_q(a.peak_flops, 312e12);
    cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
    cr_assert_str_eq(a.key, "A100");

    r = resolve_hw(cur, "{\"base\": \"A100\", \"compute.precision_flops.FP8\": \"1 PFLOPs/s\","
                        " \"compute\": {\"precision_flops\": {\"int8\": null}}, \"tdp\": \"0.3 kW\"}", &a);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    assert_q(prec(&a, "fp8"), 1e15);
    cr_assert_null(hw_find_precision(&a, "int8"));
    assert_q(prec(&a, "fp32"), 19.5e12);
    assert_q(a.tdp, 300);

    r = resolve_hw(cur, "{\"base\": \"A100\", \"storage\": {\"capacity\": \"4 TB\", \"bandwidth\": \"7 GB/s\"},"
                        " \"nvlink\": null}", &a);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert(a.has_storage);
    assert_q(a.storage_capacity, 4e12);
    assert_q(a.storage_bandwidth, 7e9);
    cr_assert_not(a.has_nvlink);
    cr_assert(isnan(a.nvlink_bw));

    r = resolve_hw(cur, "{\"base\": \"H100\", \"storage\": null, \"dispatch_tax\": \"0.02 ms\","
                        " \"name\": \"my H100\"}", &a);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_not(a.has_storage);
    assert_q(a.dispatch_tax, 2e-5);
    cr_assert_str_eq(a.name, "my H100");

    cr_assert(json_equal(before, hw_json(cur, "A100")), "overrides must not touch the catalog");
    json_decref(before);
    assert_q(hw(cur, "A100")->mem_capacity, 85899345920.0);
    cr_assert(hw(cur, "A100")->has_nvlink);
}

Test(catalog, inline_custom_entries)
{
    hw_node h;
    res r = resolve_hw(cur, "{\"compute\": {\"peak_flops\": \"100 TFLOPs/s\"},"
                            " \"memory\": {\"capacity\": \"16 GB\", \"bandwidth\": \"1 TB/s\"}}", &h);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(h.key, "custom");
    cr_assert_str_eq(h.name, "custom");
    assert_q(h.peak_flops, 100e12);
    assert_q(h.mem_capacity, 16e9);
    assert_q(h.mem_bandwidth, 1e12);
    assert_q(h.dispatch_tax, 1e-5); /* HardwareNode default 0.01 ms */
    cr_assert_eq(h.release_year, 0);
    cr_assert_eq(h.n_precisions, 0);
    cr_assert(isnan(h.tdp) && isnan(h.unit_cost) && isnan(h.sram_capacity));
    cr_assert_not(h.has_interconnect || h.has_nvlink || h.has_storage);

    r = resolve_hw(cur, "{\"key\": \"NPU\", \"compute.peak_flops\": 1e12, \"memory.capacity\": 1e9,"
                        " \"memory.bandwidth\": 1e10, \"interconnect\": {\"name\": \"PCIe\", \"bandwidth\": \"64 Gbps\"}}", &h);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(h.key, "NPU");
    cr_assert_str_eq(h.name, "NPU");
    cr_assert(h.has_interconnect);
    assert_q(h.interconnect_bw, 8e9);

    model_t m;
    r = resolve_model(cur, "{\"type\": \"TransformerWorkload\", \"parameters\": \"7 Bparam\", \"layers\": 32,"
                           " \"hidden_dim\": 4096, \"name\": \"my LLM\"}", &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(m.kind, WL_TRANSFORMER);
    assert_q(m.parameters, 7e9);
    cr_assert_eq(m.layers, 32);
    cr_assert_str_eq(m.key, "custom");
    cr_assert_str_eq(m.name, "my LLM");
    cr_assert(isnan(m.inference_flops));

    r = resolve_model(cur, "{\"parameters\": 1e6}", &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(m.kind, WL_GENERIC);
    r = resolve_model(cur, "{\"model_size\": \"100 GB\"}", &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    assert_q(m.model_size, 100e9);
    r = resolve_model(cur, "{\"type\": \"sparsetransformerworkload\", \"parameters\": \"47 Bparam\","
                           " \"layers\": 32, \"active_parameters\": \"13 Bparam\", \"experts\": 8}", &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(m.kind, WL_SPARSE_TRANSFORMER);
    cr_assert_eq(m.active_experts_per_token, 1, "SparseTransformerWorkload default");
}

Test(catalog, inline_unknown_base_is_404)
{
    hw_node h;
    res r = resolve_hw(cur, "{\"base\": \"A10\", \"tdp\": \"300 W\"}", &h);
    cr_assert_eq(r.rc, 404);
    cr_assert_str_eq(r.field, "base");
    cr_assert_not_null(strstr(r.err, "\"A10\""), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "\"A100\""), "suggests A100: %s", r.err);
    r = resolve_hw(cur, "\"A10\"", &h);
    cr_assert_eq(r.rc, 404);
    cr_assert_str_eq(r.field, "");
    model_t m;
    r = resolve_model(cur, "{\"base\": \"resnet\"}", &m);
    cr_assert_eq(r.rc, 404);
    cr_assert_not_null(strstr(r.err, "ResNet18"), "%s", r.err);
    r = resolve_model(cur, "{\"base\": \"A100\"}", &m);
    cr_assert_eq(r.rc, 404, "a hardware id is not a model");
}

Test(catalog, inline_unknown_field_is_400)
{
    hw_node h;
    model_t m;
    res r = resolve_model(cur, "{\"base\": \"ResNet50\", \"inference_flop\": \"4.1 GFLOP\"}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "inference_flop");
    cr_assert_not_null(strstr(r.err, "inference_flops"), "suggests the right name: %s", r.err);
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory\": {\"capcity\": \"40 GB\"}}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "memory.capcity");
    cr_assert_not_null(strstr(r.err, "memory.capacity"), "%s", r.err);
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory.capcity\": \"40 GB\"}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "memory.capcity");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memry.capacity\": \"40 GB\"}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "memry.capacity");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"tdp.value\": 5}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "tdp.value");
    r = resolve_hw(cur, "{\"compute\": {\"peak_flops\": \"1 TFLOPs/s\"}, \"memory\": {\"capacity\": \"1 GB\","
                        " \"bandwidth\": \"1 GB/s\"}, \"frobnicate\": 1}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "frobnicate");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory.capacity\": {\"value\": 40, \"unit\": \"GB\", \"vaule\": 1}}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "memory.capacity");
    r = resolve_model(cur, "{\"base\": \"ResNet50\", \"memory\": {\"capacity\": \"1 GB\"}}", &m);
    cr_assert_eq(r.rc, 400, "hardware fields are not model fields");
    cr_assert_str_eq(r.field, "memory");
}

Test(catalog, inline_wrong_dimension_or_type_is_400)
{
    model_t m;
    hw_node h;
    res r = resolve_model(cur, "{\"base\": \"ResNet50\", \"inference_flops\": \"4.1 GB\"}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "inference_flops");
    cr_assert_not_null(strstr(r.err, "inference_flops: expected operations"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "4.1 GB"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "data size"), "%s", r.err);
    r = resolve_model(cur, "{\"base\": \"ResNet50\", \"inference_flops\": {\"value\": 4.1, \"unit\": \"GB\"}}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_not_null(strstr(r.err, "4.1 GB"), "%s", r.err);
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory\": {\"bandwidth\": \"2 TB\"}}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "memory.bandwidth");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory.capacity\": \"40 GiBs\"}", &h);
    cr_assert_eq(r.rc, 400, "unknown unit");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory.capacity\": {\"value\": 40, \"unit\": \"GB\", \"si\": 41e9}}", &h);
    cr_assert_eq(r.rc, 400, "si must agree with value/unit");
    cr_assert_str_eq(r.field, "memory.capacity");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory.capacity\": {\"value\": 40, \"unit\": \"GB\","
                        " \"si\": 4e10, \"si_unit\": \"B/s\"}}", &h);
    cr_assert_eq(r.rc, 400, "si_unit of another dimension");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory.capacity\": {\"si\": 4e10, \"si_unit\": \"B\"}}", &h);
    cr_assert_eq(r.rc, 0, "si alone: %s", r.err);
    assert_q(h.mem_capacity, 4e10);
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory.capacity\": {\"value\": 40}}", &h);
    cr_assert_eq(r.rc, 400, "value without unit");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"tdp\": true}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "tdp");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"tdp\": \"-5 W\"}", &h);
    cr_assert_eq(r.rc, 400, "negative");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"memory\": \"big\"}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "memory");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"nvlink.direction\": \"both\"}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "nvlink.direction");
    r = resolve_model(cur, "{\"base\": \"ResNet50\", \"layers\": \"fifty\"}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "layers");
    r = resolve_model(cur, "{\"base\": \"ResNet50\", \"layers\": 50.5}", &m);
    cr_assert_eq(r.rc, 400);
    r = resolve_model(cur, "{\"base\": \"ResNet50\", \"layers\": -1}", &m);
    cr_assert_eq(r.rc, 400);
    r = resolve_model(cur, "{\"base\": \"ResNet50\", \"layers\": 50.0}", &m);
    cr_assert_eq(r.rc, 0, "a whole number written as a real is fine: %s", r.err);
    r = resolve_model(cur, "{\"base\": \"ResNet50\", \"type\": \"RNNWorkload\"}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "type");
    r = resolve_model(cur, "{\"base\": 5}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "base");
    r = resolve_model(cur, "42", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"key\": \"x\", \"name\": \"" 
                        "0123456789012345678901234567890123456789012345678901234567890123456789"
                        "0123456789012345678901234567890123456789\"}", &h);
    cr_assert_eq(r.rc, 400, "too long a name");
    cr_assert_str_eq(r.field, "name");
}

Test(catalog, inline_missing_required_is_400)
{
    hw_node h;
    model_t m;
    res r = resolve_hw(cur, "{\"compute\": {\"peak_flops\": \"100 TFLOPs/s\"}, \"memory\": {\"capacity\": \"16 GB\"}}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "memory.bandwidth");
    cr_assert_not_null(strstr(r.err, "required"), "%s", r.err);
    r = resolve_hw(cur, "{\"base\": \"A100\", \"compute.peak_flops\": null}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "compute.peak_flops");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"storage\": {\"bandwidth\": \"7 GB/s\"}}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "storage.capacity");
    r = resolve_hw(cur, "{\"base\": \"A100\", \"interconnect.bandwidth\": null}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "interconnect.bandwidth");
    r = resolve_hw(cur, "{\"base\": \"T4\", \"nvlink\": {\"name\": \"NVLink\"}}", &h);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "nvlink.bandwidth");
    r = resolve_hw(cur, "{}", &h);
    cr_assert_eq(r.rc, 400);
    r = resolve_model(cur, "{\"type\": \"CNNWorkload\", \"parameters\": \"25.6 Mparam\"}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "inference_flops");
    cr_assert_not_null(strstr(r.err, "CNNWorkload"), "%s", r.err);
    r = resolve_model(cur, "{\"type\": \"TransformerWorkload\", \"parameters\": \"7 Bparam\"}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "layers");
    r = resolve_model(cur, "{\"type\": \"SparseTransformerWorkload\", \"parameters\": \"47 Bparam\", \"layers\": 32,"
                           " \"active_parameters\": \"13 Bparam\"}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "experts");
    r = resolve_model(cur, "{\"type\": \"SSMWorkload\", \"parameters\": 1e8, \"layers\": 24, \"hidden_dim\": 768}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "state_size");
    r = resolve_model(cur, "{\"type\": \"DiffusionWorkload\", \"parameters\": 1e8}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "denoising_steps");
    r = resolve_model(cur, "{\"name\": \"nothing\"}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "parameters");
    r = resolve_model(cur, "{\"base\": \"ResNet50\", \"type\": \"TransformerWorkload\", \"layers\": null}", &m);
    cr_assert_eq(r.rc, 400);
    cr_assert_str_eq(r.field, "layers");
}

/* ---- --catalog-dir ------------------------------------------------------ */

typedef struct {
    char dir[64];
    char files[8][128];
    int n;
} tmpdir;

static void td_make(tmpdir *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/mlsysd_catXXXXXX");
    cr_assert_not_null(mkdtemp(t->dir));
    t->n = 0;
}

static const char *td_write(tmpdir *t, const char *name, const char *text)
{
    cr_assert_lt(t->n, 8);
    char path[sizeof t->files[0]];
    snprintf(path, sizeof path, "%s/%s", t->dir, name);
    memcpy(t->files[t->n], path, sizeof path);
    FILE *f = fopen(t->files[t->n], "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return t->files[t->n++];
}

static void td_remove(tmpdir *t)
{
    for (int i = 0; i < t->n; i++)
        remove(t->files[i]);
    rmdir(t->dir);
}

static const char ADD_FILE[] =
    "{\n"
    " \"about\": \"test additions\",\n"
    " \"hardware\": [\n"
    "  {\"key\": \"MyNPU\", \"name\": \"My NPU\", \"release_year\": 2025,\n"
    "   \"compute\": {\"peak_flops\": \"100 TOPS\", \"precision_flops\": {\"INT4\": \"200 TOPS\"}},\n"
    "   \"memory\": {\"capacity\": \"8 GB\", \"bandwidth\": {\"value\": 100, \"unit\": \"GB / s\"}},\n"
    "   \"tdp\": \"10 W\"}\n"
    " ],\n"
    " \"models\": [\n"
    "  {\"key\": \"TinyNet\", \"group\": \"Tiny\", \"type\": \"CNNWorkload\", \"parameters\": \"1 Mparam\",\n"
    "   \"inference_flops\": \"2 MFLOP\"}\n"
    " ],\n"
    " \"aliases\": {\"hardware\": {\"NPU\": \"MyNPU\"}, \"models\": {\"Models.Tiny\": \"TinyNet\"}}\n"
    "}\n";

static const char OVERRIDE_FILE[] =
    "{\"hardware\": [\n"
    " {\"key\": \"a100\", \"name\": \"A100 40GB\",\n"
    "  \"compute\": {\"peak_flops\": {\"value\": 312, \"unit\": \"TFLOPs / s\"}},\n"
    "  \"memory\": {\"capacity\": \"40 GiB\", \"bandwidth\": \"1555 GB/s\"}}\n"
    "]}\n";

Test(catalog, dir_adds_and_overrides)
{
    tmpdir t;
    td_make(&t);
    td_write(&t, "10_add.json", ADD_FILE);
    td_write(&t, "20_override.json", OVERRIDE_FILE);
    td_write(&t, "30_override_again.json",
             "{\"models\": [{\"key\": \"tinynet\", \"type\": \"CNNWorkload\", \"parameters\": 2e6,"
             " \"inference_flops\": 3e6}]}");
    td_write(&t, "readme.txt", "not json");
    catalog *c;
    char err[512];
    int rc = catalog_load(&c, t.dir, err, sizeof err);
    td_remove(&t);
    cr_assert_eq(rc, 0, "%s", err);
    for (size_t ed = 0; ed < 2; ed++) {
        const catalog_edition *e = catalog_edition_at(c, ed);
        cr_assert_eq(edition_hardware_count(e), 46);
        cr_assert_eq(edition_model_count(e), 34);
        const hw_node *n = hw(e, "npu");
        cr_assert_str_eq(n->key, "MyNPU");
        cr_assert_str_eq(n->id, "Hardware.Custom.MyNPU");
        cr_assert_str_eq(n->group, "Custom");
        cr_assert_eq(hw(e, "hardware.custom.mynpu"), n);
        assert_q(n->peak_flops, 100e12);
        assert_q(prec(n, "int4"), 200e12);
        assert_q(n->mem_bandwidth, 100e9);
        assert_q(n->dispatch_tax, 1e-5);
        const json_t *src = json_object_get(edition_hardware_json(e, (size_t)edition_find_hardware(e, "MyNPU")), "source");
        cr_assert_not_null(strstr(json_string_value(json_object_get(src, "path")), "10_add.json"));
        const hw_node *a = hw(e, "Hardware.A100");
        cr_assert_eq(hw(e, "Hardware.Cloud.A100"), a, "a replacement keeps the path it replaces");
        cr_assert_str_eq(a->group, "Cloud");
        cr_assert_str_eq(a->name, "A100 40GB");
        assert_q(a->mem_capacity, 40.0 * 1073741824);
        cr_assert_not(a->has_nvlink);
        cr_assert_eq(a->n_precisions, 0);
        const model_t *m = model(e, "Models.Tiny");
        cr_assert_str_eq(m->key, "tinynet", "the later file replaced the entry");
        assert_q(m->parameters, 2e6);
        cr_assert_eq(model(e, "TINYNET"), m);
        /* the rest is as embedded */
        assert_q(model(e, "ResNet50")->inference_flops, ed ? 4.1e9 : 8.2e9);
        cr_assert_str_neq(edition_version(e), edition_version(ed ? tut : cur));
    }
    catalog_free(c);
}

Test(catalog, dir_broken_json_names_file_and_line)
{
    tmpdir t;
    td_make(&t);
    td_write(&t, "a_good.json", ADD_FILE);
    const char *bad = td_write(&t, "b_bad.json", "{\n \"hardware\": [\n  {\"key\": \"X\",, }\n ]\n}\n");
    catalog *c = NULL;
    char err[512], want[256];
    int rc = catalog_load(&c, t.dir, err, sizeof err);
    td_remove(&t);
    cr_assert_eq(rc, -1);
    cr_assert_null(c);
    snprintf(want, sizeof want, "%s:3:", bad);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got \"%s\", want prefix \"%s\"", err, want);
}

Test(catalog, dir_bad_entry_names_file_and_line)
{
    tmpdir t;
    td_make(&t);
    const char *bad = td_write(&t, "x.json",
                               "{\"hardware\": [\n"
                               " {\"key\": \"Fine\", \"compute\": {\"peak_flops\": 1e12},\n"
                               "  \"memory\": {\"capacity\": 1e9, \"bandwidth\": 1e9}},\n"
                               " {\n"
                               "  \"name\": \"Broken\",\n"
                               "  \"key\": \"Broken\",\n"
                               "  \"compute\": {\"peak_flops\": \"1 TFLOPs/s\"},\n"
                               "  \"memory\": {\"capacity\": \"1 GB/s\", \"bandwidth\": \"1 GB/s\"}\n"
                               " }\n"
                               "]}\n");
    catalog *c = NULL;
    char err[512], want[256];
    int rc = catalog_load(&c, t.dir, err, sizeof err);
    cr_assert_eq(rc, -1);
    snprintf(want, sizeof want, "%s:6: hardware \"Broken\": memory.capacity:", bad);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got \"%s\", want prefix \"%s\"", err, want);

    /* an unknown field, a missing key, an unknown top-level member, a bad alias */
    td_write(&t, "x.json", "{\"models\": [\n {\"key\": \"M\", \"parameters\": 1e6,\n  \"layer\": 3}\n]}\n");
    cr_assert_eq(catalog_load(&c, t.dir, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: model \"M\": layer: unknown field", bad);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got \"%s\"", err);

    td_write(&t, "x.json", "{\"models\": [\n {\"parameters\": 1e6}\n]}\n");
    cr_assert_eq(catalog_load(&c, t.dir, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: model entry #0: key: required", bad);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got \"%s\"", err);

    td_write(&t, "x.json", "{\n \"hardwares\": []\n}\n");
    cr_assert_eq(catalog_load(&c, t.dir, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: unknown top-level member \"hardwares\"", bad);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got \"%s\"", err);

    td_write(&t, "x.json", "{\"aliases\": {\"hardware\": {\n \"Fast\": \"NoSuchThing\"}}}\n");
    cr_assert_eq(catalog_load(&c, t.dir, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: alias \"Fast\"", bad);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got \"%s\"", err);
    td_remove(&t);

    cr_assert_eq(catalog_load(&c, "/nonexistent/mlsysd", err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "/nonexistent/mlsysd"), "%s", err);
}

Test(catalog, empty_dir_is_the_embedded_catalog)
{
    tmpdir t;
    td_make(&t);
    catalog *c;
    char err[256];
    int rc = catalog_load(&c, t.dir, err, sizeof err);
    td_remove(&t);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert_str_eq(edition_version(catalog_edition_at(c, 0)), edition_version(cur));
    catalog_free(c);
}

/* ---- core/model.c helpers ------------------------------------------------ */

Test(catalog, workload_kind_names)
{
    static const workload_kind all[] = {WL_GENERIC, WL_TRANSFORMER, WL_SPARSE_TRANSFORMER, WL_CNN,
                                        WL_SSM, WL_DIFFUSION, WL_EMBODIED};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        workload_kind k;
        cr_assert(workload_kind_parse(workload_kind_name(all[i]), &k));
        cr_assert_eq(k, all[i]);
    }
    cr_assert_str_eq(workload_kind_name(WL_CNN), "CNNWorkload");
    workload_kind k;
    cr_assert(workload_kind_parse("ssmworkload", &k));
    cr_assert_eq(k, WL_SSM);
    cr_assert_not(workload_kind_parse("RNNWorkload", &k));
    cr_assert_not(workload_kind_parse(NULL, &k));
    cr_assert_null(hw_find_precision(NULL, "fp8"));
}
