/* catalog_routes.h - the handler of GET /catalog, /catalog/{hardware,models}
 * and /catalog/{hardware,models}/{id}. app.c routes to it; prebuilt.c renders
 * its answers with it at start-up. */
#ifndef MLSYSD_CATALOG_ROUTES_H
#define MLSYSD_CATALOG_ROUTES_H

#include "server/app.h"

/* kind: CAT_HARDWARE, CAT_MODEL, or -1 for both (/catalog); id NULL: the list. */
void handle_catalog(app *a, const app_request *req, app_response *resp, int kind, const char *id);

#endif
