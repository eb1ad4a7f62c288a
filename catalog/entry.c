/* entry.c - reading a catalog entry of any kind into its record, and
 * laying overrides over an entry, from the kind's field table (kinds.c).
 *
 * One reader (cat_extract) serves every source of entries - the embedded
 * files, the tutorial overlay, --catalog-dir files and inline request
 * objects - so the same spelling, units and checks apply everywhere. A
 * field name that is not in the table is an error: a typo in a request or
 * a catalog file must not be silently ignored. A reference to an entry of
 * another kind (a node's accelerator, a cluster's node) is handed to the
 * caller's resolver, which looks the id up in the right edition or reads
 * an inline object with this same reader.
 *
 * Contract (catalog_internal.h: cat_extract): the entry is walked against
 * the kind's field table (kinds.c), each value read by field.c; then the
 * kind's reader fills the record: hardware and workloads have their own
 * (they check several fields together), every other kind the generic one
 * (identity, offsets, type defaults, required fields). Calls down only:
 * field.c, the kinds table, and the caller's resolver through a pointer. */
#include "catalog/catalog_internal.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"

/* ---- the walk ----------------------------------------------------------- */

/* The state of reading one entry: the record (fields stored at their
 * offset go there directly) and the slots of the hardware / workload
 * readers. */
typedef struct cat_walk {
    cat_errsink es;
    unsigned char *rec;
    const cat_resolver *res;
    bool have[S__N];
    double num[S__N];
    double unit[S__N];      /* T_QTY: SI value of the unit it was written in */
    const char *str[S__N];
    int n_prec;
    hw_precision_flops prec[HW_MAX_PRECISIONS];
} cat_walk;

static int walk_qmap(cat_walk *w, const char *path, const json_t *obj)
{
    if (json_is_null(obj))
        return 0;
    if (!json_is_object(obj))
        return cat_fail(&w->es, path, "expected an object of precision -> flop/s (e.g. "
                        "{\"fp8\": \"1979 TFLOPs/s\"}), got %s", cat_json_kind(obj));
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        char sub[256], low[sizeof w->prec[0].name];
        cat_join_path(sub, sizeof sub, path, k);
        size_t len = strlen(k);
        if (len == 0 || len >= sizeof low)
            return cat_fail(&w->es, sub, "precision names are 1 to %zu characters", sizeof low - 1);
        for (size_t i = 0; i <= len; i++)
            low[i] = (char)tolower((unsigned char)k[i]);
        if (json_is_null(v))
            continue; /* null = this precision is absent */
        double x;
        int rc = cat_parse_qty(&w->es, sub, v, U_FLOPS, &x, NULL);
        if (rc)
            return rc;
        for (int i = 0; i < w->n_prec; i++)
            if (strcmp(w->prec[i].name, low) == 0)
                return cat_fail(&w->es, sub, "precision \"%s\" is given twice", low);
        if (w->n_prec >= HW_MAX_PRECISIONS)
            return cat_fail(&w->es, sub, "at most %d precisions", HW_MAX_PRECISIONS);
        memcpy(w->prec[w->n_prec].name, low, len + 1);
        w->prec[w->n_prec].flops = x;
        w->n_prec++;
    }
    return 0;
}

/* Copy a string field into a fixed buffer; too long is an error, not a cut. */
static int put_str(const cat_errsink *es, const char *path, char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n)
        return cat_fail(es, path, "at most %zu characters, got %zu", n - 1, len);
    memcpy(dst, src, len + 1);
    return 0;
}

/* Where field s goes in the record. */
static void *field_at(const cat_walk *w, const fspec *s)
{
    return w->rec + s->at - 1;
}

