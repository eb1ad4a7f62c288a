/* strbuf.h - a growable byte buffer for building responses. */
#ifndef MLSYSD_STRBUF_H
#define MLSYSD_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct {
    char *data;
    size_t len, cap;
    bool oom;      /* an allocation failed: contents are truncated */
    bool borrowed; /* data is the caller's memory (sb_borrow): never freed here */
} strbuf;

void sb_init(strbuf *b);
/* Write into the caller's `cap` bytes at mem (cap >= 1) instead of the heap; an append that
 * does not fit moves the contents to the heap first (borrowed turns false), so nothing is lost. */
void sb_borrow(strbuf *b, char *mem, size_t cap);
void sb_free(strbuf *b);
void sb_reset(strbuf *b);
/* sb_reserve's slow path: grow the allocation (false when out of memory). */
bool sb_grow(strbuf *b, size_t extra);
/* Room for `extra` more bytes (and the NUL) in one allocation; false when out of memory.
 * Inline, as the appends below: a /solve answer makes a few hundred of them. */
static inline bool sb_reserve(strbuf *b, size_t extra)
{
    return (!b->oom && b->len + extra + 1 <= b->cap) || sb_grow(b, extra);
}
static inline void sb_append(strbuf *b, const char *s, size_t n)
{
    if (!sb_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}
static inline void sb_puts(strbuf *b, const char *s) { sb_append(b, s, strlen(s)); }
/* Cut the contents back to their first len bytes (len <= b->len). */
static inline void sb_truncate(strbuf *b, size_t len)
{
    if (b->data && len <= b->len) {
        b->len = len;
        b->data[len] = '\0';
    }
}
static inline void sb_putc(strbuf *b, char c)
{
    if (!sb_reserve(b, 1))
        return;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Shortest round-trip number; non-finite -> null. */
void sb_number(strbuf *b, double v);
/* The length of the well-formed UTF-8 character at p (at most end - p bytes;
 * 1 for ASCII), or 0: jansson's rule (no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
size_t utf8_char_len(const unsigned char *p, const unsigned char *end);
/* A JSON string literal with escapes (input must be UTF-8; invalid bytes become U+FFFD). */
void sb_json_string(strbuf *b, const char *s);
/* The same if s is valid UTF-8 by jansson's rule (json_string() would take it);
 * false, and nothing appended, if not. */
bool sb_json_text(strbuf *b, const char *s);
/* A CSV field per RFC 4180: quoted (quotes doubled) when it has a comma, quote or line break. */
void sb_csv_field(strbuf *b, const char *s);
/* Take ownership of the data (NUL-terminated); b is reset. */
char *sb_detach(strbuf *b, size_t *len);

#endif
