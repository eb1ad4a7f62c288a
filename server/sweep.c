/* sweep.c - /sweep: one solver over the cartesian product of axes,
 * streamed as JSON, CSV or NDJSON from a callback with bounded memory (no
 * per-point allocation), with the crossovers ("transitions") of every
 * categorical output. Generic: knows no solver by name. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "server/app.h"
#include "server/jsonw.h"

#define MAX_AXES 8
#define MAX_INTERNED 254         /* distinct values per categorical output; 255 = null / error */
#define CODE_NONE 255
#define TRANSITIONS_MAX 10000
#define CODES_MAX_BYTES (256u << 20)
#define CHUNK 32768

typedef enum { FMT_JSON, FMT_CSV, FMT_NDJSON } sweep_format;

typedef struct {
    int input;               /* index into the solver's inputs */
    size_t n;
    input_value *vals;       /* parsed values; inline entries live in their *_store */
    double *nums;            /* numeric axes: values (SI), without the big input_value */
    bool numeric;
} axis;

struct sweep_stream {
    const solver_desc *s;
    const catalog_edition *ed;
    sweep_format fmt;
    axis axes[MAX_AXES];
    int n_axes;
    unsigned long long points, next;
    size_t stride[MAX_AXES];
    int out_cols[SOLVER_MAX_OUTPUTS];  /* projected outputs */
    int n_out;
    solver_inputs *base, *cur;
    solver_outputs *out;
    strbuf buf;
    size_t buf_pos;
    int stage;                          /* 0 header, 1 rows, 2 trailer, 3 done */
    /* transitions (JSON only) */
    int cat_cols[SOLVER_MAX_OUTPUTS];   /* indices into out_cols that are categorical */
    int n_cat;
    uint8_t *codes;
    const char *interned[SOLVER_MAX_OUTPUTS][MAX_INTERNED];
    int n_interned[SOLVER_MAX_OUTPUTS];
    struct timespec t0;
    double timeout;
    bool timed_out;
    unsigned solver_index;
};

/* --- parsing the request --------------------------------------------------------------- */

static bool is_numeric_kind(input_kind k) { return k == IN_NUMBER || k == IN_INTEGER || k == IN_QUANTITY; }

static int add_value(sweep_stream *st, axis *ax, const json_t *v, size_t i, api_error *err)
{
    const input_desc *d = &st->s->inputs[ax->input];
    char field[96];
    snprintf(field, sizeof field, "axes.%s[%zu]", d->name, i);
    input_value tmp;
    input_value *dst = ax->numeric ? &tmp : &ax->vals[i];
    if (input_parse(d, v, st->ed, dst, field, err) != 0)
        return -1;
    if (ax->numeric) {
        ax->nums[i] = tmp.num;
    } else if (dst->hw == &dst->hw_store || dst->model == &dst->model_store) {
        /* pointer into itself: fix after the array stops moving (it does not: allocated once) */
    }
    return 0;
}

static int axis_alloc(axis *ax, size_t n, api_error *err)
{
    ax->n = n;
    if (ax->numeric)
        ax->nums = calloc(n, sizeof *ax->nums);
    else
        ax->vals = calloc(n, sizeof *ax->vals);
    if ((ax->numeric && !ax->nums) || (!ax->numeric && !ax->vals))
        return api_fail(err, 413, "too-large", "axes", "not enough memory for an axis of %zu values", n);
    return 0;
}

static double num_of(const json_t *j, bool *ok)
{
    *ok = json_is_number(j);
    return *ok ? json_number_value(j) : 0;
}

/* Range and geomspace bounds: numbers in the input's unit, or strings with units for quantities. */
static int bound_si(sweep_stream *st, axis *ax, const json_t *j, const char *what, double *out, api_error *err)
{
    const input_desc *d = &st->s->inputs[ax->input];
    char field[96];
    snprintf(field, sizeof field, "axes.%s.%s", d->name, what);
    if (!j)
        return api_fail(err, 400, "invalid-axis", field, "missing '%s'", what);
    input_value v;
    if (d->kind == IN_INTEGER) {
        bool ok;
        double x = num_of(j, &ok);
        if (!ok || x != floor(x))
            return api_fail(err, 400, "invalid-axis", field, "%s of an integer axis must be a whole number", what);
        *out = x;
        return 0;
    }
    if (input_parse(d, j, st->ed, &v, field, err) != 0)
        return -1;
    *out = v.num;
    return 0;
}

