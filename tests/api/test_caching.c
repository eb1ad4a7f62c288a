/* test_caching.c - validators and compression over HTTP (server/conditional.c,
 * server/gzip.c): every answer fixed by the build and the catalog edition
 * (/catalog..., /solvers..., /openapi.*, the dashboard's files) carries a strong
 * ETag, Cache-Control: no-cache and Vary: Accept-Encoding, and If-None-Match
 * (one tag, a list, a weak tag, "*", the tag of the other encoding) makes it a
 * 304; /solve and sweeps stay no-store. A client that accepts gzip (q > 0, or
 * "*") gets the same bytes gzip-encoded, streamed sweeps included; q=0 or no
 * Accept-Encoding gets them plain. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"

static const char *const STATIC_PATHS[] = {
    "/catalog", "/catalog?catalog=tutorial", "/catalog?group=Cloud", "/catalog/hardware", "/catalog/hardware/a100",
    "/catalog/models/ResNet50?catalog=tutorial", "/catalog/fabrics", "/solvers", "/solvers/single_node",
    "/solvers/SingleNodeModel", "/openapi.json", "/openapi.yaml", "/ui/dashboard.js", "/ui/index.html",
};

/* The gzip member body[0, len) inflated (NUL-terminated), or NULL. */
static char *gunzip(const char *body, size_t len, size_t *out_len)
{
    z_stream z = {0};
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return NULL;
    size_t cap = len * 4 + 1024;
    char *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)body;
    z.avail_in = (uInt)len;
    int rc = Z_OK;
    while (out && rc == Z_OK) {
        if (z.total_out + 1 >= cap) {
            cap *= 2;
            out = realloc(out, cap);
        }
        z.next_out = (Bytef *)out + z.total_out;
        z.avail_out = (uInt)(cap - 1 - z.total_out);
        rc = inflate(&z, Z_NO_FLUSH);
    }
    *out_len = z.total_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || z.avail_in != 0) {
        free(out);
        return NULL;
    }
    out[*out_len] = '\0';
    return out;
}

static long get_with(const char *path, const char *h1, const char *h2, http_resp *r)
{
    const char *const hdr[] = {h1, h2, NULL};
    cr_assert_eq(http_request(shared_daemon(), "GET", path, h1 ? hdr : NULL, NULL, 0, r), 0, "%s", path);
    return r->status;
}

Test(caching, static_answers_carry_a_strong_etag_and_revalidate)
{
    for (size_t i = 0; i < sizeof STATIC_PATHS / sizeof STATIC_PATHS[0]; i++) {
        const char *p = STATIC_PATHS[i];
        http_resp r;
        cr_assert_eq(get_with(p, NULL, NULL, &r), 200, "%s", p);
        char etag[64], cc[64], vary[64], enc[32];
        cr_assert(http_header(&r, "ETag", etag, sizeof etag), "%s has an ETag", p);
        cr_assert(etag[0] == '"' && etag[strlen(etag) - 1] == '"', "%s: a strong tag, got %s", p, etag);
        cr_assert(http_header(&r, "Cache-Control", cc, sizeof cc));
        cr_assert_str_eq(cc, "no-cache", "%s revalidates", p);
        cr_assert(http_header(&r, "Vary", vary, sizeof vary) && strstr(r.headers, "Vary: Accept-Encoding"), "%s", p);
        cr_assert(!http_header(&r, "Content-Encoding", enc, sizeof enc), "%s: plain without Accept-Encoding", p);
        http_free(&r);

        char weak[80], list[120], other[80];
        snprintf(weak, sizeof weak, "If-None-Match: W/%s", etag);
        snprintf(list, sizeof list, "If-None-Match: \"0123\", W/\"x\",%s", etag);
        snprintf(other, sizeof other, "If-None-Match: %.*s-gzip\"", (int)strlen(etag) - 1, etag);
        char exact[80];
        snprintf(exact, sizeof exact, "If-None-Match: %s", etag);
        const char *const MATCH[] = {exact, weak, list, other, "If-None-Match: *"};
        for (size_t k = 0; k < sizeof MATCH / sizeof MATCH[0]; k++) {
            cr_assert_eq(get_with(p, MATCH[k], NULL, &r), 304, "%s with %s", p, MATCH[k]);
            cr_assert_eq(r.len, 0);
            char e2[64];
            cr_assert(http_header(&r, "ETag", e2, sizeof e2));
            cr_assert_str_eq(e2, etag, "%s: a 304 names the representation", p);
            cr_assert(!http_header(&r, "Content-Type", e2, sizeof e2), "%s: a 304 has no representation metadata", p);
            http_free(&r);
        }
        const char *const MISS[] = {"If-None-Match: \"0000000000000000\"", "If-None-Match: \"a\", \"b\"",
                                    "If-None-Match: garbage"};
        for (size_t k = 0; k < sizeof MISS / sizeof MISS[0]; k++) {
            cr_assert_eq(get_with(p, MISS[k], NULL, &r), 200, "%s with %s", p, MISS[k]);
            http_free(&r);
        }
        /* HEAD: the same validators, no body */
        const char *const hdr[] = {exact, NULL};
        cr_assert_eq(http_request(shared_daemon(), "HEAD", p, hdr, NULL, 0, &r), 0);
        cr_assert_eq(r.status, 304, "HEAD %s", p);
        http_free(&r);
    }
}

