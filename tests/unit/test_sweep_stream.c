/* test_sweep_stream.c - a sweep's body does not depend on how its reader asks for it,
 * nor on how many threads write its rows.
 *
 * sweep_stream_read writes rows straight into a reader's block when the block is large
 * (sb_borrow: the strbuf over the caller's memory, moved to the heap when a row does not
 * fit) and through its own buffer otherwise. The same sweep read with blocks of very
 * different sizes must give the same bytes, in every format; and a borrowed strbuf keeps
 * every byte when it outgrows the caller's memory. With --sweep-threads above 1 a long
 * sweep's rows are written by helper threads too (sweep_lanes.c): the body must be the
 * one a single thread writes, byte for byte, whatever the formats, errors, index and
 * shard. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "app_fixture.h"
#include "server/metrics.h"
#include "server/reply.h"
#include "server/strbuf.h"
#include "server/sweep.h"

Test(sweep_stream, borrowed_strbuf_moves_to_the_heap_whole)
{
    char mem[16];
    strbuf b;
    sb_borrow(&b, mem, sizeof mem);
    sb_puts(&b, "0123456789");
    cr_assert(b.borrowed);
    cr_assert_eq(b.data, mem);
    cr_assert_str_eq(mem, "0123456789");
    sb_puts(&b, "abcdefghij"); /* 20 bytes: past the caller's 16 */
    cr_assert_not(b.borrowed);
    cr_assert_neq(b.data, mem);
    cr_assert_str_eq(b.data, "0123456789abcdefghij");
    cr_assert_eq(b.len, 20);
    sb_free(&b);

    sb_borrow(&b, mem, sizeof mem);
    sb_puts(&b, "kept");
    sb_free(&b); /* the caller's memory: not freed (ASan would say so) */
    cr_assert_str_eq(mem, "kept");
}

/* The whole body of POST /sweep `body`, read `block` bytes at a time. */
static char *read_body(const char *body, size_t block, size_t *len)
{
    app_request req = {.method = "POST", .path = "/sweep", .content_type = "application/json", .request_id = "t"};
    req.body = body;
    req.body_len = strlen(body);
    app_response resp = {0};
    sb_init(&resp.body);
    app_handle(&fixture_app, &req, &resp);
    cr_assert_eq(resp.status, 200, "%s", resp.body.data ? resp.body.data : "");
    cr_assert_not_null(resp.stream.ctx);
    strbuf out;
    sb_init(&out);
    char *buf = malloc(block);
    size_t n;
    while ((n = resp.stream.read(resp.stream.ctx, buf, block)) > 0) {
        cr_assert_neq(n, STREAM_FAILED);
        cr_assert_leq(n, block);
        sb_append(&out, buf, n);
    }
    free(buf);
    app_response_free(&resp);
    cr_assert_not(out.oom);
    return sb_detach(&out, len);
}

static char *read_sweep(const char *fmt, size_t block, size_t *len)
{
    char body[600];
    snprintf(body, sizeof body,
             "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"precision\":"
             "\"fp16\"},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":200,\"step\":1}},"
             "{\"input\":\"efficiency\",\"geomspace\":{\"start\":0.01,\"stop\":1,\"count\":100}}],\"format\":\"%s\"}",
             fmt);
    return read_body(body, block, len);
}

Test(sweep_stream, same_bytes_whatever_the_block_size, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    static const char *const formats[] = {"csv", "json", "ndjson"};
    static const size_t blocks[] = {1, 97, 16383, 16384, 20000, 65536, 130607, 1 << 20};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        size_t ref_len;
        char *ref = read_sweep(formats[f], 4096, &ref_len);
        cr_assert_gt(ref_len, 100000, "%s: %zu bytes", formats[f], ref_len);
        for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
            size_t len;
            char *got = read_sweep(formats[f], blocks[k], &len);
            cr_assert_eq(len, ref_len, "%s, blocks of %zu: %zu bytes, %zu with blocks of 4096", formats[f], blocks[k],
                         len, ref_len);
            cr_assert(!memcmp(got, ref, len), "%s, blocks of %zu: other bytes", formats[f], blocks[k]);
            free(got);
        }
        free(ref);
    }
}

/* mlsysd_sweep_helper_threads as /metrics states it. */
static long helpers_now(void)
{
    strbuf b;
    sb_init(&b);
    metrics_render(&b);
    const char *at = strstr(b.data, "\nmlsysd_sweep_helper_threads ");
    long n = at ? strtol(at + strlen("\nmlsysd_sweep_helper_threads "), NULL, 10) : -1;
    sb_free(&b);
    return n;
}

static void use_threads(int threads)
{
    fixture_app.sweep_threads = threads;
    sweep_set_threads(threads);
}

