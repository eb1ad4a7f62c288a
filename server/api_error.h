/* api_error.h - the server's error type: what becomes an RFC 9457 problem
 * (reply.h writes it). Any server file may fill one; api_solver_fail is the
 * one place a solver's refusal becomes one. */
#ifndef MLSYSD_API_ERROR_H
#define MLSYSD_API_ERROR_H

#include "core/solver.h"

typedef struct {
    int status;              /* 400, 404, 413, ... */
    const char *slug;        /* problem type: "invalid-input", "unknown-id", ... */
    char field[160];         /* JSON path of the offending field: "inputs.efficiency" */
    char detail[640];
} api_error;

/* Fill e; returns -1, so that `return api_fail(...)` fails the caller. */
int api_fail(api_error *e, int status, const char *slug, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A solver's refusal (a bound, a constraint, run()) as the API states it: a
 * 400 (or the error's own status) "invalid-input" naming inputs.<field>, or
 * bare_field when the solver names none. */
int api_solver_fail(api_error *e, const solver_error *se, const char *bare_field);

#endif
