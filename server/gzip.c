/* gzip.c - see gzip.h. zlib's deflate with windowBits 31 writes the gzip
 * wrapper. */
#include "server/gzip.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define GZIP_WINDOW (15 + 16)
#define STREAM_IN (64 * 1024)

/* The q-value of one list member "coding;q=0.5" (1 when absent). */
static double member_q(const char *params, const char *end)
{
    const char *q = params;
    while (q < end) {
        while (q < end && (*q == ';' || *q == ' ' || *q == '\t'))
            q++;
        if (end - q >= 2 && tolower((unsigned char)q[0]) == 'q' && q[1] == '=')
            return strtod(q + 2, NULL);
        while (q < end && *q != ';')
            q++;
    }
    return 1;
}

bool gzip_accepted(const char *ae)
{
    if (!ae)
        return false;
    double gz = -1, star = -1;
    const char *p = ae;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *end = p + strcspn(p, ",");
        size_t n = strcspn(p, ";, \t");
        double q = member_q(p + n, end);
        if ((n == 4 && !strncasecmp(p, "gzip", 4)) || (n == 6 && !strncasecmp(p, "x-gzip", 6)))
            gz = q;
        else if (n == 1 && *p == '*')
            star = q;
        p = end;
    }
    return gz >= 0 ? gz > 0 : star > 0;
}

bool gzip_compressible(const char *ct)
{
    static const char *const TYPES[] = {"text/", "application/json", "application/problem+json",
                                        "application/yaml", "application/x-ndjson", "image/svg+xml"};
    if (!ct)
        return false;
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        if (!strncmp(ct, TYPES[i], strlen(TYPES[i])))
            return true;
    return false;
}

char *gzip_buffer(const void *data, size_t len, int level, size_t *out_len)
{
    z_stream z = {0};
    if (deflateInit2(&z, level, Z_DEFLATED, GZIP_WINDOW, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    uLong cap = deflateBound(&z, (uLong)len);
    unsigned char *out = malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *out_len = (size_t)z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return (char *)out;
}

struct gzip_encoded {
    size_t len;
    char data[];
};
static const gzip_encoded NOT_SMALLER;

const char *gzip_once_get(gzip_once *slot, const void *data, size_t len, size_t *out_len)
{
    const gzip_encoded *g = atomic_load_explicit(&slot->done, memory_order_acquire);
    if (!g) {
        size_t n;
        char *z = gzip_buffer(data, len, GZIP_ONCE, &n);
        if (!z)
            return NULL;
        gzip_encoded *made = n < len ? malloc(sizeof *made + n) : NULL;
        if (made) {
            made->len = n;
            memcpy(made->data, z, n);
        }
        free(z);
        const gzip_encoded *want = made ? made : &NOT_SMALLER;
        if (atomic_compare_exchange_strong_explicit(&slot->done, &g, want, memory_order_acq_rel,
                                                    memory_order_acquire))
            g = want;
        else
            free(made); /* g is the winner's */
    }
    if (g == &NOT_SMALLER)
        return NULL;
    *out_len = g->len;
    return g->data;
}

void gzip_once_free(gzip_once *slot)
{
    const gzip_encoded *g = atomic_load(&slot->done);
    if (g != &NOT_SMALLER)
        free((gzip_encoded *)(uintptr_t)g);
    atomic_store(&slot->done, NULL);
}

struct gzip_stream {
    z_stream z;
    gzip_source src;
    void *cls;
    char in[STREAM_IN];
    unsigned char *out;   /* compressed bytes not yet read: out[pos, len) */
    size_t cap, len, pos;
    bool finished;
};

gzip_stream *gzip_stream_new(gzip_source src, void *cls)
{
    gzip_stream *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    if (deflateInit2(&g->z, GZIP_PER_REQUEST, Z_DEFLATED, GZIP_WINDOW, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        return NULL;
    }
    g->cap = STREAM_IN;
    g->out = malloc(g->cap);
    if (!g->out) {
        deflateEnd(&g->z);
        free(g);
        return NULL;
    }
    g->src = src;
    g->cls = cls;
    return g;
}

/* Compress one read of the source (flushed), or finish the member at its end. */
static bool refill(gzip_stream *g)
{
    size_t n = g->src(g->cls, g->in, sizeof g->in);
    if (n == GZIP_STREAM_FAILED)
        return false;
    int flush = n ? Z_SYNC_FLUSH : Z_FINISH;
    g->z.next_in = (Bytef *)g->in;
    g->z.avail_in = (uInt)n;
    g->len = g->pos = 0;
    for (;;) {
        g->z.next_out = g->out + g->len;
        g->z.avail_out = (uInt)(g->cap - g->len);
        int rc = deflate(&g->z, flush);
        g->len = g->cap - g->z.avail_out;
        if (rc == Z_STREAM_END) {
            g->finished = true;
            return true;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return false;
        if (g->z.avail_out > 0 && g->z.avail_in == 0 && flush == Z_SYNC_FLUSH)
            return true; /* all input taken and flushed */
        unsigned char *grown = realloc(g->out, g->cap * 2);
        if (!grown)
            return false;
        g->out = grown;
        g->cap *= 2;
    }
}

size_t gzip_stream_read(gzip_stream *g, char *buf, size_t max)
{
    while (g->pos >= g->len) {
        if (g->finished)
            return 0;
        if (!refill(g))
            return GZIP_STREAM_FAILED;
    }
    size_t n = g->len - g->pos;
    if (n > max)
        n = max;
    memcpy(buf, g->out + g->pos, n);
    g->pos += n;
    return n;
}

void gzip_stream_free(gzip_stream *g)
{
    if (!g)
        return;
    deflateEnd(&g->z);
    free(g->out);
    free(g);
}
