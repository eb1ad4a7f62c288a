/* test_strbuf.c - the JSON string writers of server/strbuf.c scan 16 or 8
 * bytes at a time; they must write exactly what jansson writes (and accept
 * exactly what json_string() accepts) wherever in the string the byte that
 * needs care falls: every position 0..47 of strings of every length 0..48,
 * for each kind of byte (quote, backslash, control, DEL, UTF-8, invalid). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "server/strbuf.h"

/* jansson's rendering of s, or NULL when json_string() refuses s. */
static char *jansson_text(const char *s)
{
    json_t *j = json_string(s);
    if (!j)
        return NULL;
    char *out = json_dumps(j, JSON_ENCODE_ANY);
    json_decref(j);
    return out;
}

Test(strbuf, json_strings_match_jansson_at_every_position)
{
    static const char *const SPECIAL[] = {"\"", "\\", "\n", "\b", "\f", "\t", "\r", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
                                          "\xf0\x9f\x98\x80", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xff", "/"};
    int checked = 0;
    for (size_t k = 0; k < sizeof SPECIAL / sizeof SPECIAL[0]; k++) {
        for (size_t len = 0; len <= 48; len++) {
            for (size_t at = 0; at <= len; at++) {
                char s[80];
                memset(s, 'a' + (int)(len % 26), len);
                s[len] = '\0';
                if (at < len) { /* the special bytes at position at, the rest plain */
                    size_t n = strlen(SPECIAL[k]);
                    memcpy(s + at, SPECIAL[k], n);
                    s[at + n] = '\0';
                    if (at + n < len) {
                        memset(s + at + n, 'z', len - at - n);
                        s[len] = '\0';
                    }
                }
                char *want = jansson_text(s);
                strbuf b;
                sb_init(&b);
                bool ok = sb_json_text(&b, s);
                cr_assert_eq(ok, want != NULL, "sb_json_text(%zu-byte string, special %zu at %zu) = %d", strlen(s), k,
                             at, ok);
                if (want)
                    cr_assert_str_eq(b.data, want, "special %zu at %zu of %zu", k, at, len);
                else
                    cr_assert_eq(b.len, 0);
                /* sb_json_string writes valid text as jansson does, and always writes something */
                sb_reset(&b);
                sb_json_string(&b, s);
                if (want)
                    cr_assert_str_eq(b.data, want, "special %zu at %zu of %zu", k, at, len);
                else
                    cr_assert(b.len >= 2 && b.data[0] == '"' && b.data[b.len - 1] == '"');
                sb_free(&b);
                free(want);
                checked++;
            }
        }
    }
    cr_assert_gt(checked, 10000);
}

Test(strbuf, truncate_cuts_back)
{
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "abc,");
    size_t mark = b.len;
    sb_puts(&b, "def");
    sb_truncate(&b, mark);
    cr_assert_str_eq(b.data, "abc,");
    cr_assert_eq(b.len, 4);
    sb_free(&b);
}
