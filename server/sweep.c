/* sweep.c - /sweep: one solver over the cartesian product of axes, streamed
 * as JSON, CSV or NDJSON from a callback, with the crossovers ("transitions")
 * of every categorical output. Generic: knows no solver by name.
 *
 * Memory does not grow with the number of points: range and geomspace values
 * are computed when a row needs them, listed values are bounded by the request
 * body, and rows are produced one chunk at a time. The one exception is JSON
 * transitions, which compare each point with its neighbour one step back on
 * every axis: that needs a window of one byte per categorical output per point
 * reaching back one step of the outermost varying axis. It is capped; past the
 * cap the response says transitions were omitted.
 *
 * A long sweep's rows are written by helper threads as well (sweep_lanes.c,
 * --sweep-threads): each span of points is cut into parts written at once and
 * sent in point order, so the body is the same byte for byte (a JSON sweep's
 * transitions are tracked in point order by the stream itself).
 *
 * Shards: `shard: {index, count}` (GET: shard=3/16) computes one of `count`
 * contiguous runs of the points, so that the shards' CSV or NDJSON bodies,
 * concatenated in index order, are byte for byte the unsharded body: shard 0
 * alone carries the CSV header or the NDJSON units line, and no shard repeats
 * anything else. A JSON
 * shard is a whole document of its own rows (see sweep_write_header in sweep_format.c). The point cap
 * applies to one shard's points, the work of one request. `index: true` puts
 * each point's global number first in its row.
 *
 * This file: the request to a stream (handle_sweep, sweep_start) and the
 * stream's stages (header, rows, trailer); the rest of the sweep is in the
 * files sweep_internal.h lists. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "server/sweep_internal.h"

#include "server/body.h"
#include "server/metrics.h"
#include "server/reply.h"

void sweep_stream_free(sweep_stream *st)
{
    if (!st)
        return;
    sweep_lanes_free(st->lanes); /* first: the helpers read what is freed below */
    for (int a = 0; a < MAX_AXES; a++) {
        free(st->axes[a].vals);
        free(st->axes[a].geo);
        json_decref(st->axes[a].member_vals);
        json_decref(st->axes[a].first_obj);
        free(st->axes[a].texts);
        free(st->axes[a].texts_buf);
    }
    input_store_free(&st->owned);
    if (st->in)
        inputs_release(st->in);
    free(st->in);
    free(st->out);
    free(st->window);
    free(st->interned);
    free(st->trans);
    sb_free(&st->buf);
    sb_free(&st->nd_keys);
    free(st);
}

static size_t stream_read(void *ctx, char *buf, size_t max) { return sweep_stream_read(ctx, buf, max); }
static void stream_free(void *ctx) { sweep_stream_free(ctx); }

/* A sweep of at most this many points (in its shard) is written whole before it
 * is sent: one send with a Content-Length instead of a chunked stream's header,
 * chunk and last chunk (three sends, and three wake-ups of the client, for a
 * body of a few KB). Its rows are at most a few KB each, so the body is small. */
#define SWEEP_BUFFERED_POINTS 256

void handle_sweep(app *a, const app_request *req, app_response *resp, const char *solver_name)
{
    if (sweep_start(a, req, solver_name, resp) != 0 || !resp->stream.ctx)
        return;
    sweep_stream *st = resp->stream.ctx;
    if (st->end - st->first > SWEEP_BUFFERED_POINTS)
        return;
    sb_reset(&resp->body);
    size_t n = SWEEP_STREAM_FAILED;
    do {
        if (!sb_reserve(&resp->body, 16384))
            break;
        n = sweep_stream_read(st, resp->body.data + resp->body.len, resp->body.cap - resp->body.len - 1);
        if (n != SWEEP_STREAM_FAILED)
            resp->body.len += n;
    } while (n != 0 && n != SWEEP_STREAM_FAILED);
    bool whole = !resp->body.oom && n == 0;
    sweep_stream_free(st);
    resp->stream = (body_stream){0};
    if (whole) {
        resp->body.data[resp->body.len] = '\0';
        return;
    }
    resp->disposition[0] = '\0'; /* the problem is not the CSV file sweep_start named */
    api_error err;
    api_fail(&err, 503, "overloaded", "", "out of memory while writing the sweep");
    app_problem(resp, req, &err);
}

