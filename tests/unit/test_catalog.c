/* test_catalog.c - the catalog: embedded data, both editions, lookups,
 * suggestions, inline entries and --catalog-dir files.
 *
 * The numbers are checked against ../shared/reference/catalog.json (the
 * reference read of mlsysim's registries) where that file is present, and
 * against a few hand-written values (A100, ResNet-50, the tutorial overlay)
 * everywhere. The fleets of the golden cases (tests/golden/) must resolve. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "core/model.h"
#include "golden_files.h"

#ifndef MLSYSD_SHARED_DIR
#define MLSYSD_SHARED_DIR "../shared"
#endif

static catalog *cat;
static const catalog_edition *cur, *tut;
static const catalog_kind *K_HW, *K_MODEL;

static void load(void)
{
    char err[512];
    cr_assert_eq(catalog_load(&cat, NULL, err, sizeof err), 0, "catalog_load: %s", err);
    cur = catalog_edition_find(cat, "current");
    tut = catalog_edition_find(cat, "tutorial");
    cr_assert_not_null(cur);
    cr_assert_not_null(tut);
    K_HW = catalog_kind_of(REC_HARDWARE);
    K_MODEL = catalog_kind_of(REC_MODEL);
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

static const hw_node *hw_at(const catalog_edition *e, size_t i)
{
    return edition_record(e, K_HW, i);
}

static const hw_node *hw(const catalog_edition *e, const char *id)
{
    long i = edition_find(e, K_HW, id);
    cr_assert_geq(i, 0, "hardware %s not found in %s", id, edition_name(e));
    return edition_record(e, K_HW, (size_t)i);
}

static const model_t *model(const catalog_edition *e, const char *id)
{
    long i = edition_find(e, K_MODEL, id);
    cr_assert_geq(i, 0, "model %s not found in %s", id, edition_name(e));
    return edition_record(e, K_MODEL, (size_t)i);
}

static const json_t *hw_json(const catalog_edition *e, const char *id)
{
    return edition_entry_json(e, K_HW, (size_t)edition_find(e, K_HW, id));
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
    r.rc = edition_resolve(e, K_HW, v, out, r.field, sizeof r.field, r.err, sizeof r.err);
    json_decref(v);
    return r;
}

static res resolve_model(const catalog_edition *e, const char *text, model_t *out)
{
    res r;
    json_t *v = J(text);
    r.rc = edition_resolve(e, K_MODEL, v, out, r.field, sizeof r.field, r.err, sizeof r.err);
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
        cr_assert_eq(edition_count(e, K_HW), 45);
        cr_assert_eq(edition_count(e, K_MODEL), 33);
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

/* Versions are computed on first use: threads asking at once all get the one hash. */
static void *ask_versions(void *arg)
{
    const catalog *c = arg;
    static char got[8][2][17];
    static _Atomic int next;
    int me = atomic_fetch_add(&next, 1) % 8;
    for (size_t e = 0; e < 2; e++)
        snprintf(got[me][e], sizeof got[me][e], "%s", edition_version(catalog_edition_at(c, e)));
    return got[me];
}

Test(catalog, version_on_first_use_from_many_threads)
{
    catalog *c3;
    char err[256];
    cr_assert_eq(catalog_load(&c3, NULL, err, sizeof err), 0, "%s", err);
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, ask_versions, c3), 0);
    for (int i = 0; i < 8; i++) {
        char(*got)[17];
        cr_assert_eq(pthread_join(t[i], (void **)&got), 0);
        cr_assert_str_eq(got[0], edition_version(cur));
        cr_assert_str_eq(got[1], edition_version(tut));
    }
    catalog_warm(c3); /* already computed: changes nothing */
    cr_assert_str_eq(edition_version(catalog_edition_at(c3, 0)), edition_version(cur));
    catalog_free(c3);
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
    for (size_t i = 0; i < edition_count(cur, K_HW); i++) {
        const json_t *a = edition_entry_json(cur, K_HW, i), *b = edition_entry_json(tut, K_HW, i);
        const char *key = hw_at(cur, i)->key;
        bool listed = false;
        for (size_t j = 0; j < sizeof hw_changed / sizeof *hw_changed; j++)
            listed = listed || strcmp(hw_changed[j], key) == 0;
        cr_assert_str_eq(key, hw_at(tut, i)->key, "same order in both editions");
        if (json_equal(a, b)) {
            cr_assert_not(listed, "%s should differ", key);
            cr_assert_eq(memcmp(edition_record(cur, K_HW, i), edition_record(tut, K_HW, i), sizeof(hw_node)), 0);
        } else {
            cr_assert(listed, "%s differs but is not in the overlay", key);
            cr_assert_not_null(json_object_get(b, "edition_overrides"));
            cr_assert_null(json_object_get(a, "edition_overrides"));
            nchanged++;
        }
    }
    cr_assert_eq(nchanged, sizeof hw_changed / sizeof *hw_changed);
    size_t mchanged = 0;
    for (size_t i = 0; i < edition_count(cur, K_MODEL); i++)
        if (!json_equal(edition_entry_json(cur, K_MODEL, i), edition_entry_json(tut, K_MODEL, i)))
            mchanged++;
        else
            cr_assert_eq(memcmp(edition_record(cur, K_MODEL, i), edition_record(tut, K_MODEL, i), sizeof(model_t)), 0);
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
    cr_assert_eq(json_array_size(hws), edition_count(cur, K_HW));
    json_array_foreach(hws, i, e) {
        const char *key = json_string_value(json_object_get(e, "key"));
        const hw_node *h = hw(cur, key);
        cr_assert_eq(edition_find(cur, K_HW, json_string_value(json_object_get(e, "id"))),
                     edition_find(cur, K_HW, key));
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
        cr_assert(json_equal(want, edition_entry_json(cur, K_HW, (size_t)edition_find(cur, K_HW, key))),
                  "%s JSON differs from the reference", key);
        json_decref(want);
    }
    json_t *ms = json_object_get(ref, "models");
    cr_assert_eq(json_array_size(ms), edition_count(cur, K_MODEL));
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
        /* The project adds the layer-shape counts of tools/cnn_shapes.py. */
        json_t *have = json_deep_copy(edition_entry_json(cur, K_MODEL, (size_t)edition_find(cur, K_MODEL, key)));
        json_object_del(have, "architecture_flops");
        json_object_del(have, "activation_elements");
        json_object_del(have, "architecture_layers");
        cr_assert(json_equal(want, have), "%s JSON differs from the reference", key);
        json_decref(have);
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
            const json_t *node = json_object_get(edition_entry_json(tut, K_MODEL, (size_t)edition_find(tut, K_MODEL, key)), fp);
            assert_q(json_number_value(json_object_get(node, "si")), json_number_value(json_object_get(v, "si")));
        }
    }
    json_decref(ov);
}

/* ---- lookups and suggestions -------------------------------------------- */

