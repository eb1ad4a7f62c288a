/* test_precision.c - numeric formats (core/precision.c, solvers.md §0.1) and
 * how single_node picks its peak rate from them (§1 step 1): the
 * precision_flops entry when the hardware lists the format, else peak_flops
 * with mlsysim's warning unless the format is fp16/bf16 or the dict is empty.
 *
 * Catalog figures used (embedded catalog, `current` edition) are asserted
 * before use, so a catalog update that changes them fails loudly here rather
 * than as a puzzling number. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/roofline.h"
#include "core/single_node.h"
#include "core/solver.h"

/* ---- the table ------------------------------------------------------------ */

Test(precision, table_keys_and_bytes)
{
    static const struct {
        const char *key;
        double bytes;
    } want[] = {{"fp32", 4}, {"tf32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"int8", 1}, {"int4", 0.5}};
    int n = 0;
    while (PRECISION_KEYS[n])
        n++;
    cr_assert_eq(n, 7, "%d precision keys", n);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int k = precision_find(want[i].key);
        cr_assert_geq(k, 0, "%s missing", want[i].key);
        cr_expect_str_eq(PRECISION_KEYS[k], want[i].key);
        cr_expect_eq(precision_bytes(k), want[i].bytes, "%s: %g B", want[i].key, precision_bytes(k));
    }
}

Test(precision, find_is_case_insensitive_and_strict)
{
    cr_expect_eq(precision_find("FP16"), precision_find("fp16"));
    cr_expect_eq(precision_find("Int4"), precision_find("int4"));
    cr_expect_eq(precision_find("fp4"), -1); /* not in mlsysim's table */
    cr_expect_eq(precision_find("fp16_sparse"), -1);
    cr_expect_eq(precision_find(""), -1);
    cr_expect_eq(precision_find(" fp16"), -1);
    cr_expect_eq(precision_find(NULL), -1);
}

Test(precision, unsupported_message)
{
    char buf[256];
    precision_unsupported_message("fp4", buf, sizeof buf);
    cr_expect_str_eq(buf, "precision 'fp4' is not supported. Supported precision values: "
                          "bf16, fp16, fp32, fp8, int4, int8, tf32");
    /* A short buffer truncates, never overflows. */
    char small[12];
    memset(small, 'x', sizeof small);
    precision_unsupported_message("fp4", small, sizeof small);
    cr_expect_eq(strlen(small), sizeof small - 1);
}

/* ---- peak selection through single_node -------------------------------------- */

static solver_inputs IN;
static solver_outputs MSG;

static catalog *cat;
static const catalog_edition *cur;

static void load(void)
{
    char err[512];
    cr_assert_eq(catalog_load(&cat, NULL, err, sizeof err), 0, "catalog_load: %s", err);
    cur = catalog_edition_find(cat, "current");
    cr_assert_not_null(cur);
}

static void unload(void) { catalog_free(cat); }

static const hw_node *cat_hw(const char *id)
{
    long i = edition_find(cur, catalog_kind_of(REC_HARDWARE), id);
    cr_assert_geq(i, 0, "%s not in catalog", id);
    return edition_record(cur, catalog_kind_of(REC_HARDWARE), (size_t)i);
}

/* A 1 M-parameter CNN of 1 GFLOP, 10 layers: compute-bound on every GPU here,
 * so the derated rate shows up directly. */
static model_t probe_model(void)
{
    model_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "probe");
    m.kind = WL_CNN;
    m.parameters = 1e6;
    m.inference_flops = 1e9;
    m.model_size = NAN;
    m.active_parameters = NAN;
    m.layers = 10;
    return m;
}

/* Roofline at `prec`, defaults otherwise (batch 1, efficiency 0.5, inference). */
static roofline_result solve_at(const hw_node *hw, const model_t *m, const char *prec)
{
    memset(&IN, 0, sizeof IN);
    memset(&MSG, 0, sizeof MSG);
    for (int i = 0; i < RL_N_INPUTS; i++) {
        IN.v[i].present = true;
        IN.v[i].num = ROOFLINE_INPUTS[i].def_num;
    }
    IN.v[RL_MODEL].ref = m;
    IN.v[RL_MODEL].ref_kind = REC_MODEL;
    IN.v[RL_HARDWARE].ref = hw;
    IN.v[RL_HARDWARE].ref_kind = REC_HARDWARE;
    IN.v[RL_PRECISION].enum_index = precision_find(prec);
    cr_assert_geq(IN.v[RL_PRECISION].enum_index, 0);
    roofline_result r;
    solver_error e;
    int rc = single_node_solve(&IN, &r, &MSG, &e);
    cr_assert_eq(rc, 0, "single_node_solve(%s, %s): %s", hw->name, prec, e.detail);
    return r;
}

