/* Logical (async) stacks: a sample taken in an async method resumed after
 * an await goes on past the await into the methods that await it, found
 * on the heap from the running box (asyncwalk.h), instead of the thread
 * pool's dispatch loop.  Sampler thread only, but for the switch.
 *
 * A source of logical callers is one kind of async method: the compiler's
 * state machines in their boxes (this one, .NET 8 to 11).  .NET 11's
 * runtime-async methods (continuations without boxes) would be another
 * source beside it, answering the same two questions: where a stack's
 * resumed part begins (async_splice), and who awaits it. */
#ifndef CLRSCOPE_AGENT_ASYNCSTACK_H
#define CLRSCOPE_AGENT_ASYNCSTACK_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/symbols/activity.h"
#include "agent/symbols/asyncwalk.h"
#include "agent/symbols/symbols.h"

/* The switch (the async dial); any thread. */
void async_set_enabled(bool on) AGENT_HIDDEN;
bool async_enabled(void) AGENT_HIDDEN;

/* Where frames (innermost first) hold a resumed async method: the index of
 * its MoveNext, the innermost one called by a box's dispatch (not by a
 * first, synchronous run); -1 when none.  *box_class: the box's type as
 * the dispatch frame names it (0: not known). */
int32_t async_splice(const FunctionID *frames, uint32_t n, uint64_t *box_class) AGENT_HIDDEN;

/* Whether a signal's capture is to look for running boxes (async_take):
 * the switch is on and a box type is known.  Async-signal-safe. */
bool async_wanted(void) AGENT_HIDDEN;
/* The running boxes and their awaiting chains among words (a capture's
 * registers and stack words), read in the sampled thread's signal handler,
 * which the box cannot leave meanwhile; gc_epoch: activity_gc_epoch() as
 * the capture began.  Async-signal-safe. */
void async_take(const uint64_t *words, uint32_t n, uint32_t gc_epoch, struct aw_sample *out) AGENT_HIDDEN;

/* A sample's stack: the logical stack when frames hold a splice and the
 * switch is on (taken: the capture's look, NULL: none), else physical,
 * the stack id the sample has by its frames.  truncated: the walk was cut
 * (its splice may be beyond: no logical stack). */
uint64_t async_stack(uint64_t physical, const FunctionID *frames, const uint64_t *addrs, uint32_t n,
		     bool truncated, bool leaf_maybe_call, const struct activity *act, const struct aw_sample *taken,
		     struct sym_defs *d) AGENT_HIDDEN;

/* The program's own memory, read as the signal handlers and the awaits
 * snapshots' heap walks read it: types known by their MethodTables only
 * (async-signal-safe; no question to the runtime). */
const struct aw_env *async_memory(void) AGENT_HIDDEN;

/* Sampler thread: learns the type of a MethodTable a walk met and did not
 * know (read while nothing could move or free it), when it is a type the
 * walk follows (by its name; others stay unknown, the table kept for
 * these); true when it is a box's type. */
bool async_learn_walked(uint64_t mt) AGENT_HIDDEN;

/* What is known of an awaits chain's outermost method. */
enum async_root {
	ASYNC_ROOT_NONE,       /* nothing awaits it (yet) */
	ASYNC_ROOT_BLOCKED,    /* a thread waits for it: [blocking wait] at the root */
	ASYNC_ROOT_UNRESOLVED, /* the walk lost the way out: [await ?] at the root */
};

/* A chain of async methods as a stack, chain[0] the innermost (aw_walk's
 * order, the innermost itself first): the outermost MoveNext at the root,
 * under root's frame, a [WhenAll] frame above a method that awaits its
 * callee through WhenAll, and [awaiting TYPE] at the leaf when awaited (a
 * live type) says what the innermost method awaits.  A method whose
 * MoveNext cannot be had cuts the chain there: [await ?] above the methods
 * inside it.  Sampler thread. */
uint64_t async_chain_stack(const struct aw_caller *chain, uint32_t n, enum async_root root, uint64_t awaited,
			   struct sym_defs *d) AGENT_HIDDEN;

struct async_counts {
	uint64_t resolved;
	uint64_t unresolved[AW_STATUSES]; /* by cause (enum aw_status) */
	uint64_t ns;                      /* time spent in async_stack on samples with a splice */
};
struct async_counts async_counts(void) AGENT_HIDDEN;

/* The ClassLoadFinished callback (COR_PRF_MONITOR_CLASS_LOADS), which
 * queues the classes loaded; async_drain (sampler thread, each tick)
 * learns the boxes among them, for the signal handlers' looks. */
void async_install(struct ICorProfilerCallback11Vtbl *vtbl) AGENT_HIDDEN;
void async_drain(void) AGENT_HIDDEN;

/* Forgets what is known of functions and types (a new attach). */
void async_reset(void) AGENT_HIDDEN;

#endif
