/* What the runtime is doing on a thread that its stack cannot tell:
 * compiling a method, loading a type, collecting garbage.  The callbacks
 * and events that bracket each one (JITCompilationStarted/Finished and
 * their dynamic-method twins, the event stream's TypeLoadStart/Stop,
 * RuntimeSuspendStarted for a GC/RuntimeResumeFinished), all delivered on
 * the thread doing the work, note it here, keyed by OS thread; the signal
 * handler copies its own thread's note into its capture, the sampler reads
 * the notes of the threads it walks, and a sample whose innermost frames
 * are native code gets the activity instead of an anonymous native run:
 * "Caller;Method;[JIT compilation]", "Alloc;[GC]". */
#ifndef CLRSCOPE_AGENT_ACTIVITY_H
#define CLRSCOPE_AGENT_ACTIVITY_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"

enum act_kind { ACT_JIT = 1, ACT_TYPE_LOAD = 2, ACT_GC = 3 };

#define ACT_DEPTH 4 /* nested activities kept (a compilation loading a type) */

/* A thread's activities, outermost first: each word is kind << 56 | the
 * FunctionID being compiled (ACT_JIT; 0 for the others). */
struct activity {
	uint8_t n;
	uint64_t word[ACT_DEPTH];
};

static inline enum act_kind act_word_kind(uint64_t word)
{
	return (enum act_kind)(word >> 56);
}

#define ACT_FN_MASK ((UINT64_C(1) << 56) - 1) /* a word's FunctionID bits */

static inline FunctionID act_word_function(uint64_t word)
{
	return (FunctionID)(word & ACT_FN_MASK);
}

/* The calling thread begins or ends an activity (runtime callbacks).  An
 * end without its beginning (callbacks switched on half-way) is ignored;
 * an end closes the innermost activity of its kind and any left open
 * inside it. */
void activity_enter(enum act_kind kind, FunctionID fn) AGENT_HIDDEN;
void activity_leave(enum act_kind kind) AGENT_HIDDEN;

/* The activities of OS thread tid right now (false: none).  Lock-free,
 * bounded, async-signal-safe: the signal handler calls it. */
bool activity_of(uint32_t tid, struct activity *out) AGENT_HIDDEN;

/* The runtime is suspended for a garbage collection (set and cleared by
 * the suspension callbacks): it holds its thread list meanwhile, so the
 * sampler must not ask for it (EnumThreads would wait for the GC's end). */
void activity_gc_suspension(bool on) AGENT_HIDDEN;
bool activity_in_gc_suspension(void) AGENT_HIDDEN;
/* A count of the GC suspensions' starts and ends (odd: in one): objects
 * read while it held one even value did not move.  Async-signal-safe. */
uint32_t activity_gc_epoch(void) AGENT_HIDDEN;

/* Installs the callbacks only this module needs (dynamic methods); the
 * JIT and suspension callbacks (events/events.c) and the type load events
 * (events/runtimeevents.c) call in. */
void activity_install(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;

#endif
