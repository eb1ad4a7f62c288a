/* sweep_request.c - reading a sweep request: the envelope's other members
 * (format, outputs, shard, index), the axes (values, range, geomspace, members
 * of record inputs), the point count under the cap and the inputs every point
 * starts from; the pieces a GET sweep's query shares (sweep_query.c). Fills a
 * sweep_stream; computes nothing. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "server/sweep_internal.h"

#include "server/body.h"
#include "server/query.h"

/* --- parsing the request --------------------------------------------------------------- */

static bool is_numeric_kind(input_kind k) { return k == IN_NUMBER || k == IN_INTEGER || k == IN_QUANTITY; }

/* Error fields are JSON paths into the body ("axes[1].range.step"); a GET
 * sweep has no body, so there they name the input as GET /solve does
 * ("inputs.batch_size"). */
static const char *axis_field(const sweep_stream *st, size_t i, const char *suffix, char *buf, size_t n)
{
    if (st->from_query && st->axes[i].d)
        snprintf(buf, n, "inputs.%s", st->axes[i].label);
    else
        snprintf(buf, n, "axes[%zu]%s", i, suffix);
    return buf;
}

/* A range or geomspace bound: a value of the input itself (a number in its
 * unit or a string with units), so the input's own parser checks it. */
static int parse_bound(sweep_stream *st, size_t i, const json_t *r, const char *what, double *out, bool *is_int,
                       api_error *err)
{
    axis *ax = &st->axes[i];
    char field[96], suffix[48];
    snprintf(suffix, sizeof suffix, ".%s.%s", ax->form == AX_RANGE ? "range" : "geomspace", what);
    axis_field(st, i, suffix, field, sizeof field);
    const json_t *j = json_object_get(r, what);
    if (!j)
        return api_fail(err, 400, "invalid-axis", field, "%s of axis '%s' is missing", what, ax->label);
    if (ax->member) {
        if (!json_is_number(j))
            return api_fail(err, 400, "invalid-axis", field, "%s of axis '%s' must be a number", what, ax->label);
        *out = json_number_value(j);
    } else {
        input_value v;
        if (input_parse(ax->d, j, st->ed, &v, &st->owned, field, err) != 0)
            return -1;
        *out = v.num;
    }
    if (is_int)
        *is_int = json_is_integer(j);
    return 0;
}

int sweep_bind_axis(sweep_stream *st, size_t i, const char *name, api_error *err)
{
    char field[96];
    axis *ax = &st->axes[i];
    int in = name ? solver_input_index(st->s, name) : -1;
    const char *dot = name && in < 0 ? strchr(name, '.') : NULL;
    if (dot && dot[1] && (size_t)(dot - name) < sizeof ax->label) {
        /* "fleet.count": a member of a record input */
        char prefix[sizeof ax->label];
        memcpy(prefix, name, (size_t)(dot - name));
        prefix[dot - name] = '\0';
        in = solver_input_index(st->s, prefix);
        if (in >= 0 && st->s->inputs[in].kind != IN_REF) {
            axis_field(st, i, ".input", field, sizeof field);
            return api_fail(err, 400, "invalid-axis", field,
                            "'%.60s': only catalog record inputs (model, hardware, fleet, ...) have members to sweep",
                            name);
        }
        ax->member = in >= 0;
    }
    if (in < 0) {
        axis_field(st, i, ".input", field, sizeof field);
        if (!name)
            return api_fail(err, 400, "invalid-axis", field, "axis 'input' must name an input of solver %s",
                            st->s->name);
        return api_fail(err, 400, "invalid-axis", field,
                        "unknown axis input '%.60s' for solver %s (GET /solvers/%s lists its inputs)", name,
                        st->s->name, st->s->name);
    }
    for (size_t a = 0; a < i; a++)
        if (st->axes[a].input == in) {
            axis_field(st, i, ".input", field, sizeof field);
            return api_fail(err, 400, "invalid-axis", field, "input '%s' is swept by two axes (%zu and %zu)",
                            st->s->inputs[in].name, a, i);
        }
    if (st->s->inputs[in].kind == IN_ROWS) {
        axis_field(st, i, ".input", field, sizeof field);
        return api_fail(err, 400, "invalid-axis", field,
                        "'%s' is a list of rows: give it in inputs; an axis sweeps one value at a time",
                        st->s->inputs[in].name);
    }
    ax->input = in;
    ax->d = &st->s->inputs[in];
    ax->numeric = !ax->member && is_numeric_kind(ax->d->kind);
    snprintf(ax->label, sizeof ax->label, "%s", ax->member ? name : ax->d->name);
    return 0;
}

