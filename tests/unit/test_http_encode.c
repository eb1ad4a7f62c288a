/* test_http_encode.c - the gzip adapter (server/http_encode.h): which answers
 * it validates and encodes, and that an encoded body decodes to the original. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "server/http_encode.h"
#include "server/reply.h"
#include "server/route.h"

static const route GZ = {.pattern = "/x", .flags = ROUTE_GZIP};
static const route GZ_CACHED = {.pattern = "/y", .flags = ROUTE_GZIP | ROUTE_CACHEABLE};
static const route PLAIN = {.pattern = "/z", .flags = 0};

/* A 200 JSON answer of n bytes on rt. */
static void answer(app_response *r, const route *rt, size_t n)
{
    memset(r, 0, sizeof *r);
    sb_init(&r->body);
    r->status = 200;
    r->content_type = "application/json";
    r->route = rt;
    sb_putc(&r->body, '[');
    while (r->body.len + 3 < n)
        sb_puts(&r->body, "1,");
    sb_puts(&r->body, "1]");
}

Test(http_encode, large_json_of_a_gzip_route_is_encoded_and_decodes_back)
{
    app_response r;
    answer(&r, &GZ, 4096);
    char *plain = strndup(r.body.data, r.body.len);
    size_t plain_len = r.body.len;
    http_encode(NULL, "gzip, br", &r);
    cr_assert_str_eq(r.content_encoding ? r.content_encoding : "(none)", "gzip");
    cr_assert_lt(r.body.len, plain_len / 4);
    char *out = malloc(plain_len + 1);
    z_stream z = {0};
    cr_assert_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    z.next_in = (Bytef *)r.body.data;
    z.avail_in = (uInt)r.body.len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)plain_len + 1;
    cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
    cr_assert_eq(z.total_out, plain_len);
    cr_assert_eq(memcmp(out, plain, plain_len), 0);
    inflateEnd(&z);
    free(out);
    free(plain);
    app_response_free(&r);
}

Test(http_encode, what_is_left_plain)
{
    static const struct {
        const route *rt;
        size_t n;
        const char *accept_encoding;
        int status;
        const char *why;
    } cases[] = {
        {&GZ, 4096, NULL, 200, "no Accept-Encoding"},
        {&GZ, 4096, "gzip;q=0", 200, "gzip refused"},
        {&GZ, HTTP_GZIP_MIN - 1, "gzip", 200, "below HTTP_GZIP_MIN"},
        {&PLAIN, 4096, "gzip", 200, "a route without ROUTE_GZIP"},
        {&GZ, 4096, "gzip", 404, "not a 200"},
        {NULL, 4096, "gzip", 200, "no route"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        app_response r;
        answer(&r, cases[i].rt, cases[i].n);
        r.status = cases[i].status;
        size_t len = r.body.len;
        http_encode(NULL, cases[i].accept_encoding, &r);
        cr_expect_null(r.content_encoding, "%s: encoded", cases[i].why);
        cr_expect_eq(r.body.len, len, "%s: body changed", cases[i].why);
        app_response_free(&r);
    }
}

static size_t no_read(void *ctx, char *buf, size_t max)
{
    (void)ctx;
    (void)buf;
    (void)max;
    return 0;
}
static void no_free(void *ctx) { (void)ctx; }

Test(http_encode, a_stream_is_only_marked)
{
    app_response r = {0};
    sb_init(&r.body);
    int token;
    reply_stream(&r, "text/csv; charset=utf-8", no_read, no_free, &token);
    r.route = &GZ_CACHED;
    http_encode("\"anything\"", "gzip", &r);
    cr_assert_str_eq(r.content_encoding ? r.content_encoding : "(none)", "gzip");
    cr_assert_eq(r.status, 200, "a stream is never a 304");
    cr_assert_eq(r.stream.ctx, &token);
    app_response_free(&r);
}

Test(http_encode, a_cacheable_answer_gets_its_etag_and_a_304)
{
    app_response r;
    answer(&r, &GZ_CACHED, 4096);
    http_encode(NULL, NULL, &r);
    cr_assert(r.etag[0], "no ETag");
    char etag[sizeof r.etag];
    memcpy(etag, r.etag, sizeof etag);
    app_response_free(&r);
    answer(&r, &GZ_CACHED, 4096);
    http_encode(etag, "gzip", &r);
    cr_assert_eq(r.status, 304);
    cr_assert_null(r.content_encoding);
    app_response_free(&r);
    /* encoded: the gzip variant of the ETag */
    answer(&r, &GZ_CACHED, 4096);
    http_encode(NULL, "gzip", &r);
    cr_assert_str_eq(r.content_encoding ? r.content_encoding : "(none)", "gzip");
    cr_assert_str_neq(r.etag, etag);
    app_response_free(&r);
}
