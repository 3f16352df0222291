/* Runtime events: GC, exceptions, JIT, module and thread life.  The
 * callbacks here run on the runtime's threads and do the least they can:
 * GC records are complete on the spot (no names needed); everything that
 * needs a name goes through evqueue.c to the sampler thread. */
#ifndef CLRSCOPE_AGENT_EVENTS_H
#define CLRSCOPE_AGENT_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/symbols.h"

/* Asks the runtime for the callbacks of kinds (CS_EV_* bits) plus stack
 * snapshots.  Returns the kinds in effect; when some could not be changed
 * (after attach), says why in why. */
uint32_t events_apply(uint32_t kinds, char *why, size_t whylen) AGENT_HIDDEN;
/* No event and no activity label any more (stopping or detaching); a
 * later events_apply starts them again. */
void events_stop(void) AGENT_HIDDEN;
uint32_t events_enabled(void) AGENT_HIDDEN;
/* Bits every mask must carry from now on (startup-only features); with
 * background_gc_off, also asks for COR_PRF_MONITOR_GC until events_settle
 * drops it (the runtime then keeps background GC off for good). */
void events_set_fixed(DWORD low, bool background_gc_off) AGENT_HIDDEN;
/* Initialize has returned: the runtime has read the first mask. */
void events_initialized(void) AGENT_HIDDEN;
/* Sampler thread: drops what the first mask needed only at startup. */
void events_settle(void) AGENT_HIDDEN;
/* Heap walks at GCs on or off (for a heap snapshot). */
HRESULT events_set_heap_walk(bool on) AGENT_HIDDEN;
/* Garbage collections started since the agent started. */
uint64_t events_gc_count(void) AGENT_HIDDEN;

/* Sampler thread: names and logs what the callbacks queued. */
void events_drain(struct sym_defs *defs) AGENT_HIDDEN;

/* Installs the event callbacks into the vtable. */
void events_install(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

#endif
