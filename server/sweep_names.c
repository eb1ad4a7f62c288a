/* sweep_names.c - how a sweep's rows name and show things: an axis value as
 * rows show it, and an output's name in the JSON header. Shared by the
 * formats (sweep_format.c), the transitions (sweep_transitions.c) and the
 * search space (sweep_space.c). */
#include <stdio.h>
#include <string.h>

#include "server/sweep_internal.h"

/* An axis value as rows show it: numbers in the input's declared unit, catalog keys, enum names. */
void sweep_put_axis_value(const sweep_stream *st, strbuf *b, int a, size_t k, bool csv)
{
    const axis *ax = &st->axes[a];
    const input_desc *d = ax->d;
    if (ax->numeric) {
        double x = sweep_axis_num(ax, k);
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

void sweep_put_output_name(const sweep_stream *st, strbuf *b, int k)
{
    if (st->qualified[k])
        sb_puts(b, "result.");
    sb_puts(b, st->s->outputs[st->out_cols[k]].name);
}

void sweep_json_output_name(const sweep_stream *st, strbuf *b, int k)
{
    sb_putc(b, '"');
    sweep_put_output_name(st, b, k);
    sb_putc(b, '"');
}
