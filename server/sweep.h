/* sweep.h - /sweep: one solver over the cartesian product of axes, streamed.
 * app.c's route table names handle_sweep; whoever sends the response
 * (http.c, cli.c, tests, benchmarks) reads its body_stream and frees it
 * (app_response_free does). optimize.c evaluates the same space point by
 * point (sweep_space). */
#ifndef MLSYSD_SWEEP_H
#define MLSYSD_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "server/context.h"
#include "server/front.h"

typedef struct sweep_stream sweep_stream;

/* POST /sweep (solver_name NULL: named in the body) or GET /sweep/{solver_name}.
 * Fills resp with a problem, or with a 200 whose body comes from resp->stream
 * (a sweep of at most 256 points: written whole in resp->body).
 * sweep_start always streams. */
void handle_sweep(app *a, const app_request *req, app_response *resp, const char *solver_name);
int sweep_start(app *a, const app_request *req, const char *solver_name, app_response *resp);
/* Next bytes of the body into buf; returns 0 at the end, or
 * SWEEP_STREAM_FAILED when the body cannot be completed (out of memory): the
 * transfer must then end as an error, not as a complete body. */
#define SWEEP_STREAM_FAILED STREAM_FAILED
size_t sweep_stream_read(sweep_stream *s, char *buf, size_t max);
/* Each sweep's rows may use up to `threads` threads: its worker's and helpers,
 * of which the daemon holds at most threads - 1 at a time. app_init calls it,
 * before any sweep runs (it resets the budget). */
void sweep_set_threads(int threads);
void sweep_stream_free(sweep_stream *s);

/* --- the same space point by point, for optimize.c ------------------------------------- */

/* The search space of a body whose envelope is r (front_read_body): its inputs
 * and axes members (the caller checks any other), under the same point cap as
 * /sweep; every point is solved with r's calibration. NULL with err filled.
 * Free it with sweep_stream_free. */
sweep_stream *sweep_space(const app *a, const solver_request *r, const json_t *body, api_error *err);
unsigned long long sweep_space_points(const sweep_stream *s);
const catalog_edition *sweep_space_edition(const sweep_stream *s);
int sweep_space_axes(const sweep_stream *s);
/* Axis a (0 <= a < sweep_space_axes): its column name ("batch_size", "fleet.count"),
 * its number of values, and the distance in points between its neighbours. */
const char *sweep_space_axis_label(const sweep_stream *s, int a);
size_t sweep_space_axis_len(const sweep_stream *s, int a);
unsigned long long sweep_space_stride(const sweep_stream *s, int a);
/* A number, integer or quantity input, or a record member given numbers ("fleet.count"). */
bool sweep_space_axis_numeric(const sweep_stream *s, int a);
/* A quantity input's declared unit, else "". */
const char *sweep_space_axis_unit(const sweep_stream *s, int a);
/* A numeric axis's value at point p, as rows show it (in the input's declared unit). */
double sweep_space_axis_value(const sweep_stream *s, int a, unsigned long long p);
/* +1 if a numeric axis's values strictly increase with their index, -1 if they
 * strictly decrease, 0 otherwise (or not numeric). */
int sweep_space_axis_order(const sweep_stream *s, int a);
/* Solve point p: NULL, with its inputs and outputs readable until the next
 * call, or the point's error (what its sweep row would carry). */
const char *sweep_eval(sweep_stream *s, unsigned long long p, const solver_inputs **in, const solver_outputs **out);
/* {"<axis>": value, ...}: point p's axis values as sweep rows show them. */
void sweep_space_point_json(const sweep_stream *s, strbuf *b, unsigned long long p);
/* Whether --request-timeout has passed since sweep_space. */
bool sweep_space_timed_out(sweep_stream *s);

#endif
