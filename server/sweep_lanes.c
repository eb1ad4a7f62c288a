/* sweep_lanes.c - a sweep's rows on more than one thread (contract in
 * sweep_internal.h, "lanes").
 *
 * A lane is a copy of the stream with inputs, outputs and a buffer of its own;
 * every other part of the stream (the axes, the projection, the format) is
 * only read while rows are written, so the copies share it. A span of points
 * is cut into contiguous parts, one per lane: the caller writes the first into
 * st->buf while the helper threads write theirs, and the parts then go out in
 * point order, so the body is byte for byte the one a single thread writes.
 * A JSON sweep's transitions compare each point with earlier ones, in a window
 * only the stream holds: a lane keeps each row's categorical values instead,
 * and the caller tracks the lanes' points after its own, in point order.
 *
 * Helper threads are per sweep (made when its rows start, joined when it is
 * freed) and drawn from one budget for the whole daemon (sweep_set_threads),
 * so that concurrent sweeps never hold more helpers than it allows. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "server/sweep_internal.h"

#include "server/metrics.h"

/* Points each lane writes per span: about a millisecond of rows. */
#define LANE_POINTS 1024

typedef struct {
    sweep_stream row; /* the stream's copy: in, out and buf of its own */
    unsigned long long from, to;
    pthread_t thread;
    struct sweep_lanes *owner;
} lane;

struct sweep_lanes {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long long span;   /* bumped when a span is handed out */
    int busy;                  /* helpers still writing the span */
    bool quit, failed;
    int n;                     /* helpers */
    int served;                /* parts of the last span handed to the reader (part 0 is st->buf) */
    lane *lanes;
};

static atomic_int g_budget; /* helper threads free in the daemon */

void sweep_set_threads(int threads) { atomic_store(&g_budget, threads > 1 ? threads - 1 : 0); }

static int take_helpers(int want)
{
    int have = atomic_load(&g_budget);
    while (have > 0) {
        int take = have < want ? have : want;
        if (atomic_compare_exchange_weak(&g_budget, &have, have - take))
            return take;
    }
    return 0;
}

static void *helper(void *arg)
{
    lane *ln = arg;
    struct sweep_lanes *l = ln->owner;
    unsigned long long seen = 0;
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->quit && l->span == seen)
            pthread_cond_wait(&l->go, &l->mu);
        if (l->quit)
            break;
        seen = l->span;
        pthread_mutex_unlock(&l->mu);
        sb_reset(&ln->row.buf);
        for (unsigned long long p = ln->from; p < ln->to; p++)
            sweep_write_row(&ln->row, p);
        pthread_mutex_lock(&l->mu);
        l->failed |= ln->row.buf.oom;
        if (--l->busy == 0)
            pthread_cond_signal(&l->done);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

static void lane_release(lane *ln)
{
    free(ln->row.in); /* a shallow copy: what it points to is the stream's */
    free(ln->row.out);
    free(ln->row.lane_vals);
    free(ln->row.lane_failed);
    sb_free(&ln->row.buf);
}

