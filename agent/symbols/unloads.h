/* The runtime's IDs against the unloading of collectible code.
 *
 * A collectible assembly's FunctionIDs, ClassIDs and ModuleID are pointers
 * into memory the runtime frees once its ModuleUnloadStarted returns, and
 * its code's addresses lead the runtime's lookups there until the code is
 * gone; the runtime's info methods do not check an ID, and one asked about
 * too late reads freed memory (the program dies of SIGSEGV).  So the sampler
 * thread asks the runtime about IDs only while it holds the guard, from the
 * capture or walk that found them to the naming of their frames, and the
 * unload takes it: it waits for the tick or drain under way, has what other
 * threads queued named while the IDs are still good (a flush the caller
 * gives), and leaves its time behind, by which the sampler thread knows
 * what it took before: a capture older than the last unload is not asked
 * about, and neither are the code map's addresses (forgotten). */
#ifndef CLRSCOPE_AGENT_UNLOADS_H
#define CLRSCOPE_AGENT_UNLOADS_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"

/* The sampler thread, around each tick and drain. */
void unloads_hold(void) AGENT_HIDDEN;
void unloads_release(void) AGENT_HIDDEN;
/* The sampler thread begins (on) or ends (off), holding the guard: while it
 * runs, the queue it names is flushed at each unload. */
void unloads_sampler_running(bool on) AGENT_HIDDEN;
/* When the latest unload began (CLOCK_MONOTONIC; 0: none so far): read
 * with the guard held. */
uint64_t unloads_last_ns(void) AGENT_HIDDEN;
/* ModuleUnloadStarted (any thread): waits for the guard, runs flush when the
 * sampler thread runs (what is queued for it, named now), notes the unload. */
void unloads_module(void (*flush)(void)) AGENT_HIDDEN;

#endif
