/* yaml2json.h - YAML <-> jansson values (libyaml): the contract is written in
 * YAML, merged as JSON (contract.c), and served as both. */
#ifndef MLSYSD_YAML2JSON_H
#define MLSYSD_YAML2JSON_H

#include <jansson.h>
#include <stddef.h>

/* NULL on error, with "line N: reason" in msg. */
json_t *yaml_to_json(const char *text, size_t len, char *msg, size_t msglen);

/* Block-style YAML that yaml_to_json (and YAML 1.1 and 1.2 readers) read back
 * as v: a malloc'd NUL-terminated text, or NULL when out of memory. */
char *json_to_yaml(const json_t *v, size_t *len);

#endif
