/* catalog.c - load the catalog once, build its editions, answer lookups,
 * for every kind of the kinds table (kinds.c).
 *
 * Start-up (catalog_load): for each kind, in the table's (dependency)
 * order, the embedded catalog/data/<plural>.json is parsed once with
 * jansson (see tools/gen_catalog.py for where the files come from) and
 * each entry is checked by reading it (entry.c:cat_extract), references
 * to other entries resolved against the entries loaded so far. The
 * `current` edition holds the entries as they are; `tutorial` shares every
 * entry with it except those the overlay changes, which are shallow copies
 * with the changed members replaced (entry.c:cat_merge). Then *.json files
 * of an extra directory add or replace entries in both editions. Last,
 * each edition builds its records kind by kind in table order - so a
 * cluster embeds its own edition's node, fabric, region and datacenter as
 * they finally are - and each kind's hash index, and the edition gets its
 * version (FNV-1a 64 of its canonical JSON). After catalog_load nothing
 * changes, so lookups need no locks; resolving an inline entry copies what
 * it changes (jansson's reference counts are atomic,
 * JSON_HAVE_ATOMIC_BUILTINS). */
#include "catalog/catalog.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "catalog/catalog_internal.h"
#include "catalog/embedded.h"

#define N_KINDS CAT_N_KINDS

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
    char version[17];
    const catalog *cat;
    kind_entries k[N_KINDS];
};

struct catalog {
    catalog_edition ed[2];     /* current, tutorial */
    json_t *aliases[N_KINDS];  /* legacy alias -> target id/key, per kind */
};

static const char OVERLAY_NOTE[] = "edition tutorial (catalog/data/edition_tutorial.json)";

static const char CURRENT_DESCRIPTION[] =
    "The newest upstream mlsysim catalog values: the top-level value of each entry as read "
    "from the mlsysim YAML and Python registries (each entry's \"source\" names the file and "
    "commit).";

/* ---- kinds ---------------------------------------------------------------- */

size_t catalog_kind_count(void)
{
    return N_KINDS;
}

const catalog_kind *catalog_kind_at(size_t i)
{
    return i < N_KINDS ? &cat_kinds[i] : NULL;
}

const catalog_kind *catalog_kind_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < N_KINDS; i++)
        if (strcasecmp(cat_kinds[i].plural, name) == 0 || strcasecmp(cat_kinds[i].singular, name) == 0)
            return &cat_kinds[i];
    return NULL;
}

const catalog_kind *catalog_kind_of(record_kind k)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (cat_kinds[i].record == (int)k)
            return &cat_kinds[i];
    return NULL;
}

const char *catalog_kind_name(const catalog_kind *k) { return k->plural; }
const char *catalog_kind_singular(const catalog_kind *k) { return k->singular; }
int catalog_kind_record(const catalog_kind *k) { return k->record; }
size_t catalog_kind_record_size(const catalog_kind *k) { return k->record >= 0 ? k->size : 0; }

/* The kind whose file section is exactly `name` (files are case-sensitive). */
static long kind_by_section(const char *name)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (strcmp(cat_kinds[i].plural, name) == 0)
            return (long)i;
    return -1;
}

/* ---- records ------------------------------------------------------------ */

static void *rec_at(const catalog_edition *e, size_t ki, size_t i)
{
    return e->k[ki].recs + i * cat_kinds[ki].size;
}

static const rec_ident *ident_at(const catalog_edition *e, size_t ki, size_t i)
{
    return rec_at(e, ki, i);
}

/* Linear search by key or id (used while loading, before the index exists). */
static long find_linear(const catalog_edition *e, size_t ki, const char *id, bool key_only)
{
    for (size_t i = 0; i < e->k[ki].n; i++)
        if (strcasecmp(ident_at(e, ki, i)->key, id) == 0 ||
            (!key_only && strcasecmp(ident_at(e, ki, i)->id, id) == 0))
            return (long)i;
    return -1;
}

