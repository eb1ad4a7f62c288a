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
 * counts the embedding table like the total (Mixtral's 12.9B and Qwen's
 * A2.7B do; DeepSeek's published "activated" figures leave the input
 * embedding out, which embedding_parameters lets a reader subtract).
 *
 * The KV cache follows from the record as for any model (core/llm.c): 2 x
 * layers x kv_heads x head_dim elements per token, or layers x (kv_lora_rank
 * + qk_rope_head_dim) for latent attention. A sliding window is recorded but
 * does not shrink the cache (every layer is sized for the full context).
 * DeepSeek-V3's multi-token-prediction module (num_nextn_predict_layers) is
 * not counted (its 671B leave it out); neither are vision towers.
 *
 * Calls down only: field.c (cat_fail). */
#include "catalog/catalog_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef enum { A_DECODER, A_MIXTRAL, A_QWEN_MOE, A_DEEPSEEK, A_GPT2, A_NEOX, A_PHI, A_BERT } hf_arch;

typedef struct {
    const char *model_type;
    hf_arch arch;
    bool tie_default;    /* tie_word_embeddings when absent: the config class's default */
    bool qkv_bias;       /* q, k and v projections always carry a bias (Qwen2, Qwen2-MoE) */
    bool qk_norm;        /* per-head RMSNorm of q and k (Qwen3, Gemma 3) */
    int norms;           /* hidden-sized norm weights per layer (Gemma 2/3: four) */
    bool window_flag;    /* the sliding window applies only with use_sliding_window (Qwen) */
    const char *label;
} hf_family;

static const hf_family FAMILIES[] = {
    {"llama", A_DECODER, false, false, false, 2, false, "Llama (GQA, gated MLP)"},
    {"mistral", A_DECODER, false, false, false, 2, false, "Mistral (GQA, gated MLP, sliding window)"},
    {"qwen2", A_DECODER, false, true, false, 2, true, "Qwen2 (GQA with qkv bias, gated MLP)"},
    {"qwen3", A_DECODER, false, false, true, 2, true, "Qwen3 (GQA, q/k norm, gated MLP)"},
    {"phi3", A_DECODER, false, false, false, 2, false, "Phi-3 (fused qkv, gated MLP)"},
    {"gemma", A_DECODER, true, false, false, 2, false, "Gemma (GeGLU MLP, explicit head_dim)"},
    {"gemma2", A_DECODER, true, false, false, 4, false, "Gemma 2 (GQA, GeGLU, local/global attention)"},
    {"gemma3_text", A_DECODER, true, false, true, 4, false, "Gemma 3 (GQA, q/k norm, local/global attention)"},
    {"mixtral", A_MIXTRAL, false, false, false, 2, false, "Mixtral MoE (routed gated-MLP experts)"},
    {"qwen2_moe", A_QWEN_MOE, false, true, false, 2, true, "Qwen2-MoE (routed + shared experts)"},
    {"qwen3_moe", A_QWEN_MOE, false, false, true, 2, true, "Qwen3-MoE (routed experts, q/k norm)"},
    {"deepseek_v2", A_DEEPSEEK, false, false, false, 2, false, "DeepSeek-V2 (MLA, routed + shared experts)"},
    {"deepseek_v3", A_DEEPSEEK, false, false, false, 2, false, "DeepSeek-V3 (MLA, routed + shared experts)"},
    {"gpt2", A_GPT2, true, false, false, 0, false, "GPT-2 (learned positions, LayerNorm, GELU MLP)"},
    {"gpt_neox", A_NEOX, false, false, false, 0, false, "GPT-NeoX (rotary, parallel residual)"},
    {"phi", A_PHI, false, false, false, 0, false, "Phi (partial rotary, parallel attention and MLP)"},
    {"bert", A_BERT, true, false, false, 0, false, "BERT encoder (learned positions, LayerNorm)"},
};
#define N_FAMILIES (sizeof FAMILIES / sizeof FAMILIES[0])