/* A body's members past the envelope: format, outputs, index, shard, then
 * the space (axes and inputs). */
static int read_body(sweep_stream *st, const app_request *req, const json_t *body, unsigned long long cap,
                     api_error *err)
{
    const json_t *jf = json_object_get(body, "format");
    if (jf && !json_is_string(jf))
        return api_fail(err, 400, "invalid-input", "format", "format must be json, csv or ndjson");
    bool ok;
    st->fmt = sweep_format_from(json_string_value(jf), req->accept, &ok);
    if (!ok)
        return api_fail(err, 400, "invalid-input", "format", "format must be json, csv or ndjson, got '%.40s'",
                        json_string_value(jf));
    if (sweep_parse_outputs(st, json_object_get(body, "outputs"), err) != 0)
        return -1;
    const json_t *jx = json_object_get(body, "index");
    if (jx && !json_is_boolean(jx))
        return api_fail(err, 400, "invalid-input", "index",
                        "index must be true or false (true: rows start with the point's index)");
    st->with_index = json_is_true(jx);
    if (sweep_parse_shard(st, json_object_get(body, "shard"), err) != 0)
        return -1;
    return sweep_parse_space(st, body, cap, err);
}

int sweep_start(app *a, const app_request *req, const char *solver_name, app_response *resp)
{
    api_error err;
    json_t *body = NULL;
    unsigned long long cap = (unsigned long long)a->cfg->sweep_max_points;
    sweep_stream *st = calloc(1, sizeof *st);
    if (!st) {
        api_fail(&err, 503, "overloaded", "", "out of memory");
        app_problem(resp, req, &err);
        return -1;
    }
    sb_init(&st->buf);
    solver_request r;
    if (solver_name) {
        /* GET /sweep/{solver}: the query, read straight into the sweep */
        st->from_query = true;
        if (front_read_query(a, solver_name, req, &r, &err) != 0)
            goto fail;
    } else {
        body = app_parse_body(req, &err);
        if (!body)
            goto fail;
        const char *key;
        json_t *val;
        json_object_foreach(body, key, val) {
            if (strcmp(key, "solver") && strcmp(key, "inputs") && strcmp(key, "axes") && strcmp(key, "outputs") &&
                strcmp(key, "format") && strcmp(key, "catalog") && strcmp(key, "calibration") &&
                strcmp(key, "shard") && strcmp(key, "index")) {
                api_fail(&err, 400, "unknown-field", key,
                         "unknown field '%.80s'; a /sweep body has solver, inputs, axes, outputs, format, catalog, "
                         "calibration, shard and index",
                         key);
                goto fail;
            }
        }
        if (front_read_body(a, body, &r, &err) != 0)
            goto fail;
    }
    st->s = r.s;
    st->solver_index = (unsigned)r.index;
    st->ed = r.ed;
    st->calibration = r.calibration;
    const solver_desc *s = st->s;
    if (st->from_query ? sweep_read_query(st, req, cap, &err) != 0 : read_body(st, req, body, cap, &err) != 0)
        goto fail;
    st->in->calibration = st->calibration;
    json_decref(body);
    body = NULL;
    for (int k = 0; k < st->n_out; k++)
        for (int i = 0; i < st->n_axes; i++)
            if (!strcmp(s->outputs[st->out_cols[k]].name, st->axes[i].label))
                st->qualified[k] = true;
    if (st->fmt == FMT_JSON)
        sweep_setup_transitions(st);
    clock_gettime(CLOCK_MONOTONIC, &st->t0);
    st->timeout = a->cfg->request_timeout;
    st->lane_threads = a->sweep_threads;
    reply_stream(resp,
                 st->fmt == FMT_CSV      ? (st->shard_index ? "text/csv; charset=utf-8; header=absent"
                                                            : "text/csv; charset=utf-8; header=present")
                 : st->fmt == FMT_NDJSON ? "application/x-ndjson"
                                         : "application/json",
                 stream_read, stream_free, st);
    /* a row is at least ~64 bytes: a small sweep gets a small send block */
    resp->stream.size_hint = (size_t)((st->end - st->first) * 64 + 1024);
    if (st->fmt == FMT_CSV && st->shard_count)
        snprintf(resp->disposition, sizeof resp->disposition, "attachment; filename=\"sweep-%s.part-%llu-of-%llu.csv\"",
                 s->name, st->shard_index, st->shard_count);
    else if (st->fmt == FMT_CSV)
        snprintf(resp->disposition, sizeof resp->disposition, "attachment; filename=\"sweep-%s.csv\"", s->name);
    return 0;
fail:
    json_decref(body);
    sweep_stream_free(st);
    app_problem(resp, req, &err);
    return -1;
}

