/* catalog_internal.h - shared between the catalog's own files (not an API).
 *
 * entry.c knows the catalog entry format: which field paths exist for a
 * hardware node and a workload, what each one is (quantity of which
 * dimension, whole number, string, ...), how to read one entry into an
 * hw_node / model_t (cat_extract), and how to lay override fields over an
 * entry (cat_merge). catalog.c loads files, builds editions and indexes,
 * and answers lookups. */
#ifndef MLSYSD_CATALOG_INTERNAL_H
#define MLSYSD_CATALOG_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog/catalog.h"

/* Read one entry (catalog file entry, overlaid entry or merged inline object)
 * into *out (an hw_node for CAT_HARDWARE, a model_t for CAT_MODEL). Every
 * field of the entry is checked against the format: an unknown name, a
 * wrong type, a quantity of the wrong dimension or a missing required field
 * is an error. Returns 0, or 400 with `field` = dotted path of the offending
 * field ("" for the entry itself) and err = "<field>: <what was expected>". */
int cat_extract(catalog_kind kind, const json_t *entry, void *out,
                char *field, size_t fieldlen, char *err, size_t errlen);

/* Lay the members of `src` over `target` (an object this caller owns; nested
 * objects along the way are copied before they are changed, so `target` may
 * be a shallow json_copy() of a shared catalog entry). Member names may be
 * dotted ("memory.capacity"); an object value for an object field
 * ("memory": {...}) merges into it; null clears a field (and removes a
 * precision_flops key). Unknown names are an error (400, as cat_extract).
 * A top-level member named `skip` (e.g. "base") is ignored. */
int cat_merge(catalog_kind kind, json_t *target, const json_t *src, const char *skip,
              char *field, size_t fieldlen, char *err, size_t errlen);

/* The value at a dotted path of an entry (borrowed), NULL if absent. */
json_t *cat_path_get(json_t *entry, const char *dotted);

/* The canonical SI unit spelling of a quantity field ("B/s", "flop/s", ...),
 * or NULL if `dotted` is not a quantity field of that kind. */
const char *cat_field_si_unit(catalog_kind kind, const char *dotted);

/* Case-insensitive optimal-string-alignment (Damerau) edit distance. */
size_t cat_edit_distance(const char *a, const char *b);

/* 1-based line of something in a JSON text, for "file:line: reason":
 * the line of the `index`-th element of the top-level member `section`, or
 * of that element's "key" member when it has one; of the member `section`
 * itself when index < 0; 1 if not found. */
int cat_text_entry_line(const char *text, size_t len, const char *section, long index);
/* Line of the first occurrence of "needle" (quoted) in the text, 1 if none. */
int cat_text_string_line(const char *text, size_t len, const char *needle);

#endif
