/* solve.h - the /solve answer writer: a solved point (inputs and outputs of
 * one solver) written straight into the response as JSON, without building a
 * jansson tree. Its bytes are what building the tree (solver, inputs, result,
 * units, input_units, resolved, trace, warnings, assumptions, catalog, calibration,
 * catalog_version) and json_write() would give. solver_routes.c and optimize.c
 * call solve_write; app.c builds and frees the parts. */
#ifndef MLSYSD_SOLVE_H
#define MLSYSD_SOLVE_H

#include "server/context.h"
#include "server/front.h"

struct solve_parts;

/* The fixed parts of every registered solver's answer ("name": of each output,
 * the units object), rendered once. NULL when out of memory: then they are
 * rendered per answer. */
struct solve_parts *solve_parts_build(void);
void solve_parts_free(struct solve_parts *p);

/* Append the answer of request r, solved with in into out, to b: one JSON
 * object, without a trailing newline. */
void solve_write(const app *a, strbuf *b, const solver_request *r, const solver_inputs *in,
                 const solver_outputs *out);

#endif
