/* hf_config.c - a model entry computed from a Hugging Face config.json
 * ({"hf_config": {...}} wherever a model is given; resolve.c calls it).
 *
 * The parameter count is the sum of the weight tensors the transformers
 * implementation of the config's model_type creates, counted from the
 * config's shapes:
 *   embeddings   vocab x hidden (+ the output head when untied, + learned
 *                position tables for GPT-2 and BERT);
 *   attention    q, k, v and o projections: hidden x heads x head_dim for q
 *                and o, hidden x kv_heads x head_dim for k and v (grouped-
 *                query attention), biases where the family has them;
 *                Multi-head latent attention (DeepSeek-V2/V3) as its low-rank
 *                projections (q_lora_rank, kv_lora_rank, qk_nope_head_dim,
 *                qk_rope_head_dim, v_head_dim);
 *   MLP          gated (gate, up, down: 3 x hidden x intermediate) or plain
 *                (up and down with biases);
 *   experts      per MoE layer, every routed expert's gated MLP, the shared
 *                experts, the router (and Qwen-MoE's shared-expert gate);
 *   norms        the RMSNorm / LayerNorm weights (and LayerNorm biases).
 * active_parameters (MoE) is the total less the routed experts a token does
 * not use: (experts - experts_per_token) x one expert per MoE layer. It
 * counts the input embedding as each publisher does: Mixtral's 12.9B,
 * Qwen's A2.7B and Phi-3.5-MoE's 6.6B count it, DeepSeek's and gpt-oss's
 * activated figures leave it out (the family table's active_no_embed).
 *
 * The KV cache follows from the record as for any model (core/llm.c): 2 x
 * layers x kv_heads x head_dim elements per token, or layers x (kv_lora_rank
 * + qk_rope_head_dim) for latent attention. A sliding window is recorded but
 * does not shrink the cache (every layer is sized for the full context).
 * DeepSeek-V3's multi-token-prediction module (num_nextn_predict_layers) is
 * not counted (its 671B leave it out). A multimodal config is counted by its
 * language model (text_config); Gemma 3's SigLIP tower and projector are
 * added to parameters (vision_parameters) as its published totals count
 * them, other wrappers' vision towers are not counted.
 *
 * Calls down only: field.c (cat_fail). */
#include "catalog/catalog_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef enum { A_DECODER, A_MIXTRAL, A_QWEN_MOE, A_LLAMA4, A_DEEPSEEK, A_FALCON, A_GPT2, A_NEOX, A_PHI, A_BERT } hf_arch;
typedef enum { QK_NONE, QK_HEAD, QK_FULL } qk_norm_kind; /* none, per head (head_dim), over all heads */

/* One model_type: how its transformers implementation lays out the weights. */
typedef struct {
    const char *model_type;
    hf_arch arch;
    bool tie_default;      /* tie_word_embeddings when absent: the config class's default */
    bool qkv_bias;         /* q, k and v projections always carry a bias (Qwen2, Qwen2-MoE) */
    qk_norm_kind qk_norm;  /* RMSNorm of q and k (Qwen3, Gemma 3: per head; OLMo 2: over all heads) */
    int norms;             /* hidden-sized norm weights per layer; 0: parameter-free norms (OLMo), no final norm weight */
    bool norm_bias;        /* LayerNorm with a bias (Phi-3.5-MoE, StarCoder2) */
    bool plain_mlp;        /* up and down (c_fc, c_proj) instead of the gated gate, up and down */
    const char *bias_flag; /* config flag, default true, that puts a bias on every projection (StarCoder2 use_bias) */
    bool moe_bias;         /* experts and router carry biases, one attention sink per head (gpt-oss) */
    bool window_flag;      /* the sliding window applies only with use_sliding_window (Qwen) */
    bool active_no_embed;  /* the publisher's activated count leaves out the input embedding (DeepSeek, gpt-oss) */
    const char *label;
} hf_family;

