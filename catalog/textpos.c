/* textpos.c - where something is in a catalog file, for "file:line: reason"
 * messages (catalog_internal.h: cat_text_entry_line, cat_text_string_line).
 * Only used on the error path: it rescans text jansson has already parsed. */
#include "catalog/catalog_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- where in a file ---------------------------------------------------- */

/* A tiny JSON skimmer that only counts lines; the text has already been
 * parsed by jansson, so it is well-formed. */
typedef struct {
    const char *p, *end;
    int line;
} skim;

static void sk_ws(skim *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n')) {
        if (*s->p == '\n')
            s->line++;
        s->p++;
    }
}

/* At a '"': skip the string; return its raw contents. */
static void sk_string(skim *s, const char **str, size_t *len)
{
    s->p++;
    const char *start = s->p;
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\' && s->p + 1 < s->end)
            s->p++;
        s->p++;
    }
    *str = start;
    *len = (size_t)(s->p - start);
    if (s->p < s->end)
        s->p++;
}

static void sk_value(skim *s)
{
    sk_ws(s);
    if (s->p >= s->end)
        return;
    if (*s->p == '"') {
        const char *x;
        size_t n;
        sk_string(s, &x, &n);
        return;
    }
    if (*s->p == '{' || *s->p == '[') {
        int depth = 0;
        while (s->p < s->end) {
            char c = *s->p;
            if (c == '"') {
                const char *x;
                size_t n;
                sk_string(s, &x, &n);
                continue;
            }
            if (c == '\n')
                s->line++;
            s->p++;
            if (c == '{' || c == '[')
                depth++;
            else if ((c == '}' || c == ']') && --depth == 0)
                return;
        }
        return;
    }
    while (s->p < s->end && !strchr(",]}\n \t\r", *s->p))
        s->p++;
}

static bool sk_eq(const char *str, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(str, want, len) == 0;
}

/* Inside an object (just after '{'): find member `name`; leaves s at its value. */
static bool sk_find_member(skim *s, const char *name, int *line)
{
    for (;;) {
        sk_ws(s);
        if (s->p >= s->end || *s->p == '}')
            return false;
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p != '"')
            return false;
        const char *k;
        size_t kl;
        *line = s->line;
        sk_string(s, &k, &kl);
        sk_ws(s);
        if (s->p < s->end && *s->p == ':')
            s->p++;
        sk_ws(s);
        if (sk_eq(k, kl, name))
            return true;
        sk_value(s);
    }
}

int cat_text_entry_line(const char *text, size_t len, const char *section, long index)
{
    skim s = {text, text + len, 1};
    int line = 1;
    sk_ws(&s);
    if (s.p >= s.end || *s.p != '{')
        return 1;
    s.p++;
    if (!sk_find_member(&s, section, &line))
        return 1;
    if (index < 0 || *s.p != '[')
        return line;
    s.p++;
    for (long i = 0;; i++) {
        sk_ws(&s);
        if (s.p < s.end && *s.p == ',') {
            s.p++;
            sk_ws(&s);
        }
        if (s.p >= s.end || *s.p == ']')
            return line;
        if (i == index) {
            int start = s.line, keyline;
            if (*s.p != '{')
                return start;
            s.p++;
            return sk_find_member(&s, "key", &keyline) ? keyline : start;
        }
        sk_value(&s);
    }
}

int cat_text_string_line(const char *text, size_t len, const char *needle)
{
    char q[200];
    int n = snprintf(q, sizeof q, "\"%s\"", needle);
    if (n <= 0 || (size_t)n >= sizeof q)
        return 1;
    size_t ql = (size_t)n;
    int line = 1;
    for (size_t i = 0; i + ql <= len; i++) {
        if (text[i] == '\n')
            line++;
        else if (text[i] == '"' && memcmp(text + i, q, ql) == 0)
            return line;
    }
    return 1;
}
