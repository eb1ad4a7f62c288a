/* test_training.c - the training solvers called directly, without the server:
 * training_memory (reference/solvers.md §15), checkpoint (§16), distributed
 * (§18), moe_routing (§19), topology (§20), network_roofline (§4),
 * parallelism (§21) and the collectives of core/comm.c (§H).
 *
 * Records (accelerators, nodes, fabrics, fleets, workloads) are built by hand
 * with round numbers, so every expected value is a short calculation written
 * next to it; one case per branch. The catalog and golden cases run through
 * HTTP in tests/api/test_golden.c. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/comm.h"
#include "core/fleet.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/solver.h"
#include "solver_fixture.h"

/* ---- hand-made records ------------------------------------------------------ */

/* "Acc": 100 TFLOP/s, 80 GB at 10 TB/s, no dispatch tax, NVLink latency 1 us. */
static hw_node acc(void)
{
    hw_node h;
    memset(&h, 0, sizeof h);
    snprintf(h.name, sizeof h.name, "Acc");
    h.peak_flops = 1e14;
    h.mem_capacity = 80e9;
    h.mem_bandwidth = 1e13;
    h.sram_capacity = h.sram_bandwidth = h.flash_capacity = h.flash_bandwidth = NAN;
    h.storage_capacity = h.storage_bandwidth = h.interconnect_bw = NAN;
    h.has_nvlink = true;
    h.nvlink_bw = 1e11;
    h.nvlink_latency = 1e-6;
    h.tdp = h.unit_cost = NAN;
    return h;
}

/* `count` nodes of 8 Acc at 100 GB/s inside the node, on a 10 GB/s fabric
 * oversubscribed 2:1 (5 GB/s per node) with 10 us per hop. */
static fleet_t fleet_of(int count)
{
    fleet_t f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "TestFleet");
    f.node.accelerator = acc();
    f.node.accelerators_per_node = 8;
    f.node.intra_node_bw = 1e11;
    f.node.nics_per_node = 1;
    f.node.psus_per_node = 2;
    f.count = count;
    snprintf(f.fabric.name, sizeof f.fabric.name, "TestFabric");
    f.fabric.bandwidth = 1e10;
    f.fabric.latency = 1e-5;
    f.fabric.oversubscription_ratio = 2.0;
    f.mtbf_hours = NAN;
    return f;
}

/* A base Workload of 1e9 parameters doing 2 GFLOP per sample: no layers
 * (1 for the layer tax and TP), no hidden_dim (4096), footprint 3 x W in
 * training. Its local training step on Acc at efficiency 0.5, batch B:
 * T_c = 3 x 2e9 x B / 5e13 = 1.2e-4 B s; T_m = (2e9 + 0.2e9 B) / 1e13 =
 * 2e-4 + 2e-5 B s; layer tax 3 x 0.01 ms. */
static model_t generic1b(void)
{
    model_t m = mk_model(WL_GENERIC, 1e9, NAN, 0);
    m.inference_flops = 2e9;
    return m;
}

/* A transformer of 1.2e9 parameters, 12 layers, hidden 1024, 16 heads. */
static model_t transformer(void)
{
    model_t m = mk_model(WL_TRANSFORMER, 1.2e9, NAN, 0);
    m.layers = 12;
    m.hidden_dim = 1024;
    m.heads = 16;
    return m;
}

/* ======================================================================== */
/* comm.c (§H)                                                              */
/* ======================================================================== */

Test(comm, ring_allreduce)
{
    double t;
    solver_error e = {0};
    /* 2 x 3/4 x 1e9 / 1e10 + 2 x 3 x 1e-6 = 0.15 + 6e-6 */
    cr_assert_eq(comm_ring_allreduce(1e9, 4, 1e10, 1e-6, "fleet", &t, &e), 0);
    cr_expect(rel_eq(t, 0.150006));
    /* one rank: nothing to reduce, the bandwidth is not looked at */
    cr_assert_eq(comm_ring_allreduce(1e9, 1, 0, 1e-6, "fleet", &t, &e), 0);
    cr_expect_eq(t, 0.0);
    cr_assert_eq(comm_ring_allreduce(1e9, 2, 0, 1e-6, "fleet", &t, &e), -1);
    cr_expect_str_eq(e.detail, "bandwidth_bytes_s must be positive, got 0.0");
    cr_expect_str_eq(e.field, "fleet");
}

