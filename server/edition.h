/* edition.h - the catalog edition a request names (?catalog= or "catalog"). */
#ifndef MLSYSD_EDITION_H
#define MLSYSD_EDITION_H

#include "server/context.h"

/* The edition called name, the default one when name is NULL; NULL with a 400
 * in err (listing the editions) when there is none of that name. */
const catalog_edition *app_edition(const app *a, const char *name, api_error *err);

#endif
