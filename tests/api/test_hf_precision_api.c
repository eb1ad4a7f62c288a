/* test_hf_precision_api.c - issue 26 through the real daemon:
 *
 * - a model given as {"hf_config": {...config.json...}} to serving: the
 *   resolved record carries the parameters computed from the config, and
 *   kv_cache / (seq_len x batch_size) is the KV bytes per token exactly;
 * - a config missing num_hidden_layers is a 400 naming
 *   inputs.model.hf_config.num_hidden_layers; an unknown model_type names
 *   inputs.model.hf_config.model_type;
 * - per-tensor precision: kv_precision fp8 under precision fp16 halves
 *   kv_cache exactly; weight_precision int4 under fp16 stores the weights
 *   at 0.5 B and computes at fp16 (same TTFT); the inputs absent or equal
 *   to precision give the answer without them. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define MISTRAL_7B                                                                                            \
    "{\"architectures\":[\"MistralForCausalLM\"],\"hidden_act\":\"silu\",\"hidden_size\":4096,"              \
    "\"intermediate_size\":14336,\"max_position_embeddings\":32768,\"model_type\":\"mistral\","               \
    "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"rms_norm_eps\":1e-05,"    \
    "\"rope_theta\":10000.0,\"sliding_window\":4096,\"tie_word_embeddings\":false,\"vocab_size\":32000}"

static json_t *solve(const char *body, long *status)
{
    return api_post("/solve", body, status);
}

Test(hf_precision_api, hf_config_to_serving)
{
    long st;
    json_t *doc = solve("{\"solver\":\"serving\",\"inputs\":{\"model\":{\"hf_config\":" MISTRAL_7B "},"
                        "\"hardware\":\"H100\",\"seq_len\":3000,\"batch_size\":3,\"precision\":\"fp16\"}}",
                        &st);
    cr_assert_eq(st, 200);
    const json_t *m = json_object_get(json_object_get(doc, "resolved"), "model");
    double params = num_at(m, "parameters");
    cr_expect(fabs(params / 7.24e9 - 1) < 0.01, "%.17g", params);
    cr_expect_eq(num_at(m, "layers"), 32);
    cr_expect_eq(num_at(m, "kv_heads"), 8);
    cr_expect_eq(num_at(m, "head_dim"), 128);
    cr_expect_eq(num_at(m, "sliding_window"), 4096);
    cr_expect_str_eq(str_at(m, "type"), "TransformerWorkload");
    cr_expect_not_null(json_object_get(m, "derived_from_hf_config"));
    /* 2 x 32 layers x 8 KV heads x 128 x 2 B = 131072 B per token. */
    cr_expect_eq(result_num(doc, "kv_cache") / (3000.0 * 3), 131072.0);
    cr_expect_eq(result_num(doc, "model_weights"), params * 2);
    json_decref(doc);
}

Test(hf_precision_api, hf_config_moe_resolves_active_parameters)
{
    long st;
    json_t *doc = solve("{\"solver\":\"serving\",\"inputs\":{\"model\":{\"hf_config\":{\"model_type\":\"mixtral\","
                        "\"hidden_size\":4096,\"intermediate_size\":14336,\"num_attention_heads\":32,"
                        "\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"num_local_experts\":8,"
                        "\"num_experts_per_tok\":2,\"vocab_size\":32000},\"name\":\"my-mixtral\"},"
                        "\"hardware\":\"H100\",\"seq_len\":1024}}",
                        &st);
    cr_assert_eq(st, 200);
    const json_t *m = json_object_get(json_object_get(doc, "resolved"), "model");
    cr_expect(fabs(num_at(m, "parameters") / 46.7e9 - 1) < 0.01);
    cr_expect(fabs(num_at(m, "active_parameters") / 12.9e9 - 1) < 0.01);
    cr_expect_str_eq(str_at(m, "type"), "SparseTransformerWorkload");
    cr_expect_str_eq(str_at(m, "name"), "my-mixtral");
    json_decref(doc);
}

static void expect_400(const char *body, const char *field)
{
    long st;
    json_t *doc = solve(body, &st);
    cr_assert_eq(st, 400, "%s", body);
    cr_expect_str_eq(str_at(doc, "field"), field);
    const char *last = strrchr(field, '.') + 1;
    cr_expect(strstr(str_at(doc, "detail"), last) != NULL, "%s", str_at(doc, "detail"));
    json_decref(doc);
}

Test(hf_precision_api, bad_configs_name_the_field)
{
    expect_400("{\"solver\":\"serving\",\"inputs\":{\"model\":{\"hf_config\":{\"model_type\":\"llama\","
               "\"hidden_size\":4096,\"intermediate_size\":14336,\"num_attention_heads\":32,\"vocab_size\":32000}},"
               "\"hardware\":\"H100\",\"seq_len\":1024}}",
               "inputs.model.hf_config.num_hidden_layers");
    expect_400("{\"solver\":\"serving\",\"inputs\":{\"model\":{\"hf_config\":{\"model_type\":\"llama\","
               "\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":32,\"vocab_size\":32000}},"
               "\"hardware\":\"H100\",\"seq_len\":1024}}",
               "inputs.model.hf_config.num_attention_heads");
    expect_400("{\"solver\":\"serving\",\"inputs\":{\"model\":{\"hf_config\":{\"model_type\":\"rwkv\"}},"
               "\"hardware\":\"H100\",\"seq_len\":1024}}",
               "inputs.model.hf_config.model_type");
    expect_400("{\"solver\":\"serving\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"seq_len\":1024,"
               "\"kv_precision\":\"fp7\"}}",
               "inputs.kv_precision");
}

static json_t *serving(const char *extra)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{\"solver\":\"serving\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"seq_len\":4096,"
             "\"batch_size\":4,\"precision\":\"fp16\"%s}}",
             extra);
    long st;
    json_t *doc = solve(body, &st);
    cr_assert_eq(st, 200, "%s", extra);
    return doc;
}

Test(hf_precision_api, per_tensor_precision)
{
    json_t *base = serving("");
    json_t *same = serving(",\"weight_precision\":\"fp16\",\"kv_precision\":\"fp16\",\"activation_precision\":\"fp16\"");
    cr_expect(json_equal(json_object_get(base, "result"), json_object_get(same, "result")));

    json_t *kv8 = serving(",\"kv_precision\":\"fp8\"");
    cr_expect_eq(result_num(kv8, "kv_cache") * 2, result_num(base, "kv_cache"));
    cr_expect_eq(result_num(kv8, "model_weights"), result_num(base, "model_weights"));

    json_t *w4 = serving(",\"weight_precision\":\"int4\"");
    cr_expect_eq(result_num(w4, "model_weights") * 4, result_num(base, "model_weights"));
    cr_expect_eq(result_num(w4, "kv_cache"), result_num(base, "kv_cache"));
    cr_expect_eq(result_num(w4, "ttft"), result_num(base, "ttft")); /* computes at fp16 */
    cr_expect_lt(result_num(w4, "itl"), result_num(base, "itl"));

    json_t *q4 = serving(",\"weight_precision\":\"q4_k_m\"");
    cr_expect(close_enough(result_num(q4, "model_weights"), 8.03e9 * 4.84 / 8));

    json_decref(base);
    json_decref(same);
    json_decref(kv8);
    json_decref(w4);
    json_decref(q4);
}