Test(sweep_stream, same_bytes_on_one_thread_or_several, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    /* 30,000 points, some failing (batch_size 0 is out of bounds), across formats and members */
    static const char *const bodies[] = {
        "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"precision\":"
        "\"fp16\"},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":0,\"stop\":299,\"step\":1}},"
        "{\"input\":\"efficiency\",\"geomspace\":{\"start\":0.01,\"stop\":1,\"count\":100}}],\"format\":\"%s\"%s}",
        "{\"solver\":\"serving\",\"calibration\":\"measured\",\"inputs\":{\"model\":\"Llama3_70B\",\"hardware\":"
        "\"H100\",\"precision\":\"fp8\",\"seq_len\":2048},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":3000,"
        "\"step\":1}},{\"input\":\"tp\",\"values\":[1,2,4,8,16,32,64,128,256,512]}],\"format\":\"%s\"%s}",
    };
    static const char *const formats[] = {"csv", "ndjson", "json"};
    static const char *const extras[] = {"", ",\"index\":true", ",\"shard\":{\"index\":1,\"count\":3}",
                                         ",\"outputs\":[%s]"};
    /* numeric outputs only: JSON of these has no transitions, so its rows go to helpers too */
    static const char *const numeric_output[] = {"\"latency\",\"throughput\"", "\"ttft\",\"itl\""};
    for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++)
        for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
            for (size_t x = 0; x < sizeof extras / sizeof extras[0]; x++) {
                char extra[128], body[1024];
                snprintf(extra, sizeof extra, extras[x], numeric_output[b]);
                snprintf(body, sizeof body, bodies[b], formats[f], extra);
                use_threads(1);
                size_t ref_len;
                char *ref = read_body(body, 65536, &ref_len);
                cr_assert_gt(ref_len, 100000, "%s: %zu bytes", body, ref_len);
                static const int threads[] = {2, 3, 5};
                for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
                    use_threads(threads[t]);
                    size_t len;
                    char *got = read_body(body, t == 1 ? 4096 : 65536, &len);
                    cr_assert(len == ref_len && !memcmp(got, ref, len),
                              "%d threads: other bytes (%zu, %zu on one thread) for %s", threads[t], len, ref_len, body);
                    free(got);
                }
                free(ref);
            }
}

/* Two sweeps at once share the daemon's helpers: neither waits for the other's, and
 * both bodies are whole. */
Test(sweep_stream, concurrent_sweeps_share_the_helpers, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    use_threads(2); /* one helper for the daemon: the first sweep takes it, the second runs alone */
    const char *body = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\","
                       "\"precision\":\"fp16\"},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,"
                       "\"stop\":200,\"step\":1}},{\"input\":\"efficiency\",\"geomspace\":{\"start\":0.01,\"stop\":1,"
                       "\"count\":100}}],\"format\":\"csv\"}";
    size_t ref_len;
    char *ref = read_body(body, 65536, &ref_len);
    app_request req = {.method = "POST", .path = "/sweep", .content_type = "application/json", .request_id = "t"};
    req.body = body;
    req.body_len = strlen(body);
    app_response r[2] = {{0}};
    strbuf out[2];
    for (int i = 0; i < 2; i++) {
        sb_init(&r[i].body);
        sb_init(&out[i]);
        app_handle(&fixture_app, &req, &r[i]);
        cr_assert_eq(r[i].status, 200);
    }
    char buf[8192];
    bool more[2] = {true, true};
    for (int round = 0; more[0] || more[1]; round++) { /* the two read in turns */
        for (int i = 0; i < 2; i++) {
            size_t n = more[i] ? r[i].stream.read(r[i].stream.ctx, buf, sizeof buf) : 0;
            cr_assert_neq(n, STREAM_FAILED);
            more[i] = n > 0;
            sb_append(&out[i], buf, n);
        }
        if (round == 0)
            cr_assert_eq(helpers_now(), 1, "the daemon's one helper, taken by one of the two sweeps");
    }
    for (int i = 0; i < 2; i++) {
        cr_assert(out[i].len == ref_len && !memcmp(out[i].data, ref, ref_len), "sweep %d: other bytes", i);
        app_response_free(&r[i]);
        sb_free(&out[i]);
    }
    cr_assert_eq(helpers_now(), 0, "helpers given back when the sweeps are freed");
    free(ref);
}

/* A sweep of at most 256 points is answered whole (resp.body, no stream), with the
 * bytes its stream would give; one point more is streamed. */
Test(sweep_stream, small_sweeps_are_answered_whole, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    static const char *const formats[] = {"csv", "json", "ndjson"};
    static const int points[] = {1, 8, 256, 257};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
            char body[512];
            snprintf(body, sizeof body,
                     "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"Llama3_70B\",\"hardware\":\"A100\","
                     "\"precision\":\"fp16\"},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,"
                     "\"stop\":%d,\"step\":1}}],\"format\":\"%s\"}",
                     points[k], formats[f]);
            app_request req = {.method = "POST", .path = "/sweep", .content_type = "application/json", .request_id = "t"};
            req.body = body;
            req.body_len = strlen(body);
            /* the stream, read to its end */
            app_response s = {0};
            sb_init(&s.body);
            cr_assert_eq(sweep_start(&fixture_app, &req, NULL, &s), 0);
            cr_assert_not_null(s.stream.ctx);
            strbuf streamed;
            sb_init(&streamed);
            char buf[4096];
            size_t n;
            while ((n = s.stream.read(s.stream.ctx, buf, sizeof buf)) > 0 && n != STREAM_FAILED)
                sb_append(&streamed, buf, n);
            cr_assert_eq(n, 0);
            app_response_free(&s);
            /* the route's answer */
            app_response r = {0};
            sb_init(&r.body);
            app_handle(&fixture_app, &req, &r);
            cr_assert_eq(r.status, 200, "%s", r.body.data ? r.body.data : "");
            if (points[k] <= 256) {
                cr_assert_null(r.stream.ctx, "%s, %d points: streamed", formats[f], points[k]);
                cr_assert(r.body.len == streamed.len && !memcmp(r.body.data, streamed.data, streamed.len),
                          "%s, %d points: %zu bytes whole, %zu streamed", formats[f], points[k], r.body.len,
                          streamed.len);
            } else {
                cr_assert_not_null(r.stream.ctx, "%s, %d points: answered whole", formats[f], points[k]);
            }
            app_response_free(&r);
            sb_free(&streamed);
        }
    }
}
