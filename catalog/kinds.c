/* kinds.c - the kinds of entry the catalog serves, as data.
 *
 * One row of cat_kinds per kind: its names (/catalog/{plural}, messages),
 * where its changes sit in an edition overlay, how a new entry's mlsysim
 * path is made, its record (core/model.h, core/fleet.h) or none for a
 * display-only table, and its field table. A field table is the format of
 * the kind's entries in catalog/data/<plural>.json and in --catalog-dir
 * files and inline request objects: every field name an entry may have,
 * its type and unit, and for record kinds where its value goes in the
 * record (offset), whether it is required and its type default.
 *
 * Where the formats come from: mlsysim's HardwareNode (hardware/types.py
 * @034a583b: ComputeCore, MemoryHierarchy, StorageTier, IOInterconnect;
 * YAML data under hardware/data/), the Workload family (models/types.py
 * @087dd538), Node / NetworkFabric / Fleet (systems/types.py @1d9b72db,
 * data in systems/registry.py @02150d88), GridProfile / Datacenter /
 * FacilityCooling / rack classes (infrastructure/types.py @dcf1b668,
 * registry.py @1946f630, data/grids.yaml), Dataset (datasets/types.py
 * @12addf1c), and the scalar tables of systems/reliability.py,
 * infrastructure/pricing.py and capacity.py; plus the bookkeeping fields
 * the reference extraction added ("source", "*_defaulted",
 * "ridge_point_flop_per_byte", "bandwidth_per_direction", "pue_rule", ...).
 *
 * The table is in dependency order: a kind refers only to kinds above it,
 * so records are built top to bottom. Adding a kind = a field table, a row
 * here (and a record_kind + struct in core/fleet.h if solvers compute on
 * it), and catalog/data/<plural>.json.
 *
 * Contract: cat_kinds and the accessors of catalog.h's "kinds" section
 * (catalog_kind_count, _at, _find, _of, _name, _singular, _record,
 * _record_size) plus cat_kind_index and cat_kind_by_section; static data,
 * callable any time. The table points at the list views of hardware and
 * workloads (summary.c); nothing here calls another catalog file. */
#include "catalog/catalog_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "core/fleet.h"
#include "core/model.h"

/* ---- field macros ---------------------------------------------------------- */

#define REQ true
#define OPT false
#define SUM true
#define NOSUM false

/* Fields read through slots (hardware, models) or only checked. */
#define F_QTY(n, u, s) {.name = (n), .type = T_QTY, .unit = (u), .slot = (s)}
#define F_INT(n, s) {.name = (n), .type = T_INT, .slot = (s)}
#define F_NUM(n) {.name = (n), .type = T_NUM}
#define F_STR(n, s) {.name = (n), .type = T_STR, .slot = (s)}
#define F_ENUM(n, c) {.name = (n), .type = T_STR, .choices = (c)}
#define F_BOOL(n) {.name = (n), .type = T_BOOL}
#define F_OBJ(n, fields, s) {.name = (n), .type = T_OBJ, .sub = (fields), .slot = (s)}
#define F_ANY(n) {.name = (n), .type = T_ANY}
#define F_END {.name = NULL}
/* Display-only tables: checked, shown; `sum` marks a key figure. */
#define D_NUM(n, sum) {.name = (n), .type = T_NUM, .summary = (sum)}
#define D_INT(n, sum) {.name = (n), .type = T_INT, .summary = (sum)}
#define D_STR(n, sum) {.name = (n), .type = T_STR, .summary = (sum)}
#define D_QTY(n, u, sum) {.name = (n), .type = T_QTY, .unit = (u), .summary = (sum)}
#define D_QANY(n, sum) {.name = (n), .type = T_QANY, .summary = (sum)}
/* Fields stored at their offset in record type T. */
#define R_QTY(T, n, u, m, req, sum) \
    {.name = (n), .type = T_QTY, .unit = (u), .at = offsetof(T, m) + 1, .required = (req), \
     .summary = (sum), .def = NAN}