Test(comm, all_to_all_and_hierarchical)
{
    double t;
    solver_error e = {0};
    /* 3/4 x 1e9 / 1e10 + 3 x 1e-5 */
    cr_assert_eq(comm_all_to_all(1e9, 4, 1e10, 1e-5, "fleet", &t, &e), 0);
    cr_expect(rel_eq(t, 0.07503));
    /* one rank: 0 s, but the bandwidth is still checked */
    cr_assert_eq(comm_all_to_all(1e9, 1, 1e10, 1e-5, "fleet", &t, &e), 0);
    cr_expect_eq(t, 0.0);
    cr_expect_eq(comm_all_to_all(1e9, 1, -1, 1e-5, "fleet", &t, &e), -1);
    /* intra phases: 7/8 x 2e9 / 1e11 + 7 x 500 ns = 0.0175035 each;
     * inter: ring(2.5e8, 4, 5e9, 1e-5) = 0.075 + 6e-5 */
    cr_assert_eq(comm_hierarchical_allreduce(2e9, 4, 8, 1e11, 5e9, 1e-5, "fleet", &t, &e), 0);
    cr_expect(rel_eq(t, 2 * 0.0175035 + 0.07506), "%.17g", t);
    cr_expect_eq(comm_hierarchical_allreduce(2e9, 4, 8, 0, 5e9, 1e-5, "fleet", &t, &e), -1);
    cr_expect_str_eq(e.detail, "intra_node_bw must be positive, got 0.0");
}

Test(comm, bubble_and_latencies)
{
    cr_expect(rel_eq(comm_pipeline_bubble(4, 8, 1), 3.0 / 11.0));
    cr_expect(rel_eq(comm_pipeline_bubble(2, 4, 2), 1.0 / 9.0));
    cr_expect_eq(comm_pipeline_bubble(1, 1, 1), 0.0);
    fleet_t f = fleet_of(1);
    cr_expect_eq(comm_intra_node_latency(&f.node), 1e-6);
    f.node.accelerator.nvlink_latency = NAN;
    cr_expect_eq(comm_intra_node_latency(&f.node), 500e-9);
    f.node.accelerator.has_nvlink = false;
    cr_expect_eq(comm_intra_node_latency(&f.node), 500e-9);
    cr_expect_eq(comm_inter_node_latency(&f.fabric), 1e-5);
    f.fabric.latency = NAN;
    cr_expect_eq(comm_inter_node_latency(&f.fabric), 5e-6);
    cr_expect_eq(comm_fabric_bw(&f.fabric), 5e9);
}

/* ======================================================================== */
/* training_memory (§15)                                                    */
/* ======================================================================== */

static hw_node HW;
static model_t M;

static void training_memory_base(void)
{
    HW = acc();
    M = transformer();
    use_solver("training_memory");
    set_ref("hardware", REC_HARDWARE, &HW);
    set_ref("model", REC_MODEL, &M);
}

Test(training_memory, sharded_zero2_selective_every_output)
{
    /* p = 1.2e9 / (2 x 3 x 1) = 2e8; trainable 1e8; weights 4e8; grads 2e8;
     * Adam 1.2e9; ZeRO-2 over 4: opt 3e8, grads 5e7.
     * microbatch ceil(32 / (4 x 2)) = 4; stage layers ceil(12 / 3) = 4;
     * selective: 4 x 34 x 1000 x 4 x 1024 = 557,056,000.
     * buffers: 5e7 x 0.1 + 2 x 4 x 1000 x 1024 x 2 = 5e6 + 16,384,000. */
    training_memory_base();
    set_num("batch_size", 32);
    set_num("seq_len", 1000);
    set_num("tp_size", 2);
    set_num("pp_size", 3);
    set_num("dp_size", 4);
    set_num("zero_stage", 2);
    set_num("gradient_accumulation_steps", 2);
    set_num("trainable_fraction", 0.5);
    set_num("communication_buffer_fraction", 0.1);
    solve_ok();
    expect_num("weights", 4e8);
    expect_num("gradients", 5e7);
    expect_num("optimizer_state", 3e8);
    expect_num("activations", 557056000.0);
    expect_num("communication_buffers", 21384000.0);
    expect_num("total_memory", 1328440000.0);
    expect_num("available_memory", 80e9);
    expect_num("memory_utilization", 1328440000.0 / 80e9);
    cr_expect(flag("feasible"));
}

Test(training_memory, zero3_full_sgd_fp32_single_stage)
{
    /* b = 4; p = 1.2e9; weights 4.8e9 / 8 (ZeRO-3); grads 4.8e9 / 8; SGD 4.8e9 / 8.
     * microbatch ceil(10 / 8) = 2; full: 12 x 2 x 100 x 2 x 1024 x 2 = 9,830,400.
     * pp 1: buffers = grads x 0.05 only. */
    training_memory_base();
    set_num("batch_size", 10);
    set_num("seq_len", 100);
    set_enum("precision", "fp32");
    set_enum("optimizer", "sgd");
    set_enum("activation_checkpointing", "full");
    set_num("dp_size", 8);
    set_num("zero_stage", 3);
    solve_ok();
    expect_num("weights", 6e8);
    expect_num("gradients", 6e8);
    expect_num("optimizer_state", 6e8);
    expect_num("activations", 9830400.0);
    expect_num("communication_buffers", 3e7);
}

