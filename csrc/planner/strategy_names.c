/*
 * The stable names of the placement strategies. They live apart from the
 * dispatcher (plan.c) so that the validation every entry point shares
 * (common.c) can check a strategy without calling up into it.
 */
#include "arenaplan/planner.h"

#include <stddef.h>

const char *ap_strategy_str(ap_strategy strategy)
{
    switch (strategy) {
    case AP_STRATEGY_AUTO: return "auto";
    case AP_STRATEGY_GREEDY_SIZE: return "greedy_size";
    case AP_STRATEGY_GREEDY_SIZE_BEST_FIT: return "greedy_size_best_fit";
    case AP_STRATEGY_GREEDY_CONFLICTS: return "greedy_conflicts";
    case AP_STRATEGY_GREEDY_CONFLICTS_BEST_FIT: return "greedy_conflicts_best_fit";
    case AP_STRATEGY_ANNEAL: return "anneal";
    case AP_STRATEGY_EXACT: return "exact";
    case AP_STRATEGY_LNS: return "lns";
    case AP_STRATEGY_BANDS: return "bands";
    case AP_STRATEGY_SWEEP: return "sweep";
    }
    return NULL;
}