/* First pass over one axis: its input, its form and how many values it has.
 * Nothing is allocated, so an oversized sweep is refused before it costs memory. */
static int describe_axis(sweep_stream *st, const json_t *spec, size_t i, api_error *err)
{
    char field[96];
    axis *ax = &st->axes[i];
    axis_field(st, i, "", field, sizeof field);
    if (!json_is_object(spec))
        return api_fail(err, 400, "invalid-axis", field,
                        "an axis must be an object like {\"input\": \"batch_size\", \"values\": [32, 64]}");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)spec, key, val) {
        if (strcmp(key, "input") && strcmp(key, "values") && strcmp(key, "range") && strcmp(key, "geomspace")) {
            axis_field(st, i, "", field, sizeof field);
            return api_fail(err, 400, "invalid-axis", field,
                            "unknown axis field '%.60s'; an axis has input and one of values, range, geomspace", key);
        }
    }
    if (sweep_bind_axis(st, i, json_string_value(json_object_get(spec, "input")), err) != 0)
        return -1;
    const json_t *jv = json_object_get(spec, "values"), *jr = json_object_get(spec, "range"),
                 *jg = json_object_get(spec, "geomspace");
    if ((jv != NULL) + (jr != NULL) + (jg != NULL) != 1) {
        axis_field(st, i, "", field, sizeof field);
        return api_fail(err, 400, "invalid-axis", field, "give exactly one of values, range or geomspace for axis '%s'",
                        ax->label);
    }
    if (jv) {
        ax->form = AX_VALUES;
        ax->spec = jv;
        axis_field(st, i, ".values", field, sizeof field);
        if (!json_is_array(jv) || json_array_size(jv) == 0)
            return api_fail(err, 400, "invalid-axis", field, "values of axis '%s' must be a non-empty array",
                            ax->label);
        ax->n = json_array_size(jv);
        ax->first = json_array_get(jv, 0);
        return 0;
    }
    ax->form = jr ? AX_RANGE : AX_GEOMSPACE;
    ax->spec = jr ? jr : jg;
    const char *form = jr ? "range" : "geomspace";
    axis_field(st, i, jr ? ".range" : ".geomspace", field, sizeof field);
    if (!ax->numeric && !ax->member)
        return api_fail(err, 400, "invalid-axis", field, "%s needs a numeric input; '%s' is a %s: list its values",
                        form, ax->label,
                        ax->d->kind == IN_BOOLEAN ? "boolean" : ax->d->kind == IN_ENUM ? "choice" : "catalog entry");
    if (!json_is_object(ax->spec))
        return api_fail(err, 400, "invalid-axis", field, "%s must be an object: %s", form,
                        jr ? "{\"start\": 32, \"stop\": 1024, \"step\": 32}"
                           : "{\"start\": 1, \"stop\": 1024, \"count\": 11}");
    json_object_foreach((json_t *)ax->spec, key, val) {
        if (strcmp(key, "start") && strcmp(key, "stop") && strcmp(key, jr ? "step" : "count"))
            return api_fail(err, 400, "invalid-axis", field, "unknown %s field '%.60s'; %s has start, stop and %s",
                            form, key, form, jr ? "step" : "count");
    }
    bool start_int = false, step_int = false;
    if (parse_bound(st, i, ax->spec, "start", &ax->start, &start_int, err) != 0 ||
        parse_bound(st, i, ax->spec, "stop", &ax->stop, NULL, err) != 0)
        return -1;
    ax->first = json_object_get(ax->spec, "start");
    double n;
    if (jr) {
        if (parse_bound(st, i, ax->spec, "step", &ax->step, &step_int, err) != 0)
            return -1;
        double span = (ax->stop - ax->start) / ax->step;
        axis_field(st, i, ".range.step", field, sizeof field);
        if (!(ax->step != 0) || !(span >= 0))
            return api_fail(err, 400, "invalid-axis", field,
                            "range step of axis '%s' must be non-zero and lead from start to stop", ax->label);
        /* Inclusive stop, tolerant of rounding: 0 to 0.3 by 0.1 has 4 values. */
        n = floor(span * (1 + 1e-12) + 1e-9) + 1;
        ax->int_bounds = start_int && step_int;
    } else {
        const json_t *jc = json_object_get(ax->spec, "count");
        axis_field(st, i, ".geomspace.count", field, sizeof field);
        if (!json_is_integer(jc) || json_integer_value(jc) < 1)
            return api_fail(err, 400, "invalid-axis", field, "geomspace count of axis '%s' must be an integer >= 1",
                            ax->label);
        axis_field(st, i, ".geomspace", field, sizeof field);
        if (!(ax->start > 0) || !(ax->stop > 0))
            return api_fail(err, 400, "invalid-axis", field, "geomspace start and stop of axis '%s' must be positive",
                            ax->label);
        n = (double)json_integer_value(jc);
    }
    /* Clamped here; the product check against the cap refuses anything this large. */
    ax->n = isfinite(n) && n < 1e18 ? (size_t)n : (size_t)1e18;
    if (ax->member && ax->n > MEMBER_AXIS_MAX)
        return api_fail(err, 413, "too-many-points", field,
                        "an axis over a record member ('%s') has at most %d values (each is a record), got %zu",
                        ax->label, MEMBER_AXIS_MAX, ax->n);
    if (ax->form == AX_GEOMSPACE && ax->n >= 2 && ax->n <= GEO_TABLE_MAX) {
        /* each value costs a pow() and is asked for twice a point (the inputs, the
         * row): computed once here, by the same function (NULL when out of memory) */
        double *geo = malloc(ax->n * sizeof *geo);
        for (size_t k = 0; geo && k < ax->n; k++)
            geo[k] = sweep_axis_form_num(ax, k);
        ax->geo = geo;
    }
    return 0;
}

