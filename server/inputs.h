/* inputs.h - parsing a solver's inputs, generically from its descriptor: JSON
 * values or query text into input values, defaults, checks. Knows no solver
 * by name: everything comes from the solver_desc tables. Callers: the front
 * end (front.h), the sweep, tests and benchmarks. It re-exports the error
 * type (api_error.h), the record store (input_store.h) and the cell writer
 * (output_cell.h) that its callers use with it. */
#ifndef MLSYSD_INPUTS_H
#define MLSYSD_INPUTS_H

#include <jansson.h>

#include "catalog/catalog.h"
#include "core/solver.h"
#include "server/api_error.h"
#include "server/input_store.h"
#include "server/output_cell.h"
#include "server/strbuf.h"

/* Whether an absent input is an error: no default, not optional, not
 * nullable (None), not a boolean (False), not a list of the whole catalog. */
bool input_is_required(const input_desc *d);

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

/* The same without the bound checks (sweeps check each point). */
int inputs_parse(const solver_desc *s, const json_t *obj, const catalog_edition *ed, solver_inputs *in,
                 api_error *err);

/* One input as the client gave it: a JSON value, query text, or a scalar
 * read straight from a body without a JSON tree (body_scan.h). The parser
 * reads every form alike: the same values and the same messages. Query text
 * is read as its input's kind reads it (input_parse_text); a scalar as the
 * JSON value it was. Strings are NUL-terminated and borrowed. */
typedef enum {
    GIVEN_NONE, /* not given (zero-initialised arrays give nothing) */
    GIVEN_NULL,
    GIVEN_BOOL,
    GIVEN_INT,
    GIVEN_REAL,
    GIVEN_STRING,
    GIVEN_JSON, /* j: any JSON value (objects and arrays come this way) */
    GIVEN_TEXT  /* s: query text */
} given_type;

typedef struct {
    given_type t;
    bool b;
    json_int_t i;
    double r;
    const char *s;
    const json_t *j;
} input_given;

/* given[i] of a query: the inline record built from dotted arguments (JSON),
 * else the argument's text, else nothing. */
static inline input_given input_given_query(const json_t *record, const char *text)
{
    input_given g = {.t = record ? GIVEN_JSON : text ? GIVEN_TEXT : GIVEN_NONE, .s = text, .j = record};
    return g;
}

/* The index of the input called key, or -1 with the 400 "unknown-input"
 * naming inputs.<key> and listing the solver's inputs. */
int inputs_index(const solver_desc *s, const char *key, api_error *err);

/* Parse the inputs given, by input index (given[i].t == GIVEN_NONE: not
 * given). Inputs not given get their defaults, except those whose descriptor
 * names as replaced_by an input that is given (they stay absent); a required
 * one is a 400. No bound checks. Inline records go into in->owned
 * (inputs_release). */
int inputs_parse_given(const solver_desc *s, const input_given *given, const catalog_edition *ed, solver_inputs *in,
                       api_error *err);

/* Bound checks of every present input, then the solver's constraints
 * (after axes were applied, in sweeps). */
int inputs_check(const solver_desc *s, const solver_inputs *in, api_error *err);

#endif