/* A reader of one config object; the first error sticks in rc. */
typedef struct {
    const json_t *cfg;
    const cat_errsink *es;
    const char *prefix; /* "hf_config" or "hf_config.text_config" */
    const char *type;
    int rc;
} rd;

static int rd_fail_missing(rd *r, const char *name, const char *what)
{
    char path[160];
    snprintf(path, sizeof path, "%s.%s", r->prefix, name);
    r->rc = cat_fail(r->es, path, "required for model_type \"%s\" (%s)", r->type, what);
    return r->rc;
}

/* A whole number >= lo, written as a JSON integer or an integral real;
 * absent or null: def (or, with what != NULL, missing). */
static long long rd_int(rd *r, const char *name, long long def, long long lo, const char *what)
{
    if (r->rc)
        return def;
    const json_t *v = json_object_get(r->cfg, name);
    if (v == NULL || json_is_null(v)) {
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

static bool rd_bool(rd *r, const char *name, bool def)
{
    if (r->rc)
        return def;
    const json_t *v = json_object_get(r->cfg, name);
    if (v == NULL || json_is_null(v))
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

/* Layer i (0-based) of a Qwen-MoE model has experts. */
static bool qwen_sparse_layer(const json_t *cfg, long long i, long long step, long long experts)
{
    if (experts <= 0 || step <= 0 || (i + 1) % step != 0)
        return false;
    const json_t *only = json_object_get(cfg, "mlp_only_layers");
    size_t k;
    const json_t *x;
    json_array_foreach(only, k, x)
        if (json_is_integer(x) && json_integer_value(x) == i)
            return false;
    return true;
}

/* Llama-like decoders and their MoE variants (Mixtral, Qwen-MoE). */
static void count_decoder(rd *r, const hf_family *f, hf_count *c)
{
    double H = (double)rd_int(r, "hidden_size", 0, 1, "the model width"),
           L = (double)rd_int(r, "num_hidden_layers", 0, 1, "the number of decoder layers"),
           nh = (double)rd_int(r, "num_attention_heads", 0, 1, "query heads per layer"),
           V = (double)rd_int(r, "vocab_size", 0, 1, "rows of the embedding table");
    if (r->rc)
        return;
    double nkv = (double)rd_int(r, "num_key_value_heads", (long long)nh, 1, NULL);
    double hd = (double)rd_int(r, "head_dim", (long long)(H / nh), 1, NULL);
    bool tie = rd_bool(r, "tie_word_embeddings", f->tie_default);
    bool attn_bias = rd_bool(r, "attention_bias", false);
    bool mlp_bias = rd_bool(r, "mlp_bias", false);
    double q_out = nh * hd, kv_out = nkv * hd;

    double attn = H * q_out + 2 * H * kv_out + q_out * H;
    if (attn_bias)
        attn += q_out + 2 * kv_out + H;
    else if (f->qkv_bias)
        attn += q_out + 2 * kv_out;
    if (f->qk_norm)
        attn += 2 * hd;
    double norms = f->norms * H;
    double per_mlp_bias = 0;

    double dense_mlp = 0, moe_total = 0, moe_active = 0, one_expert = 0;
    long long n_moe_layers = 0, E = 0, k = 0;
    if (f->arch == A_DECODER) {
        double I = (double)rd_int(r, "intermediate_size", 0, 1, "the MLP width");
        if (mlp_bias)
            per_mlp_bias = 2 * I + H;
        dense_mlp = 3 * H * I + per_mlp_bias;
    } else if (f->arch == A_MIXTRAL) {
        E = rd_int(r, "num_local_experts", 0, 1, "routed experts per layer");
        k = rd_int(r, "num_experts_per_tok", 2, 1, NULL);
        double I = (double)rd_int(r, "intermediate_size", 0, 1, "each expert's MLP width");
        one_expert = 3 * H * I;
        moe_total = E * one_expert + H * E;
        moe_active = k * one_expert + H * E;
        n_moe_layers = (long long)L;
    } else { /* A_QWEN_MOE */
        E = rd_int(r, "num_experts", 0, 1, "routed experts per MoE layer");
        k = rd_int(r, "num_experts_per_tok", 0, 1, "experts each token is routed to");
        double Im = (double)rd_int(r, "moe_intermediate_size", 0, 1, "each routed expert's MLP width");
        double Is = (double)rd_int(r, "shared_expert_intermediate_size", 0, 0, NULL);
        long long step = rd_int(r, "decoder_sparse_step", 1, 1, NULL);
        one_expert = 3 * H * Im;
        double shared = Is > 0 ? 3 * H * Is + H : 0; /* shared expert and its sigmoid gate */
        moe_total = E * one_expert + H * E + shared;
        moe_active = k * one_expert + H * E + shared;
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
    c->embed = V * H * (tie ? 1 : 2);
    double body = L * (attn + norms) + n_dense * dense_mlp + H; /* + final norm */
    c->total = c->embed + body + (double)n_moe_layers * moe_total;
    c->active = c->embed + body + (double)n_moe_layers * moe_active;
    c->moe = n_moe_layers > 0;
    c->layers = (long long)L;
    c->hidden = (long long)H;
    c->heads = (long long)nh;
    c->kv_heads = (long long)nkv;
    c->head_dim = (long long)hd;
    c->experts = c->moe ? E : 0;
    c->topk = c->moe ? k : 0;
    if (!f->window_flag || rd_bool(r, "use_sliding_window", false))
        c->window = rd_int(r, "sliding_window", 0, 0, NULL);
}

/* DeepSeek-V2/V3: multi-head latent attention, dense first layers, routed
 * and shared experts. */
static void count_deepseek(rd *r, hf_count *c)
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
    c->active = c->embed + body + (double)n_moe * moe_active;
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
    rd r = {cfg, es, "hf_config", "", 0};
    const json_t *mt = json_object_get(cfg, "model_type");
    char supported[400];
    size_t used = 0;
    for (size_t i = 0; i < N_FAMILIES && used < sizeof supported; i++)
        used += (size_t)snprintf(supported + used, sizeof supported - used, "%s%s", i ? ", " : "",
                                 FAMILIES[i].model_type);
    if (mt == NULL || !json_is_string(mt))
        return cat_fail(es, "hf_config.model_type", "required: the config's model_type (supported: %s)", supported);
    const char *type = json_string_value(mt);
    /* Gemma 3's multimodal configs keep the language model in text_config. */
    if (strcmp(type, "gemma3") == 0 && json_is_object(json_object_get(cfg, "text_config"))) {
        r.cfg = json_object_get(cfg, "text_config");
        r.prefix = "hf_config.text_config";
        type = "gemma3_text";
    }
    const hf_family *f = find_family(type);
    if (f == NULL)
        return cat_fail(es, "hf_config.model_type", "unsupported model_type \"%.60s\" (supported: %s)", type,
                        supported);
    r.type = type;
    hf_count c = {0};
    switch (f->arch) {
    case A_DECODER:
    case A_MIXTRAL:
    case A_QWEN_MOE:
        count_decoder(&r, f, &c);
        break;
    case A_DEEPSEEK:
        count_deepseek(&r, &c);
        break;
    default:
        count_classic(&r, f, &c);
        break;
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
    json_object_set_new(e, "parameters", json_real(c.total));
    if (c.moe) {
        json_object_set_new(e, "active_parameters", json_real(c.active));
        json_object_set_new(e, "experts", json_integer(c.experts));
        json_object_set_new(e, "active_experts_per_token", json_integer(c.topk));
    }
    /* Forward flop per token, 2 x the weights a token multiplies through, as
     * the catalog's transformers state it (attention over the context aside). */
    json_object_set_new(e, "inference_flops", json_real(2.0 * c.active));
    json_object_set_new(e, "embedding_parameters", json_real(c.embed));
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
