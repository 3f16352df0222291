/* The agent's running state, and stopping and detaching it: Shutdown (a
 * runtime thread), a detach and a stop for a vanished or full session (the
 * control thread) may come at once, so they take one lock. */
#ifndef CLRSCOPE_AGENT_LIFECYCLE_H
#define CLRSCOPE_AGENT_LIFECYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

/* The start is complete: its threads run until life_stop. */
void life_started(void) AGENT_HIDDEN;
/* Stops sampling, events and the log (writing END with reason and why),
 * and releases the process lock; the runtime keeps the agent loaded. */
void life_stop(uint8_t reason, const char *why) AGENT_HIDDEN;
/* The detach sequence (control thread only): 0 when the runtime accepted
 * it, else -1 with why, and profiling goes on. */
int life_detach(uint64_t generation, uint32_t rate_hz, bool sampling, char *why, size_t whylen) AGENT_HIDDEN;
/* Holds the lock that start, stop and detach take, if the agent runs:
 * dials are applied under it, so that they never touch a sampler that
 * Shutdown is stopping.  false (and nothing held) when it has stopped. */
bool life_hold_running(void) AGENT_HIDDEN;
void life_release(void) AGENT_HIDDEN;

#endif
