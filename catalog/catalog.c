/* catalog.c - load the catalog once, build its editions, answer lookups.
 *
 * Start-up (catalog_load): each embedded file is parsed once with jansson
 * (catalog/data/hardware.json, models.json, edition_tutorial.json; see
 * tools/gen_catalog.py for where they come from). The `current` edition
 * holds the entries as they are; `tutorial` shares every entry with it
 * except those the overlay changes, which are shallow copies with the
 * changed members replaced (entry.c:cat_merge). Then *.json files of an
 * extra directory add or replace entries in both editions. Last, each
 * edition gets its hash index and its version (FNV-1a 64 of its canonical
 * JSON). After catalog_load nothing changes, so lookups need no locks;
 * resolving an inline entry copies what it changes (jansson's reference
 * counts are atomic, JSON_HAVE_ATOMIC_BUILTINS). */
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

#define N_KINDS 2

typedef struct {
    char *name; /* lower-cased key, path or alias */
    long idx;
} ix_slot;

typedef struct {
    ix_slot *slots;
    size_t cap; /* power of two */
} ix_table;

struct catalog_edition {
    char name[16];
    char *description;
    char version[17];
    size_t n[N_KINDS], cap[N_KINDS];
    json_t **js[N_KINDS];   /* entry JSON, one reference each */
    hw_node *hw;            /* n[CAT_HARDWARE] records */
    model_t *models;        /* n[CAT_MODEL] records    */
    ix_table ix[N_KINDS];
};

struct catalog {
    catalog_edition ed[2];     /* current, tutorial */
    json_t *aliases[N_KINDS];  /* legacy alias -> target id/key */
};

static const char *const section_names[N_KINDS] = {"hardware", "models"};
static const char *const kind_words[N_KINDS] = {"hardware", "model"};
static const char *const id_prefix[N_KINDS] = {"Hardware", "Models"};

static const char OVERLAY_NOTE[] = "edition tutorial (catalog/data/edition_tutorial.json)";

static const char CURRENT_DESCRIPTION[] =
    "The newest upstream mlsysim catalog values: the top-level value of each entry as read "
    "from the mlsysim YAML registries (each entry's \"source\" names the file and commit).";

/* ---- records ------------------------------------------------------------ */

static const char *rec_key(const catalog_edition *e, catalog_kind k, size_t i)
{
    return k == CAT_HARDWARE ? e->hw[i].key : e->models[i].key;
}

static const char *rec_id(const catalog_edition *e, catalog_kind k, size_t i)
{
    return k == CAT_HARDWARE ? e->hw[i].id : e->models[i].id;
}

static size_t rec_size(catalog_kind k)
{
    return k == CAT_HARDWARE ? sizeof(hw_node) : sizeof(model_t);
}

static void *rec_at(catalog_edition *e, catalog_kind k, size_t i)
{
    return k == CAT_HARDWARE ? (void *)&e->hw[i] : (void *)&e->models[i];
}

/* Linear search by key or id (used while loading, before the index exists). */
static long find_linear(const catalog_edition *e, catalog_kind k, const char *id, bool key_only)
{
    for (size_t i = 0; i < e->n[k]; i++)
        if (strcasecmp(rec_key(e, k, i), id) == 0 ||
            (!key_only && strcasecmp(rec_id(e, k, i), id) == 0))
            return (long)i;
    return -1;
}

static int grow(catalog_edition *e, catalog_kind k)
{
    if (e->n[k] < e->cap[k])
        return 0;
    size_t nc = e->cap[k] ? e->cap[k] * 2 : 64;
    json_t **js = realloc(e->js[k], nc * sizeof *js);
    if (js == NULL)
        return -1;
    e->js[k] = js;
    void *recs = k == CAT_HARDWARE ? (void *)e->hw : (void *)e->models;
    recs = realloc(recs, nc * rec_size(k));
    if (recs == NULL)
        return -1;
    if (k == CAT_HARDWARE)
        e->hw = recs;
    else
        e->models = recs;
    e->cap[k] = nc;
    return 0;
}

