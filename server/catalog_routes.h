/* catalog_routes.h - the handler of GET /catalog, /catalog/{kind} and
 * /catalog/{kind}/{id}, one for every kind of the catalog's kinds table
 * (catalog/catalog.h). app.c's route table names it and the prebuilt
 * params below; prebuilt.c renders its answers with it at start-up. */
#ifndef MLSYSD_CATALOG_ROUTES_H
#define MLSYSD_CATALOG_ROUTES_H

#include "server/context.h"

/* param: NULL for /catalog, "{kind}" or "{kind}/{id}" (the path after
 * "/catalog/"); the kind is a plural or singular name, any case. */
void handle_catalog(app *a, const app_request *req, app_response *resp, const char *param);

/* The i-th {kind} and {kind}/{id} of edition ed, for the answers prebuilt at
 * start-up (route.h's prebuilt_param); NULL past the last. */
const char *catalog_kind_param(const app *a, const catalog_edition *ed, size_t i, char *buf, size_t n);
const char *catalog_entry_param(const app *a, const catalog_edition *ed, size_t i, char *buf, size_t n);

/* The kind a param names (NULL if none) and where its id starts (*id NULL
 * for a list). */
const catalog_kind *catalog_route_kind(const char *param, const char **id);

#endif