static const hf_family FAMILIES[] = {
    {"llama", A_DECODER, .norms = 2, .label = "Llama (GQA, gated MLP)"},
    {"mistral", A_DECODER, .norms = 2, .label = "Mistral (GQA, gated MLP, sliding window)"},
    {"granite", A_DECODER, .norms = 2, .label = "Granite (Llama layout with scaling multipliers)"},
    {"smollm3", A_DECODER, .tie_default = true, .norms = 2, .label = "SmolLM3 (Llama layout)"},
    {"qwen2", A_DECODER, .qkv_bias = true, .norms = 2, .window_flag = true,
     .label = "Qwen2 (GQA with qkv bias, gated MLP)"},
    {"qwen3", A_DECODER, .qk_norm = QK_HEAD, .norms = 2, .window_flag = true,
     .label = "Qwen3 (GQA, q/k norm, gated MLP)"},
    {"phi3", A_DECODER, .norms = 2, .label = "Phi-3 / Phi-4 (fused qkv, gated MLP)"},
    {"cohere", A_DECODER, .tie_default = true, .norms = 1, .label = "Cohere Command R (one LayerNorm, parallel block)"},
    {"cohere2", A_DECODER, .tie_default = true, .norms = 1, .label = "Cohere Command R7B/A (one LayerNorm, sliding window)"},
    {"olmo", A_DECODER, .norms = 0, .label = "OLMo (parameter-free LayerNorm, gated MLP)"},
    {"olmo2", A_DECODER, .qk_norm = QK_FULL, .norms = 2, .label = "OLMo 2 (post-norms, q/k norm over all heads)"},
    {"starcoder2", A_DECODER, .tie_default = true, .norms = 2, .norm_bias = true, .plain_mlp = true,
     .bias_flag = "use_bias", .label = "StarCoder2 (GQA, LayerNorm, biased plain MLP)"},
    {"gemma", A_DECODER, .tie_default = true, .norms = 2, .label = "Gemma (GeGLU MLP, explicit head_dim)"},
    {"gemma2", A_DECODER, .tie_default = true, .norms = 4, .label = "Gemma 2 (GQA, GeGLU, local/global attention)"},
    {"gemma3_text", A_DECODER, .tie_default = true, .qk_norm = QK_HEAD, .norms = 4,
     .label = "Gemma 3 (GQA, q/k norm, local/global attention)"},
    {"mixtral", A_MIXTRAL, .norms = 2, .label = "Mixtral MoE (routed gated-MLP experts)"},
    {"phimoe", A_MIXTRAL, .norms = 2, .norm_bias = true, .label = "Phi-3.5-MoE (routed experts, LayerNorm)"},
    {"gpt_oss", A_MIXTRAL, .norms = 2, .moe_bias = true, .active_no_embed = true,
     .label = "gpt-oss (routed experts with biases, attention sinks)"},
    {"qwen2_moe", A_QWEN_MOE, .qkv_bias = true, .norms = 2, .window_flag = true,
     .label = "Qwen2-MoE (routed + shared experts)"},
    {"qwen3_moe", A_QWEN_MOE, .qk_norm = QK_HEAD, .norms = 2, .window_flag = true,
     .label = "Qwen3-MoE (routed experts, q/k norm)"},
    {"llama4_text", A_LLAMA4, .norms = 2, .label = "Llama 4 (routed + shared expert, interleaved dense layers)"},
    {"deepseek_v2", A_DEEPSEEK, .norms = 2, .active_no_embed = true, .label = "DeepSeek-V2 (MLA, routed + shared experts)"},
    {"deepseek_v3", A_DEEPSEEK, .norms = 2, .active_no_embed = true, .label = "DeepSeek-V3 (MLA, routed + shared experts)"},
    {"kimi_k2", A_DEEPSEEK, .norms = 2, .active_no_embed = true, .label = "Kimi K2 (DeepSeek-V3 layout)"},
    {"falcon", A_FALCON, .tie_default = true, .label = "Falcon (multi-query or grouped attention, parallel MLP)"},
    {"gpt2", A_GPT2, .tie_default = true, .label = "GPT-2 (learned positions, LayerNorm, GELU MLP)"},
    {"gpt_neox", A_NEOX, .label = "GPT-NeoX (rotary, parallel residual)"},
    {"phi", A_PHI, .label = "Phi (partial rotary, parallel attention and MLP)"},
    {"bert", A_BERT, .tie_default = true, .label = "BERT encoder (learned positions, LayerNorm)"},
};
#define N_FAMILIES (sizeof FAMILIES / sizeof FAMILIES[0])

/* A value the config class sets when the field is absent. A top-level
 * config.json spells out every architecture field (a missing one is a 400),
 * but transformers saves a nested sub-config (text_config, vision_config) as
 * its difference from the class defaults, so a nested read falls back to
 * these. */
typedef struct {
    const char *name;
    long long value;
} hf_default;

/* Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py). */
static const hf_default GEMMA3_TEXT_DEFAULTS[] = {
    {"vocab_size", 262208}, {"hidden_size", 2304}, {"intermediate_size", 9216}, {"num_hidden_layers", 26},
    {"num_attention_heads", 8}, {"num_key_value_heads", 4}, {"head_dim", 256},
    {NULL, 0},
};
/* SiglipVisionConfig (transformers models/siglip/configuration_siglip.py). */
static const hf_default SIGLIP_DEFAULTS[] = {
    {"hidden_size", 768}, {"intermediate_size", 3072}, {"num_hidden_layers", 12}, {"num_attention_heads", 12},
    {"num_channels", 3}, {"image_size", 224}, {"patch_size", 16},
    {NULL, 0},
};

