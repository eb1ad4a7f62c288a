/* sweep.c - /sweep: one solver over the cartesian product of axes, streamed
 * as JSON, CSV or NDJSON from a callback, with the crossovers ("transitions")
 * of every categorical output. Generic: knows no solver by name.
 *
 * Memory does not grow with the number of points: range and geomspace values
 * are computed when a row needs them, listed values are bounded by the request
 * body, and rows are produced one chunk at a time. The one exception is JSON
 * transitions, which compare each point with its neighbour one step back on
 * every axis: that needs a window of one byte per categorical output per point
 * reaching back one step of the outermost varying axis. It is capped; past the
 * cap the response says transitions were omitted.
 *
 * Shards: `shard: {index, count}` (GET: shard=3/16) computes one of `count`
 * contiguous runs of the points, so that the shards' CSV or NDJSON bodies,
 * concatenated in index order, are byte for byte the unsharded body: shard 0
 * alone carries the CSV header or the NDJSON units line, and no shard repeats
 * anything else. A JSON
 * shard is a whole document of its own rows (see write_header). The point cap
 * applies to one shard's points, the work of one request. `index: true` puts
 * each point's global number first in its row. */
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

#include "server/sweep.h"

#include "server/body.h"
#include "server/metrics.h"
#include "server/query.h"
#include "server/reply.h"

#define MAX_AXES 8
#define CODE_NULL 253            /* a categorical output that is null by design: a value like any other */
#define CODE_ERROR 254           /* the point failed: it has no value, so no transition to or from it */
#define CODE_UNKNOWN 255         /* more distinct values than we intern: not compared */
#define MAX_INTERNED 253
#define TRANSITIONS_MAX 10000
#define WINDOW_MAX_BYTES (32u << 20)
#define CHUNK 32768

typedef enum { FMT_JSON, FMT_CSV, FMT_NDJSON } sweep_format;
typedef enum { AX_VALUES, AX_RANGE, AX_GEOMSPACE } axis_form;

#define MEMBER_AXIS_MAX 10000   /* values of an axis over a record's member: each is a record */

/* What a point sets into its input. */
typedef struct {
    double num;           /* numbers (SI), integers, booleans 0/1 */
    bool was_int;         /* IN_NUMBER written as an integer literal: messages print "2", not "2.0" */
    double unit_scale;    /* IN_QUANTITY: as input_value.unit_scale */
    bool is_null;         /* a nullable input swept through null */
    int enum_index;
    bool enum_respelled;  /* as input_value.enum_respelled */
    unsigned char ref_kind;
    const void *ref;      /* catalog record, or one in the sweep's store */
    const input_item *items;
    int n_items;
} axis_value;

typedef struct {
    int input;
    const input_desc *d;
    axis_form form;
    size_t n;
    bool numeric;
    const json_t *spec;       /* the values array or range/geomspace object (lives while sweep_start runs) */
    const json_t *first;      /* a valid JSON value of the input, to parse the base inputs with */
    double start, stop, step; /* range / geomspace, SI */
    bool int_bounds;          /* range given as integer literals: its values print as integers in messages */
    axis_value *vals;         /* AX_VALUES, and every member axis */
    /* An axis over one member of a record input ("fleet.count"): each value is
     * the input's record with that member set. */
    bool member;
    char label[96];           /* the axis's name in columns: "fleet.count" */
    json_t *member_vals;      /* the member's values as given (or computed from a range) */
    json_t *first_obj;        /* the record of value 0, for parsing the base inputs */
} axis;

typedef struct {
    unsigned long long from_point;  /* the point before the change; the other is from_point + stride[axis] */
    uint8_t axis, col, from, to;
} transition;

struct sweep_stream {
    const solver_desc *s;
    const catalog_edition *ed;
    sweep_format fmt;
    bool from_query;                    /* GET /sweep/{solver}: error fields name inputs, not body paths */
    axis axes[MAX_AXES];
    int n_axes;
    int checked[MAX_AXES];              /* axis inputs in input order: the order /solve checks bounds in */
    unsigned long long points, next;
    unsigned long long first, end;      /* this shard's points: [first, end) of [0, points) */
    unsigned long long shard_index, shard_count; /* shard_count 0: not sharded */
    bool with_index;                    /* rows start with the point's global index */
    unsigned long long stride[MAX_AXES];
    int out_cols[SOLVER_MAX_OUTPUTS];   /* projected outputs */
    bool qualified[SOLVER_MAX_OUTPUTS]; /* output shares its name with an axis input: column "result.<name>" */
    int n_out;
    solver_inputs *in;
    solver_outputs *out;
    solver_error se;                    /* the last point's error (eval_point) */
    input_store *owned;                 /* records of axis values */
    strbuf buf;
    size_t buf_pos;
    int stage;                          /* 0 header, 1 rows, 2 trailer, 3 done */
    /* transitions (JSON only) */
    int cat_cols[SOLVER_MAX_OUTPUTS];   /* indices into out_cols that are categorical */
    int n_cat;
    uint8_t *window;                    /* codes of the last `window_len` points, ring-indexed by point */
    unsigned long long window_len;
    bool transitions_omitted;
    transition *trans;
    size_t n_trans;
    bool trans_truncated;
    /* each categorical column's distinct values: strings (and booleans as
     * "true"/"false") by pointer, integers by value */
    union { const char *s; double num; } interned[SOLVER_MAX_OUTPUTS][MAX_INTERNED];
    int n_interned[SOLVER_MAX_OUTPUTS];
    calibration_mode calibration;       /* set into every point's inputs */
    struct timespec t0;
    double timeout;
    bool timed_out;
    unsigned solver_index;
};

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
    const json_t *jin = json_object_get(spec, "input");
    const char *name = json_string_value(jin);
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
    ax->input = in;
    ax->d = &st->s->inputs[in];
    ax->numeric = !ax->member && is_numeric_kind(ax->d->kind);
    snprintf(ax->label, sizeof ax->label, "%s", ax->member ? name : ax->d->name);
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
    return 0;
}

