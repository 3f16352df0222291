/* The runtime's own event stream, in process: EventPipe sessions on
 * Microsoft-Windows-DotNETRuntime (ICorProfilerInfo12) whose keywords follow
 * the event kinds.  The events arrive at EventPipeEventDelivered
 * (ICorProfilerCallback10, runtimeevents.c's) on the thread that fired each. */
#ifndef CLRSCOPE_AGENT_EVENTPIPE_H
#define CLRSCOPE_AGENT_EVENTPIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

/* The kinds (CS_EV_*) that only the event stream can deliver. */
#define EVENTPIPE_ONLY_KINDS (CS_EV_CONTENTION | CS_EV_WAITS | CS_EV_THREADPOOL | CS_EV_ALLOCSAMPLES)

/* Whether the runtime has the interfaces (.NET 5 and later); asked once. */
bool eventpipe_available(void) AGENT_HIDDEN;
/* Starts, changes (a new session) or stops the session for kinds.
 * Returns the kinds it now delivers; when it could not, says why. */
uint32_t eventpipe_apply(uint32_t kinds, bool labels, char *why, size_t whylen) AGENT_HIDDEN;
/* Whether the stream delivers this kind now (CS_EV_* bit). */
bool eventpipe_covers(uint32_t kind) AGENT_HIDDEN;

#endif
