/* When to ask the runtime for its thread list again: when a managed thread
 * started, got its OS thread or ended (the runtime's thread callbacks say
 * so), and at least once a second in case they are not delivered.  Asking
 * takes the lock a GC holds for its whole length and costs a runtime call
 * per thread, so each caller keeps when it last asked. */
#ifndef CLRSCOPE_AGENT_THREADLIST_H
#define CLRSCOPE_AGENT_THREADLIST_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"

/* A thread started, got its OS thread or ended (any thread). */
void threadlist_changed(void) AGENT_HIDDEN;
/* How many such changes so far. */
uint64_t threadlist_changes(void) AGENT_HIDDEN;

/* When a caller last asked: the change count read before it, and the time. */
struct threadlist_asked {
	uint64_t changes, at_ns;
};
/* Whether to ask again (threads came or went since, or a second passed;
 * not during a GC either, which is the caller's to check). */
bool threadlist_due(const struct threadlist_asked *a, uint64_t now_ns) AGENT_HIDDEN;
/* Notes an ask, with the change count read before it. */
void threadlist_taken(struct threadlist_asked *a, uint64_t changes, uint64_t now_ns) AGENT_HIDDEN;

#endif
