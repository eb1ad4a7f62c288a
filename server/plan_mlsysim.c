/* plan_mlsysim.c - mlsysim's mlsys.yaml plans, accepted unchanged and
 * scored as `mlsysim eval` scores them (mlsysim/cli/commands/eval.py,
 * core/evaluation.py SystemEvaluator):
 *
 *   version, name, workload {name, batch_size = 1, seq_len = 2048},
 *   hardware {name, nodes = 1, accelerators_per_node, intra_node_bw,
 *   fabric_bandwidth = "50 GB/s", precision = fp16, efficiency = 0.5},
 *   ops {region = US_Avg, duration_days = 30},
 *   constraints {assert: [{metric, min, max}]}
 *   (+ mlsysd's catalog and calibration).
 *
 * Each level is answered by the solver whose descriptor holds its
 * plan_role (core/solver.h); this file names no solver. One node: the
 * "node" solver, whose levels are feasibility {memory_used_gb,
 * memory_capacity_gb, memory_utilization} (FAIL when the footprint does not
 * fit: the plan is infeasible) and performance {latency (ms), throughput
 * (1/s), mfu}. nodes > 1: a fleet of nodes / accelerators_per_node nodes
 * of accelerators_per_node accelerators (intra_node_bw default: the
 * accelerator's NVLink, else its host link, else fabric_bandwidth) run by
 * the "fleet" solver with tp = pp = 1: performance {step_latency,
 * comm_overhead (ms), fleet_throughput (1/s)}, feasibility PASS as in
 * mlsysim. With a fleet and ops, the "macro" solver: macro {tco_usd,
 * carbon_footprint (t), energy_cost, capex (USD)}; otherwise macro is
 * SKIPPED. workload.seq_len is read and checked but, as in mlsysim, not
 * passed on. One difference: ops.region is passed to the "macro" solver as
 * its grid (mlsysim reads it and drops it). The scenario's answers are keyed
 * by the solvers' names.
 *
 * An assertion's metric must be one of those names (else a 400 naming
 * constraints.assert[i].metric); one not available for this plan (a fleet
 * plan's performance.latency) fails, as in mlsysim. min and max are numbers
 * in the metric's unit or strings with units ("1 s"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/constraint.h"
#include "server/plan_internal.h"

typedef enum { L_FEASIBILITY, L_PERFORMANCE, L_MACRO, L__N } level_id;
static const char *const LEVEL_NAMES[L__N] = {"feasibility", "performance", "macro"};

typedef struct {
    level_id level;
    const char *name;
    const char *unit;
} metric_desc;

enum {
    M_MEM_USED, M_MEM_CAP, M_MEM_UTIL, M_LATENCY, M_THROUGHPUT, M_MFU, M_STEP, M_COMM, M_FLEET_TP, M_TCO, M_CARBON,
    M_ENERGY_COST, M_CAPEX, M__N
};
static const metric_desc METRICS[M__N] = {
    [M_MEM_USED] = {L_FEASIBILITY, "memory_used_gb", "GB"},
    [M_MEM_CAP] = {L_FEASIBILITY, "memory_capacity_gb", "GB"},
    [M_MEM_UTIL] = {L_FEASIBILITY, "memory_utilization", ""},
    [M_LATENCY] = {L_PERFORMANCE, "latency", "ms"},
    [M_THROUGHPUT] = {L_PERFORMANCE, "throughput", "1/s"},
    [M_MFU] = {L_PERFORMANCE, "mfu", ""},
    [M_STEP] = {L_PERFORMANCE, "step_latency", "ms"},
    [M_COMM] = {L_PERFORMANCE, "comm_overhead", "ms"},
    [M_FLEET_TP] = {L_PERFORMANCE, "fleet_throughput", "1/s"},
    [M_TCO] = {L_MACRO, "tco_usd", "USD"},
    [M_CARBON] = {L_MACRO, "carbon_footprint", "t"},
    [M_ENERGY_COST] = {L_MACRO, "energy_cost", "USD"},
    [M_CAPEX] = {L_MACRO, "capex", "USD"},
};

typedef struct {
    bool have[M__N];
    double v[M__N];
    const char *status[L__N];
    char summary[L__N][160];
} scorecard;

static void set_metric(scorecard *sc, int m, double v)
{
    sc->have[m] = true;
    sc->v[m] = v;
}

bool plan_is_mlsysim(const json_t *plan)
{
    return json_object_get(plan, "workload") && json_object_get(plan, "hardware") && !json_object_get(plan, "scenarios");
}

/* The solver that answers one of mlsysim's plan levels: the one whose
 * descriptor holds plan_role `role` ("node", "fleet", "macro"); NULL with a
 * 500 in err when none does. */
