/* body_scan.h - a POST /solve body read in one pass (yajl's event parser)
 * without building a JSON tree: the envelope's strings, and each member of
 * "inputs" as a typed scalar (input_given); only an input whose value is an
 * object or an array becomes a jansson value.
 *
 * It reads the bodies clients send (a JSON object of "solver", "catalog",
 * "calibration" strings and an "inputs" object) and nothing else: a body
 * outside that shape (another member or type, a duplicate key, a string
 * escape, a syntax error, a string over the text budget) is declined, and the
 * caller parses it with jansson (app_parse_body), which gives the answer or
 * the exact problem. What it accepts, it reads as jansson would: the same
 * numbers (integers and reals by the same grammar, strtod), the same strings
 * (jansson's UTF-8 rule), keys in order.
 *
 * Callers: handle_solve_post (solver_routes.c), with front_read_scan
 * (front.h) turning the result into a solver request. */
#ifndef MLSYSD_BODY_SCAN_H
#define MLSYSD_BODY_SCAN_H

#include <stddef.h>

#include "server/inputs.h"

#define BODY_SCAN_TEXT 2048 /* bytes of strings (keys and values, NUL-terminated) a scanned body may hold */

typedef struct {
    const char *solver, *catalog, *calibration; /* NULL when absent */
    size_t n_inputs;                            /* members of "inputs", in body order */
    const char *key[SOLVER_MAX_INPUTS];
    input_given value[SOLVER_MAX_INPUTS];       /* strings point into text; GIVEN_JSON values are owned */
    size_t text_used;
    char text[BODY_SCAN_TEXT];
} body_scan;

/* 0: the body was read into b (call body_scan_release); -1: declined (nothing to release). */
int body_scan_solve(const char *body, size_t len, body_scan *b);
void body_scan_release(body_scan *b);

#endif
