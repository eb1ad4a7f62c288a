/* prebuilt.h - answers that do not change while the daemon runs, rendered
 * once: the summary ("resolved") text of every catalog entry (by app_init), and
 * the whole 200 answers of the route table's ROUTE_PREBUILT rows (route.h),
 * for every {param} a row lists and, for a ROUTE_PER_EDITION row, every
 * edition, each with its ETag (conditional.h) and, from the first request
 * that accepts it, its gzip encoding (gzip.h). A row's answers are rendered by
 * app_init, or, for a ROUTE_ON_FIRST_USE row, by the first request for each
 * (one thread renders, concurrent requests wait for it; kept afterwards).
 * Whatever failed to render (out of memory) is simply rendered per request. app.c builds and frees it;
 * app_handle and the /solve writer read it. */
#ifndef MLSYSD_PREBUILT_H
#define MLSYSD_PREBUILT_H

#include <stdbool.h>
#include <stddef.h>

#include "server/context.h"
#include "server/route.h"

struct app_prebuilt;

/* The answers of the ROUTE_PREBUILT rows of table (route.h), by their
 * handlers. Needs a->cat and a->openapi set. NULL when out of memory. */
struct app_prebuilt *prebuilt_build(app *a, const route *table, size_t n_routes);
void prebuilt_free(struct app_prebuilt *pb);

/* The prebuilt answer for this request, if there is one (rendered now if it is
 * the first request of a ROUTE_ON_FIRST_USE answer): true when resp is filled,
 * gzip-encoded when the request's Accept-Encoding allows it, or a 304 when its
 * If-None-Match names it. Catalog answers are prebuilt for requests without query
 * arguments or with only ?catalog=. */
bool prebuilt_send(app *a, const app_request *req, app_response *resp, const route *row, const char *param);

/* The summary text of a catalog entry (a record of the catalog, as
 * edition_record gives it), as edition_entry_summary + json_write give it;
 * NULL for an inline entry or when not prebuilt. */
const char *prebuilt_summary(const struct app_prebuilt *pb, const void *entry, size_t *len);

#endif