static const solver_desc *role_solver(const char *role, api_error *err)
{
    for (size_t i = 0; i < solver_count(); i++) {
        const solver_desc *s = solver_at(i);
        if (s->plan_role && !strcmp(s->plan_role, role))
            return s;
    }
    api_fail(err, 500, "internal", "", "no solver answers mlsysim's %s level (core/solver.h plan_role)", role);
    return NULL;
}

/* mlsysim's names for the fields the front end names by input. */
static int rename_field(api_error *err, bool fleet)
{
    static const struct {
        const char *input, *field;
    } MAP[] = {{"inputs.model", "workload.name"},         {"inputs.hardware", "hardware.name"},
               {"inputs.batch_size", "workload.batch_size"}, {"inputs.precision", "hardware.precision"},
               {"inputs.efficiency", "hardware.efficiency"}, {"inputs.fleet", "hardware"},
               {"inputs.duration_days", "ops.duration_days"}, {"inputs.grid", "ops.region"}};
    for (size_t i = 0; i < sizeof MAP / sizeof MAP[0]; i++) {
        size_t n = strlen(MAP[i].input);
        if (!strncmp(err->field, MAP[i].input, n) && (!err->field[n] || err->field[n] == '.')) {
            char f[sizeof err->field];
            snprintf(f, sizeof f, "%s%s", MAP[i].field, fleet && i == 5 ? "" : err->field + n);
            memcpy(err->field, f, sizeof f);
            return -1;
        }
    }
    return -1;
}

static int get_int(const json_t *obj, const char *key, const char *prefix, long long def, long long *out,
                   api_error *err)
{
    const json_t *v = json_object_get(obj, key);
    *out = def;
    if (!v)
        return 0;
    char field[96];
    snprintf(field, sizeof field, "%s%s%s", prefix, *prefix ? "." : "", key);
    if (!json_is_integer(v) || json_integer_value(v) <= 0)
        return api_fail(err, 400, "invalid-input", field, "%s must be a whole number > 0", key);
    *out = json_integer_value(v);
    return 0;
}

static int get_string(const json_t *obj, const char *key, const char *prefix, bool required, const char **out,
                      api_error *err)
{
    const json_t *v = json_object_get(obj, key);
    char field[96];
    snprintf(field, sizeof field, "%s%s%s", prefix, *prefix ? "." : "", key);
    if (!v && !required)
        return 0;
    if (!json_is_string(v) || !*json_string_value(v))
        return api_fail(err, 400, v ? "invalid-input" : "missing-input", field, "%s must be a non-empty string", key);
    *out = json_string_value(v);
    return 0;
}

/* A bandwidth given as a number (GB/s) or a string with units, as the fleet's inline quantity. */
static json_t *bandwidth(const json_t *v, const char *field, api_error *err)
{
    double gbs;
    char msg[200] = "";
    int rc = constraint_number(v, "GB/s", &gbs, msg, sizeof msg);
    if (rc != 0 || !(gbs > 0)) {
        api_fail(err, 400, "invalid-input", field, "expected a positive bandwidth (\"50 GB/s\")%s%s", msg[0] ? ": " : "",
                 msg);
        return NULL;
    }
    char text[64];
    snprintf(text, sizeof text, "%.17g GB/s", gbs);
    return json_string(text);
}

