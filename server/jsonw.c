/* jsonw.c - see jsonw.h. */
#include "server/jsonw.h"

#include <stdint.h>
#include <string.h>

static void newline(strbuf *b, int indent, int depth)
{
    if (!indent)
        return;
    sb_putc(b, '\n');
    for (int i = 0; i < indent * depth; i++)
        sb_putc(b, ' ');
}

static void write_value(strbuf *b, const json_t *v, int indent, int depth)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *val;
        int first = 1;
        sb_putc(b, '{');
        json_object_foreach((json_t *)v, key, val) {
            if (!first)
                sb_putc(b, ',');
            first = 0;
            newline(b, indent, depth + 1);
            sb_json_string(b, key);
            sb_puts(b, indent ? ": " : ":");
            write_value(b, val, indent, depth + 1);
        }
        if (!first)
            newline(b, indent, depth);
        sb_putc(b, '}');
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *val;
        sb_putc(b, '[');
        json_array_foreach((json_t *)v, i, val) {
            if (i)
                sb_putc(b, ',');
            newline(b, indent, depth + 1);
            write_value(b, val, indent, depth + 1);
        }
        if (json_array_size(v))
            newline(b, indent, depth);
        sb_putc(b, ']');
        break;
    }
    case JSON_STRING:
        sb_json_string(b, json_string_value(v));
        break;
    case JSON_INTEGER:
        sb_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        sb_number(b, json_real_value(v));
        break;
    case JSON_TRUE:
        sb_puts(b, "true");
        break;
    case JSON_FALSE:
        sb_puts(b, "false");
        break;
    case JSON_NULL:
        sb_puts(b, "null");
        break;
    }
}

void json_write(strbuf *b, const json_t *v, int indent) { write_value(b, v, indent, 0); }

/* The length of the well-formed character at p (at most end - p bytes), or 0. */
static size_t utf8_char(const unsigned char *p, const unsigned char *end)
{
    unsigned c = *p;
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

bool json_utf8_ok(const char *s)
{
    /* ASCII (every answer's own text) is checked eight bytes at a time */
    size_t len = strlen(s), i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        if (v & 0x8080808080808080ULL)
            break;
    }
    const unsigned char *p = (const unsigned char *)s + i;
    while (*p) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        size_t n = utf8_char(p, p + 4);
        if (!n)
            return false;
        p += n;
    }
    return true;
}

bool json_utf8_okn(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    /* ASCII without a NUL, eight bytes at a time */
    for (; end - p >= 8; p += 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        if ((v | ((v - 0x0101010101010101ULL) & ~v)) & 0x8080808080808080ULL)
            break;
    }
    while (p < end) {
        if (*p < 0x80) {
            if (!*p)
                return false;
            p++;
            continue;
        }
        size_t n = utf8_char(p, end);
        if (!n)
            return false;
        p += n;
    }
    return true;
}