/* Value k of a range or geomspace, in SI. */
static double axis_form_num(const axis *ax, size_t k)
{
    if (ax->form == AX_RANGE) {
        double x = ax->start + ax->step * (double)k;
        /* the tolerance in the count may put the last value a hair past stop */
        if (ax->step > 0 ? x > ax->stop : x < ax->stop)
            x = ax->stop;
        return x;
    }
    if (k == 0)
        return ax->start;
    if (k + 1 == ax->n)
        return ax->stop;
    return ax->start * pow(ax->stop / ax->start, (double)k / (double)(ax->n - 1));
}

/* A member axis's values as JSON: the listed ones, or the range's numbers
 * (whole numbers when the bounds are, as a count must be). */
static json_t *member_values(const axis *ax)
{
    if (ax->form == AX_VALUES)
        return json_incref((json_t *)ax->spec);
    json_t *arr = json_array();
    for (size_t k = 0; arr && k < ax->n; k++) {
        double x = axis_form_num(ax, k);
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

/* Second pass, once the sweep is known to fit the cap: parse listed values
 * and the records of member axes. */
static int fill_axis(sweep_stream *st, size_t i, const json_t *inputs, api_error *err)
{
    axis *ax = &st->axes[i];
    if (ax->form != AX_VALUES && !ax->member)
        return 0;
    ax->vals = calloc(ax->n, sizeof *ax->vals);
    if (ax->member)
        ax->member_vals = member_values(ax);
    if (!ax->vals || (ax->member && !ax->member_vals))
        return api_fail(err, 503, "overloaded", "axes", "out of memory for an axis of %zu values", ax->n);
    const json_t *base = ax->member ? json_object_get(inputs, ax->d->name) : NULL;
    const char *member = ax->label + strlen(ax->d->name) + 1;
    for (size_t k = 0; k < ax->n; k++) {
        char field[96], suffix[32];
        snprintf(suffix, sizeof suffix, ".values[%zu]", k);
        axis_field(st, i, suffix, field, sizeof field);
        json_t *j = ax->member ? with_member(base, member, json_array_get(ax->member_vals, k))
                               : json_incref(json_array_get(ax->spec, k));
        input_value tmp;
        int rc = input_parse(ax->d, j, st->ed, &tmp, &st->owned, field, err);
        if (ax->member && k == 0 && rc == 0)
            ax->first_obj = json_incref(j);
        json_decref(j);
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

/* Value k of a numeric axis, in SI. Ranges and geomspaces are computed, not stored. */
static double axis_num(const axis *ax, size_t k)
{
    if (ax->form == AX_VALUES)
        return ax->vals[k].num;
    double x = axis_form_num(ax, k);
    return ax->form == AX_GEOMSPACE && ax->d->kind == IN_INTEGER ? round(x) : x;
}

static bool axis_was_int(const axis *ax, size_t k)
{
    if (ax->d->kind == IN_INTEGER)
        return true;
    if (ax->form == AX_VALUES)
        return ax->vals[k].was_int;
    return ax->form == AX_RANGE && ax->int_bounds;
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
        char field[48];
        snprintf(field, sizeof field, "outputs[%zu]", i);
        if (o < 0 && json_is_string(v) && add_record_members(st, json_string_value(v)))
            continue;
        if (o < 0 && json_is_string(v) && st->s->table && !strcmp(json_string_value(v), st->s->table->name))
            return api_fail(err, 400, "invalid-input", field,
                            "'%s' is a table output (a list of rows per point): POST /solve returns it; a "
                            "sweep reports the flat outputs only",
                            st->s->table->name);
        if (o < 0)
            return api_fail(err, 400, "invalid-input", field,
                            "unknown output '%.60s' of solver %s (GET /solvers/%s lists them)",
                            json_is_string(v) ? json_string_value(v) : "?", st->s->name, st->s->name);
        for (int k = 0; k < st->n_out; k++)
            if (st->out_cols[k] == o)
                return api_fail(err, 400, "invalid-input", field, "output '%s' is listed twice",
                                st->s->outputs[o].name);
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
        json_decref(st->axes[a].member_vals);
        json_decref(st->axes[a].first_obj);
    }
    input_store_free(&st->owned);
    if (st->in)
        inputs_release(st->in);
    free(st->in);
    free(st->out);
    free(st->window);
    free(st->trans);
    sb_free(&st->buf);
    free(st);
}

/* d: the input whose values these are; NULL with member: a record member's
 * values (member_from_text); NULL without: plain strings (output names). */
static json_t *split_commas(const char *v, const input_desc *d, bool member)
{
    json_t *arr = json_array();
    for (const char *p = v;;) {
        size_t len = strcspn(p, ",");
        char *tok = strndup(p, len);
        /* an empty item stays a string, so the input's parser names it as a bad value */
        json_array_append_new(arr, !tok     ? json_null()
                                   : d      ? input_from_text(d, tok)
                                   : member ? member_from_text(tok)
                                            : json_string(tok));
        free(tok);
        if (!p[len])
            break;
        p += len + 1;
    }
    return arr;
}

/* A list input's commas separate its items (regions=US_Avg,Quebec), not an
 * axis's values: a list is swept only by POST /sweep, with arrays as values. */
static bool is_list_input(const solver_desc *s, const char *name)
{
    int idx = solver_input_index(s, name);
    return idx >= 0 && s->inputs[idx].kind == IN_LIST;
}

/* "fleet.count" where fleet is a record input: a member axis. */
static bool is_member_name(const solver_desc *s, const char *name)
{
    const char *dot = strchr(name, '.');
    char prefix[96];
    if (!dot || (size_t)(dot - name) >= sizeof prefix)
        return false;
    memcpy(prefix, name, (size_t)(dot - name));
    prefix[dot - name] = '\0';
    int idx = solver_input_index(s, prefix);
    return idx >= 0 && s->inputs[idx].kind == IN_REF;
}

/* GET /sweep/{solver}?a=1,2&b=x: a comma-separated value makes that input an
 * axis; everything else goes through the same query mapping as GET /solve. */
static int query_spec(const solver_desc *s, const app_request *req, json_t *body, api_error *err)
{
    static const char *const reserved[] = {"catalog", "calibration", "format", "outputs", "shard", "index", NULL};
    app_request scalar = *req;
    scalar.n_query = 0;
    json_t *axes = json_array();
    json_object_set_new(body, "axes", axes);
    for (size_t i = 0; i < req->n_query; i++) {
        const char *k = req->query[i].key, *v = req->query[i].value ? req->query[i].value : "";
        if (!strcmp(k, "outputs")) {
            json_object_set_new(body, "outputs", split_commas(v, NULL, false));
        } else if (!strcmp(k, "catalog") || !strcmp(k, "calibration")) {
            continue; /* the envelope's, read by front_read_query */
        } else if (!strcmp(k, "format") || !strcmp(k, "shard")) {
            json_object_set_new(body, k, json_string(v));
        } else if (!strcmp(k, "index")) {
            /* a bare ?index means true; anything but true/false/1/0 stays text for the body's check */
            bool t = !*v || !strcmp(v, "true") || !strcmp(v, "1"), f = !strcmp(v, "false") || !strcmp(v, "0");
            json_object_set_new(body, k, t || f ? json_boolean(t) : json_string(v));
        } else if (strchr(v, ',') && is_member_name(s, k)) {
            json_array_append_new(axes, json_pack("{s:s,s:o}", "input", k, "values", split_commas(v, NULL, true)));
        } else if (strchr(v, ',') && !strchr(k, '.') && !is_list_input(s, k)) {
            int idx = solver_input_index(s, k);
            if (idx < 0) {
                char field[160]; /* named as GET /solve names it */
                snprintf(field, sizeof field, "inputs.%.140s", k);
                return api_fail(err, 400, "unknown-input", field,
                                "unknown input '%.80s' for solver %s (GET /solvers/%s lists its inputs)", k, s->name,
                                s->name);
            }
            json_array_append_new(axes, json_pack("{s:s,s:o}", "input", k, "values", split_commas(v, &s->inputs[idx], false)));
        } else {
            scalar.query[scalar.n_query++] = req->query[i];
        }
    }
    if (json_array_size(axes) == 0)
        return api_fail(err, 400, "invalid-axis", "",
                        "a GET sweep needs at least one input with comma-separated values, e.g. ?batch_size=32,64,128");
    json_t *inputs;
    if (query_to_inputs(s, &scalar, reserved, &inputs, err) != 0)
        return -1;
    json_object_set_new(body, "inputs", inputs);
    return 0;
}

/* The inputs every point starts from. Axis inputs may be required inputs
 * with no default (transformation's batch_size, any solver's hardware): the
 * axis's first value stands in for them while parsing, and every point
 * overwrites it. Fixed inputs are bound-checked once here, so a bad one is
 * the request's error, not every row's. An input both fixed and swept takes
 * the axis's values. */
static int parse_base(sweep_stream *st, const json_t *inputs, api_error *err)
{
    if (inputs && !json_is_object(inputs))
        return api_fail(err, 400, "invalid-input", "inputs", "inputs must be an object");
    json_t *base = inputs ? json_copy((json_t *)inputs) : json_object();
    bool is_axis[SOLVER_MAX_INPUTS] = {false};
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
        is_axis[st->axes[a].input] = true;
    }
    int rc = inputs_parse(st->s, base, st->ed, st->in, err);
    json_decref(base);
    if (rc != 0)
        return -1;
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

/* shard: {"index": 3, "count": 16}, or "3/16" (the query's form, which the CLI's --shard passes on). */
static int parse_shard(sweep_stream *st, const json_t *j, api_error *err)
{
    static const char *const usage = "shard is {\"index\": 3, \"count\": 16} or \"3/16\": shard 3 of 16, counting from 0";
    if (!j)
        return 0;
    unsigned long long index, count;
    if (json_is_string(j)) {
        if (!shard_from_text(json_string_value(j), &index, &count))
            return api_fail(err, 400, "invalid-input", "shard", "%s; got '%.40s'", usage, json_string_value(j));
    } else if (json_is_object(j)) {
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)j, key, val) {
            if (strcmp(key, "index") && strcmp(key, "count"))
                return api_fail(err, 400, "invalid-input", "shard", "unknown shard field '%.60s'; %s", key, usage);
        }
        const json_t *ji = json_object_get(j, "index"), *jn = json_object_get(j, "count");
        if (!json_is_integer(jn) || json_integer_value(jn) < 1)
            return api_fail(err, 400, "invalid-input", "shard.count", "shard count must be an integer >= 1; %s", usage);
        if (!json_is_integer(ji) || json_integer_value(ji) < 0)
            return api_fail(err, 400, "invalid-input", "shard.index", "shard index must be an integer >= 0; %s", usage);
        index = (unsigned long long)json_integer_value(ji);
        count = (unsigned long long)json_integer_value(jn);
    } else {
        return api_fail(err, 400, "invalid-input", "shard", "%s", usage);
    }
    if (count < 1)
        return api_fail(err, 400, "invalid-input", "shard", "shard count must be at least 1; %s", usage);
    if (index >= count)
        return api_fail(err, 400, "invalid-input", "shard", "shard index %llu is not below the count %llu; %s", index,
                        count, usage);
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

static int count_points(sweep_stream *st, unsigned long long cap, api_error *err)
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

/* JSON transitions: the window must reach back one step on every axis that varies. */
static void setup_transitions(sweep_stream *st)
{
    for (int k = 0; k < st->n_out; k++)
        if (st->s->outputs[st->out_cols[k]].categorical)
            st->cat_cols[st->n_cat++] = k;
    if (!st->n_cat)
        return;
    unsigned long long reach = 1;
    for (int a = 0; a < st->n_axes; a++)
        if (st->axes[a].n > 1 && st->stride[a] > reach)
            reach = st->stride[a];
    st->trans = malloc(TRANSITIONS_MAX * sizeof *st->trans);
    if (st->trans && reach * (unsigned long long)st->n_cat <= WINDOW_MAX_BYTES)
        st->window = malloc((size_t)reach * (size_t)st->n_cat);
    st->window_len = reach;
    st->transitions_omitted = !st->window;
}

/* The body's axes and inputs: the points, under the cap, and the inputs every
 * point starts from. Needs st->s and st->ed. */
static int parse_space(sweep_stream *st, const json_t *body, unsigned long long cap, api_error *err)
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
    if (count_points(st, cap, err) != 0)
        return -1;
    for (int i = 0; i < st->n_axes; i++)
        if (fill_axis(st, (size_t)i, json_object_get(body, "inputs"), err) != 0)
            return -1;
    st->in = calloc(1, sizeof *st->in);
    st->out = calloc(1, sizeof *st->out);
    if (!st->in || !st->out)
        return api_fail(err, 503, "overloaded", "", "out of memory");
    st->out->quiet = true; /* rows carry no warnings or trace: run() need not compose them */
    return parse_base(st, json_object_get(body, "inputs"), err);
}

static size_t stream_read(void *ctx, char *buf, size_t max) { return sweep_stream_read(ctx, buf, max); }
static void stream_free(void *ctx) { sweep_stream_free(ctx); }

void handle_sweep(app *a, const app_request *req, app_response *resp, const char *solver_name)
{
    sweep_start(a, req, solver_name, resp);
}

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
    solver_request r;
    if (solver_name) {
        st->from_query = true;
        body = json_object();
        if (front_read_query(a, solver_name, req, &r, &err) != 0)
            goto fail;
    } else {
        body = app_parse_body(req, &err);
        if (!body)
            goto fail;
        const char *key;
        json_t *val;
        json_object_foreach(body, key, val) {
            if (strcmp(key, "solver") && strcmp(key, "inputs") && strcmp(key, "axes") && strcmp(key, "outputs") &&
                strcmp(key, "format") && strcmp(key, "catalog") && strcmp(key, "calibration") &&
                strcmp(key, "shard") && strcmp(key, "index")) {
                api_fail(&err, 400, "unknown-field", key,
                         "unknown field '%.80s'; a /sweep body has solver, inputs, axes, outputs, format, catalog, "
                         "calibration, shard and index",
                         key);
                goto fail;
            }
        }
        if (front_read_body(a, body, &r, &err) != 0)
            goto fail;
    }
    st->s = r.s;
    st->solver_index = (unsigned)r.index;
    st->ed = r.ed;
    st->calibration = r.calibration;
    const solver_desc *s = st->s;
    if (st->from_query && query_spec(s, req, body, &err) != 0)
        goto fail;
    const json_t *jf = json_object_get(body, "format");
    if (jf && !json_is_string(jf)) {
        api_fail(&err, 400, "invalid-input", "format", "format must be json, csv or ndjson");
        goto fail;
    }
    bool ok;
    st->fmt = format_from(json_string_value(jf), req->accept, &ok);
    if (!ok) {
        api_fail(&err, 400, "invalid-input", "format", "format must be json, csv or ndjson, got '%.40s'",
                 json_string_value(jf));
        goto fail;
    }
    if (parse_outputs(st, json_object_get(body, "outputs"), &err) != 0)
        goto fail;
    const json_t *jx = json_object_get(body, "index");
    if (jx && !json_is_boolean(jx)) {
        api_fail(&err, 400, "invalid-input", "index", "index must be true or false (true: rows start with the point's index)");
        goto fail;
    }
    st->with_index = json_is_true(jx);
    if (parse_shard(st, json_object_get(body, "shard"), &err) != 0)
        goto fail;
    if (parse_space(st, body, (unsigned long long)a->cfg->sweep_max_points, &err) != 0)
        goto fail;
    st->in->calibration = st->calibration;
    json_decref(body);
    body = NULL;
    for (int k = 0; k < st->n_out; k++)
        for (int i = 0; i < st->n_axes; i++)
            if (!strcmp(s->outputs[st->out_cols[k]].name, st->axes[i].label))
                st->qualified[k] = true;
    if (st->fmt == FMT_JSON)
        setup_transitions(st);
    clock_gettime(CLOCK_MONOTONIC, &st->t0);
    st->timeout = a->cfg->request_timeout;
    reply_stream(resp,
                 st->fmt == FMT_CSV      ? (st->shard_index ? "text/csv; charset=utf-8; header=absent"
                                                            : "text/csv; charset=utf-8; header=present")
                 : st->fmt == FMT_NDJSON ? "application/x-ndjson"
                                         : "application/json",
                 stream_read, stream_free, st);
    if (st->fmt == FMT_CSV && st->shard_count)
        snprintf(resp->disposition, sizeof resp->disposition, "attachment; filename=\"sweep-%s.part-%llu-of-%llu.csv\"",
                 s->name, st->shard_index, st->shard_count);
    else if (st->fmt == FMT_CSV)
        snprintf(resp->disposition, sizeof resp->disposition, "attachment; filename=\"sweep-%s.csv\"", s->name);
    return 0;
fail:
    json_decref(body);
    sweep_stream_free(st);
    app_problem(resp, req, &err);
    return -1;
}

