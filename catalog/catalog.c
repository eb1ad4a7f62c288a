/* catalog.c - load the catalog once and build its editions, for every kind
 * of the kinds table (kinds.c).
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
 * JSON_HAVE_ATOMIC_BUILTINS).
 *
 * Contract (catalog.h: catalog_load, catalog_free): a loaded catalog, or -1
 * with "file:line: reason". This file is the loading only: the records and
 * index are edition.c's, resolving ids and inline entries resolve.c's,
 * reading one entry entry.c's. Calls down only. */
#include "catalog/catalog.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/edition.h"
#include "catalog/embedded.h"

static const char OVERLAY_NOTE[] = "edition tutorial (catalog/data/edition_tutorial.json)";

static const char CURRENT_DESCRIPTION[] =
    "The newest upstream mlsysim catalog values: the top-level value of each entry as read "
    "from the mlsysim YAML and Python registries (each entry's \"source\" names the file and "
    "commit).";

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
        if (cat_kind_by_section(k) >= 0 || strcmp(k, "aliases") == 0 || strcmp(k, "about") == 0 ||
            strcmp(k, "description") == 0 || strcmp(k, "note") == 0)
            continue;
        char kinds[400];
        size_t used = 0;
        for (size_t i = 0; i < CAT_N_KINDS && used < sizeof kinds; i++)
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
    long old = cat_find_linear(&c->ed[0], ki, key, true);
    const json_t *prev = old >= 0 ? c->ed[0].k[ki].js[old] : NULL;
    if (prev != NULL && json_object_get(entry, "group") == NULL && json_object_get(prev, "group"))
        json_object_set(entry, "group", json_object_get(prev, "group"));
    if (prev != NULL && json_object_get(entry, "id") == NULL)
        json_object_set_new(entry, "id", json_string(cat_ident_at(&c->ed[0], ki, (size_t)old)->id));
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
            if (cat_extract_in(&c->ed[e], k, entry, rec, field, sizeof field, err, sizeof err) != 0) {
                if (key != NULL)
                    return load_fail(f, entry_line(f, ki, i), "%s \"%s\": %s", k->singular, key, err);
                return load_fail(f, entry_line(f, ki, i), "%s entry #%zu: %s", k->singular, i, err);
            }
            if (cat_put_entry(&c->ed[e], ki, entry, rec) != 0)
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
        long ki = cat_kind_by_section(sec);
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
            if (cat_find_linear(&c->ed[0], (size_t)ki, json_string_value(target), false) < 0)
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
    for (size_t ki = 0; ki < CAT_N_KINDS && rc == 0; ki++)
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
    for (size_t ki = 0; ki < CAT_N_KINDS && rc == 0; ki++) {
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
            long i = cat_find_linear(e, ki, key, true);
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
            if (cat_extract_in(e, k, n, rec, field, sizeof field, err, sizeof err) != 0) {
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
            rc = cat_put_entry(e, ki, n, rec) != 0 ? load_fail(f, line, "out of memory") : 0;
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
    for (size_t ki = 0; ki < CAT_N_KINDS; ki++) {
        for (size_t i = 0; i < src->k[ki].n; i++) {
            if (cat_grow(dst, ki) != 0)
                return -1;
            dst->k[ki].js[i] = json_incref(src->k[ki].js[i]);
            memcpy(cat_rec_at(dst, ki, i), cat_rec_at(src, ki, i), cat_kinds[ki].size);
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
    for (size_t ki = 0; ki < CAT_N_KINDS; ki++) {
        const catalog_kind *k = &cat_kinds[ki];
        for (size_t i = 0; has_refs(k) && i < e->k[ki].n; i++) {
            char field[128], msg[512];
            if (cat_extract_in(e, k, e->k[ki].js[i], cat_rec_at(e, ki, i), field, sizeof field, msg,
                               sizeof msg) != 0) {
                snprintf(err, errlen, "%s edition, %s entry #%zu: %s", e->name, k->singular, i, msg);
                return -1;
            }
        }
        if (cat_ix_build(e, ki, e->cat->aliases[ki]) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* Records are built in table order, so a kind may refer only to kinds
 * above it (kinds.c); say so at once if an edit of the table breaks that. */
static int check_kind_order(char *err, size_t errlen)
{
    for (size_t ki = 0; ki < CAT_N_KINDS; ki++)
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
    for (size_t ki = 0; ki < CAT_N_KINDS; ki++)
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
        for (size_t ki = 0; ki < CAT_N_KINDS && rc == 0; ki++)
            rc = (c->aliases[ki] = json_object()) != NULL ? 0 : -1;
        if (rc != 0)
            snprintf(err, errlen, "out of memory");
    }

    src_file f;
    for (size_t ki = 0; ki < CAT_N_KINDS && rc == 0; ki++) {
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
        for (size_t ki = 0; ki < CAT_N_KINDS; ki++) {
            for (size_t i = 0; i < ed->k[ki].n; i++)
                json_decref(ed->k[ki].js[i]);
            free(ed->k[ki].js);
            free(ed->k[ki].recs);
            cat_ix_free(&ed->k[ki].ix);
        }
        free(ed->description);
    }
    for (size_t ki = 0; ki < CAT_N_KINDS; ki++)
        json_decref(c->aliases[ki]);
    free(c);
}
