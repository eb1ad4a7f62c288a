/* fleet.h - the records beyond one accelerator that solvers compute on:
 * nodes, fabrics, fleets (clusters), grids, datacenters, cooling profiles,
 * racks and datasets, after mlsysim's systems/types.py, infrastructure/types.py
 * and datasets/types.py. Quantities are SI base units; an absent optional
 * quantity is NAN, an absent optional integer 0.
 *
 * Every record here, like hw_node and model_t, starts with key, id and name
 * (rec_ident), so generic code can name any record without knowing its kind.
 * Records embed what they refer to (a node embeds its accelerator, a fleet
 * its node, fabric, region and datacenter): a record is self-contained and
 * can be copied, which is what inline request objects and sweeps do. */
#ifndef MLSYSD_FLEET_H
#define MLSYSD_FLEET_H

#include <stdbool.h>

#include "core/model.h"

/* The kinds of record a solver input can refer to. The catalog serves each
 * kind under /catalog/{plural}; REC_CLUSTER is the kind of a fleet. */
typedef enum {
    REC_HARDWARE,
    REC_MODEL,
    REC_NODE,
    REC_FABRIC,
    REC_CLUSTER,
    REC_GRID,
    REC_COOLING,
    REC_DATACENTER,
    REC_RACK,
    REC_DATASET,
    REC_N_KINDS
} record_kind;

#define REC_BIT(k) (1u << (k))

/* The leading members every record shares. */
typedef struct {
    char key[ID_LEN];   /* short key: "DGX_H100"                  */
    char id[ID_LEN];    /* mlsysim path: "Systems.Nodes.DGX_H100" */
    char name[ID_LEN];  /* display name: "DGX H100"               */
} rec_ident;

/* Node (systems/types.py): accelerators sharing one host. */
typedef struct {
    char key[ID_LEN], id[ID_LEN], name[ID_LEN];
    hw_node accelerator;
    int accelerators_per_node;
    double intra_node_bw;   /* B/s, as the registry writes it (bidirectional total) */
    int nics_per_node;      /* type default 1 */
    int psus_per_node;      /* type default 2 */
} node_t;

/* NetworkFabric (systems/types.py). */
typedef struct {
    char key[ID_LEN], id[ID_LEN], name[ID_LEN];
    char topology[32];              /* "fat-tree", ...                   */
    double bandwidth;               /* B/s per link                      */
    double latency;                 /* s, NAN = None (the type default)  */
    double oversubscription_ratio;  /* type default 1.0                  */
} fabric_t;

/* GridProfile (infrastructure/types.py). */
typedef struct {
    char key[ID_LEN], id[ID_LEN], name[ID_LEN];
    double carbon_intensity_g_kwh;  /* gCO2 per kWh */
    double pue;
    double wue;                     /* L per kWh    */
    char primary_source[32];
} grid_t;

/* Datacenter: a grid with an optional PUE override
 * (pue = pue_override or grid.pue). */
typedef struct {
    char key[ID_LEN], id[ID_LEN], name[ID_LEN];
    grid_t grid;
    double pue_override;            /* NAN = None */
} datacenter_t;

/* FacilityCooling profile. */
typedef struct {
    char key[ID_LEN], id[ID_LEN], name[ID_LEN];
    double pue;
    double wue;                     /* L per kWh */
} cooling_t;

/* Rack power class. */
typedef struct {
    char key[ID_LEN], id[ID_LEN], name[ID_LEN];
    double power;                   /* W */
    char cooling_type[32];
} rack_t;

/* Fleet (systems/types.py): `count` nodes on a fabric, optionally placed in
 * a region (grid) and a datacenter. A catalog cluster is a named fleet. */
typedef struct {
    char key[ID_LEN], id[ID_LEN], name[ID_LEN];
    node_t node;
    int count;
    fabric_t fabric;
    bool has_region;
    grid_t region;
    bool has_datacenter;
    datacenter_t datacenter;
    double mtbf_hours;              /* NAN = None */
} fleet_t;

/* Dataset (datasets/types.py); only what a solver can compute with. */
typedef struct {
    char key[ID_LEN], id[ID_LEN], name[ID_LEN];
    double training_examples;       /* count, NAN = absent */
    double validation_examples;
    double test_examples;
    double full_examples;
    int num_classes;                /* 0 = absent */
    int image_width, image_height, image_channels;
    double sample_duration;         /* s,  NAN = absent (audio) */
    double sample_rate;             /* Hz, NAN = absent */
    double sample_width;            /* B,  NAN = absent */
} dataset_t;

/* Fleet.total_accelerators = count x accelerators_per_node. */
static inline double fleet_total_accelerators(const fleet_t *f)
{
    return (double)f->count * (double)f->node.accelerators_per_node;
}

/* Datacenter.pue = pue_override or grid.pue. */
static inline double datacenter_pue(const datacenter_t *d)
{
    return isnan(d->pue_override) || d->pue_override == 0 ? d->grid.pue : d->pue_override;
}

/* FacilityCooling.BestAir.pue: Fleet.effective_pue without datacenter or region. */
#define FLEET_DEFAULT_PUE 1.12

/* Fleet.effective_pue: the datacenter's, else the region's, else BestAir's. */
static inline double fleet_effective_pue(const fleet_t *f)
{
    if (f->has_datacenter)
        return datacenter_pue(&f->datacenter);
    if (f->has_region)
        return f->region.pue;
    return FLEET_DEFAULT_PUE;
}

#endif
