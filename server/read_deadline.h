/* read_deadline.h - the read deadline: a request must fully arrive within
 * --read-timeout seconds.
 *
 * libmicrohttpd's connection timeout is an idle timeout: a client that
 * trickles one byte per second keeps a connection (and a slot of
 * --max-connections) forever. So every connection is tracked from accept (or
 * from the end of its previous request) until its current request has fully
 * arrived; a watchdog thread shuts down the socket of one that takes longer,
 * and libmicrohttpd then closes it as a client error. The cut is logged
 * (warn, "read deadline passed: connection closed", with the count and the
 * limit) before the sockets are shut down, so a client that sees its
 * connection closed finds the line.
 *
 * Contract: read_deadline_connection is libmicrohttpd's
 * MHD_OPTION_NOTIFY_CONNECTION callback (cls: the read_deadline) and must be
 * installed, so every connection is tracked from its start and untracked
 * before its socket closes (the watchdog never touches a closed fd).
 * read_deadline_reading marks where a request stands. The watchdog wakes every
 * 50 ms (limits under 2 s) or 250 ms, and then calls `tick` (may be NULL) on
 * its thread, for other periodic housekeeping. Caller: http.c. */
#ifndef MLSYSD_READ_DEADLINE_H
#define MLSYSD_READ_DEADLINE_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct read_deadline read_deadline;

/* The watchdog thread started, with `limit` seconds; NULL with msg on failure. */
read_deadline *read_deadline_start(double limit, void (*tick)(void *), void *tick_ctx, char *msg, size_t msglen);
/* Stops and joins the thread. Call after libmicrohttpd has stopped. */
void read_deadline_stop(read_deadline *rd);

void read_deadline_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe);
/* reading = true: (re)start the clock of c (its previous request is done);
 * false: c's current request has fully arrived, its deadline is met. */
void read_deadline_reading(read_deadline *rd, struct MHD_Connection *c, bool reading);

#endif
