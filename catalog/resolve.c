/* resolve.c - a reference in a request or a catalog file, resolved to a
 * record: an id, an entry with fields overridden ({"base": id, ...}) or a
 * custom entry; and the nearest keys to an unknown id.
 *
 * Contract (catalog.h: edition_resolve, edition_suggest; edition.h:
 * cat_extract_in): an id is looked up in the edition's index; an inline
 * object is merged over its base (merge.c) and read (entry.c) with its own
 * references resolved the same way, in the same edition. An unknown id is a
 * 404 whose message has up to three suggestions and, when the id names an
 * entry of another kind, that kind. A model given as {"hf_config": {...}}
 * is the entry hf_config.c computes from the config, with the object's
 * other members laid over it. Calls down only: edition.c, entry.c,
 * merge.c, hf_config.c, field.c (the edit distance) and the kinds table. */
#include "catalog/edition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- suggestions ------------------------------------------------------------ */

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
    if (!cat_lower_copy(ls, sizeof ls, s))
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
    if (e == NULL || k == NULL || id == NULL || max <= 0 || !cat_lower_copy(q, sizeof q, id) ||
        q[0] == '\0')
        return 0;
    size_t ki = cat_kind_index(k), n = e->k[ki].n;
    cand *cs = calloc(n ? n : 1, sizeof *cs);
    if (cs == NULL)
        return 0;
    size_t qlen = strlen(q), lim = qlen / 3 < 2 ? 2 : qlen / 3, m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *key = cat_ident_at(e, ki, i)->key, *path = cat_ident_at(e, ki, i)->id;
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
    for (size_t ki = 0; ki < CAT_N_KINDS && used < sizeof msg; ki++)
        if (&cat_kinds[ki] != k && cat_lookup(e, ki, id) >= 0) {
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

int cat_extract_in(const catalog_edition *e, const catalog_kind *k, const json_t *entry,
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
        long i = cat_lookup(e, ki, json_string_value(obj));
        if (i < 0)
            return unknown_id(e, k, json_string_value(obj), "", field, fieldlen, err, errlen);
        memcpy(out, cat_rec_at(e, ki, (size_t)i), k->size);
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
    const json_t *hf = k->record == REC_MODEL ? json_object_get(obj, "hf_config") : NULL;
    json_t *m;
    if (hf != NULL) {
        /* {"hf_config": {...config.json...}, field: value...}: the entry the
         * config describes (hf_config.c), other members laid over it. */
        if (base != NULL) {
            set_out(field, fieldlen, "base");
            set_out(err, errlen, "base: give either a base model or an hf_config, not both");
            return 400;
        }
        cat_errsink es = {field, fieldlen, err, errlen};
        int rc = cat_hf_config_entry(&es, hf, &m);
        if (rc != 0)
            return rc;
        rc = cat_merge(k, m, obj, "hf_config", field, fieldlen, err, errlen);
        if (rc == 0)
            rc = cat_extract_in(e, k, m, out, field, fieldlen, err, errlen);
        json_decref(m);
        return rc;
    }
    if (base != NULL) {
        if (!json_is_string(base)) {
            set_out(field, fieldlen, "base");
            char msg[160];
            snprintf(msg, sizeof msg, "base: expected a %s id string (e.g. \"%s\")", k->singular,
                     k->example);
            set_out(err, errlen, msg);
            return 400;
        }
        long i = cat_lookup(e, ki, json_string_value(base));
        if (i < 0)
            return unknown_id(e, k, json_string_value(base), "base", field, fieldlen, err, errlen);
        if (json_object_size(obj) == 1) {
            memcpy(out, cat_rec_at(e, ki, (size_t)i), k->size);
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
        rc = cat_extract_in(e, k, m, out, field, fieldlen, err, errlen);
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
