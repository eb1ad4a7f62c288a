/* test_hf_config.c - models given as {"hf_config": {...config.json...}}
 * (catalog/hf_config.c through edition_resolve).
 *
 * tests/data/hf_configs/ holds the config.json of public models, each with
 * its source, its published parameter count (and activated count for MoE)
 * and its KV-cache bytes per token at fp16 worked out by hand. The computed
 * total must be within the file's tolerance of the published count, the
 * activated count within its active_tolerance (1 % unless its notes say why
 * not), and the KV cache exact. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "core/llm.h"
#include "core/model.h"

#ifndef MLSYSD_SOURCE_DIR
#define MLSYSD_SOURCE_DIR "."
#endif
#define CONFIG_DIR MLSYSD_SOURCE_DIR "/tests/data/hf_configs"

static catalog *cat;
static const catalog_edition *cur;
static const catalog_kind *K_MODEL;

static void load(void)
{
    char err[512];
    cr_assert_eq(catalog_load(&cat, NULL, err, sizeof err), 0, "catalog_load: %s", err);
    cur = catalog_default_edition(cat);
    K_MODEL = catalog_kind_of(REC_MODEL);
}

static void unload(void)
{
    catalog_free(cat);
    cat = NULL;
}

TestSuite(hf_config, .init = load, .fini = unload);

typedef struct {
    int rc;
    char field[128];
    char err[512];
} res;

static res resolve_model(const json_t *v, model_t *out)
{
    res r = {0};
    r.rc = edition_resolve(cur, K_MODEL, v, out, r.field, sizeof r.field, r.err, sizeof r.err);
    return r;
}

static res resolve_text(const char *text, model_t *out)
{
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
    cr_assert_not_null(v, "bad test JSON: %s", je.text);
    res r = resolve_model(v, out);
    json_decref(v);
    return r;
}

Test(hf_config, vendored_public_configs)
{
    DIR *d = opendir(CONFIG_DIR);
    cr_assert_not_null(d, "cannot open %s", CONFIG_DIR);
    int n = 0, moe = 0;
    char types[32][32];
    int n_types = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", CONFIG_DIR, de->d_name);
        json_error_t je;
        json_t *f = json_load_file(path, 0, &je);
        cr_assert_not_null(f, "%s: %s", path, je.text);
        cr_assert(json_is_string(json_object_get(f, "source")), "%s: no source", de->d_name);
        const json_t *pub = json_object_get(f, "published");
        cr_assert(json_is_string(json_object_get(pub, "source")), "%s: no published source", de->d_name);
        json_t *req = json_pack("{s:O}", "hf_config", json_object_get(f, "config"));
        model_t m;
        res r = resolve_model(req, &m);
        cr_assert_eq(r.rc, 0, "%s: %s (%s)", de->d_name, r.err, r.field);

        double want = json_number_value(json_object_get(pub, "parameters"));
        double tol_total = json_object_get(f, "tolerance") ? json_number_value(json_object_get(f, "tolerance")) : 0.01;
        cr_expect(fabs(m.parameters / want - 1) <= tol_total, "%s: %.6g parameters, published %.6g (%+.2f %%)",
                  de->d_name, m.parameters, want, 100 * (m.parameters / want - 1));
        const json_t *wa = json_object_get(pub, "active_parameters");
        if (wa) {
            moe++;
            cr_expect_eq(m.kind, WL_SPARSE_TRANSFORMER, "%s: not a SparseTransformerWorkload", de->d_name);
            double tol = json_object_get(f, "active_tolerance") ? json_number_value(json_object_get(f, "active_tolerance"))
                                                                : 0.01;
            double act = m.active_parameters;
            cr_expect(fabs(act / json_number_value(wa) - 1) <= tol, "%s: %.6g active, published %.6g (%+.2f %%)",
                      de->d_name, act, json_number_value(wa), 100 * (act / json_number_value(wa) - 1));
            cr_expect(m.active_parameters < m.parameters);
        } else {
            cr_expect_eq(m.kind, WL_TRANSFORMER, "%s", de->d_name);
        }
        /* KV bytes per token at fp16, exactly, through the serving formula. */
        double kv = llm_kv_cache_bytes(&m, 1, 1, 2.0);
        double want_kv = json_number_value(json_object_get(f, "kv_cache_bytes_per_token_fp16"));
        cr_expect_eq(kv, want_kv, "%s: %.17g KV bytes per token, want %.17g", de->d_name, kv, want_kv);
        cr_expect(strlen(m.hf_model_type) > 0);
        cr_expect(m.inference_flops > 0);

        bool seen = false;
        for (int i = 0; i < n_types; i++)
            seen |= strcmp(types[i], m.hf_model_type) == 0;
        if (!seen && n_types < 32)
            snprintf(types[n_types++], sizeof types[0], "%s", m.hf_model_type);
        json_decref(req);
        json_decref(f);
        n++;
    }
    closedir(d);
    cr_assert_geq(n, 10, "only %d vendored configs", n);
    cr_assert_geq(n_types, 5, "only %d model types", n_types);
    cr_assert_geq(moe, 3);
}

