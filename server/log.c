/* log.c - one JSON line per event on stdout (contract in log.h). */
#include "server/log.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "server/strbuf.h"

static log_level g_level = LOG_INFO;

void log_set_level(log_level lvl) { g_level = lvl; }

static void timestamp(char *buf, size_t n)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + k, n - k, ".%03ldZ", ts.tv_nsec / 1000000);
}

void log_line(log_level lvl, const char *msg, const char *extra_json)
{
    if (lvl < g_level)
        return;
    strbuf b;
    sb_init(&b);
    char ts[40];
    timestamp(ts, sizeof ts);
    sb_printf(&b, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":", ts, log_level_name(lvl));
    sb_json_string(&b, msg);
    if (extra_json && *extra_json) {
        sb_putc(&b, ',');
        sb_puts(&b, extra_json);
    }
    sb_puts(&b, "}\n");
    /* one write(2) per line: lines from different threads do not interleave */
    if (b.data && write(STDOUT_FILENO, b.data, b.len) < 0) {
        /* nothing sensible to do if stdout is gone */
    }
    sb_free(&b);
}