Test(training_memory, no_checkpointing_counts_attention_and_does_not_fit)
{
    /* none, fp16 (scale 1), microbatch ceil(64 / 8) = 8: per layer
     * 34 x s x b x h + 5 x heads x s^2 x b = 34 x 4096 x 8 x 1024 + 5 x 16 x 4096^2 x 8
     * = 1,140,850,688 + 10,737,418,240; x 12 layers = 142,539,227,136 B > 80 GB.
     * ZeRO 0 ignores dp: weights 2.4e9, grads 2.4e9, Adam 1.44e10; buffers 1.2e8. */
    training_memory_base();
    set_num("batch_size", 64);
    set_num("seq_len", 4096);
    set_enum("activation_checkpointing", "none");
    set_num("dp_size", 8);
    solve_ok();
    expect_num("activations", 142539227136.0);
    expect_num("optimizer_state", 1.44e10);
    expect_num("total_memory", 2.4e9 + 2.4e9 + 1.44e10 + 142539227136.0 + 1.2e8);
    cr_expect_not(flag("feasible"));
    set_enum("optimizer", "none");
    solve_ok();
    expect_num("optimizer_state", 0.0);
    set_enum("optimizer", "adamw");
    solve_ok();
    expect_num("optimizer_state", 1.44e10);
}

Test(training_memory, models_without_its_attributes_fail_as_in_python)
{
    /* TrainingMemoryModel reads parameters, layers, hidden_dim in turn: a CNN
     * has no hidden_dim (and may have no layers), a base Workload or a
     * diffusion model no layers, a size-only Workload no parameters. */
    training_memory_base();
    set_num("batch_size", 8);
    M = mk_model(WL_CNN, 25.6e6, NAN, 0);
    M.layers = 50;
    solve_fails("model", "AttributeError: 'CNNWorkload' object has no attribute 'hidden_dim' (model 'CNNWorkload')");
    M.layers = 0;
    solve_fails_with("model", "TypeError: unsupported operand type(s) for /: 'NoneType' and 'int'");
    M = mk_model(WL_DIFFUSION, 1e9, NAN, 0);
    solve_fails_with("model", "AttributeError: 'DiffusionWorkload' object has no attribute 'layers'");
    M = mk_model(WL_GENERIC, 1e9, NAN, 0);
    solve_fails_with("model", "AttributeError: 'Workload' object has no attribute 'layers'");
    M = mk_model(WL_GENERIC, NAN, NAN, 0);
    M.model_size = 1e11;
    solve_fails_with("model", "AttributeError: 'NoneType' object has no attribute 'to'");
    /* An SSM has layers and hidden_dim: it is sized (selective needs no heads). */
    M = mk_model(WL_SSM, 1.3e8, NAN, 0);
    M.layers = 24;
    M.hidden_dim = 768;
    solve_ok();
}

Test(training_memory, errors)
{
    training_memory_base();
    set_num("batch_size", 8);
    set_num("zero_stage", 4);
    solve_fails("zero_stage", "zero_stage must be 0, 1, 2, or 3");
    set_num("zero_stage", 0);
    set_num("trainable_fraction", 1.5);
    solve_fails("trainable_fraction", "trainable_fraction must be in [0.0, 1.0], got 1.5");
    set_num("trainable_fraction", 1);
    set_num("ep_size", 0);
    solve_fails("ep_size", "ep_size must be >= 1, got 0");
    set_num("ep_size", 1);
    M.heads = 0;
    set_enum("activation_checkpointing", "none");
    cr_expect_neq(solve(), 0, "strategy none needs the head count");
    M = mk_model(WL_TRANSFORMER, NAN, NAN, 0);
    cr_expect_neq(solve(), 0, "a model without parameters");
}

/* ======================================================================== */
/* checkpoint (§16)                                                         */
/* ======================================================================== */

Test(checkpoint, adam_parallel_writers_capped_by_filesystem)
{
    /* 1e9 x 14 B; min(4 x 2 GB/s, 5 GB/s) = 5 GB/s; 2.8 s of a 1 h interval. */
    HW = acc();
    HW.has_storage = true;
    HW.storage_bandwidth = 2e9;
    M = mk_model(WL_TRANSFORMER, 1e9, NAN, 0);
    use_solver("checkpoint");
    set_ref("hardware", REC_HARDWARE, &HW);
    set_ref("model", REC_MODEL, &M);
    set_num("n_writers", 4);
    set_num("filesystem_limit_gbs", 5e9);
    set_num("checkpoint_interval_hours", 3600);
    solve_ok();
    expect_num("checkpoint_size", 14e9);
    expect_num("write_time", 2.8);
    expect_num("max_bandwidth_required", 2.0);
    cr_expect_not(flag("storage_bottleneck"));
    expect_num("mfu_penalty_pct", 2.8 / 3600);
}

Test(checkpoint, other_optimizers_no_storage_zero_interval)
{
    /* adamw is sized as SGD: 1e11 x 4 B at the 1 GB/s fallback = 400 s > 60 s;
     * an interval of 0 makes the penalty 1. */
    HW = acc();
    M = mk_model(WL_TRANSFORMER, 1e11, NAN, 0);
    use_solver("checkpoint");
    set_ref("hardware", REC_HARDWARE, &HW);
    set_ref("model", REC_MODEL, &M);
    set_enum("optimizer", "adamw");
    set_num("checkpoint_interval_hours", 0);
    solve_ok();
    expect_num("checkpoint_size", 4e11);
    expect_num("write_time", 400.0);
    expect_num("max_bandwidth_required", 1.0);
    cr_expect(flag("storage_bottleneck"));
    expect_num("mfu_penalty_pct", 1.0);
    /* default interval: 4 h */
    set_num("checkpoint_interval_hours", 4 * 3600.0);
    solve_ok();
    expect_num("mfu_penalty_pct", 400.0 / 14400.0);
}