Test(catalog, lookups)
{
    long a = edition_find(cur, K_HW, "A100");
    cr_assert_geq(a, 0);
    static const char *const same[] = {"a100", "Hardware.Cloud.A100", "HARDWARE.CLOUD.A100",
                                       "Hardware.A100", "hardware.a100"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        cr_assert_eq(edition_find(cur, K_HW, same[i]), a, "%s", same[i]);
    cr_assert_eq(edition_find(tut, K_HW, "hardware.a100"), a);
    cr_assert_str_eq(hw(cur, "Hardware.NVL72")->key, "GB200_NVL72");
    cr_assert_str_eq(hw(cur, "Hardware.Edge.Generic_Phone")->key, "iPhone15Pro");
    cr_assert_str_eq(hw(cur, "hardware.jetson")->key, "JetsonOrinNX");
    cr_assert_eq(edition_find(cur, K_HW, "Hardware.Networks"), -1);
    cr_assert_eq(edition_find(cur, K_HW, "A10"), -1);
    cr_assert_eq(edition_find(cur, K_HW, ""), -1);
    cr_assert_eq(edition_find(cur, K_HW, NULL), -1);
    cr_assert_eq(edition_find(cur, K_HW, "ResNet50"), -1, "kinds are separate");

    long r = edition_find(cur, K_MODEL, "ResNet50");
    cr_assert_geq(r, 0);
    cr_assert_eq(edition_find(cur, K_MODEL, "resnet50"), r);
    cr_assert_eq(edition_find(cur, K_MODEL, "Models.Vision.ResNet50"), r);
    cr_assert_eq(edition_find(cur, K_MODEL, "models.resnet50"), r);
    cr_assert_eq(edition_find(cur, K_MODEL, "Models.ResNet50"), r);
    cr_assert_str_eq(model(cur, "Models.Mamba_2_8B")->key, "Mamba_2_8B");
    cr_assert_eq(edition_find(cur, K_MODEL, "Models.AlexNet"), edition_find(cur, K_MODEL, "AlexNet"));
    cr_assert_eq(edition_find(cur, K_MODEL, "A100"), -1);
    for (size_t i = 0; i < edition_count(cur, K_HW); i++) {
        const hw_node *h = edition_record(cur, K_HW, i);
        cr_assert_eq(edition_find(cur, K_HW, h->key), (long)i);
        cr_assert_eq(edition_find(cur, K_HW, h->id), (long)i);
    }
    for (size_t i = 0; i < edition_count(cur, K_MODEL); i++) {
        const model_t *m = edition_record(cur, K_MODEL, i);
        cr_assert_eq(edition_find(cur, K_MODEL, m->key), (long)i);
        cr_assert_eq(edition_find(cur, K_MODEL, m->id), (long)i);
    }
    cr_assert_null(edition_record(cur, K_HW, 45));
    cr_assert_null(edition_entry_json(cur, K_MODEL, 33));
}

Test(catalog, suggestions)
{
    const char *s[5];
    int n = edition_suggest(cur, K_HW, "A10", s, 5);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(s[0], "A100");
    n = edition_suggest(cur, K_MODEL, "resnet", s, 5);
    cr_assert_geq(n, 2);
    cr_assert_str_eq(s[0], "ResNet18");
    cr_assert_str_eq(s[1], "ResNet50");
    n = edition_suggest(cur, K_HW, "H1OO", s, 5);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(s[0], "H100");
    n = edition_suggest(cur, K_HW, "Hardware.Cloud.A10", s, 5);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(s[0], "A100");
    n = edition_suggest(cur, K_HW, "jetson", s, 5);
    cr_assert_eq(n, 3);
    n = edition_suggest(cur, K_MODEL, "lama3_8b", s, 1);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(s[0], "Llama3_8B");
    n = edition_suggest(cur, K_MODEL, "resnet", s, 1);
    cr_assert_eq(n, 1, "max is respected");
    cr_assert_eq(edition_suggest(cur, K_HW, "qqqqqqqqqqqq", s, 5), 0);
    cr_assert_eq(edition_suggest(cur, K_HW, "", s, 5), 0);
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
    const json_t *r = edition_entry_json(cur, K_MODEL, (size_t)edition_find(cur, K_MODEL, "ResNet50"));
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
    const json_t *j = edition_entry_json(cur, K_MODEL, (size_t)edition_find(cur, K_MODEL, "ResNet50"));
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
        cr_assert_eq(edition_count(e, K_HW), 46);
        cr_assert_eq(edition_count(e, K_MODEL), 34);
        const hw_node *n = hw(e, "npu");
        cr_assert_str_eq(n->key, "MyNPU");
        cr_assert_str_eq(n->id, "Hardware.Custom.MyNPU");
        cr_assert_str_eq(n->group, "Custom");
        cr_assert_eq(hw(e, "hardware.custom.mynpu"), n);
        assert_q(n->peak_flops, 100e12);
        assert_q(prec(n, "int4"), 200e12);
        assert_q(n->mem_bandwidth, 100e9);
        assert_q(n->dispatch_tax, 1e-5);
        const json_t *src = json_object_get(edition_entry_json(e, K_HW, (size_t)edition_find(e, K_HW, "MyNPU")), "source");
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

/* ---- every kind ------------------------------------------------------------ */

Test(catalog, kinds_table)
{
    static const char *const plural[] = {"hardware", "models", "grids", "cooling", "datacenters",
                                         "racks", "nodes", "fabrics", "clusters", "datasets",
                                         "reliability", "prices", "network", "pods", "infrastructure"};
    cr_assert_eq(catalog_kind_count(), sizeof plural / sizeof *plural);
    for (size_t i = 0; i < catalog_kind_count(); i++) {
        const catalog_kind *k = catalog_kind_at(i);
        cr_assert_str_eq(catalog_kind_name(k), plural[i]);
        cr_assert_eq(catalog_kind_find(catalog_kind_name(k)), k);
        cr_assert_eq(catalog_kind_find(catalog_kind_singular(k)), k);
        if (catalog_kind_record(k) >= 0) {
            cr_assert_eq(catalog_kind_of((record_kind)catalog_kind_record(k)), k);
            cr_assert_gt(catalog_kind_record_size(k), sizeof(rec_ident));
            cr_assert_not_null(edition_record(cur, k, 0));
        } else {
            cr_assert_eq(catalog_kind_record_size(k), 0);
            cr_assert_null(edition_record(cur, k, 0));
            cr_assert_not_null(edition_entry_json(cur, k, 0));
        }
    }
    for (int r = 0; r < REC_N_KINDS; r++)
        cr_assert_not_null(catalog_kind_of((record_kind)r), "record kind %d has no catalog kind", r);
    cr_assert_null(catalog_kind_at(catalog_kind_count()));
    cr_assert_eq(catalog_kind_find("FABRIC"), catalog_kind_find("fabrics"));
    cr_assert_str_eq(catalog_kind_singular(catalog_kind_find("Clusters")), "cluster");
    cr_assert_eq(catalog_kind_of(REC_CLUSTER), catalog_kind_find("clusters"));
    cr_assert_eq(catalog_kind_record(catalog_kind_find("prices")), -1);
    cr_assert_null(catalog_kind_find("gpus"));
    cr_assert_null(catalog_kind_find(NULL));
    cr_assert_null(catalog_kind_of(REC_N_KINDS));
}

/* Where each kind's entries are in the reference, as tools/gen_catalog.py
 * maps them: a section, the reference kinds taken from it (NULL: all),
 * and whether the key is "<namespace>.<key>". */
typedef struct {
    const char *kind, *section, *ref_kinds;
    bool ns_key;
} ref_map;

static const ref_map REF_MAP[] = {
    {"hardware", "hardware", NULL, false},
    {"models", "models", NULL, false},
    {"grids", "infrastructure", "grid", false},
    {"cooling", "infrastructure", "cooling", false},
    {"datacenters", "infrastructure", "datacenter", false},
    {"racks", "infrastructure", "rack", false},
    {"nodes", "systems", "node", false},
    {"fabrics", "systems", "fabric", false},
    {"clusters", "systems", "cluster", false},
    {"datasets", "datasets", NULL, false},
    {"reliability", "systems", "reliability_component reliability_scalar recovery_profile", false},
    {"prices", "infrastructure", "price", true},
    {"network", "systems", "switch_fabric_scalar network_energy_scalar", false},
    {"pods", "systems", "pod", false},
    {"infrastructure", "infrastructure", "capacity scalar", false},
};

static bool takes(const ref_map *m, const json_t *r)
{
    if (m->ref_kinds == NULL)
        return true;
    char want[64], list[128];
    snprintf(want, sizeof want, " %s ", json_string_value(json_object_get(r, "kind")));
    snprintf(list, sizeof list, " %s ", m->ref_kinds);
    return strstr(list, want) != NULL;
}

static void ref_key(const ref_map *m, const json_t *r, char *out, size_t n)
{
    if (m->ns_key)
        snprintf(out, n, "%s.%s", json_string_value(json_object_get(r, "namespace")),
                 json_string_value(json_object_get(r, "key")));
    else
        snprintf(out, n, "%s", json_string_value(json_object_get(r, "key")));
}

static json_t *overlay_file(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reference/edition_tutorial.json", MLSYSD_SHARED_DIR);
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    cr_assert_not_null(o, "%s: %s", path, je.text);
    return o;
}

/* The overlay's changes to one entry (NULL if none), as the kinds table
 * places them ("hardware", "models", "systems.nodes"). */
static const json_t *overlay_changes(const json_t *ov, const char *kind, const char *key)
{
    const json_t *sec = json_object_get(ov, kind);
    if (strcmp(kind, "nodes") == 0)
        sec = json_object_get(json_object_get(ov, "systems"), "nodes");
    if (strcmp(kind, "hardware") != 0 && strcmp(kind, "models") != 0 && strcmp(kind, "nodes") != 0)
        return NULL;
    return json_object_get(sec, key);
}

/* Compare every member of a reference entry with the served entry: a
 * quantity by its SI value, anything else as JSON; where the overlay
 * changes a (dotted) path, against the overlay. Returns how many values
 * were compared. */
static size_t compare_entry(const json_t *r, const json_t *got, const json_t *changes,
                            const char *prefix, const char *what)
{
    size_t n = 0;
    const char *name;
    json_t *rv;
    json_object_foreach((json_t *)r, name, rv) {
        if (prefix[0] == '\0' && (strcmp(name, "kind") == 0 || strcmp(name, "variants") == 0 ||
                                  strcmp(name, "lowered") == 0 || strcmp(name, "key") == 0))
            continue;
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", name);
        if (changes != NULL && strcmp(path, "ridge_point_flop_per_byte") == 0)
            continue; /* derived from the overlaid numbers (tutorial_overlay_every_difference) */
        const json_t *gv = json_object_get(got, name);
        const json_t *want = rv;
        if (changes != NULL && json_object_get(changes, path) != NULL)
            want = json_object_get(changes, path);
        const json_t *wsi = json_object_get(want, "si");
        if (json_is_null(want)) {
            cr_assert(gv == NULL || json_is_null(gv), "%s: %s should be null", what, path);
            n++;
        } else if (json_is_object(want) && json_is_number(wsi)) {
            cr_assert(json_is_object(gv), "%s: %s missing", what, path);
            const json_t *gsi = json_object_get(gv, "si");
            cr_assert(json_is_number(gsi), "%s: %s has no si", what, path);
            cr_assert(rel_eq(json_number_value(gsi), json_number_value(wsi)), "%s: %s = %.17g, want %.17g",
                      what, path, json_number_value(gsi), json_number_value(wsi));
            if (want == rv)
                cr_assert(json_equal(json_object_get(gv, "unit"), json_object_get(rv, "unit")),
                          "%s: %s unit", what, path);
            n++;
        } else if (json_is_object(want) && json_is_object(gv)) {
            n += compare_entry(want, gv, changes, path, what);
        } else if (json_is_number(want)) {
            cr_assert(json_is_number(gv) && rel_eq(json_number_value(gv), json_number_value(want)),
                      "%s: %s", what, path);
            n++;
        } else {
            cr_assert(json_equal(gv, want), "%s: %s differs", what, path);
            n++;
        }
    }
    return n;
}

Test(catalog, every_entry_of_every_kind_matches_reference)
{
    json_t *ref = reference();
    if (ref == NULL)
        cr_skip_test("../shared/reference/catalog.json not found");
    json_t *ov = overlay_file();
    cr_assert_eq(sizeof REF_MAP / sizeof *REF_MAP, catalog_kind_count());
    size_t entries = 0, values = 0;
    for (size_t m = 0; m < sizeof REF_MAP / sizeof *REF_MAP; m++) {
        const catalog_kind *k = catalog_kind_find(REF_MAP[m].kind);
        cr_assert_not_null(k, "%s", REF_MAP[m].kind);
        for (size_t ed = 0; ed < 2; ed++) {
            const catalog_edition *e = catalog_edition_at(cat, ed);
            size_t n = 0, i;
            json_t *r;
            json_array_foreach(json_object_get(ref, REF_MAP[m].section), i, r) {
                if (!takes(&REF_MAP[m], r))
                    continue;
                char key[128], what[200];
                ref_key(&REF_MAP[m], r, key, sizeof key);
                snprintf(what, sizeof what, "%s %s/%s", edition_name(e), REF_MAP[m].kind, key);
                long idx = edition_find(e, k, json_string_value(json_object_get(r, "id")));
                cr_assert_geq(idx, 0, "%s not found by its path", what);
                cr_assert_eq(edition_find(e, k, key), idx, "%s not found by its key", what);
                const json_t *got = edition_entry_json(e, k, (size_t)idx);
                cr_assert_str_eq(json_string_value(json_object_get(got, "key")), key);
                cr_assert(json_is_object(json_object_get(got, "source")) ||
                          json_is_string(json_object_get(got, "source")), "%s has no source", what);
                const json_t *changes = ed ? overlay_changes(ov, REF_MAP[m].kind, key) : NULL;
                values += compare_entry(r, got, changes, "", what);
                n++;
            }
            cr_assert_eq(edition_count(e, k), n, "%s %s: %zu entries, the reference has %zu",
                         edition_name(e), REF_MAP[m].kind, edition_count(e, k), n);
            entries += n;
        }
    }
    cr_assert_eq(entries, 2 * (45 + 33 + 12 + 6 + 7 + 3 + 3 + 10 + 7 + 8 + 12 + 25 + 11 + 1 + 4));
    cr_assert_gt(values, 2000);
    json_decref(ov);
    json_decref(ref);
}

static const void *rec_of(const catalog_edition *e, const char *kind, const char *id)
{
    const catalog_kind *k = catalog_kind_find(kind);
    long i = edition_find(e, k, id);
    cr_assert_geq(i, 0, "%s %s not in %s", kind, id, edition_name(e));
    return edition_record(e, k, (size_t)i);
}

static double num(const json_t *o, const char *name)
{
    const json_t *v = json_object_get(o, name);
    if (json_is_object(v))
        v = json_object_get(v, "si");
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The records solvers compute on, field by field against the reference,
 * in both editions; references embedded as their edition has them. */
Test(catalog, records_match_reference)
{
    json_t *ref = reference();
    if (ref == NULL)
        cr_skip_test("../shared/reference/catalog.json not found");
    json_t *ov = overlay_file();
    size_t checked = 0;
    for (size_t ed = 0; ed < 2; ed++) {
        const catalog_edition *e = catalog_edition_at(cat, ed);
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(ref, "systems"), i, r) {
            const char *kind = json_string_value(json_object_get(r, "kind"));
            const char *id = json_string_value(json_object_get(r, "id"));
            if (strcmp(kind, "node") == 0) {
                const node_t *n = rec_of(e, "nodes", id);
                const hw_node *acc = hw(e, json_string_value(json_object_get(r, "accelerator")));
                cr_assert_eq(memcmp(&n->accelerator, acc, sizeof *acc), 0, "%s accelerator", id);
                cr_assert_eq(n->accelerators_per_node, ref_i(r, "accelerators_per_node"));
                double bw = num(r, "intra_node_bw");
                const json_t *c = ed ? overlay_changes(ov, "nodes", n->key) : NULL;
                if (c != NULL)
                    bw = num(c, "intra_node_bw");
                assert_q(n->intra_node_bw, bw);
                cr_assert_eq(n->nics_per_node, ref_i(r, "nics_per_node"));
                cr_assert_eq(n->psus_per_node, ref_i(r, "psus_per_node"));
            } else if (strcmp(kind, "fabric") == 0) {
                const fabric_t *f = rec_of(e, "fabrics", id);
                assert_q(f->bandwidth, num(r, "bandwidth"));
                assert_q(f->latency, num(r, "latency"));
                assert_q(f->oversubscription_ratio, num(r, "oversubscription_ratio"));
                cr_assert_str_eq(f->topology, json_string_value(json_object_get(r, "topology")));
            } else if (strcmp(kind, "cluster") == 0) {
                const fleet_t *f = rec_of(e, "clusters", id);
                const node_t *n = rec_of(e, "nodes", json_string_value(json_object_get(r, "node")));
                const fabric_t *fb = rec_of(e, "fabrics", json_string_value(json_object_get(r, "fabric")));
                cr_assert_eq(memcmp(&f->node, n, sizeof *n), 0, "%s embeds its edition's node", id);
                cr_assert_eq(memcmp(&f->fabric, fb, sizeof *fb), 0, "%s fabric", id);
                cr_assert_eq(f->count, ref_i(r, "count"));
                assert_q(fleet_total_accelerators(f), num(r, "total_accelerators"));
                cr_assert_eq(f->has_region, !json_is_null(json_object_get(r, "region")));
                cr_assert_eq(f->has_datacenter, !json_is_null(json_object_get(r, "datacenter")));
                cr_assert(isnan(f->mtbf_hours));
                assert_q(fleet_effective_pue(f), num(r, "effective_pue_default"));
            } else {
                continue;
            }
            checked++;
        }
        json_array_foreach(json_object_get(ref, "infrastructure"), i, r) {
            const char *kind = json_string_value(json_object_get(r, "kind"));
            const char *id = json_string_value(json_object_get(r, "id"));
            if (strcmp(kind, "grid") == 0) {
                const grid_t *g = rec_of(e, "grids", id);
                assert_q(g->carbon_intensity_g_kwh, num(r, "carbon_intensity_g_kwh"));
                assert_q(g->pue, num(r, "pue"));
                assert_q(g->wue, num(r, "wue_l_per_kwh"));
                cr_assert_str_eq(g->primary_source, json_string_value(json_object_get(r, "primary_source")));
            } else if (strcmp(kind, "cooling") == 0) {
                const cooling_t *c = rec_of(e, "cooling", id);
                assert_q(c->pue, num(r, "pue"));
                assert_q(c->wue, num(r, "wue_l_per_kwh"));
            } else if (strcmp(kind, "datacenter") == 0) {
                const datacenter_t *d = rec_of(e, "datacenters", id);
                const grid_t *g = rec_of(e, "grids", json_string_value(json_object_get(r, "grid")));
                cr_assert_eq(memcmp(&d->grid, g, sizeof *g), 0, "%s grid", id);
                cr_assert(isnan(d->pue_override));
                assert_q(datacenter_pue(d), num(r, "pue"));
            } else if (strcmp(kind, "rack") == 0) {
                const rack_t *k = rec_of(e, "racks", id);
                assert_q(k->power, num(r, "power_si_W"));
                assert_q(k->power, 1e3 * num(r, "power_kw"));
                cr_assert_str_eq(k->cooling_type, json_string_value(json_object_get(r, "cooling_type")));
            } else {
                continue;
            }
            checked++;
        }
        json_array_foreach(json_object_get(ref, "datasets"), i, r) {
            const dataset_t *d = rec_of(e, "datasets", json_string_value(json_object_get(r, "id")));
            assert_q(d->training_examples, num(r, "training_examples"));
            assert_q(d->validation_examples, num(r, "validation_examples"));
            assert_q(d->test_examples, num(r, "test_examples"));
            assert_q(d->full_examples, num(r, "full_examples"));
            cr_assert_eq(d->num_classes, ref_i(r, "num_classes"));
            cr_assert_eq(d->image_width, ref_i(r, "image_width"));
            cr_assert_eq(d->image_height, ref_i(r, "image_height"));
            cr_assert_eq(d->image_channels, ref_i(r, "image_channels"));
            assert_q(d->sample_duration, num(r, "sample_duration"));
            assert_q(d->sample_rate, num(r, "sample_rate"));
            assert_q(d->sample_width, num(r, "sample_width"));
            checked++;
        }
    }
    cr_assert_eq(checked, 2 * (3 + 10 + 7 + 12 + 6 + 7 + 3 + 8));
    json_decref(ov);
    json_decref(ref);
}

/* Hand-checked, so these hold without the reference files too. */
Test(catalog, systems_by_hand)
{
    const fleet_t *c = rec_of(cur, "clusters", "Research_256");
    cr_assert_str_eq(c->node.key, "DGX_H100");
    cr_assert_str_eq(c->node.accelerator.key, "H100");
    assert_q(c->node.intra_node_bw, 900e9);
    cr_assert_eq(c->count, 32);
    assert_q(fleet_total_accelerators(c), 256);
    cr_assert_str_eq(c->fabric.key, "Ethernet_100G");
    assert_q(c->fabric.bandwidth, 100e9 / 8);
    assert_q(c->fabric.latency, 50e-6);
    assert_q(fleet_effective_pue(c), FLEET_DEFAULT_PUE);
    /* tutorial: every cluster on DGX_H100 carries the overlaid node */
    const catalog_kind *ck = catalog_kind_find("clusters");
    size_t on_h100 = 0;
    for (size_t i = 0; i < edition_count(tut, ck); i++) {
        const fleet_t *f = edition_record(tut, ck, i), *g = edition_record(cur, ck, i);
        cr_assert_str_eq(f->key, g->key);
        if (strcmp(f->node.key, "DGX_H100") != 0)
            continue;
        on_h100++;
        assert_q(f->node.intra_node_bw, 450e9);
        assert_q(g->node.intra_node_bw, 900e9);
        cr_assert_eq(memcmp(&f->node.accelerator, hw(tut, "H100"), sizeof(hw_node)), 0,
                     "and the tutorial H100 (unit_cost 25000)");
        assert_q(f->node.accelerator.unit_cost, 25000);
    }
    cr_assert_eq(on_h100, 7);
    assert_q(((const node_t *)rec_of(tut, "nodes", "DGX_A100"))->intra_node_bw, 300e9);
    assert_q(((const node_t *)rec_of(tut, "nodes", "DGX_B200"))->intra_node_bw, 900e9);
    assert_q(((const node_t *)rec_of(cur, "nodes", "DGX_B200"))->intra_node_bw, 1800e9);
    const json_t *nj = edition_entry_json(tut, catalog_kind_find("nodes"),
                                          (size_t)edition_find(tut, catalog_kind_find("nodes"), "DGX_H100"));
    cr_assert_not_null(json_object_get(nj, "edition_overrides"));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(nj, "intra_node_bw"), "si_unit")), "B/s");

    const datacenter_t *d = rec_of(cur, "datacenters", "Poland_Coal");
    cr_assert_str_eq(d->grid.key, "Poland");
    assert_q(datacenter_pue(d), 1.58);
    const grid_t *q = rec_of(cur, "grids", "infrastructure.grids.quebec");
    assert_q(q->carbon_intensity_g_kwh, 20);
    assert_q(q->pue, 1.06);
    assert_q(q->wue, 0);
    cr_assert_str_eq(q->primary_source, "hydro");
    const fabric_t *ndr = rec_of(cur, "fabrics", "SYSTEMS.FABRICS.infiniband_ndr");
    assert_q(ndr->bandwidth, 50e9);
    assert_q(ndr->latency, 5e-6);
    assert_q(ndr->oversubscription_ratio, 1.0);
    const dataset_t *im = rec_of(cur, "datasets", "imagenet");
    assert_q(im->training_examples, 1281167);
    cr_assert_eq(im->num_classes, 1000);
    cr_assert(isnan(im->sample_rate));
    const rack_t *rk = rec_of(cur, "racks", "AI_High");
    assert_q(rk->power, 100e3);
    /* display-only tables: found by key and path, no record */
    const catalog_kind *pk = catalog_kind_find("prices");
    long p = edition_find(cur, pk, "OnPremises.ElectricityPerKwh");
    cr_assert_geq(p, 0);
    cr_assert_eq(edition_find(cur, pk, "Infrastructure.Pricing.OnPremises.ElectricityPerKwh"), p);
    cr_assert_neq(edition_find(cur, pk, "cloud.electricityperkwh"), p);
    cr_assert_eq(edition_find(cur, pk, "ElectricityPerKwh"), -1, "ambiguous without its namespace");
    assert_q(num(edition_entry_json(cur, pk, (size_t)p), "rate"), 0.07 / 3.6e6);
    const catalog_kind *rl = catalog_kind_find("reliability");
    long g = edition_find(cur, rl, "Systems.Reliability.Gpu");
    cr_assert_geq(g, 0);
    assert_q(num(edition_entry_json(cur, rl, (size_t)g), "mttf_hours"), 50000);
}

