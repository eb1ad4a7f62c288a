/* front.h - the one front end of solver requests. Every path that runs a
 * solver (POST and GET /solve, /batch items, POST and GET /sweep, /optimize,
 * and through them the batch commands of cli.c) reads its envelope here,
 * once: which solver (the descriptor and its registry index), which catalog
 * edition, which calibration, and where the inputs are. A solver's refusal
 * becomes a problem in api_solver_fail (inputs.h), called from here and from
 * inputs_check.
 *
 * Callers: the handlers (solver_routes.c, batch.c, sweep, optimize.c). */
#ifndef MLSYSD_FRONT_H
#define MLSYSD_FRONT_H

#include <jansson.h>

#include "server/body_scan.h"
#include "server/context.h"

typedef struct {
    const solver_desc *s;
    size_t index;                 /* s's registry index (solver_at(index) == s) */
    const catalog_edition *ed;
    calibration_mode calibration; /* the request's, else the daemon's --calibration */
    const json_t *inputs;         /* a body's "inputs" member (borrowed from the body); NULL if absent or a query */
    const input_given *given;     /* a scanned body's inputs by input index (front_read_scan); NULL otherwise */
} solver_request;

/* r->s and r->index of the solver called name (or an alias, any case); a 404
 * "unknown-solver" naming the field "solver" and listing the solvers if none. */
int front_find_solver(const char *name, solver_request *r, api_error *err);

/* The envelope of a JSON body: "solver" (required; a name or alias, any
 * case), "catalog" (an edition, default the catalog's), "calibration"
 * ("mlsysim" or "measured", any case; default the daemon's) and "inputs" (kept
 * as given, for front_inputs). The caller checks any other member. 0, or -1
 * with err: 400 for a missing or mistyped member, 404 for an unknown solver. */
int front_read_body(const app *a, const json_t *body, solver_request *r, api_error *err);

/* The same from a scanned /solve body (body_scan.h), its inputs mapped to the
 * solver's into given (r->given points there): the answers and problems
 * front_read_body and inputs_parse give for the same body. */
int front_read_scan(const app *a, const body_scan *b, input_given given[SOLVER_MAX_INPUTS], solver_request *r,
                    api_error *err);

/* The envelope of a GET: the solver named in the path, ?catalog= and
 * ?calibration=. The inputs are the other query arguments (front_inputs_query;
 * a GET sweep reads them with its axes, sweep_query.c). */
int front_read_query(const app *a, const char *solver, const app_request *req, solver_request *r, api_error *err);

/* The envelope's inputs (or a scanned body's) parsed into `in` (defaults filled), bound-checked
 * when `check`, and in->calibration set. Call inputs_release(in) afterwards,
 * on failure too. */
int front_inputs(const solver_request *r, solver_inputs *in, bool check, api_error *err);
/* The same from the query arguments not in `reserved` (NULL-terminated). */
int front_inputs_query(const solver_request *r, const app_request *req, const char *const *reserved,
                       solver_inputs *in, api_error *err);

/* Run the solver on checked inputs into fresh outputs (counted in the
 * metrics); 0, or -1 with the solver's refusal as a problem in err. */
int front_run(const solver_request *r, const solver_inputs *in, solver_outputs *out, api_error *err);

/* "mlsysim" or "measured", any case, into *mode; -1 if neither. */
int calibration_from_text(const char *text, calibration_mode *mode);
/* The 400 for a calibration value that is neither (NULL text: not a string),
 * naming the field "calibration" and the values allowed. */
int calibration_fail(api_error *err, const char *text);

#endif
