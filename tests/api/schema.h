/* schema.h - the JSON-schema checker of the API tests (see schema.c), and
 * lookups in the served contract. */
#ifndef MLSYSD_TEST_SCHEMA_H
#define MLSYSD_TEST_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* "#/components/schemas/X" -> the value (JSON pointer with ~0 ~1); NULL if absent. */
const json_t *resolve(const json_t *doc, const char *ref);
/* An object that may be a {$ref}: follow it. */
const json_t *deref(const json_t *doc, const json_t *v);
/* Equal JSON values, numbers compared by value (1 == 1.0). */
bool same_value(const json_t *a, const json_t *b);
/* Does v fit schema (resolving $refs in doc)? On false, err says where and why. */
bool check_schema(const json_t *doc, const json_t *schema, const json_t *v, char *err, size_t errlen);

/* The operation of the contract's path template that matches a concrete path
 * ("/solvers/serving?x=1" matches "/solvers/{name}"; a literal path wins
 * over a template), for method ("get", "post", any case); NULL if none. */
const json_t *contract_operation(const json_t *doc, const char *method, const char *path);

/* The oracle of every answer: does the reply (status, Content-Type, body)
 * fit what the contract declares for this method, path, status and media
 * type? JSON media are checked against their schema, NDJSON line by line
 * against x-ndjson-line, CSV for CRLF records and the header's last column
 * "error". false with err (what did not fit) otherwise, including a status
 * or media type the contract does not declare there. */
bool contract_check(const json_t *doc, const char *method, const char *path, long status, const char *content_type,
                    const char *body, size_t len, char *err, size_t errlen);

#endif
