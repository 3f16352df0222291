/* Heap snapshots: live objects by type, on request.
 *
 * A thread of its own (the runtime makes it a managed thread on the first
 * ForceGC, so it is kept for nothing else) turns on the heap walk, forces a
 * full blocking GC and turns the walk off again.  During that GC the
 * ObjectReferences callbacks, while the ObjectIDs are valid, count each live
 * object by class with its aligned size, and RootReferences2 counts roots by
 * kind.  The sampler thread then names the classes and writes HEAP records. */
#ifndef CLRSCOPE_AGENT_HEAPSNAP_H
#define CLRSCOPE_AGENT_HEAPSNAP_H

#include <stdbool.h>
#include <stdint.h>

#include "agent.h"

/* Control thread: take snapshots until `seq` of them were asked for. */
void heapsnap_request(uint32_t seq) AGENT_HIDDEN;
/* Stops the snapshot thread (waits for a snapshot in progress). */
void heapsnap_stop(void) AGENT_HIDDEN;
void heapsnap_install_callbacks(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

/* From the GC callbacks in events.c. */
void heapsnap_gc_started(int generations, const BOOL *collected) AGENT_HIDDEN;
void heapsnap_gc_finished(void) AGENT_HIDDEN;

/* Sampler thread: writes a finished snapshot. */
void heapsnap_drain(void) AGENT_HIDDEN;

#endif
