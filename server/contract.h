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
 * The document is built on first use (contract_get), not at start-up: it
 * costs milliseconds and only /openapi.json, /openapi.yaml and
 * /schemas/plan.json read it. app.c owns the cache (app->contract). */
#ifndef MLSYSD_CONTRACT_H
#define MLSYSD_CONTRACT_H

#include <jansson.h>
#include <stddef.h>

/* The merged document from the hand-written YAML text: a new reference, or
 * NULL with the reason in msg (the YAML does not parse, has no
 * components/schemas, or already holds a name the generator owns). */
json_t *contract_build(const char *yaml, size_t len, char *msg, size_t msglen);

/* The build's contract, from the embedded openapi.yaml: built by the first
 * caller (one at a time; concurrent callers wait for it) and kept until
 * contract_cache_free. NULL with the reason in msg when it cannot be built
 * (the next call tries again). The document is shared: read it, never change it. */
struct contract_cache;
struct contract_cache *contract_cache_new(void);
void contract_cache_free(struct contract_cache *c);
const json_t *contract_get(struct contract_cache *c, char *msg, size_t msglen);

#endif
