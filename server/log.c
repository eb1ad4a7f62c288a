/* log.c - one JSON line per event on stdout (contract in log.h). */
#include "server/log.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "server/strbuf.h"

static log_level g_level = LOG_INFO;

void log_set_level(log_level lvl) { g_level = lvl; }

bool log_enabled(log_level lvl) { return lvl >= g_level; }

/* "2026-12-01T21:04:23.484Z": the seconds through strftime once per second and
 * thread, the milliseconds by hand. */
static void timestamp(strbuf *b)
{
    static _Thread_local time_t last = (time_t)-1;
    static _Thread_local char secs[32];
    static _Thread_local size_t secs_len;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != last) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        secs_len = strftime(secs, sizeof secs, "%Y-%m-%dT%H:%M:%S", &tm);
        last = ts.tv_sec;
    }
    long ms = ts.tv_nsec / 1000000;
    char frac[6] = {'.', (char)('0' + ms / 100), (char)('0' + ms / 10 % 10), (char)('0' + ms % 10), 'Z', '"'};
    sb_append(b, secs, secs_len);
    sb_append(b, frac, sizeof frac);
}

void log_line(log_level lvl, const char *msg, const char *extra_json)
{
    if (lvl < g_level)
        return;
    /* one buffer per thread, kept: a line per request */
    static _Thread_local strbuf b;
    sb_reset(&b);
    sb_puts(&b, "{\"ts\":\"");
    timestamp(&b);
    sb_puts(&b, ",\"level\":\"");
    sb_puts(&b, log_level_name(lvl));
    sb_puts(&b, "\",\"msg\":");
    sb_json_string(&b, msg);
    if (extra_json && *extra_json) {
        sb_putc(&b, ',');
        sb_puts(&b, extra_json);
    }
    sb_puts(&b, "}\n");
    /* one write(2) per line: lines from different threads do not interleave */
    if (b.data && !b.oom && write(STDOUT_FILENO, b.data, b.len) < 0) {
        /* nothing sensible to do if stdout is gone */
    }
    if (b.oom || b.cap > 65536)
        sb_free(&b); /* a failed or an outsized line: start afresh */
}