/* Add an entry, or replace the one with the same key (case-insensitive).
 * Takes a new reference to `entry`. */
static int put_entry(catalog_edition *e, catalog_kind k, json_t *entry, const void *rec)
{
    const char *key = k == CAT_HARDWARE ? ((const hw_node *)rec)->key : ((const model_t *)rec)->key;
    long i = find_linear(e, k, key, true);
    if (i < 0) {
        if (grow(e, k) != 0)
            return -1;
        i = (long)e->n[k]++;
    } else {
        json_decref(e->js[k][i]);
    }
    e->js[k][i] = json_incref(entry);
    memcpy(rec_at(e, k, (size_t)i), rec, rec_size(k));
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

static int ix_build(catalog_edition *e, catalog_kind k, const json_t *aliases)
{
    size_t want = 2 * (2 * e->n[k] + json_object_size(aliases)) + 16, cap = 64;
    while (cap < want)
        cap *= 2;
    e->ix[k].slots = calloc(cap, sizeof(ix_slot));
    if (e->ix[k].slots == NULL)
        return -1;
    e->ix[k].cap = cap;
    for (size_t i = 0; i < e->n[k]; i++)
        if (ix_put(&e->ix[k], rec_key(e, k, i), (long)i) != 0)
            return -1;
    for (size_t i = 0; i < e->n[k]; i++)
        if (ix_put(&e->ix[k], rec_id(e, k, i), (long)i) != 0)
            return -1;
    const char *alias;
    json_t *target;
    json_object_foreach((json_t *)aliases, alias, target) {
        long i = ix_get(&e->ix[k], json_string_value(target));
        if (i >= 0 && ix_put(&e->ix[k], alias, i) != 0)
            return -1;
    }
    return 0;
}

/* ---- edition version ------------------------------------------------------ */

static int compute_version(catalog_edition *e, const catalog *c)
{
    json_t *doc = json_object();
    if (doc == NULL)
        return -1;
    for (int k = 0; k < N_KINDS; k++) {
        json_t *arr = json_array();
        for (size_t i = 0; i < e->n[k]; i++)
            json_array_append(arr, e->js[k][i]);
        json_object_set_new(doc, section_names[k], arr);
        json_object_set(doc, k == CAT_HARDWARE ? "hardware_aliases" : "model_aliases",
                        c->aliases[k]);
    }
    char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(doc);
    if (text == NULL)
        return -1;
    uint64_t h = fnv1a(text, strlen(text), FNV_OFFSET);
    free(text);
    snprintf(e->version, sizeof e->version, "%016llx", (unsigned long long)h);
    return 0;
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
        load_fail(f, 1, "expected a JSON object with \"hardware\" and/or \"models\"");
        return NULL;
    }
    return root;
}

/* A catalog file: {"about", "aliases", "hardware": [...], "models": [...]}. */
static int check_top(const src_file *f, const json_t *root)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)root, k, v) {
        if (strcmp(k, "hardware") == 0 || strcmp(k, "models") == 0 || strcmp(k, "aliases") == 0 ||
            strcmp(k, "about") == 0 || strcmp(k, "description") == 0 || strcmp(k, "note") == 0)
            continue;
        return load_fail(f, cat_text_entry_line(f->text, f->len, k, -1),
                         "unknown top-level member \"%s\" (a catalog file has \"hardware\", "
                         "\"models\", \"aliases\" and \"about\")", k);
    }
    return 0;
}

/* Where entry i of a section is in the text; only computed for a message
 * (it rescans the text). */
static int entry_line(const src_file *f, catalog_kind k, size_t i)
{
    return cat_text_entry_line(f->text, f->len, section_names[k], (long)i);
}

