/* yaml2json.c - see yaml2json.h. Plain scalars follow YAML 1.2's core
 * schema (null, true/false, integers, floats); quoted scalars are strings. */
#include "server/yaml2json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static json_t *scalar(const yaml_node_t *n)
{
    const char *s = (const char *)n->data.scalar.value;
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        if (!strcmp(s, "null") || !strcmp(s, "~") || !*s)
            return json_null();
        if (!strcmp(s, "true"))
            return json_true();
        if (!strcmp(s, "false"))
            return json_false();
        char *end;
        errno = 0;
        long long i = strtoll(s, &end, 10);
        if (!*end && errno == 0)
            return json_integer(i);
        double d = strtod(s, &end);
        if (!*end && isfinite(d) && strpbrk(s, "nNiIxX") == NULL)
            return json_real(d);
    }
    return json_string(s);
}

static json_t *convert(yaml_document_t *doc, yaml_node_t *n, int depth)
{
    if (!n || depth > 64)
        return NULL;
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return scalar(n);
    case YAML_SEQUENCE_NODE: {
        json_t *a = json_array();
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            json_t *v = convert(doc, yaml_document_get_node(doc, *it), depth + 1);
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
            yaml_node_t *k = yaml_document_get_node(doc, p->key);
            json_t *v = convert(doc, yaml_document_get_node(doc, p->value), depth + 1);
            if (!k || k->type != YAML_SCALAR_NODE || !v) {
                json_decref(v);
                json_decref(o);
                return NULL;
            }
            json_object_set_new(o, (const char *)k->data.scalar.value, v);
        }
        return o;
    }
    case YAML_NO_NODE:
        break;
    }
    return NULL;
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
        snprintf(msg, msglen, "line %zu: %s", parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "invalid YAML");
        yaml_parser_delete(&parser);
        return NULL;
    }
    json_t *out = convert(&doc, yaml_document_get_root_node(&doc), 0);
    if (!out)
        snprintf(msg, msglen, "empty document, non-scalar key or nesting deeper than 64");
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return out;
}