static int parse_axis(sweep_stream *st, const json_t *spec, size_t idx, unsigned long long cap, api_error *err)
{
    char field[64];
    snprintf(field, sizeof field, "axes[%zu]", idx);
    if (!json_is_object(spec))
        return api_fail(err, 400, "invalid-axis", field, "an axis must be an object like {\"input\": \"batch_size\", \"values\": [32, 64]}");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)spec, key, val) {
        if (strcmp(key, "input") && strcmp(key, "values") && strcmp(key, "range") && strcmp(key, "geomspace"))
            return api_fail(err, 400, "invalid-axis", field,
                            "unknown axis field '%.60s'; an axis has input and one of values, range, geomspace", key);
    }
    const json_t *jin = json_object_get(spec, "input");
    if (!json_is_string(jin))
        return api_fail(err, 400, "invalid-axis", field, "axis 'input' must name an input of solver %s", st->s->name);
    int in = solver_input_index(st->s, json_string_value(jin));
    if (in < 0)
        return api_fail(err, 400, "invalid-axis", field, "unknown axis input '%.60s' for solver %s (GET /solvers/%s lists its inputs)",
                        json_string_value(jin), st->s->name, st->s->name);
    for (int a = 0; a < st->n_axes; a++)
        if (st->axes[a].input == in)
            return api_fail(err, 400, "invalid-axis", field, "input '%s' is swept by two axes", st->s->inputs[in].name);
    axis *ax = &st->axes[st->n_axes];
    ax->input = in;
    ax->numeric = is_numeric_kind(st->s->inputs[in].kind);
    const json_t *jv = json_object_get(spec, "values"), *jr = json_object_get(spec, "range"),
                 *jg = json_object_get(spec, "geomspace");
    int forms = (jv != NULL) + (jr != NULL) + (jg != NULL);
    if (forms != 1)
        return api_fail(err, 400, "invalid-axis", field, "give exactly one of values, range or geomspace for axis '%s'",
                        st->s->inputs[in].name);
    snprintf(field, sizeof field, "axes.%s", st->s->inputs[in].name);
    if (jv) {
        if (!json_is_array(jv) || json_array_size(jv) == 0)
            return api_fail(err, 400, "invalid-axis", field, "values must be a non-empty array");
        if (json_array_size(jv) > cap)
            return api_fail(err, 413, "too-many-points", field, "axis has %zu values; the sweep cap is %llu points",
                            json_array_size(jv), cap);
        if (axis_alloc(ax, json_array_size(jv), err) != 0)
            return -1;
        st->n_axes++;
        for (size_t i = 0; i < ax->n; i++)
            if (add_value(st, ax, json_array_get(jv, i), i, err) != 0)
                return -1;
        return 0;
    }
    if (!ax->numeric)
        return api_fail(err, 400, "invalid-axis", field, "range and geomspace need a numeric input; '%s' takes values",
                        st->s->inputs[in].name);
    const json_t *r = jr ? jr : jg;
    if (!json_is_object(r))
        return api_fail(err, 400, "invalid-axis", field, "%s must be an object", jr ? "range" : "geomspace");
    double start, stop;
    if (bound_si(st, ax, json_object_get(r, "start"), "start", &start, err) != 0 ||
        bound_si(st, ax, json_object_get(r, "stop"), "stop", &stop, err) != 0)
        return -1;
    double n;
    double step = 0;
    if (jr) {
        if (bound_si(st, ax, json_object_get(r, "step"), "step", &step, err) != 0)
            return -1;
        if (!(step != 0) || (stop - start) / step < 0)
            return api_fail(err, 400, "invalid-axis", field, "range step must be non-zero and go from start towards stop");
        n = floor((stop - start) / step * (1 + 1e-12) + 1e-9) + 1;
    } else {
        const json_t *jc = json_object_get(r, "count");
        if (!json_is_integer(jc) || json_integer_value(jc) < 1)
            return api_fail(err, 400, "invalid-axis", field, "geomspace count must be an integer >= 1");
        if (!(start > 0) || !(stop > 0))
            return api_fail(err, 400, "invalid-axis", field, "geomspace start and stop must be positive");
        n = (double)json_integer_value(jc);
    }
    if (!isfinite(n) || n > (double)cap)
        return api_fail(err, 413, "too-many-points", field, "axis has %.0f points; the sweep cap is %llu points", n, cap);
    if (axis_alloc(ax, (size_t)n, err) != 0)
        return -1;
    st->n_axes++;
    for (size_t i = 0; i < ax->n; i++) {
        double x;
        if (jr)
            x = start + step * (double)i;
        else
            x = ax->n == 1 ? start : start * pow(stop / start, (double)i / (double)(ax->n - 1));
        if (st->s->inputs[in].kind == IN_INTEGER && jg)
            x = round(x);
        ax->nums[i] = x;
    }
    return 0;
}