/* --- producing the body ------------------------------------------------------------------- */

static void apply_point(sweep_stream *st, unsigned long long p, size_t idx[MAX_AXES])
{
    for (int a = 0; a < st->n_axes; a++) {
        const axis *ax = &st->axes[a];
        size_t k = (size_t)((p / st->stride[a]) % ax->n);
        idx[a] = k;
        input_value *v = &st->in->v[ax->input];
        v->present = true;
        v->defaulted = false;
        if (ax->numeric) {
            v->num = axis_num(ax, k);
            v->num_was_int = axis_was_int(ax, k);
            v->unit_scale = ax->form == AX_VALUES ? ax->vals[k].unit_scale : 0; /* ranges are in SI */
        } else {
            const axis_value *src = &ax->vals[k];
            v->num = src->num;
            v->num_was_int = src->was_int;
            v->unit_scale = src->unit_scale;
            v->is_null = src->is_null;
            v->enum_index = src->enum_index;
            v->enum_respelled = src->enum_respelled;
            v->ref_kind = src->ref_kind;
            v->ref = src->ref;
            v->items = src->items;
            v->n_items = src->n_items;
        }
    }
}


/* An axis value as rows show it: numbers in the input's declared unit, catalog keys, enum names. */
static void put_axis_value(const sweep_stream *st, strbuf *b, int a, size_t k, bool csv)
{
    const axis *ax = &st->axes[a];
    const input_desc *d = ax->d;
    if (ax->numeric) {
        double x = axis_num(ax, k);
        if (d->kind == IN_QUANTITY)
            units_to(x, d->unit, *d->dim, &x);
        sb_number(b, x);
        return;
    }
    const axis_value *v = &ax->vals[k];
    const char *s = "";
    if (ax->member) {
        const json_t *j = json_array_get(ax->member_vals, k);
        if (json_is_number(j)) {
            sb_number(b, json_number_value(j));
            return;
        }
        if (!json_is_string(j)) {
            char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
            if (csv)
                sb_csv_field(b, text ? text : "");
            else
                sb_puts(b, text ? text : "null");
            free(text);
            return;
        }
        s = json_string_value(j);
    } else if (v->is_null) {
        if (!csv)
            sb_puts(b, "null");
        return;
    } else {
        switch (d->kind) {
        case IN_BOOLEAN: sb_puts(b, v->num != 0 ? "true" : "false"); return;
        case IN_ENUM: s = d->enum_values[v->enum_index]; break;
        case IN_REF: {
            const input_value iv = {.ref = v->ref};
            s = input_ref_key(&iv);
            break;
        }
        case IN_LIST:
            if (csv) {
                /* one field: the ids joined with commas, quoted by sb_csv_field */
                strbuf t;
                sb_init(&t);
                for (int i = 0; i < v->n_items; i++)
                    sb_printf(&t, "%s%s", i ? "," : "", v->items[i].name);
                sb_csv_field(b, t.data ? t.data : "");
                sb_free(&t);
            } else {
                sb_putc(b, '[');
                for (int i = 0; i < v->n_items; i++) {
                    if (i)
                        sb_putc(b, ',');
                    sb_json_string(b, v->items[i].name);
                }
                sb_putc(b, ']');
            }
            return;
        default: break;
        }
    }
    if (csv)
        sb_csv_field(b, s);
    else
        sb_json_string(b, s);
}

