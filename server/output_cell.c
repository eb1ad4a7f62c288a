/* output_cell.c - one output value as a row cell (contract in output_cell.h). */
#include "server/output_cell.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void row_output_value(strbuf *b, const output_desc *d, const output_value *v, bool csv)
{
    if (v->is_null || ((d->kind == OUT_NUMBER || d->kind == OUT_INTEGER) && !isfinite(v->num))) {
        if (!csv)
            sb_puts(b, "null");
        return;
    }
    switch (d->kind) {
    case OUT_STRING:
        if (csv)
            sb_csv_field(b, v->str ? v->str : "");
        else
            sb_json_string(b, v->str ? v->str : "");
        break;
    case OUT_BOOLEAN: sb_puts(b, v->num != 0 ? "true" : "false"); break;
    case OUT_INTEGER:
    case OUT_NUMBER: sb_number(b, v->num); break;
    }
}

/* An input's type as /solvers names it: a record input by its kind. */