/* A reader of one config object; the first error sticks in rc. */
typedef struct {
    const json_t *cfg;
    const cat_errsink *es;
    const char *prefix; /* "hf_config", "hf_config.text_config", "hf_config.vision_config" */
    const char *type;
    const hf_default *defaults; /* a nested sub-config's class defaults, else NULL */
    int rc;
} rd;

static const json_t *rd_get(const rd *r, const char *name)
{
    const json_t *v = json_object_get(r->cfg, name);
    return v == NULL || json_is_null(v) ? NULL : v;
}

static int rd_fail_missing(rd *r, const char *name, const char *what)
{
    char path[160];
    snprintf(path, sizeof path, "%s.%s", r->prefix, name);
    r->rc = cat_fail(r->es, path, "required for model_type \"%s\" (%s)", r->type, what);
    return r->rc;
}

/* A whole number >= lo, written as a JSON integer or an integral real;
 * absent or null: the nested default, else def (or, with what != NULL, a
 * 400 naming the field). */
static long long rd_int(rd *r, const char *name, long long def, long long lo, const char *what)
{
    if (r->rc)
        return def;
    const json_t *v = rd_get(r, name);
    if (v == NULL) {
        for (const hf_default *d = r->defaults; d && d->name; d++)
            if (strcmp(d->name, name) == 0)
                return d->value;
        if (what != NULL)
            rd_fail_missing(r, name, what);
        return def;
    }
    long long x;
    if (json_is_integer(v))
        x = json_integer_value(v);
    else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) && fabs(json_real_value(v)) < 1e15)
        x = (long long)json_real_value(v);
    else {
        char path[160];
        snprintf(path, sizeof path, "%s.%s", r->prefix, name);
        r->rc = cat_fail(r->es, path, "expected a whole number, got %s", cat_json_kind(v));
        return def;
    }
    if (x < lo) {
        char path[160];
        snprintf(path, sizeof path, "%s.%s", r->prefix, name);
        r->rc = cat_fail(r->es, path, "expected a whole number >= %lld, got %lld", lo, x);
        return def;
    }
    return x;
}

/* rd_int of `name`, or of `alias` when only the alias is there (Falcon's
 * n_layer and n_head; a missing field is named by `name`). */
static long long rd_int_alias(rd *r, const char *name, const char *alias, long long def, long long lo,
                              const char *what)
{
    if (rd_get(r, name) == NULL && rd_get(r, alias) != NULL)
        return rd_int(r, alias, def, lo, what);
    return rd_int(r, name, def, lo, what);
}

static bool rd_bool(rd *r, const char *name, bool def)
{
    if (r->rc)
        return def;
    const json_t *v = rd_get(r, name);
    if (v == NULL)
        return def;
    if (!json_is_boolean(v)) {
        char path[160];
        snprintf(path, sizeof path, "%s.%s", r->prefix, name);
        r->rc = cat_fail(r->es, path, "expected true or false, got %s", cat_json_kind(v));
        return def;
    }
    return json_is_true(v);
}

/* What the count found. */
typedef struct {
    double total, active, embed;
    long long layers, hidden, heads, kv_heads, head_dim;
    long long kv_lora, rope, experts, topk, window;
    bool moe;
} hf_count;

/* Layer i (0-based) is in a JSON array of layer indices. */
static bool listed_layer(const json_t *list, long long i)
{
    size_t k;
    const json_t *x;
    json_array_foreach(list, k, x)
        if (json_is_integer(x) && json_integer_value(x) == i)
            return true;
    return false;
}

/* Layer i (0-based) of a Qwen-MoE model has experts. */
static bool qwen_sparse_layer(const json_t *cfg, long long i, long long step, long long experts)
{
    if (experts <= 0 || step <= 0 || (i + 1) % step != 0)
        return false;
    return !listed_layer(json_object_get(cfg, "mlp_only_layers"), i);
}

/* Layer i (0-based) of a Llama 4 model has experts: in moe_layers when the
 * config lists them, else every interleave_moe_layer_step-th layer. */
static bool llama4_moe_layer(const json_t *cfg, long long i, long long step)
{
    const json_t *listed = json_object_get(cfg, "moe_layers");
    if (json_is_array(listed))
        return listed_layer(listed, i);
    return (i + 1) % step == 0;
}

/* Llama-like decoders and their MoE variants (Mixtral, Phi-3.5-MoE, Llama 4,
 * gpt-oss, Qwen-MoE). */
