/* metrics.h - Prometheus counters kept with atomics (no locks on the hot path).
 * Requests are counted by the row of the route table that answered them
 * (route.h), labelled with the row's label; app_init hands the table over. */
#ifndef MLSYSD_METRICS_H
#define MLSYSD_METRICS_H

#include <stdatomic.h>

#include "server/route.h"
#include "server/strbuf.h"

typedef enum { M_GET, M_POST, M_HEAD, M_OPTIONS, M_OTHER, M__N } method_id;

method_id method_of(const char *m);
/* The label of a row (NULL: a request no row answered, "other"). */
const char *route_label(const route *r);

void metrics_init(void);
/* The route table whose rows requests are counted by (at most METRICS_MAX_ROUTES). */
#define METRICS_MAX_ROUTES 31
void metrics_routes(const route *table, size_t n);
void metrics_request(const route *r, method_id m, int status, double seconds);
void metrics_solve(unsigned solver_index);
void metrics_sweep_points(unsigned long long n);
/* Helper threads writing sweep rows (sweep_lanes.c): +n when a sweep takes them, -n when it gives them back. */
void metrics_sweep_helpers(int delta);
void metrics_response_bytes(const route *r, unsigned long long n);
void metrics_inflight(int delta);
long metrics_inflight_now(void);
/* Render the Prometheus text exposition format. */
void metrics_render(strbuf *b);

#endif
