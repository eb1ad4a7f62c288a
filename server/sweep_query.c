/* sweep_query.c - GET /sweep/{solver}: the query read straight into the
 * sweep, the way GET /solve reads its query (no JSON body in between).
 *
 * An argument whose value holds commas is an axis over those values
 * (batch_size=32,64,128; hardware=A100,H100; fleet.count=8,16 for a member of
 * a record input), each value parsed as GET /solve parses the argument's text.
 * A list input's commas separate its items instead (regions=US_Avg,Quebec): a
 * list is swept only by POST /sweep, with arrays as values. format, outputs
 * (comma-separated), shard ("3/16") and index (bare, true/false, 1/0) are the
 * body's members as text; catalog and calibration are the envelope's
 * (front_read_query); every other argument is a fixed input
 * (query_collect_inputs). Errors name inputs as GET /solve does
 * ("inputs.batch_size"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/sweep_internal.h"

#include "server/query.h"

static const char *const RESERVED[] = {"catalog", "calibration", "format", "outputs", "shard", "index", NULL};

static bool is_reserved(const char *k)
{
    for (const char *const *r = RESERVED; *r; r++)
        if (!strcmp(k, *r))
            return true;
    return false;
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

/* Whether argument k=v (not a reserved one) makes an axis. */
static bool is_axis_arg(const solver_desc *s, const char *k, const char *v)
{
    if (!strchr(v, ','))
        return false;
    if (is_member_name(s, k))
        return true;
    if (strchr(k, '.'))
        return false; /* a dotted name of an input that is not a record: query_collect_inputs names it */
    int idx = solver_input_index(s, k);
    return idx < 0 || (s->inputs[idx].kind != IN_LIST && s->inputs[idx].kind != IN_ROWS);
}

/* Axis i's values: the text v split at its commas (an empty item stays, so
 * the input's parser names it as a bad value). */
static int split_values(axis *ax, const char *v, api_error *err)
{
    size_t n = 1;
    for (const char *p = v; *p; p++)
        n += *p == ',';
    ax->texts_buf = strdup(v);
    ax->texts = calloc(n, sizeof *ax->texts);
    if (!ax->texts_buf || !ax->texts)
        return api_fail(err, 503, "overloaded", "", "out of memory");
    char *p = ax->texts_buf;
    for (size_t k = 0; k < n; k++) {
        ax->texts[k] = p;
        p = strchr(p, ',');
        if (p)
            *p++ = '\0';
    }
    ax->form = AX_VALUES;
    ax->n = n;
    return 0;
}

/* outputs=latency,bottleneck */
static int read_outputs(sweep_stream *st, const char *v, api_error *err)
{
    if (!v)
        return sweep_parse_outputs(st, NULL, err);
    st->n_out = 0;
    char *copy = strdup(v);
    if (!copy)
        return api_fail(err, 503, "overloaded", "", "out of memory");
    int rc = 0;
    size_t pos = 0;
    for (char *p = copy; rc == 0; pos++) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        rc = sweep_add_output(st, p, pos, err);
        if (!comma)
            break;
        p = comma + 1;
    }
    free(copy);
    return rc;
}

/* The inputs every point starts from: the fixed ones as GET /solve reads
 * them, each axis's first value standing in for its input (parse_base in
 * sweep_request.c does the same for a body). A fixed value of a swept input
 * is still read (nothing a client sends is ignored unread); the axis wins. */
static int read_base(sweep_stream *st, const char *text[SOLVER_MAX_INPUTS], json_t *record[SOLVER_MAX_INPUTS],
                     api_error *err)
{
    for (int a = 0; a < st->n_axes; a++) {
        axis *ax = &st->axes[a];
        int i = ax->input;
        if (!ax->member && (text[i] || record[i])) {
            char field[160];
            snprintf(field, sizeof field, "inputs.%s", ax->d->name);
            input_value tmp;
            int rc = record[i] ? input_parse(ax->d, record[i], st->ed, &tmp, &st->owned, field, err)
                               : input_parse_text(ax->d, text[i], st->ed, &tmp, &st->owned, field, err);
            if (rc != 0)
                return -1;
        }
        json_decref(record[i]);
        record[i] = ax->member ? json_incref(ax->first_obj) : NULL;
        text[i] = ax->member ? NULL : ax->texts[0];
    }
    input_given given[SOLVER_MAX_INPUTS];
    for (size_t i = 0; i < st->s->n_inputs; i++)
        given[i] = input_given_query(record[i], text[i]);
    if (inputs_parse_given(st->s, given, st->ed, st->in, err) != 0)
        return -1;
    return sweep_check_fixed(st, err);
}

