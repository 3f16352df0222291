/* Allocation counting by type: the ObjectAllocated callback on every
 * allocating thread adds the object's size to its class's counters (no
 * lock, no names); the sampler thread writes ALLOCS records after each GC
 * and every second, naming classes as it goes.  Possible only at startup. */
#ifndef CLRSCOPE_AGENT_ALLOCS_H
#define CLRSCOPE_AGENT_ALLOCS_H

#include <stdbool.h>

#include "agent/agent.h"

int allocs_configure(bool on, char *why, size_t whylen) AGENT_HIDDEN;
bool allocs_configured(void) AGENT_HIDDEN;
/* Event mask bits the counting needs; immutable once Initialize returns. */
DWORD allocs_mask_bits(void) AGENT_HIDDEN;
void allocs_install_callbacks(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

/* The dial: the callback stays; off makes it return at once. */
void allocs_set_recording(bool on) AGENT_HIDDEN;
bool allocs_recording(void) AGENT_HIDDEN;

/* Sampler thread: an ALLOCS record when a GC happened or a second passed. */
void allocs_drain(bool force) AGENT_HIDDEN;

#endif