#define R_NUM(T, n, m, req, dflt, sum) \
    {.name = (n), .type = T_NUM, .at = offsetof(T, m) + 1, .required = (req), .def = (dflt), \
     .summary = (sum)}
#define R_INT(T, n, m, req, lo, dflt, sum) \
    {.name = (n), .type = T_INT, .at = offsetof(T, m) + 1, .required = (req), .imin = (lo), \
     .idef = (dflt), .summary = (sum)}
#define R_STR(T, n, m, dflt, sum) \
    {.name = (n), .type = T_STR, .at = offsetof(T, m) + 1, .size = sizeof(((T *)0)->m), \
     .def_str = (dflt), .summary = (sum)}
/* A required reference, and one that may be null (flag `has` says which). */
#define R_REF(T, n, m, kind, sum) \
    {.name = (n), .type = T_REF, .ref = (kind), .at = offsetof(T, m) + 1, .required = REQ, \
     .summary = (sum)}
#define R_OPTREF(T, n, m, has, kind, sum) \
    {.name = (n), .type = T_REF, .ref = (kind), .at = offsetof(T, m) + 1, \
     .has_at = offsetof(T, has) + 1, .summary = (sum)}

/* Every entry: identity and origin. */
#define F_IDENT F_STR("key", S_KEY), F_STR("id", S_ID), F_STR("name", S_NAME), F_STR("group", S_GROUP)
#define F_ORIGIN F_ANY("provenance"), F_ANY("source"), F_ANY("note"), F_ANY("edition_overrides")

/* ---- hardware and models ---------------------------------------------------- */

/* IOInterconnect.direction (hardware/types.py): how "bandwidth" is meant. */
static const char *const directions[] = {"per_direction", "bidirectional_total", NULL};

