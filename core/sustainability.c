/* sustainability.c - mlsysim SustainabilityModel (reference/solvers.md §24):
 * a fleet's IT and facility energy, operational and embodied carbon, and
 * water over a run, in a grid region or a datacenter. The arithmetic is
 * core/energy.c's; this file is the solver's inputs and outputs. */
#include <stddef.h>

#include "core/energy.h"
#include "core/solver.h"

enum { I_FLEET, I_DURATION, I_DATACENTER, I_MFU, I_EMBODIED, I_N };
static const input_desc INPUTS[I_N] = {
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "The cluster: an id (\"Research_256\") or {\"node\", \"count\", \"fabric\", \"region\"}"},
    [I_DURATION] = {.name = "duration_days", .kind = IN_NUMBER, .description = "Length of the run, in days"},
    [I_DATACENTER] = {.name = "datacenter", .kind = IN_REF, .refs = REC_BIT(REC_GRID) | REC_BIT(REC_DATACENTER),
                      .nullable = true, .optional = true,
                      .description = "Where it runs: a grid (\"Quebec\") or a datacenter (\"France_Nuclear\"); "
                                     "null or absent: the fleet's datacenter, else its region, else US_Avg"},
    [I_MFU] = {.name = "mfu", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0, .check = CHECK_RANGE,
               .lo = 0.0, .hi = 1.0,
               .description = "Model-FLOPs utilization: each accelerator draws TDP x (0.3 + 0.7 x mfu)"},
    [I_EMBODIED] = {.name = "embodied_carbon_per_device", .kind = IN_NUMBER, .has_default = true, .def_num = 0.0,
                    .check = CHECK_NONNEGATIVE,
                    .description = "Manufacturing carbon per accelerator, in kg CO2e, added to the footprint"},
};

enum { O_IT, O_TOTAL, O_CARBON, O_WATER, O_PUE, O_REGION, O_EMBODIED, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_IT] = {.name = "it_energy", .kind = OUT_NUMBER, .unit = "kWh", .description = "Energy the accelerators draw"},
    [O_TOTAL] = {.name = "total_energy", .kind = OUT_NUMBER, .unit = "kWh",
                 .description = "Facility energy: IT energy x PUE"},
    [O_CARBON] = {.name = "carbon_footprint", .kind = OUT_NUMBER, .unit = "kg",
                  .description = "Operational (facility energy x grid intensity) + embodied"},
    [O_WATER] = {.name = "water_usage", .kind = OUT_NUMBER, .unit = "L",
                 .description = "Facility energy x the region's WUE"},
    [O_PUE] = {.name = "pue", .kind = OUT_NUMBER, .unit = "", .description = "Power usage effectiveness applied"},
    [O_REGION] = {.name = "region_name", .kind = OUT_STRING, .unit = "",
                  .description = "Display name of the grid whose carbon intensity applied", .categorical = true},
    [O_EMBODIED] = {.name = "embodied_carbon", .kind = OUT_NUMBER, .unit = "kg",
                    .description = "embodied_carbon_per_device x accelerators"},
};

static int run_sustainability(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    (void)err;
    energy_site site = {0};
    if (in_ref_kind(in, I_DATACENTER) == REC_DATACENTER)
        site.datacenter = in_ref(in, I_DATACENTER);
    else
        site.grid = in_ref(in, I_DATACENTER);
    energy_result r;
    energy_footprint(in_fleet(in, I_FLEET), in_num(in, I_DURATION), site, in_num(in, I_MFU),
                     in_num(in, I_EMBODIED), &r);
    out_num(out, O_IT, r.it_energy_kwh);
    out_num(out, O_TOTAL, r.total_energy_kwh);
    out_num(out, O_CARBON, r.carbon_kg);
    out_num(out, O_WATER, r.water_l);
    out_num(out, O_PUE, r.pue);
    out_str(out, O_REGION, r.region->name);
    out_num(out, O_EMBODIED, r.embodied_kg);
    return 0;
}

static const char *const ALIASES[] = {"SustainabilityModel", NULL};

const solver_desc SOLVER_SUSTAINABILITY = {
    .name = "sustainability",
    .aliases = ALIASES,
    .title = "Energy, carbon and water of a fleet over a run",
    .description = "mlsysim SustainabilityModel. IT energy from each accelerator's TDP scaled by utilization, "
                   "facility energy through the site's PUE, operational carbon from the grid's intensity, water "
                   "from its WUE, plus embodied carbon per device.",
    .assumptions = "IT energy from accelerator TDP, MFU and duration, times PUE; carbon and water from the grid's "
                   "intensity and WUE; embodied carbon as given. Leaves out non-accelerator IT power beyond the "
                   "model's figures, time-varying grid intensity and idle periods.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_sustainability,
    .example_json = "{\"fleet\":\"Research_256\",\"duration_days\":30,\"datacenter\":\"France_Nuclear\",\"mfu\":0.4}",
};
