/* test_workload.c - lowering a workload to ops and weight bytes, its layer
 * count and its training memory (core/workload.c; solvers.md §0.7 and H.8).
 *
 * Every expected value is worked out in the comment beside it. The reference
 * Transformer throughout: N = 1e9 parameters, 2 layers, hidden 1024, 8 heads,
 * fp16 (2 B), batch 2, sequence 512:
 *   34 s b h      = 34 x 512 x 2 x 1024      = 35,651,584 B per layer
 *   5 a s^2 b     = 5 x 8 x 512^2 x 2        = 20,971,520 B per layer
 *   2 s b h       = 2 x 512 x 2 x 1024       =  2,097,152 B per layer */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/model.h"
#include "core/solver.h"
#include "core/workload.h"
#include "solver_fixture.h"

static model_t ref_tx(void)
{
    model_t m = mk_model(WL_TRANSFORMER, 1e9, NAN, 0);
    m.layers = 2;
    m.hidden_dim = 1024;
    m.heads = 8;
    return m;
}

static lowered_graph lower_ok(const model_t *m, double b)
{
    lowered_graph g = {-1, -1};
    solver_error e;
    memset(&e, 0, sizeof e);
    int rc = workload_lower(m, b, &g, &e);
    cr_assert_eq(rc, 0, "%s: %s", workload_kind_name(m->kind), e.detail);
    return g;
}

/* ---- lowering ----------------------------------------------------------------- */

Test(workload, transformer_ops_default_to_two_n)
{
    model_t m = ref_tx();
    lowered_graph g = lower_ok(&m, 2);
    cr_expect_eq(g.total_ops, 2e9); /* 2 x 1e9 */
    cr_expect_eq(g.weight_bytes, 2e9);
    m.inference_flops = 3.5e9; /* given: used as is */
    g = lower_ok(&m, 0.5);
    cr_expect_eq(g.total_ops, 3.5e9);
    cr_expect_eq(g.weight_bytes, 5e8); /* int4: 1e9 x 0.5 */
    m.inference_flops = 0; /* zero is "not set" in mlsysim (truthiness): 2N again */
    g = lower_ok(&m, 2);
    cr_expect_eq(g.total_ops, 2e9);
}

Test(workload, moe_uses_active_params_for_ops_and_total_for_weights)
{
    /* Mixtral-like: 46.7 B total, 12.9 B active. ops = 2 x 12.9e9 = 2.58e10;
     * weights = 46.7e9 x 2 B = 9.34e10 B. */
    model_t m = mk_model(WL_SPARSE_TRANSFORMER, 46.7e9, NAN, 0);
    m.active_parameters = 12.9e9;
    m.layers = 32;
    lowered_graph g = lower_ok(&m, 2);
    cr_expect_eq(g.total_ops, 2 * 12.9e9);
    cr_expect_eq(g.weight_bytes, 46.7e9 * 2);
    m.inference_flops = 2.58e10;
    g = lower_ok(&m, 1);
    cr_expect_eq(g.total_ops, 2.58e10);
    cr_expect_eq(g.weight_bytes, 46.7e9);
}

Test(workload, cnn_uses_inference_flops)
{
    /* ResNet-50-like: 25.6 M params, 8.2 GFLOP: ops 8.2e9, weights 25.6e6 x 4 B (fp32). */
    model_t m = mk_model(WL_CNN, 25.6e6, 8.2e9, 0);
    lowered_graph g = lower_ok(&m, 4);
    cr_expect_eq(g.total_ops, 8.2e9);
    cr_expect_eq(g.weight_bytes, 25.6e6 * 4);
}

Test(workload, ssm_like_transformer)
{
    model_t m = mk_model(WL_SSM, 130e6, NAN, 0);
    m.layers = 24;
    lowered_graph g = lower_ok(&m, 2);
    cr_expect_eq(g.total_ops, 260e6);
    cr_expect_eq(g.weight_bytes, 260e6);
}

Test(workload, diffusion_multiplies_by_denoising_steps)
{
    /* Stable-Diffusion-like: 20 GFLOP per step x 50 steps = 1e12 flop;
     * without inference_flops: 2 x 860e6 x 50 = 8.6e10. Weights 860e6 x 2 B. */
    model_t m = mk_model(WL_DIFFUSION, 860e6, 20e9, 0);
    m.denoising_steps = 50;
    lowered_graph g = lower_ok(&m, 2);
    cr_expect_eq(g.total_ops, 1e12);
    cr_expect_eq(g.weight_bytes, 1.72e9);
    m.inference_flops = NAN;
    g = lower_ok(&m, 2);
    cr_expect_eq(g.total_ops, 8.6e10);
}