static int grow(catalog_edition *e, size_t ki)
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
static int put_entry(catalog_edition *e, size_t ki, json_t *entry, const void *rec)
{
    long i = find_linear(e, ki, ((const rec_ident *)rec)->key, true);
    if (i < 0) {
        if (grow(e, ki) != 0)
            return -1;
        i = (long)e->k[ki].n++;
    } else {
        json_decref(e->k[ki].js[i]);
    }
    e->k[ki].js[i] = json_incref(entry);
    memcpy(rec_at(e, ki, (size_t)i), rec, cat_kinds[ki].size);
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

static bool lower_copy(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n)
        return false;
    for (size_t i = 0; i <= len; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    return true;
}

static long ix_get(const ix_table *t, const char *name)
{
    char low[256];
    if (t->cap == 0 || !lower_copy(low, sizeof low, name))
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
    if (!lower_copy(low, sizeof low, name))
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

static void ix_free(ix_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].name);
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
}

static int ix_build(catalog_edition *e, size_t ki, const json_t *aliases)
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
        if (ix_put(&ke->ix, ident_at(e, ki, i)->key, (long)i) != 0)
            return -1;
    for (size_t i = 0; i < ke->n; i++)
        if (ix_put(&ke->ix, ident_at(e, ki, i)->id, (long)i) != 0)
            return -1;
    const char *alias;
    json_t *target;
    json_object_foreach((json_t *)aliases, alias, target) {
        long i = ix_get(&ke->ix, json_string_value(target));
        if (i >= 0 && ix_put(&ke->ix, alias, i) != 0)
            return -1;
    }
    return 0;
}

/* An id of kind ki: through the index once it is built, else (while
 * loading) by key, path or alias. */
static long lookup(const catalog_edition *e, size_t ki, const char *id)
{
    if (id == NULL)
        return -1;
    if (e->k[ki].ix.cap > 0)
        return ix_get(&e->k[ki].ix, id);
    long i = find_linear(e, ki, id, false);
    const char *alias;
    json_t *target;
    json_object_foreach(e->cat->aliases[ki], alias, target) {
        if (i >= 0)
            break;
        if (strcasecmp(alias, id) == 0)
            i = find_linear(e, ki, json_string_value(target), false);
    }
    return i;
}

/* ---- edition version ------------------------------------------------------ */

static int compute_version(catalog_edition *e, const catalog *c)
{
    json_t *doc = json_object(), *aliases = json_object();
    if (doc == NULL || aliases == NULL) {
        json_decref(doc);
        json_decref(aliases);
        return -1;
    }
    for (size_t ki = 0; ki < N_KINDS; ki++) {
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
        return -1;
    uint64_t h = fnv1a(text, strlen(text), FNV_OFFSET);
    free(text);
    snprintf(e->version, sizeof e->version, "%016llx", (unsigned long long)h);
    return 0;
}

/* Rank: 0 = the id starts a key or path ("A10" -> A100, "resnet" ->
 * ResNet18), 1 = the id occurs inside one, 2 = a small edit distance; then
 * by distance, shorter key, catalog order. */
typedef struct {
    int tier;
    size_t dist, len, order;
    const char *key;
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->tier != y->tier)
        return x->tier < y->tier ? -1 : 1;
    if (x->dist != y->dist)
        return x->dist < y->dist ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int match_tier(const char *q, const char *s)
{
    char ls[256];
    if (!lower_copy(ls, sizeof ls, s))
        return 3;
    if (strncmp(ls, q, strlen(q)) == 0)
        return 0;
    if (strstr(ls, q) != NULL)
        return 1;
    return 3;
}

int edition_suggest(const catalog_edition *e, const catalog_kind *k, const char *id,
                    const char **out, int max)
{
    char q[256];
    if (e == NULL || k == NULL || id == NULL || max <= 0 || !lower_copy(q, sizeof q, id) ||
        q[0] == '\0')
        return 0;
    size_t ki = cat_kind_index(k), n = e->k[ki].n;
    cand *cs = calloc(n ? n : 1, sizeof *cs);
    if (cs == NULL)
        return 0;
    size_t qlen = strlen(q), lim = qlen / 3 < 2 ? 2 : qlen / 3, m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *key = ident_at(e, ki, i)->key, *path = ident_at(e, ki, i)->id;
        size_t dk = cat_edit_distance(q, key), dp = cat_edit_distance(q, path);
        size_t d = dk < dp ? dk : dp;
        int t = match_tier(q, key), tp = match_tier(q, path);
        if (tp < t)
            t = tp;
        if (t > 1 && d <= lim)
            t = 2;
        if (t > 2)
            continue;
        cs[m++] = (cand){t, d, strlen(key), i, key};
    }
    qsort(cs, m, sizeof *cs, cmp_cand);
    int w = 0;
    for (size_t i = 0; i < m && w < max; i++)
        out[w++] = cs[i].key;
    free(cs);
    return w;
}

