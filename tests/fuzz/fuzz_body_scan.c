/* fuzz_body_scan.c - the tree-less /solve body reader (server/body_scan.c)
 * against jansson: whatever bytes it accepts, jansson must accept too (with
 * duplicate keys refused, as app_parse_body parses), and read the same
 * envelope strings and the same input members, in the same order, with the
 * same types and values (reals bit for bit, objects and arrays json_equal).
 * A disagreement aborts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/body_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_string(const char *scanned, const json_t *j)
{
    if (!scanned && !j)
        return;
    if (!scanned || !json_is_string(j) || strlen(scanned) != json_string_length(j) ||
        strcmp(scanned, json_string_value(j)))
        abort();
}

static void same_value(const input_given *g, const json_t *j)
{
    switch (g->t) {
    case GIVEN_NULL: if (!json_is_null(j)) abort(); break;
    case GIVEN_BOOL: if (!json_is_boolean(j) || json_is_true(j) != g->b) abort(); break;
    case GIVEN_INT: if (!json_is_integer(j) || json_integer_value(j) != g->i) abort(); break;
    case GIVEN_REAL: {
        double r = json_real_value(j);
        if (!json_is_real(j) || memcmp(&r, &g->r, sizeof r))
            abort();
        break;
    }
    case GIVEN_STRING: same_string(g->s, j); break;
    case GIVEN_JSON: if (!json_equal(g->j, j) || json_typeof(g->j) != json_typeof(j)) abort(); break;
    default: abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    body_scan b;
    if (body_scan_solve((const char *)data, size, &b) != 0)
        return 0;
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(j))
        abort(); /* scanned what jansson refuses */
    same_string(b.solver, json_object_get(j, "solver"));
    same_string(b.catalog, json_object_get(j, "catalog"));
    same_string(b.calibration, json_object_get(j, "calibration"));
    size_t members = (b.solver != NULL) + (b.catalog != NULL) + (b.calibration != NULL);
    const json_t *inputs = json_object_get(j, "inputs");
    if (inputs) {
        members++;
        if (!json_is_object(inputs) || json_object_size(inputs) != b.n_inputs)
            abort();
        const char *key;
        json_t *val;
        size_t k = 0;
        json_object_foreach((json_t *)inputs, key, val) {
            if (strcmp(key, b.key[k]))
                abort();
            same_value(&b.value[k], val);
            k++;
        }
    } else if (b.n_inputs) {
        abort();
    }
    if (json_object_size(j) != members)
        abort();
    json_decref(j);
    body_scan_release(&b);
    return 0;
}
