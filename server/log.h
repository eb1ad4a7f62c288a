/* log.h - the JSON logger: one line per event on stdout, written with one
 * write(2) so that lines from different threads do not interleave. Any
 * server file may log; main.c sets the level. */
#ifndef MLSYSD_LOG_H
#define MLSYSD_LOG_H

#include <stdbool.h>

#include "server/config.h"
#include "server/strbuf.h"

/* One JSON log line on stdout (level filtered): {"ts","level","msg", extra_json...}. */
void log_line(log_level lvl, const char *msg, const char *extra_json);
void log_set_level(log_level lvl);
/* Whether a line at lvl is written: callers skip composing one that is not. */
bool log_enabled(log_level lvl);
/* A buffer of this thread's, kept across calls and freed when the thread ends,
 * for composing a line's extra_json (sb_reset it first); NULL when none could
 * be made. */
strbuf *log_extra_buffer(void);

#endif
