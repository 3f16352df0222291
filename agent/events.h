/* Runtime events: GC, exceptions, JIT, module and thread life.  The
 * callbacks here run on the runtime's threads and do the least they can:
 * GC records are complete on the spot (no names needed); everything that
 * needs a name goes through evqueue.c to the sampler thread. */
#ifndef CLRSCOPE_AGENT_EVENTS_H
#define CLRSCOPE_AGENT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "symbols.h"

/* Asks the runtime for the callbacks of kinds (CS_EV_* bits) plus stack
 * snapshots.  Returns the kinds in effect; when some could not be changed
 * (after attach), says why in why. */
uint32_t events_apply(uint32_t kinds, char *why, size_t whylen) AGENT_HIDDEN;
uint32_t events_enabled(void) AGENT_HIDDEN;
/* The event mask to request in Initialize / InitializeForAttach. */
void events_initial_mask(uint32_t kinds, DWORD *low, DWORD *high) AGENT_HIDDEN;

/* Sampler thread: names and logs what the callbacks queued. */
void events_drain(struct sym_defs *defs) AGENT_HIDDEN;

/* Installs the event callbacks into the vtable. */
void events_install(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

#endif
