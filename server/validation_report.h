/* validation_report.h - the measurements against both calibration modes, as
 * the JSON of GET /validation, the Markdown of docs/validation.md, the JSON of
 * GET /calibration, and the error band an answer states.
 *
 * Callers: server/validation_routes.c, server/solve.c and
 * server/solver_describe.c (error bands), tools/calibrate (the Markdown). */
#ifndef MLSYSD_VALIDATION_REPORT_H
#define MLSYSD_VALIDATION_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "core/calibration.h"
#include "core/solver.h"
#include "server/strbuf.h"
#include "server/validation_set.h"

/* docs/validation.md from predictions per measurement in the set's order. */
void validation_report_markdown(const vset *s, const calib_table *t, const double *mlsysim, const double *measured,
                                const double *loso, FILE *out);

/* GET /validation: every measurement with its request, its answer in both
 * modes (computed now, with the table in force) and the ratios, and the
 * summary per family. */
json_t *validation_report_json(vset *s, const calib_table *t, solver_outputs *scratch);

/* GET /calibration: the parameters with their keys, meaning and support. */
json_t *calibration_report_json(const calib_table *t);

/* assumptions.error_band of an answer of solver d in `mode` (in: its inputs,
 * or NULL for the solver's description: every family it can be checked by),
 * appended to b as a JSON object. */
void error_band_write(strbuf *b, const solver_desc *d, const solver_inputs *in, calibration_mode mode);
json_t *error_band_json(const solver_desc *d, const solver_inputs *in, calibration_mode mode);

#endif