Test(workload, generic_with_parameters)
{
    /* parameters, no flops: 2N; with flops: flops. */
    model_t m = mk_model(WL_GENERIC, 1e4, NAN, 0);
    lowered_graph g = lower_ok(&m, 4);
    cr_expect_eq(g.total_ops, 2e4);
    cr_expect_eq(g.weight_bytes, 4e4);
    m.inference_flops = 5.4e5;
    g = lower_ok(&m, 4);
    cr_expect_eq(g.total_ops, 5.4e5);
}

Test(workload, generic_with_model_size_only)
{
    /* DLRM-like: model_size 100 GB, no parameters: weights = model_size whatever
     * the precision; ops = inference_flops or 0. */
    model_t m = mk_model(WL_GENERIC, NAN, NAN, 0);
    m.model_size = 1e11;
    lowered_graph g = lower_ok(&m, 0.5);
    cr_expect_eq(g.weight_bytes, 1e11);
    cr_expect_eq(g.total_ops, 0.0);
    m.inference_flops = 2e9;
    g = lower_ok(&m, 4);
    cr_expect_eq(g.weight_bytes, 1e11);
    cr_expect_eq(g.total_ops, 2e9);
}

Test(workload, generic_lower_prefers_parameters_over_model_size)
{
    /* Workload.lower only looks at model_size when parameters is None:
     * 1e6 params x 2 B = 2e6 B, not the stated 9e9 B. */
    model_t m = mk_model(WL_GENERIC, 1e6, NAN, 0);
    m.model_size = 9e9;
    lowered_graph g = lower_ok(&m, 2);
    cr_expect_eq(g.weight_bytes, 2e6);
    cr_expect_eq(g.total_ops, 2e6);
}

Test(workload, generic_without_parameters_or_size_is_an_error)
{
    model_t m = mk_model(WL_GENERIC, NAN, 1e9, 0);
    lowered_graph g;
    solver_error e;
    memset(&e, 0, sizeof e);
    cr_assert_eq(workload_lower(&m, 2, &g, &e), -1);
    cr_expect_eq(e.status, 400);
    cr_expect_str_eq(e.field, "model");
    cr_expect_str_eq(e.detail, "Workload has no 'parameters'; set parameters or model_size");
    m.kind = WL_EMBODIED; /* also lowered by the base class */
    cr_assert_eq(workload_lower(&m, 2, &g, &e), -1);
    cr_expect(strstr(e.detail, "EmbodiedWorkload") != NULL, "%s", e.detail);
}

Test(workload, embodied_lowers_like_base)
{
    model_t m = mk_model(WL_EMBODIED, 7e9, NAN, 0);
    m.layers = 32;
    lowered_graph g = lower_ok(&m, 2);
    cr_expect_eq(g.total_ops, 1.4e10);
    cr_expect_eq(g.weight_bytes, 1.4e10);
}

/* ---- layers and training-memory capability ---------------------------------- */

Test(workload, layer_count)
{
    model_t m = mk_model(WL_CNN, 1, 1, 0);
    cr_expect_eq(workload_layer_count(&m), 1); /* None -> 1 */
    m.layers = 50;
    cr_expect_eq(workload_layer_count(&m), 50);
    m.kind = WL_GENERIC; /* no `layers` attribute on the base class */
    cr_expect_eq(workload_layer_count(&m), 1);
    m.kind = WL_DIFFUSION;
    cr_expect_eq(workload_layer_count(&m), 1);
    m.kind = WL_TRANSFORMER;
    cr_expect_eq(workload_layer_count(&m), 50);
    m.kind = WL_EMBODIED;
    cr_expect_eq(workload_layer_count(&m), 50);
}

