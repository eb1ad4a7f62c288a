/* edition.h - the catalog's editions inside (not an API): what catalog.c
 * (loading), edition.c (records and index) and resolve.c (ids and inline
 * entries) share. Layering, bottom up: edition.c, resolve.c, catalog.c;
 * each calls only the ones below it. */
#ifndef MLSYSD_CATALOG_EDITION_H
#define MLSYSD_CATALOG_EDITION_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog/catalog_internal.h"

typedef struct {
    char *name; /* lower-cased key, path or alias */
    long idx;
} ix_slot;

typedef struct {
    ix_slot *slots;
    size_t cap; /* power of two; 0 until the kind's records are built */
} ix_table;

/* The entries of one kind in one edition. */
typedef struct {
    size_t n, cap;
    json_t **js;           /* entry JSON, one reference each        */
    unsigned char *recs;   /* n records of the kind's size          */
    ix_table ix;
} kind_entries;

struct catalog_edition {
    char name[16];
    char *description;
    char version[17];             /* edition_version(): filled on first use */
    _Atomic bool version_ready;   /* version holds the hash (edition.c) */
    const catalog *cat;
    kind_entries k[CAT_N_KINDS];
};

struct catalog {
    catalog_edition ed[2];     /* current, tutorial */
    json_t *aliases[CAT_N_KINDS];  /* legacy alias -> target id/key, per kind */
};

/* ---- records and index (edition.c) ----------------------------------------------
 * ki is a kind's index in cat_kinds. */

/* Record i of kind ki, and its identity (every record starts with rec_ident). */
void *cat_rec_at(const catalog_edition *e, size_t ki, size_t i);
const rec_ident *cat_ident_at(const catalog_edition *e, size_t ki, size_t i);
/* Linear search by key (key_only) or key and id, case-insensitive: for loading,
 * before the index exists; -1 if none. */
long cat_find_linear(const catalog_edition *e, size_t ki, const char *id, bool key_only);
/* Room for one more entry of kind ki; 0 or -1 (out of memory). */
int cat_grow(catalog_edition *e, size_t ki);
/* Add an entry and its record, or replace the one with the same key
 * (case-insensitive); takes a new reference to `entry`. 0 or -1. */
int cat_put_entry(catalog_edition *e, size_t ki, json_t *entry, const void *rec);
/* src lower-cased into dst; false if it does not fit. */
bool cat_lower_copy(char *dst, size_t n, const char *src);
/* The case-insensitive index of kind ki: keys, then paths, then `aliases`
 * (alias -> id); built once the records are final. */
int cat_ix_build(catalog_edition *e, size_t ki, const json_t *aliases);
long cat_ix_get(const ix_table *t, const char *name);
void cat_ix_free(ix_table *t);
/* An id of kind ki: through the index once built, else (while loading) by
 * key, path or alias; -1 if unknown. */
long cat_lookup(const catalog_edition *e, size_t ki, const char *id);

/* ---- resolving (resolve.c) -------------------------------------------------------- */

/* cat_extract with references resolved in edition e (ids looked up, inline
 * objects read in turn); same returns. */
int cat_extract_in(const catalog_edition *e, const catalog_kind *k, const json_t *entry, void *out, char *field,
                   size_t fieldlen, char *err, size_t errlen);

#endif
