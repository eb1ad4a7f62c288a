/* validation_set.c - see validation_set.h. */
#include "server/validation_set.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/embedded.h"
#include "server/inputs.h"

#define MEASUREMENTS_DIR "validation/measurements/"

static int fail(char *err, size_t n, const char *name, int line, const char *what, const char *detail)
{
    snprintf(err, n, "%s:%d: %s%s%s", name, line, what, detail ? ": " : "", detail ? detail : "");
    return -1;
}

static int add_record(vset *s, json_t *rec, const char *name, int line, const catalog_edition *ed, char *err,
                      size_t errlen)
{
    const char *id = json_string_value(json_object_get(rec, "id"));
    const char *family = json_string_value(json_object_get(rec, "family"));
    json_t *source = json_object_get(rec, "source");
    const char *group = json_string_value(json_object_get(source, "group"));
    if (!group)
        group = json_string_value(json_object_get(source, "key"));
    json_t *req = json_object_get(rec, "request");
    const char *solver = json_string_value(json_object_get(req, "solver"));
    const char *output = json_string_value(json_object_get(rec, "output"));
    json_t *measured = json_object_get(json_object_get(rec, "measured"), "value");
    if (!id || !family || !group || !solver || !output || !json_is_number(measured))
        return fail(err, errlen, name, line, "a measurement needs id, family, source.key, request.solver, output "
                    "and measured.value", NULL);
    int fam = calib_family_find(family);
    if (fam < 0)
        return fail(err, errlen, name, line, "unknown family", family);
    const solver_desc *d = solver_at((size_t)solver_find(solver));
    if (!d)
        return fail(err, errlen, name, line, "unknown solver", solver);
    int out = solver_output_index(d, output);
    if (out < 0)
        return fail(err, errlen, name, line, "the solver has no such output", output);
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->items[i].id, id) == 0)
            return fail(err, errlen, name, line, "duplicate id", id);
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        vmeasure *grown = realloc(s->items, cap * sizeof *grown);
        if (!grown)
            return fail(err, errlen, name, line, "out of memory", NULL);
        s->items = grown;
        s->cap = cap;
    }
    vmeasure *m = &s->items[s->n];
    memset(m, 0, sizeof *m);
    api_error ae = {0};
    if (inputs_from_json(d, json_object_get(req, "inputs"), ed, &m->in, &ae) != 0) {
        inputs_release(&m->in);
        char detail[900];
        snprintf(detail, sizeof detail, "%s (%s)", ae.detail, ae.field);
        return fail(err, errlen, name, line, "the request is refused", detail);
    }
    m->record = json_incref(rec);
    m->id = id;
    m->source_group = group;
    m->family = (calib_family)fam;
    m->solver = d;
    m->output = out;
    m->measured = json_number_value(measured);
    s->n++;
    return 0;
}

int vset_add_text(vset *s, const char *name, const char *text, const catalog_edition *ed, char *err, size_t errlen)
{
    int line = 0;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        line++;
        if (len > 0 && !(len == 1 && p[0] == '\r')) {
            json_error_t je;
            json_t *rec = json_loadb(p, len, 0, &je);
            if (!rec || !json_is_object(rec)) {
                json_decref(rec);
                return fail(err, errlen, name, line, "not a JSON object", je.text);
            }
            int rc = add_record(s, rec, name, line, ed, err, errlen);
            json_decref(rec);
            if (rc != 0)
                return -1;
        }
        p += len + (eol ? 1 : 0);
    }
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return strcmp((*(const embedded_file *const *)a)->path, (*(const embedded_file *const *)b)->path);
}

int vset_load_embedded(vset *s, const catalog_edition *ed, char *err, size_t errlen)
{
    const embedded_file *files[64];
    size_t n = 0;
    size_t plen = strlen(MEASUREMENTS_DIR);
    for (size_t i = 0; i < mlsysd_embedded_count && n < 64; i++)
        if (strncmp(mlsysd_embedded[i].path, MEASUREMENTS_DIR, plen) == 0)
            files[n++] = &mlsysd_embedded[i];
    qsort(files, n, sizeof files[0], by_path);
    for (size_t i = 0; i < n; i++)
        if (vset_add_text(s, files[i]->path, (const char *)files[i]->data, ed, err, errlen) != 0)
            return -1;
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int vset_load_dir(vset *s, const char *dir, const catalog_edition *ed, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open the directory", dir);
        return -1;
    }
    char *names[64];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64) {
        size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".jsonl") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = rc == 0 ? fopen(path, "rb") : NULL;
        if (rc == 0 && !f) {
            snprintf(err, errlen, "%s: cannot open", path);
            rc = -1;
        }
        if (f) {
            fseek(f, 0, SEEK_END);
            long len = ftell(f);
            fseek(f, 0, SEEK_SET);
            char *text = malloc((size_t)len + 1);
            size_t got = text ? fread(text, 1, (size_t)len, f) : 0;
            fclose(f);
            if (!text) {
                snprintf(err, errlen, "%s: out of memory", path);
                rc = -1;
            } else {
                text[got] = '\0';
                rc = vset_add_text(s, path, text, ed, err, errlen);
                free(text);
            }
        }
        free(names[i]);
    }
    return rc;
}

void vset_free(vset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        inputs_release(&s->items[i].in);
        json_decref(s->items[i].record);
    }
    free(s->items);
    memset(s, 0, sizeof *s);
}

double vset_predict(vmeasure *m, calibration_mode mode, solver_outputs *scratch)
{
    solver_outputs_reset(scratch);
    scratch->quiet = true;
    m->in.calibration = mode;
    solver_error se = {0};
    if (m->solver->run(&m->in, scratch, &se) != 0)
        return NAN;
    const output_value *v = &scratch->v[m->output];
    return v->is_null ? NAN : v->num;
}

double vset_error(double p, double m)
{
    if (!(p > 0) || !isfinite(p) || !(m > 0))
        return INFINITY;
    return fmax(p / m, m / p) - 1.0;
}
