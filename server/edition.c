/* edition.c - the catalog edition a request names. */
#include "server/edition.h"

#include <stdio.h>

const catalog_edition *app_edition(const app *a, const char *name, api_error *err)
{
    if (!name)
        return catalog_default_edition(a->cat);
    const catalog_edition *e = catalog_edition_find(a->cat, name);
    if (!e) {
        char known[200] = "";
        size_t used = 0;
        for (size_t i = 0; i < catalog_edition_count(a->cat) && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     edition_name(catalog_edition_at(a->cat, i)));
        api_fail(err, 400, "invalid-input", "catalog", "unknown catalog edition '%.60s'; editions are: %s", name, known);
    }
    return e;
}