static void add_envelope(json_t *body, const json_t *plan)
{
    if (json_object_get(plan, "catalog"))
        json_object_set(body, "catalog", json_object_get(plan, "catalog"));
    if (json_object_get(plan, "calibration"))
        json_object_set(body, "calibration", json_object_get(plan, "calibration"));
}

static double solved_num(const plan_solved *ps, const char *name, bool *ok)
{
    int i = solver_output_index(ps->r.s, name);
    if (i < 0 || ps->out->v[i].is_null || !isfinite(ps->out->v[i].num)) {
        *ok = false;
        return NAN;
    }
    return ps->out->v[i].num;
}

static void put_num_if(scorecard *sc, int m, const plan_solved *ps, const char *name, double scale)
{
    bool ok = true;
    double v = solved_num(ps, name, &ok);
    if (ok)
        set_metric(sc, m, v * scale);
}

/* The fleet mlsysim builds for nodes > 1 accelerators. */
static json_t *build_fleet(const json_t *hw, const hw_node *acc, long long nodes, api_error *err)
{
    long long apn;
    if (get_int(hw, "accelerators_per_node", "hardware", 1, &apn, err) != 0)
        return NULL;
    if (nodes % apn) {
        api_fail(err, 400, "invalid-input", "hardware.nodes",
                 "hardware.nodes must be divisible by hardware.accelerators_per_node (got %lld and %lld)", nodes, apn);
        return NULL;
    }
    const json_t *jf = json_object_get(hw, "fabric_bandwidth");
    json_t *fabric_bw = jf ? bandwidth(jf, "hardware.fabric_bandwidth", err) : json_string("50 GB/s");
    if (!fabric_bw)
        return NULL;
    json_t *intra;
    const json_t *ji = json_object_get(hw, "intra_node_bw");
    char text[64];
    if (ji) {
        intra = bandwidth(ji, "hardware.intra_node_bw", err);
    } else if (acc && acc->has_nvlink && isfinite(acc->nvlink_bw) && acc->nvlink_bw > 0) {
        snprintf(text, sizeof text, "%.17g GB/s", acc->nvlink_bw / 1e9);
        intra = json_string(text);
    } else if (acc && acc->has_interconnect && isfinite(acc->interconnect_bw) && acc->interconnect_bw > 0) {
        snprintf(text, sizeof text, "%.17g GB/s", acc->interconnect_bw / 1e9);
        intra = json_string(text);
    } else {
        intra = json_incref(fabric_bw);
    }
    if (!intra) {
        json_decref(fabric_bw);
        return NULL;
    }
    return json_pack("{s:{s:s, s:I, s:o}, s:I, s:{s:o}}", "node", "accelerator", acc ? acc->key : "", "accelerators_per_node",
                     (json_int_t)apn, "intra_node_bw", intra, "count", (json_int_t)(nodes / apn), "fabric", "bandwidth",
                     fabric_bw);
}

typedef struct {
    int metric;       /* METRICS index */
    bool has_min, has_max;
    double min, max;
    const json_t *src;
} mls_assert;

