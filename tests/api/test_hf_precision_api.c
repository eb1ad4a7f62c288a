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
 *   to precision give the answer without them;
 * - every vendored public config (tests/data/hf_configs/) posted to serving
 *   on an H100 at fp16: parameters (and active_parameters) within 1.5 % of
 *   the published count, kv_cache / (seq_len x batch_size) the KV bytes per
 *   token exactly;
 * - the same three inputs in continuous_batching, serving_capacity,
 *   inference_scaling, batching_optimizer and training_memory (weights and
 *   activations), weight_precision in compression and synthesis;
 * - which accelerators hold a config: synthesis and a sweep over hardware. */
#include <criterion/criterion.h>

#include <dirent.h>
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

#ifndef MLSYSD_SOURCE_DIR
#define MLSYSD_SOURCE_DIR "."
#endif

Test(hf_precision_api, vendored_configs_through_serving)
{
    const char *dir = MLSYSD_SOURCE_DIR "/tests/data/hf_configs";
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        json_t *f = json_load_file(path, 0, NULL);
        cr_assert_not_null(f, "%s", path);
        json_t *body = json_pack("{s:s,s:{s:{s:O},s:s,s:i,s:i,s:s}}", "solver", "serving", "inputs", "model",
                                 "hf_config", json_object_get(f, "config"), "hardware", "H100", "seq_len", 1000,
                                 "batch_size", 3, "precision", "fp16");
        long st;
        json_t *doc = api_post_doc("/solve", body, &st);
        cr_assert_eq(st, 200, "%s: %s", de->d_name, str_at(doc, "detail"));
        const json_t *m = json_object_get(json_object_get(doc, "resolved"), "model");
        const json_t *pub = json_object_get(f, "published");
        double want = num_at(pub, "parameters");
        cr_expect(fabs(num_at(m, "parameters") / want - 1) <= 0.015, "%s: %.6g vs %.6g", de->d_name,
                  num_at(m, "parameters"), want);
        if (json_object_get(pub, "active_parameters")) {
            double tol = json_object_get(f, "active_tolerance") ? num_at(f, "active_tolerance") : 0.015;
            cr_expect(fabs(num_at(m, "active_parameters") / num_at(pub, "active_parameters") - 1) <= tol,
                      "%s: active %.6g", de->d_name, num_at(m, "active_parameters"));
        }
        cr_expect_eq(result_num(doc, "kv_cache") / 3000.0, num_at(f, "kv_cache_bytes_per_token_fp16"), "%s",
                     de->d_name);
        json_decref(doc);
        json_decref(f);
        n++;
    }
    closedir(d);
    cr_expect_geq(n, 30);
}

/* A solve of `solver` on Llama3_8B / H100 with the given extra inputs. */
static json_t *solve_with(const char *solver, const char *inputs)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"solver\":\"%s\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",%s}}",
             solver, inputs);
    long st;
    json_t *doc = solve(body, &st);
    cr_assert_eq(st, 200, "%s: %s", body, str_at(doc, "detail"));
    return doc;
}

/* The answer with every per-tensor input equal to precision (bf16), and
 * without them, are the same (training_memory has no KV cache). */
static bool same_result(const char *solver, const char *inputs)
{
    char with[1024];
    snprintf(with, sizeof with, "%s,\"weight_precision\":\"bf16\",%s\"activation_precision\":\"bf16\"", inputs,
             strcmp(solver, "training_memory") == 0 ? "" : "\"kv_precision\":\"bf16\",");
    json_t *a = solve_with(solver, inputs), *b = solve_with(solver, with);
    bool same = json_equal(json_object_get(a, "result"), json_object_get(b, "result"));
    json_decref(a);
    json_decref(b);
    return same;
}

