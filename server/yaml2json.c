/* yaml2json.c - see yaml2json.h. Plain scalars follow YAML 1.2's core
 * schema as far as JSON can hold them (null, true/false, decimal integers,
 * floats); quoted and block scalars, hex/octal and .inf/.nan stay strings.
 * Anchors and aliases expand. A key given twice is an error: in an OpenAPI
 * document the second /path or schema would silently replace the first. */
#include "server/yaml2json.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "server/strbuf.h"

#define MAX_DEPTH 64

typedef struct {
    yaml_document_t *doc;
    char *msg;
    size_t msglen;
} conv;

static json_t *fail(conv *c, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static json_t *fail(conv *c, const yaml_node_t *n, const char *fmt, ...)
{
    int k = snprintf(c->msg, c->msglen, "line %zu: ", n ? n->start_mark.line + 1 : 0);
    if (k > 0 && (size_t)k < c->msglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg + k, c->msglen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

/* The value of a plain (unquoted) scalar. */
static json_t *plain_scalar(const char *s)
{
    if (!strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL") || !strcmp(s, "~") || !*s)
        return json_null();
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        return json_true();
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        return json_false();
    /* strtoll/strtod would also take leading blanks, hex and "inf" */
    if (strpbrk(s, "nNiIxXoO \t") == NULL) {
        char *end;
        errno = 0;
        long long i = strtoll(s, &end, 10);
        if (!*end && errno == 0)
            return json_integer(i);
        double d = strtod(s, &end);
        if (!*end && isfinite(d))
            return json_real(d);
    }
    return json_string(s);
}

static json_t *scalar(const yaml_node_t *n)
{
    const char *s = (const char *)n->data.scalar.value;
    return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? plain_scalar(s) : json_string(s);
}

static json_t *convert(conv *c, yaml_node_t *n, int depth)
{
    if (!n)
        return fail(c, NULL, "dangling node");
    if (depth > MAX_DEPTH)
        return fail(c, n, "nesting deeper than %d levels", MAX_DEPTH);
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return scalar(n);
    case YAML_SEQUENCE_NODE: {
        json_t *a = json_array();
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            json_t *v = convert(c, yaml_document_get_node(c->doc, *it), depth + 1);
            if (!v) {
                json_decref(a);
                return NULL;
            }
            json_array_append_new(a, v);
        }
        return a;
    }
    case YAML_MAPPING_NODE: {
        json_t *o = json_object();
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
            if (!k || k->type != YAML_SCALAR_NODE) {
                json_decref(o);
                return fail(c, k ? k : n, "a mapping key must be a scalar (JSON has only string keys)");
            }
            const char *key = (const char *)k->data.scalar.value;
            if (json_object_get(o, key)) {
                json_decref(o);
                return fail(c, k, "duplicate key '%.80s'", key);
            }
            json_t *v = convert(c, yaml_document_get_node(c->doc, p->value), depth + 1);
            if (!v) {
                json_decref(o);
                return NULL;
            }
            json_object_set_new(o, key, v);
        }
        return o;
    }
    case YAML_NO_NODE:
        break;
    }
    return fail(c, n, "empty node");
}

json_t *yaml_to_json(const char *text, size_t len, char *msg, size_t msglen)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(msg, msglen, "cannot initialise the YAML parser");
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(msg, msglen, "line %zu: %s%s%s", parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "invalid YAML", parser.context ? " " : "",
                 parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return NULL;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    json_t *out = NULL;
    if (!root) {
        snprintf(msg, msglen, "line 1: empty document");
    } else {
        conv c = {.doc = &doc, .msg = msg, .msglen = msglen};
        out = convert(&c, root, 0);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return out;
}

/* --- JSON -> YAML (libyaml's emitter) ------------------------------------------------ */

/* May s be written unquoted? Only when every YAML reader takes it for the same
 * string: it reads back as a string here, starts with a letter, '_' or '/', and
 * is none of YAML 1.1's boolean words. libyaml quotes it anyway where its
 * characters need quotes (": ", " #", ...). */
static bool plain_ok(const char *s)
{
    static const char *const WORDS[] = {"y", "n", "yes", "no", "on", "off", NULL};
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == '/'))
        return false;
    for (const char *const *w = WORDS; *w; w++)
        if (!strcasecmp(s, *w))
            return false;
    json_t *v = plain_scalar(s);
    bool ok = json_is_string(v);
    json_decref(v);
    return ok;
}

/* plain: the text may be written unquoted (a string for which plain_ok() holds,
 * or a number, boolean or null); otherwise it is quoted, or a literal block
 * when it has line breaks (libyaml falls back to quotes where a block cannot
 * hold it). */
static int emit_scalar(yaml_emitter_t *em, const char *text, bool plain)
{
    yaml_event_t ev;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), plain, 1,
                                 strchr(text, '\n') ? YAML_LITERAL_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
    return yaml_emitter_emit(em, &ev);
}

static int emit_value(yaml_emitter_t *em, const json_t *v, int depth)
{
    yaml_event_t ev;
    char num[64];
    if (depth > MAX_DEPTH)
        return 0;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
        if (!yaml_emitter_emit(em, &ev))
            return 0;
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m) {
            if (!emit_scalar(em, k, plain_ok(k)) || !emit_value(em, m, depth + 1))
                return 0;
        }
        yaml_mapping_end_event_initialize(&ev);
        return yaml_emitter_emit(em, &ev);
    }
    case JSON_ARRAY: {
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
        if (!yaml_emitter_emit(em, &ev))
            return 0;
        size_t i;
        json_t *m;
        json_array_foreach(v, i, m) {
            if (!emit_value(em, m, depth + 1))
                return 0;
        }
        yaml_sequence_end_event_initialize(&ev);
        return yaml_emitter_emit(em, &ev);
    }
    case JSON_STRING: return emit_scalar(em, json_string_value(v), plain_ok(json_string_value(v)));
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return emit_scalar(em, num, true);
    case JSON_REAL: {
        /* shortest round trip, with a '.' so that YAML 1.1 readers also see a float: 1e-09 -> 1.0e-09 */
        strbuf b;
        sb_init(&b);
        sb_number(&b, json_real_value(v));
        const char *t = b.data ? b.data : "0";
        size_t mant = strcspn(t, "eE");
        if (!memchr(t, '.', mant))
            snprintf(num, sizeof num, "%.*s.0%s", (int)mant, t, t + mant);
        else
            snprintf(num, sizeof num, "%s", t);
        sb_free(&b);
        return emit_scalar(em, num, true);
    }
    case JSON_TRUE: return emit_scalar(em, "true", true);
    case JSON_FALSE: return emit_scalar(em, "false", true);
    case JSON_NULL: return emit_scalar(em, "null", true);
    }
    return 0;
}

static int write_out(void *data, unsigned char *buf, size_t n)
{
    strbuf *b = data;
    sb_append(b, (const char *)buf, n);
    return !b->oom;
}

char *json_to_yaml(const json_t *v, size_t *len)
{
    yaml_emitter_t em;
    if (!yaml_emitter_initialize(&em))
        return NULL;
    strbuf b;
    sb_init(&b);
    yaml_emitter_set_output(&em, write_out, &b);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, 120);
    yaml_event_t ev;
    int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&em, &ev) &&
             yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(&em, &ev) &&
             emit_value(&em, v, 0) && yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev) &&
             yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev);
    yaml_emitter_delete(&em);
    char *out = ok && !b.oom ? sb_detach(&b, len) : NULL;
    sb_free(&b);
    return out;
}