static sweep_format format_from(const char *f, const char *accept, bool *ok)
{
    *ok = true;
    if (f) {
        if (!strcasecmp(f, "json")) return FMT_JSON;
        if (!strcasecmp(f, "csv")) return FMT_CSV;
        if (!strcasecmp(f, "ndjson")) return FMT_NDJSON;
        *ok = false;
        return FMT_JSON;
    }
    if (accept && strstr(accept, "text/csv"))
        return FMT_CSV;
    if (accept && (strstr(accept, "application/x-ndjson") || strstr(accept, "application/ndjson")))
        return FMT_NDJSON;
    return FMT_JSON;
}

static int parse_outputs(sweep_stream *st, const json_t *outs, api_error *err)
{
    st->n_out = 0;
    if (!outs) {
        for (size_t i = 0; i < st->s->n_outputs; i++)
            st->out_cols[st->n_out++] = (int)i;
        return 0;
    }
    if (!json_is_array(outs) || json_array_size(outs) == 0)
        return api_fail(err, 400, "invalid-input", "outputs", "outputs must be a non-empty array of output names");
    size_t i;
    json_t *v;
    json_array_foreach(outs, i, v) {
        int o = json_is_string(v) ? solver_output_index(st->s, json_string_value(v)) : -1;
        if (o < 0)
            return api_fail(err, 400, "invalid-input", "outputs", "unknown output '%.60s' of solver %s",
                            json_is_string(v) ? json_string_value(v) : "?", st->s->name);
        for (int k = 0; k < st->n_out; k++)
            if (st->out_cols[k] == o)
                return api_fail(err, 400, "invalid-input", "outputs", "output '%s' is listed twice", st->s->outputs[o].name);
        st->out_cols[st->n_out++] = o;
    }
    return 0;
}

void sweep_stream_free(sweep_stream *st)
{
    if (!st)
        return;
    for (int a = 0; a < MAX_AXES; a++) {
        free(st->axes[a].vals);
        free(st->axes[a].nums);
    }
    free(st->base);
    free(st->cur);
    free(st->out);
    free(st->codes);
    sb_free(&st->buf);
    free(st);
}

/* GET /sweep/{solver}?a=1,2&b=x: comma-separated values are axes. */
int query_to_inputs(const solver_desc *s, const app_request *req, const char *const *reserved, json_t **out,
                    api_error *err);

static int query_spec(const solver_desc *s, const app_request *req, json_t *body, api_error *err)
{
    static const char *const reserved[] = {"catalog", "format", "outputs", NULL};
    app_request scalar = *req;
    scalar.n_query = 0;
    json_t *axes = json_array();
    json_object_set_new(body, "axes", axes);
    for (size_t i = 0; i < req->n_query; i++) {
        const char *k = req->query[i].key, *v = req->query[i].value ? req->query[i].value : "";
        if (!strcmp(k, "outputs")) {
            json_t *o = json_array();
            char *copy = strdup(v), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
                json_array_append_new(o, json_string(t));
            free(copy);
            json_object_set_new(body, "outputs", o);
        } else if (!strcmp(k, "format") || !strcmp(k, "catalog")) {
            json_object_set_new(body, k, json_string(v));
        } else if (strchr(v, ',') && !strchr(k, '.')) {
            int idx = solver_input_index(s, k);
            if (idx < 0)
                return api_fail(err, 400, "unknown-input", k, "unknown input '%.80s' for solver %s", k, s->name);
            json_t *vals = json_array();
            char *copy = strdup(v), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
                json_array_append_new(vals, input_from_text(&s->inputs[idx], t));
            free(copy);
            json_array_append_new(axes, json_pack("{s:s,s:o}", "input", k, "values", vals));
        } else {
            scalar.query[scalar.n_query++] = req->query[i];
        }
    }
    json_t *inputs;
    if (query_to_inputs(s, &scalar, reserved, &inputs, err) != 0)
        return -1;
    json_object_set_new(body, "inputs", inputs);
    return 0;
}

static void start_row_buffers(sweep_stream *st);

