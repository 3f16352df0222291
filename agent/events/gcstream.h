/* GC records built from the runtime's GC events (GCStart, GCEnd,
 * GCHeapStats and the suspensions around them) when the event session
 * carries them: the runtime's own reason, type, promoted bytes and pinned
 * objects, which the profiling callbacks do not tell.  Called on whichever
 * thread fired the event (a GC thread, the background GC thread, or an
 * application thread that triggered a collection). */
#ifndef CLRSCOPE_AGENT_GCSTREAM_H
#define CLRSCOPE_AGENT_GCSTREAM_H

#include <stdint.h>

#include "agent/agent.h"

struct gcs_heap_stats {
	uint64_t gen_bytes[5]; /* 0, 1, 2, large, pinned object heaps */
	uint64_t promoted_bytes;
	uint64_t pinned_objects;
};

void gcs_started(uint32_t count, uint32_t depth, uint32_t reason, uint32_t type) AGENT_HIDDEN;
void gcs_ended(uint32_t count) AGENT_HIDDEN;
void gcs_heap_stats(const struct gcs_heap_stats *s) AGENT_HIDDEN;
/* The runtime began suspending for a GC (reason: the event's
 * GCSuspendEEReason) / finished restarting after one. */
void gcs_suspend_begin(uint32_t reason) AGENT_HIDDEN;
void gcs_restart_end(void) AGENT_HIDDEN;
/* The session restarted: what was half seen is dropped. */
void gcs_reset(void) AGENT_HIDDEN;

#endif