static void count_decoder(rd *r, const hf_family *f, hf_count *c)
{
    double H = (double)rd_int(r, "hidden_size", 0, 1, "the model width"),
           L = (double)rd_int(r, "num_hidden_layers", 0, 1, "the number of decoder layers"),
           nh = (double)rd_int(r, "num_attention_heads", 0, 1, "query heads per layer"),
           V = (double)rd_int(r, "vocab_size", 0, 1, "rows of the embedding table");
    if (r->rc)
        return;
    double nkv = (double)rd_int(r, "num_key_value_heads", (long long)nh, 1, NULL);
    double hd = (double)rd_int(r, "head_dim", 0, 0, NULL);
    if (hd == 0) /* absent, null or 0: hidden_size / num_attention_heads, as transformers and vLLM read it */
        hd = (double)(long long)(H / nh);
    bool tie = rd_bool(r, "tie_word_embeddings", f->tie_default);
    bool all_bias = f->bias_flag != NULL && rd_bool(r, f->bias_flag, true);
    bool attn_bias = all_bias || rd_bool(r, "attention_bias", false);
    bool mlp_bias = all_bias || rd_bool(r, "mlp_bias", false);
    bool head_bias = !tie && rd_bool(r, "lm_head_bias", false);
    double q_out = nh * hd, kv_out = nkv * hd;

    double attn = H * q_out + 2 * H * kv_out + q_out * H;
    if (attn_bias)
        attn += q_out + 2 * kv_out + H;
    else if (f->qkv_bias)
        attn += q_out + 2 * kv_out;
    attn += f->qk_norm == QK_HEAD ? 2 * hd : f->qk_norm == QK_FULL ? q_out + kv_out : 0;
    if (f->moe_bias)
        attn += nh; /* one attention sink per head */
    double norm = f->norm_bias ? 2 * H : H; /* one norm's weights (and bias) */
    double norms = f->norms * norm;

    double dense_mlp = 0, moe_total = 0, moe_active = 0, one_expert = 0;
    long long n_moe_layers = 0, E = 0, k = 0;
    if (f->arch == A_DECODER) {
        double I = (double)rd_int(r, "intermediate_size", 0, 1, "the MLP width");
        dense_mlp = (f->plain_mlp ? 2 : 3) * H * I + (mlp_bias ? (f->plain_mlp ? I : 2 * I) + H : 0);
    } else if (f->arch == A_MIXTRAL) {
        E = rd_int(r, "num_local_experts", 0, 1, "routed experts per layer");
        k = rd_int(r, "num_experts_per_tok", 2, 1, NULL);
        double I = (double)rd_int(r, "intermediate_size", 0, 1, "each expert's MLP width");
        one_expert = 3 * H * I + (f->moe_bias ? 2 * I + H : 0);
        double router = H * (double)E + (f->moe_bias ? (double)E : 0);
        moe_total = (double)E * one_expert + router;
        moe_active = (double)k * one_expert + router;
        n_moe_layers = (long long)L;
    } else if (f->arch == A_LLAMA4) {
        E = rd_int(r, "num_local_experts", 0, 1, "routed experts per MoE layer");
        k = rd_int(r, "num_experts_per_tok", 1, 1, NULL);
        double I = (double)rd_int(r, "intermediate_size", 0, 1, "each expert's MLP width");
        long long step = rd_int(r, "interleave_moe_layer_step", 1, 1, NULL);
        one_expert = 3 * H * I;
        /* Every MoE layer also runs one shared expert of the same width. */
        moe_total = (double)(E + 1) * one_expert + H * (double)E;
        moe_active = (double)(k + 1) * one_expert + H * (double)E;
        if (r->rc)
            return;
        for (long long i = 0; i < (long long)L; i++)
            n_moe_layers += llama4_moe_layer(r->cfg, i, step);
        if (n_moe_layers < (long long)L)
            dense_mlp = 3 * H * (double)rd_int(r, "intermediate_size_mlp", 0, 1, "the MLP width of the dense layers");
    } else { /* A_QWEN_MOE */
        E = rd_int(r, "num_experts", 0, 1, "routed experts per MoE layer");
        k = rd_int(r, "num_experts_per_tok", 0, 1, "experts each token is routed to");
        double Im = (double)rd_int(r, "moe_intermediate_size", 0, 1, "each routed expert's MLP width");
        double Is = (double)rd_int(r, "shared_expert_intermediate_size", 0, 0, NULL);
        long long step = rd_int(r, "decoder_sparse_step", 1, 1, NULL);
        one_expert = 3 * H * Im;
        double shared = Is > 0 ? 3 * H * Is + H : 0; /* shared expert and its sigmoid gate */
        moe_total = (double)E * one_expert + H * (double)E + shared;
        moe_active = (double)k * one_expert + H * (double)E + shared;
        if (r->rc)
            return;
        for (long long i = 0; i < (long long)L; i++)
            n_moe_layers += qwen_sparse_layer(r->cfg, i, step, E);
        if (n_moe_layers < (long long)L)
            dense_mlp = 3 * H * (double)rd_int(r, "intermediate_size", 0, 1, "the MLP width of the dense layers");
    }
    if (r->rc)
        return;
    if (k > E) {
        char path[160];
        snprintf(path, sizeof path, "%s.num_experts_per_tok", r->prefix);
        r->rc = cat_fail(r->es, path, "experts per token (%lld) exceed the routed experts (%lld)", k, E);
        return;
    }
    double n_dense = L - (double)n_moe_layers;
    c->embed = V * H * (tie ? 1 : 2) + (head_bias ? V : 0);
    double final_norm = f->norms > 0 ? norm : 0;
    double body = L * (attn + norms) + n_dense * dense_mlp + final_norm;
    c->total = c->embed + body + (double)n_moe_layers * moe_total;
    c->active = c->embed + body + (double)n_moe_layers * moe_active - (f->active_no_embed ? V * H : 0);
    c->moe = n_moe_layers > 0;
    c->layers = (long long)L;
    c->hidden = (long long)H;
    c->heads = (long long)nh;
    c->kv_heads = (long long)nkv;
    c->head_dim = (long long)hd;
    c->experts = c->moe ? E : 0;
    c->topk = c->moe ? k : 0;
    /* The window is shown, not used: a value that is not a positive number
     * (false or -1 in some configs) means none rather than a refusal. */
    const json_t *w = rd_get(r, "sliding_window");
    if ((!f->window_flag || rd_bool(r, "use_sliding_window", false)) && json_is_number(w) && json_number_value(w) >= 1)
        c->window = rd_int(r, "sliding_window", 0, 0, NULL);
}