static const char *LLAMA3_8B =
    "{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,\"num_attention_heads\":32,"
    "\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"vocab_size\":128256,\"tie_word_embeddings\":false}";

Test(hf_config, exact_llama3_8b_and_the_record)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"hf_config\":%s}", LLAMA3_8B);
    model_t m;
    res r = resolve_text(text, &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.parameters, 8030261248.0); /* the safetensors total */
    cr_expect_eq(m.layers, 32);
    cr_expect_eq(m.heads, 32);
    cr_expect_eq(m.kv_heads, 8);
    cr_expect_eq(m.head_dim, 128);
    cr_expect_eq(m.hidden_dim, 4096);
    cr_expect_eq(m.embedding_parameters, 2.0 * 128256 * 4096);
    cr_expect_eq(m.inference_flops, 2.0 * 8030261248.0);
    cr_expect_str_eq(m.key, "hf_config");
    cr_expect_str_eq(m.hf_model_type, "llama");

    /* The summary shows what was derived. */
    json_t *s = catalog_record_summary(K_MODEL, &m);
    json_t *dv = json_object_get(s, "derived_from_hf_config");
    cr_assert_not_null(dv);
    cr_expect_eq(json_number_value(json_object_get(dv, "kv_cache_elements_per_token")), 65536.0);
    cr_expect_eq(json_number_value(json_object_get(s, "head_dim")), 128.0);
    json_decref(s);
}

Test(hf_config, tied_embeddings_and_explicit_head_dim)
{
    model_t a, b;
    res r = resolve_text("{\"hf_config\":{\"model_type\":\"qwen3\",\"hidden_size\":1024,\"intermediate_size\":3072,"
                         "\"num_attention_heads\":16,\"num_hidden_layers\":28,\"num_key_value_heads\":8,"
                         "\"head_dim\":128,\"vocab_size\":151936,\"tie_word_embeddings\":true}}",
                         &a);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    /* Qwen3-0.6B: 596,049,920 parameters (0.6B), head_dim 128 though 1024 / 16 = 64. */
    cr_expect_eq(a.parameters, 596049920.0, "%.17g", a.parameters);
    cr_expect_eq(a.head_dim, 128);
    cr_expect_eq(llm_kv_cache_bytes(&a, 1, 1, 2.0), 2.0 * 28 * 8 * 128 * 2);
    r = resolve_text("{\"hf_config\":{\"model_type\":\"qwen3\",\"hidden_size\":1024,\"intermediate_size\":3072,"
                     "\"num_attention_heads\":16,\"num_hidden_layers\":28,\"num_key_value_heads\":8,"
                     "\"head_dim\":128,\"vocab_size\":151936,\"tie_word_embeddings\":false}}",
                     &b);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(b.parameters - a.parameters, 151936.0 * 1024);
}

Test(hf_config, sliding_window_recorded)
{
    model_t m;
    res r = resolve_text("{\"hf_config\":{\"model_type\":\"mistral\",\"hidden_size\":4096,\"intermediate_size\":14336,"
                         "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,"
                         "\"vocab_size\":32000,\"sliding_window\":4096}}",
                         &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.sliding_window, 4096);
    /* Qwen2's window applies only with use_sliding_window. */
    r = resolve_text("{\"hf_config\":{\"model_type\":\"qwen2\",\"hidden_size\":896,\"intermediate_size\":4864,"
                     "\"num_attention_heads\":14,\"num_hidden_layers\":24,\"num_key_value_heads\":2,"
                     "\"vocab_size\":151936,\"sliding_window\":131072,\"use_sliding_window\":false}}",
                     &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.sliding_window, 0);
}

