/* energy.h - what a fleet draws, emits, evaporates and costs over a run:
 * mlsysim's SustainabilityModel (reference/solvers.md §24) and EconomicsModel
 * (§25), shared by the sustainability, economics and placement solvers.
 * Callers: core/ solver files only. Pure computation on records; no
 * allocation. */
#ifndef MLSYSD_ENERGY_H
#define MLSYSD_ENERGY_H

#include "core/fleet.h"

/* Grids.US_Avg, Grids.Quebec and Grids.Iowa (solvers.md §0.6, from
 * infrastructure/data/grids.yaml): the region of a fleet placed nowhere
 * (US_Avg) and placement's default candidates. Core code has no catalog, so
 * these three are data here; tests/unit/test_fleets.c checks them against
 * the reference catalog. */
extern const grid_t GRID_US_AVG;

/* Where the fleet runs, as SustainabilityModel's `datacenter` argument: a
 * grid, or a datacenter (which brings its grid and maybe a PUE override), or
 * neither (then the fleet's own datacenter, else its region, else US_Avg). */
typedef struct {
    const grid_t *grid;
    const datacenter_t *datacenter;
} energy_site;

typedef struct {
    double it_energy_kwh;     /* accelerators only                          */
    double total_energy_kwh;  /* x PUE: the facility's draw                 */
    double carbon_kg;         /* operational (grid x facility energy) + embodied */
    double embodied_kg;
    double water_l;           /* facility energy x the grid's WUE           */
    double pue;
    const grid_t *region;     /* the grid whose intensity applied (its name is
                                 region_name); points into the site, the fleet
                                 or GRID_US_AVG */
} energy_result;

/* The footprint of `f` running `duration_days` at `site` with model-FLOPs
 * utilization `mfu` (the caller has checked 0 <= mfu <= 1 and
 * embodied_per_device_kg >= 0, as mlsysim validates them). */
void energy_footprint(const fleet_t *f, double duration_days, energy_site site, double mfu,
                      double embodied_per_device_kg, energy_result *r);

/* EconomicsModel's constants and defaults (§0.6, §25):
 * Infrastructure.Pricing.Cloud.ElectricityPerKwh (the price when none is
 * given: no grid or datacenter record carries one),
 * Infrastructure.Pricing.Capital.AnnualMaintenanceRatio, and solve()'s
 * amortization_years and infrastructure_multiplier defaults. */
#define ENERGY_KWH_PRICE_USD 0.12
#define ENERGY_MAINTENANCE_RATIO 0.05
#define ENERGY_AMORTIZATION_YEARS 3.0
#define ENERGY_INFRA_MULTIPLIER 1.0

typedef struct {
    double capex;             /* CapEx amortized over the run, USD           */
    double opex_energy;       /* facility energy x price, USD                */
    double opex_maintenance;  /* CapEx x maintenance ratio x years run, USD  */
    double total_opex;
    double tco;               /* capex + total_opex                          */
    energy_result energy;     /* the footprint the energy cost comes from    */
} tco_result;

/* Total cost of ownership of `f` over the run (§25): CapEx = accelerator
 * unit cost (0 when unknown) x accelerators x infra_multiplier, amortized
 * over amortization_years (the caller rejects 0). */
void energy_tco(const fleet_t *f, double duration_days, energy_site site, double mfu, double kwh_price_usd,
                double amortization_years, double infra_multiplier, tco_result *r);

#endif