/* DeepSeek-V2/V3: multi-head latent attention, dense first layers, routed
 * and shared experts. */
static void count_deepseek(rd *r, const hf_family *f, hf_count *c)
{
    double H = (double)rd_int(r, "hidden_size", 0, 1, "the model width"),
           L = (double)rd_int(r, "num_hidden_layers", 0, 1, "the number of decoder layers"),
           nh = (double)rd_int(r, "num_attention_heads", 0, 1, "query heads per layer"),
           V = (double)rd_int(r, "vocab_size", 0, 1, "rows of the embedding table"),
           kv_lora = (double)rd_int(r, "kv_lora_rank", 0, 1, "the rank of the compressed KV latent"),
           rope = (double)rd_int(r, "qk_rope_head_dim", 0, 1, "the decoupled RoPE key dimension"),
           nope = (double)rd_int(r, "qk_nope_head_dim", 0, 1, "the per-head query/key dimension without RoPE"),
           vhd = (double)rd_int(r, "v_head_dim", 0, 1, "the per-head value dimension");
    double q_lora = (double)rd_int(r, "q_lora_rank", 0, 1, NULL); /* null: a full-rank q projection (V2-Lite) */
    bool tie = rd_bool(r, "tie_word_embeddings", false);
    bool bias = rd_bool(r, "attention_bias", false);
    long long E = rd_int(r, "n_routed_experts", 0, 0, NULL);
    long long Es = rd_int(r, "n_shared_experts", 0, 0, NULL);
    long long first_k = rd_int(r, "first_k_dense_replace", 0, 0, NULL);
    long long freq = rd_int(r, "moe_layer_freq", 1, 1, NULL);
    if (r->rc)
        return;
    double qk = nope + rope;
    double attn = q_lora > 0 ? H * q_lora + q_lora + q_lora * nh * qk + (bias ? q_lora : 0) : H * nh * qk;
    attn += H * (kv_lora + rope) + (bias ? kv_lora + rope : 0) + kv_lora + kv_lora * nh * (nope + vhd) + nh * vhd * H +
            (bias ? H : 0);
    double norms = 2 * H;

    long long n_moe = 0;
    for (long long i = 0; i < (long long)L; i++)
        n_moe += E > 0 && i >= first_k && i % freq == 0;
    double dense_mlp = 0, moe_total = 0, moe_active = 0;
    long long k = 0;
    if (n_moe < (long long)L)
        dense_mlp = 3 * H * (double)rd_int(r, "intermediate_size", 0, 1, "the MLP width of the dense layers");
    if (n_moe > 0) {
        k = rd_int(r, "num_experts_per_tok", 0, 1, "experts each token is routed to");
        double one = 3 * H * (double)rd_int(r, "moe_intermediate_size", 0, 1, "each expert's MLP width");
        const json_t *tm = json_object_get(r->cfg, "topk_method");
        /* noaux_tc routing (V3) adds a per-expert score-correction bias. */
        double router = H * (double)E + (json_is_string(tm) && strcmp(json_string_value(tm), "noaux_tc") == 0 ? (double)E : 0);
        moe_total = (double)(E + Es) * one + router;
        moe_active = (double)(k + Es) * one + router;
        if (!r->rc && k > E) {
            char path[160];
            snprintf(path, sizeof path, "%s.num_experts_per_tok", r->prefix);
            r->rc = cat_fail(r->es, path, "experts per token (%lld) exceed the routed experts (%lld)", k, E);
        }
    }
    if (r->rc)
        return;
    c->embed = V * H * (tie ? 1 : 2);
    double body = L * (attn + norms) + (L - (double)n_moe) * dense_mlp + H;
    c->total = c->embed + body + (double)n_moe * moe_total;
    c->active = c->embed + body + (double)n_moe * moe_active - (f->active_no_embed ? V * H : 0);
    c->moe = n_moe > 0;
    c->layers = (long long)L;
    c->hidden = (long long)H;
    c->heads = (long long)nh;
    c->kv_heads = (long long)nh;
    c->head_dim = (long long)qk;
    c->kv_lora = (long long)kv_lora;
    c->rope = (long long)rope;
    c->experts = c->moe ? E : 0;
    c->topk = c->moe ? k : 0;
}

