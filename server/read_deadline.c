/* read_deadline.c - the read deadline's tracking and watchdog (contract in
 * read_deadline.h). */
#include "server/read_deadline.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "server/log.h"

typedef struct conn_track {
    MHD_socket fd;
    struct timespec armed;
    bool reading;
    struct conn_track *prev, *next;
} conn_track;

struct read_deadline {
    double limit;
    void (*tick)(void *);
    void *tick_ctx;
    pthread_mutex_t lock;
    conn_track *conns;
    pthread_t thread;
    atomic_bool stopping;
};

static double between(const struct timespec *t0, const struct timespec *t)
{
    return (double)(t->tv_sec - t0->tv_sec) + (double)(t->tv_nsec - t0->tv_nsec) / 1e9;
}

void read_deadline_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
    read_deadline *rd = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        conn_track *t = ci ? calloc(1, sizeof *t) : NULL;
        if (!t)
            return;
        t->fd = ci->connect_fd;
        clock_gettime(CLOCK_MONOTONIC, &t->armed);
        t->reading = true;
        pthread_mutex_lock(&rd->lock);
        t->next = rd->conns;
        if (rd->conns)
            rd->conns->prev = t;
        rd->conns = t;
        pthread_mutex_unlock(&rd->lock);
        *socket_context = t;
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        /* Called before libmicrohttpd closes the socket: once unlinked under
         * the lock, the watchdog can no longer touch this fd. */
        conn_track *t = *socket_context;
        pthread_mutex_lock(&rd->lock);
        if (t->prev)
            t->prev->next = t->next;
        else
            rd->conns = t->next;
        if (t->next)
            t->next->prev = t->prev;
        pthread_mutex_unlock(&rd->lock);
        free(t);
        *socket_context = NULL;
    }
}

void read_deadline_reading(read_deadline *rd, struct MHD_Connection *c, bool reading)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_track *t = ci ? ci->socket_context : NULL;
    if (!t)
        return;
    pthread_mutex_lock(&rd->lock);
    t->reading = reading;
    if (reading)
        clock_gettime(CLOCK_MONOTONIC, &t->armed);
    pthread_mutex_unlock(&rd->lock);
}

static void *watchdog_main(void *arg)
{
    read_deadline *rd = arg;
    struct timespec tick = {.tv_sec = 0, .tv_nsec = rd->limit < 2 ? 50000000L : 250000000L};
    while (!atomic_load(&rd->stopping)) {
        nanosleep(&tick, NULL);
        if (rd->tick)
            rd->tick(rd->tick_ctx);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int cut = 0;
        pthread_mutex_lock(&rd->lock);
        for (conn_track *t = rd->conns; t; t = t->next)
            cut += t->reading && between(&t->armed, &now) > rd->limit;
        if (cut) {
            /* logged before the sockets are shut down: a client that sees its
             * connection closed finds the line already written */
            char extra[96];
            snprintf(extra, sizeof extra, "\"connections\":%d,\"read_timeout_s\":%g", cut, rd->limit);
            log_line(LOG_WARN, "read deadline passed: connection closed", extra);
            for (conn_track *t = rd->conns; t; t = t->next) {
                if (t->reading && between(&t->armed, &now) > rd->limit) {
                    shutdown(t->fd, SHUT_RDWR);
                    t->reading = false;
                }
            }
        }
        pthread_mutex_unlock(&rd->lock);
    }
    return NULL;
}

read_deadline *read_deadline_start(double limit, void (*tick)(void *), void *tick_ctx, char *msg, size_t msglen)
{
    read_deadline *rd = calloc(1, sizeof *rd);
    if (!rd) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    rd->limit = limit;
    rd->tick = tick;
    rd->tick_ctx = tick_ctx;
    pthread_mutex_init(&rd->lock, NULL);
    atomic_store(&rd->stopping, false);
    if (pthread_create(&rd->thread, NULL, watchdog_main, rd) != 0) {
        snprintf(msg, msglen, "cannot start the read-deadline thread");
        pthread_mutex_destroy(&rd->lock);
        free(rd);
        return NULL;
    }
    return rd;
}

void read_deadline_stop(read_deadline *rd)
{
    if (!rd)
        return;
    atomic_store(&rd->stopping, true);
    pthread_join(rd->thread, NULL);
    pthread_mutex_destroy(&rd->lock);
    free(rd);
}
