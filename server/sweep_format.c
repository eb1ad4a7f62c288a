/* sweep_format.c - a sweep's body as JSON, CSV or NDJSON: the header (columns,
 * units), one row per point, and the trailer (transitions, a cut-off error). */
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


static void put_output(sweep_stream *st, int k, bool csv)
{
    int col = st->out_cols[k];
    row_output_value(&st->buf, &st->s->outputs[col], &st->out->v[col], csv);
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

const char *sweep_axis_unit(const sweep_stream *st, int a)
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
        const char *u = sweep_axis_unit(st, a);
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
        sweep_json_output_name(st, b, k);
        sb_putc(b, ':');
        sb_json_string(b, d->unit);
    }
    sb_putc(b, '}');
}

/* NDJSON's member names, once per sweep (see nd_keys in sweep_internal.h). */
static void write_ndjson_keys(sweep_stream *st)
{
    strbuf *b = &st->nd_keys;
    size_t n = 0;
    sb_init(b);
    if (st->with_index) {
        sb_puts(b, "{\"index\":");
        st->nd_key_end[n++] = b->len;
    }
    for (int a = 0; a < st->n_axes; a++) {
        sb_puts(b, n ? "," : "{");
        sb_json_string(b, st->axes[a].label);
        sb_putc(b, ':');
        st->nd_key_end[n++] = b->len;
    }
    for (int k = 0; k < st->n_out; k++) {
        sb_putc(b, n ? ',' : '{');
        sweep_json_output_name(st, b, k);
        sb_putc(b, ':');
        st->nd_key_end[n++] = b->len;
    }
    sb_puts(b, n ? ",\"error\":" : "{\"error\":");
    st->nd_key_end[n++] = b->len;
    if (b->oom) /* no names to write rows with: the stream fails (sweep_stream_read) */
        st->buf.oom = true;
}

static void put_ndjson_key(sweep_stream *st, size_t i)
{
    if (st->nd_keys.oom)
        return;
    size_t from = i ? st->nd_key_end[i - 1] : 0;
    sb_append(&st->buf, st->nd_keys.data + from, st->nd_key_end[i] - from);
}

void sweep_write_header(sweep_stream *st)
{
    strbuf *b = &st->buf;
    const solver_desc *s = st->s;
    if (st->fmt == FMT_NDJSON)
        write_ndjson_keys(st);
    /* Shard 0 alone starts a CSV or NDJSON body, so that the shards concatenate. */
    if (st->fmt != FMT_JSON && st->shard_index > 0)
        return;
    if (st->fmt == FMT_CSV) {
        if (st->with_index)
            sb_puts(b, "index,");
        for (int a = 0; a < st->n_axes; a++) {
            sb_puts(b, st->axes[a].label);
            csv_unit(b, sweep_axis_unit(st, a));
            sb_putc(b, ',');
        }
        for (int k = 0; k < st->n_out; k++) {
            sweep_put_output_name(st, b, k);
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
        sweep_json_output_name(st, b, k);
    }
    sb_puts(b, ",\"error\"],");
    write_units(st);
    sb_puts(b, ",\"rows\":[");
}

void sweep_write_row(sweep_stream *st, unsigned long long p)
{
    size_t idx[MAX_AXES];
    const char *error = sweep_eval_point(st, p, idx);
    strbuf *b = &st->buf;
    bool csv = st->fmt == FMT_CSV, nd = st->fmt == FMT_NDJSON;
    size_t key = 0; /* NDJSON: the next member name (nd_keys) */
    if (st->fmt == FMT_JSON)
        sb_puts(b, p > st->first ? ",[" : "[");
    if (st->with_index) {
        if (nd)
            put_ndjson_key(st, key++);
        sb_printf(b, nd ? "%llu" : "%llu,", p);
    }
    for (int a = 0; a < st->n_axes; a++) {
        if (nd)
            put_ndjson_key(st, key++);
        else if (a)
            sb_putc(b, ',');
        sweep_put_axis_value(st, b, a, idx[a], csv);
    }
    for (int k = 0; k < st->n_out; k++) {
        if (nd)
            put_ndjson_key(st, key++);
        else
            sb_putc(b, ',');
        if (!error)
            put_output(st, k, csv);
        else if (!csv)
            sb_puts(b, "null");
    }
    if (nd)
        put_ndjson_key(st, key);
    else
        sb_putc(b, ',');
    if (error) {
        if (csv)
            sb_csv_field(b, error);
        else
            sb_json_string(b, error);
    } else if (!csv) {
        sb_puts(b, "null");
    }
    sb_puts(b, st->fmt == FMT_JSON ? "]" : nd ? "}\n" : "\r\n");
    if (st->window) {
        sweep_track_transitions(st, p, idx, error != NULL);
    } else if (st->lane_vals) { /* a helper lane: the stream tracks this row later */
        size_t i = (size_t)(p - st->lane_from);
        st->lane_failed[i] = error != NULL;
        for (int c = 0; c < st->n_cat && !error; c++)
            st->lane_vals[i * (size_t)st->n_cat + (size_t)c] = st->out->v[st->out_cols[st->cat_cols[c]]];
    }
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
void sweep_write_trailer(sweep_stream *st)
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
        sweep_write_transition(st, &st->trans[i]);
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