/* ---- resolving ids and inline entries -------------------------------------- */

static void set_out(char *buf, size_t n, const char *s)
{
    if (buf != NULL && n > 0)
        snprintf(buf, n, "%s", s);
}

/* 404 for an unknown id, with the nearest keys and, when the id names an
 * entry of another kind ("a fabric where a node belongs"), that kind. */
static int unknown_id(const catalog_edition *e, const catalog_kind *k, const char *id,
                      const char *fname, char *field, size_t fieldlen, char *err, size_t errlen)
{
    const char *sug[3];
    int ns = edition_suggest(e, k, id, sug, 3);
    char msg[512];
    size_t used = (size_t)snprintf(msg, sizeof msg, "unknown %s \"%s\" in the %s catalog",
                                   k->singular, id, e->name);
    for (size_t ki = 0; ki < N_KINDS && used < sizeof msg; ki++)
        if (&cat_kinds[ki] != k && lookup(e, ki, id) >= 0) {
            used += (size_t)snprintf(msg + used, sizeof msg - used, " (\"%s\" is a %s, not a %s)",
                                     id, cat_kinds[ki].singular, k->singular);
            break;
        }
    for (int i = 0; i < ns && used < sizeof msg; i++)
        used += (size_t)snprintf(msg + used, sizeof msg - used, "%s\"%s\"%s",
                                 i == 0 ? " (did you mean " : i == ns - 1 ? " or " : ", ", sug[i],
                                 i == ns - 1 ? "?)" : "");
    set_out(field, fieldlen, fname);
    if (fname[0] != '\0' && err != NULL && errlen > 0)
        snprintf(err, errlen, "%s: %s", fname, msg);
    else
        set_out(err, errlen, msg);
    return 404;
}

static int resolve(const catalog_edition *e, const catalog_kind *k, const json_t *obj, void *out,
                   char *field, size_t fieldlen, char *err, size_t errlen);

/* cat_resolver for reference fields: resolve in the edition `ctx`. */
static int resolve_ref(void *ctx, const catalog_kind *k, const json_t *v, void *out, char *field,
                       size_t fieldlen, char *err, size_t errlen)
{
    return resolve(ctx, k, v, out, field, fieldlen, err, errlen);
}

static int extract_in(const catalog_edition *e, const catalog_kind *k, const json_t *entry,
                      void *out, char *field, size_t fieldlen, char *err, size_t errlen)
{
    cat_resolver r = {resolve_ref, (void *)e};
    return cat_extract(k, entry, out, &r, field, fieldlen, err, errlen);
}

static int resolve(const catalog_edition *e, const catalog_kind *k, const json_t *obj, void *out,
                   char *field, size_t fieldlen, char *err, size_t errlen)
{
    size_t ki = cat_kind_index(k);
    set_out(field, fieldlen, "");
    set_out(err, errlen, "");
    if (e == NULL || obj == NULL) {
        set_out(err, errlen, "missing");
        return 400;
    }
    if (json_is_string(obj)) {
        long i = lookup(e, ki, json_string_value(obj));
        if (i < 0)
            return unknown_id(e, k, json_string_value(obj), "", field, fieldlen, err, errlen);
        memcpy(out, rec_at(e, ki, (size_t)i), k->size);
        return 0;
    }
    if (!json_is_object(obj)) {
        char msg[240];
        snprintf(msg, sizeof msg, "expected a %s id (e.g. \"%s\") or an object with \"base\" "
                 "and fields to override, or the fields of a custom %s",
                 k->singular, k->example, k->singular);
        set_out(err, errlen, msg);
        return 400;
    }
    const json_t *base = json_object_get(obj, "base");
    json_t *m;
    if (base != NULL) {
        if (!json_is_string(base)) {
            set_out(field, fieldlen, "base");
            char msg[160];
            snprintf(msg, sizeof msg, "base: expected a %s id string (e.g. \"%s\")", k->singular,
                     k->example);
            set_out(err, errlen, msg);
            return 400;
        }
        long i = lookup(e, ki, json_string_value(base));
        if (i < 0)
            return unknown_id(e, k, json_string_value(base), "base", field, fieldlen, err, errlen);
        if (json_object_size(obj) == 1) {
            memcpy(out, rec_at(e, ki, (size_t)i), k->size);
            return 0;
        }
        m = json_copy(e->k[ki].js[i]);
    } else {
        m = json_object();
    }
    if (m == NULL) {
        set_out(err, errlen, "out of memory");
        return 500;
    }
    int rc = cat_merge(k, m, obj, "base", field, fieldlen, err, errlen);
    if (rc == 0 && base == NULL) {
        /* A custom entry without a key is called "custom" (name and id
         * default to the key in cat_extract). */
        json_t *kv = json_object_get(m, "key");
        if (kv == NULL || json_is_null(kv))
            json_object_set_new(m, "key", json_string("custom"));
    }
    if (rc == 0)
        rc = extract_in(e, k, m, out, field, fieldlen, err, errlen);
    json_decref(m);
    return rc;
}

