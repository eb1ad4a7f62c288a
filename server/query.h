/* query.h - query string arguments: looking one up, and parsing them
 * straight into a solver's input values (GET /solve, GET /sweep). */
#ifndef MLSYSD_QUERY_H
#define MLSYSD_QUERY_H

#include <jansson.h>

#include "server/inputs.h"
#include "server/request.h"

/* The value of argument key ("" for a bare key), NULL if absent. */
const char *query_get(const app_request *req, const char *key);

/* The query arguments, except the NULL-terminated `reserved` names, sorted
 * by input of solver s: a plain argument's text into text[i] (borrowed from
 * req), dotted ones into an inline record record[i] (a new reference, whose
 * "base" a plain argument of the same input becomes). Unknown inputs, dotted
 * names of inputs that are not records and arguments given twice are 400s
 * named as POST /solve names them ("inputs.model.x"). Both arrays start
 * zeroed; the caller json_decrefs record[] afterwards, on failure too. */
int query_collect_inputs(const solver_desc *s, const app_request *req, const char *const *reserved,
                         const char *text[SOLVER_MAX_INPUTS], json_t *record[SOLVER_MAX_INPUTS], api_error *err);

/* The query arguments, except the NULL-terminated `reserved` names, parsed
 * straight into the input values of solver s in edition ed (no bound checks:
 * inputs_check). Dotted names build inline records:
 * model=ResNet50&model.inference_flops=4.1%20GFLOP, fleet.node=DGX_H100&fleet.count=64.
 * Errors and values are what POST /solve gives for the same inputs ("inputs.model.x").
 * Call inputs_release(in) afterwards, on failure too. */
int query_parse_inputs(const solver_desc *s, const app_request *req, const char *const *reserved,
                       const catalog_edition *ed, solver_inputs *in, api_error *err);

/* A member of an inline record from a query string: what the text reads as
 * in JSON (64, 2.5, true, null), else the string ("4.1 GFLOP", "DGX_H100").
 * A new reference. (A record's members are read by the catalog from JSON.) */
json_t *member_from_text(const char *v);

#endif