Test(catalog, other_kinds_lookups_and_suggestions)
{
    const char *s[5];
    const catalog_kind *nodes = catalog_kind_find("nodes"), *fab = catalog_kind_find("fabrics"),
                       *grids = catalog_kind_find("grids"), *cl = catalog_kind_find("clusters");
    cr_assert_eq(edition_find(cur, nodes, "dgx_h100"), edition_find(cur, nodes, "Systems.Nodes.DGX_H100"));
    cr_assert_eq(edition_find(cur, nodes, "InfiniBand_NDR"), -1, "kinds are separate");
    cr_assert_eq(edition_find(cur, grids, "Nowhere"), -1);
    int n = edition_suggest(cur, nodes, "DGX_H10", s, 5);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(s[0], "DGX_H100");
    n = edition_suggest(cur, fab, "infiniband", s, 5);
    cr_assert_eq(n, 4);
    n = edition_suggest(cur, grids, "quebek", s, 5);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(s[0], "Quebec");
    n = edition_suggest(cur, cl, "research", s, 5);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(s[0], "Research_256");
    n = edition_suggest(cur, catalog_kind_find("prices"), "ElectricityPerKwh", s, 5);
    cr_assert_eq(n, 2);
}

Test(catalog, summaries)
{
    const catalog_kind *cl = catalog_kind_find("clusters");
    json_t *sm = edition_entry_summary(tut, cl, (size_t)edition_find(tut, cl, "Frontier_8K"));
    cr_assert_str_eq(json_string_value(json_object_get(sm, "key")), "Frontier_8K");
    cr_assert_str_eq(json_string_value(json_object_get(sm, "node")), "DGX_H100");
    cr_assert_str_eq(json_string_value(json_object_get(sm, "fabric")), "InfiniBand_NDR");
    cr_assert_eq(json_integer_value(json_object_get(sm, "count")), 1024);
    cr_assert(json_is_null(json_object_get(sm, "region")));
    json_decref(sm);
    const catalog_kind *pk = catalog_kind_find("prices");
    sm = edition_entry_summary(cur, pk, (size_t)edition_find(cur, pk, "Cloud.GpuTrainingPerHour"));
    cr_assert_str_eq(json_string_value(json_object_get(sm, "group")), "Cloud");
    assert_q(json_number_value(json_object_get(sm, "rate")), 4.0 / 3600);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(sm, "units"), "rate")), "USD/s");
    json_decref(sm);
    const catalog_kind *nk = catalog_kind_find("nodes");
    sm = edition_entry_summary(tut, nk, 0);
    assert_q(json_number_value(json_object_get(sm, "intra_node_bw")), 450e9);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(sm, "units"), "intra_node_bw")), "B/s");
    json_decref(sm);
    /* every entry of every kind has a summary with its key */
    for (size_t k = 0; k < catalog_kind_count(); k++)
        for (size_t i = 0; i < edition_count(cur, catalog_kind_at(k)); i++) {
            sm = edition_entry_summary(cur, catalog_kind_at(k), i);
            cr_assert_str_eq(json_string_value(json_object_get(sm, "key")),
                             json_string_value(json_object_get(edition_entry_json(cur, catalog_kind_at(k), i), "key")));
            json_decref(sm);
        }
    cr_assert_null(edition_entry_summary(cur, nk, 3));
}

