/* api_error.c - the server's error type (contract in api_error.h). */
#include "server/api_error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int api_fail(api_error *e, int status, const char *slug, const char *field, const char *fmt, ...)
{
    e->status = status;
    e->slug = slug;
    snprintf(e->field, sizeof e->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    return -1;
}

int api_solver_fail(api_error *e, const solver_error *se, const char *bare_field)
{
    char field[96];
    if (se->field[0])
        snprintf(field, sizeof field, "inputs.%s", se->field);
    else
        snprintf(field, sizeof field, "%s", bare_field);
    return api_fail(e, se->status ? se->status : 400, "invalid-input", field, "%s", se->detail);
}
