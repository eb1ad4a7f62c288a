/* conditional.c - see conditional.h. */
#include "server/conditional.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void etag_of(const void *data, size_t len, char out[ETAG_LEN])
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    snprintf(out, ETAG_LEN, "\"%016llx\"", (unsigned long long)h);
}

void etag_gzip(const char *identity, char out[ETAG_LEN])
{
    char id[ETAG_LEN];
    snprintf(id, sizeof id, "%s", identity); /* out may be identity */
    snprintf(out, ETAG_LEN, "%.17s-gzip\"", id);
}

/* The opaque tag without quotes and without a "-gzip" suffix: what two
 * representations of one answer share. */
static size_t tag_core(const char *tag, size_t n)
{
    static const char SUFFIX[] = "-gzip";
    size_t m = sizeof SUFFIX - 1;
    return n > m && !memcmp(tag + n - m, SUFFIX, m) ? n - m : n;
}

bool etag_matches(const char *header, const char *etag)
{
    if (!header)
        return false;
    size_t elen = strlen(etag);
    if (elen < 2)
        return false;
    const char *want = etag + 1;
    size_t wlen = tag_core(want, elen - 2);
    const char *p = header;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            return false;
        if (*p == '*')
            return true;
        if (!strncmp(p, "W/", 2))
            p += 2;
        if (*p != '"')
            return false; /* not an entity tag: the field is malformed */
        const char *q = strchr(p + 1, '"');
        if (!q)
            return false;
        size_t n = tag_core(p + 1, (size_t)(q - p - 1));
        if (n == wlen && !memcmp(p + 1, want, n))
            return true;
        p = q + 1;
    }
}

bool conditional_apply(const char *if_none_match, app_response *resp, const char *etag)
{
    if (etag)
        snprintf(resp->etag, sizeof resp->etag, "%s", etag);
    else
        etag_of(resp->body.data, resp->body.len, resp->etag);
    resp->cache_control = "no-cache";
    if (!etag_matches(if_none_match, resp->etag))
        return false;
    resp->status = 304;
    sb_reset(&resp->body);
    return true;
}
