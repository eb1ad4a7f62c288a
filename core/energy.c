/* energy.c - a fleet's energy, carbon, water and cost over a run, after
 * mlsysim's SustainabilityModel and EconomicsModel
 * (engine/solvers/economics.py; reference/solvers.md §24, §25).
 *
 * Per accelerator P = TDP x (0.30 + 0.70 x mfu) (idle share plus the share
 * that scales with utilization, engine/calibration.py), times the
 * accelerators, times the hours: IT energy. Times the site's PUE: facility
 * energy, which the region's grid turns into carbon (g/kWh) and water (WUE). */
#include "core/energy.h"

#include <math.h>

/* solvers.md §0.6: infrastructure/data/grids.yaml (8a89d00a). */
const grid_t GRID_US_AVG = {.key = "US_Avg", .id = "Infrastructure.Grids.US_Avg", .name = "US Average",
                            .carbon_intensity_g_kwh = 429.0, .pue = 1.12, .wue = 1.8, .primary_source = "mixed"};

/* engine/calibration.py ENERGY_IDLE_FRACTION, ENERGY_DYNAMIC_FRACTION. */
#define IDLE_FRACTION 0.30
#define DYNAMIC_FRACTION 0.70
/* An accelerator without a TDP draws as an H100 (Hardware.Cloud.H100.tdp, §0.6). */
#define FALLBACK_TDP_W 700.0

void energy_footprint(const fleet_t *f, double duration_days, energy_site site, double mfu,
                      double embodied_per_device_kg, energy_result *r)
{
    /* The site given, else the fleet's datacenter; a datacenter's region is
     * its grid, a grid is its own region, and without either the fleet's
     * region (US_Avg when it has none). */
    const datacenter_t *dc = site.datacenter;
    const grid_t *grid = site.grid;
    if (!dc && !grid && f->has_datacenter)
        dc = &f->datacenter;
    if (dc)
        r->region = &dc->grid;
    else if (grid)
        r->region = grid;
    else
        r->region = f->has_region ? &f->region : &GRID_US_AVG;
    /* PUE: the datacenter's (override or grid), the grid's, else the fleet's
     * effective PUE (BestAir's 1.12 for a fleet placed nowhere, even though
     * its carbon is US_Avg's). */
    r->pue = dc ? datacenter_pue(dc) : grid ? grid->pue : fleet_effective_pue(f);

    double tdp = f->node.accelerator.tdp;
    if (isnan(tdp) || tdp == 0)
        tdp = FALLBACK_TDP_W;
    double n = fleet_total_accelerators(f);
    double chip_w = tdp * IDLE_FRACTION + tdp * DYNAMIC_FRACTION * mfu;
    r->it_energy_kwh = chip_w * n * (duration_days * 24.0) / 1000.0;
    r->total_energy_kwh = r->it_energy_kwh * r->pue;
    /* GridProfile.carbon_kg: kWh x g/kWh / 1000. */
    double operational = r->total_energy_kwh * r->region->carbon_intensity_g_kwh / 1000.0;
    /* mlsysim reads WUE from the datacenter's grid, the grid, or the region:
     * in every case the region's. */
    r->water_l = r->total_energy_kwh * r->region->wue;
    r->embodied_kg = embodied_per_device_kg * n;
    r->carbon_kg = operational + r->embodied_kg;
}

void energy_tco(const fleet_t *f, double duration_days, energy_site site, double mfu, double kwh_price_usd,
                double amortization_years, double infra_multiplier, tco_result *r)
{
    energy_footprint(f, duration_days, site, mfu, 0.0, &r->energy);
    r->opex_energy = r->energy.total_energy_kwh * kwh_price_usd;
    double unit_cost = f->node.accelerator.unit_cost;
    if (isnan(unit_cost))
        unit_cost = 0.0;
    double capex_total = unit_cost * fleet_total_accelerators(f) * infra_multiplier;
    double years_run = duration_days / 365.0;
    r->capex = capex_total / amortization_years * years_run;
    r->opex_maintenance = capex_total * ENERGY_MAINTENANCE_RATIO * years_run;
    r->total_opex = r->opex_energy + r->opex_maintenance;
    r->tco = r->capex + r->opex_energy + r->opex_maintenance;
}
