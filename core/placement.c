/* placement.c - mlsysim PlacementOptimizer (reference/solvers.md §27): of a
 * list of grid regions, the one where running the fleet costs least once
 * its carbon is taxed. Each region is priced as EconomicsModel prices it
 * with that grid as the site (core/energy.c: default electricity price,
 * 3-year amortization, hardware-only CapEx); objective = TCO + tonnes CO2 x
 * carbon_tax_per_ton; the first lowest objective wins.
 *
 * Names in `regions` that are not grids are skipped, as mlsysim skips them,
 * each with a warning; none left is mlsysim's ValueError. Without `regions`
 * every grid of the catalog edition is a candidate (mlsysim's default is
 * three of them). Every candidate is reported in `top_candidates`, ranked
 * by objective (ties in the order given), as mlsysim's top_candidates are,
 * with its water besides. */
#include <stddef.h>
#include <stdlib.h>

#include "core/energy.h"
#include "core/solver.h"

enum { I_FLEET, I_DURATION, I_REGIONS, I_TAX, I_MFU, I_N };
static const input_desc INPUTS[I_N] = {
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "The cluster: an id (\"Research_256\") or {\"node\", \"count\", \"fabric\", \"region\"}"},
    [I_DURATION] = {.name = "duration_days", .kind = IN_NUMBER, .description = "Length of the run, in days"},
    [I_REGIONS] = {.name = "regions", .kind = IN_LIST, .refs = REC_BIT(REC_GRID), .list_skip_unknown = true,
                   .list_all_by_default = true,
                   .description = "Candidate grid ids; names that are not grids are skipped with a warning. "
                                  "Absent: every grid in the catalog (mlsysim's default is US_Avg, Quebec, Iowa)"},
    [I_TAX] = {.name = "carbon_tax_per_ton", .kind = IN_NUMBER, .has_default = true, .def_num = 100.0,
               .description = "Carbon price in USD per metric tonne of CO2, added to the TCO"},
    [I_MFU] = {.name = "mfu", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0, .check = CHECK_RANGE,
               .lo = 0.0, .hi = 1.0,
               .description = "Model-FLOPs utilization: each accelerator draws TDP x (0.3 + 0.7 x mfu)"},
};

enum { O_BEST, O_OBJECTIVE, O_TCO, O_CARBON, O_PUE, O_SEARCHED, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_BEST] = {.name = "best_region", .kind = OUT_STRING, .unit = "",
                .description = "Grid key of the region with the lowest objective", .categorical = true},
    [O_OBJECTIVE] = {.name = "objective_value", .kind = OUT_NUMBER, .unit = "USD",
                     .description = "TCO + tonnes CO2 x carbon_tax_per_ton there"},
    [O_TCO] = {.name = "lowest_tco", .kind = OUT_NUMBER, .unit = "USD", .description = "TCO in the best region"},
    [O_CARBON] = {.name = "carbon_footprint", .kind = OUT_NUMBER, .unit = "t",
                  .description = "Operational carbon in the best region, metric tonnes"},
    [O_PUE] = {.name = "pue", .kind = OUT_NUMBER, .unit = "", .description = "PUE of the best region"},
    [O_SEARCHED] = {.name = "total_searched", .kind = OUT_INTEGER, .unit = "",
                    .description = "Regions priced (the names that are grids)"},
};

enum { C_REGION, C_OBJECTIVE, C_TCO, C_CARBON, C_WATER, C_PUE, C_N };
static const output_desc COLUMNS[C_N] = {
    [C_REGION] = {.name = "region", .kind = OUT_STRING, .unit = "", .description = "Grid key"},
    [C_OBJECTIVE] = {.name = "objective", .kind = OUT_NUMBER, .unit = "USD",
                     .description = "TCO + tonnes CO2 x carbon_tax_per_ton"},
    [C_TCO] = {.name = "tco", .kind = OUT_NUMBER, .unit = "USD",
               .description = "Total cost of ownership of the run there"},
    [C_CARBON] = {.name = "carbon", .kind = OUT_NUMBER, .unit = "t",
                  .description = "Operational carbon of the run there, metric tonnes"},
    [C_WATER] = {.name = "water", .kind = OUT_NUMBER, .unit = "L",
                 .description = "Water the facility consumes over the run (energy x the grid's WUE)"},
    [C_PUE] = {.name = "pue", .kind = OUT_NUMBER, .unit = "", .description = "PUE of the region"},
};