int sweep_start(app *a, const app_request *req, const char *solver_name, app_response *resp)
{
    api_error err;
    json_t *body = NULL;
    sweep_stream *st = calloc(1, sizeof *st);
    if (!st) {
        api_fail(&err, 503, "overloaded", "", "out of memory");
        app_problem(resp, req, &err);
        return -1;
    }
    sb_init(&st->buf);
    const solver_desc *s = NULL;
    if (solver_name) {
        s = solver_find(solver_name);
        if (!s) {
            api_fail(&err, 404, "unknown-solver", "solver", "unknown solver '%.60s' (GET /solvers lists them)", solver_name);
            goto fail;
        }
        body = json_object();
        if (query_spec(s, req, body, &err) != 0)
            goto fail;
    } else {
        body = app_parse_body(req, &err);
        if (!body)
            goto fail;
        const char *key;
        json_t *val;
        json_object_foreach(body, key, val) {
            if (strcmp(key, "solver") && strcmp(key, "inputs") && strcmp(key, "axes") && strcmp(key, "outputs") &&
                strcmp(key, "format") && strcmp(key, "catalog")) {
                api_fail(&err, 400, "unknown-field", key,
                         "unknown field '%.80s'; a /sweep body has solver, inputs, axes, outputs, format and catalog", key);
                goto fail;
            }
        }
        const json_t *js = json_object_get(body, "solver");
        if (!json_is_string(js)) {
            api_fail(&err, 400, "missing-input", "solver", "solver must be a string naming a solver (GET /solvers lists them)");
            goto fail;
        }
        s = solver_find(json_string_value(js));
        if (!s) {
            api_fail(&err, 404, "unknown-solver", "solver", "unknown solver '%.60s' (GET /solvers lists them)",
                     json_string_value(js));
            goto fail;
        }
    }
    st->s = s;
    for (size_t i = 0; i < solver_count(); i++)
        if (solver_at(i) == s)
            st->solver_index = (unsigned)i;
    const json_t *jc = json_object_get(body, "catalog"), *jf = json_object_get(body, "format");
    if (jc && !json_is_string(jc)) {
        api_fail(&err, 400, "invalid-input", "catalog", "catalog must be a string");
        goto fail;
    }
    st->ed = app_edition(a, jc ? json_string_value(jc) : NULL, &err);
    if (!st->ed)
        goto fail;
    bool ok;
    if (jf && !json_is_string(jf)) {
        api_fail(&err, 400, "invalid-input", "format", "format must be json, csv or ndjson");
        goto fail;
    }
    st->fmt = format_from(jf ? json_string_value(jf) : NULL, req->accept, &ok);
    if (!ok) {
        api_fail(&err, 400, "invalid-input", "format", "format must be json, csv or ndjson, got '%.40s'", json_string_value(jf));
        goto fail;
    }
    if (parse_outputs(st, json_object_get(body, "outputs"), &err) != 0)
        goto fail;
    const json_t *axes = json_object_get(body, "axes");
    if (!json_is_array(axes) || json_array_size(axes) == 0) {
        api_fail(&err, 400, "invalid-axis", "axes",
                 "axes must be a non-empty array, e.g. [{\"input\": \"batch_size\", \"values\": [32, 64, 128]}]");
        goto fail;
    }
    if (json_array_size(axes) > MAX_AXES) {
        api_fail(&err, 400, "invalid-axis", "axes", "at most %d axes", MAX_AXES);
        goto fail;
    }
    unsigned long long cap = (unsigned long long)a->cfg->sweep_max_points;
    for (size_t i = 0; i < json_array_size(axes); i++)
        if (parse_axis(st, json_array_get(axes, i), i, cap, &err) != 0)
            goto fail;
    /* Points, checked against the cap without overflow. */
    unsigned long long points = 1;
    for (int i = 0; i < st->n_axes; i++) {
        if (points > cap / st->axes[i].n + 1) {
            points = cap + 1;
            break;
        }
        points *= st->axes[i].n;
    }
    if (points > cap) {
        long double exact = 1;
        for (int i = 0; i < st->n_axes; i++)
            exact *= (long double)st->axes[i].n;
        api_fail(&err, 413, "too-many-points", "axes",
                 "the sweep has %.0Lf points; the cap is %llu (--sweep-max-points / MLSYSD_SWEEP_MAX_POINTS)", exact, cap);
        goto fail;
    }
    st->points = points;
    /* Base inputs: axis inputs may not also be fixed inputs; they take the first axis value for parsing. */
    json_t *inputs = json_object_get(body, "inputs");
    if (inputs && !json_is_object(inputs)) {
        api_fail(&err, 400, "invalid-input", "inputs", "inputs must be an object");
        goto fail;
    }
    json_t *base_json = inputs ? json_copy(inputs) : json_object();
    for (int i = 0; i < st->n_axes; i++) {
        const char *name = s->inputs[st->axes[i].input].name;
        if (json_object_get(base_json, name)) {
            json_decref(base_json);
            api_fail(&err, 400, "invalid-axis", name, "input '%s' is both fixed in inputs and swept by an axis", name);
            goto fail;
        }
        json_object_set_new(base_json, name, json_null());
    }
    st->base = calloc(1, sizeof *st->base);
    st->cur = calloc(1, sizeof *st->cur);
    st->out = calloc(1, sizeof *st->out);
    if (!st->base || !st->cur || !st->out) {
        json_decref(base_json);
        api_fail(&err, 503, "overloaded", "", "out of memory");
        goto fail;
    }
    /* Parse with axis inputs marked optional by pre-filling a placeholder. */
    {
        const solver_desc *sd = s;
        int rc = 0;
        for (int i = 0; i < st->n_axes; i++)
            json_object_del(base_json, sd->inputs[st->axes[i].input].name);
        /* give each swept required input its first value so the generic parser is satisfied */
        for (int i = 0; i < st->n_axes; i++) {
            const axis *ax = &st->axes[i];
            const input_desc *d = &sd->inputs[ax->input];
            if (ax->numeric)
                json_object_set_new(base_json, d->name, json_real(0));
            else if (d->kind == IN_BOOLEAN)
                json_object_set_new(base_json, d->name, json_false());
        }
        /* numeric placeholders are plain numbers; ids/enums are set per point below */
        json_t *probe = json_copy(base_json);
        for (int i = 0; i < st->n_axes; i++) {
            const axis *ax = &st->axes[i];
            const input_desc *d = &sd->inputs[ax->input];
            if (!ax->numeric && d->kind != IN_BOOLEAN)
                json_object_del(probe, d->name);
        }
        /* parse everything except the non-numeric axis inputs, which are filled from the axes */
        solver_desc tmp = *sd;
        (void)tmp;
        rc = inputs_parse(sd, probe, st->ed, st->base, &err);
        if (rc != 0 && err.status == 400 && !strcmp(err.slug, "missing-input")) {
            /* a missing non-numeric input that an axis supplies is fine */
            const char *missing = err.field + strlen("inputs.");
            bool supplied = false;
            for (int i = 0; i < st->n_axes; i++)
                if (!strcmp(sd->inputs[st->axes[i].input].name, missing))
                    supplied = true;
            if (supplied) {
                /* re-parse with the first axis value for every non-numeric axis */
                for (int i = 0; i < st->n_axes; i++) {
                    const axis *ax = &st->axes[i];
                    const input_desc *d = &sd->inputs[ax->input];
                    if (!ax->numeric && d->kind != IN_BOOLEAN) {
                        if (d->kind == IN_HARDWARE || d->kind == IN_MODEL)
                            json_object_set_new(probe, d->name, json_string(d->kind == IN_HARDWARE ? ax->vals[0].hw->key
                                                                                                   : ax->vals[0].model->key));
                        else if (d->kind == IN_ENUM)
                            json_object_set_new(probe, d->name, json_string(d->enum_values[ax->vals[0].enum_index]));
                    }
                }
                rc = inputs_parse(sd, probe, st->ed, st->base, &err);
            }
        }
        json_decref(probe);
        json_decref(base_json);
        if (rc != 0)
            goto fail;
    }
    /* The numeric placeholders were parsed as 0 "present" values; the axes overwrite them per point. */
    json_decref(body);
    body = NULL;
    st->stride[st->n_axes - 1] = 1;
    for (int i = st->n_axes - 2; i >= 0; i--)
        st->stride[i] = st->stride[i + 1] * st->axes[i + 1].n;
    if (st->fmt == FMT_JSON) {
        for (int k = 0; k < st->n_out; k++)
            if (s->outputs[st->out_cols[k]].categorical)
                st->cat_cols[st->n_cat++] = k;
        if (st->n_cat && st->points * (unsigned long long)st->n_cat <= CODES_MAX_BYTES)
            st->codes = malloc(st->points * (size_t)st->n_cat);
    }
    clock_gettime(CLOCK_MONOTONIC, &st->t0);
    st->timeout = a->cfg->request_timeout;
    start_row_buffers(st);
    resp->status = 200;
    resp->stream = st;
    resp->content_type = st->fmt == FMT_CSV      ? "text/csv; charset=utf-8; header=present"
                         : st->fmt == FMT_NDJSON ? "application/x-ndjson"
                                                 : "application/json";
    if (st->fmt == FMT_CSV)
        snprintf(resp->disposition, sizeof resp->disposition, "attachment; filename=\"sweep-%s.csv\"", s->name);
    return 0;
fail:
    json_decref(body);
    sweep_stream_free(st);
    app_problem(resp, req, &err);
    return -1;
}