Test(hf_precision_api, serving_family_takes_per_tensor_precision)
{
    /* Equal to precision: the answer without them. */
    cr_expect(same_result("continuous_batching", "\"seq_len\":2048,\"max_batch_size\":8,\"precision\":\"bf16\""));
    cr_expect(same_result("serving_capacity", "\"qps\":5,\"target_p99_latency_ms\":20000,\"precision\":\"bf16\""));
    cr_expect(same_result("inference_scaling", "\"precision\":\"bf16\""));
    cr_expect(same_result("batching_optimizer",
                          "\"seq_len\":1024,\"sla_latency_ms\":5000,\"arrival_rate_qps\":2,\"precision\":\"bf16\","
                          "\"max_search_batch\":16"));

    /* continuous_batching: 8 requests fit either way; an fp8 KV cache is
     * half the bytes, int4 weights a quarter, at the same prefill. */
    const char *cb = "\"seq_len\":2048,\"max_batch_size\":8,\"precision\":\"fp16\"";
    json_t *base = solve_with("continuous_batching", cb);
    char in[512];
    snprintf(in, sizeof in, "%s,\"kv_precision\":\"fp8\"", cb);
    json_t *kv8 = solve_with("continuous_batching", in);
    snprintf(in, sizeof in, "%s,\"weight_precision\":\"int4\"", cb);
    json_t *w4 = solve_with("continuous_batching", in);
    cr_expect_eq(result_num(base, "max_active_requests"), 8);
    cr_expect_eq(result_num(kv8, "paged_kv_cache") * 2, result_num(base, "paged_kv_cache"));
    cr_expect_eq(result_num(w4, "paged_kv_cache"), result_num(base, "paged_kv_cache"));
    cr_expect_eq(result_num(w4, "ttft"), result_num(base, "ttft"));
    cr_expect_lt(result_num(w4, "itl"), result_num(base, "itl"));
    json_decref(base);
    json_decref(kv8);
    json_decref(w4);

    /* inference_scaling and serving_capacity: int4 weights decode faster. */
    json_t *is = solve_with("inference_scaling", "\"precision\":\"fp16\"");
    json_t *is4 = solve_with("inference_scaling", "\"precision\":\"fp16\",\"weight_precision\":\"int4_g128\"");
    cr_expect_lt(result_num(is4, "time_per_step"), result_num(is, "time_per_step"));
    json_decref(is);
    json_decref(is4);
    json_t *sc = solve_with("serving_capacity", "\"qps\":5,\"target_p99_latency_ms\":20000,\"precision\":\"fp16\"");
    json_t *sc8 = solve_with("serving_capacity", "\"qps\":5,\"target_p99_latency_ms\":20000,\"precision\":\"fp16\","
                                                 "\"weight_precision\":\"fp8\",\"kv_precision\":\"fp8\"");
    cr_expect_leq(result_num(sc8, "required_replicas"), result_num(sc, "required_replicas"));
    cr_expect_lt(result_num(sc8, "itl"), result_num(sc, "itl"));
    json_decref(sc);
    json_decref(sc8);
}

Test(hf_precision_api, training_memory_weight_and_activation_precision)
{
    const char *base_in = "\"batch_size\":8,\"seq_len\":2048,\"precision\":\"bf16\"";
    cr_expect(same_result("training_memory", base_in));
    json_t *base = solve_with("training_memory", base_in);
    char in[512];
    /* QLoRA: a 4-bit base, 1 % trainable adapters in bf16. */
    snprintf(in, sizeof in, "%s,\"weight_precision\":\"int4\"", base_in);
    json_t *q = solve_with("training_memory", in);
    cr_expect_eq(result_num(q, "weights") * 4, result_num(base, "weights"));
    cr_expect_eq(result_num(q, "gradients"), result_num(base, "gradients"));
    snprintf(in, sizeof in, "%s,\"activation_precision\":\"fp32\"", base_in);
    json_t *a32 = solve_with("training_memory", in);
    cr_expect_eq(result_num(a32, "weights"), result_num(base, "weights"));
    cr_expect_eq(result_num(a32, "gradients"), 2 * result_num(base, "gradients"));
    json_decref(base);
    json_decref(q);
    json_decref(a32);
}