static void put_output(sweep_stream *st, int k, bool csv)
{
    int col = st->out_cols[k];
    row_output_value(&st->buf, &st->s->outputs[col], &st->out->v[col], csv);
}

static void put_output_name(sweep_stream *st, int k)
{
    if (st->qualified[k])
        sb_puts(&st->buf, "result.");
    sb_puts(&st->buf, st->s->outputs[st->out_cols[k]].name);
}

static void json_output_name(sweep_stream *st, int k)
{
    sb_putc(&st->buf, '"');
    put_output_name(st, k);
    sb_putc(&st->buf, '"');
}

/* CSV header names carry the unit: latency_ms, storage_supply_bw_GB_per_s. */
static void csv_unit(strbuf *b, const char *unit)
{
    if (!unit || !*unit)
        return;
    sb_putc(b, '_');
    for (const char *c = unit; *c; c++) {
        if (*c == '/')
            sb_puts(b, "_per_");
        else if (*c != ' ')
            sb_putc(b, *c);
    }
}

static const char *axis_unit(const sweep_stream *st, int a)
{
    const input_desc *d = st->axes[a].d;
    return d->kind == IN_QUANTITY ? d->unit : "";
}

/* "units":{column: unit, ...} for the columns that have a unit: JSON's
 * member, and NDJSON's first line. */
