/* embedded.c - lookup in the table of files compiled into the binary. */
#include "embedded.h"

#include <string.h>

const embedded_file *embedded_find(const char *path)
{
    for (size_t i = 0; i < mlsysd_embedded_count; i++)
        if (strcmp(mlsysd_embedded[i].path, path) == 0)
            return &mlsysd_embedded[i];
    return NULL;
}
