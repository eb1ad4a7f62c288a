/* test_fleets.c - the fleet-in-the-world solvers called directly, without
 * the server: sustainability (reference/solvers.md §24), economics (§25),
 * reliability (§22), orchestration (§23) and placement (§27), and the
 * constants core/energy.c carries (§0.6) checked against the reference
 * catalog.
 *
 * Fleets, grids and datacenters are built by hand with round numbers so
 * every expected value is a short calculation written next to it. The
 * standard fleet: 10 nodes of 4 accelerators (500 W, 10,000 USD each) with
 * 2 NICs and 2 PSUs per node, in grid G1 (100 g/kWh, PUE 1.5, WUE 2 L/kWh). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/energy.h"
#include "core/fleet.h"
#include "core/solver.h"
#include "solver_fixture.h"

#ifndef MLSYSD_SHARED_DIR
#define MLSYSD_SHARED_DIR "../shared"
#endif

/* ---- records ------------------------------------------------------------------ */

static grid_t grid(const char *key, double g_kwh, double pue, double wue)
{
    grid_t g = {.carbon_intensity_g_kwh = g_kwh, .pue = pue, .wue = wue};
    snprintf(g.key, sizeof g.key, "%s", key);
    snprintf(g.name, sizeof g.name, "%s grid", key);
    return g;
}

static const grid_t *G1(void)
{
    static grid_t g;
    g = grid("G1", 100, 1.5, 2.0);
    return &g;
}

static const grid_t *G2(void)
{
    static grid_t g;
    g = grid("G2", 500, 1.2, 0.5);
    return &g;
}

/* Datacenter on G2, PUE override 1.3 (NAN: none). */
static datacenter_t datacenter(double pue_override)
{
    datacenter_t d = {.grid = *G2(), .pue_override = pue_override};
    snprintf(d.key, sizeof d.key, "D");
    return d;
}

static fleet_t standard_fleet(void)
{
    fleet_t f = {.count = 10, .has_region = true, .region = *G1(), .mtbf_hours = NAN};
    f.node.accelerators_per_node = 4;
    f.node.nics_per_node = 2;
    f.node.psus_per_node = 2;
    f.node.accelerator.tdp = 500;
    f.node.accelerator.unit_cost = 10000;
    f.datacenter.pue_override = NAN;
    return f;
}

/* ---- sustainability (§24) ------------------------------------------------------- */

/* One day at mfu 0.5: 500 W x (0.3 + 0.7 x 0.5) = 325 W per chip, x 40 chips
 * x 24 h = 312 kWh of IT energy. */
#define IT_DAY_KWH 312.0

static fleet_t F;

static void sustainability_day(void)
{
    F = standard_fleet();
    use_solver("sustainability");
    set_ref("fleet", REC_CLUSTER, &F);
    set_num("duration_days", 1);
    set_num("mfu", 0.5);
}

Test(sustainability, fleet_region_when_no_datacenter)
{
    sustainability_day();
    set_num("embodied_carbon_per_device", 10);
    solve_ok();
    expect_num("it_energy", IT_DAY_KWH);
    expect_num("pue", 1.5);                           /* the fleet's effective PUE: its region's */
    expect_num("total_energy", 468);                  /* 312 x 1.5 */
    expect_num("embodied_carbon", 400);               /* 10 kg x 40 */
    expect_num("carbon_footprint", 46.8 + 400);       /* 468 kWh x 100 g/kWh + embodied */
    expect_num("water_usage", 936);                   /* 468 x 2 L/kWh */
    expect_str("region_name", "G1 grid");
    cr_assert_eq(OUT.n_warnings, 0);
}

Test(sustainability, grid_as_datacenter_replaces_the_region)
{
    sustainability_day();
    set_ref("datacenter", REC_GRID, G2());
    solve_ok();
    expect_num("pue", 1.2);
    expect_num("total_energy", 374.4);                /* 312 x 1.2 */
    expect_num("carbon_footprint", 187.2);            /* 374.4 x 500 / 1000 */
    expect_num("water_usage", 187.2);                 /* 374.4 x 0.5 */
    expect_num("embodied_carbon", 0);
    expect_str("region_name", "G2 grid");
}