Test(hf_config, overrides_apply)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"hf_config\":%s,\"name\":\"my-model\",\"key\":\"mine\"}", LLAMA3_8B);
    model_t m;
    res r = resolve_text(text, &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_str_eq(m.name, "my-model");
    cr_expect_str_eq(m.key, "mine");
    cr_expect_eq(m.parameters, 8030261248.0);
}

Test(hf_config, errors_name_the_field)
{
    model_t m;
    res r = resolve_text("{\"hf_config\":{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,"
                         "\"num_attention_heads\":32,\"vocab_size\":32000}}",
                         &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "hf_config.num_hidden_layers");
    cr_expect(strstr(r.err, "hf_config.num_hidden_layers") != NULL, "%s", r.err);

    r = resolve_text("{\"hf_config\":{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,"
                     "\"num_hidden_layers\":32,\"vocab_size\":32000}}",
                     &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "hf_config.num_attention_heads");

    r = resolve_text("{\"hf_config\":{\"model_type\":\"mamba\",\"hidden_size\":768}}", &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "hf_config.model_type");
    cr_expect(strstr(r.err, "mamba") != NULL && strstr(r.err, "llama") != NULL, "%s", r.err);

    r = resolve_text("{\"hf_config\":{\"hidden_size\":768}}", &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "hf_config.model_type");

    r = resolve_text("{\"hf_config\":{\"model_type\":\"llama\",\"hidden_size\":\"big\",\"intermediate_size\":1,"
                     "\"num_attention_heads\":1,\"num_hidden_layers\":1,\"vocab_size\":1}}",
                     &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "hf_config.hidden_size");

    r = resolve_text("{\"hf_config\":[1,2]}", &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "hf_config");

    char text[1024];
    snprintf(text, sizeof text, "{\"hf_config\":%s,\"base\":\"Llama3_8B\"}", LLAMA3_8B);
    r = resolve_text(text, &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "base");

    /* An unknown override is still refused. */
    snprintf(text, sizeof text, "{\"hf_config\":%s,\"layerz\":3}", LLAMA3_8B);
    r = resolve_text(text, &m);
    cr_expect_eq(r.rc, 400);
}

Test(hf_config, catalog_entries_unchanged)
{
    /* A catalog model has none of the derived fields. */
    model_t m;
    res r = resolve_text("\"Llama3_8B\"", &m);
    cr_assert_eq(r.rc, 0);
    cr_expect_eq(m.head_dim, 0);
    cr_expect(isnan(m.embedding_parameters));
    cr_expect_str_eq(m.hf_model_type, "");
    json_t *s = catalog_record_summary(K_MODEL, &m);
    cr_expect_null(json_object_get(s, "head_dim"));
    cr_expect_null(json_object_get(s, "derived_from_hf_config"));
    json_decref(s);
}

Test(hf_config, nulls_and_absent_fields_take_the_class_defaults)
{
    /* head_dim null, sliding_window null, no num_key_value_heads (MHA), no
     * tie_word_embeddings (Llama: untied): Llama-2-7B's 6,738,415,616. */
    model_t m;
    res r = resolve_text("{\"hf_config\":{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":11008,"
                         "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"vocab_size\":32000,\"head_dim\":null,"
                         "\"sliding_window\":null,\"rope_scaling\":null,\"torch_dtype\":\"float16\"}}",
                         &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.parameters, 6738415616.0, "%.17g", m.parameters);
    cr_expect_eq(m.kv_heads, 32);
    cr_expect_eq(m.head_dim, 128);
    cr_expect_eq(m.sliding_window, 0);
    /* head_dim 0 is derived too; a window of false or -1 is none, not a refusal. */
    r = resolve_text("{\"hf_config\":{\"model_type\":\"mistral\",\"hidden_size\":4096,\"intermediate_size\":11008,"
                     "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"vocab_size\":32000,\"head_dim\":0,"
                     "\"sliding_window\":false}}",
                     &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.head_dim, 128);
    cr_expect_eq(m.sliding_window, 0);
    r = resolve_text("{\"hf_config\":{\"model_type\":\"mistral\",\"hidden_size\":4096,\"intermediate_size\":11008,"
                     "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"vocab_size\":32000,\"sliding_window\":-1}}",
                     &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.sliding_window, 0);
}

