/* Awaits snapshots: the async chains waiting now, for "why are my requests
 * stuck".  A heap walk (heapsnap.h's, with the runtime suspended) shows
 * each object to awaitsnap_visit, which keeps the boxes of async methods
 * suspended at an await and the box that awaits each (asyncwalk.h's step,
 * read there and then, before anything can move).  After the walk the
 * sampler thread links them into chains: each box that no kept box awaits
 * is the innermost of a chain, counted once under the chain's logical
 * stack, outermost method first, in an AWAITS record. */
#ifndef CLRSCOPE_AGENT_AWAITSNAP_H
#define CLRSCOPE_AGENT_AWAITSNAP_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/symbols/symbols.h"

/* Snapshot thread: before a walk; false when the one before is not
 * written yet (try again later). */
bool awaitsnap_begin(void) AGENT_HIDDEN;
/* During the walk, the runtime suspended: one object and its MethodTable
 * (one caller at a time). */
void awaitsnap_visit(uint64_t address, uint64_t type) AGENT_HIDDEN;
/* Snapshot thread: the walk of snapshot seq is over (pause_us < 0: it
 * failed, nothing is written); walk: cs_heap_walk. */
void awaitsnap_end(uint64_t seq, uint64_t time_us, int64_t pause_us, uint8_t walk) AGENT_HIDDEN;
/* Snapshot thread: a snapshot to walk again (0: none), once, when its
 * walk met box types not known yet (loaded before an attach), now learnt. */
uint32_t awaitsnap_retake(void) AGENT_HIDDEN;
/* Sampler thread: writes a finished snapshot. */
void awaitsnap_drain(struct sym_defs *defs) AGENT_HIDDEN;

#endif
