/* moe_routing.c - mlsysim MoERoutingModel (engine/solvers/distributed.py):
 * a mixture-of-experts model under routing imbalance. A router that
 * overloads hot experts behaves as if each token activated top_k x f experts
 * (at most all of them), which inflates active parameters and routed token
 * traffic alike; with expert parallelism (ep_size > 1) the share
 * (ep - 1)/ep of that traffic crosses ranks, priced as an all-to-all over
 * the fleet's fabric when a fleet is given. Formulas: reference/solvers.md
 * §19; all-to-all §H.4; routing after Fedus et al. (2022). */
#include <math.h>
#include <stdio.h>

#include "core/comm.h"
#include "core/numfmt.h"
#include "core/precision.h"
#include "core/solver.h"

enum { I_MODEL, I_BATCH, I_SEQ, I_PRECISION, I_EP, I_IMBALANCE, I_FLEET, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Mixture-of-experts workload (SparseTransformerWorkload: Mixtral_8x7B, "
                                "DeepSeek_V3, ...)"},
    [I_BATCH] = {.name = "batch_size", .kind = IN_INTEGER, .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true,
                 .int_max = 1e12, .description = "Sequences per step"},
    [I_SEQ] = {.name = "seq_len", .kind = IN_INTEGER, .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true,
               .int_max = 1e9, .description = "Tokens per sequence"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS, .description = "Width of a routed activation element"},
    [I_EP] = {.name = "ep_size", .kind = IN_INTEGER, .has_default = true, .def_num = 1, .check = CHECK_AT_LEAST,
              .lo = 1, .lo_is_int = true, .int_max = 1e9,
              .description = "Expert-parallel group size (1: no all-to-all)"},
    [I_IMBALANCE] = {.name = "routing_imbalance_factor", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0,
                     .description = "1 = balanced routing; above 1 approximates hot experts (>= 1)"},
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER), .nullable = true,
                 .description = "Cluster whose fabric carries the all-to-all (null: not priced)"},
};

/* mlsysim checks the factor as a range with an infinite top, after the
 * other bounds; its message names the range. */
static int check_imbalance(const solver_inputs *in, solver_error *err)
{
    double f = in_num(in, I_IMBALANCE);
    if (f >= 1.0 && f <= INFINITY)
        return 0;
    char got[40];
    if (in_was_int(in, I_IMBALANCE))
        snprintf(got, sizeof got, "%.0f", f); /* Python prints an int as written */
    else
        fmt_pyrepr(got, sizeof got, f);
    return solver_fail(err, "routing_imbalance_factor", "routing_imbalance_factor must be in [1.0, inf], got %s", got);
}

static const char *const IMBALANCE_INPUTS[] = {"routing_imbalance_factor", NULL};
static const input_constraint CONSTRAINTS[] = {
    {.rule = "routing_imbalance_factor >= 1", .inputs = IMBALANCE_INPUTS, .check = check_imbalance},
};

enum { O_EXPERTS, O_PARAMS, O_MULTIPLIER, O_DISPATCH, O_A2A, O_EP, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_EXPERTS] = {.name = "effective_active_experts", .kind = OUT_NUMBER, .unit = "",
                   .description = "min(experts, top_k x imbalance)"},
    [O_PARAMS] = {.name = "effective_active_parameters", .kind = OUT_NUMBER, .unit = "",
                  .description = "Active parameters x multiplier (a count)"},
    [O_MULTIPLIER] = {.name = "active_parameter_multiplier", .kind = OUT_NUMBER, .unit = "",
                      .description = "Effective active experts / top_k"},
    [O_DISPATCH] = {.name = "token_dispatch", .kind = OUT_NUMBER, .unit = "B",
                    .description = "Routed bytes that cross expert-parallel ranks"},
    [O_A2A] = {.name = "all_to_all_latency", .kind = OUT_NUMBER, .unit = "ms",
               .description = "All-to-all time (null without a fleet or with ep_size 1)", .nullable = true},
    [O_EP] = {.name = "ep_size", .kind = OUT_INTEGER, .unit = "", .description = "Expert-parallel group size"},
};

static int run_moe_routing(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    if (m->kind != WL_SPARSE_TRANSFORMER || m->experts < 1 || isnan(m->active_parameters))
        return solver_fail(err, "model",
                           "AttributeError: '%s' object has no attribute 'active_experts_per_token' (model '%s' "
                           "is a %s: moe_routing needs a SparseTransformerWorkload with experts and "
                           "active_parameters)",
                           workload_kind_name(m->kind), m->name, workload_kind_name(m->kind));
    const double ep = in_num(in, I_EP), f = in_num(in, I_IMBALANCE);

    /* 1-2. Imbalance acts like more experts per token. */
    double top_k = fmax(1.0, (double)m->active_experts_per_token);
    double experts = fmin((double)m->experts, top_k * f);
    double multiplier = experts / top_k;

    /* 3. Routed payload; a token stays local with probability 1/ep. */
    double hidden = m->hidden_dim > 0 ? m->hidden_dim : 4096;
    double payload = in_num(in, I_BATCH) * in_num(in, I_SEQ) * hidden * precision_bytes(in_enum(in, I_PRECISION)) *
                     top_k * multiplier;
    double routed = ep > 1 ? (ep - 1.0) / ep : 0.0;

    out_num(out, O_EXPERTS, experts);
    out_num(out, O_PARAMS, m->active_parameters * multiplier);
    out_num(out, O_MULTIPLIER, multiplier);
    out_num(out, O_DISPATCH, payload * routed);
    out_int(out, O_EP, ep);

    /* 4. All-to-all over the fabric, when there is one to price it on. */
    const fleet_t *fleet = in_fleet(in, I_FLEET);
    if (fleet && ep > 1) {
        double t;
        if (comm_all_to_all(payload, ep, comm_fabric_bw(&fleet->fabric), comm_inter_node_latency(&fleet->fabric),
                            "fleet", &t, err) != 0)
            return -1;
        out_num(out, O_A2A, t * 1e3);
    } else {
        out_null(out, O_A2A);
    }
    return 0;
}

static const char *const ALIASES[] = {"MoERoutingModel", NULL};

const solver_desc SOLVER_MOE_ROUTING = {
    .name = "moe_routing",
    .aliases = ALIASES,
    .title = "Mixture-of-experts routing: active parameters and all-to-all cost under imbalance",
    .description = "mlsysim MoERoutingModel. One imbalance factor inflates the experts each token activates "
                   "(capped at the expert count), the active parameters and the routed token bytes; with expert "
                   "parallelism the cross-rank share is priced as an all-to-all over the fleet's fabric.",
    .assumptions = "Effective active experts and the token dispatch volume from top-k routing and an imbalance "
                   "factor; all-to-all time on the fabric. Leaves out capacity-factor token dropping, expert "
                   "placement and overlap of dispatch with compute.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .run = run_moe_routing,
    .example_json = "{\"model\":\"Mixtral_8x7B\",\"batch_size\":8,\"seq_len\":4096,\"ep_size\":8,"
                    "\"routing_imbalance_factor\":1.5,\"fleet\":\"Research_256\"}",
};
