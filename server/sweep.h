/* sweep.h - /sweep: one solver over the cartesian product of axes, streamed.
 * app.c calls sweep_start; whoever sends the response (http.c, tests,
 * benchmarks) reads the stream and frees it (app_response_free does). */
#ifndef MLSYSD_SWEEP_H
#define MLSYSD_SWEEP_H

#include <stddef.h>

#include "server/app.h"

/* POST /sweep (solver_name NULL: named in the body) or GET /sweep/{solver_name}.
 * Fills resp with a problem, or with a 200 whose body comes from resp->stream. */
int sweep_start(app *a, const app_request *req, const char *solver_name, app_response *resp);
/* Next bytes of the body into buf; returns 0 at the end, or
 * SWEEP_STREAM_FAILED when the body cannot be completed (out of memory): the
 * transfer must then end as an error, not as a complete body. */
#define SWEEP_STREAM_FAILED ((size_t)-1)
size_t sweep_stream_read(sweep_stream *s, char *buf, size_t max);
void sweep_stream_free(sweep_stream *s);

#endif
