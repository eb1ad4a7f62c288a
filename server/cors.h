/* cors.h - CORS: whether a browser origin may read the answers, per
 * --cors-origins (a list, or "*" for any). http.c calls it. */
#ifndef MLSYSD_CORS_H
#define MLSYSD_CORS_H

#include "server/config.h"

/* The Access-Control-Allow-Origin value for origin (NULL: none). */
const char *allowed_origin(const config *cfg, const char *origin);

#endif