/* A quantity of any unit (display-only tables): as the reference writes it. */
static int check_qany(const cat_errsink *es, const char *path, const json_t *v)
{
    const char *k;
    json_t *m;
    if (!json_is_object(v))
        return cat_fail(es, path, "expected a quantity object {\"value\", \"unit\", \"si\", "
                        "\"si_unit\"}, got %s", cat_json_kind(v));
    json_object_foreach((json_t *)v, k, m) {
        if (!cat_qty_key_ok(k))
            return cat_fail(es, path, "unknown key \"%s\" in a quantity", k);
    }
    if (!json_is_number(json_object_get(v, "value")) || !json_is_number(json_object_get(v, "si")) ||
        !json_is_string(json_object_get(v, "unit")) || !json_is_string(json_object_get(v, "si_unit")))
        return cat_fail(es, path, "a quantity here needs \"value\" and \"si\" (numbers), \"unit\" "
                        "and \"si_unit\" (strings)");
    return 0;
}

/* A reference field: the resolver reads it (an id or an inline object)
 * into the record; its messages are relative to the value, so say them
 * from here ("node" + "accelerator: unknown hardware ..."). */
static int walk_ref(cat_walk *w, const fspec *s, const char *path, const json_t *v)
{
    const catalog_kind *k = catalog_kind_of(s->ref);
    if (!json_is_string(v) && !json_is_object(v))
        return cat_fail(&w->es, path, "expected a %s id (e.g. \"%s\") or an object, got %s",
                        k->singular, k->example, cat_json_kind(v));
    if (w->res == NULL)
        return cat_fail(&w->es, path, "references cannot be resolved here");
    char sub[200] = "", msg[512] = "";
    int rc = w->res->fn(w->res->ctx, k, v, field_at(w, s), sub, sizeof sub, msg, sizeof msg);
    if (rc != 0) {
        size_t sl = strlen(sub);
        const char *what = msg;
        if (sl > 0 && strncmp(msg, sub, sl) == 0 && msg[sl] == ':' && msg[sl + 1] == ' ')
            what = msg + sl + 2;
        char full[256];
        if (sl > 0)
            cat_join_path(full, sizeof full, path, sub);
        else
            snprintf(full, sizeof full, "%s", path);
        cat_fail(&w->es, full, "%s", what);
        return rc;
    }
    if (s->has_at)
        *(bool *)(w->rec + s->has_at - 1) = true;
    return 0;
}

static int walk_int(cat_walk *w, const fspec *s, const char *path, const json_t *v)
{
    double x;
    if (json_is_integer(v)) {
        json_int_t iv = json_integer_value(v);
        if (iv < s->imin)
            return cat_fail(&w->es, path, "expected a whole number >= %d, got %lld", s->imin,
                            (long long)iv);
        if (iv > INT_MAX)
            return cat_fail(&w->es, path, "expected a whole number from %d to %d, got %lld", s->imin,
                            INT_MAX, (long long)iv);
        x = (double)iv;
    } else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
               json_real_value(v) >= s->imin && json_real_value(v) <= INT_MAX) {
        x = json_real_value(v);
    } else {
        char b[40] = "";
        if (json_is_number(v))
            cat_fmt_num(b, sizeof b, json_number_value(v));
        return cat_fail(&w->es, path, "expected a whole number >= %d, got %s", s->imin,
                        json_is_number(v) ? b : cat_json_kind(v));
    }
    w->num[s->slot] = x;
    w->have[s->slot] = true;
    if (s->at)
        *(int *)field_at(w, s) = (int)x;
    return 0;
}

