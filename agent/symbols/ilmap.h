/* Native code to IL: which IL offset an instruction of a managed body was
 * compiled from, by the body's own map (GetILToNativeMapping3, one per
 * native body: Tier0, OSR and Tier1 code of a method each have theirs).
 * Maps are asked for once per body and kept until the code map forgets
 * its bodies.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_ILMAP_H
#define CLRSCOPE_AGENT_ILMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"

#define ILMAP_NONE UINT32_MAX

int ilmap_init(void) AGENT_HIDDEN;
void ilmap_fini(void) AGENT_HIDDEN;

/* The IL offset of the instruction at addr (for a caller: its call,
 * the return address minus one) in fn's code; the method's first offset
 * for its prolog, CS_IL_EPILOG in its epilog, ILMAP_NONE when the body or
 * its map is unknown.  leaf_maybe_call: the innermost frame of a walk the
 * runtime made, whose ip is a return address when the thread is in a call
 * out of managed code. */
uint32_t ilmap_offset(FunctionID fn, uint64_t addr, bool leaf_maybe_call) AGENT_HIDDEN;

#endif
