/* route.h - the shape of a row of the route table (the table itself is in
 * app.c, in the manner of Redis's command table): a path pattern, its
 * methods, its handler, its metrics label and its flags. Types only: metrics.c,
 * prebuilt.c and http.c read rows given to them; handlers never see the table. */
#ifndef MLSYSD_ROUTE_H
#define MLSYSD_ROUTE_H

#include <stddef.h>

#include "server/request.h"

struct app;
struct catalog_edition;

/* Every handler: the row's {param} segments after its prefix in `param`
 * (a solver's name, "hardware/A100"), NULL for a route without one. */
typedef void (*route_handler)(struct app *a, const app_request *req, app_response *resp, const char *param);

enum {
    ROUTE_CACHEABLE = 1u << 0,   /* 200s fixed for the build and edition: ETag, no-cache, If-None-Match (conditional.h) */
    ROUTE_GZIP = 1u << 1,        /* answers gzip-encoded for a client that accepts it (Vary: Accept-Encoding) */
    ROUTE_PREBUILT = 1u << 2,    /* 200s rendered once at start-up by the handler (prebuilt.h) */
    ROUTE_PER_EDITION = 1u << 3, /* the answer depends on ?catalog= (prebuilt once per edition) */
    ROUTE_BY_ACCEPT = 1u << 4,   /* the answer depends on Accept too (Vary: Accept) */
    ROUTE_QUERY_INPUTS = 1u << 5, /* query arguments are a solver's inputs (errors name them inputs.<name>) */
    ROUTE_PROBE = 1u << 6,       /* a health probe: its successes are logged at debug only */
    ROUTE_ON_FIRST_USE = 1u << 7, /* with ROUTE_PREBUILT: rendered on the first request instead of at start-up,
                                     then kept (prebuilt.h): for answers too costly to render at start-up */
};

typedef struct route {
    const char *pattern;  /* the path as the contract names it: "/solve/{solver}" */
    const char *prefix;   /* exact path, or the prefix before its {param}s ("/solve/") */
    int params;           /* path segments after the prefix: 0, 1 ({name}) or 2 ({kind}/{id}) */
    const char *methods;  /* "GET" (HEAD goes with it) or "POST" */
    route_handler handler;
    const char *label;    /* the metrics label: the pattern */
    unsigned flags;       /* ROUTE_* */
    /* ROUTE_PREBUILT with params: the i-th {param} to render (at start-up, or on first use) for
     * edition ed (NULL: no more), written into buf. */
    const char *(*prebuilt_param)(const struct app *a, const struct catalog_edition *ed, size_t i, char *buf,
                                  size_t n);
} route;

#endif
