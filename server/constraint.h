/* constraint.h - a comparison of one solver output with a bound, in the
 * syntax of /optimize's constraints: {"output": "latency", "<=": "10 ms"},
 * {"output": "feasible", "==": true}. A numeric bound is a number in the
 * output's unit or a string with units of the same dimension (core/units.h),
 * converted to the output's unit once, when parsed. Booleans and strings
 * compare with == and != only. A null or non-finite value meets nothing.
 *
 * Callers: optimize.c (its constraints) and plan_assert.c (a plan's assertions).
 * Parsing names the offending field under the caller's prefix
 * ("constraints[0].output", "scenarios[1].assert[2].<="). */
#ifndef MLSYSD_CONSTRAINT_H
#define MLSYSD_CONSTRAINT_H

#include <jansson.h>
#include <stdbool.h>

#include "server/api_error.h"

typedef enum { OP_LE, OP_LT, OP_GE, OP_GT, OP_EQ, OP_NE, OP__N } cmp_op;
/* "<=", "<", ">=", ">", "==", "!=" by cmp_op. */
extern const char *const CMP_OP_NAMES[OP__N];

typedef struct {
    int col;         /* output index in the solver's descriptor */
    cmp_op op;
    double num;      /* the bound of a number (in the output's unit) or a boolean (0/1) */
    const char *str; /* the bound of a string output (borrowed from the parsed JSON) */
} constraint;

/* Parse j, an object {"output": NAME, OP: BOUND}, against solver s into *c.
 * `prefix` is the JSON path of j ("constraints[0]"). Keys other than
 * "output" and one operator are refused, except those in `extra_keys`
 * (NULL-terminated, may be NULL), which the caller reads. 0, or -1 with a
 * 400 in err naming prefix, prefix.output or prefix.<op>. */
int constraint_parse(const solver_desc *s, const json_t *j, const char *prefix, const char *const *extra_keys,
                     constraint *c, api_error *err);

/* A numeric bound: a JSON number (in `unit`), or a string with units of
 * unit's dimension ("10 ms") converted to `unit`, into *out. 0; -2 when it
 * is neither a number nor a string (or unit is "" and it is not a number);
 * -1 with the reason in msg when the string does not convert. */
int constraint_number(const json_t *bound, const char *unit, double *out, char *msg, size_t n);

/* Whether value v of c's output meets c. */
bool constraint_meets(const solver_desc *s, const constraint *c, const output_value *v);

#endif