/* --- producing the body ------------------------------------------------------------------- */

static void start_row_buffers(sweep_stream *st) { (void)st; }

/* Set the axis values of point p into cur. */
static void apply_point(sweep_stream *st, unsigned long long p, size_t idx[MAX_AXES])
{
    for (int a = 0; a < st->n_axes; a++) {
        axis *ax = &st->axes[a];
        idx[a] = (size_t)((p / st->stride[a]) % ax->n);
        input_value *v = &st->cur->v[ax->input];
        if (ax->numeric) {
            v->present = true;
            v->defaulted = false;
            v->num = ax->nums[idx[a]];
            v->num_was_int = st->s->inputs[ax->input].kind == IN_INTEGER || v->num == floor(v->num);
        } else {
            const input_value *src = &ax->vals[idx[a]];
            v->present = true;
            v->defaulted = false;
            v->num = src->num;
            v->enum_index = src->enum_index;
            v->hw = src->hw;
            v->model = src->model;
        }
    }
}

/* An axis value as the row shows it (declared unit, catalog key, enum name). */
static void put_axis_value(sweep_stream *st, int a, size_t i, bool csv)
{
    const axis *ax = &st->axes[a];
    const input_desc *d = &st->s->inputs[ax->input];
    strbuf *b = &st->buf;
    if (ax->numeric) {
        double x = ax->nums[i];
        if (d->kind == IN_QUANTITY)
            units_to(x, d->unit, *d->dim, &x);
        sb_number(b, x);
        return;
    }
    const input_value *v = &ax->vals[i];
    const char *s = "";
    switch (d->kind) {
    case IN_BOOLEAN: sb_puts(b, v->num != 0 ? "true" : "false"); return;
    case IN_ENUM: s = d->enum_values[v->enum_index]; break;
    case IN_HARDWARE: s = v->hw->key; break;
    case IN_MODEL: s = v->model->key; break;
    default: break;
    }
    if (csv) {
        /* RFC 4180: quote fields with comma, quote or line break */
        if (strpbrk(s, ",\"\r\n")) {
            sb_putc(b, '"');
            for (const char *c = s; *c; c++) {
                if (*c == '"')
                    sb_putc(b, '"');
                sb_putc(b, *c);
            }
            sb_putc(b, '"');
        } else {
            sb_puts(b, s);
        }
    } else {
        sb_json_string(b, s);
    }
}

