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

bool json_utf8_ok(const char *s) { return json_utf8_okn(s, strlen(s)); }

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
        size_t n = utf8_char_len(p, end);
        if (!n)
            return false;
        p += n;
    }
    return true;
}