static const fspec compute_fields[] = {
    F_QTY("peak_flops", U_FLOPS, S_PEAK),
    {.name = "precision_flops", .type = T_QMAP, .unit = U_FLOPS},
    F_INT("sm_count", S_NONE),
    F_QTY("clock_rate", U_HZ, S_NONE),
    F_END,
};
static const fspec memory_fields[] = {
    F_QTY("capacity", U_B, S_MEM_CAP),
    F_QTY("bandwidth", U_BPS, S_MEM_BW),
    F_QTY("sram_capacity", U_B, S_SRAM_CAP),
    F_QTY("sram_bandwidth", U_BPS, S_SRAM_BW),
    F_QTY("flash_capacity", U_B, S_FLASH_CAP),
    F_QTY("flash_bandwidth", U_BPS, S_FLASH_BW),
    F_QTY("l2_cache", U_B, S_NONE),
    F_QTY("register_file_per_sm", U_B, S_NONE),
    F_QTY("shared_memory_per_sm", U_B, S_NONE),
    F_END,
};
static const fspec storage_fields[] = {
    F_QTY("capacity", U_B, S_STO_CAP),
    F_QTY("bandwidth", U_BPS, S_STO_BW),
    F_QTY("latency", U_S, S_NONE),
    F_END,
};
static const fspec interconnect_fields[] = {
    F_STR("name", S_IC_NAME),
    F_QTY("bandwidth", U_BPS, S_IC_BW),
    F_QTY("latency", U_S, S_NONE),
    F_ENUM("direction", directions),
    F_BOOL("direction_defaulted"),
    F_QTY("bandwidth_per_direction", U_BPS, S_NONE),
    F_END,
};
static const fspec nvlink_fields[] = {
    F_STR("name", S_NONE),
    F_QTY("bandwidth", U_BPS, S_NV_BW),
    F_QTY("latency", U_S, S_NV_LAT),
    F_ENUM("direction", directions),
    F_BOOL("direction_defaulted"),
    F_QTY("bandwidth_per_direction", U_BPS, S_NONE),
    F_END,
};
static const fspec hardware_fields[] = {
    F_IDENT,
    F_INT("release_year", S_YEAR),
    F_OBJ("compute", compute_fields, S_NONE),
    F_OBJ("memory", memory_fields, S_NONE),
    F_OBJ("storage", storage_fields, S_STORAGE),
    F_OBJ("interconnect", interconnect_fields, S_IC),
    F_OBJ("nvlink", nvlink_fields, S_NV),
    F_QTY("tdp", U_W, S_TDP),
    F_QTY("tdp_min", U_W, S_NONE),
    F_QTY("tdp_max", U_W, S_NONE),
    F_QTY("battery_capacity", U_J, S_NONE),
    F_QTY("unit_cost", U_USD, S_COST),
    F_QTY("unit_cost_max", U_USD, S_NONE),
    F_INT("accelerator_count", S_NONE),
    F_NUM("embodied_carbon_kg"),
    F_QTY("dispatch_tax", U_S, S_DISPATCH),
    F_BOOL("dispatch_tax_defaulted"),
    F_ANY("mig_profiles"),
    F_NUM("ridge_point_flop_per_byte"),
    F_ORIGIN,
    F_END,
};
static const fspec model_fields[] = {
    F_IDENT,
    F_STR("type", S_TYPE),
    F_STR("architecture", S_ARCH),
    F_QTY("parameters", U_COUNT, S_PARAMS),
    F_QTY("inference_flops", U_FLOP, S_FLOPS),
    F_QTY("model_size", U_B, S_SIZE),
    F_QTY("active_parameters", U_COUNT, S_ACTIVE),
    F_INT("layers", S_LAYERS),
    F_INT("hidden_dim", S_HIDDEN),
    F_INT("heads", S_HEADS),
    F_INT("kv_heads", S_KV_HEADS),
    F_INT("experts", S_EXPERTS),
    F_INT("active_experts_per_token", S_ACTIVE_EXPERTS),
    F_INT("state_size", S_STATE),
    F_INT("denoising_steps", S_DENOISE),
    F_QTY("architecture_flops", U_FLOP, S_ARCH_FLOPS),
    F_QTY("activation_elements", U_COUNT, S_ACT_ELEMS),
    F_INT("architecture_layers", S_ARCH_LAYERS),
    F_INT("kv_lora_rank", S_KV_LORA),
    F_INT("qk_rope_head_dim", S_QK_ROPE),
    F_INT("head_dim", S_HEAD_DIM),
    F_INT("sliding_window", S_SLIDING),
    F_QTY("embedding_parameters", U_COUNT, S_EMBED_PARAMS),
    F_QTY("vision_parameters", U_COUNT, S_VISION_PARAMS),
    F_STR("hf_model_type", S_HF_TYPE),
    F_INT("resolution", S_NONE),
    F_INT("action_chunk_horizon", S_NONE),
    F_INT("action_dim", S_NONE),
    F_QTY("embedding_entries", U_COUNT, S_NONE),
    F_QTY("inference_energy", U_J, S_NONE),
    F_QTY("parameter_range_min", U_COUNT, S_NONE),
    F_QTY("parameter_range_max", U_COUNT, S_NONE),
    F_QTY("training_accelerators_ref", U_COUNT, S_NONE),
    F_QTY("training_dataset_size", U_B, S_NONE),
    F_QTY("training_days_ref", U_S, S_NONE),
    F_QTY("training_energy_mwh", U_J, S_NONE),
    F_NUM("training_gpu_days"),
    F_STR("training_hardware_label", S_NONE),
    F_QTY("training_ops", U_FLOP, S_NONE),
    F_QTY("training_tokens", U_COUNT, S_NONE),
    F_ORIGIN,
    F_END,
};


/* ---- systems: nodes, fabrics, clusters -------------------------------------- */

