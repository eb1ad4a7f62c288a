/* yaml2json.h - YAML document -> jansson value (libyaml), used to serve the
 * embedded openapi.yaml also as /openapi.json without a second source. */
#ifndef MLSYSD_YAML2JSON_H
#define MLSYSD_YAML2JSON_H

#include <jansson.h>
#include <stddef.h>

/* NULL on error, with "line N: reason" in msg. */
json_t *yaml_to_json(const char *text, size_t len, char *msg, size_t msglen);

#endif
