/* data.c - mlsysim DataModel (engine/solvers/data.py; same numerics at
 * commit 1c1141d9): is the storage / host-link supply enough for the rate
 * at which the workload consumes data? */
#include "core/data.h"

#include <math.h>

#include "core/solver.h"

void data_supply_path(const hw_node *hw, double *supply, const char **path)
{
    *supply = 0.0;
    *path = "Unknown";
    bool have = false;
    if (hw->has_storage && !isnan(hw->storage_bandwidth) && hw->storage_bandwidth > 0) {
        *supply = hw->storage_bandwidth;
        *path = "Storage";
        have = true;
    }
    if (hw->has_interconnect && !isnan(hw->interconnect_bw) && hw->interconnect_bw > 0 &&
        (!have || hw->interconnect_bw < *supply)) {
        *supply = hw->interconnect_bw;
        *path = "Interconnect";
    }
}

enum { I_RATE, I_HARDWARE, I_N };
static const input_desc INPUTS[I_N] = {
    [I_RATE] = {.name = "workload_data_rate", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s",
                .check = CHECK_NONNEGATIVE,
                .description = "Rate at which the workload consumes data (\"17.672 GB/s\", \"1 TB / h\")"},
    [I_HARDWARE] = {.name = "hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE),
                    .description = "Node whose storage / host interconnect supplies the data"},
};

enum { O_STALLED, O_UTIL, O_DEMAND, O_SUPPLY, O_BOTTLENECK, O_MARGIN, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_STALLED] = {.name = "is_stalled", .kind = OUT_BOOLEAN, .unit = "",
                   .description = "Demand exceeds supply (utilization > 1)", .categorical = true},
    [O_UTIL] = {.name = "utilization", .kind = OUT_NUMBER, .unit = "",
                .description = "Demand / supply (null when there is no supply path)", .nullable = true},
    [O_DEMAND] = {.name = "demand_bw", .kind = OUT_NUMBER, .unit = "GB/s",
                  .description = "Data rate the workload needs"},
    [O_SUPPLY] = {.name = "supply_bw", .kind = OUT_NUMBER, .unit = "GB/s",
                  .description = "Bandwidth of the binding supply path"},
    [O_BOTTLENECK] = {.name = "bottleneck", .kind = OUT_STRING, .unit = "",
                      .description = "Supply path: Storage, Interconnect or Unknown", .categorical = true},
    [O_MARGIN] = {.name = "margin", .kind = OUT_NUMBER, .unit = "GB/s", .description = "Supply - demand"},
};

static int run_data(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    (void)err;
    double supply;
    const char *path;
    data_supply_path(in_hw(in, I_HARDWARE), &supply, &path);
    double demand_gbs = in_num(in, I_RATE) / 1e9;
    double supply_gbs = supply / 1e9;
    double util = supply_gbs > 0 ? demand_gbs / supply_gbs : INFINITY;
    out_bool(out, O_STALLED, util > 1.0);
    if (isinf(util)) {
        out_null(out, O_UTIL);
        solver_warn(out, "utilization is infinite: hardware '%s' has no storage or interconnect bandwidth "
                         "(no supply path), reported as null",
                    in_hw(in, I_HARDWARE)->name);
    } else {
        out_num(out, O_UTIL, util);
    }
    out_num(out, O_DEMAND, demand_gbs);
    out_num(out, O_SUPPLY, supply_gbs);
    out_str(out, O_BOTTLENECK, path);
    out_num(out, O_MARGIN, supply_gbs - demand_gbs);
    return 0;
}

static const char *const ALIASES[] = {"DataModel", NULL};

/* Outputs monotone in an input (solver.h), checked by tests/api/test_optimize.c. */
static const monotone_desc MONOTONE[] = {
    {"workload_data_rate", "utilization", +1},
    {"workload_data_rate", "demand_bw", +1},
    {"workload_data_rate", "margin", -1},
    {"workload_data_rate", "is_stalled", +1},
    {NULL, NULL, 0},
};

const solver_desc SOLVER_DATA = {
    .name = "data",
    .aliases = ALIASES,
    .title = "Data wall: can storage or the host link feed the workload?",
    .description = "mlsysim DataModel. Compares the workload's data rate with the slower of the node's "
                   "storage and host-interconnect bandwidth.",
    .assumptions = "Demand against the slower of storage and host-interconnect bandwidth. Leaves out caching, "
                   "prefetching, compression, file-system overheads and other jobs sharing the path.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .monotone = MONOTONE,
    .run = run_data,
    .example_json = "{\"workload_data_rate\":\"17.672 GB/s\",\"hardware\":\"A100\"}",
};
