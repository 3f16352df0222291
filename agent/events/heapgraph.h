/* Heap snapshots of the live object graph, from the runtime's heap-dump
 * events: at the end of a full blocking collection forced for diagnostics
 * (ICorProfilerInfo::ForceGC), the runtime walks every live object, its
 * references and every root, and fires GCBulkNode, GCBulkEdge,
 * GCBulkRootEdge, GCBulkRootConditionalWeakTableElementEdge and
 * GCBulkRootStaticVar events to a session that asks for them (keyword
 * GCHeapDump).  Each snapshot opens such a session of its own around the
 * collection; background GC stays on (a forced collection is blocking
 * whatever the setting), launched or attached, .NET 5 and later.
 *
 * The events arrive on the collecting thread with the runtime suspended:
 * they are only encoded (graphenc.h).  After the pause the snapshot thread
 * writes the rest: the static roots with their declaring classes, the
 * methods of stack roots, the types' names, HEAP (objects by type) and
 * HEAP_GRAPH, the totals that close the snapshot. */
#ifndef CLRSCOPE_AGENT_HEAPGRAPH_H
#define CLRSCOPE_AGENT_HEAPGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

/* Whether this process can take graph snapshots (an event session next
 * to its other callbacks). */
bool hg_available(void) AGENT_HIDDEN;
/* The snapshot thread: takes snapshot seq (asked for at time_us), writes
 * its records, and says in the log what went wrong. */
void hg_take(uint64_t seq, uint64_t time_us) AGENT_HIDDEN;
/* The snapshot thread: a forced collection whose heap walk shows each
 * live object (its address and its type, a MethodTable) to visit, with the
 * runtime suspended, and writes nothing.  The pause in us, or -1 (the log
 * says why, as "WHAT SEQ failed: ..."). */
int64_t hg_visit(uint64_t seq, const char *what, void (*visit)(uint64_t address, uint64_t type)) AGENT_HIDDEN;
/* From EventPipeEventDelivered: a heap-dump event (ids 16-19, 38); others
 * and events outside a snapshot are ignored. */
void hg_event(uint32_t id, const uint8_t *data, size_t len) AGENT_HIDDEN;

#endif