sweep_lanes *sweep_lanes_start(sweep_stream *st, int threads)
{
    if (threads < 2 || st->end - st->next < 8ull * LANE_POINTS)
        return NULL;
    int n = take_helpers(threads - 1);
    if (n == 0)
        return NULL;
    struct sweep_lanes *l = calloc(1, sizeof *l);
    lane *lanes = l ? calloc((size_t)n, sizeof *lanes) : NULL;
    if (!lanes) {
        free(l);
        atomic_fetch_add(&g_budget, n);
        return NULL;
    }
    l->lanes = lanes;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->go, NULL);
    pthread_cond_init(&l->done, NULL);
    for (int i = 0; i < n; i++) {
        lane *ln = &lanes[i];
        ln->owner = l;
        ln->row = *st;
        ln->row.lanes = NULL;
        ln->row.owned = NULL;
        ln->row.window = NULL; /* the stream's: its lanes keep values instead (lane_vals) */
        ln->row.lane_vals = NULL;
        ln->row.lane_failed = NULL;
        sb_init(&ln->row.buf);
        ln->row.in = malloc(sizeof *st->in);
        ln->row.out = sweep_new_outputs();
        bool keep = st->window != NULL;
        if (keep) {
            ln->row.lane_vals = malloc(LANE_POINTS * (size_t)st->n_cat * sizeof *ln->row.lane_vals);
            ln->row.lane_failed = malloc(LANE_POINTS * sizeof *ln->row.lane_failed);
        }
        if (!ln->row.in || !ln->row.out || (keep && (!ln->row.lane_vals || !ln->row.lane_failed))) {
            lane_release(ln);
            break;
        }
        memcpy(ln->row.in, st->in, sizeof *st->in);
        if (pthread_create(&ln->thread, NULL, helper, ln) != 0) {
            lane_release(ln);
            break;
        }
        l->n++;
    }
    atomic_fetch_add(&g_budget, n - l->n); /* helpers that could not start */
    if (l->n == 0) {
        sweep_lanes_free(l);
        return NULL;
    }
    l->served = l->n + 1; /* no span yet: nothing to hand out */
    metrics_sweep_helpers(l->n);
    return l;
}

bool sweep_lanes_next(sweep_lanes *l, strbuf *buf)
{
    if (l->served > l->n)
        return false;
    lane *ln = &l->lanes[l->served - 1];
    strbuf spent = *buf; /* the part the reader has sent: the lane writes its next one there */
    *buf = ln->row.buf;
    ln->row.buf = spent;
    l->served++;
    return true;
}

unsigned long long sweep_lanes_span(sweep_stream *st, sweep_lanes *l)
{
    unsigned long long left = st->end - st->next;
    unsigned long long per = LANE_POINTS;
    if (left < per * (unsigned long long)(l->n + 1))
        per = (left + (unsigned long long)l->n) / (unsigned long long)(l->n + 1);
    unsigned long long from = st->next, mine_to = from + per < st->end ? from + per : st->end;
    pthread_mutex_lock(&l->mu);
    unsigned long long at = mine_to;
    l->busy = 0;
    for (int i = 0; i < l->n; i++) {
        lane *ln = &l->lanes[i];
        ln->from = at;
        ln->to = at + per < st->end ? at + per : st->end;
        ln->row.lane_from = at;
        at = ln->to;
        l->busy++;
    }
    l->span++;
    pthread_cond_broadcast(&l->go);
    pthread_mutex_unlock(&l->mu);
    for (unsigned long long p = from; p < mine_to; p++)
        sweep_write_row(st, p);
    pthread_mutex_lock(&l->mu);
    while (l->busy > 0)
        pthread_cond_wait(&l->done, &l->mu);
    bool failed = l->failed;
    pthread_mutex_unlock(&l->mu);
    l->served = 1;
    st->next = at;
    if (failed)
        st->buf.oom = true;
    for (int i = 0; st->window && i < l->n; i++) { /* the lanes' points, in order, after the caller's */
        const lane *ln = &l->lanes[i];
        for (unsigned long long p = ln->from; p < ln->to; p++) {
            size_t idx[MAX_AXES];
            for (int a = 0; a < st->n_axes; a++)
                idx[a] = sweep_axis_index(st, a, p);
            size_t k = (size_t)(p - ln->from);
            sweep_track_values(st, p, idx, ln->row.lane_failed[k], ln->row.lane_vals + k * (size_t)st->n_cat);
        }
    }
    return at - from;
}

void sweep_lanes_free(sweep_lanes *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    l->quit = true;
    pthread_cond_broadcast(&l->go);
    pthread_mutex_unlock(&l->mu);
    for (int i = 0; i < l->n; i++) {
        pthread_join(l->lanes[i].thread, NULL);
        lane_release(&l->lanes[i]);
    }
    atomic_fetch_add(&g_budget, l->n);
    metrics_sweep_helpers(-l->n);
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->go);
    pthread_cond_destroy(&l->done);
    free(l->lanes);
    free(l);
}
