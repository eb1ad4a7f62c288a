/* model.c - small helpers on the hardware node and workload records.
 *
 * The type names are mlsysim's Workload class names (models/types.py
 * @087dd538; EmbodiedWorkload from models/data/embodied.yaml @1107af62), so
 * catalog files and request objects use the same spelling as the Python
 * registry's "__type__"/"type" field. */
#include "core/model.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const struct {
    workload_kind kind;
    const char *name;
} kinds[] = {
    {WL_GENERIC, "Workload"},
    {WL_TRANSFORMER, "TransformerWorkload"},
    {WL_SPARSE_TRANSFORMER, "SparseTransformerWorkload"},
    {WL_CNN, "CNNWorkload"},
    {WL_SSM, "SSMWorkload"},
    {WL_DIFFUSION, "DiffusionWorkload"},
    {WL_EMBODIED, "EmbodiedWorkload"},
};

const char *workload_kind_name(workload_kind k)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].kind == k)
            return kinds[i].name;
    return "Workload";
}

/* Case-insensitive: a request may say "cnnworkload"; the catalog always
 * stores mlsysim's spelling. */
bool workload_kind_parse(const char *name, workload_kind *out)
{
    if (name == NULL)
        return false;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcasecmp(kinds[i].name, name) == 0) {
            if (out != NULL)
                *out = kinds[i].kind;
            return true;
        }
    }
    return false;
}

/* Exact match: the catalog lower-cases precision keys on load, and the
 * solvers normalise the requested precision the way mlsysim's
 * resolve_precision() does (lower case) before asking. */
const hw_precision_flops *hw_find_precision(const hw_node *hw, const char *key)
{
    if (hw == NULL || key == NULL)
        return NULL;
    for (int i = 0; i < hw->n_precisions && i < HW_MAX_PRECISIONS; i++)
        if (strcmp(hw->precisions[i].name, key) == 0)
            return &hw->precisions[i];
    return NULL;
}
