/* metrics.h - Prometheus counters kept with atomics (no locks on the hot path). */
#ifndef MLSYSD_METRICS_H
#define MLSYSD_METRICS_H

#include <stdatomic.h>

#include "server/strbuf.h"

typedef enum {
    R_SOLVE, R_SOLVE_GET, R_BATCH, R_SWEEP, R_SWEEP_GET, R_OPTIMIZE, R_SOLVERS, R_SOLVER, R_CATALOG, R_CATALOG_KIND, R_CATALOG_ENTRY,
    R_HEALTHZ, R_LIVEZ, R_READYZ, R_METRICS, R_OPENAPI_YAML, R_OPENAPI_JSON,
    R_VERSION, R_ROOT, R_UI, R_OTHER, R__N
} route_id;

typedef enum { M_GET, M_POST, M_HEAD, M_OPTIONS, M_OTHER, M__N } method_id;

const char *route_template(route_id r);
method_id method_of(const char *m);

void metrics_init(void);
void metrics_request(route_id r, method_id m, int status, double seconds);
void metrics_solve(unsigned solver_index);
void metrics_sweep_points(unsigned long long n);
void metrics_response_bytes(route_id r, unsigned long long n);
void metrics_inflight(int delta);
long metrics_inflight_now(void);
/* Render the Prometheus text exposition format. */
void metrics_render(strbuf *b);

#endif