int edition_resolve(const catalog_edition *e, const catalog_kind *k, const json_t *obj, void *out,
                    char *field, size_t fieldlen, char *err, size_t errlen)
{
    if (k == NULL || k->record < 0) {
        set_out(field, fieldlen, "");
        char msg[160];
        snprintf(msg, sizeof msg, "%s entries are shown by /catalog but are not solver inputs",
                 k ? k->singular : "unknown");
        set_out(err, errlen, msg);
        return 400;
    }
    return resolve(e, k, obj, out, field, fieldlen, err, errlen);
}

/* ---- loading ------------------------------------------------------------ */

typedef struct {
    const char *path;  /* for messages */
    const char *text;
    size_t len;
    char *err;
    size_t errlen;
} src_file;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int load_fail(const src_file *f, int line, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (f->err != NULL && f->errlen > 0)
        snprintf(f->err, f->errlen, "%s:%d: %s", f->path, line > 0 ? line : 1, msg);
    return -1;
}

static json_t *parse_file(const src_file *f)
{
    json_error_t je;
    json_t *root = json_loadb(f->text, f->len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) {
        load_fail(f, je.line, "%s (column %d)", je.text, je.column);
        return NULL;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        load_fail(f, 1, "expected a JSON object with sections of entries (\"hardware\", \"models\", \"nodes\", ...)");
        return NULL;
    }
    return root;
}


/* A catalog file: {"about", "aliases", "<plural>": [...] ...}. */
static int check_top(const src_file *f, const json_t *root)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)root, k, v) {
        if (kind_by_section(k) >= 0 || strcmp(k, "aliases") == 0 || strcmp(k, "about") == 0 ||
            strcmp(k, "description") == 0 || strcmp(k, "note") == 0)
            continue;
        char kinds[400];
        size_t used = 0;
        for (size_t i = 0; i < N_KINDS && used < sizeof kinds; i++)
            used += (size_t)snprintf(kinds + used, sizeof kinds - used, "%s\"%s\"", i ? ", " : "",
                                     cat_kinds[i].plural);
        return load_fail(f, cat_text_entry_line(f->text, f->len, k, -1),
                         "unknown top-level member \"%s\" (a catalog file has \"aliases\", "
                         "\"about\" and sections of entries: %s)", k, kinds);
    }
    return 0;
}

/* Where entry i of a section is in the text; only computed for a message
 * (it rescans the text). */
static int entry_line(const src_file *f, size_t ki, size_t i)
{
    return cat_text_entry_line(f->text, f->len, cat_kinds[ki].plural, (long)i);
}

/* A --catalog-dir entry needs a path (and, in kinds with groups in their
 * paths, a group) for /catalog: a replacement keeps those of the entry it
 * replaces (so "Hardware.Cloud.A100" and the legacy aliases still find
 * it), a new one gets <prefix>[.Custom].<key>. Say which file it came
 * from unless it says so itself. */
