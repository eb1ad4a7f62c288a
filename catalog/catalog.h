/* catalog.h - mlsysim's catalog (hardware, models, systems, infrastructure,
 * datasets and the scalar tables solvers read), in editions.
 *
 * The data files under catalog/data/ (one per kind, <plural>.json, written
 * by tools/gen_catalog.py) are embedded into the binary at build time (see
 * cmake/embed.cmake). At start-up catalog_load() parses them once, builds
 * the `current` edition (top-level upstream values) and the `tutorial`
 * edition (current + catalog/data/edition_tutorial.json overlay), optionally
 * adds/overrides entries from *.json files in an extra directory, builds
 * every record (references resolved in the record's own edition, so a
 * tutorial cluster embeds the tutorial node) and a case-insensitive hash
 * index of keys ("A100"), mlsysim paths ("Hardware.Cloud.A100") and legacy
 * aliases per kind. After that everything here is read-only and thread-safe.
 *
 * File format (embedded and --catalog-dir alike): a JSON object whose
 * members are kinds' plural names ("hardware", "models", "nodes",
 * "clusters", ...) with arrays of entries, plus optional "aliases"
 * ({"<plural>": {"<alias>": "<id>"}}) and "about". An entry is an object
 * with "key", "id", "name", "group" and the fields of its kind (see the
 * catalog/data files); a quantity is {"value": 80, "unit": "GiB", "si":
 * 85899345920, "si_unit": "B"}, a string with a unit ("80 GiB") or a bare
 * number in SI base units; a reference to another entry is its id. Sections
 * load in the order of the kinds table and files in name order, so an entry
 * may refer to entries of earlier files and of earlier kinds. */
#ifndef MLSYSD_CATALOG_H
#define MLSYSD_CATALOG_H

#include <jansson.h>
#include <stddef.h>

#include "core/fleet.h"
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
/* Computes what catalog_load leaves to first use (the editions' versions), so
 * that no request pays for it: the daemon calls it once it is ready. */
void catalog_warm(const catalog *c);

const char *edition_name(const catalog_edition *e);     /* "current" / "tutorial" */
/* 16 hex digits: FNV-1a 64 of the edition's data (canonical JSON), computed on
 * first use, thread-safe. */
const char *edition_version(const catalog_edition *e);
const char *edition_description(const catalog_edition *e);

/* ---- kinds ----------------------------------------------------------------
 * The kinds of entry the catalog serves, one row of a table each (see
 * catalog/kinds.c and docs in README.md): hardware, models, nodes, fabrics,
 * clusters, grids, cooling, datacenters, racks, datasets (records a solver
 * input can refer to) and the display-only tables reliability, prices,
 * network, pods and infrastructure. Static data: callable any time. */
typedef struct catalog_kind catalog_kind;

size_t catalog_kind_count(void);
const catalog_kind *catalog_kind_at(size_t i);
/* By plural or singular name, case-insensitive ("fabrics", "Fabric"); NULL if none. */
const catalog_kind *catalog_kind_find(const char *name);
/* The kind whose records are of record_kind k; NULL if k is out of range. */
const catalog_kind *catalog_kind_of(record_kind k);
const char *catalog_kind_name(const catalog_kind *k);      /* plural: "fabrics" */
const char *catalog_kind_singular(const catalog_kind *k);  /* "fabric"          */
/* record_kind of the kind's records, or -1 for a display-only table. */
int catalog_kind_record(const catalog_kind *k);
/* Size of one record (core/model.h, core/fleet.h); 0 for a display-only table. */
size_t catalog_kind_record_size(const catalog_kind *k);

/* ---- entries of an edition ---------------------------------------------------- */

size_t edition_count(const catalog_edition *e, const catalog_kind *k);
/* The i-th record (hw_node, model_t, node_t, fabric_t, fleet_t, grid_t,
 * cooling_t, datacenter_t, rack_t, dataset_t); NULL for a display-only kind
 * or i out of range. */
const void *edition_record(const catalog_edition *e, const catalog_kind *k, size_t i);
/* Full entry (every field with value, unit, si, si_unit, provenance,
 * source) as borrowed JSON; do not modify. References to other entries are
 * ids as written (a cluster's "node": "Systems.Nodes.DGX_H100"). */
const json_t *edition_entry_json(const catalog_edition *e, const catalog_kind *k, size_t i);
/* Compact view for lists (new reference): key, id, name, group where the
 * kind has groups, the kind's key figures in SI units, and "units". */
json_t *edition_entry_summary(const catalog_edition *e, const catalog_kind *k, size_t i);
/* The same summary of any record of a record kind (e.g. one resolved from
 * an inline request object); new reference. */
json_t *catalog_record_summary(const catalog_kind *k, const void *rec);
/* Index of an id (key, mlsysim path, or legacy alias; case-insensitive); -1 if unknown. */
long edition_find(const catalog_edition *e, const catalog_kind *k, const char *id);

/* Up to max nearest keys to an unknown id (edit distance, case-insensitive),
 * best first. Returns how many were written; pointers are borrowed. */
int edition_suggest(const catalog_edition *e, const catalog_kind *k, const char *id,
                    const char **out, int max);

/* A reference in a request, resolved to a record of k's struct in `out`
 * (catalog_kind_record_size(k) bytes). `obj` is
 *  - an id string (key, path or alias), or
 *  - {"base": "<id>", <field>: <value>...}: a catalog entry with fields
 *    overridden (nested objects like "memory": {"capacity": ...} and dotted
 *    names like "memory.capacity" both work), or
 *  - an object without "base": a custom entry (the kind's required fields
 *    must be there; key defaults to "custom").
 * Reference fields inside (node.accelerator, cluster node/fabric/region/
 * datacenter, datacenter.grid) are ids or inline objects in turn, resolved
 * in the same edition. Returns 0; 404 for an unknown id (err has
 * suggestions); 400 for a bad field or a display-only kind. On error
 * `field` (may be "") names the offending field relative to obj ("base",
 * "node", "node.accelerator", "count") and err = "<field>: <what was
 * expected>". */
int edition_resolve(const catalog_edition *e, const catalog_kind *k, const json_t *obj, void *out,
                    char *field, size_t fieldlen, char *err, size_t errlen);

#endif
