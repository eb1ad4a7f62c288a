/* input_store.c - the records a request owns (contract in input_store.h): a
 * chain of allocations freed at once. */
#include "server/input_store.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct input_store {
    struct input_store *next;
    max_align_t data[];
};

void *input_store_alloc(input_store **store, size_t n)
{
    input_store *blk = malloc(sizeof *blk + n);
    if (!blk)
        return NULL;
    blk->next = *store;
    *store = blk;
    return memset(blk->data, 0, n);
}

void input_store_free(input_store **store)
{
    for (input_store *b = *store, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    *store = NULL;
}

void inputs_release(solver_inputs *in) { input_store_free(&in->owned); }

const char *input_ref_key(const input_value *v)
{
    const rec_ident *r = v->ref;
    return !r ? "" : r->key[0] ? r->key : "custom";
}