Test(checkpoint, writers_and_limit_unbounded_as_mlsysim)
{
    /* mlsysim checks neither: 0 writers or a 0 GB/s limit divide by zero;
     * -1 writer of 2 GB/s is -2 GB/s, so 14e9 B take -7 s (no bottleneck,
     * penalty -7 / 3600). */
    HW = acc();
    HW.has_storage = true;
    HW.storage_bandwidth = 2e9;
    M = mk_model(WL_TRANSFORMER, 1e9, NAN, 0);
    use_solver("checkpoint");
    set_ref("hardware", REC_HARDWARE, &HW);
    set_ref("model", REC_MODEL, &M);
    set_num("checkpoint_interval_hours", 3600);
    set_num("n_writers", 0);
    solve_fails("n_writers", "the write bandwidth min(n_writers x storage bandwidth, filesystem_limit_gbs) is 0 "
                             "(mlsysim: ZeroDivisionError: float division by zero)");
    set_num("n_writers", 1);
    set_num("filesystem_limit_gbs", 0);
    solve_fails_with("filesystem_limit_gbs", "float division by zero");
    set_num("filesystem_limit_gbs", 500e9);
    set_num("n_writers", -1);
    solve_ok();
    expect_num("write_time", -7.0);
    cr_expect_not(flag("storage_bottleneck"));
    expect_num("mfu_penalty_pct", -7.0 / 3600);
}

/* ======================================================================== */
/* topology (§20)                                                           */
/* ======================================================================== */

static fabric_t FAB;

static void topology_case(const char *topology, double nodes)
{
    memset(&FAB, 0, sizeof FAB);
    FAB.bandwidth = 1e10;
    FAB.latency = NAN;
    FAB.oversubscription_ratio = 2.0;
    use_solver("topology");
    set_ref("fabric", REC_FABRIC, &FAB);
    set_enum("topology", topology);
    set_num("num_nodes", nodes);
}