Test(sustainability, datacenter_brings_its_grid_and_pue_override)
{
    sustainability_day();
    datacenter_t d = datacenter(1.3);
    set_ref("datacenter", REC_DATACENTER, &d);
    solve_ok();
    expect_num("pue", 1.3);
    expect_num("total_energy", 405.6);                /* 312 x 1.3 */
    expect_num("carbon_footprint", 202.8);            /* 405.6 x 500 / 1000: the datacenter's grid */
    expect_num("water_usage", 202.8);                 /* x its grid's WUE 0.5 */
    expect_str("region_name", "G2 grid");
}

Test(sustainability, datacenter_without_override_uses_its_grid_pue)
{
    sustainability_day();
    datacenter_t d = datacenter(NAN);
    set_ref("datacenter", REC_DATACENTER, &d);
    solve_ok();
    expect_num("pue", 1.2);
    expect_num("total_energy", 374.4);
}

Test(sustainability, fleet_datacenter_when_none_given)
{
    sustainability_day();
    F.has_datacenter = true;
    F.datacenter = datacenter(1.3);
    set_null("datacenter");
    solve_ok();
    expect_num("pue", 1.3);
    expect_num("carbon_footprint", 202.8);
    expect_str("region_name", "G2 grid");
}

Test(sustainability, fleet_placed_nowhere_is_us_average_at_best_air_pue)
{
    sustainability_day();
    F.has_region = false;
    solve_ok();
    expect_num("pue", 1.12);                          /* FacilityCooling.BestAir */
    expect_num("total_energy", 349.44);               /* 312 x 1.12 */
    expect_num("carbon_footprint", 149.90976);        /* 349.44 x 429 / 1000 */
    expect_num("water_usage", 628.992);               /* 349.44 x 1.8 */
    expect_str("region_name", "US Average");
}

Test(sustainability, accelerator_without_tdp_draws_as_an_h100)
{
    sustainability_day();
    F.node.accelerator.tdp = NAN;
    solve_ok();
    expect_num("it_energy", 436.8);                   /* 700 W x 0.65 x 40 x 24 h / 1000 */
    F.node.accelerator.tdp = 0;
    solve_ok();
    expect_num("it_energy", 436.8);
}

Test(sustainability, idle_and_full_utilization)
{
    sustainability_day();
    set_num("mfu", 0);
    solve_ok();
    expect_num("it_energy", 144);                     /* 500 x 0.3 x 40 x 24 / 1000 */
    set_num("mfu", 1);
    solve_ok();
    expect_num("it_energy", 480);                     /* 500 x 40 x 24 / 1000 */
}

Test(sustainability, mlsysim_validation)
{
    sustainability_day();
    set_num("mfu", 1.5);
    solve_fails_with("mfu", "mfu must be in [0.0, 1.0], got 1.5");
    set_num("mfu", 0.5);
    set_num("embodied_carbon_per_device", -1);
    solve_fails_with("embodied_carbon_per_device", "embodied_carbon_per_device must be non-negative, got -1.0");
}

/* ---- economics (§25) ------------------------------------------------------------ */

/* A year at mfu 0.5 in G1: 312 x 365 = 113,880 kWh IT, 170,820 kWh facility.
 * CapEx 10,000 USD x 40 = 400,000 USD. */
static void economics_year(void)
{
    F = standard_fleet();
    use_solver("economics");
    set_ref("fleet", REC_CLUSTER, &F);
    set_num("duration_days", 365);
    set_num("mfu", 0.5);
}

