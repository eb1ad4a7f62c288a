/* strbuf.c - see strbuf.h. */
#include "server/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/numfmt.h"

void sb_init(strbuf *b) { memset(b, 0, sizeof *b); }

void sb_borrow(strbuf *b, char *mem, size_t cap)
{
    sb_init(b);
    b->data = mem;
    b->cap = cap;
    b->borrowed = true;
    mem[0] = '\0';
}

void sb_free(strbuf *b)
{
    if (!b->borrowed)
        free(b->data);
    sb_init(b);
}

void sb_reset(strbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

bool sb_grow(strbuf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *d = b->borrowed ? malloc(cap) : realloc(b->data, cap);
    if (!d) {
        b->oom = true;
        return false;
    }
    if (b->borrowed)
        memcpy(d, b->data, b->len + 1);
    b->borrowed = false;
    b->data = d;
    b->cap = cap;
    return true;
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_append(b, tmp, (size_t)n);
        return;
    }
    if (!sb_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sb_number(strbuf *b, double v)
{
    /* straight into the buffer: fmt_double writes at most 32 bytes and a NUL */
    if (!sb_reserve(b, 40))
        return;
    int n = fmt_double(b->data + b->len, 40, v);
    b->len += (size_t)n;
    b->data[b->len] = '\0';
}

size_t utf8_char_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = *p;
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned cp, min;
    if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; min = 0x10000; }
    else return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* Bytes a JSON string carries as they are: printable ASCII but '"' and '\\' (NUL is not). */
static const unsigned char JSON_PLAIN[256] = {
    [0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                               /* 0x20-0x2f, no '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                                        /* 0x30-0x3f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                                        /* 0x40-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,                                        /* 0x50-0x5f, no '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                                        /* 0x60-0x6f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                                        /* 0x70-0x7f */
};

/* How many of the n bytes at p are plain (JSON_PLAIN) before the first that
 * is not: eight at a time while no byte of the eight is below 0x20, '"', '\\'
 * or above 0x7f (the tests may flag a plain byte too, never miss one), then
 * byte by byte. */
static size_t plain_prefix(const unsigned char *p, size_t n)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    size_t i = 0;
#ifdef __SSE2__
    /* sixteen at a time where the target has SSE2 (every x86-64) */
    const __m128i below = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
    /* signed compare: bytes above 0x7f are negative, so below 0x20 too */
#define PLAIN16(at)                                                                                                    \
    (!_mm_movemask_epi8(_mm_or_si128(                                                                                  \
        _mm_cmplt_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + (at))), below),                             \
        _mm_or_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + (at))), quote),                \
                     _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + (at))), slash)))))
    for (; i + 16 <= n; i += 16)
        if (!PLAIN16(i))
            break;
    /* the last bytes in one more load, overlapping the ones already checked */
    if (i + 16 > n && n >= 16 && i < n && PLAIN16(n - 16))
        return n;
#undef PLAIN16
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t v, q, bs;
        memcpy(&v, p + i, 8);
        q = v ^ (ones * '"');
        bs = v ^ (ones * '\\');
        if ((((v - ones * 0x20) & ~v) | ((q - ones) & ~q) | ((bs - ones) & ~bs) | v) & high)
            break;
    }
    while (i < n && JSON_PLAIN[p[i]])
        i++;
    return i;
}

/* n plain bytes at p as a JSON string: one copy between the quotes. */
static void put_plain(strbuf *b, const unsigned char *p, size_t n)
{
    if (sb_reserve(b, n + 2)) {
        b->data[b->len++] = '"';
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len++] = '"';
        b->data[b->len] = '\0';
    }
}

/* s (not all plain) as a JSON string, escaped. */
static void put_escaped(strbuf *b, const unsigned char *p)
{
    sb_putc(b, '"');
    while (*p) {
        const unsigned char *run = p;
        while (JSON_PLAIN[*p])
            p++;
        if (p > run)
            sb_append(b, (const char *)run, (size_t)(p - run));
        if (!*p)
            break;
        unsigned char c = *p;
        if (c == '"') { sb_puts(b, "\\\""); p++; }
        else if (c == '\\') { sb_puts(b, "\\\\"); p++; }
        else if (c == '\n') { sb_puts(b, "\\n"); p++; }
        else if (c == '\r') { sb_puts(b, "\\r"); p++; }
        else if (c == '\t') { sb_puts(b, "\\t"); p++; }
        else if (c == '\b') { sb_puts(b, "\\b"); p++; }
        else if (c == '\f') { sb_puts(b, "\\f"); p++; }
        else if (c < 0x20) { sb_printf(b, "\\u%04X", c); p++; } /* as jansson writes it */
        else {
            size_t n = utf8_char_len(p, p + 4); /* a NUL ends a short one: it is no continuation byte */
            if (n == 0) {
                sb_puts(b, "\\ufffd");
                p++;
            } else {
                sb_append(b, (const char *)p, n);
                p += n;
            }
        }
    }
    sb_putc(b, '"');
}

void sb_json_string(strbuf *b, const char *s)
{
    /* printable ASCII without '"' or '\\' (keys, ids, units, messages) in one copy */
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)p);
    if (plain_prefix(p, len) == len)
        put_plain(b, p, len);
    else
        put_escaped(b, p);
}

bool sb_json_text(strbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    if (plain_prefix(p, len) == len) {
        put_plain(b, p, len);
        return true;
    }
    for (const unsigned char *q = p; *q;) {
        size_t n = utf8_char_len(q, q + 4);
        if (n == 0)
            return false;
        q += n;
    }
    put_escaped(b, p);
    return true;
}

void sb_csv_field(strbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        sb_puts(b, s);
        return;
    }
    sb_putc(b, '"');
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            sb_putc(b, '"');
        sb_putc(b, *c);
    }
    sb_putc(b, '"');
}

char *sb_detach(strbuf *b, size_t *len)
{
    if (!b->data)
        sb_reserve(b, 0);
    if (b->borrowed && !sb_grow(b, b->cap - b->len)) { /* the caller's memory: a heap copy */
        if (len)
            *len = 0;
        sb_init(b);
        return NULL;
    }
    char *d = b->data;
    if (len)
        *len = b->len;
    sb_init(b);
    return d;
}