static void fill_file_defaults(const catalog *c, size_t ki, json_t *entry, const char *key,
                               const src_file *f)
{
    const catalog_kind *k = &cat_kinds[ki];
    long old = find_linear(&c->ed[0], ki, key, true);
    const json_t *prev = old >= 0 ? c->ed[0].k[ki].js[old] : NULL;
    if (prev != NULL && json_object_get(entry, "group") == NULL && json_object_get(prev, "group"))
        json_object_set(entry, "group", json_object_get(prev, "group"));
    if (prev != NULL && json_object_get(entry, "id") == NULL)
        json_object_set_new(entry, "id", json_string(ident_at(&c->ed[0], ki, (size_t)old)->id));
    if (k->group_in_id && json_object_get(entry, "group") == NULL)
        json_object_set_new(entry, "group", json_string("Custom"));
    if (json_object_get(entry, "id") == NULL) {
        const char *g = json_string_value(json_object_get(entry, "group"));
        char id[ID_LEN * 2];
        if (k->group_in_id)
            snprintf(id, sizeof id, "%s.%s.%s", k->id_prefix, g ? g : "Custom", key);
        else
            snprintf(id, sizeof id, "%s.%s", k->id_prefix, key);
        json_object_set_new(entry, "id", json_string(id));
    }
    if (json_object_get(entry, "source") == NULL)
        json_object_set_new(entry, "source", json_pack("{ss}", "path", f->path));
}

/* Add every entry of one section of a file to the editions in `eds`
 * (bit 0 current, bit 1 tutorial), each checked in its edition. */
static int add_section(catalog *c, int eds, size_t ki, json_t *root, const src_file *f,
                       bool fill_defaults, unsigned char *rec)
{
    const catalog_kind *k = &cat_kinds[ki];
    json_t *arr = json_object_get(root, k->plural);
    if (arr == NULL)
        return 0;
    if (!json_is_array(arr))
        return load_fail(f, cat_text_entry_line(f->text, f->len, k->plural, -1),
                         "\"%s\" must be an array of entries", k->plural);
    size_t i;
    json_t *entry;
    json_array_foreach(arr, i, entry) {
        if (!json_is_object(entry))
            return load_fail(f, entry_line(f, ki, i), "%s entry #%zu: expected an object",
                             k->singular, i);
        const char *key = json_string_value(json_object_get(entry, "key"));
        if (fill_defaults && key != NULL)
            fill_file_defaults(c, ki, entry, key, f);
        for (int e = 0; e < 2; e++) {
            if (!(eds & (1 << e)))
                continue;
            char field[128], err[512];
            if (extract_in(&c->ed[e], k, entry, rec, field, sizeof field, err, sizeof err) != 0) {
                if (key != NULL)
                    return load_fail(f, entry_line(f, ki, i), "%s \"%s\": %s", k->singular, key, err);
                return load_fail(f, entry_line(f, ki, i), "%s entry #%zu: %s", k->singular, i, err);
            }
            if (put_entry(&c->ed[e], ki, entry, rec) != 0)
                return load_fail(f, entry_line(f, ki, i), "out of memory");
        }
    }
    return 0;
}

/* "aliases": {"hardware": {"Hardware.A100": "Hardware.Cloud.A100"}, "models": {...}} */
static int add_aliases(catalog *c, json_t *root, const src_file *f)
{
    json_t *al = json_object_get(root, "aliases");
    if (al == NULL)
        return 0;
    int line = cat_text_entry_line(f->text, f->len, "aliases", -1);
    if (!json_is_object(al))
        return load_fail(f, line, "\"aliases\" must be an object {\"<kind>\": {\"<alias>\": "
                         "\"<id>\"}}, e.g. {\"hardware\": {...}}");
    const char *sec;
    json_t *tab;
    json_object_foreach(al, sec, tab) {
        long ki = kind_by_section(sec);
        if (ki < 0 || !json_is_object(tab))
            return load_fail(f, line, "\"aliases\" has an object (alias -> id) per kind, named "
                             "as the kind's section (\"hardware\", \"models\", ...); got \"%s\"", sec);
        const catalog_kind *k = &cat_kinds[ki];
        const char *alias;
        json_t *target;
        json_object_foreach(tab, alias, target) {
            if (!json_is_string(target))
                return load_fail(f, cat_text_string_line(f->text, f->len, alias),
                                 "alias \"%s\": the target must be a %s id string", alias, k->singular);
            if (find_linear(&c->ed[0], (size_t)ki, json_string_value(target), false) < 0)
                return load_fail(f, cat_text_string_line(f->text, f->len, alias),
                                 "alias \"%s\": \"%s\" is not a %s entry", alias,
                                 json_string_value(target), k->singular);
            json_object_set(c->aliases[ki], alias, target);
        }
    }
    return 0;
}