static int parse_asserts(const json_t *plan, mls_assert *as, size_t *n, api_error *err)
{
    const json_t *c = json_object_get(plan, "constraints");
    *n = 0;
    if (!c)
        return 0;
    if (!json_is_object(c))
        return api_fail(err, 400, "invalid-input", "constraints", "constraints is an object: {assert: [...]}");
    static const char *const KEYS[] = {"assert", NULL};
    if (plan_known_keys(c, KEYS, "constraints", err) != 0)
        return -1;
    const json_t *list = json_object_get(c, "assert");
    if (list && (!json_is_array(list) || json_array_size(list) > 32))
        return api_fail(err, 400, "invalid-input", "constraints.assert",
                        "assert is an array of at most 32 assertions {metric, min, max}");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *j = json_array_get(list, i);
        char prefix[64], field[96];
        snprintf(prefix, sizeof prefix, "constraints.assert[%zu]", i);
        if (!json_is_object(j))
            return api_fail(err, 400, "invalid-input", prefix,
                            "an assertion is {metric: performance.latency, max: 100} (min, max or both)");
        static const char *const AKEYS[] = {"metric", "min", "max", NULL};
        if (plan_known_keys(j, AKEYS, prefix, err) != 0)
            return -1;
        mls_assert *a = &as[*n];
        memset(a, 0, sizeof *a);
        a->src = j;
        const char *metric = json_string_value(json_object_get(j, "metric"));
        a->metric = -1;
        for (int m = 0; metric && m < M__N; m++) {
            char full[64];
            snprintf(full, sizeof full, "%s.%s", LEVEL_NAMES[METRICS[m].level], METRICS[m].name);
            if (!strcmp(full, metric))
                a->metric = m;
        }
        snprintf(field, sizeof field, "%s.metric", prefix);
        if (a->metric < 0) {
            char list_text[600] = "";
            size_t used = 0;
            for (int m = 0; m < M__N && used < sizeof list_text; m++)
                used += (size_t)snprintf(list_text + used, sizeof list_text - used, "%s%s.%s", m ? ", " : "",
                                         LEVEL_NAMES[METRICS[m].level], METRICS[m].name);
            return api_fail(err, 400, metric || json_object_get(j, "metric") ? "invalid-input" : "missing-input", field,
                            "metric must be one of mlsysim's: %s", list_text);
        }
        static const char *const BOUNDS[] = {"min", "max"};
        for (int b = 0; b < 2; b++) {
            const json_t *v = json_object_get(j, BOUNDS[b]);
            if (!v || json_is_null(v))
                continue;
            double x;
            char msg[200] = "";
            snprintf(field, sizeof field, "%s.%s", prefix, BOUNDS[b]);
            int rc = constraint_number(v, METRICS[a->metric].unit, &x, msg, sizeof msg);
            if (rc == -2)
                return api_fail(err, 400, "invalid-input", field, "%s must be a number%s%s", BOUNDS[b],
                                METRICS[a->metric].unit[0] ? " in " : "", METRICS[a->metric].unit);
            if (rc != 0 || !isfinite(x))
                return api_fail(err, 400, "invalid-input", field, "%s of %s: %s", BOUNDS[b], metric,
                                msg[0] ? msg : "must be finite");
            if (b == 0) {
                a->has_min = true;
                a->min = x;
            } else {
                a->has_max = true;
                a->max = x;
            }
        }
        (*n)++;
    }
    return 0;
}

static json_t *level_json(const scorecard *sc, level_id l)
{
    json_t *metrics = json_object();
    for (int m = 0; m < M__N; m++)
        if (METRICS[m].level == l && sc->have[m])
            json_object_set_new(metrics, METRICS[m].name, json_real(sc->v[m]));
    json_t *units = json_object();
    for (int m = 0; m < M__N; m++)
        if (METRICS[m].level == l && sc->have[m] && METRICS[m].unit[0])
            json_object_set_new(units, METRICS[m].name, json_string(METRICS[m].unit));
    return json_pack("{s:s, s:s, s:o, s:o}", "status", sc->status[l], "summary", sc->summary[l], "metrics", metrics,
                     "units", units);
}