static void write_units(sweep_stream *st)
{
    strbuf *b = &st->buf;
    const solver_desc *s = st->s;
    sb_puts(b, "\"units\":{");
    bool first = true;
    for (int a = 0; a < st->n_axes; a++) {
        const char *u = axis_unit(st, a);
        if (!*u)
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        sb_json_string(b, st->axes[a].label);
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
        json_output_name(st, k);
        sb_putc(b, ':');
        sb_json_string(b, d->unit);
    }
    sb_putc(b, '}');
}

static void write_header(sweep_stream *st)
{
    strbuf *b = &st->buf;
    const solver_desc *s = st->s;
    /* Shard 0 alone starts a CSV or NDJSON body, so that the shards concatenate. */
    if (st->fmt != FMT_JSON && st->shard_index > 0)
        return;
    if (st->fmt == FMT_CSV) {
        if (st->with_index)
            sb_puts(b, "index,");
        for (int a = 0; a < st->n_axes; a++) {
            sb_puts(b, st->axes[a].label);
            csv_unit(b, axis_unit(st, a));
            sb_putc(b, ',');
        }
        for (int k = 0; k < st->n_out; k++) {
            put_output_name(st, k);
            csv_unit(b, s->outputs[st->out_cols[k]].unit);
            sb_putc(b, ',');
        }
        sb_puts(b, "error\r\n");
        return;
    }
    if (st->fmt == FMT_NDJSON) { /* a first line with the units, then one line per point */
        sb_putc(b, '{');
        write_units(st);
        sb_puts(b, "}\n");
        return;
    }
    sb_puts(b, "{\"solver\":");
    sb_json_string(b, s->name);
    sb_puts(b, ",\"catalog\":");
    sb_json_string(b, edition_name(st->ed));
    sb_puts(b, ",\"calibration\":");
    sb_json_string(b, CALIBRATION_MODES[st->calibration]);
    sb_puts(b, ",\"catalog_version\":");
    sb_json_string(b, edition_version(st->ed));
    sb_printf(b, ",\"points\":%llu,", st->points);
    /* A JSON shard is a document of its own rows: their concatenation in
     * shard order is the unsharded rows; transitions are those between two
     * points of the shard. */
    if (st->shard_count)
        sb_printf(b, "\"shard\":{\"index\":%llu,\"count\":%llu,\"first_point\":%llu,\"points\":%llu},", st->shard_index,
                  st->shard_count, st->first, st->end - st->first);
    sb_puts(b, "\"axes\":[");
    for (int a = 0; a < st->n_axes; a++) {
        sb_puts(b, a ? ",{\"input\":" : "{\"input\":");
        sb_json_string(b, st->axes[a].label);
        sb_printf(b, ",\"count\":%zu}", st->axes[a].n);
    }
    sb_puts(b, "],\"columns\":[");
    if (st->with_index)
        sb_puts(b, "\"index\",");
    for (int a = 0; a < st->n_axes; a++) {
        if (a)
            sb_putc(b, ',');
        sb_json_string(b, st->axes[a].label);
    }
    for (int k = 0; k < st->n_out; k++) {
        sb_putc(b, ',');
        json_output_name(st, k);
    }
    sb_puts(b, ",\"error\"],");
    write_units(st);
    sb_puts(b, ",\"rows\":[");
}


