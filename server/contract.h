/* contract.h - the OpenAPI document the daemon serves: the hand-written
 * openapi.yaml (everything that is not per solver) merged with the parts
 * generated from the solver descriptors at start-up, so that a new solver
 * edits no YAML. Generated, per registered solver, into components/schemas:
 *   <name>_inputs    its inputs (types, units, defaults, bounds, catalog
 *                    kinds, nullability, constraints); a catalog record
 *                    input refers to the hand-written CatalogRef (or
 *                    NullableCatalogRef) and names its kinds
 *   <name>_result    its outputs; dotted names become nested objects
 *   <name>_response  a /solve answer of that solver (SolveResponseCommon
 *                    narrowed: solver, inputs, result)
 * and the unions SolverInputs (anyOf the _inputs, for requests) and
 * SolveResponse (oneOf the _response, discriminated by `solver`).
 * app.c calls contract_build once; nothing else needs this header. */
#ifndef MLSYSD_CONTRACT_H
#define MLSYSD_CONTRACT_H

#include <jansson.h>
#include <stddef.h>

/* The merged document from the hand-written YAML text: a new reference, or
 * NULL with the reason in msg (the YAML does not parse, has no
 * components/schemas, or already holds a name the generator owns). */
json_t *contract_build(const char *yaml, size_t len, char *msg, size_t msglen);

#endif
