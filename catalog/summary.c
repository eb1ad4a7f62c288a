/* summary.c - the list views of catalog entries (GET /catalog/{kind}).
 *
 * Contract (catalog_internal.h: cat_summary, cat_summary_hardware,
 * cat_summary_model): a new JSON object with key, id, name, group and the
 * kind's key figures in SI units, plus "units". cat_summary reads the
 * fields the kind's table marks `summary` from the record (record kinds)
 * or from the entry (display-only kinds); hardware and workloads have their
 * own, named in the kinds table. Calls down only: field.c. */
#include "catalog/catalog_internal.h"

#include <math.h>

#include "core/model.h"

static json_t *opt_real(double x)
{
    return isnan(x) ? json_null() : json_real(x);
}

/* A key figure read from a record. */
static json_t *record_figure(const fspec *s, const unsigned char *rec, json_t *units)
{
    const void *p = rec + s->at - 1;
    switch (s->type) {
    case T_QTY:
        json_object_set_new(units, s->name, json_string(cat_unit_si(s->unit)));
        return opt_real(*(const double *)p);
    case T_NUM:
        return opt_real(*(const double *)p);
    case T_INT:
        return json_integer(*(const int *)p);
    case T_STR:
        return json_string(p);
    case T_REF:
        if (s->has_at && !*(const bool *)(rec + s->has_at - 1))
            return json_null();
        return json_string(((const rec_ident *)p)->key);
    default:
        return json_null();
    }
}

/* A key figure read from an entry: a quantity as its SI value. */
static json_t *entry_figure(const fspec *s, const json_t *v, json_t *units)
{
    if (json_is_null(v))
        return json_null();
    if (s->type == T_QTY) {
        double x;
        cat_errsink quiet = {NULL, 0, NULL, 0};
        json_object_set_new(units, s->name, json_string(cat_unit_si(s->unit)));
        return cat_parse_qty(&quiet, s->name, v, s->unit, &x, NULL) == 0 ? json_real(x) : json_null();
    }
    if (s->type == T_QANY) {
        json_object_set(units, s->name, json_object_get(v, "si_unit"));
        return json_copy(json_object_get(v, "si"));
    }
    return json_deep_copy(v);
}

json_t *cat_summary(const catalog_kind *k, const void *rec, const json_t *entry)
{
    const rec_ident *id = rec;
    json_t *o = json_object(), *units = json_object();
    json_object_set_new(o, "key", json_string(id->key));
    json_object_set_new(o, "id", json_string(id->id));
    json_object_set_new(o, "name", json_string(id->name));
    const json_t *g = entry != NULL ? json_object_get(entry, "group") : NULL;
    if (json_is_string(g))
        json_object_set(o, "group", (json_t *)g);
    for (const fspec *s = k->fields; s->name != NULL; s++) {
        if (!s->summary)
            continue;
        if (k->record >= 0 && s->at) {
            json_object_set_new(o, s->name, record_figure(s, rec, units));
            continue;
        }
        /* Display-only tables mix shapes (a group's fields): show what is there. */
        const json_t *v = json_object_get(entry, s->name);
        if (v != NULL)
            json_object_set_new(o, s->name, entry_figure(s, v, units));
    }
    if (json_object_size(units) > 0)
        json_object_set_new(o, "units", units);
    else
        json_decref(units);
    return o;
}

/* ---- list-view summaries of hardware and workloads ------------------------------------ */

json_t *cat_summary_hardware(const void *rec)
{
    const hw_node *hw = rec;
    json_t *o = json_object();
    json_object_set_new(o, "key", json_string(hw->key));
    json_object_set_new(o, "id", json_string(hw->id));
    json_object_set_new(o, "name", json_string(hw->name));
    json_object_set_new(o, "group", json_string(hw->group));
    json_object_set_new(o, "peak_flops", json_real(hw->peak_flops));
    json_t *pf = json_object();
    for (int i = 0; i < hw->n_precisions; i++)
        json_object_set_new(pf, hw->precisions[i].name, json_real(hw->precisions[i].flops));
    json_object_set_new(o, "precision_flops", pf);
    json_object_set_new(o, "memory_capacity", json_real(hw->mem_capacity));
    json_object_set_new(o, "memory_bandwidth", json_real(hw->mem_bandwidth));
    json_object_set_new(o, "sram_capacity", opt_real(hw->sram_capacity));
    json_object_set_new(o, "sram_bandwidth", opt_real(hw->sram_bandwidth));
    json_object_set_new(o, "flash_bandwidth", opt_real(hw->flash_bandwidth));
    json_object_set_new(o, "storage_bandwidth", hw->has_storage ? opt_real(hw->storage_bandwidth) : json_null());
    json_object_set_new(o, "interconnect_bandwidth",
                        hw->has_interconnect ? opt_real(hw->interconnect_bw) : json_null());
    json_object_set_new(o, "tdp", opt_real(hw->tdp));
    json_object_set_new(o, "unit_cost", opt_real(hw->unit_cost));
    json_object_set_new(o, "dispatch_tax", json_real(hw->dispatch_tax));
    json_t *u = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "peak_flops", "flop/s",
                          "precision_flops", "flop/s", "memory_capacity", "B", "memory_bandwidth", "B/s",
                          "sram_capacity", "B", "sram_bandwidth", "B/s", "flash_bandwidth", "B/s",
                          "storage_bandwidth", "B/s", "interconnect_bandwidth", "B/s", "tdp", "W",
                          "dispatch_tax", "s");
    json_object_set_new(u, "unit_cost", json_string("USD"));
    json_object_set_new(o, "units", u);
    return o;
}

