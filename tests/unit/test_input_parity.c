/* test_input_parity.c - what the generic input parser keeps for mlsysim
 * parity beyond the value itself, through server/inputs.c's input_parse()
 * on the real solver descriptors:
 *  - a quantity's magnitude in the unit the client wrote (scaling reads the
 *    budget's .magnitude unconverted, solvers.md §17 [unit-dependent]);
 *  - an enum's own refusal message (training_memory's optimizer and
 *    activation_checkpointing, engine/solvers/training.py). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "core/solver.h"
#include "server/inputs.h"

static const input_desc *desc(const char *solver, const char *input)
{
    const solver_desc *s = solver_at((size_t)solver_find(solver));
    cr_assert_not_null(s, "solver %s", solver);
    int i = solver_input_index(s, input);
    cr_assert_geq(i, 0, "%s.%s", solver, input);
    return &s->inputs[i];
}

/* Parse `text` (a JSON value) as solver.input into in->v[0]; returns input_parse's result. */
static int parse(const char *solver, const char *input, const char *text, solver_inputs *in, api_error *err)
{
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);
    cr_assert_not_null(j, "bad JSON %s", text);
    memset(in, 0, sizeof *in);
    memset(err, 0, sizeof *err);
    int rc = input_parse(desc(solver, input), j, NULL, &in->v[0], &in->owned, "inputs.x", err);
    json_decref(j);
    input_store_free(&in->owned);
    return rc;
}

Test(input_parity, quantity_magnitude_in_the_written_unit)
{
    solver_inputs in;
    api_error err;
    /* "1 EFLOP": 1e18 flop, magnitude 1 (Pint's Q_("1 EFLOP").magnitude). */
    cr_assert_eq(parse("scaling", "compute_budget", "\"1 EFLOP\"", &in, &err), 0, "%s", err.detail);
    cr_expect_eq(in_num(&in, 0), 1e18);
    cr_expect_eq(in_magnitude(&in, 0), 1.0);
    /* "2.5e3 PFLOP": 2.5e18 flop, magnitude 2500. */
    cr_assert_eq(parse("scaling", "compute_budget", "\"2.5e3 PFLOP\"", &in, &err), 0, "%s", err.detail);
    cr_expect_eq(in_num(&in, 0), 2.5e18);
    cr_expect(fabs(in_magnitude(&in, 0) - 2500.0) < 1e-9, "magnitude %.17g", in_magnitude(&in, 0));
    /* In flop, or a bare number (flop), the magnitude is the SI value. */
    cr_assert_eq(parse("scaling", "compute_budget", "\"3.14e23 flop\"", &in, &err), 0, "%s", err.detail);
    cr_expect_eq(in_magnitude(&in, 0), 3.14e23);
    cr_assert_eq(parse("scaling", "compute_budget", "1e21", &in, &err), 0, "%s", err.detail);
    cr_expect_eq(in_magnitude(&in, 0), 1e21);
    /* A GPU-time budget was converted to flop upstream: its magnitude is in flop
     * (one day at 989 TFLOP/s x 0.40 = 3.417984e19). */
    cr_assert_eq(parse("scaling", "compute_budget", "\"1 day\"", &in, &err), 0, "%s", err.detail);
    cr_expect(fabs(in_magnitude(&in, 0) / 3.417984e19 - 1) < 1e-12, "magnitude %.17g", in_magnitude(&in, 0));
}

Test(input_parity, enum_refusal_messages)
{
    solver_inputs in;
    api_error err;
    /* TrainingMemoryModel lower-cases the optimizer, then names the supported ones. */
    cr_expect_neq(parse("training_memory", "optimizer", "\"Lion\"", &in, &err), 0);
    cr_expect_str_eq(err.detail, "Unknown optimizer 'lion'. Supported: adam, adamw, none, sgd");
    cr_expect_eq(err.status, 400);
    cr_expect_neq(parse("training_memory", "activation_checkpointing", "\"partial\"", &in, &err), 0);
    cr_expect_str_eq(err.detail, "activation_checkpointing must be 'none', 'selective', or 'full'");
    /* Known values still parse, in any case. */
    cr_expect_eq(parse("training_memory", "optimizer", "\"AdamW\"", &in, &err), 0, "%s", err.detail);
    cr_expect_eq(in_enum(&in, 0), 1);
    /* Inputs without their own message keep resolve_precision's form. */
    cr_expect_neq(parse("training_memory", "precision", "\"fp64\"", &in, &err), 0);
    cr_expect(strstr(err.detail, "precision 'fp64' is not supported. Supported precision values: ") != NULL, "%s",
              err.detail);
}

Test(input_parity, parallelism_precision_leaves_no_configuration)
{
    /* ParallelismOptimizer catches DistributedModel's resolve_precision error
     * for every split and ends with its own. */
    solver_inputs in;
    api_error err;
    cr_expect_neq(parse("parallelism", "precision", "\"fp64\"", &in, &err), 0);
    cr_expect_str_eq(err.detail, "No valid parallelism configurations found for this cluster size. (DistributedModel "
                                 "rejects every split: precision 'fp64' is not supported. Supported precision "
                                 "values: bf16, fp16, fp32, fp8, int4, int8, tf32)");
}
