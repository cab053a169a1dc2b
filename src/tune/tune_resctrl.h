/*
 * The cache-partition action (tune_resctrl.c): an exclusive share of the L3
 * ways for the target CPUs in a resctrl group, the default group shrunk to
 * the rest. Planned from sys/resctrl.h's reader; tune.c journals and applies.
 */
#ifndef JITTERLAB_TUNE_TUNE_RESCTRL_H
#define JITTERLAB_TUNE_TUNE_RESCTRL_H

#include "tune/tune.h"

void plan_cache_partition(const struct tune_request *rq, struct tune_plan *plan);

#endif