/* mlsysim's checks and messages: "X (v) exceeds max (m)", "X (v) is below min (m)". */
static json_t *check_asserts(const scorecard *sc, const mls_assert *as, size_t n, int *failed)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++) {
        const mls_assert *a = &as[i];
        const metric_desc *md = &METRICS[a->metric];
        char name[64], expr[200] = "", why[300] = "";
        snprintf(name, sizeof name, "%s.%s", LEVEL_NAMES[md->level], md->name);
        size_t used = 0;
        if (a->has_min)
            used += (size_t)snprintf(expr + used, sizeof expr - used, "%s >= %.15g%s%s", name, a->min,
                                     md->unit[0] ? " " : "", md->unit);
        if (a->has_max)
            snprintf(expr + used, sizeof expr - used, "%s%s <= %.15g%s%s", used ? " and " : "", name, a->max,
                     md->unit[0] ? " " : "", md->unit);
        if (!expr[0])
            snprintf(expr, sizeof expr, "%s is available", name);
        bool ok = sc->have[a->metric];
        double v = sc->v[a->metric];
        if (!ok)
            snprintf(why, sizeof why, "%s is not available in evaluation metrics", name);
        else if (a->has_max && v > a->max) {
            ok = false;
            snprintf(why, sizeof why, "%s (%.15g) exceeds max (%.15g)", name, v, a->max);
        } else if (a->has_min && v < a->min) {
            ok = false;
            snprintf(why, sizeof why, "%s (%.15g) is below min (%.15g)", name, v, a->min);
        }
        json_t *aj = json_pack("{s:s, s:s, s:s, s:o, s:b}", "expression", expr, "metric", name, "unit", md->unit,
                               "actual", ok || sc->have[a->metric] ? json_real(v) : json_null(), "passed", ok);
        if (a->has_min)
            json_object_set_new(aj, "min", json_real(a->min));
        if (a->has_max)
            json_object_set_new(aj, "max", json_real(a->max));
        if (!ok)
            json_object_set_new(aj, "message", json_string(why));
        json_array_append_new(list, aj);
        *failed += !ok;
    }
    return list;
}

