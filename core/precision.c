/* precision.c - see precision.h. */
#include "core/precision.h"

#include <stdio.h>
#include <strings.h>

const char *const PRECISION_KEYS[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", NULL};
static const double PRECISION_BYTES[] = {4.0, 4.0, 2.0, 2.0, 1.0, 1.0, 0.5};

int precision_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; PRECISION_KEYS[i]; i++)
        if (strcasecmp(name, PRECISION_KEYS[i]) == 0)
            return i;
    return -1;
}

double precision_bytes(int index) { return PRECISION_BYTES[index]; }

void precision_unsupported_message(const char *given, char *buf, unsigned long n)
{
    /* resolve_precision lists sorted(keys) joined with ", ". */
    snprintf(buf, n,
             "precision '%s' is not supported. Supported precision values: "
             "bf16, fp16, fp32, fp8, int4, int8, tf32",
             given);
}