/* Falcon: one fused query-key-value projection (multi-query in Falcon-7B,
 * num_kv_heads groups with new_decoder_architecture), attention and a plain
 * MLP in parallel off one or two LayerNorms, tied output head. */
static void count_falcon(rd *r, const hf_family *f, hf_count *c)
{
    double H = (double)rd_int(r, "hidden_size", 0, 1, "the model width"),
           L = (double)rd_int_alias(r, "num_hidden_layers", "n_layer", 0, 1, "the number of decoder layers"),
           nh = (double)rd_int_alias(r, "num_attention_heads", "n_head", 0, 1, "query heads per layer"),
           V = (double)rd_int(r, "vocab_size", 0, 1, "rows of the embedding table");
    if (r->rc)
        return;
    bool new_arch = rd_bool(r, "new_decoder_architecture", false);
    bool multi_query = rd_bool(r, "multi_query", true);
    bool parallel = rd_bool(r, "parallel_attn", true);
    bool bias = rd_bool(r, "bias", false);
    bool tie = rd_bool(r, "tie_word_embeddings", f->tie_default);
    double hd = H / nh;
    double nkv = new_arch ? (double)rd_int_alias(r, "num_kv_heads", "n_head_kv", (long long)nh, 1, NULL)
                          : multi_query ? 1 : nh;
    double ffn = (double)rd_int(r, "ffn_hidden_size", (long long)(4 * H), 1, NULL);
    double lns = new_arch ? (double)rd_int(r, "num_ln_in_parallel_attn", 2, 1, NULL) : parallel ? 1 : 2;
    if (r->rc)
        return;
    double qkv = (nh + 2 * nkv) * hd;
    double attn = H * qkv + H * H + (bias ? qkv + H : 0);
    double mlp = 2 * H * ffn + (bias ? ffn + H : 0);
    c->embed = V * H * (tie ? 1 : 2);
    c->total = c->embed + L * (attn + mlp + lns * 2 * H) + 2 * H;
    c->active = c->total;
    c->layers = (long long)L;
    c->hidden = (long long)H;
    c->heads = (long long)nh;
    c->kv_heads = (long long)nkv;
    c->head_dim = (long long)hd;
}

/* A SigLIP vision tower (patch embedding, position table, encoder layers,
 * post-LayerNorm, the pooling head when vision_use_head) and Gemma 3's
 * projector into the language model's width (a matrix and an RMSNorm). */
static double count_siglip_gemma3(rd *r, double text_hidden)
{
    double H = (double)rd_int(r, "hidden_size", 0, 1, "the vision tower width"),
           I = (double)rd_int(r, "intermediate_size", 0, 1, "the vision MLP width"),
           L = (double)rd_int(r, "num_hidden_layers", 0, 1, "the vision encoder layers"),
           ch = (double)rd_int(r, "num_channels", 3, 1, NULL),
           img = (double)rd_int(r, "image_size", 0, 1, "the input image side in pixels"),
           p = (double)rd_int(r, "patch_size", 0, 1, "the patch side in pixels");
    bool head = rd_bool(r, "vision_use_head", true);
    if (r->rc)
        return 0;
    double patches = floor(img / p) * floor(img / p);
    double layer = 4 * H * H + 4 * H + 2 * H * I + I + H + 2 * 2 * H;
    double tower = ch * p * p * H + H + patches * H + L * layer + 2 * H;
    if (head) /* probe, multi-head attention (in and out projections), LayerNorm, MLP */
        tower += H + 4 * H * H + 4 * H + 2 * H + 2 * H * I + I + H;
    return tower + H * text_hidden + H;
}

