/* data.h - the data wall: mlsysim DataModel (engine/solvers/data.py). */
#ifndef MLSYSD_DATA_H
#define MLSYSD_DATA_H

#include "core/model.h"

/* The supply path DataModel picks: the slower of storage and host
 * interconnect among those defined and > 0 (tie -> Storage); "Unknown" with
 * supply 0 when neither exists. supply in B/s; path is a static string. */
void data_supply_path(const hw_node *hw, double *supply, const char **path);

#endif