static const fspec node_fields[] = {
    F_IDENT,
    R_REF(node_t, "accelerator", accelerator, REC_HARDWARE, SUM),
    R_INT(node_t, "accelerators_per_node", accelerators_per_node, REQ, 1, 0, SUM),
    R_QTY(node_t, "intra_node_bw", U_BPS, intra_node_bw, OPT, SUM), /* absent: the accelerator's (entry.c) */
    R_INT(node_t, "nics_per_node", nics_per_node, OPT, 0, 1, SUM),
    R_INT(node_t, "psus_per_node", psus_per_node, OPT, 0, 2, SUM),
    F_BOOL("nics_per_node_defaulted"),
    F_BOOL("psus_per_node_defaulted"),
    F_ORIGIN,
    F_END,
};

static const fspec fabric_fields[] = {
    F_IDENT,
    R_STR(fabric_t, "topology", topology, "fat-tree", SUM),
    R_QTY(fabric_t, "bandwidth", U_BPS, bandwidth, REQ, SUM),
    R_QTY(fabric_t, "latency", U_S, latency, OPT, SUM),
    R_NUM(fabric_t, "oversubscription_ratio", oversubscription_ratio, OPT, 1.0, SUM),
    F_BOOL("topology_defaulted"),
    F_BOOL("oversubscription_defaulted"),
    F_ORIGIN,
    F_END,
};

static const fspec cluster_fields[] = {
    F_IDENT,
    R_REF(fleet_t, "node", node, REC_NODE, SUM),
    R_INT(fleet_t, "count", count, REQ, 1, 0, SUM),
    R_REF(fleet_t, "fabric", fabric, REC_FABRIC, SUM),
    R_OPTREF(fleet_t, "region", region, has_region, REC_GRID, SUM),
    R_OPTREF(fleet_t, "datacenter", datacenter, has_datacenter, REC_DATACENTER, SUM),
    R_NUM(fleet_t, "mtbf_hours", mtbf_hours, OPT, NAN, NOSUM),
    F_INT("total_accelerators", S_NONE),
    F_NUM("effective_pue_default"),
    F_STR("effective_pue_note", S_NONE),
    F_ORIGIN,
    F_END,
};

/* ---- infrastructure: grids, cooling, datacenters, racks ---------------------- */

static const fspec grid_fields[] = {
    F_IDENT,
    R_NUM(grid_t, "carbon_intensity_g_kwh", carbon_intensity_g_kwh, REQ, NAN, SUM),
    R_NUM(grid_t, "pue", pue, REQ, NAN, SUM),
    R_NUM(grid_t, "wue_l_per_kwh", wue, OPT, NAN, SUM),
    R_STR(grid_t, "primary_source", primary_source, "", SUM),
    F_NUM("carbon_intensity_si_kg_per_J"),
    F_NUM("lat"),
    F_NUM("lon"),
    F_NUM("renewable_pct"),
    F_ORIGIN,
    F_END,
};

static const fspec cooling_fields[] = {
    F_IDENT,
    R_NUM(cooling_t, "pue", pue, REQ, NAN, SUM),
    R_NUM(cooling_t, "wue_l_per_kwh", wue, OPT, NAN, SUM),
    F_ORIGIN,
    F_END,
};

static const fspec datacenter_fields[] = {
    F_IDENT,
    R_REF(datacenter_t, "grid", grid, REC_GRID, SUM),
    R_NUM(datacenter_t, "pue_override", pue_override, OPT, NAN, SUM),
    F_NUM("pue"),
    F_STR("pue_rule", S_NONE),
    F_ORIGIN,
    F_END,
};

static const fspec rack_fields[] = {
    F_IDENT,
    R_NUM(rack_t, "power_si_W", power, REQ, NAN, SUM),
    R_STR(rack_t, "cooling_type", cooling_type, "", SUM),
    F_NUM("power_kw"),
    F_ORIGIN,
    F_END,
};

/* ---- datasets ------------------------------------------------------------------ */

