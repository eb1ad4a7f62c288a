/* edition.c - an edition's entries: records, the hash index, lookups and
 * the version, and the read-only accessors of catalog.h ("editions",
 * "entries of an edition").
 *
 * Contract (edition.h, catalog.h): entries are stored per kind as entry JSON
 * (one reference each) and records of the kind's size, in catalog order; a
 * replaced key keeps its place. The index maps lower-cased keys, mlsysim
 * paths and legacy aliases to an entry (first one wins: keys, then paths,
 * then aliases). Once catalog_load has built an edition nothing here changes
 * it (but for its version, computed once on first use), so every lookup is
 * thread-safe. Calls down only: the kinds table and
 * the list views (summary.c). */
#include "catalog/edition.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- records ------------------------------------------------------------ */

void *cat_rec_at(const catalog_edition *e, size_t ki, size_t i)
{
    return e->k[ki].recs + i * cat_kinds[ki].size;
}

const rec_ident *cat_ident_at(const catalog_edition *e, size_t ki, size_t i)
{
    return cat_rec_at(e, ki, i);
}

/* Linear search by key or id (used while loading, before the index exists). */
long cat_find_linear(const catalog_edition *e, size_t ki, const char *id, bool key_only)
{
    for (size_t i = 0; i < e->k[ki].n; i++)
        if (strcasecmp(cat_ident_at(e, ki, i)->key, id) == 0 ||
            (!key_only && strcasecmp(cat_ident_at(e, ki, i)->id, id) == 0))
            return (long)i;
    return -1;
}

int cat_grow(catalog_edition *e, size_t ki)
{
    kind_entries *ke = &e->k[ki];
    if (ke->n < ke->cap)
        return 0;
    size_t nc = ke->cap ? ke->cap * 2 : 16;
    json_t **js = realloc(ke->js, nc * sizeof *js);
    if (js == NULL)
        return -1;
    ke->js = js;
    unsigned char *recs = realloc(ke->recs, nc * cat_kinds[ki].size);
    if (recs == NULL)
        return -1;
    ke->recs = recs;
    ke->cap = nc;
    return 0;
}

/* Add an entry, or replace the one with the same key (case-insensitive).
 * Takes a new reference to `entry`. */
int cat_put_entry(catalog_edition *e, size_t ki, json_t *entry, const void *rec)
{
    long i = cat_find_linear(e, ki, ((const rec_ident *)rec)->key, true);
    if (i < 0) {
        if (cat_grow(e, ki) != 0)
            return -1;
        i = (long)e->k[ki].n++;
    } else {
        json_decref(e->k[ki].js[i]);
    }
    e->k[ki].js[i] = json_incref(entry);
    memcpy(cat_rec_at(e, ki, (size_t)i), rec, cat_kinds[ki].size);
    return 0;
}

/* ---- index -------------------------------------------------------------- */

static uint64_t fnv1a(const char *s, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

#define FNV_OFFSET 14695981039346656037ULL

bool cat_lower_copy(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n)
        return false;
    for (size_t i = 0; i <= len; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    return true;
}

long cat_ix_get(const ix_table *t, const char *name)
{
    char low[256];
    if (t->cap == 0 || !cat_lower_copy(low, sizeof low, name))
        return -1;
    size_t mask = t->cap - 1;
    for (size_t h = fnv1a(low, strlen(low), FNV_OFFSET) & mask;; h = (h + 1) & mask) {
        if (t->slots[h].name == NULL)
            return -1;
        if (strcmp(t->slots[h].name, low) == 0)
            return t->slots[h].idx;
    }
}

/* First one wins: keys, then paths, then aliases. */
static int ix_put(ix_table *t, const char *name, long idx)
{
    char low[256];
    if (!cat_lower_copy(low, sizeof low, name))
        return 0; /* too long to be looked up anyway */
    size_t mask = t->cap - 1;
    size_t h = fnv1a(low, strlen(low), FNV_OFFSET) & mask;
    while (t->slots[h].name != NULL) {
        if (strcmp(t->slots[h].name, low) == 0)
            return 0;
        h = (h + 1) & mask;
    }
    t->slots[h].name = strdup(low);
    if (t->slots[h].name == NULL)
        return -1;
    t->slots[h].idx = idx;
    return 0;
}

void cat_ix_free(ix_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].name);
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
}

int cat_ix_build(catalog_edition *e, size_t ki, const json_t *aliases)
{
    kind_entries *ke = &e->k[ki];
    size_t want = 2 * (2 * ke->n + json_object_size(aliases)) + 16, cap = 64;
    while (cap < want)
        cap *= 2;
    ke->ix.slots = calloc(cap, sizeof(ix_slot));
    if (ke->ix.slots == NULL)
        return -1;
    ke->ix.cap = cap;
    for (size_t i = 0; i < ke->n; i++)
        if (ix_put(&ke->ix, cat_ident_at(e, ki, i)->key, (long)i) != 0)
            return -1;
    for (size_t i = 0; i < ke->n; i++)
        if (ix_put(&ke->ix, cat_ident_at(e, ki, i)->id, (long)i) != 0)
            return -1;
    const char *alias;
    json_t *target;
    json_object_foreach((json_t *)aliases, alias, target) {
        long i = cat_ix_get(&ke->ix, json_string_value(target));
        if (i >= 0 && ix_put(&ke->ix, alias, i) != 0)
            return -1;
    }
    return 0;
}

