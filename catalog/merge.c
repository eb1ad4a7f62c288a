/* merge.c - laying override fields over a catalog entry, and reading a
 * dotted path of one.
 *
 * Contract (catalog_internal.h: cat_merge, cat_path_get, cat_field_si_unit):
 * cat_merge lays a request's or an overlay's members over an entry the
 * caller owns, copying each nested object before it changes it, so a shallow
 * copy of a shared catalog entry can be merged into; unknown field names are
 * a 400 like cat_extract's. It only checks names against the kind's field
 * table: the values are checked when the merged entry is read (entry.c).
 * Calls down only: field.c. */
#include "catalog/catalog_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The child object `name` of `parent`, made private to `parent` (shallow
 * copy) so that changing it does not touch a shared catalog entry; a new
 * empty object if it is absent, null or not an object. */
static json_t *own_child(json_t *parent, const char *name)
{
    json_t *c = json_object_get(parent, name);
    json_t *n = json_is_object(c) ? json_copy(c) : json_object();
    if (n == NULL || json_object_set_new(parent, name, n) != 0)
        return NULL;
    return n;
}

static int set_member(json_t *obj, const char *name, json_t *v)
{
    return json_object_set(obj, name, v) == 0 ? 0 : 500;
}

static int merge_qmap(const cat_errsink *es, json_t *target, const char *path, const char *name,
                      json_t *v)
{
    char sub[256], low[64];
    size_t len = strlen(name);
    cat_join_path(sub, sizeof sub, path, name);
    if (len == 0 || len >= sizeof low)
        return cat_fail(es, sub, "precision names are 1 to 23 characters");
    for (size_t i = 0; i <= len; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    if (json_is_null(v)) {
        json_object_del(target, low);
        return 0;
    }
    return set_member(target, low, v);
}

static int merge_obj(const cat_errsink *es, const fspec *specs, json_t *target, const json_t *src,
                     const char *prefix, const char *skip);

/* Set one (possibly dotted) member `name` = v in `target` whose fields are
 * `specs` (NULL: target is a precision map). */
static int merge_member(const cat_errsink *es, const fspec *specs, json_t *target, const char *prefix,
                        const char *name, json_t *v)
{
    char shown[256];
    cat_join_path(shown, sizeof shown, prefix, name);
    const char *dot = strchr(name, '.');
    char seg[128];
    size_t seglen = dot ? (size_t)(dot - name) : strlen(name);
    if (seglen == 0 || seglen >= sizeof seg || (dot && dot[1] == '\0'))
        return cat_fail(es, shown, "not a field name");
    memcpy(seg, name, seglen);
    seg[seglen] = '\0';

    if (specs == NULL) { /* inside precision_flops: names are precisions */
        if (dot)
            return cat_fail(es, shown, "a precision takes a flop/s quantity, not sub-fields");
        return merge_qmap(es, target, prefix, seg, v);
    }
    const fspec *s = cat_find_spec(specs, seg);
    if (s == NULL) {
        char segpath[256];
        cat_join_path(segpath, sizeof segpath, prefix, seg);
        return cat_fail_unknown(es, specs, prefix, seg, dot ? shown : segpath);
    }
    char path[256];
    cat_join_path(path, sizeof path, prefix, seg);
    bool nested = s->type == T_OBJ || s->type == T_QMAP;
    if (dot) {
        if (!nested)
            return cat_fail(es, shown, "%s is not an object; it has no field \"%s\"", path, dot + 1);
        json_t *child = own_child(target, seg);
        if (child == NULL)
            return 500;
        return merge_member(es, s->type == T_OBJ ? s->sub : NULL, child, path, dot + 1, v);
    }
    if (nested && json_is_object(v)) {
        json_t *child = own_child(target, seg);
        if (child == NULL)
            return 500;
        return merge_obj(es, s->type == T_OBJ ? s->sub : NULL, child, v, path, NULL);
    }
    /* Leaf (or null / a wrong type, which cat_extract reports). */
    return set_member(target, seg, v);
}

static int merge_obj(const cat_errsink *es, const fspec *specs, json_t *target, const json_t *src,
                     const char *prefix, const char *skip)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)src, k, v) {
        if (skip != NULL && strcmp(k, skip) == 0)
            continue;
        int rc = merge_member(es, specs, target, prefix, k, v);
        if (rc)
            return rc;
    }
    return 0;
}

int cat_merge(const catalog_kind *k, json_t *target, const json_t *src, const char *skip,
              char *field, size_t fieldlen, char *err, size_t errlen)
{
    cat_errsink es = {field, fieldlen, err, errlen};
    if (!json_is_object(src))
        return cat_fail(&es, "", "expected an object, got %s", cat_json_kind(src));
    return merge_obj(&es, k->fields, target, src, "", skip);
}

json_t *cat_path_get(json_t *entry, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dotted);
    json_t *cur = entry;
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg != NULL; seg = strtok_r(NULL, ".", &save)) {
        if (!json_is_object(cur))
            return NULL;
        cur = json_object_get(cur, seg);
    }
    return cur;
}

const char *cat_field_si_unit(const catalog_kind *k, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dotted);
    const fspec *specs = k->fields;
    const fspec *s = NULL;
    bool in_map = false;
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg != NULL; seg = strtok_r(NULL, ".", &save)) {
        if (in_map)
            return cat_unit_si(U_FLOPS);
        if (specs == NULL)
            return NULL;
        s = cat_find_spec(specs, seg);
        if (s == NULL)
            return NULL;
        in_map = s->type == T_QMAP;
        specs = s->type == T_OBJ ? s->sub : NULL;
    }
    return s != NULL && s->type == T_QTY ? cat_unit_si(s->unit) : NULL;
}
