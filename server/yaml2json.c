/* yaml2json.c - see yaml2json.h. Plain scalars follow YAML 1.2's core
 * schema as far as JSON can hold them (null, true/false, decimal integers,
 * floats); quoted and block scalars, hex/octal and .inf/.nan stay strings.
 * Anchors and aliases expand. A key given twice is an error: in an OpenAPI
 * document the second /path or schema would silently replace the first. */
#include "server/yaml2json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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

static json_t *scalar(const yaml_node_t *n)
{
    const char *s = (const char *)n->data.scalar.value;
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
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
    }
    return json_string(s);
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
