/* gzip.h - Content-Encoding: gzip with zlib (RFC 9110 §8.4.1.3, RFC 1952):
 * whether a request's Accept-Encoding allows it, a whole body compressed at
 * once (prebuilt.c at start-up, http_encode.c for other whole answers), and a
 * stream compressed as it is read (http_stream.c, for sweeps). */
#ifndef MLSYSD_GZIP_H
#define MLSYSD_GZIP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether an Accept-Encoding field value allows gzip: "gzip" (or "x-gzip") with
 * a q-value above 0, or "*" above 0 when gzip is not listed. NULL (no header)
 * does not: identity is what a client without the header surely reads. */
bool gzip_accepted(const char *accept_encoding);

/* Whether answers of this media type are worth compressing (text, JSON, YAML,
 * CSV, NDJSON, SVG). */
bool gzip_compressible(const char *content_type);

/* zlib levels: the smallest output for what is compressed once (a prebuilt
 * answer), the fastest for what is compressed per request (a sweep streams at
 * several times the speed of level 6: docs/BENCHMARKS.md, "Caching and gzip"). */
#define GZIP_ONCE 9
#define GZIP_PER_REQUEST 1

/* The gzip member of len bytes at a zlib level (1..9), malloc'd, its size in
 * *out_len; NULL when out of memory. */
char *gzip_buffer(const void *data, size_t len, int level, size_t *out_len);

/* A body's gzip encoding at GZIP_ONCE, made by the first request that needs it
 * and kept: a gzip_once zeroed (static or calloc'd storage) holds none yet. */
typedef struct gzip_encoded gzip_encoded;
typedef struct {
    _Atomic(const gzip_encoded *) done;
} gzip_once;
/* The encoding of data[0, len) in *slot (made now if the slot holds none; a
 * racing request's copy is dropped): its bytes and *out_len, or NULL when it
 * is not smaller than the body (or out of memory). Every call on one slot must
 * pass the same body. */
const char *gzip_once_get(gzip_once *slot, const void *data, size_t len, size_t *out_len);
void gzip_once_free(gzip_once *slot);

/* A stream compressed as it is read (level GZIP_PER_REQUEST): each read of the
 * source (one call of src) is compressed and flushed (Z_SYNC_FLUSH), so a client
 * of a streamed sweep sees rows as they are produced. */
typedef struct gzip_stream gzip_stream;
#define GZIP_STREAM_FAILED ((size_t)-1)
/* Next bytes of the source into buf: returns 0 at its end, GZIP_STREAM_FAILED
 * when it failed (or its own allocation did). */
typedef size_t (*gzip_source)(void *cls, char *buf, size_t max);
gzip_stream *gzip_stream_new(gzip_source src, void *cls);
/* The next compressed bytes (at most max); 0 at the end, GZIP_STREAM_FAILED on failure. */
size_t gzip_stream_read(gzip_stream *g, char *buf, size_t max);
void gzip_stream_free(gzip_stream *g);

#endif
