/* log.c - one JSON line per event on stdout (contract in log.h). */
#include "server/log.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/strbuf.h"

static log_level g_level = LOG_INFO;
static double g_hold; /* s; 0: request lines are written at once */

void log_set_level(log_level lvl) { g_level = lvl; }
void log_set_hold(double seconds) { g_hold = seconds > 0 ? seconds : 0; }
double log_hold(void) { return g_hold; }

/* stdout and the held request lines: g_held is at most BATCH_BYTES long, so
 * each write(2) of it is one atomic write on a pipe (a container's log). */
#define BATCH_BYTES PIPE_BUF
static pthread_mutex_t g_out_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_held[BATCH_BYTES];
static size_t g_held_len;

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* nothing sensible to do if stdout is gone */
        p += w;
        n -= (size_t)w;
    }
}

static void flush_locked(void)
{
    write_all(g_held, g_held_len);
    g_held_len = 0;
}

/* A whole line, held (request lines, when a hold time is set) or written now
 * after the held ones. */
static void emit(const char *line, size_t len, bool hold)
{
    pthread_mutex_lock(&g_out_lock);
    if (hold && g_held_len + len > BATCH_BYTES)
        flush_locked();
    if (hold && len <= BATCH_BYTES) {
        memcpy(g_held + g_held_len, line, len);
        g_held_len += len;
    } else {
        flush_locked();
        write_all(line, len);
    }
    pthread_mutex_unlock(&g_out_lock);
}

void log_flush(void)
{
    pthread_mutex_lock(&g_out_lock);
    flush_locked();
    pthread_mutex_unlock(&g_out_lock);
}

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

/* Per-thread buffers kept across lines (a line per request), freed when the
 * thread ends: a thread-local strbuf alone would leak its data then. */
typedef struct {
    strbuf line, extra;
} log_buffers;

static pthread_key_t g_buffers_key;
static pthread_once_t g_buffers_once = PTHREAD_ONCE_INIT;
static bool g_buffers_ok;

static void buffers_free(void *p)
{
    log_buffers *lb = p;
    sb_free(&lb->line);
    sb_free(&lb->extra);
    free(lb);
}

static void buffers_key(void) { g_buffers_ok = pthread_key_create(&g_buffers_key, buffers_free) == 0; }

static log_buffers *thread_buffers(void)
{
    pthread_once(&g_buffers_once, buffers_key);
    if (!g_buffers_ok)
        return NULL;
    log_buffers *lb = pthread_getspecific(g_buffers_key);
    if (!lb && (lb = calloc(1, sizeof *lb)) && pthread_setspecific(g_buffers_key, lb) != 0) {
        free(lb);
        lb = NULL;
    }
    return lb;
}

strbuf *log_extra_buffer(void)
{
    log_buffers *lb = thread_buffers();
    return lb ? &lb->extra : NULL;
}

/* A buffer that grew past this is freed after its line: memory back after an outsized one. */
#define KEEP_BYTES 65536

static void compose(log_level lvl, const char *msg, const char *extra_json, bool hold)
{
    if (lvl < g_level)
        return;
    log_buffers *lb = thread_buffers();
    strbuf own;
    sb_init(&own);
    strbuf *bp = lb ? &lb->line : &own;
    strbuf b = *bp; /* worked on here, given back below */
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
    if (b.data && !b.oom)
        emit(b.data, b.len, hold);
    if (b.oom || b.cap > KEEP_BYTES || !lb)
        sb_free(&b); /* a failed or an outsized line, or no kept buffer: start afresh */
    *bp = b;
}

void log_line(log_level lvl, const char *msg, const char *extra_json) { compose(lvl, msg, extra_json, false); }

void log_request(log_level lvl, const char *msg, const char *extra_json)
{
    compose(lvl, msg, extra_json, g_hold > 0);
}
