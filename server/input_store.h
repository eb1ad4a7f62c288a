/* input_store.h - the records a parsed request owns: inline catalog objects
 * and list items that its input values point to, in a chain of allocations
 * freed at once by whoever parsed the request (inputs.h, the sweep). */
#ifndef MLSYSD_INPUT_STORE_H
#define MLSYSD_INPUT_STORE_H

#include <stddef.h>

#include "core/solver.h"

typedef struct input_store input_store;
/* n zeroed bytes owned by *store; NULL when out of memory. */
void *input_store_alloc(input_store **store, size_t n);
void input_store_free(input_store **store);

/* Free what in->owned holds. */
void inputs_release(solver_inputs *in);

/* The key a record input echoes: its catalog key, "custom" for an inline
 * record without one. */
const char *input_ref_key(const input_value *v);

#endif