static void csv_string(strbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        sb_puts(b, s);
        return;
    }
    sb_putc(b, '"');
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            sb_putc(b, '"');
        sb_putc(b, *c);
    }
    sb_putc(b, '"');
}

static void put_output(sweep_stream *st, int k, bool csv)
{
    const output_desc *d = &st->s->outputs[st->out_cols[k]];
    const output_value *v = &st->out->v[st->out_cols[k]];
    strbuf *b = &st->buf;
    if (v->is_null || ((d->kind == OUT_NUMBER || d->kind == OUT_INTEGER) && !isfinite(v->num))) {
        if (!csv)
            sb_puts(b, "null");
        return;
    }
    switch (d->kind) {
    case OUT_STRING:
        if (csv)
            csv_string(b, v->str);
        else
            sb_json_string(b, v->str);
        break;
    case OUT_BOOLEAN: sb_puts(b, v->num != 0 ? "true" : "false"); break;
    case OUT_INTEGER:
    case OUT_NUMBER: sb_number(b, v->num); break;
    }
}

/* CSV header names carry the unit: latency_ms, peak_bw_actual_GB_per_s. */
static void csv_name(strbuf *b, const char *name, const char *unit)
{
    sb_puts(b, name);
    if (!unit || !*unit)
        return;
    sb_putc(b, '_');
    for (const char *c = unit; *c; c++) {
        if (*c == '/')
            sb_puts(b, "_per_");
        else if (*c == ' ')
            continue;
        else
            sb_putc(b, *c);
    }
}

static const char *axis_unit(const sweep_stream *st, int a)
{
    const input_desc *d = &st->s->inputs[st->axes[a].input];
    return d->kind == IN_QUANTITY ? d->unit : "";
}

static void write_header(sweep_stream *st)
{
    strbuf *b = &st->buf;
    const solver_desc *s = st->s;
    if (st->fmt == FMT_CSV) {
        for (int a = 0; a < st->n_axes; a++) {
            csv_name(b, s->inputs[st->axes[a].input].name, axis_unit(st, a));
            sb_putc(b, ',');
        }
        for (int k = 0; k < st->n_out; k++) {
            const output_desc *d = &s->outputs[st->out_cols[k]];
            csv_name(b, d->name, d->unit);
            sb_putc(b, ',');
        }
        sb_puts(b, "error\r\n");
        return;
    }
    if (st->fmt == FMT_NDJSON)
        return;
    sb_puts(b, "{\"solver\":");
    sb_json_string(b, s->name);
    sb_puts(b, ",\"catalog\":");
    sb_json_string(b, edition_name(st->ed));
    sb_puts(b, ",\"catalog_version\":");
    sb_json_string(b, edition_version(st->ed));
    sb_printf(b, ",\"points\":%llu,\"axes\":[", st->points);
    for (int a = 0; a < st->n_axes; a++) {
        sb_puts(b, a ? ",{\"input\":" : "{\"input\":");
        sb_json_string(b, s->inputs[st->axes[a].input].name);
        sb_printf(b, ",\"count\":%zu}", st->axes[a].n);
    }
    sb_puts(b, "],\"columns\":[");
    for (int a = 0; a < st->n_axes; a++) {
        if (a)
            sb_putc(b, ',');
        sb_json_string(b, s->inputs[st->axes[a].input].name);
    }
    for (int k = 0; k < st->n_out; k++) {
        sb_putc(b, ',');
        sb_json_string(b, s->outputs[st->out_cols[k]].name);
    }
    sb_puts(b, ",\"error\"],\"units\":{");
    bool first = true;
    for (int a = 0; a < st->n_axes; a++) {
        const char *u = axis_unit(st, a);
        if (!*u)
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        sb_json_string(b, s->inputs[st->axes[a].input].name);
        sb_putc(b, ':');
        sb_json_string(b, u);
    }
    for (int k = 0; k < st->n_out; k++) {
        const output_desc *d = &s->outputs[st->out_cols[k]];
        if (!d->unit[0])
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        sb_json_string(b, d->name);
        sb_putc(b, ':');
        sb_json_string(b, d->unit);
    }
    sb_puts(b, "},\"rows\":[");
}