/* An id of kind ki: through the index once it is built, else (while
 * loading) by key, path or alias. */
long cat_lookup(const catalog_edition *e, size_t ki, const char *id)
{
    if (id == NULL)
        return -1;
    if (e->k[ki].ix.cap > 0)
        return cat_ix_get(&e->k[ki].ix, id);
    long i = cat_find_linear(e, ki, id, false);
    const char *alias;
    json_t *target;
    json_object_foreach(e->cat->aliases[ki], alias, target) {
        if (i >= 0)
            break;
        if (strcasecmp(alias, id) == 0)
            i = cat_find_linear(e, ki, json_string_value(target), false);
    }
    return i;
}

/* ---- edition version ------------------------------------------------------ */

/* FNV-1a 64 of the edition's canonical JSON (compact, sorted keys) and the
 * catalog's aliases: about a third of catalog_load's work, so it is done on
 * first use (edition_version) or by catalog_warm, once per edition under
 * g_version_lock. false when out of memory (the next call tries again). */
static pthread_mutex_t g_version_lock = PTHREAD_MUTEX_INITIALIZER;

static bool compute_version(catalog_edition *e)
{
    const catalog *c = e->cat;
    json_t *doc = json_object(), *aliases = json_object();
    if (doc == NULL || aliases == NULL) {
        json_decref(doc);
        json_decref(aliases);
        return false;
    }
    for (size_t ki = 0; ki < CAT_N_KINDS; ki++) {
        json_t *arr = json_array();
        for (size_t i = 0; i < e->k[ki].n; i++)
            json_array_append(arr, e->k[ki].js[i]);
        json_object_set_new(doc, cat_kinds[ki].plural, arr);
        if (json_object_size(c->aliases[ki]) > 0)
            json_object_set(aliases, cat_kinds[ki].plural, c->aliases[ki]);
    }
    json_object_set_new(doc, "aliases", aliases);
    char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(doc);
    if (text == NULL)
        return false;
    uint64_t h = fnv1a(text, strlen(text), FNV_OFFSET);
    free(text);
    snprintf(e->version, sizeof e->version, "%016llx", (unsigned long long)h);
    return true;
}

/* ---- editions ----------------------------------------------------------- */

size_t catalog_edition_count(const catalog *c)
{
    return c ? 2 : 0;
}

const catalog_edition *catalog_edition_at(const catalog *c, size_t i)
{
    return c && i < 2 ? &c->ed[i] : NULL;
}

const catalog_edition *catalog_edition_find(const catalog *c, const char *name)
{
    if (c == NULL || name == NULL)
        return NULL;
    for (int i = 0; i < 2; i++)
        if (strcasecmp(c->ed[i].name, name) == 0)
            return &c->ed[i];
    return NULL;
}

const catalog_edition *catalog_default_edition(const catalog *c)
{
    return c ? &c->ed[0] : NULL;
}

const char *edition_name(const catalog_edition *e) { return e->name; }
const char *edition_version(const catalog_edition *e)
{
    if (atomic_load_explicit(&e->version_ready, memory_order_acquire))
        return e->version;
    /* The edition is immutable once loaded except for this one field, which
     * is written once, under the lock, before version_ready says so. */
    catalog_edition *w = (catalog_edition *)e;
    pthread_mutex_lock(&g_version_lock);
    if (!atomic_load_explicit(&w->version_ready, memory_order_relaxed) && compute_version(w))
        atomic_store_explicit(&w->version_ready, true, memory_order_release);
    pthread_mutex_unlock(&g_version_lock);
    return e->version; /* "" only when out of memory */
}

void catalog_warm(const catalog *c)
{
    for (size_t i = 0; i < catalog_edition_count(c); i++)
        (void)edition_version(catalog_edition_at(c, i));
}
const char *edition_description(const catalog_edition *e) { return e->description; }

/* ---- entries ------------------------------------------------------------- */

size_t edition_count(const catalog_edition *e, const catalog_kind *k)
{
    return e->k[cat_kind_index(k)].n;
}

const void *edition_record(const catalog_edition *e, const catalog_kind *k, size_t i)
{
    size_t ki = cat_kind_index(k);
    return k->record >= 0 && i < e->k[ki].n ? cat_rec_at(e, ki, i) : NULL;
}

const json_t *edition_entry_json(const catalog_edition *e, const catalog_kind *k, size_t i)
{
    size_t ki = cat_kind_index(k);
    return i < e->k[ki].n ? e->k[ki].js[i] : NULL;
}

json_t *edition_entry_summary(const catalog_edition *e, const catalog_kind *k, size_t i)
{
    size_t ki = cat_kind_index(k);
    if (i >= e->k[ki].n)
        return NULL;
    if (k->summary != NULL)
        return k->summary(cat_rec_at(e, ki, i));
    return cat_summary(k, cat_rec_at(e, ki, i), e->k[ki].js[i]);
}

json_t *catalog_record_summary(const catalog_kind *k, const void *rec)
{
    if (k->record < 0)
        return NULL;
    return k->summary != NULL ? k->summary(rec) : cat_summary(k, rec, NULL);
}

long edition_find(const catalog_edition *e, const catalog_kind *k, const char *id)
{
    return id && k ? cat_ix_get(&e->k[cat_kind_index(k)].ix, id) : -1;
}