Test(economics, defaults_price_amortization_maintenance)
{
    economics_year();
    set_null("kwh_price");
    solve_ok();
    expect_num("it_energy", 113880);
    expect_num("total_energy", 170820);
    expect_num("opex_energy", 20498.4);               /* 170,820 kWh x 0.12 USD */
    expect_num("capex", 400000.0 / 3);                /* over 3 years, one year run */
    expect_num("opex_maintenance", 20000);            /* 5 % of 400,000 a year */
    expect_num("total_opex", 40498.4);
    expect_num("tco", 400000.0 / 3 + 40498.4);
    expect_num("carbon_footprint", 17082);            /* 170,820 x 100 / 1000 */
    expect_num("water_usage", 341640);
    expect_num("pue", 1.5);
    expect_str("region_name", "G1 grid");
}

Test(economics, given_price_multiplier_and_amortization)
{
    economics_year();
    set_num("kwh_price", 0.2);
    set_num("infrastructure_multiplier", 2);
    set_num("amortization_years", 5);
    set_num("duration_days", 73);                 /* a fifth of a year */
    solve_ok();
    expect_num("total_energy", 34164);                /* 170,820 / 5 */
    expect_num("opex_energy", 6832.8);                /* x 0.2 */
    expect_num("capex", 32000);                       /* 800,000 / 5 years x 0.2 year */
    expect_num("opex_maintenance", 8000);             /* 800,000 x 0.05 x 0.2 */
    expect_num("tco", 32000 + 6832.8 + 8000);
}

Test(economics, datacenter_wins_over_grid)
{
    economics_year();
    datacenter_t d = datacenter(1.3);
    set_ref("grid", REC_GRID, G1());
    set_ref("datacenter", REC_DATACENTER, &d);
    solve_ok();
    expect_num("pue", 1.3);
    expect_num("total_energy", 148044);               /* 113,880 x 1.3 */
    expect_num("carbon_footprint", 74022);            /* x 500 / 1000 */
    expect_str("region_name", "G2 grid");
    set_null("datacenter");
    set_ref("grid", REC_GRID, G2());
    solve_ok();
    expect_num("pue", 1.2);
    expect_num("opex_energy", 16398.72);              /* 113,880 x 1.2 x 0.12 */
}

Test(economics, unknown_unit_cost_is_free)
{
    economics_year();
    F.node.accelerator.unit_cost = NAN;
    solve_ok();
    expect_num("capex", 0);
    expect_num("opex_maintenance", 0);
    expect_num("tco", 20498.4);
}

Test(economics, zero_amortization_is_a_400)
{
    economics_year();
    set_num("amortization_years", 0);
    solve_fails_with("amortization_years", "ZeroDivisionError: float division by zero");
}

/* ---- reliability (§22) ---------------------------------------------------------- */

/* Nodes of 3 accelerators, 3 NICs, 2 PSUs fail at 3/50,000 + 3/150,000 +
 * 2/100,000 = 1e-4 per hour: node MTBF 10,000 h, 10 nodes 1,000 h = 3.6e6 s. */
static void reliability_fleet(void)
{
    F = standard_fleet();
    F.node.accelerators_per_node = 3;
    F.node.nics_per_node = 3;
    use_solver("reliability");
    set_ref("fleet", REC_CLUSTER, &F);
    set_num("job_duration_hours", 100);
}

Test(reliability, mtbf_failures_young_daly_goodput)
{
    reliability_fleet();
    set_num("checkpoint_time_s", 50);
    solve_ok();
    expect_num("fleet_mtbf", 1000);
    expect_num("failure_probability", 1 - exp(-0.1));     /* 100 h of a 1,000 h MTBF */
    expect_num("expected_failures", 0.1);
    expect_num("optimal_checkpoint_interval", sqrt(3.6e8)); /* sqrt(2 x 50 s x 3.6e6 s) */
    expect_num("goodput_ratio", 1 - 50 / sqrt(3.6e8) - 300 / 3.6e6); /* default recovery 300 s */
}

