/* The interface identifiers corprof.h declares, defined once for the agent. */
#define CORPROF_DEFINE_GUIDS
#include "agent/corprof.h"
