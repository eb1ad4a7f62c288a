/* output_cell.h - one output value as a row cell: JSON text, or an RFC 4180
 * CSV field (null and non-finite values: `null` in JSON, an empty field in
 * CSV). The sweep's rows and /optimize's constraint values use it. */
#ifndef MLSYSD_OUTPUT_CELL_H
#define MLSYSD_OUTPUT_CELL_H

#include <stdbool.h>

#include "core/solver.h"
#include "server/strbuf.h"

void row_output_value(strbuf *b, const output_desc *d, const output_value *v, bool csv);

#endif
