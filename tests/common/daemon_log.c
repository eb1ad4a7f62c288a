/* daemon_log.c - reading the daemon's JSON log lines (contract in daemon_log.h). */
#include "daemon_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    char buf[8192];
    size_t n;
    while (mem && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, mem);
    fclose(f);
    if (mem)
        fclose(mem);
    return text;
}

json_t *daemon_log_lines(const char *path, const char *msg, const char *key, const char *value)
{
    json_t *out = json_array();
    char *text = slurp(path);
    if (!text)
        return out;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_t *j = json_loads(line, 0, NULL);
        const char *m = json_string_value(json_object_get(j, "msg"));
        const char *v = key ? json_string_value(json_object_get(j, key)) : NULL;
        if (json_is_object(j) && (!msg || (m && !strcmp(m, msg))) && (!key || (v && value && !strcmp(v, value))))
            json_array_append_new(out, j);
        else
            json_decref(j);
    }
    free(text);
    return out;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

json_t *daemon_log_await(const char *path, const char *msg, const char *key, const char *value, size_t count,
                         double timeout_s)
{
    double end = now() + timeout_s;
    for (;;) {
        json_t *lines = daemon_log_lines(path, msg, key, value);
        if (json_array_size(lines) >= count || now() > end)
            return lines;
        json_decref(lines);
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    }
}