static int walk_obj(cat_walk *w, const fspec *specs, const json_t *obj, const char *prefix)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        char path[256];
        cat_join_path(path, sizeof path, prefix, k);
        const fspec *s = cat_find_spec(specs, k);
        if (s == NULL)
            return cat_fail_unknown(&w->es, specs, prefix, k, path);
        int rc = 0;
        switch (s->type) {
        case T_QTY:
            if (json_is_null(v))
                break;
            rc = cat_parse_qty(&w->es, path, v, s->unit, &w->num[s->slot], &w->unit[s->slot]);
            if (rc == 0) {
                w->have[s->slot] = true;
                if (s->at)
                    *(double *)field_at(w, s) = w->num[s->slot];
            }
            break;
        case T_QANY:
            if (!json_is_null(v))
                rc = check_qany(&w->es, path, v);
            break;
        case T_INT:
            if (!json_is_null(v))
                rc = walk_int(w, s, path, v);
            break;
        case T_NUM:
            if (!json_is_null(v) && !json_is_number(v))
                return cat_fail(&w->es, path, "expected a number, got %s", cat_json_kind(v));
            if (s->at && !json_is_null(v))
                *(double *)field_at(w, s) = json_number_value(v);
            break;
        case T_STR:
            if (json_is_null(v))
                break;
            if (!json_is_string(v))
                return cat_fail(&w->es, path, "expected a string, got %s", cat_json_kind(v));
            if (s->choices != NULL) {
                bool ok = false;
                for (const char *const *c = s->choices; *c != NULL; c++)
                    ok = ok || strcmp(*c, json_string_value(v)) == 0;
                if (!ok)
                    return cat_fail(&w->es, path, "expected \"%s\" or \"%s\", got \"%s\"",
                                    s->choices[0], s->choices[1], json_string_value(v));
            }
            w->str[s->slot] = json_string_value(v);
            w->have[s->slot] = true;
            if (s->at)
                rc = put_str(&w->es, path, field_at(w, s), s->size, json_string_value(v));
            break;
        case T_BOOL:
            if (!json_is_null(v) && !json_is_boolean(v))
                return cat_fail(&w->es, path, "expected true or false, got %s", cat_json_kind(v));
            break;
        case T_OBJ:
            if (json_is_null(v))
                break;
            if (!json_is_object(v))
                return cat_fail(&w->es, path, "expected an object or null, got %s", cat_json_kind(v));
            w->have[s->slot] = true;
            rc = walk_obj(w, s->sub, v, path);
            break;
        case T_QMAP:
            rc = walk_qmap(w, path, v);
            break;
        case T_REF:
            if (!json_is_null(v))
                rc = walk_ref(w, s, path, v);
            break;
        case T_ANY:
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

static double slot_q(const cat_walk *w, int slot)
{
    return w->have[slot] ? w->num[slot] : NAN;
}

static int slot_i(const cat_walk *w, int slot)
{
    return w->have[slot] ? (int)w->num[slot] : 0;
}

static int need(const cat_walk *w, int slot, const char *path, ukind u, const char *why)
{
    if (w->have[slot])
        return 0;
    if (u == U_NONE)
        return cat_fail(&w->es, path, "required %s (a whole number)", why);
    return cat_fail(&w->es, path, "required %s (e.g. \"%s\")", why, cat_unit_example(u));
}

static int fill_ids(const cat_walk *w, char *key, char *id, char *name, char *group,
                    size_t idlen, size_t grouplen)
{
    int rc;
    if (!w->have[S_KEY] || w->str[S_KEY][0] == '\0')
        return cat_fail(&w->es, "key", "required: the entry's short key (e.g. \"A100\")");
    if ((rc = put_str(&w->es, "key", key, idlen, w->str[S_KEY])) != 0)
        return rc;
    /* id (mlsysim path) and name default to the key. */
    if ((rc = put_str(&w->es, "id", id, idlen, w->have[S_ID] ? w->str[S_ID] : key)) != 0)
        return rc;
    if ((rc = put_str(&w->es, "name", name, idlen, w->have[S_NAME] ? w->str[S_NAME] : key)) != 0)
        return rc;
    if (group == NULL)
        return 0;
    return put_str(&w->es, "group", group, grouplen, w->have[S_GROUP] ? w->str[S_GROUP] : "");
}

static int fill_hardware(cat_walk *w, void *rec)
{
    hw_node *hw = rec;
    int rc;
    memset(hw, 0, sizeof *hw);
    if ((rc = fill_ids(w, hw->key, hw->id, hw->name, hw->group, ID_LEN, sizeof hw->group)) != 0)
        return rc;
    /* Required by HardwareNode / ComputeCore / MemoryHierarchy
     * (hardware/types.py @034a583b): peak_flops, capacity, bandwidth. */
    if ((rc = need(w, S_PEAK, "compute.peak_flops", U_FLOPS, "for hardware")) != 0 ||
        (rc = need(w, S_MEM_CAP, "memory.capacity", U_B, "for hardware")) != 0 ||
        (rc = need(w, S_MEM_BW, "memory.bandwidth", U_BPS, "for hardware")) != 0)
        return rc;
    /* A storage tier, host link or NVLink that is given needs its numbers:
     * the solvers read storage.bandwidth / interconnect.bandwidth /
     * nvlink.bandwidth whenever the object is defined (StorageTier and
     * IOInterconnect have no defaults for them). */
    if (w->have[S_STORAGE] &&
        ((rc = need(w, S_STO_CAP, "storage.capacity", U_B, "when storage is given")) != 0 ||
         (rc = need(w, S_STO_BW, "storage.bandwidth", U_BPS, "when storage is given")) != 0))
        return rc;
    if (w->have[S_IC] &&
        (rc = need(w, S_IC_BW, "interconnect.bandwidth", U_BPS, "when interconnect is given")) != 0)
        return rc;
    if (w->have[S_NV] &&
        (rc = need(w, S_NV_BW, "nvlink.bandwidth", U_BPS, "when nvlink is given")) != 0)
        return rc;
    hw->release_year = slot_i(w, S_YEAR);
    hw->peak_flops = w->num[S_PEAK];
    hw->n_precisions = w->n_prec;
    memcpy(hw->precisions, w->prec, sizeof w->prec);
    hw->mem_capacity = w->num[S_MEM_CAP];
    hw->mem_capacity_unit = w->unit[S_MEM_CAP];
    hw->mem_bandwidth = w->num[S_MEM_BW];
    hw->sram_capacity = slot_q(w, S_SRAM_CAP);
    hw->sram_bandwidth = slot_q(w, S_SRAM_BW);
    hw->flash_capacity = slot_q(w, S_FLASH_CAP);
    hw->flash_bandwidth = slot_q(w, S_FLASH_BW);
    hw->has_storage = w->have[S_STORAGE];
    hw->storage_capacity = hw->has_storage ? slot_q(w, S_STO_CAP) : NAN;
    hw->storage_bandwidth = hw->has_storage ? slot_q(w, S_STO_BW) : NAN;
    hw->has_interconnect = w->have[S_IC];
    hw->interconnect_bw = hw->has_interconnect ? slot_q(w, S_IC_BW) : NAN;
    if (hw->has_interconnect && w->have[S_IC_NAME] &&
        (rc = put_str(&w->es, "interconnect.name", hw->interconnect_name,
                      sizeof hw->interconnect_name, w->str[S_IC_NAME])) != 0)
        return rc;
    hw->has_nvlink = w->have[S_NV];
    hw->nvlink_bw = hw->has_nvlink ? slot_q(w, S_NV_BW) : NAN;
    hw->nvlink_latency = hw->has_nvlink ? slot_q(w, S_NV_LAT) : NAN;
    hw->tdp = slot_q(w, S_TDP);
    hw->unit_cost = slot_q(w, S_COST);
    /* HardwareNode.dispatch_tax defaults to 0.01 ms (hardware/types.py). */
    hw->dispatch_tax = w->have[S_DISPATCH] ? w->num[S_DISPATCH] : 0.01e-3;
    return 0;
}

static int fill_model(cat_walk *w, void *rec)
{
    model_t *m = rec;
    int rc;
    memset(m, 0, sizeof *m);
    if ((rc = fill_ids(w, m->key, m->id, m->name, m->group, ID_LEN, sizeof m->group)) != 0)
        return rc;
    /* "type" is the Workload class; absent = the base Workload. */
    m->kind = WL_GENERIC;
    if (w->have[S_TYPE] && !workload_kind_parse(w->str[S_TYPE], &m->kind))
        return cat_fail(&w->es, "type", "expected one of Workload, TransformerWorkload, "
                        "SparseTransformerWorkload, CNNWorkload, SSMWorkload, DiffusionWorkload, "
                        "EmbodiedWorkload; got \"%s\"", w->str[S_TYPE]);
    if (w->have[S_ARCH] &&
        (rc = put_str(&w->es, "architecture", m->architecture, sizeof m->architecture,
                      w->str[S_ARCH])) != 0)
        return rc;
    m->parameters = slot_q(w, S_PARAMS);
    m->inference_flops = slot_q(w, S_FLOPS);
    m->model_size = slot_q(w, S_SIZE);
    m->active_parameters = slot_q(w, S_ACTIVE);
    m->layers = slot_i(w, S_LAYERS);
    m->hidden_dim = slot_i(w, S_HIDDEN);
    m->heads = slot_i(w, S_HEADS);
    m->kv_heads = slot_i(w, S_KV_HEADS);
    m->kv_lora_rank = slot_i(w, S_KV_LORA);
    m->qk_rope_head_dim = slot_i(w, S_QK_ROPE);
    m->experts = slot_i(w, S_EXPERTS);
    m->active_experts_per_token = slot_i(w, S_ACTIVE_EXPERTS);
    m->state_size = slot_i(w, S_STATE);
    m->denoising_steps = slot_i(w, S_DENOISE);
    m->architecture_flops = slot_q(w, S_ARCH_FLOPS);
    m->activation_elements = slot_q(w, S_ACT_ELEMS);
    m->architecture_layers = slot_i(w, S_ARCH_LAYERS);
    m->head_dim = slot_i(w, S_HEAD_DIM);
    m->sliding_window = slot_i(w, S_SLIDING);
    m->embedding_parameters = slot_q(w, S_EMBED_PARAMS);
    m->vision_parameters = slot_q(w, S_VISION_PARAMS);
    if (w->have[S_HF_TYPE] &&
        (rc = put_str(&w->es, "hf_model_type", m->hf_model_type, sizeof m->hf_model_type,
                      w->str[S_HF_TYPE])) != 0)
        return rc;

    /* Required fields per class, after the pydantic models in
     * models/types.py @087dd538 (fields without a default). */
    const char *tn = workload_kind_name(m->kind);
    char why[80];
    snprintf(why, sizeof why, "for a %s", tn);
    switch (m->kind) {
    case WL_TRANSFORMER:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_LAYERS, "layers", U_NONE, why)) != 0)
            return rc;
        break;
    case WL_SPARSE_TRANSFORMER:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_LAYERS, "layers", U_NONE, why)) != 0 ||
            (rc = need(w, S_ACTIVE, "active_parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_EXPERTS, "experts", U_NONE, why)) != 0)
            return rc;
        /* SparseTransformerWorkload.active_experts_per_token defaults to 1. */
        if (!w->have[S_ACTIVE_EXPERTS])
            m->active_experts_per_token = 1;
        break;
    case WL_CNN:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_FLOPS, "inference_flops", U_FLOP, why)) != 0)
            return rc;
        break;
    case WL_SSM:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_LAYERS, "layers", U_NONE, why)) != 0 ||
            (rc = need(w, S_STATE, "state_size", U_NONE, why)) != 0 ||
            (rc = need(w, S_HIDDEN, "hidden_dim", U_NONE, why)) != 0)
            return rc;
        break;
    case WL_DIFFUSION:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_DENOISE, "denoising_steps", U_NONE, why)) != 0)
            return rc;
        break;
    case WL_GENERIC:
    case WL_EMBODIED:
        /* Workload.lower()/size_in_bytes() need one of the two. */
        if (!w->have[S_PARAMS] && !w->have[S_SIZE])
            return cat_fail(&w->es, "parameters", "required for a %s: parameters (e.g. \"%s\") "
                            "or model_size (e.g. \"100 GB\")", tn, cat_unit_example(U_COUNT));
        break;
    }
    return 0;
}

