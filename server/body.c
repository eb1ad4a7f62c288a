/* body.c - a JSON request body: media type, parsing, and the JSON path of a parse error. */
#include "server/body.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>

bool app_json_content_type(const char *ct)
{
    if (!ct || !*ct)
        return true; /* curl --data without -H: be lenient about a missing type */
    size_t n = strcspn(ct, ";");
    while (n && ct[n - 1] == ' ')
        n--;
    if (n == 16 && !strncasecmp(ct, "application/json", 16))
        return true;
    return n > 17 && !strncasecmp(ct, "application/", 12) && !strncasecmp(ct + n - 5, "+json", 5);
}

/* The JSON path ("inputs.efficiency", "axes[0].values[2]") of the member
 * being read at byte `end` of a document that failed to parse there, so that
 * a NaN, 1e400 or a duplicate key is reported against its field like any
 * other bad value. Best effort: "" outside any member or when too deep. */
static void json_error_path(const char *s, size_t end, char *out, size_t n)
{
    enum { DEPTH = 32, KEY = 64 };
    struct {
        char type;       /* '{' or '[' */
        bool in_value;   /* object: after ':' */
        bool key_done;   /* object: a whole key was read (a duplicate is reported right after it) */
        long index;      /* array: current element */
        char key[KEY];
    } st[DEPTH];
    int depth = 0;
    out[0] = '\0';
    for (size_t i = 0; i < end;) {
        char c = s[i];
        if (c == '"') {
            size_t k = 0;
            char key[KEY];
            for (i++; i < end && s[i] != '"'; i++) {
                if (s[i] == '\\' && i + 1 < end)
                    i++;
                if (k < KEY - 1)
                    key[k++] = s[i];
            }
            key[k] = '\0';
            bool closed = i < end;
            i++;
            if (depth > 0 && depth <= DEPTH && st[depth - 1].type == '{' && !st[depth - 1].in_value &&
                !st[depth - 1].key_done) {
                memcpy(st[depth - 1].key, key, k + 1);
                st[depth - 1].key_done = closed;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth < DEPTH) {
                st[depth].type = c;
                st[depth].in_value = st[depth].key_done = false;
                st[depth].index = 0;
                st[depth].key[0] = '\0';
            }
            depth++;
        } else if ((c == '}' || c == ']') && depth > 0) {
            depth--;
        } else if (c == ':' && depth > 0 && depth <= DEPTH) {
            st[depth - 1].in_value = true;
        } else if (c == ',' && depth > 0 && depth <= DEPTH) {
            st[depth - 1].in_value = st[depth - 1].key_done = false;
            st[depth - 1].index++;
        }
        i++;
    }
    if (depth > DEPTH)
        return;
    size_t used = 0;
    for (int d = 0; d < depth && used < n; d++) {
        int w;
        if (st[d].type == '[')
            w = snprintf(out + used, n - used, "[%ld]", st[d].index);
        else if (st[d].key_done)
            w = snprintf(out + used, n - used, "%s%s", used ? "." : "", st[d].key);
        else
            break; /* inside a key of this object: the object is the field */
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (used >= n)
        out[n - 1] = '\0';
}

/* A per-thread arena for a body's tree that dies with its request (/solve):
 * jansson allocates each value, key and hashtable of a parse separately, and
 * malloc + free of them were a third of parsing a /solve body. While a parse
 * into the arena runs, jansson's allocations on this thread are carved from it
 * (from malloc once it is full); freeing inside it does nothing, and the next
 * parse into it starts it over. Everything else goes to malloc and free: the
 * allocator checks by address. */
enum { ARENA_BYTES = 16384 };
static _Thread_local struct {
    _Alignas(16) char bytes[ARENA_BYTES];
    size_t used;
    bool on;
} tl_arena;

static void *arena_malloc(size_t n)
{
    if (tl_arena.on) {
        size_t a = (n + 15) & ~(size_t)15;
        if (a <= ARENA_BYTES - tl_arena.used) {
            void *p = tl_arena.bytes + tl_arena.used;
            tl_arena.used += a;
            return p;
        }
    }
    return malloc(n);
}

static void arena_free(void *p)
{
    /* a block of another thread's arena is never freed here: those trees stay on their thread */
    if ((char *)p >= tl_arena.bytes && (char *)p < tl_arena.bytes + ARENA_BYTES)
        return;
    free(p);
}

void app_body_allocator_init(void) { json_set_alloc_funcs(arena_malloc, arena_free); }

/* --- a fast parse of the common body --------------------------------------------
 * jansson's parser reads a byte at a time through a stream callback, checking
 * UTF-8 as it goes: about 20,000 instructions for a 120-byte /solve body. This
 * one builds the same tree (the same jansson values, members in the same order)
 * for the bodies clients send: objects, arrays, numbers, true, false, null,
 * and strings of printable ASCII without escapes. Anything else (an escape, a
 * byte >= 0x80, a duplicate key, a number strtoll or strtod cannot take as
 * jansson does, deep nesting, any syntax error) gives up, and jansson parses
 * the body as before, with its errors. */

typedef struct {
    const char *p, *end;
    int depth;
} fast_json;

static void fj_space(fast_json *f)
{
    while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r'))
        f->p++;
}

/* A plain string's bytes after its opening quote: [*s, *s + *n); false to give up. */
static bool fj_string(fast_json *f, const char **s, size_t *n)
{
    const char *q = ++f->p;
    while (q < f->end && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 && *q != '"' && *q != '\\')
        q++;
    if (q >= f->end || *q != '"')
        return false;
    *s = f->p;
    *n = (size_t)(q - f->p);
    f->p = q + 1;
    return true;
}

static bool fj_digits(fast_json *f)
{
    const char *q = f->p;
    while (f->p < f->end && *f->p >= '0' && *f->p <= '9')
        f->p++;
    return f->p > q;
}

/* jansson's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; an integer
 * (no '.', 'e', 'E') through strtoll, a real through strtod, as jansson's lexer. */
static json_t *fj_number(fast_json *f)
{
    const char *start = f->p;
    if (*f->p == '-')
        f->p++;
    if (f->p < f->end && *f->p == '0')
        f->p++;
    else if (f->p >= f->end || *f->p < '1' || *f->p > '9' || !fj_digits(f))
        return NULL;
    bool real = false;
    if (f->p < f->end && *f->p == '.') {
        f->p++;
        if (!fj_digits(f))
            return NULL;
        real = true;
    }
    if (f->p < f->end && (*f->p == 'e' || *f->p == 'E')) {
        f->p++;
        if (f->p < f->end && (*f->p == '+' || *f->p == '-'))
            f->p++;
        if (!fj_digits(f))
            return NULL;
        real = true;
    }
    /* the next byte must end the token as jansson reads it */
    if (f->p < f->end && ((*f->p >= '0' && *f->p <= '9') || *f->p == '.' || *f->p == 'e' || *f->p == 'E' ||
                          *f->p == '+' || *f->p == '-'))
        return NULL;
    char tmp[64];
    size_t len = (size_t)(f->p - start);
    if (len >= sizeof tmp)
        return NULL;
    memcpy(tmp, start, len);
    tmp[len] = '\0';
    char *e;
    errno = 0;
    if (!real) {
        long long v = strtoll(tmp, &e, 10);
        if (errno == ERANGE || *e)
            return NULL;
        return json_integer((json_int_t)v);
    }
    double v = strtod(tmp, &e);
    if (*e || ((v == HUGE_VAL || v == -HUGE_VAL) && errno == ERANGE))
        return NULL;
    return json_real(v);
}

static json_t *fj_value(fast_json *f);

static json_t *fj_object(fast_json *f)
{
    json_t *o = json_object();
    f->p++;
    fj_space(f);
    if (f->p < f->end && *f->p == '}') {
        f->p++;
        return o;
    }
    while (o) {
        const char *k;
        size_t kn;
        char key[256];
        if (f->p >= f->end || *f->p != '"' || !fj_string(f, &k, &kn) || kn >= sizeof key)
            break;
        memcpy(key, k, kn);
        key[kn] = '\0';
        fj_space(f);
        if (f->p >= f->end || *f->p != ':')
            break;
        f->p++;
        json_t *v = fj_value(f);
        if (!v)
            break;
        if (json_object_getn(o, key, kn) || json_object_setn_new_nocheck(o, key, kn, v) != 0) {
            json_decref(v); /* a duplicate: jansson reports it */
            break;
        }
        fj_space(f);
        if (f->p < f->end && *f->p == ',') {
            f->p++;
            fj_space(f);
            continue;
        }
        if (f->p < f->end && *f->p == '}') {
            f->p++;
            return o;
        }
        break;
    }
    json_decref(o);
    return NULL;
}

static json_t *fj_array(fast_json *f)
{
    json_t *a = json_array();
    f->p++;
    fj_space(f);
    if (f->p < f->end && *f->p == ']') {
        f->p++;
        return a;
    }
    while (a) {
        json_t *v = fj_value(f);
        if (!v || json_array_append_new(a, v) != 0)
            break;
        fj_space(f);
        if (f->p < f->end && *f->p == ',') {
            f->p++;
            continue;
        }
        if (f->p < f->end && *f->p == ']') {
            f->p++;
            return a;
        }
        break;
    }
    json_decref(a);
    return NULL;
}

static bool fj_word(fast_json *f, const char *w, size_t n)
{
    if ((size_t)(f->end - f->p) < n || memcmp(f->p, w, n))
        return false;
    f->p += n;
    /* jansson reads a bare word as a run of letters: "truex" is not "true" */
    return f->p >= f->end || !((*f->p >= 'a' && *f->p <= 'z') || (*f->p >= 'A' && *f->p <= 'Z'));
}

static json_t *fj_value(fast_json *f)
{
    fj_space(f);
    if (f->p >= f->end)
        return NULL;
    json_t *v = NULL;
    switch (*f->p) {
    case '{':
    case '[':
        if (++f->depth > 32)
            return NULL;
        v = *f->p == '{' ? fj_object(f) : fj_array(f);
        f->depth--;
        return v;
    case '"': {
        const char *s;
        size_t n;
        return fj_string(f, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    }
    case 't': return fj_word(f, "true", 4) ? json_true() : NULL;
    case 'f': return fj_word(f, "false", 5) ? json_false() : NULL;
    case 'n': return fj_word(f, "null", 4) ? json_null() : NULL;
    default: return fj_number(f);
    }
}

/* The body as jansson's json_loadb(JSON_REJECT_DUPLICATES) gives it, or NULL:
 * let jansson parse it (it is not plain, or not valid). */
static json_t *fast_parse(const char *body, size_t len)
{
    fast_json f = {body, body + len, 0};
    fj_space(&f);
    if (f.p >= f.end || (*f.p != '{' && *f.p != '['))
        return NULL;
    json_t *j = fj_value(&f);
    fj_space(&f);
    if (j && f.p != f.end) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static json_t *parse_body(const app_request *req, api_error *err, bool arena)
{
    if (!app_json_content_type(req->content_type)) {
        api_fail(err, 415, "unsupported-media-type", "",
                 "send the body as JSON with Content-Type: application/json (got '%.80s'; with curl add "
                 "-H 'Content-Type: application/json')",
                 req->content_type);
        return NULL;
    }
    if (req->body_len == 0) {
        api_fail(err, 400, "invalid-json", "", "the request body is empty; expected a JSON object");
        return NULL;
    }
    json_error_t jerr;
    if (arena) {
        tl_arena.used = 0;
        tl_arena.on = true;
    }
    json_t *j = fast_parse(req->body, req->body_len);
    if (!j) {
        if (arena)
            tl_arena.used = 0; /* what the fast parse left is garbage */
        j = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &jerr);
    }
    tl_arena.on = false;
    if (!j) {
        char field[160];
        size_t at = jerr.position >= 0 && (size_t)jerr.position <= req->body_len ? (size_t)jerr.position : req->body_len;
        json_error_path(req->body, at, field, sizeof field);
        api_fail(err, 400, "invalid-json", field, "invalid JSON at line %d, column %d: %s", jerr.line, jerr.column,
                 jerr.text);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        api_fail(err, 400, "invalid-json", "", "the request body must be a JSON object");
        return NULL;
    }
    return j;
}

json_t *app_parse_body(const app_request *req, api_error *err) { return parse_body(req, err, false); }

json_t *app_parse_body_scratch(const app_request *req, api_error *err) { return parse_body(req, err, true); }