int sweep_read_query(sweep_stream *st, const app_request *req, unsigned long long cap, api_error *err)
{
    const solver_desc *s = st->s;
    app_request scalar = *req; /* the fixed inputs' arguments */
    scalar.n_query = 0;
    const char *format = NULL, *outputs = NULL, *shard = NULL, *index = NULL;
    const char *axis_name[APP_MAX_QUERY], *axis_text[APP_MAX_QUERY];
    size_t n_axes = 0;
    for (size_t i = 0; i < req->n_query; i++) {
        const char *k = req->query[i].key, *v = req->query[i].value ? req->query[i].value : "";
        if (!strcmp(k, "format"))
            format = v;
        else if (!strcmp(k, "outputs"))
            outputs = v;
        else if (!strcmp(k, "shard"))
            shard = v;
        else if (!strcmp(k, "index"))
            index = v;
        else if (is_reserved(k))
            continue; /* the envelope's, read by front_read_query */
        else if (is_axis_arg(s, k, v)) {
            if (!is_member_name(s, k) && solver_input_index(s, k) < 0) {
                char field[160]; /* named as GET /solve names it */
                snprintf(field, sizeof field, "inputs.%.140s", k);
                return api_fail(err, 400, "unknown-input", field,
                                "unknown input '%.80s' for solver %s (GET /solvers/%s lists its inputs)", k, s->name,
                                s->name);
            }
            axis_name[n_axes] = k;
            axis_text[n_axes++] = v;
        } else {
            scalar.query[scalar.n_query++] = req->query[i];
        }
    }
    if (n_axes == 0)
        return api_fail(err, 400, "invalid-axis", "",
                        "a GET sweep needs at least one input with comma-separated values, e.g. ?batch_size=32,64,128");
    const char *text[SOLVER_MAX_INPUTS] = {NULL};
    json_t *record[SOLVER_MAX_INPUTS] = {NULL};
    int rc = -1;
    if (query_collect_inputs(s, &scalar, RESERVED, text, record, err) != 0)
        goto done;
    bool ok;
    st->fmt = sweep_format_from(format, req->accept, &ok);
    if (!ok) {
        api_fail(err, 400, "invalid-input", "format", "format must be json, csv or ndjson, got '%.40s'", format);
        goto done;
    }
    if (read_outputs(st, outputs, err) != 0)
        goto done;
    if (index) {
        /* a bare ?index means true */
        bool t = !*index || !strcmp(index, "true") || !strcmp(index, "1"), f = !strcmp(index, "false") || !strcmp(index, "0");
        if (!t && !f) {
            api_fail(err, 400, "invalid-input", "index", "index must be true or false (true: rows start with the point's index)");
            goto done;
        }
        st->with_index = t;
    }
    if (shard && sweep_shard_text(st, shard, err) != 0)
        goto done;
    if (n_axes > MAX_AXES) {
        api_fail(err, 400, "invalid-axis", "axes", "a sweep has at most %d axes, got %zu", MAX_AXES, n_axes);
        goto done;
    }
    st->n_axes = (int)n_axes;
    for (size_t a = 0; a < n_axes; a++)
        if (sweep_bind_axis(st, a, axis_name[a], err) != 0 || split_values(&st->axes[a], axis_text[a], err) != 0)
            goto done;
    if (sweep_count_points(st, cap, err) != 0)
        goto done;
    for (int a = 0; a < st->n_axes; a++) {
        const axis *ax = &st->axes[a];
        /* a member axis sets its member in the fixed record: an id (fleet=Research_256) or dotted members */
        json_t *base = !ax->member         ? NULL
                       : record[ax->input] ? json_incref(record[ax->input])
                       : text[ax->input]   ? json_string(text[ax->input])
                                           : NULL;
        int frc = sweep_fill_axis(st, (size_t)a, base, err);
        json_decref(base);
        if (frc != 0)
            goto done;
    }
    if (sweep_alloc_point(st, err) != 0)
        goto done;
    rc = read_base(st, text, record, err);
done:
    for (size_t i = 0; i < SOLVER_MAX_INPUTS; i++)
        json_decref(record[i]);
    return rc;
}