/* Load one catalog-format file into the editions in `eds`: its sections
 * in the order of the kinds table, then its aliases. */
static int load_catalog_file(catalog *c, int eds, const src_file *f, bool fill_defaults,
                             unsigned char *rec)
{
    json_t *root = parse_file(f);
    if (root == NULL)
        return -1;
    int rc = check_top(f, root);
    for (size_t ki = 0; ki < N_KINDS && rc == 0; ki++)
        rc = add_section(c, eds, ki, root, f, fill_defaults, rec);
    if (rc == 0)
        rc = add_aliases(c, root, f);
    json_decref(root);
    return rc;
}

/* Give an overlaid quantity its SI unit and origin like every other one. */
static void mark_overlaid(const catalog_kind *k, json_t *n, const char *path, json_t *v)
{
    const char *siu = cat_field_si_unit(k, path);
    const char *dot = strrchr(path, '.');
    if (siu == NULL || !json_is_object(v))
        return;
    json_t *parent = n;
    if (dot != NULL) {
        char pp[256];
        snprintf(pp, sizeof pp, "%.*s", (int)(dot - path), path);
        parent = cat_path_get(n, pp);
    }
    const char *leaf = dot ? dot + 1 : path;
    if (!json_is_object(json_object_get(parent, leaf)))
        return; /* e.g. a precision name spelt in another case */
    json_t *q = json_deep_copy(v);
    if (json_object_get(q, "si_unit") == NULL)
        json_object_set_new(q, "si_unit", json_string(siu));
    json_object_set_new(q, "note", json_string(OVERLAY_NOTE));
    json_object_set_new(parent, leaf, q);
}

/* The tutorial overlay: for each kind, at its `overlay` path (e.g.
 * "hardware", "systems.nodes"), {"<key>": {"<dotted path>": value|null}}.
 * Other members (calibration, notes) concern other modules and are
 * ignored. */
