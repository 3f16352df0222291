/* Counts and bytes by ClassID, added to from any thread without a lock:
 * allocation callbacks on application threads, heap-walk callbacks on GC
 * threads.  Slots are claimed once and never freed, so a slot's index is a
 * stable number for its class; a full table drops and counts. */
#ifndef CLRSCOPE_AGENT_CLASSCOUNT_H
#define CLRSCOPE_AGENT_CLASSCOUNT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"

struct cc_slot {
	_Atomic uintptr_t cls; /* 0: free */
	_Atomic uint64_t count, bytes;
};

struct cc_table {
	struct cc_slot *slots;
	uint32_t mask; /* slots - 1, a power of two minus one */
	_Atomic uint32_t used;
	_Atomic uint64_t dropped; /* additions that found no slot */
};

/* slots is rounded up to a power of two.  -1 when out of memory. */
int cc_init(struct cc_table *t, uint32_t slots) AGENT_HIDDEN;
void cc_free(struct cc_table *t) AGENT_HIDDEN;
/* Only while nobody adds. */
void cc_clear(struct cc_table *t) AGENT_HIDDEN;
bool cc_add(struct cc_table *t, ClassID cls, uint64_t bytes) AGENT_HIDDEN;

static inline uint32_t cc_capacity(const struct cc_table *t)
{
	return t->slots ? t->mask + 1 : 0;
}

#endif