static uint8_t intern(sweep_stream *st, int c, const output_value *v, output_kind kind)
{
    if (v->is_null || (kind == OUT_INTEGER && !isfinite(v->num)))
        return CODE_NULL;
    if (kind == OUT_INTEGER) {
        for (int i = 0; i < st->n_interned[c]; i++)
            if (st->interned[c][i].num == v->num)
                return (uint8_t)i;
        if (st->n_interned[c] >= MAX_INTERNED)
            return CODE_UNKNOWN;
        st->interned[c][st->n_interned[c]].num = v->num;
        return (uint8_t)st->n_interned[c]++;
    }
    const char *s = kind == OUT_BOOLEAN ? (v->num != 0 ? "true" : "false") : v->str;
    if (!s)
        return CODE_NULL;
    for (int i = 0; i < st->n_interned[c]; i++)
        if (st->interned[c][i].s == s || !strcmp(st->interned[c][i].s, s))
            return (uint8_t)i;
    if (st->n_interned[c] >= MAX_INTERNED)
        return CODE_UNKNOWN;
    st->interned[c][st->n_interned[c]].s = s;
    return (uint8_t)st->n_interned[c]++;
}

/* Compare point q with its neighbour one step back on each axis, then keep
 * q's codes in the window for the points that will look back at it. */
static void track_transitions(sweep_stream *st, unsigned long long q, const size_t idx[MAX_AXES], bool failed)
{
    uint8_t codes[SOLVER_MAX_OUTPUTS];
    for (int c = 0; c < st->n_cat; c++) {
        int col = st->out_cols[st->cat_cols[c]];
        codes[c] = failed ? CODE_ERROR : intern(st, c, &st->out->v[col], st->s->outputs[col].kind);
    }
    for (int a = 0; a < st->n_axes; a++) {
        if (idx[a] == 0)
            continue;
        unsigned long long p = q - st->stride[a];
        if (p < st->first)
            continue; /* in an earlier shard */
        const uint8_t *prev = st->window + (size_t)(p % st->window_len) * (size_t)st->n_cat;
        for (int c = 0; c < st->n_cat; c++) {
            uint8_t x = prev[c], y = codes[c];
            if (x == y || x >= CODE_ERROR || y >= CODE_ERROR)
                continue;
            if (st->n_trans == TRANSITIONS_MAX) {
                st->trans_truncated = true;
                continue;
            }
            st->trans[st->n_trans++] =
                (transition){.from_point = p, .axis = (uint8_t)a, .col = (uint8_t)c, .from = x, .to = y};
        }
    }
    memcpy(st->window + (size_t)(q % st->window_len) * (size_t)st->n_cat, codes, (size_t)st->n_cat);
}