static const fspec dataset_fields[] = {
    F_IDENT,
    R_QTY(dataset_t, "training_examples", U_COUNT, training_examples, OPT, SUM),
    R_QTY(dataset_t, "validation_examples", U_COUNT, validation_examples, OPT, SUM),
    R_QTY(dataset_t, "test_examples", U_COUNT, test_examples, OPT, SUM),
    R_QTY(dataset_t, "full_examples", U_COUNT, full_examples, OPT, SUM),
    R_INT(dataset_t, "num_classes", num_classes, OPT, 0, 0, SUM),
    R_INT(dataset_t, "image_width", image_width, OPT, 0, 0, NOSUM),
    R_INT(dataset_t, "image_height", image_height, OPT, 0, 0, NOSUM),
    R_INT(dataset_t, "image_channels", image_channels, OPT, 0, 0, NOSUM),
    R_QTY(dataset_t, "sample_duration", U_S, sample_duration, OPT, NOSUM),
    R_QTY(dataset_t, "sample_rate", U_HZ, sample_rate, OPT, NOSUM),
    R_QTY(dataset_t, "sample_width", U_B, sample_width, OPT, NOSUM),
    F_QTY("episodes", U_COUNT, S_NONE),
    F_QTY("total_duration", U_S, S_NONE),
    F_INT("languages", S_NONE),
    F_INT("keywords", S_NONE),
    F_INT("embodiments", S_NONE),
    F_INT("tasks", S_NONE),
    F_ORIGIN,
    F_END,
};

/* ---- display-only tables ----------------------------------------------------------- */

/* systems/reliability.py: component MTTFs (group "Components"), recovery
 * estimates (group "Scalars") and the recovery profile (group "Recovery").
 * Units are in the field names (mttf_hours, *_s, checkpoint_write_bw_gbs)
 * or in "unit". */
static const fspec reliability_fields[] = {
    F_IDENT,
    D_NUM("mttf_hours", SUM),
    D_NUM("mttf_si_s", NOSUM),
    D_STR("failure_mode", NOSUM),
    D_NUM("value", SUM),
    D_STR("unit", SUM),
    D_NUM("heartbeat_timeout_s", NOSUM),
    D_NUM("reschedule_time_s", NOSUM),
    D_NUM("detection_time_s", NOSUM),
    D_NUM("restart_time_s", NOSUM),
    D_NUM("warmup_time_s", NOSUM),
    D_NUM("checkpoint_write_bw_gbs", NOSUM),
    D_STR("units", NOSUM),
    F_ORIGIN,
    F_END,
};

/* infrastructure/pricing.py; group = the pricing namespace. */
static const fspec price_fields[] = {
    F_IDENT,
    D_STR("namespace", NOSUM),
    D_QANY("rate", SUM),
    F_ORIGIN,
    F_END,
};

/* systems/registry.py SwitchFabric (switch ASICs, optics, latencies) and
 * NetworkEnergy scalars. */
static const fspec network_fields[] = {
    F_IDENT,
    D_QANY("quantity", SUM),
    F_ORIGIN,
    F_END,
};

static const fspec pod_fields[] = {
    F_IDENT,
    D_INT("chips", SUM),
    D_QTY("memory", U_B, SUM),
    D_QTY("power", U_W, SUM),
    F_ORIGIN,
    F_END,
};

/* infrastructure/capacity.py lead times and queues (group "Capacity") and
 * the module's AIR_COOLING_LIMIT_KW (group "Limits"). */
static const fspec infrastructure_fields[] = {
    F_IDENT,
    D_NUM("value", SUM),
    D_STR("unit", SUM),
    F_ORIGIN,
    F_END,
};

/* ---- the kinds --------------------------------------------------------------------- */

#define RECORD(rk, T) .record = (rk), .size = sizeof(T)
#define DISPLAY .record = -1, .size = sizeof(rec_ident)

