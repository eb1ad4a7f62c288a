/* proc_status.c - figures of /proc/PID/status (contract in proc_status.h). */
#include "proc_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long proc_status_kib(pid_t pid, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long v = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':')
            v = atol(line + n + 1);
    fclose(f);
    return v;
}
