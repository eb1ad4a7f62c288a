/* validation_set.h - the published measurements of validation/measurements/
 * as requests the solvers can answer.
 *
 * Each line of a *.jsonl file is one measurement (format in
 * validation/README.md): its source, the figure as quoted, the setting, the
 * measured value in a solver output's unit, and the request that reproduces
 * it. Loading parses every request against a catalog edition once; a
 * measurement is then predicted by running its solver in either calibration
 * mode.
 *
 * Callers: server/validation_routes.c (GET /validation, from the files
 * compiled into the binary) and tools/calibrate (from the files on disk). */
#ifndef MLSYSD_VALIDATION_SET_H
#define MLSYSD_VALIDATION_SET_H

#include <jansson.h>
#include <stddef.h>

#include "catalog/catalog.h"
#include "core/calibration.h"
#include "core/solver.h"

typedef struct {
    const char *id;             /* points into record */
    const char *source_group;   /* source.group, else source.key: the unit left out together */
    calib_family family;
    json_t *record;             /* the whole line */
    const solver_desc *solver;
    int output;                 /* index of the output the measurement reads */
    solver_inputs in;           /* parsed against the edition */
    double measured;            /* in the output's unit */
} vmeasure;

typedef struct {
    vmeasure *items;
    size_t n, cap;
} vset;

/* Add the measurements of one JSONL text (`name` for messages). 0, or -1
 * with a message naming the file, line and what is wrong. */
int vset_add_text(vset *s, const char *name, const char *text, const catalog_edition *ed, char *err, size_t errlen);
/* Every validation/measurements/ *.jsonl compiled into the binary, in path order. */
int vset_load_embedded(vset *s, const catalog_edition *ed, char *err, size_t errlen);
/* Every *.jsonl in dir, in name order. */
int vset_load_dir(vset *s, const char *dir, const catalog_edition *ed, char *err, size_t errlen);
void vset_free(vset *s);

/* The measurement's output predicted in `mode` with the calibration table in
 * force; NAN when the solver refuses. `scratch` is the caller's. */
double vset_predict(vmeasure *m, calibration_mode mode, solver_outputs *scratch);

/* max(p/m, m/p) - 1; +inf for a non-positive or non-finite prediction. */
double vset_error(double predicted, double measured);

#endif