Test(caching, the_tag_changes_with_the_answer)
{
    static const char *const DIFFERENT[] = {"/catalog", "/catalog?catalog=tutorial", "/catalog/hardware/A100",
                                            "/catalog/hardware/H100", "/openapi.json", "/openapi.yaml"};
    char tags[6][64];
    for (size_t i = 0; i < 6; i++) {
        http_resp r;
        cr_assert_eq(get_with(DIFFERENT[i], NULL, NULL, &r), 200);
        cr_assert(http_header(&r, "ETag", tags[i], sizeof tags[i]));
        http_free(&r);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(tags[i], tags[j], "%s and %s", DIFFERENT[i], DIFFERENT[j]);
    }
    /* the same answer by another spelling of its id has the same tag */
    http_resp r;
    char again[64];
    cr_assert_eq(get_with("/catalog/hardware/a100", NULL, NULL, &r), 200);
    cr_assert(http_header(&r, "ETag", again, sizeof again));
    cr_assert_str_eq(again, tags[2]);
    http_free(&r);
}

Test(caching, results_are_not_stored)
{
    static const char BODY[] = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}";
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/solve", BODY, &r), 0);
    cr_assert_eq(r.status, 200);
    char cc[64], etag[64];
    cr_assert(http_header(&r, "Cache-Control", cc, sizeof cc));
    cr_assert_str_eq(cc, "no-store");
    cr_assert(!http_header(&r, "ETag", etag, sizeof etag));
    http_free(&r);
    const char *const ALL[] = {"If-None-Match: *", "Accept-Encoding: gzip"};
    static const char *const DYNAMIC[] = {"/solve/single_node?model=ResNet50&hardware=A100",
                                          "/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,2",
                                          "/healthz", "/version", "/metrics"};
    for (size_t i = 0; i < sizeof DYNAMIC / sizeof DYNAMIC[0]; i++) {
        cr_assert_eq(get_with(DYNAMIC[i], ALL[0], ALL[1], &r), 200, "%s ignores If-None-Match", DYNAMIC[i]);
        cr_assert(http_header(&r, "Cache-Control", cc, sizeof cc));
        cr_assert_str_eq(cc, "no-store", "%s", DYNAMIC[i]);
        cr_assert(!http_header(&r, "ETag", etag, sizeof etag), "%s", DYNAMIC[i]);
        http_free(&r);
    }
}

/* The plain body of path, and the body sent with the given Accept-Encoding. */
static void both(const char *path, const char *ae, http_resp *plain, http_resp *enc)
{
    cr_assert_eq(get_with(path, NULL, NULL, plain), 200, "%s", path);
    cr_assert_eq(get_with(path, ae, NULL, enc), 200, "%s", path);
}