Test(hf_config, falcon_aliases_and_multi_query)
{
    /* Falcon-7B written with the older n_layer / n_head names: one KV head. */
    model_t m;
    res r = resolve_text("{\"hf_config\":{\"model_type\":\"falcon\",\"hidden_size\":4544,\"n_head\":71,\"n_layer\":32,"
                         "\"multi_query\":true,\"parallel_attn\":true,\"bias\":false,\"vocab_size\":65024}}",
                         &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.parameters, 6921720704.0, "%.17g", m.parameters);
    cr_expect_eq(m.kv_heads, 1);
    cr_expect_eq(llm_kv_cache_bytes(&m, 1, 1, 2.0), 2.0 * 32 * 1 * 64 * 2);
    r = resolve_text("{\"hf_config\":{\"model_type\":\"falcon\",\"hidden_size\":4544,\"n_head\":71,\"vocab_size\":65024}}",
                     &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "hf_config.num_hidden_layers");
}

Test(hf_config, nested_text_config)
{
    /* Gemma 3's text_config keeps only what differs from Gemma3TextConfig:
     * the 4B's heads, KV heads, head_dim and vocabulary are the class's. */
    model_t m;
    res r = resolve_text("{\"hf_config\":{\"model_type\":\"gemma3\",\"text_config\":{\"hidden_size\":2560,"
                         "\"intermediate_size\":10240,\"model_type\":\"gemma3_text\",\"num_hidden_layers\":34}}}",
                         &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.heads, 8);
    cr_expect_eq(m.kv_heads, 4);
    cr_expect_eq(m.head_dim, 256);
    cr_expect(isnan(m.vision_parameters), "no vision_config, no tower");
    cr_expect_eq(llm_kv_cache_bytes(&m, 1, 1, 2.0), 2.0 * 34 * 4 * 256 * 2);
    /* A LLaVA-style wrapper around a Llama: its text_config is the model. */
    r = resolve_text("{\"hf_config\":{\"model_type\":\"llava\",\"text_config\":{\"model_type\":\"llama\","
                     "\"hidden_size\":4096,\"intermediate_size\":11008,\"num_attention_heads\":32,"
                     "\"num_hidden_layers\":32,\"vocab_size\":32000}}}",
                     &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.parameters, 6738415616.0, "%.17g", m.parameters);
    /* ...and a field it lacks is named under text_config. */
    r = resolve_text("{\"hf_config\":{\"model_type\":\"llava\",\"text_config\":{\"model_type\":\"llama\","
                     "\"hidden_size\":4096,\"intermediate_size\":11008,\"num_attention_heads\":32,"
                     "\"vocab_size\":32000}}}",
                     &m);
    cr_expect_eq(r.rc, 400);
    cr_expect_str_eq(r.field, "hf_config.text_config.num_hidden_layers");
}

Test(hf_config, olmo_parameter_free_norms)
{
    /* OLMo-7B-hf: LayerNorms without weights, 6,888,095,744 parameters. */
    model_t m;
    res r = resolve_text("{\"hf_config\":{\"model_type\":\"olmo\",\"hidden_size\":4096,\"intermediate_size\":11008,"
                         "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":32,"
                         "\"vocab_size\":50304,\"clip_qkv\":null,\"tie_word_embeddings\":false}}",
                         &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect_eq(m.parameters, 6888095744.0, "%.17g", m.parameters);
}

Test(hf_config, cohere_one_norm_per_layer)
{
    /* Command R (c4ai-command-r-v01): 35B; one LayerNorm (weights only) per layer, tied embeddings. */
    model_t m;
    res r = resolve_text("{\"hf_config\":{\"model_type\":\"cohere\",\"hidden_size\":8192,\"intermediate_size\":22528,"
                         "\"num_attention_heads\":64,\"num_hidden_layers\":40,\"num_key_value_heads\":64,"
                         "\"vocab_size\":256000,\"use_qk_norm\":false,\"logit_scale\":0.0625}}",
                         &m);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect(fabs(m.parameters / 35e9 - 1) < 0.01, "%.17g", m.parameters);
    cr_expect_eq(m.parameters, 256000.0 * 8192 + 40 * (4.0 * 8192 * 8192 + 3.0 * 8192 * 22528 + 8192) + 8192);
}
