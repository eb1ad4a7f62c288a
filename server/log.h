/* log.h - the JSON logger: one line per event on stdout. Lines are written
 * whole, under one lock, in the order they were logged, so lines from
 * different threads never interleave. Request lines (log_request) may be
 * held back and written in batches of at most PIPE_BUF bytes (one write(2)
 * each, atomic on a pipe), at most the hold time after they were logged;
 * every other line is written at once, after the held ones. Any server file
 * may log; main.c sets the level and the hold time and calls log_flush. */
#ifndef MLSYSD_LOG_H
#define MLSYSD_LOG_H

#include <stdbool.h>

#include "server/config.h"
#include "server/strbuf.h"

/* One JSON log line on stdout (level filtered): {"ts","level","msg", extra_json...}. */
void log_line(log_level lvl, const char *msg, const char *extra_json);
void log_set_level(log_level lvl);
/* A request's line (one per request): held back when a hold time is set. */
void log_request(log_level lvl, const char *msg, const char *extra_json);
/* How long request lines may be held, in seconds; 0 (the default) writes each at once. */
void log_set_hold(double seconds);
double log_hold(void);
/* Writes the held lines now (main.c: every hold time, and before exit). */
void log_flush(void);
/* Whether a line at lvl is written: callers skip composing one that is not. */
bool log_enabled(log_level lvl);
/* A buffer of this thread's, kept across calls and freed when the thread ends,
 * for composing a line's extra_json (sb_reset it first); NULL when none could
 * be made. */
strbuf *log_extra_buffer(void);

#endif
