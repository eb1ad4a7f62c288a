/* context.h - the request context every handler reads: the app (the catalog,
 * the settings, the contract, what was rendered at start-up). Types only;
 * app.c owns and fills it (app_init), handlers include this, never app.h. */
#ifndef MLSYSD_CONTEXT_H
#define MLSYSD_CONTEXT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "catalog/catalog.h"
#include "server/config.h"
#include "server/inputs.h"
#include "server/request.h"

typedef struct app {
    const catalog *cat;
    const config *cfg;
    struct contract_cache *contract; /* the contract, built on first use (contract.h: contract_get) */
    atomic_bool ready;
    atomic_bool draining;
    struct app_prebuilt *pre;   /* answers rendered once by app_init (prebuilt.h); NULL: none */
    struct solve_parts *solve_parts; /* fixed parts of every solver's /solve answer (solve.h); NULL: none */
    int sweep_threads;          /* threads one sweep's rows may use (--sweep-threads; 0 there: one per CPU) */
} app;

#endif