Test(caching, gzip_when_accepted_with_the_same_bytes)
{
    static const char *const ACCEPT[] = {"Accept-Encoding: gzip", "Accept-Encoding: br;q=1.0, gzip;q=0.5",
                                         "Accept-Encoding: *", "Accept-Encoding: deflate, X-GZIP"};
    /* Each with the least it must shrink by, well below what it does: the JSON and
     * YAML shrink 5-6x; a dashboard asset, hand-written and split in small
     * modules, about 3x (the stylesheet 3.3x), so it is held to 2x. */
    static const struct {
        const char *path;
        size_t ratio;
    } PATHS[] = {{"/catalog", 3},       {"/catalog?group=Cloud", 3}, {"/openapi.json", 3},
                 {"/openapi.yaml", 3},  {"/solvers", 3},             {"/ui/dashboard.css", 2}};
    for (size_t i = 0; i < sizeof PATHS / sizeof PATHS[0]; i++)
        for (size_t k = 0; k < sizeof ACCEPT / sizeof ACCEPT[0]; k++) {
            const char *path = PATHS[i].path;
            http_resp plain, gz;
            both(path, ACCEPT[k], &plain, &gz);
            char enc[32], etag[64], petag[64];
            cr_assert(http_header(&gz, "Content-Encoding", enc, sizeof enc), "%s with %s", path, ACCEPT[k]);
            cr_assert_str_eq(enc, "gzip");
            cr_assert(gz.len * PATHS[i].ratio < plain.len, "%s: %zu B gzip of %zu B (not %zux smaller)", path, gz.len,
                      plain.len, PATHS[i].ratio);
            size_t n;
            char *back = gunzip(gz.body, gz.len, &n);
            cr_assert(back, "%s: a whole gzip member", path);
            cr_assert_eq(n, plain.len, "%s", path);
            cr_assert(!memcmp(back, plain.body, n), "%s: the same bytes", path);
            free(back);
            cr_assert(http_header(&gz, "ETag", etag, sizeof etag) && http_header(&plain, "ETag", petag, sizeof petag));
            cr_assert_str_neq(etag, petag, "%s: each encoding has its own strong tag", path);
            http_free(&plain);
            http_free(&gz);
        }
    static const char *const REFUSE[] = {"Accept-Encoding: gzip;q=0", "Accept-Encoding: identity",
                                         "Accept-Encoding: *, gzip;q=0", "Accept-Encoding: gzip; q=0.000",
                                         "Accept-Encoding: br"};
    for (size_t k = 0; k < sizeof REFUSE / sizeof REFUSE[0]; k++) {
        http_resp plain, r;
        both("/catalog", REFUSE[k], &plain, &r);
        char enc[32];
        cr_assert(!http_header(&r, "Content-Encoding", enc, sizeof enc), "%s", REFUSE[k]);
        cr_assert_eq(r.len, plain.len);
        http_free(&plain);
        http_free(&r);
    }
}

Test(caching, streamed_sweeps_are_gzipped_on_the_fly)
{
    static const char *const SWEEPS[] = {
        "/sweep/single_node?model=ResNet50&hardware=A100,H100&batch_size=1,2,4,8,16,32,64&format=ndjson",
        "/sweep/single_node?model=ResNet50&hardware=A100,H100&batch_size=1,2,4,8,16,32,64&format=csv",
        "/sweep/single_node?model=ResNet50&hardware=A100,H100&batch_size=1,2,4,8,16,32,64",
    };
    for (size_t i = 0; i < sizeof SWEEPS / sizeof SWEEPS[0]; i++) {
        http_resp plain, gz;
        both(SWEEPS[i], "Accept-Encoding: gzip", &plain, &gz);
        char enc[32], vary[64];
        cr_assert(http_header(&gz, "Content-Encoding", enc, sizeof enc), "%s", SWEEPS[i]);
        cr_assert_str_eq(enc, "gzip");
        cr_assert(http_header(&plain, "Vary", vary, sizeof vary));
        size_t n;
        char *back = gunzip(gz.body, gz.len, &n);
        cr_assert(back, "%s: a whole gzip member", SWEEPS[i]);
        cr_assert_eq(n, plain.len, "%s", SWEEPS[i]);
        cr_assert(!memcmp(back, plain.body, n), "%s: the same bytes", SWEEPS[i]);
        free(back);
        http_free(&plain);
        http_free(&gz);
    }
}

/* "/" is the page or the JSON index by Accept, and may come gzip-encoded: caches key on both. */
Test(caching, root_varies_on_accept_and_encoding)
{
    http_resp r;
    cr_assert_eq(get_with("/", "Accept: text/html", "Accept-Encoding: gzip", &r), 200);
    cr_assert(strstr(r.headers, "Vary: Accept, Accept-Encoding"), "%s", r.headers);
    char enc[32];
    cr_assert(http_header(&r, "Content-Encoding", enc, sizeof enc));
    cr_assert_str_eq(enc, "gzip");
    http_free(&r);
    cr_assert_eq(get_with("/", NULL, NULL, &r), 200);
    cr_assert(strstr(r.headers, "Vary: Accept, Accept-Encoding"), "%s", r.headers);
    http_free(&r);
}

Test(caching, problems_are_never_encoded_or_cached)
{
    http_resp r;
    cr_assert_eq(get_with("/catalog/hardware/NOPE", "Accept-Encoding: gzip", "If-None-Match: *", &r), 404);
    char enc[32], cc[64];
    cr_assert(!http_header(&r, "Content-Encoding", enc, sizeof enc));
    cr_assert(http_header(&r, "Cache-Control", cc, sizeof cc));
    cr_assert_str_eq(cc, "no-store");
    http_free(&r);
}