/* GPT-2, GPT-NeoX, Phi-1/2 and BERT: LayerNorm (weight and bias), biases
 * on every projection, plain (ungated) MLPs. */
static void count_classic(rd *r, const hf_family *f, hf_count *c)
{
    bool gpt2 = f->arch == A_GPT2;
    double H = (double)rd_int(r, gpt2 ? "n_embd" : "hidden_size", 0, 1, "the model width"),
           L = (double)rd_int(r, gpt2 ? "n_layer" : "num_hidden_layers", 0, 1, "the number of layers"),
           nh = (double)rd_int(r, gpt2 ? "n_head" : "num_attention_heads", 0, 1, "attention heads per layer"),
           V = (double)rd_int(r, "vocab_size", 0, 1, "rows of the embedding table");
    if (r->rc)
        return;
    double I = gpt2 ? (double)rd_int(r, "n_inner", (long long)(4 * H), 1, NULL)
                    : (double)rd_int(r, "intermediate_size", 0, 1, "the MLP width");
    bool tie = rd_bool(r, "tie_word_embeddings", f->tie_default);
    double ln = 2 * H, mlp = H * I + I + I * H + H, nkv = nh, hd = H / nh;
    double attn, per_layer_norms, pos = 0, extra = 0;
    switch (f->arch) {
    case A_GPT2:
        pos = (double)rd_int(r, "n_positions", 0, 1, "rows of the learned position table");
        attn = 4 * H * H + 4 * H;
        per_layer_norms = 2 * ln;
        break;
    case A_NEOX:
        attn = 4 * H * H + (rd_bool(r, "attention_bias", true) ? 4 * H : 0);
        per_layer_norms = 2 * ln;
        break;
    case A_PHI:
        nkv = (double)rd_int(r, "num_key_value_heads", (long long)nh, 1, NULL);
        attn = H * H + H + 2 * (H * nkv * hd + nkv * hd) + H * H + H;
        per_layer_norms = ln; /* one LayerNorm feeds attention and MLP in parallel */
        if (!tie)
            extra = V; /* lm_head bias */
        break;
    default: /* A_BERT */
        pos = (double)rd_int(r, "max_position_embeddings", 0, 1, "rows of the learned position table");
        pos += (double)rd_int(r, "type_vocab_size", 2, 0, NULL);
        attn = 4 * H * H + 4 * H;
        per_layer_norms = 2 * ln;
        extra = H * H + H; /* the pooler; `ln` below is the embedding LayerNorm */
        tie = true;        /* an encoder: no output head */
        break;
    }
    if (r->rc)
        return;
    c->embed = (V + pos) * H + (tie ? 0 : V * H);
    c->total = c->embed + L * (attn + mlp + per_layer_norms) + ln + extra;
    c->active = c->total;
    c->layers = (long long)L;
    c->hidden = (long long)H;
    c->heads = (long long)nh;
    c->kv_heads = (long long)nkv;
    c->head_dim = (long long)hd;
}

static const hf_family *find_family(const char *t)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (strcmp(FAMILIES[i].model_type, t) == 0)
            return &FAMILIES[i];
    return NULL;
}