static int apply_overlay(catalog *c, const src_file *f, unsigned char *rec)
{
    catalog_edition *e = &c->ed[1];
    json_error_t je;
    json_t *ov = json_loadb(f->text, f->len, JSON_REJECT_DUPLICATES, &je);
    if (ov == NULL)
        return load_fail(f, je.line, "%s (column %d)", je.text, je.column);
    int rc = 0;
    const char *desc = json_string_value(json_object_get(ov, "description"));
    free(e->description);
    e->description = strdup(desc ? desc : "current + the tutorial overlay");
    for (size_t ki = 0; ki < N_KINDS && rc == 0; ki++) {
        const catalog_kind *k = &cat_kinds[ki];
        json_t *sec = cat_path_get(ov, k->overlay);
        if (sec == NULL)
            continue;
        if (!json_is_object(sec)) {
            rc = load_fail(f, cat_text_string_line(f->text, f->len, k->plural),
                           "\"%s\" must be an object of key -> changes", k->overlay);
            break;
        }
        const char *key;
        json_t *changes;
        json_object_foreach(sec, key, changes) {
            int line = cat_text_string_line(f->text, f->len, key);
            long i = find_linear(e, ki, key, true);
            if (i < 0) {
                rc = load_fail(f, line, "%s \"%s\" is not in the catalog", k->singular, key);
                break;
            }
            char field[128], err[512];
            json_t *n = json_copy(e->k[ki].js[i]);
            if (n == NULL || !json_is_object(changes) ||
                cat_merge(k, n, changes, NULL, field, sizeof field, err, sizeof err) != 0) {
                json_decref(n);
                rc = load_fail(f, line, "%s \"%s\": %s", k->singular, key,
                               json_is_object(changes) ? err : "expected an object of changes");
                break;
            }
            /* Say on the entry which fields this edition changed. */
            json_t *changed = json_array();
            const char *path;
            json_t *v;
            json_object_foreach(changes, path, v) {
                json_array_append_new(changed, json_string(path));
                mark_overlaid(k, n, path, v);
            }
            json_object_set_new(n, "edition_overrides", changed);
            if (extract_in(e, k, n, rec, field, sizeof field, err, sizeof err) != 0) {
                json_decref(n);
                rc = load_fail(f, line, "%s \"%s\": %s", k->singular, key, err);
                break;
            }
            /* Keep the derived ridge point in step with the overlaid numbers. */
            if (k->record == REC_HARDWARE &&
                json_is_number(json_object_get(n, "ridge_point_flop_per_byte"))) {
                const hw_node *hw = (const hw_node *)rec;
                json_object_set_new(n, "ridge_point_flop_per_byte",
                                    json_real(hw->peak_flops / hw->mem_bandwidth));
            }
            rc = put_entry(e, ki, n, rec) != 0 ? load_fail(f, line, "out of memory") : 0;
            json_decref(n);
            if (rc != 0)
                break;
        }
    }
    json_decref(ov);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        snprintf(err, errlen, "%s:1: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cap - n < 4096) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap + 1);
            if (nb == NULL) {
                free(buf);
                fclose(fp);
                snprintf(err, errlen, "%s:1: out of memory", path);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        snprintf(err, errlen, "%s:1: read error", path);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Every *.json in dir, sorted by name, into both editions. */
static int load_dir(catalog *c, const char *dir, unsigned char *rec, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(err, errlen, "%s: cannot open catalog directory: %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".json") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = realloc(names, cap * sizeof *nn);
            if (nn == NULL) {
                rc = -1;
                break;
            }
            names = nn;
        }
        if ((names[n] = strdup(de->d_name)) == NULL) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(d);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory", dir);
    if (n > 0)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        size_t len = 0;
        char *text = read_file(path, &len, err, errlen);
        if (text == NULL) {
            rc = -1;
            break;
        }
        src_file f = {path, text, len, err, errlen};
        rc = load_catalog_file(c, 3, &f, true, rec);
        free(text);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int embedded_src(const char *path, src_file *f, char *err, size_t errlen)
{
    const embedded_file *ef = embedded_find(path);
    if (ef == NULL) {
        snprintf(err, errlen, "%s:1: not embedded in this binary", path);
        return -1;
    }
    *f = (src_file){path, (const char *)ef->data, ef->len, err, errlen};
    return 0;
}

/* The tutorial edition starts as a copy of current (sharing entry JSON). */
static int clone_edition(catalog_edition *dst, const catalog_edition *src)
{
    for (size_t ki = 0; ki < N_KINDS; ki++) {
        for (size_t i = 0; i < src->k[ki].n; i++) {
            if (grow(dst, ki) != 0)
                return -1;
            dst->k[ki].js[i] = json_incref(src->k[ki].js[i]);
            memcpy(rec_at(dst, ki, i), rec_at(src, ki, i), cat_kinds[ki].size);
            dst->k[ki].n++;
        }
    }
    return 0;
}

static bool has_refs(const catalog_kind *k)
{
    for (const fspec *s = k->fields; s->name != NULL; s++)
        if (s->type == T_REF)
            return true;
    return false;
}

/* Every record that embeds others, rebuilt from its final entry kind by
 * kind in table order (references resolve to records already final; the
 * records of other kinds were final when their entries were added), and
 * each kind's index. */
static int build_edition(catalog_edition *e, char *err, size_t errlen)
{
    for (size_t ki = 0; ki < N_KINDS; ki++) {
        const catalog_kind *k = &cat_kinds[ki];
        for (size_t i = 0; has_refs(k) && i < e->k[ki].n; i++) {
            char field[128], msg[512];
            if (extract_in(e, k, e->k[ki].js[i], rec_at(e, ki, i), field, sizeof field, msg,
                           sizeof msg) != 0) {
                snprintf(err, errlen, "%s edition, %s entry #%zu: %s", e->name, k->singular, i, msg);
                return -1;
            }
        }
        if (ix_build(e, ki, e->cat->aliases[ki]) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return compute_version(e, e->cat) == 0 ? 0 : (snprintf(err, errlen, "out of memory"), -1);
}

/* Records are built in table order, so a kind may refer only to kinds
 * above it (kinds.c); say so at once if an edit of the table breaks that. */
static int check_kind_order(char *err, size_t errlen)
{
    for (size_t ki = 0; ki < N_KINDS; ki++)
        for (const fspec *s = cat_kinds[ki].fields; s->name != NULL; s++)
            if (s->type == T_REF && cat_kind_index(catalog_kind_of(s->ref)) >= ki) {
                snprintf(err, errlen, "catalog/kinds.c: %s.%s refers to %s, which is not above it "
                         "in the kinds table", cat_kinds[ki].plural, s->name,
                         catalog_kind_of(s->ref)->plural);
                return -1;
            }
    return 0;
}

int catalog_load(catalog **out, const char *extra_dir, char *err, size_t errlen)
{
    char dummy[8];
    if (err == NULL || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    *out = NULL;
    catalog *c = calloc(1, sizeof *c);
    size_t maxrec = 0;
    for (size_t ki = 0; ki < N_KINDS; ki++)
        maxrec = cat_kinds[ki].size > maxrec ? cat_kinds[ki].size : maxrec;
    unsigned char *rec = malloc(maxrec); /* scratch record for checking entries */
    int rc = c != NULL && rec != NULL ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    else
        rc = check_kind_order(err, errlen);
    for (int e = 0; e < 2 && rc == 0; e++)
        c->ed[e].cat = c;
    if (rc == 0) {
        snprintf(c->ed[0].name, sizeof c->ed[0].name, "current");
        snprintf(c->ed[1].name, sizeof c->ed[1].name, "tutorial");
        c->ed[0].description = strdup(CURRENT_DESCRIPTION);
        rc = c->ed[0].description != NULL ? 0 : -1;
        for (size_t ki = 0; ki < N_KINDS && rc == 0; ki++)
            rc = (c->aliases[ki] = json_object()) != NULL ? 0 : -1;
        if (rc != 0)
            snprintf(err, errlen, "out of memory");
    }

    src_file f;
    for (size_t ki = 0; ki < N_KINDS && rc == 0; ki++) {
        char path[128];
        snprintf(path, sizeof path, "catalog/data/%s.json", cat_kinds[ki].plural);
        rc = embedded_src(path, &f, err, errlen);
        if (rc == 0)
            rc = load_catalog_file(c, 1, &f, false, rec);
    }
    if (rc == 0 && (rc = clone_edition(&c->ed[1], &c->ed[0])) != 0)
        snprintf(err, errlen, "out of memory");
    if (rc == 0)
        rc = embedded_src("catalog/data/edition_tutorial.json", &f, err, errlen);
    if (rc == 0)
        rc = apply_overlay(c, &f, rec);
    if (rc == 0 && extra_dir != NULL && extra_dir[0] != '\0')
        rc = load_dir(c, extra_dir, rec, err, errlen);
    for (int e = 0; e < 2 && rc == 0; e++)
        rc = build_edition(&c->ed[e], err, errlen);
    free(rec);
    if (rc != 0) {
        catalog_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

void catalog_free(catalog *c)
{
    if (c == NULL)
        return;
    for (int e = 0; e < 2; e++) {
        catalog_edition *ed = &c->ed[e];
        for (size_t ki = 0; ki < N_KINDS; ki++) {
            for (size_t i = 0; i < ed->k[ki].n; i++)
                json_decref(ed->k[ki].js[i]);
            free(ed->k[ki].js);
            free(ed->k[ki].recs);
            ix_free(&ed->k[ki].ix);
        }
        free(ed->description);
    }
    for (size_t ki = 0; ki < N_KINDS; ki++)
        json_decref(c->aliases[ki]);
    free(c);
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
const char *edition_version(const catalog_edition *e) { return e->version; }
const char *edition_description(const catalog_edition *e) { return e->description; }

/* ---- entries ------------------------------------------------------------- */

size_t edition_count(const catalog_edition *e, const catalog_kind *k)
{
    return e->k[cat_kind_index(k)].n;
}

const void *edition_record(const catalog_edition *e, const catalog_kind *k, size_t i)
{
    size_t ki = cat_kind_index(k);
    return k->record >= 0 && i < e->k[ki].n ? rec_at(e, ki, i) : NULL;
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
        return k->summary(rec_at(e, ki, i));
    return cat_summary(k, rec_at(e, ki, i), e->k[ki].js[i]);
}

json_t *catalog_record_summary(const catalog_kind *k, const void *rec)
{
    if (k->record < 0)
        return NULL;
    return k->summary != NULL ? k->summary(rec) : cat_summary(k, rec, NULL);
}

long edition_find(const catalog_edition *e, const catalog_kind *k, const char *id)
{
    return id && k ? ix_get(&e->k[cat_kind_index(k)].ix, id) : -1;
}