/* A member axis's values as JSON: the listed ones (texts read as
 * member_from_text reads them), or the range's numbers (whole numbers when
 * the bounds are, as a count must be). */
static json_t *member_values(const axis *ax)
{
    if (ax->texts) {
        json_t *arr = json_array();
        for (size_t k = 0; arr && k < ax->n; k++)
            json_array_append_new(arr, member_from_text(ax->texts[k]));
        return arr;
    }
    if (ax->form == AX_VALUES)
        return json_incref((json_t *)ax->spec);
    json_t *arr = json_array();
    for (size_t k = 0; arr && k < ax->n; k++) {
        double x = sweep_axis_form_num(ax, k);
        bool whole = ax->int_bounds || (ax->form == AX_GEOMSPACE && json_is_integer(json_object_get(ax->spec, "start")) &&
                                        json_is_integer(json_object_get(ax->spec, "stop")));
        json_array_append_new(arr, whole ? json_integer((json_int_t)llround(x)) : json_real(x));
    }
    return arr;
}

/* The record input `base` (an id, an object, or absent) with one member set. */
static json_t *with_member(const json_t *base, const char *member, const json_t *value)
{
    json_t *o = json_is_object(base) ? json_copy((json_t *)base)
                : json_is_string(base) ? json_pack("{s:O}", "base", base)
                                       : json_object();
    json_object_set(o, member, (json_t *)value);
    return o;
}

int sweep_fill_axis(sweep_stream *st, size_t i, const json_t *base, api_error *err)
{
    axis *ax = &st->axes[i];
    if (ax->form != AX_VALUES && !ax->member)
        return 0;
    ax->vals = calloc(ax->n, sizeof *ax->vals);
    if (ax->member)
        ax->member_vals = member_values(ax);
    if (!ax->vals || (ax->member && !ax->member_vals))
        return api_fail(err, 503, "overloaded", "axes", "out of memory for an axis of %zu values", ax->n);
    const char *member = ax->label + strlen(ax->d->name) + 1;
    for (size_t k = 0; k < ax->n; k++) {
        /* A value is parsed with its field ("axes[0].values[3]") only when it fails:
         * the second parse gives the same error, named (composing it for every value
         * was most of a small sweep's set-up). */
        char field[96] = "", suffix[32];
        input_value tmp;
        int rc = -1;
        for (int named = 0; rc != 0 && named < 2; named++) {
            if (named) {
                snprintf(suffix, sizeof suffix, ".values[%zu]", k);
                axis_field(st, i, suffix, field, sizeof field);
            }
            if (ax->texts && !ax->member) {
                rc = input_parse_text(ax->d, ax->texts[k], st->ed, &tmp, &st->owned, field, err);
            } else {
                json_t *j = ax->member ? with_member(base, member, json_array_get(ax->member_vals, k))
                                       : json_incref(json_array_get(ax->spec, k));
                rc = input_parse(ax->d, j, st->ed, &tmp, &st->owned, field, err);
                if (ax->member && k == 0 && rc == 0)
                    ax->first_obj = json_incref(j);
                json_decref(j);
            }
        }
        if (rc != 0)
            return -1;
        ax->vals[k] = (axis_value){.num = tmp.num, .was_int = tmp.num_was_int, .unit_scale = tmp.unit_scale,
                                   .is_null = tmp.is_null,
                                   .enum_index = tmp.enum_index, .enum_respelled = tmp.enum_respelled,
                                   .ref_kind = tmp.ref_kind, .ref = tmp.ref,
                                   .items = tmp.items, .n_items = tmp.n_items};
    }
    if (ax->member)
        ax->first = ax->first_obj;
    return 0;
}

