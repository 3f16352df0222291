/* Enter/leave instrumentation: exact call counts and inclusive/exclusive
 * times of the functions whose names match the user's patterns.
 *
 * Only possible at startup: the runtime's slow-path hooks
 * (SetEnterLeaveFunctionHooks3WithInfo) call plain C functions here, and a
 * FunctionIDMapper2 decides per function whether it gets hooks at all, so
 * functions outside the patterns cost nothing.  Each thread keeps a shadow
 * stack of hooked frames; exceptions unwind it through the unwind callbacks,
 * tail calls end the caller's frame, and a leave whose frame is not on top
 * repairs the stack instead of corrupting it.  Totals are atomics that the
 * sampler thread writes out as CALLS records. */
#ifndef CLRSCOPE_AGENT_INSTRUMENT_H
#define CLRSCOPE_AGENT_INSTRUMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/agent.h"
#include "agent/symbols/symbols.h"

/* Patterns, one per line ("Ns.Type.*", "*.Method", exact names).  Returns
 * -1 with why when they cannot be used.  Nothing is hooked without them. */
int instr_configure(const char *patterns, char *why, size_t whylen) AGENT_HIDDEN;
bool instr_configured(void) AGENT_HIDDEN;
/* The patterns as given, one per line (for HELLO). */
const char *instr_patterns(void) AGENT_HIDDEN;
/* Event mask bits the hooks need; immutable once Initialize returns. */
DWORD instr_mask_bits(void) AGENT_HIDDEN;
/* In Initialize, after the event mask holds instr_mask_bits(). */
int instr_install(char *why, size_t whylen) AGENT_HIDDEN;
void instr_install_callbacks(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

/* The dial: hooks stay in the code; off makes them return at once. */
void instr_set_recording(bool on) AGENT_HIDDEN;
bool instr_recording(void) AGENT_HIDDEN;

/* Sampler thread: writes CALLS records when something changed (at most
 * twice a second; force: now). */
void instr_drain(struct sym_defs *defs, bool force) AGENT_HIDDEN;

#endif