/* ---- fleets and other references in requests ---------------------------------- */

static res resolve_kind(const catalog_edition *e, const char *kind, const char *text, void *out)
{
    res r;
    json_t *v = J(text);
    r.rc = edition_resolve(e, catalog_kind_find(kind), v, out, r.field, sizeof r.field, r.err, sizeof r.err);
    json_decref(v);
    return r;
}

/* A fleet as a request gives it, checked member by member against what
 * the request says (ids looked up in the same edition). */
static void check_fleet(const catalog_edition *e, const json_t *in, const fleet_t *f)
{
    if (json_is_string(in)) {
        cr_assert_eq(memcmp(f, rec_of(e, "clusters", json_string_value(in)), sizeof *f), 0);
        return;
    }
    const json_t *node = json_object_get(in, "node"), *fab = json_object_get(in, "fabric"),
                 *reg = json_object_get(in, "region");
    cr_assert_eq(f->count, (int)json_integer_value(json_object_get(in, "count")));
    if (json_is_string(node)) {
        cr_assert_eq(memcmp(&f->node, rec_of(e, "nodes", json_string_value(node)), sizeof f->node), 0);
    } else {
        const char *acc = json_string_value(json_object_get(node, "accelerator"));
        cr_assert_eq(memcmp(&f->node.accelerator, hw(e, acc), sizeof(hw_node)), 0);
        cr_assert_eq(f->node.accelerators_per_node, (int)json_integer_value(json_object_get(node, "accelerators_per_node")));
        cr_assert_eq(f->node.nics_per_node, (int)json_integer_value(json_object_get(node, "nics_per_node")));
        cr_assert_eq(f->node.psus_per_node, (int)json_integer_value(json_object_get(node, "psus_per_node")));
        assert_q(f->node.intra_node_bw, 1e9 * atof(json_string_value(json_object_get(node, "intra_node_bw"))));
        cr_assert_str_eq(f->node.name, json_string_value(json_object_get(node, "name")));
    }
    if (json_is_string(fab)) {
        cr_assert_eq(memcmp(&f->fabric, rec_of(e, "fabrics", json_string_value(fab)), sizeof f->fabric), 0);
    } else {
        assert_q(f->fabric.bandwidth, 1e9 / 8 * atof(json_string_value(json_object_get(fab, "bandwidth"))));
        assert_q(f->fabric.latency, 1e-6 * atof(json_string_value(json_object_get(fab, "latency"))));
        assert_q(f->fabric.oversubscription_ratio, json_number_value(json_object_get(fab, "oversubscription_ratio")));
        cr_assert_str_eq(f->fabric.topology, "fat-tree");
    }
    cr_assert_eq(f->has_region, reg != NULL && !json_is_null(reg));
    if (f->has_region)
        cr_assert_eq(memcmp(&f->region, rec_of(e, "grids", json_string_value(reg)), sizeof f->region), 0);
    cr_assert_not(f->has_datacenter);
}