int cat_hf_config_entry(const cat_errsink *es, const json_t *cfg, json_t **out)
{
    *out = NULL;
    if (!json_is_object(cfg))
        return cat_fail(es, "hf_config", "expected the object of a Hugging Face config.json, got %s",
                        cat_json_kind(cfg));
    rd r = {cfg, es, "hf_config", "", NULL, 0};
    const json_t *mt = json_object_get(cfg, "model_type");
    char supported[600];
    size_t used = 0;
    for (size_t i = 0; i < N_FAMILIES && used < sizeof supported; i++)
        used += (size_t)snprintf(supported + used, sizeof supported - used, "%s%s", i ? ", " : "",
                                 FAMILIES[i].model_type);
    if (mt == NULL || !json_is_string(mt))
        return cat_fail(es, "hf_config.model_type", "required: the config's model_type (supported: %s)", supported);
    const char *type = json_string_value(mt);
    const json_t *text = json_object_get(cfg, "text_config");
    const json_t *vision = NULL;
    const hf_family *f = find_family(type);
    if (strcmp(type, "gemma3") == 0 && json_is_object(text)) {
        /* Gemma 3's multimodal configs: the language model in text_config,
         * a SigLIP tower in vision_config, each saved as its difference
         * from the class defaults. */
        r.cfg = text;
        r.prefix = "hf_config.text_config";
        r.defaults = GEMMA3_TEXT_DEFAULTS;
        type = "gemma3_text";
        f = find_family(type);
        vision = json_is_object(json_object_get(cfg, "vision_config")) ? json_object_get(cfg, "vision_config") : NULL;
    } else if (f == NULL && json_is_object(text) && json_is_string(json_object_get(text, "model_type")) &&
               find_family(json_string_value(json_object_get(text, "model_type"))) != NULL) {
        /* A multimodal wrapper (LLaVA, Mistral 3) around a supported
         * language model: its text_config is counted, the vision tower is not. */
        r.cfg = text;
        r.prefix = "hf_config.text_config";
        type = json_string_value(json_object_get(text, "model_type"));
        f = find_family(type);
    }
    if (f == NULL)
        return cat_fail(es, "hf_config.model_type", "unsupported model_type \"%.60s\" (supported: %s)", type,
                        supported);
    r.type = type;
    hf_count c = {0};
    switch (f->arch) {
    case A_DECODER:
    case A_MIXTRAL:
    case A_QWEN_MOE:
    case A_LLAMA4:
        count_decoder(&r, f, &c);
        break;
    case A_DEEPSEEK:
        count_deepseek(&r, f, &c);
        break;
    case A_FALCON:
        count_falcon(&r, f, &c);
        break;
    default:
        count_classic(&r, f, &c);
        break;
    }
    double vision_params = NAN;
    if (!r.rc && vision != NULL) {
        rd v = {vision, es, "hf_config.vision_config", "siglip_vision_model", SIGLIP_DEFAULTS, 0};
        vision_params = count_siglip_gemma3(&v, (double)c.hidden);
        if (v.rc)
            return v.rc;
    }
    if (r.rc)
        return r.rc;
    if (c.layers > 1000000 || c.heads > 1000000 || c.kv_heads > 1000000 || c.head_dim > 1000000 ||
        c.hidden > 100000000 || c.window > 2000000000 || !isfinite(c.total) || c.total > 1e16)
        return cat_fail(es, "hf_config", "the config's dimensions are out of range");

    /* Name: the repository it was saved from, else the architecture class. */
    char name[ID_LEN];
    const json_t *nm = json_object_get(cfg, "_name_or_path");
    const json_t *archs = json_object_get(cfg, "architectures");
    if (json_is_string(nm) && json_string_length(nm) > 0)
        snprintf(name, sizeof name, "%.90s", json_string_value(nm));
    else if (json_is_string(json_array_get(archs, 0)))
        snprintf(name, sizeof name, "%.90s", json_string_value(json_array_get(archs, 0)));
    else
        snprintf(name, sizeof name, "%s from hf_config", f->model_type);

    json_t *e = json_object();
    char arch[64];
    snprintf(arch, sizeof arch, "%s", f->label);
    json_object_set_new(e, "key", json_string("hf_config"));
    json_object_set_new(e, "name", json_string(name));
    json_object_set_new(e, "group", json_string("Custom"));
    json_object_set_new(e, "type", json_string(c.moe ? "SparseTransformerWorkload" : "TransformerWorkload"));
    json_object_set_new(e, "architecture", json_string(arch));
    json_object_set_new(e, "hf_model_type", json_string(f->model_type));
    /* The checkpoint holds the vision tower too; a token's flops are the language model's. */
    double text_active = c.moe ? c.active : c.total;
    if (!isnan(vision_params)) {
        c.total += vision_params;
        c.active += vision_params;
    }
    json_object_set_new(e, "parameters", json_real(c.total));
    if (c.moe) {
        json_object_set_new(e, "active_parameters", json_real(c.active));
        json_object_set_new(e, "experts", json_integer(c.experts));
        json_object_set_new(e, "active_experts_per_token", json_integer(c.topk));
    }
    /* Forward flop per token, 2 x the weights a token multiplies through, as
     * the catalog's transformers state it (attention over the context aside). */
    json_object_set_new(e, "inference_flops", json_real(2.0 * text_active));
    json_object_set_new(e, "embedding_parameters", json_real(c.embed));
    if (!isnan(vision_params))
        json_object_set_new(e, "vision_parameters", json_real(vision_params));
    json_object_set_new(e, "layers", json_integer(c.layers));
    json_object_set_new(e, "hidden_dim", json_integer(c.hidden));
    json_object_set_new(e, "heads", json_integer(c.heads));
    json_object_set_new(e, "kv_heads", json_integer(c.kv_heads));
    json_object_set_new(e, "head_dim", json_integer(c.head_dim));
    if (c.kv_lora > 0) {
        json_object_set_new(e, "kv_lora_rank", json_integer(c.kv_lora));
        json_object_set_new(e, "qk_rope_head_dim", json_integer(c.rope));
    }
    if (c.window > 0)
        json_object_set_new(e, "sliding_window", json_integer(c.window));
    *out = e;
    return 0;
}
