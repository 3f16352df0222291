/* What each runtime event means: the payload layouts of the events the
 * session asks for (ClrEtwAll.man, packed little-endian, NUL-terminated
 * UTF-16) and where each goes: GC events to gcstream.c, contention, waits and sampled allocations (with the
 * thread's own stack, walked here) to evqueue, thread pool records straight
 * to the log.  Runs on the thread that fired the event; copies what it
 * needs and returns. */
#ifndef CLRSCOPE_AGENT_RUNTIMEEVENTS_H
#define CLRSCOPE_AGENT_RUNTIMEEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

/* One event of Microsoft-Windows-DotNETRuntime, by id; the kinds not
 * delivered now (eventpipe_covers) are ignored. */
void rte_deliver(uint32_t id, const uint8_t *data, size_t len) AGENT_HIDDEN;

#endif
