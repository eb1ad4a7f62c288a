/* daemon_log.h - the daemon's JSON log lines (one object per line, server/log.h)
 * as tests read them from the file its output goes to (daemon_t.log_path).
 * Lines are written after the event they report, by another thread: a test
 * waits for the line it checks, with a generous deadline, never a fixed time.
 * Plain C and jansson, no Criterion. */
#ifndef MLSYSD_TEST_DAEMON_LOG_H
#define MLSYSD_TEST_DAEMON_LOG_H

#include <jansson.h>

/* The lines of the log whose "msg" is msg (every line when msg is NULL) and,
 * when key is not NULL, whose member key is the string value; a new array
 * (empty when the file cannot be read; lines that are not JSON are skipped). */
json_t *daemon_log_lines(const char *path, const char *msg, const char *key, const char *value);
/* daemon_log_lines until it has at least `count` lines or timeout_s passes;
 * returns what it found last (the caller checks the count). */
json_t *daemon_log_await(const char *path, const char *msg, const char *key, const char *value, size_t count,
                         double timeout_s);

#endif