Test(catalog, golden_fleets_resolve)
{
    static const char *const files[] = {"breadth_cases.jsonl", "current_breadth_cases.jsonl"};
    const catalog_kind *cl = catalog_kind_find("clusters");
    size_t fleets = 0, refs = 0;
    for (size_t fi = 0; fi < 2; fi++) {
        char path[1024];
        cr_assert(golden_path(files[fi], path, sizeof path), "%s is in neither %s nor %s", files[fi],
                  golden_vendored_dir(), golden_shared_dir());
        FILE *fp = fopen(path, "r");
        cr_assert_not_null(fp, "cannot read %s", path);
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, fp) > 0) {
            json_t *c = J(line);
            const catalog_edition *e = catalog_edition_find(cat, json_string_value(json_object_get(c, "catalog")));
            cr_assert_not_null(e);
            const json_t *in = json_object_get(c, "inputs");
            const json_t *fl = json_object_get(in, "fleet");
            if (fl != NULL && !json_is_null(fl)) {
                fleet_t f;
                res r;
                r.rc = edition_resolve(e, cl, fl, &f, r.field, sizeof r.field, r.err, sizeof r.err);
                cr_assert_eq(r.rc, 0, "%s: %s", line, r.err);
                check_fleet(e, fl, &f);
                fleets++;
            }
            static const char *const single[][2] = {{"fabric", "fabrics"}, {"grid", "grids"}};
            for (size_t s = 0; s < 2; s++) {
                const json_t *v = json_object_get(in, single[s][0]);
                if (json_is_string(v)) {
                    cr_assert_geq(edition_find(e, catalog_kind_find(single[s][1]), json_string_value(v)), 0);
                    refs++;
                }
            }
            const json_t *dc = json_object_get(in, "datacenter");
            if (json_is_string(dc)) {
                cr_assert(edition_find(e, catalog_kind_find("grids"), json_string_value(dc)) >= 0 ||
                          edition_find(e, catalog_kind_find("datacenters"), json_string_value(dc)) >= 0);
                refs++;
            }
            json_decref(c);
        }
        free(line);
        fclose(fp);
    }
    cr_assert_gt(fleets, 150);
    cr_assert_gt(refs, 50);
}

