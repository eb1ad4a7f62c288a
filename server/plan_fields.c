/* plan_fields.c - the vocabulary every part of a plan shares: the status
 * names, refusing unknown keys with the allowed ones listed, and prefixing an
 * error's field with where it sits in the plan. Callers: plan.c,
 * plan_scenario.c, plan_assert.c and plan_mlsysim.c (plan_internal.h). */
#include <stdio.h>
#include <string.h>

#include "server/plan_internal.h"

const char *const PLAN_STATUS_NAMES[] = {"pass", "fail", "infeasible", NULL};


int plan_prefix_field(api_error *err, const char *prefix)
{
    char f[sizeof err->field + 80];
    if (!*prefix)
        return -1;
    if (err->field[0])
        snprintf(f, sizeof f, "%.70s.%s", prefix, err->field);
    else
        snprintf(f, sizeof f, "%.70s", prefix);
    snprintf(err->field, sizeof err->field, "%.*s", (int)sizeof err->field - 1, f);
    return -1;
}

int plan_known_keys(const json_t *obj, const char *const *keys, const char *prefix, api_error *err)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        bool known = false;
        for (size_t i = 0; keys[i] && !known; i++)
            known = !strcmp(key, keys[i]);
        if (known)
            continue;
        char field[160], list[400] = "";
        size_t used = 0;
        for (size_t i = 0; keys[i] && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", keys[i]);
        snprintf(field, sizeof field, "%s%s%.100s", prefix, *prefix ? "." : "", key);
        return api_fail(err, 400, "unknown-field", field, "unknown field '%.80s'%s%s; allowed: %s", key,
                        *prefix ? " in " : "", prefix, list);
    }
    return 0;
}