json_t *cat_summary_model(const void *rec)
{
    const model_t *m = rec;
    json_t *o = json_object();
    json_object_set_new(o, "key", json_string(m->key));
    json_object_set_new(o, "id", json_string(m->id));
    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "group", json_string(m->group));
    json_object_set_new(o, "type", json_string(workload_kind_name(m->kind)));
    json_object_set_new(o, "architecture", json_string(m->architecture));
    json_object_set_new(o, "parameters", opt_real(m->parameters));
    json_object_set_new(o, "inference_flops", opt_real(m->inference_flops));
    if (!isnan(m->model_size))
        json_object_set_new(o, "model_size", json_real(m->model_size));
    if (!isnan(m->active_parameters))
        json_object_set_new(o, "active_parameters", json_real(m->active_parameters));
    json_object_set_new(o, "layers", m->layers ? json_integer(m->layers) : json_null());
    if (m->hidden_dim)
        json_object_set_new(o, "hidden_dim", json_integer(m->hidden_dim));
    if (m->heads)
        json_object_set_new(o, "heads", json_integer(m->heads));
    if (m->kv_heads)
        json_object_set_new(o, "kv_heads", json_integer(m->kv_heads));
    if (m->denoising_steps)
        json_object_set_new(o, "denoising_steps", json_integer(m->denoising_steps));
    if (!isnan(m->architecture_flops))
        json_object_set_new(o, "architecture_flops", json_real(m->architecture_flops));
    if (!isnan(m->activation_elements))
        json_object_set_new(o, "activation_elements", json_real(m->activation_elements));
    if (m->architecture_layers)
        json_object_set_new(o, "architecture_layers", json_integer(m->architecture_layers));
    /* Figures only a custom entry or a Hugging Face config sets (none of the
     * catalog's entries has them, so their summaries are unchanged). */
    if (m->head_dim)
        json_object_set_new(o, "head_dim", json_integer(m->head_dim));
    if (m->sliding_window)
        json_object_set_new(o, "sliding_window", json_integer(m->sliding_window));
    if (!isnan(m->embedding_parameters))
        json_object_set_new(o, "embedding_parameters", json_real(m->embedding_parameters));
    if (!isnan(m->vision_parameters))
        json_object_set_new(o, "vision_parameters", json_real(m->vision_parameters));
    if (m->hf_model_type[0] != '\0') {
        /* What was derived from the config, for a reader to check. */
        json_t *d = json_object();
        json_object_set_new(d, "model_type", json_string(m->hf_model_type));
        if (m->kv_lora_rank) {
            json_object_set_new(d, "kv_lora_rank", json_integer(m->kv_lora_rank));
            json_object_set_new(d, "qk_rope_head_dim", json_integer(m->qk_rope_head_dim));
        }
        if (m->experts) {
            json_object_set_new(d, "experts", json_integer(m->experts));
            json_object_set_new(d, "active_experts_per_token", json_integer(m->active_experts_per_token));
        }
        int hd = m->head_dim ? m->head_dim : (m->heads ? m->hidden_dim / m->heads : 0);
        double kv = m->kv_lora_rank > 0 && m->qk_rope_head_dim > 0
                        ? (double)m->layers * (m->kv_lora_rank + m->qk_rope_head_dim)
                        : 2.0 * m->layers * (m->kv_heads ? m->kv_heads : m->heads) * hd;
        json_object_set_new(d, "kv_cache_elements_per_token", json_real(kv));
        double act = isnan(m->active_parameters) ? m->parameters : m->active_parameters;
        json_object_set_new(d, "forward_flops_per_token", json_real(2.0 * act));
        json_object_set_new(d, "training_flops_per_token", json_real(6.0 * act));
        json_object_set_new(d, "method",
                            json_string("parameters: the weight tensors of the model_type's transformers "
                                        "implementation counted from the config's shapes (embeddings, untied "
                                        "output head, attention projections, MLP or experts, router, norms); "
                                        "active_parameters: parameters less the routed experts a token skips (and less the "
                                        "input embedding for DeepSeek and gpt-oss, as their activated counts); "
                                        "KV cache: 2 x layers x kv_heads x head_dim elements per token (latent "
                                        "attention: layers x (kv_lora_rank + qk_rope_head_dim)), every layer "
                                        "sized for the full context; flops per token: 2 (forward) and 6 "
                                        "(training) x active parameters, attention over the context aside"));
        json_object_set_new(o, "derived_from_hf_config", d);
    }
    json_object_set_new(o, "units", json_pack("{s:s,s:s,s:s,s:s}", "parameters", "count", "inference_flops",
                                              "flop", "model_size", "B", "active_parameters", "count"));
    if (m->hf_model_type[0] != '\0' || !isnan(m->embedding_parameters)) {
        json_t *u = json_object_get(o, "units");
        json_object_set_new(u, "embedding_parameters", json_string("count"));
        if (!isnan(m->vision_parameters))
            json_object_set_new(u, "vision_parameters", json_string("count"));
    }
    return o;
}