/* Where a media type first appears in Accept (case-insensitive, RFC 9110);
 * SIZE_MAX if absent. */
static size_t accept_pos(const char *accept, const char *type)
{
    size_t n = strlen(type);
    for (const char *p = accept; p && *p; p++)
        if (!strncasecmp(p, type, n))
            return (size_t)(p - accept);
    return SIZE_MAX;
}

/* An explicit format wins; otherwise the first of our types that Accept
 * lists (clients list their preference first; q-values are not weighed). */
sweep_format sweep_format_from(const char *f, const char *accept, bool *ok)
{
    *ok = true;
    if (f) {
        if (!strcasecmp(f, "json")) return FMT_JSON;
        if (!strcasecmp(f, "csv")) return FMT_CSV;
        if (!strcasecmp(f, "ndjson")) return FMT_NDJSON;
        *ok = false;
        return FMT_JSON;
    }
    size_t json = accept_pos(accept, "application/json"), csv = accept_pos(accept, "text/csv");
    size_t nd = accept_pos(accept, "application/x-ndjson");
    size_t nd2 = accept_pos(accept, "application/ndjson");
    if (nd2 < nd)
        nd = nd2;
    if (csv < json && csv <= nd)
        return FMT_CSV;
    if (nd < json && nd < csv)
        return FMT_NDJSON;
    return FMT_JSON;
}

/* outputs=best_config: every member of that record output, unless one is
 * already projected. Returns whether `name` is a record. */
static bool add_record_members(sweep_stream *st, const char *name)
{
    size_t len = strlen(name);
    bool found = false;
    for (size_t i = 0; i < st->s->n_outputs; i++) {
        const output_desc *d = &st->s->outputs[i];
        if (output_record_len(d) != len || strncmp(d->name, name, len))
            continue;
        found = true;
        bool listed = false;
        for (int k = 0; k < st->n_out; k++)
            listed |= st->out_cols[k] == (int)i;
        if (!listed)
            st->out_cols[st->n_out++] = (int)i;
    }
    return found;
}

int sweep_parse_outputs(sweep_stream *st, const json_t *outs, api_error *err)
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
        if (sweep_add_output(st, json_string_value(v), i, err) != 0)
            return -1;
    }
    return 0;
}

int sweep_add_output(sweep_stream *st, const char *name, size_t pos, api_error *err)
{
    int o = name ? solver_output_index(st->s, name) : -1;
    char field[48];
    snprintf(field, sizeof field, "outputs[%zu]", pos);
    if (o < 0 && name && add_record_members(st, name))
        return 0;
    if (o < 0 && name && st->s->table && !strcmp(name, st->s->table->name))
        return api_fail(err, 400, "invalid-input", field,
                        "'%s' is a table output (a list of rows per point): POST /solve returns it; a "
                        "sweep reports the flat outputs only",
                        st->s->table->name);
    if (o < 0)
        return api_fail(err, 400, "invalid-input", field, "unknown output '%.60s' of solver %s (GET /solvers/%s lists them)",
                        name ? name : "?", st->s->name, st->s->name);
    for (int k = 0; k < st->n_out; k++)
        if (st->out_cols[k] == o)
            return api_fail(err, 400, "invalid-input", field, "output '%s' is listed twice", st->s->outputs[o].name);
    st->out_cols[st->n_out++] = o;
    return 0;
}

/* The inputs every point starts from. Axis inputs may be required inputs
 * with no default (a batch size or a hardware some solver requires): the
 * axis's first value stands in for them while parsing, and every point
 * overwrites it. Fixed inputs are bound-checked once here, so a bad one is
 * the request's error, not every row's. An input both fixed and swept takes
 * the axis's values. */
