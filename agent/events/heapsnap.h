/* Heap snapshots: objects by type, on request, on a thread of its own.
 * Three walks:
 *
 * - graph (the default where an event session can be opened): the live
 *   objects, their references and their roots, from the runtime's
 *   heap-dump events during a forced full collection (heapgraph.h), which
 *   this thread writes itself.  Background GC stays on.
 *
 * The other two count objects by class; the sampler thread then names the
 * classes and writes HEAP records:
 *
 * - suspended (.NET 10 and later, in a process with instrumentation): SuspendRuntime, then
 *   ICorProfilerInfo15::EnumerateGCHeapObjects counts every object in the
 *   heap by class with its aligned size, then ResumeRuntime.  No GC, no GC
 *   event mask: background GC stays on.  Garbage not yet collected counts
 *   too, and roots are not counted.
 * - gc (--heap-snapshots at launch, attached to an older runtime): the
 *   thread (a managed thread after its first ForceGC) turns on the heap
 *   walk, forces a full blocking GC and turns the walk off again; during
 *   that GC ObjectReferences counts each live object and RootReferences2
 *   the roots by kind.  The walk needs background GC off: at launch the
 *   first event mask turns it off for good. */
#ifndef CLRSCOPE_AGENT_HEAPSNAP_H
#define CLRSCOPE_AGENT_HEAPSNAP_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/symbols/symbols.h"

/* Startup: which walk this process gets.  gc_walk: --heap-snapshots;
 * attached: loaded by an attach (where the gc walk may still turn
 * background GC off when a snapshot is asked for).  Returns whether the
 * runtime must see COR_PRF_MONITOR_GC in the first mask. */
bool heapsnap_configure(bool gc_walk, bool attached) AGENT_HIDDEN;
/* Whether snapshots walk a forced GC (else the suspended walk, or none). */
bool heapsnap_gc_walk(void) AGENT_HIDDEN;
/* Control thread: take snapshots of a kind until `seq` of them were asked
 * for (an awaits snapshot, awaitsnap.h, walks the heap the same way);
 * -1 with why when this process cannot have them. */
enum snapshot_kind { SNAPSHOT_HEAP, SNAPSHOT_AWAITS };
int heapsnap_request(enum snapshot_kind kind, uint32_t seq, char *why, size_t whylen) AGENT_HIDDEN;
/* Stops the snapshot thread (waits for a snapshot in progress). */
void heapsnap_stop(void) AGENT_HIDDEN;
void heapsnap_install_callbacks(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

/* From the GC callbacks in events.c. */
void heapsnap_gc_started(int generations, const BOOL *collected) AGENT_HIDDEN;
void heapsnap_gc_finished(void) AGENT_HIDDEN;

/* Sampler thread: writes a finished snapshot (heap or awaits). */
void heapsnap_drain(struct sym_defs *defs) AGENT_HIDDEN;

#endif
