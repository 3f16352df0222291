/* What the runtime is asked to deliver: the event mask (SetEventMask2)
 * for the event kinds recorded, the labels of samples (activity.c) and
 * the startup-only features, beside the event stream's sessions
 * (eventpipe.c), which carry what they can. */
#ifndef CLRSCOPE_AGENT_EVENTMASK_H
#define CLRSCOPE_AGENT_EVENTMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

/* Asks the runtime for the callbacks of kinds (CS_EV_* bits) plus stack
 * snapshots.  Returns the kinds in effect; when some could not be changed
 * (after attach), says why in why. */
uint32_t evmask_apply(uint32_t kinds, char *why, size_t whylen) AGENT_HIDDEN;
/* No event and no activity label any more (stopping or detaching); a
 * later evmask_apply starts them again. */
void evmask_stop(void) AGENT_HIDDEN;
uint32_t evmask_enabled(void) AGENT_HIDDEN;
/* Whether kind (a CS_EV_* bit) is recorded now; any thread. */
bool evmask_recording(uint32_t kind) AGENT_HIDDEN;
/* Bits every mask must carry from now on (startup-only features); with
 * background_gc_off, also asks for COR_PRF_MONITOR_GC until evmask_settle
 * drops it (the runtime then keeps background GC off for good). */
void evmask_set_fixed(DWORD low, bool background_gc_off) AGENT_HIDDEN;
/* Initialize has returned: the runtime has read the first mask. */
void evmask_initialized(void) AGENT_HIDDEN;
/* Sampler thread: drops what the first mask needed only at startup. */
void evmask_settle(void) AGENT_HIDDEN;
/* Heap walks at GCs on or off (for a heap snapshot). */
HRESULT evmask_set_heap_walk(bool on) AGENT_HIDDEN;

#endif
