/* registry.c - the registry of solvers. Adding a solver = one file in core/
 * exporting a solver_desc + one line in SOLVERS below. Every fact about a
 * solver belongs in its descriptor: the server, the catalog and the dashboard
 * reach solvers only through this registry (solver_count, solver_at,
 * solver_find) and the descriptors, never by naming one (tests and benchmarks
 * do name the solvers they exercise). Nothing in core/ calls the registry. */
#include "core/solver.h"

#include <strings.h>

/* The registry, one line per solver, in the order GET /solvers lists them:
 * X(descriptor) names the solver_desc its core/ file exports. */
#define SOLVERS(X) \
    X(SOLVER_SINGLE_NODE)             \
    X(SOLVER_DATA)                    \
    X(SOLVER_TRANSFORMATION)          \
    X(SOLVER_PIPELINE)                \
    X(SOLVER_COMPRESSION)             \
    X(SOLVER_EFFICIENCY)              \
    X(SOLVER_SENSITIVITY)             \
    X(SOLVER_SYNTHESIS)               \
    X(SOLVER_RESPONSIBLE_ENGINEERING) \
    X(SOLVER_SCALING)                 \
    X(SOLVER_SUSTAINABILITY)          \
    X(SOLVER_ECONOMICS)               \
    X(SOLVER_RELIABILITY)             \
    X(SOLVER_ORCHESTRATION)           \
    X(SOLVER_PLACEMENT)               \
    X(SOLVER_TRAINING_MEMORY)         \
    X(SOLVER_CHECKPOINT)              \
    X(SOLVER_DISTRIBUTED)             \
    X(SOLVER_MOE_ROUTING)             \
    X(SOLVER_TOPOLOGY)                \
    X(SOLVER_NETWORK_ROOFLINE)        \
    X(SOLVER_PARALLELISM)             \
    X(SOLVER_SERVING)                 \
    X(SOLVER_CONTINUOUS_BATCHING)     \
    X(SOLVER_SERVING_CAPACITY)        \
    X(SOLVER_WEIGHT_STREAMING)        \
    X(SOLVER_TAIL_LATENCY)            \
    X(SOLVER_INFERENCE_SCALING)       \
    X(SOLVER_BATCHING_OPTIMIZER)      \
    X(SOLVER_SERVING_SIMULATION)

#define DECLARE_SOLVER(desc) extern const solver_desc desc;
SOLVERS(DECLARE_SOLVER)
#define SOLVER_ENTRY(desc) &desc,
static const solver_desc *const REGISTRY[] = {SOLVERS(SOLVER_ENTRY)};

size_t solver_count(void) { return sizeof REGISTRY / sizeof REGISTRY[0]; }

const solver_desc *solver_at(size_t i) { return i < solver_count() ? REGISTRY[i] : NULL; }

long solver_find(const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < solver_count(); i++) {
        const solver_desc *s = REGISTRY[i];
        if (strcasecmp(s->name, name) == 0)
            return (long)i;
        for (const char *const *a = s->aliases; a && *a; a++)
            if (strcasecmp(*a, name) == 0)
                return (long)i;
    }
    return -1;
}