Test(reliability, defaults_and_ignored_fleet_mtbf)
{
    reliability_fleet();
    F.mtbf_hours = 5;                              /* mlsysim ignores Fleet.mtbf_hours */
    solve_ok();
    expect_num("fleet_mtbf", 1000);
    expect_num("optimal_checkpoint_interval", sqrt(4.32e8)); /* default 60 s: sqrt(2 x 60 x 3.6e6) */
}

Test(reliability, no_checkpoints_no_goodput)
{
    reliability_fleet();
    set_num("checkpoint_time_s", 0);
    solve_ok();
    expect_num("optimal_checkpoint_interval", 0);
    expect_num("goodput_ratio", 0);
}

Test(reliability, goodput_floors_at_zero)
{
    reliability_fleet();
    set_num("avg_recovery_time_s", 4e6);           /* longer than the 3.6e6 s MTBF */
    solve_ok();
    expect_num("goodput_ratio", 0);
}

Test(reliability, fleets_that_cannot_fail_or_have_no_nodes)
{
    reliability_fleet();
    F.node.accelerators_per_node = F.node.nics_per_node = F.node.psus_per_node = 0;
    solve_fails_with("fleet", "ZeroDivisionError");
    F = standard_fleet();
    F.count = 0;
    solve_fails_with("fleet", "float division by zero");
    /* A negative count makes a negative MTBF, which the failure probability
     * rejects: standard_fleet's node MTBF (see reliability_fleet) over -1. */
    F = standard_fleet();
    F.count = -1;
    solve_fails_with("fleet", "mtbf must be positive, got -");
}

Test(reliability, negative_checkpoint_time)
{
    /* Not a bound upstream: math.sqrt of a negative in the Young-Daly interval. */
    reliability_fleet();
    set_num("checkpoint_time_s", -1);
    solve_fails_with("checkpoint_time_s", "math domain error");
}

/* ---- orchestration (§23) -------------------------------------------------------- */

static void orchestration(double lambda, double days)
{
    F = standard_fleet();
    use_solver("orchestration");
    set_ref("fleet", REC_CLUSTER, &F);
    set_num("arrival_rate_jobs_per_day", lambda);
    set_num("avg_job_duration_days", days);
}

Test(orchestration, stable_queue)
{
    orchestration(4, 0.2);                         /* mu = 5 a day, rho = 0.8 */
    solve_ok();
    expect_num("cluster_utilization", 0.8);
    expect_num("avg_wait_time", 0.4);                  /* 0.8 / (2 x 5 x 0.2) */
    expect_num("avg_queue_length", 1.6);               /* 0.64 / (2 x 0.2) */
    cr_assert_eq(out("is_stable")->num, 1);
    cr_assert_eq(OUT.n_warnings, 0);
}

Test(orchestration, idle_cluster)
{
    orchestration(0, 2);
    solve_ok();
    expect_num("cluster_utilization", 0);
    expect_num("avg_wait_time", 0);
    expect_num("avg_queue_length", 0);
    cr_assert_eq(out("is_stable")->num, 1);
}

Test(orchestration, saturated_and_overloaded_queues_are_infinite)
{
    double lambdas[] = {1, 3};
    for (int i = 0; i < 2; i++) {
        orchestration(lambdas[i], 1);              /* rho = 1, then 3 */
        solve_ok();
        expect_num("cluster_utilization", lambdas[i]);
        cr_assert(out("avg_wait_time")->is_null);
        cr_assert(out("avg_queue_length")->is_null);
        cr_assert_eq(out("is_stable")->num, 0);
        cr_assert(warned("avg_wait_time") && warned("infinite"), "no warning names the infinite outputs");
    }
}

Test(orchestration, zero_duration_is_a_400_naming_the_input)
{
    orchestration(1, 0);
    solve_fails_with("avg_job_duration_days", "avg_job_duration_days must not be 0");
    cr_assert(strstr(ERR.detail, "ZeroDivisionError: float division by zero"));
}

/* ---- placement (§27) ------------------------------------------------------------ */