Test(workload, training_memory_only_for_transformer_family)
{
    static const struct {
        workload_kind k;
        bool want;
    } cases[] = {{WL_TRANSFORMER, true}, {WL_SPARSE_TRANSFORMER, true}, {WL_CNN, false},
                 {WL_SSM, false},        {WL_DIFFUSION, false},         {WL_GENERIC, false},
                 {WL_EMBODIED, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        model_t m = mk_model(cases[i].k, 1, 1, 0);
        cr_expect_eq(workload_has_training_memory(&m), cases[i].want, "%s", workload_kind_name(cases[i].k));
    }
}

/* ---- activation memory (H.8) ------------------------------------------------- */

static double act(int layers, double s, double b, double h, int heads, double bpe, activation_strategy st)
{
    double bytes = -1;
    solver_error e;
    memset(&e, 0, sizeof e);
    int rc = activation_memory(layers, s, b, h, heads, bpe, st, &bytes, &e);
    cr_assert_eq(rc, 0, "%s", e.detail);
    return bytes;
}

Test(workload, activation_memory_strategies)
{
    /* 2 layers x per-layer bytes (fp16: scale 1) */
    cr_expect_eq(act(2, 512, 2, 1024, 8, 2, ACT_NONE), 2 * (35651584.0 + 20971520.0)); /* 113,246,208 */
    cr_expect_eq(act(2, 512, 2, 1024, 8, 2, ACT_SELECTIVE), 2 * 35651584.0);        /*  71,303,168 */
    cr_expect_eq(act(2, 512, 2, 1024, 8, 2, ACT_FULL), 2 * 2097152.0);              /*   4,194,304 */
}

Test(workload, activation_memory_scales_with_bytes_over_two)
{
    /* fp32: scale 4/2 = 2; int4: 0.5/2 = 0.25. */
    cr_expect_eq(act(2, 512, 2, 1024, 8, 4, ACT_NONE), 2 * 113246208.0);
    cr_expect_eq(act(2, 512, 2, 1024, 8, 0.5, ACT_SELECTIVE), 71303168.0 / 4);
}

Test(workload, activation_attention_term_is_quadratic_in_seq)
{
    /* Doubling s to 1024: 34 s b h doubles (71,303,168), 5 a s^2 b quadruples
     * (83,886,080); one layer, batch 2, h 1024, 8 heads. */
    cr_expect_eq(act(1, 1024, 2, 1024, 8, 2, ACT_NONE), 71303168.0 + 83886080.0);
}

Test(workload, activation_memory_errors)
{
    double bytes;
    solver_error e;
    memset(&e, 0, sizeof e);
    cr_expect_eq(activation_memory(0, 512, 2, 1024, 8, 2, ACT_SELECTIVE, &bytes, &e), -1);
    cr_expect_str_eq(e.detail, "n_layers must be >= 1, got 0");
    memset(&e, 0, sizeof e);
    cr_expect_eq(activation_memory(2, 512, 2, 1024, 0, 2, ACT_NONE, &bytes, &e), -1);
    /* mlsysim's own message (physics/memory.py) */
    cr_expect(strstr(e.detail, "strategy='none' requires n_heads: the dominant 5*a*s^2*b attention term scales "
                               "with the head count (Korthikanti et al. 2023, Sec. 4.1).") != NULL,
              "%s", e.detail);
    /* heads do not matter for selective or full */
    cr_expect_eq(activation_memory(2, 512, 2, 1024, 0, 2, ACT_FULL, &bytes, &e), 0);
}

/* ---- TransformerWorkload.training_memory --------------------------------------- */

static training_memory_params ref_params(void)
{
    training_memory_params p = {.batch_size = 2, .seq_len = 512, .bytes_per_element = 2, .adam = true,
                                .strategy = ACT_NONE, .zero_stage = 0, .dp_size = 1, .is_lora = false,
                                .lora_rank = 16};
    return p;
}

static double tm(const model_t *m, const training_memory_params *p)
{
    double bytes = -1;
    solver_error e;
    memset(&e, 0, sizeof e);
    int rc = workload_training_memory(m, p, &bytes, &e);
    cr_assert_eq(rc, 0, "%s", e.detail);
    return bytes;
}

#define ACT_NONE_REF 113246208.0
#define ACT_SEL_REF 71303168.0

Test(workload, training_memory_adam_none)
{
    /* weights 2e9 + grads 2e9 + Adam 12 B x 1e9 + act (none) */
    model_t m = ref_tx();
    training_memory_params p = ref_params();
    cr_expect_eq(tm(&m, &p), 16e9 + ACT_NONE_REF);
    p.strategy = ACT_SELECTIVE;
    cr_expect_eq(tm(&m, &p), 16e9 + ACT_SEL_REF);
}

Test(workload, training_memory_sgd)
{
    /* SGD state is 4 B/param: 2e9 + 2e9 + 4e9 */
    model_t m = ref_tx();
    training_memory_params p = ref_params();
    p.adam = false;
    cr_expect_eq(tm(&m, &p), 8e9 + ACT_NONE_REF);
}

Test(workload, training_memory_fp32)
{
    /* fp32: weights 4e9 + grads 4e9 + Adam 12e9 (always 12 B) + act x2 */
    model_t m = ref_tx();
    training_memory_params p = ref_params();
    p.bytes_per_element = 4;
    cr_expect_eq(tm(&m, &p), 20e9 + 2 * ACT_NONE_REF);
}

Test(workload, training_memory_zero_stages)
{
    /* dp 8: stage 1 -> opt 12e9/8 = 1.5e9; stage 2 -> grads 2e9/8 = 0.25e9;
     * stage 3 -> weights 0.25e9. Activations are never sharded. */
    model_t m = ref_tx();
    training_memory_params p = ref_params();
    p.dp_size = 8;
    static const double want[4] = {16e9, 2e9 + 2e9 + 1.5e9, 2e9 + 0.25e9 + 1.5e9, 0.25e9 + 0.25e9 + 1.5e9};
    for (int s = 0; s <= 3; s++) {
        p.zero_stage = s;
        cr_expect_eq(tm(&m, &p), want[s] + ACT_NONE_REF, "stage %d", s);
    }
    /* dp_size 1 shards nothing at any stage */
    p.dp_size = 1;
    p.zero_stage = 3;
    cr_expect_eq(tm(&m, &p), 16e9 + ACT_NONE_REF);
}

Test(workload, training_memory_lora)
{
    /* adapters 2 x 16 x 1024 x (4 x 2) = 262,144 params; f = 262144 / 1e9;
     * grads 2e9 f = 524,288 B; Adam 12e9 f = 3,145,728 B; weights whole. */
    model_t m = ref_tx();
    training_memory_params p = ref_params();
    p.is_lora = true;
    cr_expect(fabs(tm(&m, &p) - (2e9 + 524288.0 + 3145728.0 + ACT_NONE_REF)) < 1e-3);
}

Test(workload, training_memory_lora_then_zero)
{
    /* LoRA first, then ZeRO-3 over 2: 1e9 + 262,144 + 1,572,864 (+ act). */
    model_t m = ref_tx();
    training_memory_params p = ref_params();
    p.is_lora = true;
    p.zero_stage = 3;
    p.dp_size = 2;
    cr_expect(fabs(tm(&m, &p) - (1e9 + 262144.0 + 1572864.0 + ACT_NONE_REF)) < 1e-3);
}

Test(workload, training_memory_lora_fraction_capped_at_one)
{
    /* A 1000-parameter model has fewer weights than its 262,144 adapter params:
     * f = min(262.144, 1) = 1, so grads 2000 B and Adam 12000 B stay whole. */
    model_t m = ref_tx();
    m.parameters = 1000;
    training_memory_params p = ref_params();
    p.is_lora = true;
    cr_expect_eq(tm(&m, &p), 2000.0 + 2000.0 + 12000.0 + ACT_NONE_REF);
}

Test(workload, training_memory_hidden_dim_defaults_to_4096)
{
    /* hidden_dim unset -> 4096 for both LoRA and activations:
     * adapters 2 x 16 x 4096 x 8 = 1,048,576 -> grads 2,097,152 B, Adam 12,582,912 B;
     * act = 2 x (34 x 512 x 2 x 4096 + 20,971,520) = 2 x 163,577,856 = 327,155,712 B. */
    model_t m = ref_tx();
    m.hidden_dim = 0;
    training_memory_params p = ref_params();
    p.is_lora = true;
    cr_expect(fabs(tm(&m, &p) - (2e9 + 2097152.0 + 12582912.0 + 327155712.0)) < 1e-3);
}

Test(workload, training_memory_moe_counts_total_parameters)
{
    /* Sparse: all 4e9 parameters are trained, not the 1e9 active ones:
     * 8e9 + 8e9 + 48e9 = 64e9 (+ act of the same shape as the reference). */
    model_t m = ref_tx();
    m.kind = WL_SPARSE_TRANSFORMER;
    m.parameters = 4e9;
    m.active_parameters = 1e9;
    training_memory_params p = ref_params();
    cr_expect_eq(tm(&m, &p), 64e9 + ACT_NONE_REF);
}