Test(topology, every_topology)
{
    /* 10 GB/s links, 2:1 oversubscribed. */
    static const struct {
        const char *name;
        double n, beta, eff, bisection, hops;
    } cases[] = {
        {"fat_tree", 64, 1.0, 5.0, 160.0, 4.0},     /* 10 x 64/2 / 2 */
        {"dragonfly", 10, 0.85, 4.25, 21.25, 3.0},
        {"ring", 8, 0.25, 1.25, 5.0, 2.0},          /* beta 2/N, hops N/4 */
        {"ring", 0, 2.0, 10.0, 0.0, 0.0},           /* beta 2/max(N, 1) */
        {"torus_3d", 27, 2.0 / 3.0, 10.0 / 3.0, 45.0, 2.25}, /* 2 N^-1/3, 0.75 N^1/3 */
        {"hypercube", 16, 1.0, 5.0, 40.0, 4.0},     /* not modelled: fat-tree figures */
        {"mesh", 16, 1.0, 5.0, 40.0, 4.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        topology_case(cases[i].name, cases[i].n);
        solve_ok();
        expect_num("bisection_bw_fraction", cases[i].beta);
        expect_num("effective_bw", cases[i].eff);
        expect_num("bisection_bw", cases[i].bisection);
        expect_num("hops_avg", cases[i].hops);
    }
}

Test(topology, torus_of_no_nodes)
{
    topology_case("torus_3d", 0);
    solve_fails("num_nodes", "ZeroDivisionError: 0.0 cannot be raised to a negative power (torus_3d with num_nodes 0)");
}

Test(topology, negative_node_counts_unchecked_as_mlsysim)
{
    /* mlsysim bounds nothing: fat-tree with -1 node: bisection 10 x 1 x -1 / 2 / 2
     * = -2.5 GB/s; a ring of -4: beta 2 / max(-4, 1) = 2, effective 10 x 2 / 2 =
     * 10, bisection 10 x 2 x -4 / 2 / 2 = -20, hops -4 / 4 = -1. A 3D torus
     * would need a complex beta. */
    topology_case("fat_tree", -1);
    solve_ok();
    expect_num("bisection_bw", -2.5);
    expect_num("hops_avg", 4.0);
    topology_case("ring", -4);
    solve_ok();
    expect_num("bisection_bw_fraction", 2.0);
    expect_num("effective_bw", 10.0);
    expect_num("bisection_bw", -20.0);
    expect_num("hops_avg", -1.0);
    topology_case("torus_3d", -8);
    solve_fails_with("num_nodes", "complex number");
}

Test(topology, names_match_the_table)
{
    /* The enum's values are the rows of the table, in order (run() indexes both). */
    use_solver("topology");
    const input_desc *d = &S->inputs[solver_input_index(S, "topology")];
    for (int i = 0; d->enum_values[i]; i++) {
        topology_case(d->enum_values[i], 64);
        solve_ok();
    }
    topology_case("torus_3d", 64);
    solve_ok();
    expect_num("hops_avg", 0.75 * pow(64, 1.0 / 3.0));
}

/* ======================================================================== */
/* network_roofline (§4)                                                    */
/* ======================================================================== */

static fleet_t FLEET;

static void network_roofline_base(void)
{
    FLEET = fleet_of(4); /* 32 Acc: 3.2 PFLOP/s; 5 GB/s bisection */
    M = mk_model(WL_TRANSFORMER, 1e9, NAN, 0);
    use_solver("network_roofline");
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_ref("model", REC_MODEL, &M);
}

Test(network_roofline, network_bound_every_output)
{
    /* sync 2 x 1e9 x 2 = 4e9 B over 5 GB/s = 0.8 s; 6e9 flop at 1.6e15 = 3.75 us. */
    network_roofline_base();
    solve_ok();
    expect_num("latency", 800.0);
    expect_num("latency_compute", 3.75e-3);
    expect_num("latency_memory", 800.0);
    expect_num("latency_overhead", 0.0);
    expect_num("throughput", 1.25);
    expect_str("bottleneck", "Network");
    expect_num("arithmetic_intensity", 1.5);
    expect_num("energy", 0.0);
    expect_num("memory_footprint", 4e9);
    expect_num("peak_flops_actual", 1600.0);
    expect_num("peak_bw_actual", 5.0);
    expect_num("mfu", 6e9 / 0.8 / 3.2e15);
    expect_num("hfu", 1.1 * 6e9 / 0.8 / 3.2e15);
    cr_expect(flag("feasible"));
    cr_expect(is_null("offload_spill_bytes"));
    cr_expect(is_null("offload_effective_bw"));
}

Test(network_roofline, compute_bound_with_a_precision_rate)
{
    /* fp8 at 200 TFLOP/s per Acc: fleet 6.4e15, derated 3.2e15; 6e9 flop -> 1.875 us;
     * sync 2e9 B over 1e16 / 2 B/s = 0.4 us: compute binds; mfu = 0.5, hfu 0.55. */
    network_roofline_base();
    FLEET.node.accelerator.n_precisions = 1;
    snprintf(FLEET.node.accelerator.precisions[0].name, sizeof FLEET.node.accelerator.precisions[0].name, "fp8");
    FLEET.node.accelerator.precisions[0].flops = 2e14;
    FLEET.fabric.bandwidth = 1e16;
    set_enum("precision", "fp8");
    solve_ok();
    expect_str("bottleneck", "Compute");
    expect_num("latency", 1.875e-3);
    expect_num("arithmetic_intensity", 3.0);
    expect_num("peak_flops_actual", 3200.0);
    expect_num("mfu", 0.5);
    expect_num("hfu", 0.55);
}

Test(network_roofline, respelled_precision_misses_the_table)
{
    /* Upstream looks "FP8" up as written before resolve_precision: no key, so
     * the default 100 TFLOP/s per Acc (fleet 3.2e15, derated 1.6e15), while the
     * bytes are fp8's 1: sync 2e9 B over 1e16 / 2 B/s = 0.4 us; 6e9 flop -> 3.75 us. */
    network_roofline_base();
    FLEET.node.accelerator.n_precisions = 1;
    snprintf(FLEET.node.accelerator.precisions[0].name, sizeof FLEET.node.accelerator.precisions[0].name, "fp8");
    FLEET.node.accelerator.precisions[0].flops = 2e14;
    FLEET.fabric.bandwidth = 1e16;
    set_enum("precision", "fp8");
    slot("precision")->enum_respelled = true;
    solve_ok();
    expect_num("peak_flops_actual", 1600.0);
    expect_num("latency", 3.75e-3);
    expect_num("memory_footprint", 2e9);
    expect_num("mfu", 0.5);
}

Test(network_roofline, needs_a_parameter_count)
{
    network_roofline_base();
    M = mk_model(WL_GENERIC, NAN, NAN, 0);
    M.model_size = 1e9;
    solve_fails("model", "NetworkRooflineModel requires a workload with a parameter count.");
}

/* ======================================================================== */
/* moe_routing (§19)                                                        */
/* ======================================================================== */

static void moe_base(void)
{
    M = mk_model(WL_SPARSE_TRANSFORMER, 8e9, NAN, 0);
    M.active_parameters = 2e9;
    M.experts = 8;
    M.active_experts_per_token = 2;
    M.hidden_dim = 1024;
    use_solver("moe_routing");
    set_ref("model", REC_MODEL, &M);
    set_num("batch_size", 4);
    set_num("seq_len", 100);
}

Test(moe_routing, imbalance_and_all_to_all)
{
    /* top-2 x 1.5 = 3 experts (multiplier 1.5); 3e9 active parameters;
     * payload 4 x 100 x 1024 x 2 x 2 x 1.5 = 2,457,600 B; 3/4 crosses ranks;
     * all-to-all over 5 GB/s: 0.75 x 2,457,600 / 5e9 + 3 x 10 us. */
    moe_base();
    FLEET = fleet_of(1);
    set_num("ep_size", 4);
    set_num("routing_imbalance_factor", 1.5);
    set_ref("fleet", REC_CLUSTER, &FLEET);
    solve_ok();
    expect_num("effective_active_experts", 3.0);
    expect_num("active_parameter_multiplier", 1.5);
    expect_num("effective_active_parameters", 3e9);
    expect_num("token_dispatch", 1843200.0);
    expect_num("all_to_all_latency", 0.39864);
    expect_num("ep_size", 4);
}

Test(moe_routing, capped_at_the_expert_count_and_unpriced)
{
    /* 2 x 10 = 20 > 8 experts: multiplier 4; no fleet: no all-to-all time;
     * ep 1: nothing crosses ranks. */
    moe_base();
    set_num("ep_size", 4);
    set_num("routing_imbalance_factor", 10);
    solve_ok();
    expect_num("effective_active_experts", 8.0);
    expect_num("active_parameter_multiplier", 4.0);
    cr_expect(is_null("all_to_all_latency"));
    FLEET = fleet_of(1);
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_num("ep_size", 1);
    solve_ok();
    expect_num("token_dispatch", 0.0);
    cr_expect(is_null("all_to_all_latency"));
}

Test(moe_routing, errors)
{
    moe_base();
    set_num("routing_imbalance_factor", 0.5);
    solve_fails("routing_imbalance_factor", "routing_imbalance_factor must be in [1.0, inf], got 0.5");
    /* an integer literal prints as Python prints an int */
    set_int("routing_imbalance_factor", 0);
    solve_fails("routing_imbalance_factor", "routing_imbalance_factor must be in [1.0, inf], got 0");
    set_num("routing_imbalance_factor", 1);
    M = transformer();
    solve_fails("model", "AttributeError: 'TransformerWorkload' object has no attribute 'active_experts_per_token' "
                         "(model 'TransformerWorkload' is a TransformerWorkload: moe_routing needs a "
                         "SparseTransformerWorkload with experts and active_parameters)");
}

/* ======================================================================== */
/* distributed (§18)                                                        */
/* ======================================================================== */

static void distributed_base(int nodes)
{
    FLEET = fleet_of(nodes);
    M = generic1b();
    use_solver("distributed");
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_ref("model", REC_MODEL, &M);
}

Test(distributed, hierarchical_dp_every_output)
{
    /* 32 Acc, dp 32, batch 256: local 8. Node: T_c = 9.6e-4 s > T_m = 3.6e-4 s;
     * latency 0.99 ms; footprint 3 x 2e9 B.
     * DP over 4 nodes of 8: 2 x (7/8 x 2e9 / 1e11 + 7 x 500 ns)
     * + ring(2e9 / 8, 4, 5e9, 10 us) = 0.035007 + 0.07506 s. */
    distributed_base(4);
    set_num("batch_size", 256);
    solve_ok();
    double t_dp = 0.035007 + 0.07506, step = 0.00099 + t_dp;
    expect_num("node_latency", 0.99);
    expect_num("node_memory_footprint", 6e9);
    cr_expect(flag("node_feasible"));
    expect_num("dp_communication_latency", t_dp * 1e3);
    expect_num("tp_communication_latency", 0.0);
    expect_num("ep_communication_latency", 0.0);
    expect_num("communication_latency", t_dp * 1e3);
    expect_num("pipeline_bubble_latency", 0.0);
    expect_num("bubble_fraction", 0.0);
    expect_num("step_latency_total", step * 1e3);
    expect_num("scaling_efficiency", 0.00099 / step);
    expect_num("effective_throughput", 256 / step);
    expect_num("parallelism.dp", 32);
    expect_num("parallelism.tp", 1);
    expect_num("parallelism.pp", 1);
    expect_num("parallelism.ep", 1);
    cr_expect_eq(OUT.n_warnings, 0);
}

Test(distributed, ring_dp_in_node_tp_congestion_accumulation_overlap_straggler)
{
    /* 8 Acc, tp 2: dp 4 <= 8 per node: ring(1e9, 4, 1e11, 1 us) = 0.015006 s.
     * batch 16: local 4; node T_c = 4.8e-4 s, latency 0.51 ms.
     * TP: ring(2 x 4 x 2048 x 4096 x 2, 2, 1e11, 1 us) x 1 layer = 0.00134417728 s.
     * congestion 2, accumulation 3: dp 0.030012 / 3 = 0.010004; tp 0.00268835456.
     * overlap 0.5: 0.51e-3 + 0.005002 + 0.00268835456; straggler x 1.5. */
    distributed_base(1);
    set_num("batch_size", 16);
    set_num("tp_size", 2);
    set_num("congestion_factor", 2);
    set_num("gradient_accumulation_steps", 3);
    set_num("overlap_comm", 1);
    set_num("overlap_efficiency", 0.5);
    set_num("straggler_factor", 1.5);
    solve_ok();
    double step = (0.51e-3 + 0.005002 + 0.00268835456) * 1.5;
    expect_num("node_latency", 0.51);
    expect_num("dp_communication_latency", 10.004);
    expect_num("tp_communication_latency", 2.68835456);
    expect_num("communication_latency", 10.004 + 2.68835456);
    expect_num("step_latency_total", step * 1e3);
    expect_num("scaling_efficiency", 0.51e-3 / step);
    expect_num("parallelism.dp", 4);
}

Test(distributed, tp_across_nodes_and_interleaved_bubble)
{
    /* 32 Acc, tp 16 > 8: TP over the fabric: ring(2 x 2 x 2048 x 4096 x 2, 16, 5e9, 10 us)
     * = 2 x 15/16 x 67,108,864 / 5e9 + 30 x 10 us. pp 2, m 4, v 2: bubble 1/9 of the
     * node latency (T_c = T_m = 2.4e-4 s: 0.27 ms). dp 1: no DP traffic. */
    distributed_base(4);
    set_num("batch_size", 2);
    set_num("tp_size", 16);
    set_num("pp_size", 2);
    set_num("microbatch_count", 4);
    set_num("v_stages", 2);
    solve_ok();
    double t_tp = 0.025165824 + 0.0003;
    expect_num("node_latency", 0.27);
    expect_num("dp_communication_latency", 0.0);
    expect_num("tp_communication_latency", t_tp * 1e3);
    expect_num("bubble_fraction", 1.0 / 9.0);
    expect_num("pipeline_bubble_latency", 0.03);
    expect_num("step_latency_total", (0.00027 + t_tp + 0.00003) * 1e3);
    expect_num("parallelism.dp", 1);
}

Test(distributed, expert_all_to_all)
{
    /* 32 Acc, ep 4: dp 8 within a node: ring(2e9, 8, 1e11, 1 us) = 0.035014 s.
     * batch 64: local 8 (node 0.99 ms). EP tokens 8 x 2048 x 4096 x 2 x top-1 x 1.5
     * = 201,326,592 B, all-to-all over 4 ranks at 5 GB/s: 0.0301989888 + 3 x 10 us. */
    distributed_base(4);
    set_num("batch_size", 64);
    set_num("ep_size", 4);
    set_num("moe_routing_imbalance_factor", 1.5);
    solve_ok();
    expect_num("dp_communication_latency", 35.014);
    expect_num("ep_communication_latency", 30.2289888);
    expect_num("step_latency_total", 0.99 + 35.014 + 30.2289888);
    expect_num("parallelism.ep", 4);
    cr_expect(traced_exactly("MoE Routing: expert-parallel traffic inflated by 1.50x for hot-expert imbalance."));
}

Test(distributed, idle_ranks_warn)
{
    distributed_base(4);
    set_num("batch_size", 4);
    solve_ok();
    cr_expect(warned_exactly("batch_size (4) < dp_size (32): some ranks will be idle. Using local_batch=1."));
    expect_num("node_latency", 0.25); /* local 1: T_m 2.2e-4 s > T_c 1.2e-4 s, + 0.03 ms */
}

Test(distributed, zero_stage_unchecked_as_mlsysim)
{
    /* mlsysim's DistributedModel passes zero_stage on unchecked; the
     * transformer's training memory shards at >= 1, >= 2, >= 3. Transformer
     * (1.2e9 params, 12 layers, h 1024, 16 heads), dp 32, local batch 8,
     * fp16, no recomputation: activations 12 x (34 x 2048 x 8 x 1024 + 5 x
     * 16 x 2048^2 x 8) = 39,057,358,848 B; states 2.4e9 + 2.4e9 + 14.4e9,
     * all / 32 from stage 3 on (0.6e9); none sharded below stage 1. */
    FLEET = fleet_of(4);
    M = transformer();
    use_solver("distributed");
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_ref("model", REC_MODEL, &M);
    set_num("batch_size", 256);
    set_num("zero_stage", 4);
    solve_ok();
    expect_num("node_memory_footprint", 39657358848.0);
    set_num("zero_stage", -1);
    solve_ok();
    expect_num("node_memory_footprint", 58257358848.0);
}

Test(distributed, infeasible_splits)
{
    distributed_base(4);
    set_num("tp_size", 64);
    solve_fails("tp_size", "Infeasible 4D Parallelism: TP(64) * PP(1) * EP(1) > Total(32)");
    set_num("tp_size", 3);
    solve_fails("tp_size", "Infeasible 4D Parallelism: TP(3) * PP(1) * EP(1) must divide total accelerators (32) "
                           "exactly.");
    set_num("tp_size", 0);
    solve_fails("tp_size", "tp_size must be >= 1, got 0");
    set_num("tp_size", 1);
    set_num("microbatch_count", 0);
    solve_fails("microbatch_count", "n_microbatches must be >= 1, got 0");
    set_num("microbatch_count", 1);
    set_num("v_stages", 0);
    solve_fails("v_stages", "v_stages must be >= 1, got 0");
}

/* ======================================================================== */
/* parallelism (§21)                                                        */
/* ======================================================================== */

/* step time of one split, priced by the distributed solver */
static double distributed_mfu(fleet_t *f, model_t *m, double batch, double tp, double pp, double *step_ms)
{
    const solver_desc *saved = S;
    use_solver("distributed");
    set_ref("fleet", REC_CLUSTER, f);
    set_ref("model", REC_MODEL, m);
    set_num("batch_size", batch);
    set_num("tp_size", tp);
    set_num("pp_size", pp);
    set_num("overlap_comm", 1);
    solve_ok();
    double mfu = num("scaling_efficiency") * 0.5;
    *step_ms = num("step_latency_total");
    S = saved;
    return mfu;
}

static void parallelism_base(double capacity)
{
    FLEET = fleet_of(2);
    FLEET.node.accelerators_per_node = 4; /* 8 Acc */
    FLEET.node.accelerator.mem_capacity = capacity;
    M = generic1b();
}

Test(parallelism, best_of_the_screened_splits)
{
    /* Screen: (2 x 2e9 + 12 x 1e9) / (tp x pp) <= 0.9 x 5e9 needs tp x pp >= 4.
     * tp in {1, 2, 4} (node size), pp in {1, 2, 4, 8}, tp x pp | 8:
     * (1,4) (1,8) (2,2) (2,4) (4,1) (4,2) pass: 6 priced. */
    parallelism_base(5e9);
    static const double splits[][2] = {{1, 4}, {1, 8}, {2, 2}, {2, 4}, {4, 1}, {4, 2}};
    double best = -1, best_tp = 0, best_pp = 0, best_step = 0;
    for (size_t i = 0; i < 6; i++) {
        double step;
        double mfu = distributed_mfu(&FLEET, &M, 64, splits[i][0], splits[i][1], &step);
        if (mfu > best) {
            best = mfu;
            best_tp = splits[i][0];
            best_pp = splits[i][1];
            best_step = step;
        }
    }
    use_solver("parallelism");
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_ref("model", REC_MODEL, &M);
    set_num("batch_size", 64);
    solve_ok();
    expect_num("total_searched", 6);
    expect_num("best_config.tp", best_tp);
    expect_num("best_config.pp", best_pp);
    expect_num("best_config.dp", 8 / (best_tp * best_pp));
    expect_num("best_mfu", best);
    expect_num("best_step_time", best_step);
    /* max_tp 2 leaves (1,4) (1,8) (2,2) (2,4); max_pp 2 then leaves (2,2) */
    set_num("max_tp", 2);
    solve_ok();
    expect_num("total_searched", 4);
    set_num("max_pp", 2);
    solve_ok();
    expect_num("total_searched", 1);
    expect_num("best_config.tp", 2);
    expect_num("best_config.pp", 2);
}

Test(parallelism, nothing_fits)
{
    /* 16e9 / 8 = 2e9 > 0.9 x 1e9 for every split */
    parallelism_base(1e9);
    use_solver("parallelism");
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_ref("model", REC_MODEL, &M);
    set_num("batch_size", 64);
    solve_fails("fleet", "No valid parallelism configurations found for this cluster size.");
}

Test(parallelism, bad_batch_or_efficiency_leave_no_configuration)
{
    /* mlsysim checks neither itself; DistributedModel rejects them for every
     * split and the search ends with its "no configuration" error. */
    parallelism_base(80e9);
    use_solver("parallelism");
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_ref("model", REC_MODEL, &M);
    set_num("batch_size", 0);
    solve_fails("batch_size", "No valid parallelism configurations found for this cluster size. (DistributedModel "
                              "rejects every split: batch_size must be >= 1, got 0)");
    cr_expect_eq(OUT.n_warnings, 0);
    set_num("batch_size", 64);
    set_num("efficiency", 1.5);
    solve_fails("efficiency", "No valid parallelism configurations found for this cluster size. (DistributedModel "
                              "rejects every split: efficiency must be in [1e-09, 1.0], got 1.5)");
    set_num("efficiency", 1e-9);
    solve_ok();
}

Test(parallelism, candidate_warnings_once_each)
{
    /* batch 1 on 8 Acc: every split with dp > 1 warns with its own dp; the
     * screen passes all 9 splits at 80 GB. */
    parallelism_base(80e9);
    use_solver("parallelism");
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_ref("model", REC_MODEL, &M);
    set_num("batch_size", 1);
    solve_ok();
    expect_num("total_searched", 9);
    cr_expect(warned_exactly("batch_size (1) < dp_size (8): some ranks will be idle. Using local_batch=1."));
    cr_expect(warned_exactly("batch_size (1) < dp_size (4): some ranks will be idle. Using local_batch=1."));
    cr_expect(warned_exactly("batch_size (1) < dp_size (2): some ranks will be idle. Using local_batch=1."));
    cr_expect_eq(OUT.n_warnings, 3, "dp 8, 4 and 2 warn once each, got %d", OUT.n_warnings);
}