bool sweep_timed_out(sweep_stream *st)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double el = (double)(t.tv_sec - st->t0.tv_sec) + (double)(t.tv_nsec - st->t0.tv_nsec) / 1e9;
    return el > st->timeout;
}

/* Rows go straight into a reader's block of at least DIRECT_MIN bytes (sb_borrow) and stop
 * once less than ROW_ROOM is left (a longer row moves the piece to the heap, copied); a block
 * whose free part is below DIRECT_MIN is returned as it is. */
#define DIRECT_MIN 16384
#define ROW_ROOM 4096

/* The next piece of the body into st->buf: the header, up to CHUNK bytes of rows (or the
 * borrowed block, less ROW_ROOM), or the trailer; false once the trailer is out. */
static bool produce(sweep_stream *st)
{
    sb_reset(&st->buf);
    st->buf_pos = 0;
    if (st->stage == 3)
        return false;
    if (st->lanes && sweep_lanes_next(st->lanes, &st->buf))
        return true; /* a helper's part of the last span, in point order */
    if (st->stage == 0) {
        sweep_write_header(st);
        st->stage = 1;
        st->lanes = sweep_lanes_start(st, st->lane_threads);
    } else if (st->stage == 1) {
        unsigned long long start = st->next;
        if (st->lanes) {
            if (sweep_timed_out(st))
                st->timed_out = true;
            else
                sweep_lanes_span(st, st->lanes);
        } else {
            size_t limit = st->buf.borrowed ? st->buf.cap - ROW_ROOM : CHUNK;
            while (st->next < st->end && st->buf.len < limit) {
                sweep_write_row(st, st->next);
                st->next++;
                if ((st->next & 1023) == 0 && sweep_timed_out(st)) {
                    st->timed_out = true;
                    break;
                }
            }
        }
        metrics_sweep_points(st->next - start);
        if (st->next >= st->end || st->timed_out)
            st->stage = 2;
    } else {
        sweep_write_trailer(st);
        st->stage = 3;
    }
    return true;
}

/* Fills `out` (the sender's whole block: one write to the socket per block, not per CHUNK),
 * rows written in place where it has room for them. */
size_t sweep_stream_read(sweep_stream *st, char *out, size_t max)
{
    size_t n = 0;
    while (n < max) {
        if (st->buf_pos >= st->buf.len && st->stage == 1 && max >= DIRECT_MIN && !st->buf.oom && !st->lanes) {
            if (max - n < DIRECT_MIN)
                break; /* the block is all but full: the next rows go in place into the next one */
            strbuf heap = st->buf;
            sb_borrow(&st->buf, out + n, max - n);
            produce(st);
            if (st->buf.oom) { /* the piece is cut: dropped; the next call fails */
                if (st->buf.borrowed)
                    st->buf = heap;
                else
                    sb_free(&heap);
                st->buf.oom = true;
                st->buf_pos = st->buf.len;
                return n ? n : SWEEP_STREAM_FAILED;
            }
            if (st->buf.borrowed) { /* in place: nothing to copy */
                n += st->buf.len;
                st->buf = heap;
                sb_reset(&st->buf);
                st->buf_pos = 0;
            } else {
                sb_free(&heap); /* a row did not fit: the piece moved to the heap, copied below */
            }
            continue;
        }
        if (st->buf_pos >= st->buf.len) {
            if (!produce(st))
                break;
            if (st->buf.oom) { /* the piece is cut: dropped; what was copied goes first, the next call fails */
                st->buf_pos = st->buf.len;
                return n ? n : SWEEP_STREAM_FAILED;
            }
            continue;
        }
        size_t k = st->buf.len - st->buf_pos;
        if (k > max - n)
            k = max - n;
        memcpy(out + n, st->buf.data + st->buf_pos, k);
        st->buf_pos += k;
        n += k;
    }
    return n;
}
