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
#include "agent/symbols/symbols.h"

/* Garbage collections started since the agent started. */
uint64_t events_gc_count(void) AGENT_HIDDEN;

/* Sampler thread (or an unload, holding the unload guard): names and logs
 * what the callbacks queued. */
void events_drain(struct sym_defs *defs) AGENT_HIDDEN;

/* Called on the runtime's thread callbacks whenever a managed thread
 * started, got its OS thread or ended (the sampler's cue to list the
 * threads again).  Set before events_install. */
void events_set_thread_hook(void (*changed)(void)) AGENT_HIDDEN;
/* Installs the event callbacks into the vtable. */
void events_install(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

#endif