/* Type defaults of the fields stored at an offset. */
static void put_defaults(cat_walk *w, const fspec *fields)
{
    for (const fspec *s = fields; s->name != NULL; s++) {
        if (!s->at)
            continue;
        switch (s->type) {
        case T_QTY:
        case T_NUM:
            *(double *)field_at(w, s) = s->def;
            break;
        case T_INT:
            *(int *)field_at(w, s) = s->idef;
            break;
        case T_STR:
            snprintf(field_at(w, s), s->size, "%s", s->def_str ? s->def_str : "");
            break;
        default:
            break;
        }
    }
}

/* A node without intra_node_bw links its accelerators as the catalog's
 * nodes do: at the accelerator's NVLink (or other scale-up link) bandwidth as
 * written, else over its host interconnect, else over a PCIe Gen5 x16 link
 * (64 GB/s, the roofline's fallback host link). */
#define NODE_FALLBACK_LINK_BW 64e9
static int fill_node(cat_walk *w, node_t *n)
{
    (void)w;
    if (!isnan(n->intra_node_bw))
        return 0;
    const hw_node *hw = &n->accelerator;
    if (hw->has_nvlink && hw->nvlink_bw > 0)
        n->intra_node_bw = hw->nvlink_bw;
    else if (hw->has_interconnect && hw->interconnect_bw > 0)
        n->intra_node_bw = hw->interconnect_bw;
    else
        n->intra_node_bw = NODE_FALLBACK_LINK_BW;
    return 0;
}