Test(hf_precision_api, compression_and_synthesis_take_a_storage_format)
{
    json_t *c = solve_ok("{\"solver\":\"compression\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\","
                         "\"weight_precision\":\"int4_g128\"}}");
    cr_expect(close_enough(result_num(c, "compression_ratio"), 32 / 4.125));
    cr_expect_eq(result_num(c, "estimated_accuracy_delta"), -0.025);
    json_decref(c);
    expect_400("{\"solver\":\"compression\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\","
               "\"weight_precision\":\"q4_k_m\",\"target_bitwidth\":4}}",
               "inputs.weight_precision");
    expect_400("{\"solver\":\"compression\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\","
               "\"method\":\"pruning\",\"sparsity\":0.5,\"weight_precision\":\"q4_k_m\"}}",
               "inputs.weight_precision");

    /* Which accelerators hold a Qwen2.5-72B config: at fp16 its 145 GB fit
     * none of the three, int4 weights (36 GB) fit all. */
    char body[4096];
    snprintf(body, sizeof body,
             "{\"solver\":\"synthesis\",\"inputs\":{\"model\":{\"hf_config\":{\"model_type\":\"qwen2\","
             "\"hidden_size\":8192,\"intermediate_size\":29568,\"num_attention_heads\":64,\"num_hidden_layers\":80,"
             "\"num_key_value_heads\":8,\"vocab_size\":152064,\"tie_word_embeddings\":false}},"
             "\"target_latency\":\"10 s\",\"candidates\":[\"A100\",\"H100\",\"H200\"]%s}}",
             "");
    json_t *s16 = solve_ok(body);
    snprintf(body + strlen(body) - 2, 64, ",\"weight_precision\":\"int4\"}}");
    json_t *s4 = solve_ok(body);
    cr_expect_eq(result_num(s16, "required_memory"), 72706203648.0 * 2);
    cr_expect_eq(result_num(s4, "required_memory"), 72706203648.0 / 2);
    cr_expect_eq(result_num(s16, "qualifying_count"), 0); /* 145 GB: more than H200's 141 GB */
    cr_expect_eq(result_num(s4, "qualifying_count"), 3);
    json_decref(s16);
    json_decref(s4);

    /* ...and a sweep of serving over hardware answers the same per accelerator. */
    long st;
    json_t *sw = api_post("/sweep",
                          "{\"solver\":\"serving\",\"inputs\":{\"model\":{\"hf_config\":{\"model_type\":\"qwen2\","
                          "\"hidden_size\":8192,\"intermediate_size\":29568,\"num_attention_heads\":64,"
                          "\"num_hidden_layers\":80,\"num_key_value_heads\":8,\"vocab_size\":152064,"
                          "\"tie_word_embeddings\":false}},\"seq_len\":4096,\"precision\":\"fp16\","
                          "\"weight_precision\":\"int4\"},\"axes\":[{\"input\":\"hardware\",\"values\":[\"T4\","
                          "\"A100\",\"H200\"]}],\"outputs\":[\"feasible\",\"max_batch_at_seq_len\"]}",
                          &st);
    cr_assert_eq(st, 200, "%s", str_at(sw, "detail"));
    const json_t *rows = json_object_get(sw, "rows");
    cr_assert_eq(json_array_size(rows), 3);
    cr_expect(json_is_false(json_array_get(json_array_get(rows, 0), 1)));  /* T4: 16 GB */
    cr_expect(json_is_true(json_array_get(json_array_get(rows, 1), 1)));   /* A100 */
    cr_expect_gt(json_number_value(json_array_get(json_array_get(rows, 2), 2)),
                 json_number_value(json_array_get(json_array_get(rows, 1), 2)));
    json_decref(sw);
}