json_t *plan_mlsysim_evaluate(app *a, const json_t *plan, plan_status *st, api_error *err)
{
    static const char *const KEYS[] = {"version", "name", "workload", "hardware", "ops", "constraints",
                                       "catalog", "calibration", NULL};
    static const char *const WKEYS[] = {"name", "batch_size", "seq_len", NULL};
    static const char *const HKEYS[] = {"name",           "nodes",      "accelerators_per_node", "intra_node_bw",
                                        "fabric_bandwidth", "precision", "efficiency",            NULL};
    static const char *const OKEYS[] = {"region", "duration_days", NULL};
    const json_t *wl = json_object_get(plan, "workload"), *hw = json_object_get(plan, "hardware"),
                 *ops = json_object_get(plan, "ops");
    const json_t *ver = json_object_get(plan, "version");
    const char *name = NULL, *model = NULL, *hw_name = NULL, *precision = "fp16", *region = NULL;
    long long batch, seq, nodes;
    if (plan_known_keys(plan, KEYS, "", err) != 0)
        return NULL;
    if (!json_is_string(ver) && !json_is_integer(ver)) {
        api_fail(err, 400, ver ? "invalid-input" : "missing-input", "version", "version is a string (\"1\")");
        return NULL;
    }
    if (get_string(plan, "name", "", true, &name, err) != 0)
        return NULL;
    if (!json_is_object(wl) || !json_is_object(hw) || (ops && !json_is_object(ops))) {
        const char *f = !json_is_object(wl) ? "workload" : !json_is_object(hw) ? "hardware" : "ops";
        api_fail(err, 400, "invalid-input", f, "%s is an object", f);
        return NULL;
    }
    if (plan_known_keys(wl, WKEYS, "workload", err) != 0 || plan_known_keys(hw, HKEYS, "hardware", err) != 0 ||
        (ops && plan_known_keys(ops, OKEYS, "ops", err) != 0))
        return NULL;
    if (get_string(wl, "name", "workload", true, &model, err) != 0 ||
        get_int(wl, "batch_size", "workload", 1, &batch, err) != 0 ||
        get_int(wl, "seq_len", "workload", 2048, &seq, err) != 0 ||
        get_string(hw, "name", "hardware", true, &hw_name, err) != 0 ||
        get_int(hw, "nodes", "hardware", 1, &nodes, err) != 0 ||
        get_string(hw, "precision", "hardware", false, &precision, err) != 0 ||
        (ops && get_string(ops, "region", "ops", false, &region, err) != 0))
        return NULL;
    const json_t *jeff = json_object_get(hw, "efficiency"), *jdays = json_object_get(ops, "duration_days");
    if (jeff && (!json_is_number(jeff) || !(json_number_value(jeff) > 0) || json_number_value(jeff) > 1)) {
        api_fail(err, 400, "invalid-input", "hardware.efficiency", "efficiency must be a number in (0, 1]");
        return NULL;
    }
    if (jdays && (!json_is_number(jdays) || !(json_number_value(jdays) > 0))) {
        api_fail(err, 400, "invalid-input", "ops.duration_days", "duration_days must be a number > 0");
        return NULL;
    }
    double efficiency = jeff ? json_number_value(jeff) : 0.5, days = jdays ? json_number_value(jdays) : 30.0;
    mls_assert as[32];
    size_t n_as = 0;
    if (parse_asserts(plan, as, &n_as, err) != 0)
        return NULL;

    const solver_desc *node_solver = role_solver("node", err), *fleet_solver = NULL, *macro_solver = NULL;
    if (!node_solver || (nodes > 1 && !(fleet_solver = role_solver("fleet", err))) ||
        (nodes > 1 && ops && !(macro_solver = role_solver("macro", err))))
        return NULL;

    scorecard sc = {0};
    sc.status[L_MACRO] = "SKIPPED";
    snprintf(sc.summary[L_MACRO], sizeof sc.summary[L_MACRO], "No Ops config provided");
    json_t *entry = json_pack("{s:s, s:s, s:s}", "name", name, "kind", "mlsysim", "solver",
                              nodes == 1 ? node_solver->name : fleet_solver->name);
    json_t *answers = json_object();
    bool infeasible = false;

    /* the node solver, also for the accelerator a fleet is built of */
    json_t *body = json_pack("{s:s, s:{s:s, s:s, s:I, s:s, s:f}}", "solver", node_solver->name, "inputs", "model", model,
                             "hardware", hw_name, "batch_size", (json_int_t)batch, "precision", precision,
                             "efficiency", efficiency);
    add_envelope(body, plan);
    plan_solved ps;
    int rc = plan_solve(a, body, "", &ps, err);
    json_decref(body);
    if (rc != 0) {
        rename_field(err, false);
        goto fail;
    }
    if (nodes == 1) {
        bool fits = true;
        int fi = solver_output_index(ps.r.s, "feasible");
        fits = fi < 0 || ps.out->v[fi].is_null || ps.out->v[fi].num != 0;
        const hw_node *acc = in_hw(ps.in, solver_input_index(ps.r.s, "hardware"));
        bool ok = true;
        double used = solved_num(&ps, "memory_footprint", &ok), cap = acc ? acc->mem_capacity : NAN;
        if (ok) {
            set_metric(&sc, M_MEM_USED, used / 1e9);
            set_metric(&sc, M_MEM_CAP, cap / 1e9);
            set_metric(&sc, M_MEM_UTIL, used / cap);
        }
        sc.status[L_FEASIBILITY] = fits ? "PASS" : "FAIL";
        snprintf(sc.summary[L_FEASIBILITY], sizeof sc.summary[0], "%.1f GB / %.1f GB used", used / 1e9, cap / 1e9);
        put_num_if(&sc, M_LATENCY, &ps, "latency", 1);
        put_num_if(&sc, M_THROUGHPUT, &ps, "throughput", 1);
        put_num_if(&sc, M_MFU, &ps, "mfu", 1);
        int bi = solver_output_index(ps.r.s, "bottleneck");
        const char *bn = bi >= 0 && ps.out->v[bi].str ? ps.out->v[bi].str : "?";
        sc.status[L_PERFORMANCE] = fits ? "PASS" : "FAIL";
        snprintf(sc.summary[L_PERFORMANCE], sizeof sc.summary[0], "%s Bound%s", bn, fits ? "" : " (infeasible)");
        infeasible = !fits;
        json_object_set(answers, node_solver->name, ps.answer);
        plan_solved_free(&ps);
    } else {
        const hw_node *acc = in_hw(ps.in, solver_input_index(ps.r.s, "hardware"));
        json_t *fleet = build_fleet(hw, acc, nodes, err);
        plan_solved_free(&ps);
        if (!fleet)
            goto fail;
        body = json_pack("{s:s, s:{s:s, s:O, s:I, s:s, s:f, s:i, s:i}}", "solver", fleet_solver->name, "inputs", "model",
                         model, "fleet", fleet, "batch_size", (json_int_t)batch, "precision", precision, "efficiency",
                         efficiency, "tp_size", 1, "pp_size", 1);
        add_envelope(body, plan);
        rc = plan_solve(a, body, "", &ps, err);
        json_decref(body);
        if (rc != 0) {
            rename_field(err, true);
            json_decref(fleet);
            goto fail;
        }
        sc.status[L_FEASIBILITY] = "PASS";
        snprintf(sc.summary[L_FEASIBILITY], sizeof sc.summary[0], "Distributed Model Check Passed");
        put_num_if(&sc, M_STEP, &ps, "step_latency_total", 1);
        put_num_if(&sc, M_COMM, &ps, "communication_latency", 1);
        put_num_if(&sc, M_FLEET_TP, &ps, "effective_throughput", 1);
        bool ok = true;
        double scaling = solved_num(&ps, "scaling_efficiency", &ok);
        sc.status[L_PERFORMANCE] = "PASS";
        snprintf(sc.summary[L_PERFORMANCE], sizeof sc.summary[0], "Scaling Efficiency: %.1f%%", scaling * 100);
        json_object_set(answers, fleet_solver->name, ps.answer);
        plan_solved_free(&ps);
        if (ops) {
            body = json_pack("{s:s, s:{s:O, s:f}}", "solver", macro_solver->name, "inputs", "fleet", fleet, "duration_days",
                             days);
            if (region)
                json_object_set_new(json_object_get(body, "inputs"), "grid", json_string(region));
            add_envelope(body, plan);
            rc = plan_solve(a, body, "", &ps, err);
            json_decref(body);
            if (rc != 0) {
                rename_field(err, true);
                json_decref(fleet);
                goto fail;
            }
            put_num_if(&sc, M_TCO, &ps, "tco", 1);
            put_num_if(&sc, M_CARBON, &ps, "carbon_footprint", 1e-3);
            put_num_if(&sc, M_ENERGY_COST, &ps, "opex_energy", 1);
            put_num_if(&sc, M_CAPEX, &ps, "capex", 1);
            sc.status[L_MACRO] = "PASS";
            snprintf(sc.summary[L_MACRO], sizeof sc.summary[0], "TCO: $%.0f", sc.v[M_TCO]);
            json_object_set(answers, macro_solver->name, ps.answer);
            plan_solved_free(&ps);
        }
        json_decref(fleet);
    }
    json_object_set_new(entry, "levels",
                        json_pack("{s:o, s:o, s:o}", "feasibility", level_json(&sc, L_FEASIBILITY), "performance",
                                  level_json(&sc, L_PERFORMANCE), "macro", level_json(&sc, L_MACRO)));
    int failed = 0;
    json_object_set_new(entry, "assertions", check_asserts(&sc, as, n_as, &failed));
    *st = infeasible ? PLAN_INFEASIBLE : failed ? PLAN_FAIL : PLAN_PASS;
    json_object_set_new(entry, "status", json_string(PLAN_STATUS_NAMES[*st]));
    if (infeasible)
        json_object_set_new(entry, "infeasible_reason", json_string("the model does not fit in the accelerator's memory"));
    json_object_set_new(entry, "answer", answers);
    return entry;
fail:
    plan_solved_free(&ps);
    json_decref(entry);
    json_decref(answers);
    return NULL;
}
