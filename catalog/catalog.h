/* catalog.h - mlsysim's hardware and model catalog, in editions.
 *
 * The data files under catalog/data/ are embedded into the binary at build
 * time (see cmake/embed.cmake). At start-up catalog_load() parses them once,
 * builds the `current` edition (top-level upstream values) and the `tutorial`
 * edition (current + catalog/data/edition_tutorial.json overlay), optionally
 * adds/overrides entries from *.json files in an extra directory, and builds
 * a case-insensitive hash index of keys ("A100") and mlsysim paths
 * ("Hardware.Cloud.A100"). After that everything here is read-only and
 * thread-safe.
 *
 * File format (embedded and --catalog-dir alike): a JSON object with
 * "hardware": [entry...] and/or "models": [entry...]; an entry is an object
 * with "key", "id", "name", "group" and the fields of the catalog/data JSON files;
 * a quantity is {"value": 80, "unit": "GiB", "si": 85899345920, "si_unit": "B"},
 * a string with a unit ("80 GiB") or a bare number in SI base units. */
#ifndef MLSYSD_CATALOG_H
#define MLSYSD_CATALOG_H

#include <jansson.h>
#include <stddef.h>

#include "core/model.h"

typedef struct catalog catalog;
typedef struct catalog_edition catalog_edition;

/* Load embedded data (+ extra_dir if not NULL). On failure returns -1 and
 * writes "file:line: reason" into err. */
int catalog_load(catalog **out, const char *extra_dir, char *err, size_t errlen);
void catalog_free(catalog *c);

size_t catalog_edition_count(const catalog *c);
const catalog_edition *catalog_edition_at(const catalog *c, size_t i);
/* Edition by name, case-insensitive; NULL if unknown. */
const catalog_edition *catalog_edition_find(const catalog *c, const char *name);
const catalog_edition *catalog_default_edition(const catalog *c); /* "current" */

const char *edition_name(const catalog_edition *e);     /* "current" / "tutorial" */
const char *edition_version(const catalog_edition *e);  /* "sha256-like" hex hash of the edition's data */
const char *edition_description(const catalog_edition *e);

size_t edition_hardware_count(const catalog_edition *e);
const hw_node *edition_hardware_at(const catalog_edition *e, size_t i);
/* Full entry (every field with value, unit, si, si_unit, provenance) as
 * borrowed JSON; do not modify. */
const json_t *edition_hardware_json(const catalog_edition *e, size_t i);
/* Index of an id (key, mlsysim path, or legacy alias; case-insensitive); -1 if unknown. */
long edition_find_hardware(const catalog_edition *e, const char *id);

size_t edition_model_count(const catalog_edition *e);
const model_t *edition_model_at(const catalog_edition *e, size_t i);
const json_t *edition_model_json(const catalog_edition *e, size_t i);
long edition_find_model(const catalog_edition *e, const char *id);

typedef enum { CAT_HARDWARE, CAT_MODEL } catalog_kind;

/* Up to max nearest keys to an unknown id (edit distance, case-insensitive),
 * best first. Returns how many were written; pointers are borrowed. */
int edition_suggest(const catalog_edition *e, catalog_kind kind, const char *id,
                    const char **out, int max);

/* Inline entries in a request: `obj` is either {"base": "<id>", <field>: <value>...}
 * (override fields of a catalog entry; nested objects like "memory": {"capacity": ...}
 * and dotted names like "memory.capacity" both work) or an object without "base"
 * that defines a custom entry (the required fields of its kind must be there).
 * Returns 0 on success; 404 if base is unknown; 400 for a bad field. On error
 * `field` (may be "") names the offending field relative to obj
 * (e.g. "inference_flops" or "base") and err says what was expected. */
int edition_resolve_hardware(const catalog_edition *e, const json_t *obj, hw_node *out,
                             char *field, size_t fieldlen, char *err, size_t errlen);
int edition_resolve_model(const catalog_edition *e, const json_t *obj, model_t *out,
                          char *field, size_t fieldlen, char *err, size_t errlen);

#endif