static uint8_t intern(sweep_stream *st, int c, const output_value *v, output_kind kind)
{
    if (v->is_null)
        return CODE_NONE;
    const char *s = kind == OUT_BOOLEAN ? (v->num != 0 ? "true" : "false") : v->str;
    if (!s)
        return CODE_NONE;
    for (int i = 0; i < st->n_interned[c]; i++)
        if (st->interned[c][i] == s || !strcmp(st->interned[c][i], s))
            return (uint8_t)i;
    if (st->n_interned[c] >= MAX_INTERNED)
        return CODE_NONE;
    st->interned[c][st->n_interned[c]] = s;
    return (uint8_t)st->n_interned[c]++;
}

static void write_row(sweep_stream *st, unsigned long long p)
{
    size_t idx[MAX_AXES];
    memcpy(st->cur, st->base, sizeof *st->cur);
    apply_point(st, p, idx);
    api_error err;
    solver_error se = {0};
    const char *error = NULL;
    st->out->n_warnings = 0;
    st->out->n_trace = 0;
    if (inputs_check(st->s, st->cur, &err) != 0) {
        error = err.detail;
    } else if (st->s->run(st->cur, st->out, &se) != 0) {
        error = se.detail;
    }
    metrics_solve(st->solver_index);
    strbuf *b = &st->buf;
    bool csv = st->fmt == FMT_CSV, nd = st->fmt == FMT_NDJSON;
    if (st->fmt == FMT_JSON)
        sb_puts(b, p ? ",[" : "[");
    else if (nd)
        sb_putc(b, '{');
    for (int a = 0; a < st->n_axes; a++) {
        if (nd) {
            if (a)
                sb_putc(b, ',');
            sb_json_string(b, st->s->inputs[st->axes[a].input].name);
            sb_putc(b, ':');
        } else if (a) {
            sb_putc(b, ',');
        }
        put_axis_value(st, a, idx[a], csv);
    }
    for (int k = 0; k < st->n_out; k++) {
        sb_putc(b, ',');
        if (nd) {
            sb_json_string(b, st->s->outputs[st->out_cols[k]].name);
            sb_putc(b, ':');
        }
        if (error) {
            if (!csv)
                sb_puts(b, "null");
        } else {
            put_output(st, k, csv);
        }
    }
    sb_putc(b, ',');
    if (nd)
        sb_puts(b, "\"error\":");
    if (error) {
        if (csv)
            csv_string(b, error);
        else
            sb_json_string(b, error);
    } else if (!csv) {
        sb_puts(b, "null");
    }
    sb_puts(b, st->fmt == FMT_JSON ? "]" : nd ? "}\n" : "\r\n");
    if (st->codes) {
        for (int c = 0; c < st->n_cat; c++) {
            int col = st->out_cols[st->cat_cols[c]];
            output_value none = {.is_null = true};
            st->codes[p * (size_t)st->n_cat + (size_t)c] =
                intern(st, c, error ? &none : &st->out->v[col], st->s->outputs[col].kind);
        }
    }
}

static void put_code(sweep_stream *st, int c, uint8_t code)
{
    if (code == CODE_NONE) {
        sb_puts(&st->buf, "null");
        return;
    }
    const char *s = st->interned[c][code];
    int col = st->out_cols[st->cat_cols[c]];
    if (st->s->outputs[col].kind == OUT_BOOLEAN)
        sb_puts(&st->buf, s);
    else
        sb_json_string(&st->buf, s);
}

