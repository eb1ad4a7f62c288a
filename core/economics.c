/* economics.c - mlsysim EconomicsModel (reference/solvers.md §25): total
 * cost of ownership of a fleet over a run (amortized CapEx, energy and
 * maintenance OpEx) with the energy, carbon and water figures it rests on.
 * The arithmetic is core/energy.c's; this file is the solver's inputs and
 * outputs. */
#include <stddef.h>

#include "core/energy.h"
#include "core/solver.h"

enum { I_FLEET, I_DURATION, I_PRICE, I_DATACENTER, I_GRID, I_MFU, I_AMORTIZATION, I_MULTIPLIER, I_N };
static const input_desc INPUTS[I_N] = {
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "The cluster: an id (\"Research_256\") or {\"node\", \"count\", \"fabric\", \"region\"}"},
    [I_DURATION] = {.name = "duration_days", .kind = IN_NUMBER, .description = "Length of the run, in days"},
    [I_PRICE] = {.name = "kwh_price", .kind = IN_NUMBER, .nullable = true, .optional = true,
                 .description = "Electricity price in USD/kWh; null or absent: 0.12 "
                                "(Infrastructure.Pricing.Cloud.ElectricityPerKwh)"},
    [I_DATACENTER] = {.name = "datacenter", .kind = IN_REF, .refs = REC_BIT(REC_GRID) | REC_BIT(REC_DATACENTER),
                      .nullable = true, .optional = true,
                      .description = "Where it runs: a grid or a datacenter id; wins over `grid` when both are given"},
    [I_GRID] = {.name = "grid", .kind = IN_REF, .refs = REC_BIT(REC_GRID), .nullable = true, .optional = true,
                .description = "Where it runs: a grid id (\"Quebec\"); with neither this nor `datacenter`, the "
                               "fleet's datacenter, else its region, else US_Avg"},
    [I_MFU] = {.name = "mfu", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0, .check = CHECK_RANGE,
               .lo = 0.0, .hi = 1.0,
               .description = "Model-FLOPs utilization: each accelerator draws TDP x (0.3 + 0.7 x mfu)"},
    [I_AMORTIZATION] = {.name = "amortization_years", .kind = IN_NUMBER, .has_default = true,
                        .def_num = ENERGY_AMORTIZATION_YEARS,
                        .description = "Years over which CapEx is depreciated (not 0)"},
    [I_MULTIPLIER] = {.name = "infrastructure_multiplier", .kind = IN_NUMBER, .has_default = true,
                      .def_num = ENERGY_INFRA_MULTIPLIER,
                      .description = "CapEx multiplier for networking, cooling, facility and staff (1 = "
                                     "accelerators only; 2-2.5 for a whole datacenter)"},
};

enum {
    O_CAPEX, O_OPEX_ENERGY, O_OPEX_MAINT, O_OPEX, O_TCO, O_IT, O_TOTAL, O_CARBON, O_WATER, O_PUE, O_REGION, O_N
};
static const output_desc OUTPUTS[O_N] = {
    [O_CAPEX] = {.name = "capex", .kind = OUT_NUMBER, .unit = "USD", .description = "CapEx amortized over the run"},
    [O_OPEX_ENERGY] = {.name = "opex_energy", .kind = OUT_NUMBER, .unit = "USD",
                       .description = "Facility energy x electricity price"},
    [O_OPEX_MAINT] = {.name = "opex_maintenance", .kind = OUT_NUMBER, .unit = "USD",
                      .description = "CapEx x 5 % a year, over the run"},
    [O_OPEX] = {.name = "total_opex", .kind = OUT_NUMBER, .unit = "USD", .description = "Energy + maintenance"},
    [O_TCO] = {.name = "tco", .kind = OUT_NUMBER, .unit = "USD",
               .description = "Total cost of ownership over the run: capex + total_opex"},
    [O_IT] = {.name = "it_energy", .kind = OUT_NUMBER, .unit = "kWh", .description = "Energy the accelerators draw"},
    [O_TOTAL] = {.name = "total_energy", .kind = OUT_NUMBER, .unit = "kWh",
                 .description = "Facility energy: IT energy x PUE"},
    [O_CARBON] = {.name = "carbon_footprint", .kind = OUT_NUMBER, .unit = "kg",
                  .description = "Operational carbon of the facility energy"},
    [O_WATER] = {.name = "water_usage", .kind = OUT_NUMBER, .unit = "L",
                 .description = "Facility energy x the region's WUE"},
    [O_PUE] = {.name = "pue", .kind = OUT_NUMBER, .unit = "", .description = "Power usage effectiveness applied"},
    [O_REGION] = {.name = "region_name", .kind = OUT_STRING, .unit = "",
                  .description = "Display name of the grid whose carbon intensity applied", .categorical = true},
};

static int run_economics(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    if (in_num(in, I_AMORTIZATION) == 0)
        return solver_fail(err, "amortization_years",
                           "amortization_years must not be 0 (mlsysim divides CapEx by it: "
                           "ZeroDivisionError: float division by zero)");
    energy_site site = {0};
    if (in_has(in, I_DATACENTER)) {
        if (in_ref_kind(in, I_DATACENTER) == REC_DATACENTER)
            site.datacenter = in_ref(in, I_DATACENTER);
        else
            site.grid = in_ref(in, I_DATACENTER);
    } else {
        site.grid = in_ref(in, I_GRID);
    }
    double price = in_has(in, I_PRICE) ? in_num(in, I_PRICE) : ENERGY_KWH_PRICE_USD;
    tco_result r;
    energy_tco(in_fleet(in, I_FLEET), in_num(in, I_DURATION), site, in_num(in, I_MFU), price,
               in_num(in, I_AMORTIZATION), in_num(in, I_MULTIPLIER), &r);
    out_num(out, O_CAPEX, r.capex);
    out_num(out, O_OPEX_ENERGY, r.opex_energy);
    out_num(out, O_OPEX_MAINT, r.opex_maintenance);
    out_num(out, O_OPEX, r.total_opex);
    out_num(out, O_TCO, r.tco);
    out_num(out, O_IT, r.energy.it_energy_kwh);
    out_num(out, O_TOTAL, r.energy.total_energy_kwh);
    out_num(out, O_CARBON, r.energy.carbon_kg);
    out_num(out, O_WATER, r.energy.water_l);
    out_num(out, O_PUE, r.energy.pue);
    out_str(out, O_REGION, r.energy.region->name);
    return 0;
}

static const char *const ALIASES[] = {"EconomicsModel", NULL};

const solver_desc SOLVER_ECONOMICS = {
    .name = "economics",
    .aliases = ALIASES,
    .title = "Total cost of ownership of a fleet over a run",
    .description = "mlsysim EconomicsModel. CapEx (accelerator unit cost x count x infrastructure_multiplier) "
                   "amortized over amortization_years and prorated to the run; OpEx = facility energy (as "
                   "sustainability computes it) x electricity price + 5 % of CapEx a year for maintenance.",
    .assumptions = "TCO: amortized capex of the accelerators (times an infrastructure multiplier), energy at the kWh "
                   "price, 5% maintenance per year. Leaves out staff, networking and facility costs beyond the "
                   "multiplier, financing and price changes.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_economics,
    .example_json = "{\"fleet\":\"Research_256\",\"duration_days\":365,\"grid\":\"Quebec\",\"kwh_price\":0.07}",
    .plan_role = "macro",
};
