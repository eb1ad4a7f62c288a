/* cors.c - which browser origins may read answers (contract in cors.h). */
#include "server/cors.h"

#include <string.h>

/* CORS: the configured list, "*" for any. */
const char *allowed_origin(const config *cfg, const char *origin)
{
    if (!origin || !cfg->cors_origins[0])
        return NULL;
    if (!strcmp(cfg->cors_origins, "*"))
        return "*";
    size_t olen = strlen(origin), m;
    const char *cursor = cfg->cors_origins, *p;
    while (origin_list_next(&cursor, &p, &m))
        if (m == olen && !strncmp(p, origin, m))
            return origin;
    return NULL;
}