Test(catalog, inline_fleets)
{
    fleet_t f;
    res r = resolve_kind(tut, "clusters",
                         "{\"node\": {\"name\":\"custom\",\"accelerator\":\"TPUv5p\",\"accelerators_per_node\":8,"
                         "\"intra_node_bw\":\"900.0 GB/s\",\"nics_per_node\":8,\"psus_per_node\":6},\"count\":32,"
                         "\"fabric\":{\"name\":\"custom\",\"bandwidth\":\"400.0 Gbit/s\",\"latency\":\"50.0 us\","
                         "\"oversubscription_ratio\":2.0},\"region\":\"Quebec\"}", &f);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(f.key, "custom");
    cr_assert_str_eq(f.node.accelerator.key, "TPUv5p");
    cr_assert_eq(f.node.psus_per_node, 6);
    assert_q(fleet_total_accelerators(&f), 256);
    assert_q(f.fabric.bandwidth, 50e9);
    assert_q(f.fabric.oversubscription_ratio, 2.0);
    cr_assert(f.has_region);
    cr_assert_str_eq(f.region.key, "Quebec");
    assert_q(fleet_effective_pue(&f), 1.06);

    /* type defaults: nics 1, psus 2, oversubscription 1.0, latency None */
    r = resolve_kind(cur, "clusters",
                     "{\"node\": {\"accelerator\": \"H100\", \"accelerators_per_node\": 4, "
                     "\"intra_node_bw\": 300e9}, \"count\": 2, \"fabric\": {\"bandwidth\": \"100 Gbit/s\"}}", &f);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(f.node.nics_per_node, 1);
    cr_assert_eq(f.node.psus_per_node, 2);
    assert_q(f.fabric.oversubscription_ratio, 1.0);
    cr_assert(isnan(f.fabric.latency));
    cr_assert_not(f.has_region);
    cr_assert_not(f.has_datacenter);
    cr_assert(isnan(f.mtbf_hours));

    /* base overrides at each level; a datacenter; region and datacenter null */
    r = resolve_kind(tut, "clusters",
                     "{\"base\": \"Research_256\", \"count\": 64, \"node\": {\"base\": \"DGX_H100\", "
                     "\"accelerator\": {\"base\": \"H100\", \"memory.capacity\": \"40 GB\"}}, "
                     "\"datacenter\": \"France_Nuclear\", \"region\": null}", &f);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(f.key, "Research_256");
    cr_assert_eq(f.count, 64);
    assert_q(f.node.intra_node_bw, 450e9);
    assert_q(f.node.accelerator.mem_capacity, 40e9);
    assert_q(f.node.accelerator.unit_cost, 25000);
    cr_assert_str_eq(f.fabric.key, "Ethernet_100G");
    cr_assert(f.has_datacenter);
    cr_assert_str_eq(f.datacenter.grid.key, "France");
    assert_q(fleet_effective_pue(&f), 1.12);

    r = resolve_kind(cur, "clusters", "\"mega_100k\"", &f);
    cr_assert_eq(r.rc, 0);
    assert_q(fleet_total_accelerators(&f), 100000);

    /* every record kind resolves an id, {"base"} and a custom object */
    node_t n;
    r = resolve_kind(cur, "nodes", "{\"base\": \"DGX_A100\", \"nics_per_node\": 4}", &n);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(n.nics_per_node, 4);
    cr_assert_str_eq(n.accelerator.key, "A100");
    grid_t g;
    r = resolve_kind(cur, "grids", "{\"key\": \"Mars\", \"carbon_intensity_g_kwh\": 5, \"pue\": 1.3}", &g);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(g.name, "Mars");
    cr_assert(isnan(g.wue));
    datacenter_t d;
    r = resolve_kind(cur, "datacenters", "{\"grid\": {\"base\": \"Iceland\"}, \"pue_override\": 1.01}", &d);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    assert_q(datacenter_pue(&d), 1.01);
    cr_assert_str_eq(d.grid.key, "Iceland");
    dataset_t ds;
    r = resolve_kind(cur, "datasets", "{\"base\": \"CIFAR10\", \"training_examples\": \"1e5 count\"}", &ds);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    assert_q(ds.training_examples, 1e5);
    cr_assert_eq(ds.num_classes, 10);
    rack_t rk;
    cr_assert_eq(resolve_kind(cur, "racks", "\"ai_standard\"", &rk).rc, 0);
    cooling_t co;
    cr_assert_eq(resolve_kind(cur, "cooling", "\"Legacy\"", &co).rc, 0);
    assert_q(co.pue, 1.58);

    json_t *sm = catalog_record_summary(catalog_kind_find("clusters"), &f);
    cr_assert_eq(json_integer_value(json_object_get(sm, "count")), 12500);
    json_decref(sm);
}

