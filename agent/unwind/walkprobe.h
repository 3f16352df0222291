/* What a walk costs when its memory is cold, in a measuring build only
 * (CLRSCOPE_WALK_PROBE: the clrscope_agent_walkprobe library that
 * bench/walkcold.sh loads; the agent itself has none of this).  Four times
 * a second, the walk of a capture just made is repeated on the same copy:
 * at once (warm), after one kind of memory it touches was flushed from the
 * caches (the others warm), and after 64 MiB of its own was written (all
 * of it cold, the TLB too; the measuring build holds those 64 MiB), so
 * that the time a walk takes in the sampler thread can be told apart into
 * the memory it waits for.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_WALKPROBE_H
#define CLRSCOPE_AGENT_WALKPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

enum walkprobe_replay {
	PROBE_WARM,      /* nothing flushed */
	PROBE_CODE,      /* the agent's own code */
	PROBE_ADDRESSES, /* the code map's entries for the addresses the walk looked up */
	PROBE_BODIES,    /* ... the records of their compiled bodies */
	PROBE_TRAIL,     /* the thread's last walk, this walk's seams and its word log */
	PROBE_STACK,     /* the capture's copy of the stack */
	PROBE_ALL,       /* 64 MiB of other memory read: every cache and the TLB */
	PROBE_REPLAYS
};

/* A walk in the sampler thread took walk_ns: whether to replay it now. */
bool walkprobe_due(uint64_t walk_ns) AGENT_HIDDEN;
/* Makes the memory of a kind only this module knows cold (code, all). */
void walkprobe_evict(enum walkprobe_replay kind) AGENT_HIDDEN;
/* Flushes [p, p + len) from every cache level. */
void walkprobe_flush(const void *p, size_t len) AGENT_HIDDEN;
/* A replay of kind took ns. */
void walkprobe_replayed(enum walkprobe_replay kind, uint64_t ns) AGENT_HIDDEN;
/* Sampling was turned on (any thread): the figures start again. */
void walkprobe_restart(void) AGENT_HIDDEN;
/* The figures (the replays' medians), into the agent's debug log. */
void walkprobe_report(void) AGENT_HIDDEN;

#endif