static const table_desc TABLE = {
    .name = "top_candidates",
    .description = "Every grid priced, lowest objective first (ties in the order of regions)",
    .columns = COLUMNS,
    .n_columns = C_N,
};

typedef struct {
    const grid_t *grid;
    int order;
    double objective, tco, tons, water, pue;
} candidate;

static int by_objective(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->objective != y->objective)
        return x->objective < y->objective ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static int run_placement(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const fleet_t *f = in_fleet(in, I_FLEET);
    int n = in_list_len(in, I_REGIONS);
    double tax = in_num(in, I_TAX);
    candidate *c = malloc((size_t)(n ? n : 1) * sizeof *c);
    if (!c) {
        solver_fail(err, "regions", "out of memory pricing %d regions", n);
        err->status = 503;
        return -1;
    }
    int searched = 0;
    for (int j = 0; j < n; j++) {
        const grid_t *g = in_list_ref(in, I_REGIONS, j);
        if (!g) {
            solver_warn(out, "regions[%d] '%.80s' is not a grid: skipped, as mlsysim skips it", j,
                        in_list_name(in, I_REGIONS, j));
            continue;
        }
        tco_result r;
        energy_tco(f, in_num(in, I_DURATION), (energy_site){.grid = g}, in_num(in, I_MFU), ENERGY_KWH_PRICE_USD,
                   ENERGY_AMORTIZATION_YEARS, ENERGY_INFRA_MULTIPLIER, &r);
        double tons = r.energy.carbon_kg / 1000.0;
        c[searched] = (candidate){.grid = g, .order = searched, .objective = r.tco + tons * tax, .tco = r.tco,
                                  .tons = tons, .water = r.energy.water_l, .pue = r.energy.pue};
        searched++;
    }
    if (!searched) {
        free(c);
        return solver_fail(err, "regions",
                           "No valid regions found for optimization. (none of the %d names in regions is a grid; "
                           "GET /catalog/grids lists them)",
                           n);
    }
    qsort(c, (size_t)searched, sizeof *c, by_objective);
    out_str(out, O_BEST, c[0].grid->key);
    out_num(out, O_OBJECTIVE, c[0].objective);
    out_num(out, O_TCO, c[0].tco);
    out_num(out, O_CARBON, c[0].tons);
    out_num(out, O_PUE, c[0].pue);
    out_int(out, O_SEARCHED, searched);
    for (int j = 0; j < searched; j++) {
        int r = out_row(out);
        if (r < 0) {
            solver_warn(out, "top_candidates lists the first %d of %d regions", SOLVER_MAX_ROWS, searched);
            break;
        }
        out_cell_str(out, r, C_REGION, c[j].grid->key);
        out_cell_num(out, r, C_OBJECTIVE, c[j].objective);
        out_cell_num(out, r, C_TCO, c[j].tco);
        out_cell_num(out, r, C_CARBON, c[j].tons);
        out_cell_num(out, r, C_WATER, c[j].water);
        out_cell_num(out, r, C_PUE, c[j].pue);
    }
    free(c);
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
                   "every grid of the catalog is a candidate. top_candidates ranks them all.",
    .assumptions = "economics and sustainability for each region, ranked by TCO plus a carbon tax. Leaves out "
                   "latency to users, capacity availability, data-residency rules and everything economics leaves "
                   "out.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .table = &TABLE,
    .run = run_placement,
    .example_json = "{\"fleet\":\"Research_256\",\"duration_days\":365,\"regions\":[\"Quebec\",\"Iowa\"],"
                    "\"carbon_tax_per_ton\":50}",
};