/* Solve point p into st->out: NULL, or the point's error (in st->se). */
static const char *eval_point(sweep_stream *st, unsigned long long p, size_t idx[MAX_AXES])
{
    apply_point(st, p, idx);
    /* /solve starts from fresh outputs; so does every point */
    solver_outputs_reset(st->out);
    memset(&st->se, 0, sizeof st->se);
    for (int i = 0; i < st->n_axes; i++)
        if (solver_check_input(st->s, (size_t)st->checked[i], &st->in->v[st->checked[i]], &st->se) != 0)
            return st->se.detail;
    if (solver_check_constraints(st->s, st->in, &st->se) != 0)
        return st->se.detail;
    metrics_solve(st->solver_index);
    return st->s->run(st->in, st->out, &st->se) != 0 ? st->se.detail : NULL;
}

static void write_row(sweep_stream *st, unsigned long long p)
{
    size_t idx[MAX_AXES];
    const char *error = eval_point(st, p, idx);
    strbuf *b = &st->buf;
    bool csv = st->fmt == FMT_CSV, nd = st->fmt == FMT_NDJSON;
    if (st->fmt == FMT_JSON)
        sb_puts(b, p > st->first ? ",[" : "[");
    else if (nd)
        sb_putc(b, '{');
    if (st->with_index)
        sb_printf(b, nd ? "\"index\":%llu," : "%llu,", p);
    for (int a = 0; a < st->n_axes; a++) {
        if (a)
            sb_putc(b, ',');
        if (nd) {
            sb_json_string(b, st->axes[a].label);
            sb_putc(b, ':');
        }
        put_axis_value(st, b, a, idx[a], csv);
    }
    for (int k = 0; k < st->n_out; k++) {
        sb_putc(b, ',');
        if (nd) {
            json_output_name(st, k);
            sb_putc(b, ':');
        }
        if (!error)
            put_output(st, k, csv);
        else if (!csv)
            sb_puts(b, "null");
    }
    sb_putc(b, ',');
    if (nd)
        sb_puts(b, "\"error\":");
    if (error) {
        if (csv)
            sb_csv_field(b, error);
        else
            sb_json_string(b, error);
    } else if (!csv) {
        sb_puts(b, "null");
    }
    sb_puts(b, st->fmt == FMT_JSON ? "]" : nd ? "}\n" : "\r\n");
    if (st->window)
        track_transitions(st, p, idx, error != NULL);
}

static void put_code(sweep_stream *st, int c, uint8_t code)
{
    if (code == CODE_NULL) {
        sb_puts(&st->buf, "null");
        return;
    }
    int col = st->out_cols[st->cat_cols[c]];
    output_kind kind = st->s->outputs[col].kind;
    if (kind == OUT_INTEGER)
        sb_number(&st->buf, st->interned[c][code].num);
    else if (kind == OUT_BOOLEAN)
        sb_puts(&st->buf, st->interned[c][code].s);
    else
        sb_json_string(&st->buf, st->interned[c][code].s);
}

static void write_transition(sweep_stream *st, const transition *t)
{
    strbuf *b = &st->buf;
    size_t idx[MAX_AXES];
    for (int a = 0; a < st->n_axes; a++)
        idx[a] = (size_t)((t->from_point / st->stride[a]) % st->axes[a].n);
    sb_puts(b, "{\"output\":");
    json_output_name(st, st->cat_cols[t->col]);
    sb_puts(b, ",\"axis\":");
    sb_json_string(b, st->axes[t->axis].label);
    sb_puts(b, ",\"from_input\":");
    put_axis_value(st, b, t->axis, idx[t->axis], false);
    sb_puts(b, ",\"to_input\":");
    put_axis_value(st, b, t->axis, idx[t->axis] + 1, false);
    sb_puts(b, ",\"from\":");
    put_code(st, t->col, t->from);
    sb_puts(b, ",\"to\":");
    put_code(st, t->col, t->to);
    sb_puts(b, ",\"at\":{");
    bool first = true;
    for (int o = 0; o < st->n_axes; o++) {
        if (o == t->axis)
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        sb_json_string(b, st->axes[o].label);
        sb_putc(b, ':');
        put_axis_value(st, b, o, idx[o], false);
    }
    sb_puts(b, "}}");
}

static void timeout_message(sweep_stream *st, char *msg, size_t n)
{
    if (st->shard_count)
        snprintf(msg, n, "sweep cut off by the request timeout (%g s) after %llu of the %llu points of shard %llu/%llu",
                 st->timeout, st->next - st->first, st->end - st->first, st->shard_index, st->shard_count);
    else
        snprintf(msg, n, "sweep cut off by the request timeout (%g s) after %llu of %llu points", st->timeout,
                 st->next, st->points);
}

/* CSV and NDJSON end with one more line when the sweep was cut off, so a
 * client that reads to the end learns the data is incomplete. */
