/* The sampler thread's time slice (see timeslice.c).  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_TIMESLICE_H
#define CLRSCOPE_AGENT_TIMESLICE_H

#include <stdbool.h>

#include "agent/agent.h"

/* Asks for a short time slice (on) or the kernel's own (off); a no-op when
 * it already has the one asked for. */
void timeslice_short(bool on) AGENT_HIDDEN;

#endif
