/* solver_describe.h - a solver's descriptor as JSON, as GET /solvers and
 * /solvers/{name} answer it (solver_routes.c) and the contract's generator
 * reads it (contract.c). Knows no solver by name. */
#ifndef MLSYSD_SOLVER_DESCRIBE_H
#define MLSYSD_SOLVER_DESCRIBE_H

#include <jansson.h>

#include "core/solver.h"
#include "server/inputs.h"

/* A new reference. */
json_t *solver_describe(const solver_desc *s);

#endif