/* A year at mfu 0.5, default price and amortization:
 *   G1: TCO 400,000/3 + 170,820 x 0.12 + 20,000 = 173,831.73; 17.082 t
 *   G2: TCO 400,000/3 + 136,656 x 0.12 + 20,000 = 169,732.05; 68.328 t
 * so G2 is cheaper untaxed and G1 wins from 100 USD/t. */
static input_item ITEMS[3];

static void placement_year(double tax)
{
    F = standard_fleet();
    use_solver("placement");
    set_ref("fleet", REC_CLUSTER, &F);
    set_num("duration_days", 365);
    set_num("mfu", 0.5);
    set_num("carbon_tax_per_ton", tax);
    ITEMS[0] = (input_item){.ref = G1(), .name = "G1"};
    ITEMS[1] = (input_item){.ref = NULL, .name = "Nowhere"};
    ITEMS[2] = (input_item){.ref = G2(), .name = "G2"};
    set_list("regions", ITEMS, 3);
}

Test(placement, carbon_tax_moves_the_best_region)
{
    placement_year(100);
    solve_ok();
    expect_str("best_region", "G1");
    expect_num("lowest_tco", 400000.0 / 3 + 40498.4);
    expect_num("carbon_footprint", 17.082);
    expect_num("objective_value", 400000.0 / 3 + 40498.4 + 1708.2);
    expect_num("pue", 1.5);
    expect_num("total_searched", 2);
    cr_assert(warned("Nowhere"), "no warning names the skipped region");

    placement_year(0);
    solve_ok();
    expect_str("best_region", "G2");
    expect_num("objective_value", 400000.0 / 3 + 16398.72 + 20000);
    expect_num("carbon_footprint", 68.328);
    expect_num("pue", 1.2);
}

Test(placement, first_of_equal_objectives_wins)
{
    placement_year(100);
    static grid_t twin;
    twin = *G1();
    snprintf(twin.key, sizeof twin.key, "G1_twin");
    ITEMS[0] = (input_item){.ref = &twin, .name = "G1_twin"};
    ITEMS[1] = (input_item){.ref = G1(), .name = "G1"};
    solve_ok();
    expect_str("best_region", "G1_twin");
    expect_num("total_searched", 3);
}

/* Every grid priced, ranked by objective; the skipped name has no row.
 * IT energy 113,880 kWh: G1 facility 170,820 kWh (water x 2 L/kWh), G2
 * 136,656 kWh (x 0.5 L/kWh). */
Test(placement, top_candidates_ranks_every_grid)
{
    placement_year(100);
    solve_ok();
    cr_assert_eq(OUT.n_rows, 2);
    cr_assert_str_eq(cell(0, "region")->str, "G1");
    expect_cell(0, "objective", 400000.0 / 3 + 40498.4 + 1708.2);
    expect_cell(0, "tco", 400000.0 / 3 + 40498.4);
    expect_cell(0, "carbon", 17.082);
    expect_cell(0, "water", 170820 * 2.0);
    expect_cell(0, "pue", 1.5);
    cr_assert_str_eq(cell(1, "region")->str, "G2");
    expect_cell(1, "objective", 400000.0 / 3 + 36398.72 + 6832.8);
    expect_cell(1, "water", 136656 * 0.5);
    expect_cell(1, "carbon", 68.328);

    placement_year(0); /* untaxed, G2 is cheaper: the order turns */
    solve_ok();
    cr_assert_str_eq(cell(0, "region")->str, "G2");
    cr_assert_str_eq(cell(1, "region")->str, "G1");
    expect_cell(1, "objective", 400000.0 / 3 + 40498.4);
}