static int parse_base(sweep_stream *st, const json_t *inputs, api_error *err)
{
    if (inputs && !json_is_object(inputs))
        return api_fail(err, 400, "invalid-input", "inputs", "inputs must be an object");
    json_t *base = inputs ? json_copy((json_t *)inputs) : json_object();
    for (int a = 0; a < st->n_axes; a++) {
        const char *name = st->axes[a].d->name;
        const json_t *fixed = json_object_get(base, name);
        if (fixed) {
            /* API.md's own example fixes hardware and sweeps it too: the axis wins, but
             * the fixed value must still be valid (nothing a client sends is ignored unread). */
            char field[160];
            snprintf(field, sizeof field, "inputs.%s", name);
            input_value tmp;
            if (!st->axes[a].member && input_parse(st->axes[a].d, fixed, st->ed, &tmp, &st->owned, field, err) != 0) {
                json_decref(base);
                return -1;
            }
        }
        json_object_set(base, name, (json_t *)st->axes[a].first);
    }
    int rc = inputs_parse(st->s, base, st->ed, st->in, err);
    json_decref(base);
    if (rc != 0)
        return -1;
    return sweep_check_fixed(st, err);
}

int sweep_check_fixed(sweep_stream *st, api_error *err)
{
    bool is_axis[SOLVER_MAX_INPUTS] = {false};
    for (int a = 0; a < st->n_axes; a++)
        is_axis[st->axes[a].input] = true;
    for (size_t i = 0; i < st->s->n_inputs; i++) {
        solver_error se = {0};
        if (!is_axis[i] && solver_check_input(st->s, i, &st->in->v[i], &se) != 0)
            return api_solver_fail(err, &se, "inputs");
    }
    int n = 0;
    for (size_t i = 0; i < st->s->n_inputs; i++)
        if (is_axis[i])
            st->checked[n++] = (int)i;
    return 0;
}

/* "3/16": shard 3 of 16. Strict: digits, one slash, digits. */
static bool shard_from_text(const char *t, unsigned long long *index, unsigned long long *count)
{
    char *end;
    if (*t < '0' || *t > '9')
        return false;
    errno = 0;
    *index = strtoull(t, &end, 10);
    if (errno || *end != '/' || end[1] < '0' || end[1] > '9')
        return false;
    *count = strtoull(end + 1, &end, 10);
    return !errno && !*end;
}

#define SHARD_USAGE "shard is {\"index\": 3, \"count\": 16} or \"3/16\": shard 3 of 16, counting from 0"

static int set_shard(sweep_stream *st, unsigned long long index, unsigned long long count, api_error *err);

/* shard: {"index": 3, "count": 16}, or "3/16" (the query's form, which the CLI's --shard passes on). */
int sweep_parse_shard(sweep_stream *st, const json_t *j, api_error *err)
{
    if (!j)
        return 0;
    unsigned long long index, count;
    if (json_is_string(j)) {
        return sweep_shard_text(st, json_string_value(j), err);
    } else if (json_is_object(j)) {
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)j, key, val) {
            if (strcmp(key, "index") && strcmp(key, "count"))
                return api_fail(err, 400, "invalid-input", "shard", "unknown shard field '%.60s'; %s", key, SHARD_USAGE);
        }
        const json_t *ji = json_object_get(j, "index"), *jn = json_object_get(j, "count");
        if (!json_is_integer(jn) || json_integer_value(jn) < 1)
            return api_fail(err, 400, "invalid-input", "shard.count", "shard count must be an integer >= 1; %s", SHARD_USAGE);
        if (!json_is_integer(ji) || json_integer_value(ji) < 0)
            return api_fail(err, 400, "invalid-input", "shard.index", "shard index must be an integer >= 0; %s", SHARD_USAGE);
        index = (unsigned long long)json_integer_value(ji);
        count = (unsigned long long)json_integer_value(jn);
    } else {
        return api_fail(err, 400, "invalid-input", "shard", "%s", SHARD_USAGE);
    }
    return set_shard(st, index, count, err);
}

int sweep_shard_text(sweep_stream *st, const char *text, api_error *err)
{
    unsigned long long index, count;
    if (!shard_from_text(text, &index, &count))
        return api_fail(err, 400, "invalid-input", "shard", "%s; got '%.40s'", SHARD_USAGE, text);
    return set_shard(st, index, count, err);
}

