/* solver_fixture.h - one solver called directly, without the server, the way
 * the generic layer calls it; shared by the unit tests of the solvers
 * (test_solvers.c, test_analysis.c, test_training.c, test_serving.c,
 * test_fleets.c).
 *
 * A test selects a solver with use_solver() (every input takes its default
 * through the server's own input_default(): a nullable input without a
 * default is present and null), sets the inputs it gives with set_*(), then
 * calls solve() (bound checks in table order, the descriptor's constraints,
 * then run(), as server/inputs.c and the handlers do) or solve_ok() /
 * solve_fails(), and reads the outputs by name. The records a test passes
 * by reference (hw_node, model_t, fleet_t, ...) are the test's: they must
 * outlive the solve() that reads them. mk_model() builds a model record;
 * the builders of the other records stay in each test file.
 *
 * State: the one call in progress lives in the globals below, which tests
 * may read (OUT.warnings, OUT.rows, ERR.detail) and poke through slot().
 * Each Criterion test runs in its own process (the default), so nothing
 * carries over between tests; within a test, use_solver() starts a fresh
 * call and solve() clears the outputs and the error.
 *
 * Failures of the helpers (an unknown solver, input, output, column or enum
 * value; a required input left unset; a null output read as a number) are
 * Criterion assertions that stop the test. The expect_* macros are macros so
 * that a failed comparison is reported at the test's line and the test goes
 * on. */
#ifndef MLSYSD_SOLVER_FIXTURE_H
#define MLSYSD_SOLVER_FIXTURE_H

#include <criterion/criterion.h>
#include <stdbool.h>

#include "core/fleet.h"
#include "core/model.h"
#include "core/solver.h"

/* The call in progress: the solver, its inputs, outputs and error. */
extern const solver_desc *S;
extern solver_inputs IN;
extern solver_outputs OUT;
extern solver_error ERR;

/* ---- inputs ---------------------------------------------------------------- */

/* Select a solver by name and fill every input's default. */
void use_solver(const char *name);

/* The slot of input `name`, marked as given by the client (present, not
 * defaulted, not null); other fields are left for the caller to fill. */
input_value *slot(const char *name);

/* A number; an integer input holding a whole number counts as written as an
 * integer literal (the server's messages print it as "2", not "2.0"). */
void set_num(const char *name, double v);
/* A number written as an integer literal, whatever the input's kind. */
void set_int(const char *name, double v);
void set_bool(const char *name, bool v);
/* One of the input's enum_values, spelled exactly. */
void set_enum(const char *name, const char *value);
/* JSON null (meaningful for a nullable input). */
void set_null(const char *name);
/* A catalog record of `kind`; set_hw and set_model for the common kinds. */
void set_ref(const char *name, record_kind kind, const void *rec);
void set_hw(const char *name, const hw_node *h);
void set_model(const char *name, const model_t *m);
/* A list of n items (an item's ref NULL: an unknown id kept by the solver). */
void set_list(const char *name, const input_item *items, int n);

/* A model record by hand: key and name are the kind's name (workload_kind_name),
 * then the parameters, the inference FLOPs per sample (NAN: not given) and the
 * layers (0: not given); model_size and active_parameters not given (NAN),
 * every other field zero. */
model_t mk_model(workload_kind kind, double params, double flops, int layers);

/* ---- solving ----------------------------------------------------------------- */

/* Every required input set (asserted), then as the server: each input's bound
 * check in table order, the constraints, run(). Returns 0 or -1 with ERR. */
int solve(void);
/* solve() must succeed. */
void solve_ok(void);
/* solve() must fail with status 400 on `field` with exactly `detail`. */
void solve_fails(const char *field, const char *detail);
/* Same, with a detail that contains `part`. */
void solve_fails_with(const char *field, const char *part);

/* ---- outputs ----------------------------------------------------------------- */

const output_value *out(const char *name);
/* The output's value; asserts it is not null. */
double num(const char *name);
bool flag(const char *name);
const char *str(const char *name);
bool is_null(const char *name);

/* Equal within 1e-12 relative: hand values are decimal, the solver's doubles
 * may differ from them in the last ulps. */
bool rel_eq(double a, double b);

/* A warning of the last solve() contains `part` / is exactly `text`; a trace
 * line is exactly `text`. */
bool warned(const char *part);
bool warned_exactly(const char *text);
bool traced_exactly(const char *text);
/* Whether a trace line contains part. */
bool traced(const char *part);

/* Cell `column` of row r of the table output (asserts r < OUT.n_rows). */
const output_value *cell(int r, const char *column);
/* Its number; asserts it is not null. */
double cell_num(int r, const char *column);

#define expect_num(output, want)                                                                  \
    do {                                                                                           \
        double got_ = num(output), want_ = (want);                                                 \
        cr_expect(rel_eq(got_, want_), "%s.%s = %.17g, want %.17g", S->name, output, got_, want_); \
    } while (0)
#define expect_str(output, want) cr_expect_str_eq(str(output), (want), "%s.%s", S->name, output)
#define expect_flag(output, want) cr_expect_eq(flag(output), (want), "%s.%s", S->name, output)
#define expect_cell(r, column, want)                                                                     \
    do {                                                                                                  \
        double got_ = cell_num((r), column), want_ = (want);                                             \
        cr_expect(rel_eq(got_, want_), "row %d %s = %.17g, want %.17g", (int)(r), column, got_, want_); \
    } while (0)

#endif
