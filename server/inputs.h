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

/* Parse one input value (JSON) per its descriptor into v. `field` is the
 * JSON path used in errors. Does not run bound checks. */
int input_parse(const input_desc *d, const json_t *j, const catalog_edition *ed, input_value *v,
                const char *field, api_error *err);

/* Fill the default of input i (or mark it absent). */
void input_default(const input_desc *d, input_value *v);

/* Map a whole "inputs" object: unknown names, required inputs, defaults,
 * parsing; then the descriptors' bound checks. Returns 0 or -1 with err. */
int inputs_from_json(const solver_desc *s, const json_t *obj, const catalog_edition *ed, solver_inputs *in,
                     api_error *err);

/* The same without the bound checks (sweeps check each point). */
int inputs_parse(const solver_desc *s, const json_t *obj, const catalog_edition *ed, solver_inputs *in,
                 api_error *err);

/* Bound checks of every present input (after axes were applied, in sweeps). */
int inputs_check(const solver_desc *s, const solver_inputs *in, api_error *err);

/* Convert a query-string value into the JSON value its descriptor expects
 * ("256" -> 256 for integers, "true" -> true, "500 KB" stays a string).
 * Returns a new reference. */
json_t *input_from_text(const input_desc *d, const char *text);

/* Echo of the inputs as used: numbers in each input's declared unit, ids as
 * their catalog key (an inline entry echoes its key, "custom" when it has
 * none; the numbers it resolved to are in inputs_resolved). */
json_t *inputs_echo(const solver_desc *s, const solver_inputs *in);
/* The catalog numbers the solver used for hardware/model inputs. */
json_t *inputs_resolved(const solver_desc *s, const solver_inputs *in);

/* One output value as a sweep row cell: JSON text, or an RFC 4180 CSV field
 * (null and non-finite values: `null` in JSON, an empty field in CSV). */
void row_output_value(strbuf *b, const output_desc *d, const output_value *v, bool csv);

/* One output value as JSON (null for is_null or non-finite). */
json_t *output_to_json(const output_desc *d, const output_value *v);

/* Summaries used by /catalog lists and the "resolved" echo. */
json_t *hardware_summary(const hw_node *hw);
json_t *model_summary(const model_t *m);

/* Descriptor -> JSON (for /solvers). */
json_t *solver_describe(const solver_desc *s);

#endif
