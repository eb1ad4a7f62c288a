/* inputs.h - the generic JSON <-> solver descriptor mapping. Knows no
 * solver by name: everything comes from the solver_desc tables. */
#ifndef MLSYSD_INPUTS_H
#define MLSYSD_INPUTS_H

#include <jansson.h>

#include "catalog/catalog.h"
#include "core/solver.h"
#include "server/strbuf.h"

typedef struct {
    int status;              /* 400, 404, 413, ... */
    const char *slug;        /* problem type: "invalid-input", "unknown-id", ... */
    char field[160];         /* JSON path of the offending field: "inputs.efficiency" */
    char detail[640];
} api_error;

int api_fail(api_error *e, int status, const char *slug, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A solver's refusal (a bound, a constraint, run()) as the API states it: a
 * 400 (or the error's own status) "invalid-input" naming inputs.<field>, or
 * bare_field when the solver names none. The one place this happens. */
int api_solver_fail(api_error *e, const solver_error *se, const char *bare_field);

/* Records of inline objects and list items that a parsed input refers to
 * live in a store owned by whoever parsed it: a chain of allocations freed
 * at once. */
typedef struct input_store input_store;
void *input_store_alloc(input_store **store, size_t n);
void input_store_free(input_store **store);

/* Parse one input value (JSON) per its descriptor into v; inline records go
 * into *store. `field` is the JSON path used in errors. Does not run bound
 * checks. JSON null is a value only for nullable inputs (callers treat it as
 * absent otherwise). */
int input_parse(const input_desc *d, const json_t *j, const catalog_edition *ed, input_value *v,
                input_store **store, const char *field, api_error *err);

/* The same from query text, read as the input's kind reads it ("256" an
 * integer, "true" a boolean, "null" null for a nullable input, a list's items
 * comma-separated, anything else a string), with the same messages. */
int input_parse_text(const input_desc *d, const char *text, const catalog_edition *ed, input_value *v,
                     input_store **store, const char *field, api_error *err);

/* Fill the default of input i (or mark it absent). */
void input_default(const input_desc *d, input_value *v);

/* Map a whole "inputs" object: unknown names, required inputs, defaults,
 * parsing; then the descriptors' bound checks and constraints. Returns 0 or
 * -1 with err. Inline records go into in->owned: call inputs_release() when
 * done with `in`, on success and failure alike. */
int inputs_from_json(const solver_desc *s, const json_t *obj, const catalog_edition *ed, solver_inputs *in,
                     api_error *err);

/* Free what in->owned holds. */
void inputs_release(solver_inputs *in);

/* The same without the bound checks (sweeps check each point). */
int inputs_parse(const solver_desc *s, const json_t *obj, const catalog_edition *ed, solver_inputs *in,
                 api_error *err);

/* Parse the inputs given, by input index: json[i] (a JSON value; NULL: not
 * given) or else text[i] (query text; NULL: not given); either array may be
 * NULL. Inputs not given get their defaults; a required one is a 400. No
 * bound checks. Inline records go into in->owned (inputs_release). */
int inputs_parse_given(const solver_desc *s, const json_t *const *json, const char *const *text,
                       const catalog_edition *ed, solver_inputs *in, api_error *err);

/* Bound checks of every present input, then the solver's constraints
 * (after axes were applied, in sweeps). */
int inputs_check(const solver_desc *s, const solver_inputs *in, api_error *err);

/* Convert a query-string value into the JSON value its descriptor expects
 * ("256" -> 256 for integers, "true" -> true, "500 KB" stays a string).
 * Returns a new reference. */
json_t *input_from_text(const input_desc *d, const char *text);

/* The key a record input echoes: its catalog key, "custom" for an inline
 * record without one. */
const char *input_ref_key(const input_value *v);

/* One output value as a sweep row cell: JSON text, or an RFC 4180 CSV field
 * (null and non-finite values: `null` in JSON, an empty field in CSV). */
void row_output_value(strbuf *b, const output_desc *d, const output_value *v, bool csv);

/* Descriptor -> JSON (for /solvers). */
json_t *solver_describe(const solver_desc *s);

#endif