Test(precision, a100_peak_per_precision, .init = load, .fini = unload)
{
    /* A100: peak_flops 312 TFLOP/s; precision_flops fp32 19.5, tf32 156, int8 624
     * (and fp16_sparse 624, which no request precision names). F_eff = peak x 0.5. */
    const hw_node *a100 = cat_hw("A100");
    cr_assert_eq(a100->peak_flops, 312e12);
    cr_assert_eq(a100->n_precisions, 4);
    model_t m = probe_model();
    static const struct {
        const char *prec;
        double peak;
        bool warns;
    } cases[] = {
        {"fp16", 312e12, false},  /* not in the dict: default peak, silently */
        {"bf16", 312e12, false},  /* same */
        {"fp32", 19.5e12, false}, {"tf32", 156e12, false}, {"int8", 624e12, false},
        {"fp8", 312e12, true},    /* fallback with warning */
        {"int4", 312e12, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        roofline_result r = solve_at(a100, &m, cases[i].prec);
        cr_expect_eq(r.flops_eff, cases[i].peak * 0.5, "%s: F_eff %.17g", cases[i].prec, r.flops_eff);
        cr_expect_eq(MSG.n_warnings, cases[i].warns ? 1 : 0, "%s: %d warnings", cases[i].prec, MSG.n_warnings);
    }
}

Test(precision, fallback_warning_text_b200, .init = load, .fini = unload)
{
    /* B200 lists fp8, fp4, int4 (in that order) and nothing for fp32: the default
     * peak 2250 TFLOP/s is used and mlsysim's warning names the available keys. */
    const hw_node *b200 = cat_hw("B200");
    cr_assert_eq(b200->peak_flops, 2250e12);
    model_t m = probe_model();
    roofline_result r = solve_at(b200, &m, "fp32");
    cr_expect_eq(r.flops_eff, 1125e12);
    cr_assert_eq(MSG.n_warnings, 1);
    cr_expect_str_eq(MSG.warnings[0], "Precision 'fp32' not in NVIDIA B200 precision_flops (available: ['fp8', "
                                      "'fp4', 'int4']); using default peak_flops (FP16). Results may be "
                                      "inaccurate.");
    /* int4 is listed: 9000 TOPS, no warning. */
    r = solve_at(b200, &m, "int4");
    cr_expect_eq(r.flops_eff, 4500e12);
    cr_expect_eq(MSG.n_warnings, 0);
}

Test(precision, no_warning_for_an_empty_dict, .init = load, .fini = unload)
{
    /* Cerebras CS-3 has no precision_flops at all: every format falls back
     * to peak_flops (125 PFLOP/s) without a warning. */
    const hw_node *cs3 = cat_hw("Cerebras_CS3");
    cr_assert_eq(cs3->n_precisions, 0);
    cr_assert_eq(cs3->peak_flops, 125e15);
    model_t m = probe_model();
    for (int k = 0; PRECISION_KEYS[k]; k++) {
        roofline_result r = solve_at(cs3, &m, PRECISION_KEYS[k]);
        cr_expect_eq(r.flops_eff, 62.5e15, "%s", PRECISION_KEYS[k]);
        cr_expect_eq(MSG.n_warnings, 0, "%s warned", PRECISION_KEYS[k]);
    }
}

Test(precision, fp16_key_in_dict_wins_over_peak)
{
    /* A hand-made node whose fp16 entry differs from peak_flops: the entry wins
     * (GB200 NVL72 lists fp16 and bf16 like this, equal to its peak). */
    hw_node h;
    memset(&h, 0, sizeof h);
    snprintf(h.name, sizeof h.name, "Dual");
    h.peak_flops = 1e14;
    h.n_precisions = 1;
    snprintf(h.precisions[0].name, sizeof h.precisions[0].name, "fp16");
    h.precisions[0].flops = 3e14;
    h.mem_capacity = 1e12;
    h.mem_bandwidth = 1e12;
    h.sram_capacity = h.sram_bandwidth = h.flash_capacity = h.flash_bandwidth = NAN;
    h.interconnect_bw = h.storage_bandwidth = h.storage_capacity = NAN;
    h.tdp = h.unit_cost = NAN;
    model_t m = probe_model();
    roofline_result r = solve_at(&h, &m, "fp16");
    cr_expect_eq(r.flops_eff, 1.5e14);
    r = solve_at(&h, &m, "bf16"); /* not listed: default peak, no warning */
    cr_expect_eq(r.flops_eff, 0.5e14);
    cr_expect_eq(MSG.n_warnings, 0);
    r = solve_at(&h, &m, "int8"); /* not listed, dict non-empty: warning */
    cr_expect_eq(MSG.n_warnings, 1);
    cr_expect(strstr(MSG.warnings[0], "Precision 'int8' not in Dual precision_flops (available: ['fp16'])") != NULL,
              "%s", MSG.warnings[0]);
}

Test(precision, bytes_per_element_scale_weights, .init = load, .fini = unload)
{
    /* Weights = 1e6 params x bytes/element: 4e6 (fp32, tf32), 2e6 (fp16, bf16),
     * 1e6 (fp8, int8), 5e5 (int4). The footprint shows it directly. */
    const hw_node *a100 = cat_hw("A100");
    model_t m = probe_model();
    static const struct {
        const char *prec;
        double weights;
    } cases[] = {{"fp32", 4e6}, {"tf32", 4e6}, {"fp16", 2e6}, {"bf16", 2e6},
                 {"fp8", 1e6},  {"int8", 1e6},  {"int4", 5e5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        roofline_result r = solve_at(a100, &m, cases[i].prec);
        cr_expect_eq(r.footprint, cases[i].weights, "%s: %.17g", cases[i].prec, r.footprint);
    }
}

Test(precision, long_available_list_is_truncated_safely)
{
    /* 16 long precision names overflow the 200-byte "available" buffer: the
     * warning is cut, not overrun (ASan would catch an overrun). */
    hw_node h;
    memset(&h, 0, sizeof h);
    snprintf(h.name, sizeof h.name, "Many");
    h.peak_flops = 1e14;
    h.n_precisions = HW_MAX_PRECISIONS;
    for (int i = 0; i < HW_MAX_PRECISIONS; i++) {
        snprintf(h.precisions[i].name, sizeof h.precisions[i].name, "custom_format_%02d", i);
        h.precisions[i].flops = 1e14;
    }
    h.mem_capacity = 1e12;
    h.mem_bandwidth = 1e12;
    h.sram_capacity = h.sram_bandwidth = h.flash_capacity = h.flash_bandwidth = NAN;
    h.interconnect_bw = h.storage_bandwidth = h.storage_capacity = NAN;
    h.tdp = h.unit_cost = NAN;
    model_t m = probe_model();
    solve_at(&h, &m, "fp32");
    cr_assert_eq(MSG.n_warnings, 1);
    const char *prefix = "Precision 'fp32' not in Many precision_flops (available: ['custom_format_00', ";
    cr_expect(strncmp(MSG.warnings[0], prefix, strlen(prefix)) == 0, "%s", MSG.warnings[0]);
    cr_expect_lt(strlen(MSG.warnings[0]), (size_t)SOLVER_MESSAGE_LEN);
}

/* ---- storage formats (weight_precision, kv_precision) ------------------------- */

#include "core/llm.h"

Test(precision, formats_extend_the_precisions)
{
    int n = 0;
    for (; FORMAT_KEYS[n]; n++) {
        cr_assert_str_eq(FORMAT_KEYS[n], PRECISION_FORMATS[n].key);
        cr_assert_eq(format_find(FORMAT_KEYS[n]), n);
        cr_assert(PRECISION_FORMATS[n].source && PRECISION_FORMATS[n].source[0]);
        /* /solvers shows the bits in the inputs' description. */
        char want[64];
        snprintf(want, sizeof want, "%s %g", FORMAT_KEYS[n], PRECISION_FORMATS[n].bits);
        cr_expect(strstr(LLM_FORMAT_BITS, want) != NULL, "LLM_FORMAT_BITS lacks \"%s\"", want);
    }
    cr_assert_eq(n, format_count());
    for (int i = 0; i < PRECISION_COUNT; i++) {
        cr_assert_str_eq(FORMAT_KEYS[i], PRECISION_KEYS[i]);
        cr_assert_eq(format_bytes(i), precision_bytes(i), "%s", FORMAT_KEYS[i]);
    }
    cr_assert_null(PRECISION_KEYS[PRECISION_COUNT]);
    cr_expect_eq(format_bytes(format_find("Q8_0")), 34.0 / 32.0);
    cr_expect_eq(format_bytes(format_find("nvfp4")), (4.0 + 8.0 / 16.0) / 8.0);
    cr_expect_eq(format_bytes(format_find("mxfp4")), (4.0 + 8.0 / 32.0) / 8.0);
    cr_expect_eq(format_bytes(format_find("int4_g128")), (4.0 + 16.0 / 128.0) / 8.0);
    cr_expect_eq(format_find("fp7"), -1);
}