/* The generic reader's last step: identity, then the required fields
 * (given and not null; the walk has stored every given value). */
static int fill_generic(cat_walk *w, const catalog_kind *k, const json_t *entry)
{
    rec_ident *id = (rec_ident *)w->rec;
    int rc = fill_ids(w, id->key, id->id, id->name, NULL, ID_LEN, 0);
    if (rc != 0)
        return rc;
    for (const fspec *s = k->fields; s->name != NULL; s++) {
        const json_t *v = json_object_get(entry, s->name);
        if (!s->required || (v != NULL && !json_is_null(v)))
            continue;
        switch (s->type) {
        case T_REF: {
            const catalog_kind *r = catalog_kind_of(s->ref);
            return cat_fail(&w->es, s->name, "required: a %s id (e.g. \"%s\") or an object",
                            r->singular, r->example);
        }
        case T_QTY:
            return cat_fail(&w->es, s->name, "required (e.g. \"%s\")", cat_unit_example(s->unit));
        case T_INT:
            return cat_fail(&w->es, s->name, "required (a whole number >= %d)", s->imin);
        default:
            return cat_fail(&w->es, s->name, "required");
        }
    }
    return 0;
}

int cat_extract(const catalog_kind *k, const json_t *entry, void *out, const cat_resolver *r,
                char *field, size_t fieldlen, char *err, size_t errlen)
{
    cat_walk *w = calloc(1, sizeof *w);
    if (w == NULL)
        return 500;
    w->es = (cat_errsink){field, fieldlen, err, errlen};
    w->rec = out;
    w->res = r;
    memset(out, 0, k->size);
    put_defaults(w, k->fields);
    int rc;
    if (!json_is_object(entry))
        rc = cat_fail(&w->es, "", "expected an object, got %s", cat_json_kind(entry));
    else
        rc = walk_obj(w, k->fields, entry, "");
    if (rc == 0)
        rc = k->record == REC_HARDWARE ? fill_hardware(w, out)
             : k->record == REC_MODEL  ? fill_model(w, out)
                                       : fill_generic(w, k, entry);
    if (rc == 0 && k->record == REC_NODE)
        rc = fill_node(w, out);
    free(w);
    return rc;
}
