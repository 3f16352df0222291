/* What each runtime event means: the payload layouts of the events the
 * session asks for (ClrEtwAll.man, packed little-endian, NUL-terminated
 * UTF-16) and where each goes: GC events to gcstream.c; contention, waits
 * and sampled allocations (with the thread's own stack, walked here) to
 * evqueue; thread pool records straight to the log; type loads to
 * activity.c.  Runs on the thread that fired the event; copies what it
 * needs and returns. */
#ifndef CLRSCOPE_AGENT_RUNTIMEEVENTS_H
#define CLRSCOPE_AGENT_RUNTIMEEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

/* Installs EventPipeEventDelivered, which takes each event of
 * Microsoft-Windows-DotNETRuntime by id; the kinds the session does not
 * deliver now (eventpipe_covers) are ignored. */
void rte_install(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

#endif