const catalog_kind cat_kinds[CAT_N_KINDS] = {
    {"hardware", "hardware", "hardware", "Hardware", true, "A100", RECORD(REC_HARDWARE, hw_node),
     hardware_fields, cat_summary_hardware},
    {"models", "model", "models", "Models", true, "ResNet50", RECORD(REC_MODEL, model_t),
     model_fields, cat_summary_model},
    {"grids", "grid", "infrastructure.grids", "Infrastructure.Grids", false, "Quebec",
     RECORD(REC_GRID, grid_t), grid_fields, NULL},
    {"cooling", "cooling", "infrastructure.cooling", "Infrastructure.FacilityCooling", false,
     "LiquidCooled", RECORD(REC_COOLING, cooling_t), cooling_fields, NULL},
    {"datacenters", "datacenter", "infrastructure.datacenters", "Infrastructure.Datacenters", false,
     "France_Nuclear", RECORD(REC_DATACENTER, datacenter_t), datacenter_fields, NULL},
    {"racks", "rack", "infrastructure.racks", "Infrastructure.Racks", false, "AI_Standard",
     RECORD(REC_RACK, rack_t), rack_fields, NULL},
    {"nodes", "node", "systems.nodes", "Systems.Nodes", false, "DGX_H100", RECORD(REC_NODE, node_t),
     node_fields, NULL},
    {"fabrics", "fabric", "systems.fabrics", "Systems.Fabrics", false, "InfiniBand_NDR",
     RECORD(REC_FABRIC, fabric_t), fabric_fields, NULL},
    {"clusters", "cluster", "systems.clusters", "Systems.Clusters", false, "Research_256",
     RECORD(REC_CLUSTER, fleet_t), cluster_fields, NULL},
    {"datasets", "dataset", "datasets", "Datasets", false, "ImageNet", RECORD(REC_DATASET, dataset_t),
     dataset_fields, NULL},
    {"reliability", "reliability", "systems.reliability", "Systems.Reliability", false, "Gpu",
     DISPLAY, reliability_fields, NULL},
    {"prices", "price", "infrastructure.prices", "Infrastructure.Pricing", true,
     "Cloud.GpuTrainingPerHour", DISPLAY, price_fields, NULL},
    {"network", "network", "systems.network", "Systems.Network", false, "HopLatency", DISPLAY,
     network_fields, NULL},
    {"pods", "pod", "systems.pods", "Systems.Pods", false, "TPUv4_4096", DISPLAY, pod_fields,
     NULL},
    {"infrastructure", "infrastructure", "infrastructure.infrastructure", "Infrastructure", true,
     "AIR_COOLING_LIMIT_KW", DISPLAY, infrastructure_fields, NULL},
};

size_t cat_kind_index(const catalog_kind *k)
{
    return (size_t)(k - cat_kinds);
}

/* ---- the accessors (catalog.h) --------------------------------------------------------- */

size_t catalog_kind_count(void)
{
    return CAT_N_KINDS;
}

const catalog_kind *catalog_kind_at(size_t i)
{
    return i < CAT_N_KINDS ? &cat_kinds[i] : NULL;
}

const catalog_kind *catalog_kind_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < CAT_N_KINDS; i++)
        if (strcasecmp(cat_kinds[i].plural, name) == 0 || strcasecmp(cat_kinds[i].singular, name) == 0)
            return &cat_kinds[i];
    return NULL;
}

const catalog_kind *catalog_kind_of(record_kind k)
{
    for (size_t i = 0; i < CAT_N_KINDS; i++)
        if (cat_kinds[i].record == (int)k)
            return &cat_kinds[i];
    return NULL;
}

const char *catalog_kind_name(const catalog_kind *k) { return k->plural; }
const char *catalog_kind_singular(const catalog_kind *k) { return k->singular; }
int catalog_kind_record(const catalog_kind *k) { return k->record; }
size_t catalog_kind_record_size(const catalog_kind *k) { return k->record >= 0 ? k->size : 0; }

/* The kind whose file section is exactly `name` (files are case-sensitive). */
long cat_kind_by_section(const char *name)
{
    for (size_t i = 0; i < CAT_N_KINDS; i++)
        if (strcmp(cat_kinds[i].plural, name) == 0)
            return (long)i;
    return -1;
}