static int set_shard(sweep_stream *st, unsigned long long index, unsigned long long count, api_error *err)
{
    if (count < 1)
        return api_fail(err, 400, "invalid-input", "shard", "shard count must be at least 1; %s", SHARD_USAGE);
    if (index >= count)
        return api_fail(err, 400, "invalid-input", "shard", "shard index %llu is not below the count %llu; %s", index,
                        count, SHARD_USAGE);
    st->shard_index = index;
    st->shard_count = count;
    return 0;
}

/* The shard's run of points: the first `points % count` shards have one point
 * more than the others, so the runs differ by at most one and tile [0, points). */
static void shard_range(sweep_stream *st)
{
    st->first = 0;
    st->end = st->points;
    if (!st->shard_count)
        return;
    unsigned long long q = st->points / st->shard_count, r = st->points % st->shard_count, i = st->shard_index;
    st->first = i * q + (i < r ? i : r);
    st->end = st->first + q + (i < r);
}

int sweep_count_points(sweep_stream *st, unsigned long long cap, api_error *err)
{
    long double total = 1;
    for (int i = 0; i < st->n_axes; i++)
        total *= (long double)st->axes[i].n;
    if (st->shard_count && total > (long double)LLONG_MAX)
        return api_fail(err, 413, "too-many-points", "axes",
                        "the sweep has more than %lld points, more than a point's index can count", LLONG_MAX);
    if (!st->shard_count && total > (long double)cap) {
        char count[48];
        if (total < 1e19L)
            snprintf(count, sizeof count, "%.0Lf", total);
        else
            snprintf(count, sizeof count, "more than 10^19");
        return api_fail(err, 413, "too-many-points", "axes",
                        "the sweep has %s points; the cap is %llu (--sweep-max-points / MLSYSD_SWEEP_MAX_POINTS)",
                        count, cap);
    }
    st->points = (unsigned long long)total;
    shard_range(st);
    if (st->end - st->first > cap)
        return api_fail(err, 413, "too-many-points", "shard",
                        "shard %llu/%llu has %llu of the sweep's %llu points; the cap is %llu per request "
                        "(--sweep-max-points / MLSYSD_SWEEP_MAX_POINTS): use more shards",
                        st->shard_index, st->shard_count, st->end - st->first, st->points, cap);
    st->next = st->first;
    st->stride[st->n_axes - 1] = 1;
    for (int i = st->n_axes - 2; i >= 0; i--)
        st->stride[i] = st->stride[i + 1] * st->axes[i + 1].n;
    return 0;
}

/* The body's axes and inputs: the points, under the cap, and the inputs every
 * point starts from. Needs st->s and st->ed. */
int sweep_parse_space(sweep_stream *st, const json_t *body, unsigned long long cap, api_error *err)
{
    const json_t *axes = json_object_get(body, "axes");
    if (!json_is_array(axes) || json_array_size(axes) == 0)
        return api_fail(err, 400, "invalid-axis", "axes",
                        "axes must be a non-empty array, e.g. [{\"input\": \"batch_size\", \"values\": [32, 64, 128]}]");
    if (json_array_size(axes) > MAX_AXES)
        return api_fail(err, 400, "invalid-axis", "axes", "a sweep has at most %d axes, got %zu", MAX_AXES,
                        json_array_size(axes));
    st->n_axes = (int)json_array_size(axes);
    for (int i = 0; i < st->n_axes; i++)
        if (describe_axis(st, json_array_get(axes, (size_t)i), (size_t)i, err) != 0)
            return -1;
    if (sweep_count_points(st, cap, err) != 0)
        return -1;
    const json_t *inputs = json_object_get(body, "inputs");
    for (int i = 0; i < st->n_axes; i++)
        if (sweep_fill_axis(st, (size_t)i, st->axes[i].member ? json_object_get(inputs, st->axes[i].d->name) : NULL,
                            err) != 0)
            return -1;
    if (sweep_alloc_point(st, err) != 0)
        return -1;
    return parse_base(st, inputs, err);
}

solver_outputs *sweep_new_outputs(void)
{
    solver_outputs *out = malloc(sizeof *out); /* 24 KB, most of it messages and table rows written before read */
    if (!out)
        return NULL;
    solver_outputs_reset(out);
    out->quiet = true; /* rows carry no warnings or trace: run() need not compose them */
    return out;
}

int sweep_alloc_point(sweep_stream *st, api_error *err)
{
    st->in = calloc(1, sizeof *st->in);
    st->out = sweep_new_outputs();
    if (!st->in || !st->out)
        return api_fail(err, 503, "overloaded", "", "out of memory");
    return 0;
}