static void expect_bad(const catalog_edition *e, const char *kind, const char *text, int rc,
                       const char *field, const char *needle)
{
    union {
        fleet_t f;
        hw_node h;
        model_t m;
    } out;
    res r = resolve_kind(e, kind, text, &out);
    cr_assert_eq(r.rc, rc, "%s: rc %d (%s), want %d", text, r.rc, r.err, rc);
    cr_assert_str_eq(r.field, field, "%s: field \"%s\" (%s), want \"%s\"", text, r.field, r.err, field);
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s: ", field);
    if (field[0] != '\0')
        cr_assert_eq(strncmp(r.err, prefix, strlen(prefix)), 0, "err \"%s\" names the field", r.err);
    if (needle != NULL)
        cr_assert_not_null(strstr(r.err, needle), "%s: \"%s\" lacks \"%s\"", text, r.err, needle);
}

/* An inline node without intra_node_bw takes its accelerator's scale-up link
 * (as the catalog's DGX nodes are written), else its host link, else 64 GB/s. */
Test(catalog, an_inline_node_takes_its_accelerators_link)
{
    static const struct {
        const char *accelerator;
        double bw;
    } CASES[] = {{"H100", 900e9}, {"A100", 600e9}, {"V100_PCIe", 15.75e9}, {"MI300X", 64e9}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char text[200];
        snprintf(text, sizeof text,
                 "{\"node\": {\"accelerator\": \"%s\", \"accelerators_per_node\": 8}, \"count\": 2, "
                 "\"fabric\": \"RoCE_100G\"}",
                 CASES[i].accelerator);
        fleet_t f;
        res r = resolve_kind(cur, "clusters", text, &f);
        cr_assert_eq(r.rc, 0, "%s: %s", text, r.err);
        assert_q(f.node.intra_node_bw, CASES[i].bw);
    }
}

Test(catalog, bad_fleets_name_the_field)
{
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 0, \"fabric\": \"RoCE_100G\"}", 400,
               "count", ">= 1");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 2.5, \"fabric\": \"RoCE_100G\"}", 400,
               "count", "whole number");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": [4], \"fabric\": \"RoCE_100G\"}", 400,
               "count", "an array");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"fabric\": \"RoCE_100G\"}", 400, "count", "required");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H1000\", \"count\": 2, \"fabric\": \"RoCE_100G\"}", 404,
               "node", "did you mean \"DGX_H100\"");
    expect_bad(cur, "clusters", "{\"node\": \"InfiniBand_NDR\", \"count\": 2, \"fabric\": \"RoCE_100G\"}", 404,
               "node", "is a fabric, not a node");
    expect_bad(cur, "clusters", "{\"node\": [\"DGX_H100\"], \"count\": 2, \"fabric\": \"RoCE_100G\"}", 400,
               "node", "an array");
    expect_bad(cur, "clusters", "{\"node\": 8, \"count\": 2, \"fabric\": \"RoCE_100G\"}", 400, "node",
               "node id");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 2}", 400, "fabric", "required");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 2, \"fabric\": \"DGX_H100\"}", 404,
               "fabric", "is a node");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 2, \"fabric\": \"RoCE_100G\", "
               "\"region\": \"Atlantis\"}", 404, "region", "unknown grid");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 2, \"fabric\": \"RoCE_100G\", "
               "\"datacenter\": \"Quebec\"}", 404, "datacenter", "is a grid");
    expect_bad(cur, "clusters", "{\"node\": {\"accelerator\": \"H1000\", \"accelerators_per_node\": 8, "
               "\"intra_node_bw\": \"900 GB/s\"}, \"count\": 2, \"fabric\": \"RoCE_100G\"}", 404,
               "node.accelerator", "did you mean \"H100\"");
    expect_bad(cur, "clusters", "{\"node\": {\"accelerator\": {\"base\": \"H100\", \"memory.capacity\": \"8 GB/s\"}, "
               "\"accelerators_per_node\": 8, \"intra_node_bw\": \"900 GB/s\"}, \"count\": 2, \"fabric\": \"RoCE_100G\"}",
               400, "node.accelerator.memory.capacity", NULL);
    expect_bad(cur, "clusters", "{\"node\": {\"accelerator\": \"H100\", \"accelerators_per_node\": 0, "
               "\"intra_node_bw\": 1e9}, \"count\": 2, \"fabric\": \"RoCE_100G\"}", 400,
               "node.accelerators_per_node", NULL);
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 2, \"fabric\": {\"bandwidth\": \"100 GB\"}}",
               400, "fabric.bandwidth", NULL);
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 2, \"fabric\": {\"bandwith\": \"100 GB/s\"}}",
               400, "fabric.bandwith", "did you mean \"bandwidth\"");
    expect_bad(cur, "clusters", "{\"node\": \"DGX_H100\", \"count\": 2, \"fabric\": \"RoCE_100G\", \"nodes\": 3}",
               400, "nodes", "unknown field");
    expect_bad(cur, "clusters", "{\"base\": \"Research_999\"}", 404, "base", "Research_256");
    expect_bad(cur, "clusters", "[\"Research_256\"]", 400, "", "cluster id");
    expect_bad(cur, "prices", "\"Cloud.GpuTrainingPerHour\"", 400, "", "not solver inputs");
}

