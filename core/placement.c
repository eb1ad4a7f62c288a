/* placement.c - mlsysim PlacementOptimizer (reference/solvers.md §27): of a
 * list of grid regions, the one where running the fleet costs least once
 * its carbon is taxed. Each region is priced as EconomicsModel prices it
 * with that grid as the site (core/energy.c: default electricity price,
 * 3-year amortization, hardware-only CapEx); objective = TCO + tonnes CO2 x
 * carbon_tax_per_ton; the first lowest objective wins.
 *
 * Names in `regions` that are not grids are skipped, as mlsysim skips them,
 * each with a warning; none left is mlsysim's ValueError. Without `regions`
 * the candidates are mlsysim's default ["US_Avg", "Quebec", "Iowa"], whose
 * records are core/energy.c's constants (the list default is applied here:
 * the generic layer has no list defaults). */
#include <stddef.h>

#include "core/energy.h"
#include "core/solver.h"

enum { I_FLEET, I_DURATION, I_REGIONS, I_TAX, I_MFU, I_N };
static const input_desc INPUTS[I_N] = {
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "The cluster: an id (\"Research_256\") or {\"node\", \"count\", \"fabric\", \"region\"}"},
    [I_DURATION] = {.name = "duration_days", .kind = IN_NUMBER, .description = "Length of the run, in days"},
    [I_REGIONS] = {.name = "regions", .kind = IN_LIST, .refs = REC_BIT(REC_GRID), .list_skip_unknown = true,
                   .optional = true,
                   .description = "Candidate grid ids; names that are not grids are skipped with a warning. "
                                  "Absent: [\"US_Avg\", \"Quebec\", \"Iowa\"] (mlsysim's default)"},
    [I_TAX] = {.name = "carbon_tax_per_ton", .kind = IN_NUMBER, .has_default = true, .def_num = 100.0,
               .description = "Carbon price in USD per metric tonne of CO2, added to the TCO"},
    [I_MFU] = {.name = "mfu", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0, .check = CHECK_RANGE,
               .lo = 0.0, .hi = 1.0,
               .description = "Model-FLOPs utilization: each accelerator draws TDP x (0.3 + 0.7 x mfu)"},
};

enum { O_BEST, O_OBJECTIVE, O_TCO, O_CARBON, O_PUE, O_SEARCHED, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_BEST] = {"best_region", OUT_STRING, "", "Grid key of the region with the lowest objective", true, false},
    [O_OBJECTIVE] = {"objective_value", OUT_NUMBER, "USD", "TCO + tonnes CO2 x carbon_tax_per_ton there", false,
                     false},
    [O_TCO] = {"lowest_tco", OUT_NUMBER, "USD", "TCO in the best region", false, false},
    [O_CARBON] = {"carbon_footprint", OUT_NUMBER, "t", "Operational carbon in the best region, metric tonnes", false,
                  false},
    [O_PUE] = {"pue", OUT_NUMBER, "", "PUE of the best region", false, false},
    [O_SEARCHED] = {"total_searched", OUT_INTEGER, "", "Regions priced (the names that are grids)", false, false},
};

static const grid_t *const DEFAULT_REGIONS[] = {&GRID_US_AVG, &GRID_QUEBEC, &GRID_IOWA};
#define N_DEFAULT_REGIONS ((int)(sizeof DEFAULT_REGIONS / sizeof DEFAULT_REGIONS[0]))

static int run_placement(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const fleet_t *f = in_fleet(in, I_FLEET);
    bool given = in_has(in, I_REGIONS);
    int n = given ? in_list_len(in, I_REGIONS) : N_DEFAULT_REGIONS;
    double tax = in_num(in, I_TAX);
    const grid_t *best = NULL;
    double best_objective = 0, best_tco = 0, best_tons = 0, best_pue = 0;
    int searched = 0;
    for (int j = 0; j < n; j++) {
        const grid_t *g = given ? in_list_ref(in, I_REGIONS, j) : DEFAULT_REGIONS[j];
        if (!g) {
            solver_warn(out, "regions[%d] '%.80s' is not a grid: skipped, as mlsysim skips it", j,
                        in_list_name(in, I_REGIONS, j));
            continue;
        }
        tco_result r;
        energy_tco(f, in_num(in, I_DURATION), (energy_site){.grid = g}, in_num(in, I_MFU), ENERGY_KWH_PRICE_USD,
                   ENERGY_AMORTIZATION_YEARS, ENERGY_INFRA_MULTIPLIER, &r);
        double tons = r.energy.carbon_kg / 1000.0;
        double objective = r.tco + tons * tax;
        searched++;
        if (!best || objective < best_objective) {
            best = g;
            best_objective = objective;
            best_tco = r.tco;
            best_tons = tons;
            best_pue = r.energy.pue;
        }
    }
    if (!best)
        return solver_fail(err, "regions",
                           "No valid regions found for optimization. (none of the %d names in regions is a grid; "
                           "GET /catalog/grids lists them)",
                           n);
    out_str(out, O_BEST, best->key);
    out_num(out, O_OBJECTIVE, best_objective);
    out_num(out, O_TCO, best_tco);
    out_num(out, O_CARBON, best_tons);
    out_num(out, O_PUE, best_pue);
    out_int(out, O_SEARCHED, searched);
    return 0;
}

static const char *const ALIASES[] = {"PlacementOptimizer", NULL};

const solver_desc SOLVER_PLACEMENT = {
    .name = "placement",
    .aliases = ALIASES,
    .title = "Where to run a fleet: the region with the lowest TCO + carbon tax",
    .description = "mlsysim PlacementOptimizer. Prices the fleet in each grid of `regions` as economics does "
                   "(default electricity price, 3-year amortization) and picks the lowest TCO + tonnes CO2 x "
                   "carbon_tax_per_ton. Names that are not grids are skipped with a warning; without `regions` "
                   "the candidates are US_Avg, Quebec and Iowa (the list default is applied by the solver).",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_placement,
};