static void write_trailer(sweep_stream *st)
{
    strbuf *b = &st->buf;
    char msg[200];
    if (st->fmt != FMT_JSON) {
        if (!st->timed_out)
            return;
        timeout_message(st, msg, sizeof msg);
        if (st->fmt == FMT_CSV) {
            for (int i = 0; i < st->n_axes + st->n_out + st->with_index; i++)
                sb_putc(b, ',');
            sb_csv_field(b, msg);
            sb_puts(b, "\r\n");
        } else {
            sb_puts(b, "{\"error\":");
            sb_json_string(b, msg);
            sb_puts(b, "}\n");
        }
        return;
    }
    sb_puts(b, "],\"transitions\":[");
    for (size_t i = 0; i < st->n_trans; i++) {
        if (i)
            sb_putc(b, ',');
        write_transition(st, &st->trans[i]);
    }
    sb_putc(b, ']');
    if (st->trans_truncated)
        sb_printf(b, ",\"transitions_truncated\":%d", TRANSITIONS_MAX);
    if (st->transitions_omitted)
        sb_puts(b, ",\"transitions_omitted\":\"too many points between neighbours on the outer axis to track "
                   "transitions; put the longest axis first, sweep fewer points or project fewer outputs\"");
    if (st->timed_out) {
        timeout_message(st, msg, sizeof msg);
        sb_puts(b, ",\"error\":");
        sb_json_string(b, msg);
    }
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
            while (st->next < st->end && st->buf.len < CHUNK) {
                write_row(st, st->next);
                st->next++;
                if ((st->next & 1023) == 0 && timed_out(st)) {
                    st->timed_out = true;
                    break;
                }
            }
            metrics_sweep_points(st->next - start);
            if (st->next >= st->end || st->timed_out)
                st->stage = 2;
        } else {
            write_trailer(st);
            st->stage = 3;
        }
        if (st->buf.oom)
            return SWEEP_STREAM_FAILED;
    }
    size_t n = st->buf.len - st->buf_pos;
    if (n > max)
        n = max;
    memcpy(out, st->buf.data + st->buf_pos, n);
    st->buf_pos += n;
    return n;
}

/* --- the search space, for optimize.c ---------------------------------------------------- */

sweep_stream *sweep_space(const app *a, const solver_request *r, const json_t *body, api_error *err)
{
    sweep_stream *st = calloc(1, sizeof *st);
    if (!st) {
        api_fail(err, 503, "overloaded", "", "out of memory");
        return NULL;
    }
    sb_init(&st->buf);
    st->s = r->s;
    st->solver_index = (unsigned)r->index;
    st->ed = r->ed;
    st->calibration = r->calibration;
    if (parse_space(st, body, (unsigned long long)a->cfg->sweep_max_points, err) != 0)
        goto fail;
    st->in->calibration = st->calibration;
    clock_gettime(CLOCK_MONOTONIC, &st->t0);
    st->timeout = a->cfg->request_timeout;
    return st;
fail:
    sweep_stream_free(st);
    return NULL;
}

unsigned long long sweep_space_points(const sweep_stream *st) { return st->points; }
const catalog_edition *sweep_space_edition(const sweep_stream *st) { return st->ed; }
int sweep_space_axes(const sweep_stream *st) { return st->n_axes; }
const char *sweep_space_axis_label(const sweep_stream *st, int a) { return st->axes[a].label; }
size_t sweep_space_axis_len(const sweep_stream *st, int a) { return st->axes[a].n; }
unsigned long long sweep_space_stride(const sweep_stream *st, int a) { return st->stride[a]; }
const char *sweep_space_axis_unit(const sweep_stream *st, int a) { return axis_unit(st, a); }

/* A member axis ("fleet.count") is numeric when every value given is a number. */
bool sweep_space_axis_numeric(const sweep_stream *st, int a)
{
    const axis *ax = &st->axes[a];
    if (!ax->member)
        return ax->numeric;
    for (size_t k = 0; k < ax->n; k++)
        if (!json_is_number(json_array_get(ax->member_vals, k)))
            return false;
    return true;
}

static double axis_value_at(const sweep_stream *st, int a, size_t k)
{
    const axis *ax = &st->axes[a];
    if (ax->member)
        return json_number_value(json_array_get(ax->member_vals, k));
    double x = axis_num(ax, k);
    if (ax->d->kind == IN_QUANTITY)
        units_to(x, ax->d->unit, *ax->d->dim, &x);
    return x;
}

double sweep_space_axis_value(const sweep_stream *st, int a, unsigned long long p)
{
    return axis_value_at(st, a, (size_t)((p / st->stride[a]) % st->axes[a].n));
}

int sweep_space_axis_order(const sweep_stream *st, int a)
{
    const axis *ax = &st->axes[a];
    if (!sweep_space_axis_numeric(st, a))
        return 0;
    if (ax->n == 1)
        return 1;
    /* a range is ordered by construction; a geomspace too, unless rounding to integers repeats values */
    if (ax->form == AX_RANGE && !ax->member)
        return ax->step > 0 ? 1 : -1;
    if (ax->form == AX_GEOMSPACE && !ax->member && ax->d->kind != IN_INTEGER)
        return ax->stop > ax->start ? 1 : ax->stop < ax->start ? -1 : 0;
    int order = axis_value_at(st, a, 1) > axis_value_at(st, a, 0) ? 1 : -1;
    for (size_t k = 1; k < ax->n; k++) {
        double d = axis_value_at(st, a, k) - axis_value_at(st, a, k - 1);
        if (!(d * order > 0))
            return 0;
    }
    return order;
}

const char *sweep_eval(sweep_stream *st, unsigned long long p, const solver_inputs **in, const solver_outputs **out)
{
    size_t idx[MAX_AXES];
    const char *error = eval_point(st, p, idx);
    *in = st->in;
    *out = st->out;
    return error;
}

void sweep_space_point_json(const sweep_stream *st, strbuf *b, unsigned long long p)
{
    sb_putc(b, '{');
    for (int a = 0; a < st->n_axes; a++) {
        if (a)
            sb_putc(b, ',');
        sb_json_string(b, st->axes[a].label);
        sb_putc(b, ':');
        put_axis_value(st, b, a, (size_t)((p / st->stride[a]) % st->axes[a].n), false);
    }
    sb_putc(b, '}');
}

bool sweep_space_timed_out(sweep_stream *st) { return timed_out(st); }