static const char SYSTEMS_FILE[] =
    "{\n"
    " \"grids\": [{\"key\": \"Mars\", \"carbon_intensity_g_kwh\": 5, \"pue\": 1.3}],\n"
    " \"clusters\": [\n"
    "  {\"key\": \"MyCluster\", \"node\": \"MyNode\", \"count\": 4, \"fabric\": \"InfiniBand_NDR\",\n"
    "   \"region\": \"Mars\"},\n"
    "  {\"key\": \"Inline\", \"count\": 2, \"fabric\": {\"bandwidth\": \"200 Gbit/s\"},\n"
    "   \"node\": {\"base\": \"DGX_H100\", \"accelerators_per_node\": 4}}\n"
    " ],\n"
    " \"nodes\": [{\"key\": \"MyNode\", \"accelerator\": \"MyNPU\", \"accelerators_per_node\": 4,\n"
    "            \"intra_node_bw\": \"600 GB/s\"},\n"
    "           {\"key\": \"dgx_h100\", \"accelerator\": \"H100\", \"accelerators_per_node\": 8,\n"
    "            \"intra_node_bw\": \"100 GB/s\"}],\n"
    " \"prices\": [{\"key\": \"Moon.Rent\", \"rate\": {\"value\": 1, \"unit\": \"dollar\", \"si\": 1, \"si_unit\": \"USD\"}}],\n"
    " \"aliases\": {\"clusters\": {\"Mine\": \"MyCluster\"}}\n"
    "}\n";

Test(catalog, dir_new_kinds)
{
    tmpdir t;
    td_make(&t);
    td_write(&t, "10_add.json", ADD_FILE);
    td_write(&t, "20_systems.json", SYSTEMS_FILE);
    catalog *c;
    char err[512];
    int rc = catalog_load(&c, t.dir, err, sizeof err);
    td_remove(&t);
    cr_assert_eq(rc, 0, "%s", err);
    const catalog_kind *cl = catalog_kind_find("clusters"), *nk = catalog_kind_find("nodes");
    for (size_t ed = 0; ed < 2; ed++) {
        const catalog_edition *e = catalog_edition_at(c, ed);
        cr_assert_eq(edition_count(e, cl), 9);
        cr_assert_eq(edition_count(e, nk), 4);
        cr_assert_eq(edition_count(e, catalog_kind_find("grids")), 13);
        cr_assert_eq(edition_count(e, catalog_kind_find("prices")), 26);
        const fleet_t *f = rec_of(e, "clusters", "Mine");
        cr_assert_str_eq(f->id, "Systems.Clusters.MyCluster");
        cr_assert_str_eq(f->node.key, "MyNode");
        cr_assert_str_eq(f->node.accelerator.key, "MyNPU", "a node on hardware of an earlier file");
        assert_q(f->node.intra_node_bw, 600e9);
        cr_assert(f->has_region);
        cr_assert_str_eq(f->region.key, "Mars");
        assert_q(fleet_effective_pue(f), 1.3);
        /* a replaced node is what every cluster on it embeds, in both editions */
        const node_t *h = rec_of(e, "nodes", "Systems.Nodes.DGX_H100");
        cr_assert_str_eq(h->key, "dgx_h100");
        assert_q(h->intra_node_bw, 100e9);
        assert_q(((const fleet_t *)rec_of(e, "clusters", "Mega_100K"))->node.intra_node_bw, 100e9);
        const fleet_t *in = rec_of(e, "clusters", "Inline");
        cr_assert_eq(in->node.accelerators_per_node, 4);
        assert_q(in->node.intra_node_bw, 100e9); /* inline base = the replaced node */
        assert_q(in->fabric.bandwidth, 25e9);
        const json_t *src = json_object_get(edition_entry_json(e, cl, (size_t)edition_find(e, cl, "MyCluster")), "source");
        cr_assert_not_null(strstr(json_string_value(json_object_get(src, "path")), "20_systems.json"));
        const catalog_kind *pk = catalog_kind_find("prices");
        const json_t *p = edition_entry_json(e, pk, (size_t)edition_find(e, pk, "Infrastructure.Pricing.Custom.Moon.Rent"));
        cr_assert_str_eq(json_string_value(json_object_get(p, "group")), "Custom");
    }
    catalog_free(c);
}

Test(catalog, dir_new_kinds_errors_name_file_and_line)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"{\"clusters\": [\n {\"key\": \"C\", \"node\": \"DGX_H100\",\n  \"count\": 0, \"fabric\": \"RoCE_100G\"}\n]}\n",
         ":2: cluster \"C\": count: expected a whole number >= 1"},
        {"{\"clusters\": [\n {\"key\": \"C\", \"node\": \"NoNode\", \"count\": 1, \"fabric\": \"RoCE_100G\"}\n]}\n",
         ":2: cluster \"C\": node: unknown node \"NoNode\""},
        {"{\"clusters\": [\n {\"key\": \"C\", \"node\": \"Later\", \"count\": 1, \"fabric\": \"RoCE_100G\"}\n],\n"
         " \"fabrics\": [{\"key\": \"Later\", \"bandwidth\": 1e9}]}\n",
         ":2: cluster \"C\": node: unknown node \"Later\" in the current catalog (\"Later\" is a fabric, not a node)"},
        {"{\"nodes\": [\n {\"key\": \"N\", \"accelerator\": {\"base\": \"A100\", \"tdp\": \"5 GB\"},\n"
         "  \"accelerators_per_node\": 1, \"intra_node_bw\": 1e9}\n]}\n",
         ":2: node \"N\": accelerator.tdp:"},
        {"{\"fabrics\": [\n {\"key\": \"F\",\n  \"bandwidth\": 1e9, \"latancy\": \"1 us\"}\n]}\n",
         ":2: fabric \"F\": latancy: unknown field (did you mean \"latency\"?)"},
        {"{\"grids\": [\n {\"key\": \"G\", \"pue\": 1.1}\n]}\n",
         ":2: grid \"G\": carbon_intensity_g_kwh: required"},
        {"{\"prices\": [\n {\"key\": \"P\", \"rate\": \"3 USD\"}\n]}\n",
         ":2: price \"P\": rate: expected a quantity object"},
        {"{\"datacenters\": [\n {\"key\": \"D\", \"grid\": [\"Quebec\"]}\n]}\n",
         ":2: datacenter \"D\": grid: expected a grid id (e.g. \"Quebec\") or an object, got an array"},
        {"{\"aliases\": {\"nodes\": {\n \"Big\": \"DGX_Z\"}}}\n", ":2: alias \"Big\": \"DGX_Z\" is not a node entry"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tmpdir t;
        td_make(&t);
        const char *path = td_write(&t, "x.json", cases[i].text);
        catalog *c = NULL;
        char err[768], want[512];
        int rc = catalog_load(&c, t.dir, err, sizeof err);
        td_remove(&t);
        cr_assert_eq(rc, -1, "case %zu loaded", i);
        snprintf(want, sizeof want, "%s%s", path, cases[i].want);
        cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got \"%s\", want prefix \"%s\"", err, want);
    }
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
