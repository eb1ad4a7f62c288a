/* single_node.h - the roofline of single_node's inputs (the RL_* rows of
 * core/roofline.h) in the request's calibration mode: mlsysim's roofline,
 * then measured mode's physics when the request asks for it. Callers: the
 * single_node and pipeline solvers. */
#ifndef MLSYSD_SINGLE_NODE_H
#define MLSYSD_SINGLE_NODE_H

#include "core/roofline.h"
#include "core/solver.h"

int single_node_solve(const solver_inputs *in, roofline_result *r, solver_outputs *msgs, solver_error *err);

#endif