static void write_trailer(sweep_stream *st)
{
    strbuf *b = &st->buf;
    if (st->fmt == FMT_CSV || st->fmt == FMT_NDJSON) {
        if (st->timed_out) {
            char msg[200];
            snprintf(msg, sizeof msg, "sweep cut off by the request timeout (%g s) after %llu of %llu points",
                     st->timeout, st->next, st->points);
            if (st->fmt == FMT_CSV) {
                for (int i = 0; i < st->n_axes + st->n_out; i++)
                    sb_putc(b, ',');
                csv_string(b, msg);
                sb_puts(b, "\r\n");
            } else {
                sb_puts(b, "{\"error\":");
                sb_json_string(b, msg);
                sb_puts(b, "}\n");
            }
        }
        return;
    }
    sb_puts(b, "],\"transitions\":[");
    unsigned long long count = 0;
    bool truncated = false;
    if (st->codes && !st->timed_out) {
        for (unsigned long long p = 0; p < st->points && !truncated; p++) {
            size_t idx[MAX_AXES];
            for (int a = 0; a < st->n_axes; a++)
                idx[a] = (size_t)((p / st->stride[a]) % st->axes[a].n);
            for (int a = 0; a < st->n_axes && !truncated; a++) {
                if (idx[a] + 1 >= st->axes[a].n)
                    continue;
                unsigned long long q = p + st->stride[a];
                for (int c = 0; c < st->n_cat; c++) {
                    uint8_t x = st->codes[p * (size_t)st->n_cat + (size_t)c];
                    uint8_t y = st->codes[q * (size_t)st->n_cat + (size_t)c];
                    if (x == y)
                        continue;
                    if (count == TRANSITIONS_MAX) {
                        truncated = true;
                        break;
                    }
                    if (count++)
                        sb_putc(b, ',');
                    sb_puts(b, "{\"output\":");
                    sb_json_string(b, st->s->outputs[st->out_cols[st->cat_cols[c]]].name);
                    sb_puts(b, ",\"axis\":");
                    sb_json_string(b, st->s->inputs[st->axes[a].input].name);
                    sb_puts(b, ",\"from_input\":");
                    put_axis_value(st, a, idx[a], false);
                    sb_puts(b, ",\"to_input\":");
                    put_axis_value(st, a, idx[a] + 1, false);
                    sb_puts(b, ",\"from\":");
                    put_code(st, c, x);
                    sb_puts(b, ",\"to\":");
                    put_code(st, c, y);
                    sb_puts(b, ",\"at\":{");
                    bool first = true;
                    for (int o = 0; o < st->n_axes; o++) {
                        if (o == a)
                            continue;
                        if (!first)
                            sb_putc(b, ',');
                        first = false;
                        sb_json_string(b, st->s->inputs[st->axes[o].input].name);
                        sb_putc(b, ':');
                        put_axis_value(st, o, idx[o], false);
                    }
                    sb_puts(b, "}}");
                }
            }
        }
    }
    sb_puts(b, "]");
    if (truncated)
        sb_printf(b, ",\"transitions_truncated\":%d", TRANSITIONS_MAX);
    if (st->n_cat && !st->codes && !st->timed_out)
        sb_puts(b, ",\"transitions_omitted\":\"too many points to track; sweep fewer points or use outputs\"");
    if (st->timed_out)
        sb_printf(b, ",\"error\":\"sweep cut off by the request timeout (%g s) after %llu of %llu points\"",
                  st->timeout, st->next, st->points);
    sb_puts(b, "}\n");
}

static bool timed_out(sweep_stream *st)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double el = (double)(t.tv_sec - st->t0.tv_sec) + (double)(t.tv_nsec - st->t0.tv_nsec) / 1e9;
    return el > st->timeout;
}

size_t sweep_stream_read(sweep_stream *st, char *out, size_t max)
{
    while (st->buf_pos >= st->buf.len) {
        sb_reset(&st->buf);
        st->buf_pos = 0;
        if (st->stage == 3)
            return 0;
        if (st->stage == 0) {
            write_header(st);
            st->stage = 1;
        } else if (st->stage == 1) {
            unsigned long long start = st->next;
            while (st->next < st->points && st->buf.len < CHUNK) {
                write_row(st, st->next);
                st->next++;
                if ((st->next & 1023) == 0 && timed_out(st)) {
                    st->timed_out = true;
                    break;
                }
            }
            metrics_sweep_points(st->next - start);
            if (st->next >= st->points || st->timed_out)
                st->stage = 2;
        } else {
            write_trailer(st);
            st->stage = 3;
        }
        if (st->buf.oom)
            return 0;
    }
    size_t n = st->buf.len - st->buf_pos;
    if (n > max)
        n = max;
    memcpy(out, st->buf.data + st->buf_pos, n);
    st->buf_pos += n;
    return n;
}
