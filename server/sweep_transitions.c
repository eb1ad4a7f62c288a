/* sweep_transitions.c - the crossovers of a JSON sweep: each point's
 * categorical outputs compared with its neighbour one step back on every axis,
 * in a bounded window (see sweep.c's top comment), and written in the trailer. */
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

/* JSON transitions: the window must reach back one step on every axis that varies. */
void sweep_setup_transitions(sweep_stream *st)
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
    st->interned = malloc((size_t)st->n_cat * sizeof *st->interned);
    if (st->trans && st->interned && reach * (unsigned long long)st->n_cat <= WINDOW_MAX_BYTES)
        st->window = malloc((size_t)reach * (size_t)st->n_cat);
    st->window_len = reach;
    st->transitions_omitted = !st->window;
}


static uint8_t intern_value(sweep_stream *st, int c, const output_value *v, output_kind kind)
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
void sweep_track_transitions(sweep_stream *st, unsigned long long q, const size_t idx[MAX_AXES], bool failed)
{
    output_value vals[SOLVER_MAX_OUTPUTS];
    for (int c = 0; c < st->n_cat && !failed; c++)
        vals[c] = st->out->v[st->out_cols[st->cat_cols[c]]];
    sweep_track_values(st, q, idx, failed, vals);
}

void sweep_track_values(sweep_stream *st, unsigned long long q, const size_t idx[MAX_AXES], bool failed,
                        const output_value *vals)
{
    uint8_t codes[SOLVER_MAX_OUTPUTS];
    for (int c = 0; c < st->n_cat; c++) {
        int col = st->out_cols[st->cat_cols[c]];
        codes[c] = failed ? CODE_ERROR : intern_value(st, c, &vals[c], st->s->outputs[col].kind);
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

void sweep_write_transition(sweep_stream *st, const transition *t)
{
    strbuf *b = &st->buf;
    size_t idx[MAX_AXES];
    for (int a = 0; a < st->n_axes; a++)
        idx[a] = sweep_axis_index(st, a, t->from_point);
    sb_puts(b, "{\"output\":");
    sweep_json_output_name(st, b, st->cat_cols[t->col]);
    sb_puts(b, ",\"axis\":");
    sb_json_string(b, st->axes[t->axis].label);
    sb_puts(b, ",\"from_input\":");
    sweep_put_axis_value(st, b, t->axis, idx[t->axis], false);
    sb_puts(b, ",\"to_input\":");
    sweep_put_axis_value(st, b, t->axis, idx[t->axis] + 1, false);
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
        sweep_put_axis_value(st, b, o, idx[o], false);
    }
    sb_puts(b, "}}");
}
