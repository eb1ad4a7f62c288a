/* fuzz_units.c - the unit parser: units_parse, units_parse_unit and
 * units_parse_as against every dimension the solvers use. Any crash,
 * sanitizer report, non-finite success or unterminated message is a bug. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_msg(const char *err, size_t n)
{
    if (memchr(err, '\0', n) == NULL)
        abort(); /* the message must be NUL-terminated within its buffer */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    char err[300];
    memset(err, 'x', sizeof err);
    err[sizeof err - 1] = 'x';
    quantity q;
    units_status st = units_parse(text, &q, err, sizeof err);
    if (st == UNITS_OK) {
        if (!isfinite(q.si))
            abort();
        char buf[64];
        dim_format(q.dim, buf, sizeof buf);
        check_msg(buf, sizeof buf);
        dim_describe(q.dim, buf, sizeof buf);
        check_msg(buf, sizeof buf);
    } else {
        check_msg(err, sizeof err);
    }
    /* Tiny buffers must be honoured too. */
    char tiny[4];
    if (units_parse(text, &q, tiny, sizeof tiny) != UNITS_OK)
        check_msg(tiny, sizeof tiny);

    double factor;
    dimension dim;
    memset(err, 'x', sizeof err);
    if (units_parse_unit(text, &factor, &dim, err, sizeof err) == UNITS_OK) {
        if (!isfinite(factor))
            abort();
    } else {
        check_msg(err, sizeof err);
    }

    static const struct {
        const dimension *dim;
        const char *unit;
    } WANT[] = {
        {&DIM_BYTES, "B"},       {&DIM_BYTE_RATE, "GB/s"}, {&DIM_TIME, "ms"},     {&DIM_OPS, "flop"},
        {&DIM_OPS_RATE, "flop/s"}, {&DIM_POWER, "W"},      {&DIM_ENERGY, "J"},    {&DIM_MONEY, "USD"},
        {&DIM_COUNTS, "count"},  {&DIM_NONE, ""},          {&DIM_INTENSITY, "flop/B"},
    };
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++) {
        double si;
        memset(err, 'x', sizeof err);
        st = units_parse_as(text, *WANT[i].dim, WANT[i].unit, &si, err, sizeof err);
        if (st == UNITS_OK) {
            if (!isfinite(si))
                abort();
            double back;
            (void)units_to(si, WANT[i].unit, *WANT[i].dim, &back);
        } else {
            check_msg(err, sizeof err);
        }
    }
    free(text);
    return 0;
}
