/* test_sweep_stream.c - a sweep's body does not depend on how its reader asks for it.
 *
 * sweep_stream_read writes rows straight into a reader's block when the block is large
 * (sb_borrow: the strbuf over the caller's memory, moved to the heap when a row does not
 * fit) and through its own buffer otherwise. The same sweep read with blocks of very
 * different sizes must give the same bytes, in every format; and a borrowed strbuf keeps
 * every byte when it outgrows the caller's memory. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "app_fixture.h"
#include "server/reply.h"
#include "server/strbuf.h"

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

/* The whole body of POST /sweep, read `block` bytes at a time. */
static char *read_sweep(const char *fmt, size_t block, size_t *len)
{
    char body[600];
    snprintf(body, sizeof body,
             "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"precision\":"
             "\"fp16\"},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":200,\"step\":1}},"
             "{\"input\":\"efficiency\",\"geomspace\":{\"start\":0.01,\"stop\":1,\"count\":100}}],\"format\":\"%s\"}",
             fmt);
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