Test(placement, equal_objectives_keep_the_order_given)
{
    placement_year(100);
    static grid_t twin;
    twin = *G1();
    snprintf(twin.key, sizeof twin.key, "G1_twin");
    ITEMS[0] = (input_item){.ref = G1(), .name = "G1"};
    ITEMS[1] = (input_item){.ref = &twin, .name = "G1_twin"};
    solve_ok();
    cr_assert_eq(OUT.n_rows, 3);
    cr_assert_str_eq(cell(0, "region")->str, "G1");
    cr_assert_str_eq(cell(1, "region")->str, "G1_twin");
    cr_assert_str_eq(cell(2, "region")->str, "G2");
}

Test(placement, no_grid_among_regions)
{
    placement_year(100);
    set_list("regions", ITEMS + 1, 1);
    solve_fails_with("regions", "No valid regions found for optimization.");
    set_list("regions", ITEMS, 0);
    solve_fails_with("regions", "No valid regions found for optimization.");
}

/* ---- constants against the reference catalog ------------------------------------ */

static json_t *CATALOG;

static void load_catalog(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/reference/catalog.json", MLSYSD_SHARED_DIR);
    CATALOG = json_load_file(path, 0, NULL);
    if (!CATALOG)
        cr_skip_test("%s is absent (not a dev checkout)", path);
}

/* The entry of `section` (an array of the catalog) with this id. */
static const json_t *entry(const char *section, const char *id)
{
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(CATALOG, section), i, e)
        if (json_is_string(json_object_get(e, "id")) && !strcmp(json_string_value(json_object_get(e, "id")), id))
            return e;
    cr_assert_fail("catalog.json has no %s", id);
    return NULL;
}

static double rate_value(const char *id)
{
    return json_number_value(json_object_get(json_object_get(entry("infrastructure", id), "rate"), "value"));
}

Test(energy_constants, match_the_reference_catalog)
{
    load_catalog();
    const grid_t *grids[] = {&GRID_US_AVG};
    for (int i = 0; i < 1; i++) {
        const json_t *e = entry("infrastructure", grids[i]->id);
        cr_assert_str_eq(grids[i]->key, json_string_value(json_object_get(e, "key")));
        cr_assert_str_eq(grids[i]->name, json_string_value(json_object_get(e, "name")));
        cr_assert_str_eq(grids[i]->primary_source, json_string_value(json_object_get(e, "primary_source")));
        cr_assert_eq(grids[i]->carbon_intensity_g_kwh, json_number_value(json_object_get(e, "carbon_intensity_g_kwh")));
        cr_assert_eq(grids[i]->pue, json_number_value(json_object_get(e, "pue")), "%s pue", grids[i]->key);
        cr_assert_eq(grids[i]->wue, json_number_value(json_object_get(e, "wue_l_per_kwh")), "%s wue", grids[i]->key);
    }
    cr_assert_eq(ENERGY_KWH_PRICE_USD, rate_value("Infrastructure.Pricing.Cloud.ElectricityPerKwh"));
    cr_assert_eq(ENERGY_MAINTENANCE_RATIO, rate_value("Infrastructure.Pricing.Capital.AnnualMaintenanceRatio"));
    cr_assert_eq(FLEET_DEFAULT_PUE,
                 json_number_value(json_object_get(entry("infrastructure", "Infrastructure.FacilityCooling.BestAir"),
                                                   "pue")));
    json_decref(CATALOG);
}

/* A one-node fleet with a single part of one kind fails at that part's MTTF:
 * reliability.c's constants are Systems.Reliability.{Gpu,Nic,Psu}. */
Test(reliability, mttfs_match_the_reference_catalog)
{
    load_catalog();
    static const char *const IDS[] = {"Systems.Reliability.Gpu", "Systems.Reliability.Nic", "Systems.Reliability.Psu"};
    for (int part = 0; part < 3; part++) {
        reliability_fleet();
        F.count = 1;
        F.node.accelerators_per_node = part == 0;
        F.node.nics_per_node = part == 1;
        F.node.psus_per_node = part == 2;
        solve_ok();
        expect_num("fleet_mtbf", json_number_value(json_object_get(entry("systems", IDS[part]), "mttf_hours")));
    }
    json_decref(CATALOG);
}