/* Add every entry of one section of a file to the editions in `eds`. */
static int add_section(catalog *c, int eds, catalog_kind k, json_t *root, const src_file *f,
                       bool fill_defaults)
{
    json_t *arr = json_object_get(root, section_names[k]);
    if (arr == NULL)
        return 0;
    if (!json_is_array(arr))
        return load_fail(f, cat_text_entry_line(f->text, f->len, section_names[k], -1),
                         "\"%s\" must be an array of entries", section_names[k]);
    size_t i;
    json_t *entry;
    json_array_foreach(arr, i, entry) {
        if (!json_is_object(entry))
            return load_fail(f, entry_line(f, k, i), "%s entry #%zu: expected an object",
                             kind_words[k], i);
        const char *key = json_string_value(json_object_get(entry, "key"));
        if (fill_defaults && key != NULL) {
            /* An entry needs a path and a group for /catalog: a replacement
             * keeps those of the entry it replaces (so "Hardware.Cloud.A100"
             * and the legacy aliases still find it), a new one is filed
             * under "Custom". Say which file it came from unless it says so
             * itself. */
            long old = find_linear(&c->ed[0], k, key, true);
            if (old >= 0 && json_object_get(entry, "group") == NULL)
                json_object_set(entry, "group", json_object_get(c->ed[0].js[k][old], "group"));
            if (old >= 0 && json_object_get(entry, "id") == NULL)
                json_object_set_new(entry, "id", json_string(rec_id(&c->ed[0], k, (size_t)old)));
            if (json_object_get(entry, "group") == NULL)
                json_object_set_new(entry, "group", json_string("Custom"));
            if (json_object_get(entry, "id") == NULL) {
                const char *g = json_string_value(json_object_get(entry, "group"));
                char id[ID_LEN * 2];
                snprintf(id, sizeof id, "%s.%s.%s", id_prefix[k], g ? g : "Custom", key);
                json_object_set_new(entry, "id", json_string(id));
            }
            if (json_object_get(entry, "source") == NULL)
                json_object_set_new(entry, "source", json_pack("{ss}", "path", f->path));
        }
        union {
            hw_node hw;
            model_t m;
        } rec;
        char field[128], err[512];
        if (cat_extract(k, entry, &rec, field, sizeof field, err, sizeof err) != 0) {
            if (key != NULL)
                return load_fail(f, entry_line(f, k, i), "%s \"%s\": %s", kind_words[k], key, err);
            return load_fail(f, entry_line(f, k, i), "%s entry #%zu: %s", kind_words[k], i, err);
        }
        for (int e = 0; e < 2; e++)
            if ((eds & (1 << e)) && put_entry(&c->ed[e], k, entry, &rec) != 0)
                return load_fail(f, entry_line(f, k, i), "out of memory");
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
        return load_fail(f, line, "\"aliases\" must be an object {\"hardware\": {...}, "
                         "\"models\": {...}}");
    const char *sec;
    json_t *tab;
    json_object_foreach(al, sec, tab) {
        int k = strcmp(sec, "hardware") == 0 ? CAT_HARDWARE
                : strcmp(sec, "models") == 0   ? CAT_MODEL
                                               : -1;
        if (k < 0 || !json_is_object(tab))
            return load_fail(f, line, "\"aliases\" has \"hardware\" and \"models\" objects "
                             "(alias -> id); got \"%s\"", sec);
        const char *alias;
        json_t *target;
        json_object_foreach(tab, alias, target) {
            if (!json_is_string(target))
                return load_fail(f, cat_text_string_line(f->text, f->len, alias),
                                 "alias \"%s\": the target must be a %s id string",
                                 alias, kind_words[k]);
            if (find_linear(&c->ed[0], k, json_string_value(target), false) < 0)
                return load_fail(f, cat_text_string_line(f->text, f->len, alias),
                                 "alias \"%s\": \"%s\" is not a %s entry", alias,
                                 json_string_value(target), kind_words[k]);
            json_object_set(c->aliases[k], alias, target);
        }
    }
    return 0;
}

/* Load one catalog-format file into the editions in `eds`. */
static int load_catalog_file(catalog *c, int eds, const src_file *f, bool fill_defaults)
{
    json_t *root = parse_file(f);
    if (root == NULL)
        return -1;
    int rc = check_top(f, root);
    for (int k = 0; k < N_KINDS && rc == 0; k++)
        rc = add_section(c, eds, (catalog_kind)k, root, f, fill_defaults);
    if (rc == 0)
        rc = add_aliases(c, root, f);
    json_decref(root);
    return rc;
}

/* The tutorial overlay: {"hardware": {"<key>": {"<dotted path>": value|null}}, "models": ...}.
 * Other sections (systems, calibration) concern other modules and are ignored. */
static int apply_overlay(catalog *c, const src_file *f)
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
    for (int k = 0; k < N_KINDS && rc == 0; k++) {
        json_t *sec = json_object_get(ov, section_names[k]);
        if (sec == NULL)
            continue;
        if (!json_is_object(sec)) {
            rc = load_fail(f, cat_text_entry_line(f->text, f->len, section_names[k], -1),
                           "\"%s\" must be an object of key -> changes", section_names[k]);
            break;
        }
        const char *key;
        json_t *changes;
        json_object_foreach(sec, key, changes) {
            int line = cat_text_string_line(f->text, f->len, key);
            long i = find_linear(e, (catalog_kind)k, key, true);
            if (i < 0) {
                rc = load_fail(f, line, "%s \"%s\" is not in the catalog", kind_words[k], key);
                break;
            }
            char field[128], err[512];
            json_t *n = json_copy(e->js[k][i]);
            if (n == NULL || !json_is_object(changes) ||
                cat_merge((catalog_kind)k, n, changes, NULL, field, sizeof field, err,
                          sizeof err) != 0) {
                json_decref(n);
                rc = load_fail(f, line, "%s \"%s\": %s", kind_words[k], key,
                               json_is_object(changes) ? err : "expected an object of changes");
                break;
            }
            /* Say on the entry which fields this edition changed, and give an
             * overlaid quantity its SI unit and origin like every other one. */
            json_t *changed = json_array();
            const char *path;
            json_t *v;
            json_object_foreach(changes, path, v) {
                json_array_append_new(changed, json_string(path));
                const char *siu = cat_field_si_unit((catalog_kind)k, path);
                const char *dot = strrchr(path, '.');
                if (siu == NULL || !json_is_object(v))
                    continue;
                json_t *parent = n;
                if (dot != NULL) {
                    char pp[256];
                    snprintf(pp, sizeof pp, "%.*s", (int)(dot - path), path);
                    parent = cat_path_get(n, pp);
                }
                const char *leaf = dot ? dot + 1 : path;
                if (!json_is_object(json_object_get(parent, leaf)))
                    continue; /* e.g. a precision name spelt in another case */
                json_t *q = json_deep_copy(v);
                if (json_object_get(q, "si_unit") == NULL)
                    json_object_set_new(q, "si_unit", json_string(siu));
                json_object_set_new(q, "note", json_string(OVERLAY_NOTE));
                json_object_set_new(parent, leaf, q);
            }
            json_object_set_new(n, "edition_overrides", changed);
            union {
                hw_node hw;
                model_t m;
            } rec;
            if (cat_extract((catalog_kind)k, n, &rec, field, sizeof field, err, sizeof err) != 0) {
                json_decref(n);
                rc = load_fail(f, line, "%s \"%s\": %s", kind_words[k], key, err);
                break;
            }
            /* Keep the derived ridge point in step with the overlaid numbers. */
            if (k == CAT_HARDWARE &&
                json_is_number(json_object_get(n, "ridge_point_flop_per_byte")))
                json_object_set_new(n, "ridge_point_flop_per_byte",
                                    json_real(rec.hw.peak_flops / rec.hw.mem_bandwidth));
            put_entry(e, (catalog_kind)k, n, &rec);
            json_decref(n);
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
static int load_dir(catalog *c, const char *dir, char *err, size_t errlen)
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
        rc = load_catalog_file(c, 3, &f, true);
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
    for (int k = 0; k < N_KINDS; k++) {
        for (size_t i = 0; i < src->n[k]; i++) {
            if (grow(dst, (catalog_kind)k) != 0)
                return -1;
            dst->js[k][i] = json_incref(src->js[k][i]);
            memcpy(rec_at(dst, (catalog_kind)k, i),
                   rec_at((catalog_edition *)src, (catalog_kind)k, i), rec_size((catalog_kind)k));
            dst->n[k]++;
        }
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
    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(c->ed[0].name, sizeof c->ed[0].name, "current");
    snprintf(c->ed[1].name, sizeof c->ed[1].name, "tutorial");
    c->ed[0].description = strdup(CURRENT_DESCRIPTION);
    c->aliases[CAT_HARDWARE] = json_object();
    c->aliases[CAT_MODEL] = json_object();
    int rc = c->ed[0].description && c->aliases[0] && c->aliases[1] ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");

    src_file f;
    if (rc == 0)
        rc = embedded_src("catalog/data/hardware.json", &f, err, errlen);
    if (rc == 0)
        rc = load_catalog_file(c, 1, &f, false);
    if (rc == 0)
        rc = embedded_src("catalog/data/models.json", &f, err, errlen);
    if (rc == 0)
        rc = load_catalog_file(c, 1, &f, false);
    if (rc == 0 && (rc = clone_edition(&c->ed[1], &c->ed[0])) != 0)
        snprintf(err, errlen, "out of memory");
    if (rc == 0)
        rc = embedded_src("catalog/data/edition_tutorial.json", &f, err, errlen);
    if (rc == 0)
        rc = apply_overlay(c, &f);
    if (rc == 0 && extra_dir != NULL && extra_dir[0] != '\0')
        rc = load_dir(c, extra_dir, err, errlen);
    for (int e = 0; e < 2 && rc == 0; e++) {
        for (int k = 0; k < N_KINDS && rc == 0; k++)
            rc = ix_build(&c->ed[e], (catalog_kind)k, c->aliases[k]);
        if (rc == 0)
            rc = compute_version(&c->ed[e], c);
        if (rc != 0)
            snprintf(err, errlen, "out of memory");
    }
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
        for (int k = 0; k < N_KINDS; k++) {
            for (size_t i = 0; i < ed->n[k]; i++)
                json_decref(ed->js[k][i]);
            free(ed->js[k]);
            ix_free(&ed->ix[k]);
        }
        free(ed->hw);
        free(ed->models);
        free(ed->description);
    }
    json_decref(c->aliases[0]);
    json_decref(c->aliases[1]);
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

size_t edition_hardware_count(const catalog_edition *e) { return e->n[CAT_HARDWARE]; }
size_t edition_model_count(const catalog_edition *e) { return e->n[CAT_MODEL]; }

const hw_node *edition_hardware_at(const catalog_edition *e, size_t i)
{
    return i < e->n[CAT_HARDWARE] ? &e->hw[i] : NULL;
}

const model_t *edition_model_at(const catalog_edition *e, size_t i)
{
    return i < e->n[CAT_MODEL] ? &e->models[i] : NULL;
}

const json_t *edition_hardware_json(const catalog_edition *e, size_t i)
{
    return i < e->n[CAT_HARDWARE] ? e->js[CAT_HARDWARE][i] : NULL;
}

const json_t *edition_model_json(const catalog_edition *e, size_t i)
{
    return i < e->n[CAT_MODEL] ? e->js[CAT_MODEL][i] : NULL;
}

long edition_find_hardware(const catalog_edition *e, const char *id)
{
    return id ? ix_get(&e->ix[CAT_HARDWARE], id) : -1;
}

long edition_find_model(const catalog_edition *e, const char *id)
{
    return id ? ix_get(&e->ix[CAT_MODEL], id) : -1;
}

/* ---- suggestions -------------------------------------------------------- */

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

int edition_suggest(const catalog_edition *e, catalog_kind kind, const char *id,
                    const char **out, int max)
{
    char q[256];
    if (e == NULL || id == NULL || max <= 0 || !lower_copy(q, sizeof q, id) || q[0] == '\0')
        return 0;
    size_t n = e->n[kind];
    cand *cs = calloc(n ? n : 1, sizeof *cs);
    if (cs == NULL)
        return 0;
    size_t qlen = strlen(q), lim = qlen / 3 < 2 ? 2 : qlen / 3, m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *key = rec_key(e, kind, i), *path = rec_id(e, kind, i);
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

/* ---- inline entries ----------------------------------------------------- */

static void set_out(char *buf, size_t n, const char *s)
{
    if (buf != NULL && n > 0)
        snprintf(buf, n, "%s", s);
}

static int unknown_id(const catalog_edition *e, catalog_kind k, const char *id, const char *fname,
                      char *field, size_t fieldlen, char *err, size_t errlen)
{
    const char *sug[3];
    int ns = edition_suggest(e, k, id, sug, 3);
    char msg[512];
    int used = snprintf(msg, sizeof msg, "unknown %s \"%s\" in the %s catalog", kind_words[k], id,
                        e->name);
    for (int i = 0; i < ns && used > 0 && (size_t)used < sizeof msg; i++)
        used += snprintf(msg + used, sizeof msg - (size_t)used, "%s\"%s\"%s",
                         i == 0 ? " (did you mean " : i == ns - 1 ? " or " : ", ", sug[i],
                         i == ns - 1 ? "?)" : "");
    set_out(field, fieldlen, fname);
    if (fname[0] != '\0' && err != NULL && errlen > 0)
        snprintf(err, errlen, "%s: %s", fname, msg);
    else
        set_out(err, errlen, msg);
    return 404;
}

static int resolve(const catalog_edition *e, catalog_kind k, const json_t *obj, void *out,
                   char *field, size_t fieldlen, char *err, size_t errlen)
{
    set_out(field, fieldlen, "");
    set_out(err, errlen, "");
    if (e == NULL || obj == NULL) {
        set_out(err, errlen, "missing");
        return 400;
    }
    if (json_is_string(obj)) {
        long i = ix_get(&e->ix[k], json_string_value(obj));
        if (i < 0)
            return unknown_id(e, k, json_string_value(obj), "", field, fieldlen, err, errlen);
        memcpy(out, rec_at((catalog_edition *)e, k, (size_t)i), rec_size(k));
        return 0;
    }
    if (!json_is_object(obj)) {
        char msg[200];
        snprintf(msg, sizeof msg, "expected a %s id (e.g. \"%s\") or an object with \"base\" "
                 "and fields to override, or the fields of a custom %s",
                 kind_words[k], k == CAT_HARDWARE ? "A100" : "ResNet50", kind_words[k]);
        set_out(err, errlen, msg);
        return 400;
    }
    const json_t *base = json_object_get(obj, "base");
    json_t *m;
    if (base != NULL) {
        if (!json_is_string(base)) {
            set_out(field, fieldlen, "base");
            char msg[160];
            snprintf(msg, sizeof msg, "base: expected a %s id string (e.g. \"%s\")",
                     kind_words[k], k == CAT_HARDWARE ? "A100" : "ResNet50");
            set_out(err, errlen, msg);
            return 400;
        }
        long i = ix_get(&e->ix[k], json_string_value(base));
        if (i < 0)
            return unknown_id(e, k, json_string_value(base), "base", field, fieldlen, err, errlen);
        if (json_object_size(obj) == 1) {
            memcpy(out, rec_at((catalog_edition *)e, k, (size_t)i), rec_size(k));
            return 0;
        }
        m = json_copy(e->js[k][i]);
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
        rc = cat_extract(k, m, out, field, fieldlen, err, errlen);
    json_decref(m);
    return rc;
}

int edition_resolve_hardware(const catalog_edition *e, const json_t *obj, hw_node *out,
                             char *field, size_t fieldlen, char *err, size_t errlen)
{
    return resolve(e, CAT_HARDWARE, obj, out, field, fieldlen, err, errlen);
}

int edition_resolve_model(const catalog_edition *e, const json_t *obj, model_t *out,
                          char *field, size_t fieldlen, char *err, size_t errlen)
{
    return resolve(e, CAT_MODEL, obj, out, field, fieldlen, err, errlen);
}
