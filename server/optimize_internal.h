/* optimize_internal.h - what the files of POST /optimize share: the search's
 * state and the checks both searches use. optimize.c reads the request and
 * runs the single-objective search (exhaustive or bisection); optimize_pareto.c
 * the multi-objective one; optimize_checks.c the checks both use. Nothing else
 * includes this. */
#ifndef MLSYSD_OPTIMIZE_INTERNAL_H
#define MLSYSD_OPTIMIZE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>

#include "server/api_error.h"
#include "server/constraint.h"
#include "server/context.h"
#include "server/front.h"
#include "server/strbuf.h"
#include "server/sweep.h"

#define TOP_K_MAX 100
#define MAX_CONSTRAINTS 16
#define MAX_OBJECTIVES 4
#define PARETO_MAX 256 /* points kept on the front; beyond, the answer says it was cut */

typedef struct {
    unsigned long long p;
    double obj;
} ranked;

/* One objective of a multi-objective search: an axis or a numeric output. */
typedef struct {
    bool maximize;
    int axis; /* or -1 */
    int col;  /* the output, when axis < 0 */
} objective;

typedef struct {
    unsigned long long p;
    double v[MAX_OBJECTIVES];
} front_point;

typedef struct {
    app *a;
    solver_request r; /* the envelope: solver, edition, calibration */
    const solver_desc *s;
    sweep_stream *sp;
    constraint c[MAX_CONSTRAINTS];
    int n_c;
    bool maximize;
    int obj_axis;   /* the objective is this axis, or -1 */
    int obj_col;    /* or this output */
    int top_k;
    ranked top[TOP_K_MAX];
    int n_top;
    unsigned long long evaluated; /* solver runs of the search, an abandoned bisection's included */
    unsigned long long feasible;  /* bisection counts them from the edge it found, without solving them */
    unsigned long long failed;    /* points of the final search whose inputs failed */
    bool cut_off;
    const char *method;
    char why[200];
    /* "objectives": the Pareto front of the feasible points */
    objective objs[MAX_OBJECTIVES];
    int n_objs;
    front_point front[PARETO_MAX];
    int n_front;
    bool front_cut;
} opt;

/* optimize_checks.c: the point's outputs meet constraint c; meet every constraint. */
bool optimize_meets(const opt *o, const constraint *c, const solver_outputs *out);
bool optimize_meets_all(const opt *o, const solver_outputs *out);
/* {"maximize": NAME} or {"minimize": NAME}, NAME a numeric axis or output;
 * `at` is its JSON path ("objective", "objectives[1]"). 0, or -1 with err. */
int optimize_parse_objective(const opt *o, const json_t *j, const char *at, objective *ob, api_error *err);

/* optimize_pareto.c: solve every point and keep the front; write
 * "objectives" and "pareto" into b. */
void optimize_pareto(opt *o);
void optimize_put_front(strbuf *b, opt *o);

#endif
