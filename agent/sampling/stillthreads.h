/* Threads that have not run since their stack was last walked.  A thread
 * whose CPU clock has not moved cannot have changed its stack, so the
 * suspending sampler reuses the stack it interned then instead of walking
 * the thread again while the runtime is stopped, and does not suspend at all
 * when no thread ran.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_STILLTHREADS_H
#define CLRSCOPE_AGENT_STILLTHREADS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "agent/agent.h"
#include "agent/sampling/sigsampler.h"

struct still_thread {
	ThreadID thread;
	uint32_t os_tid;
	clockid_t clock;     /* its CPU clock; 0 when unknown */
	uint64_t cpu_now;    /* read by still_survey, before any suspension */
	uint64_t cpu_walked; /* CPU time at (or before) its last walk */
	uint64_t stack;      /* the interned stack of that walk; 0: no managed frame */
	uint64_t cpu_before; /* CPU time at the survey before; 0: not in it */
	uint32_t walk_only;  /* surveys left in which signals are not used */
	uint32_t unmanaged_run; /* signal captures without a managed frame in a row */
	bool walked;         /* stack and cpu_walked hold */
	struct syscall_site wait; /* ... from a capture in this system call (cpu_walked: as its handler
				     ended, or when it was last seen still in that call); pc 0: not so */
	bool still;          /* not run since that walk, as of cpu_now */
	bool by_signal;      /* this tick's sample comes from a signal */
	bool walk_now;       /* its capture gave no sample: walk it in this tick's suspension */
	bool check_now;      /* walk it exactly and repeat the walk the fast way (validate dial) */
	bool check_wanted;   /* ... when a tick suspends anyway */
	uint32_t check_waited; /* fast walks since it was wanted */
	uint32_t fast_walks; /* signal samples (and frames kept by proof) since its last check */
	uint64_t parked_check; /* the stack its proof kept, to compare with this signal's capture (0: none) */
	struct syscall_site parked_check_site; /* ... where the proof found it */
	uint64_t cpu_logged; /* CPU time in its last THREAD_CPU entry */
	uint64_t cpu_accounted; /* CPU time its samples have been weighed against */
	int64_t cpu_credit;     /* CPU time used and not yet stood for by an on-CPU sample */
	bool kernel_sampled;    /* the kernel samples it (kernel sampler): its CPU time is their samples' */
	bool paying;            /* ... and a signal was sent for a period of CPU time they missed */
};

/* Forgets every thread (a new attach: the interned stacks are gone). */
void still_reset(void) AGENT_HIDDEN;
/* Lists the managed threads with the runtime running, carrying over what
 * is known of each, and reads their CPU clocks.  Returns how many threads
 * have run since their last walk (or were never walked); -1 when the runtime
 * could not list its threads.  Every check_every-th time a thread's frames
 * are kept by its capture's proof (0: never), it counts as run instead,
 * with parked_check set: its next capture is compared with them. */
int still_survey(uint32_t check_every) AGENT_HIDDEN;
/* Threads caught in a system call that ran since and were asked where they
 * are: found with the captured frames by the capture's proof (and kept
 * them), found elsewhere, or without a proof (then kept only after little
 * CPU). */
struct still_stats {
	uint64_t parked_kept, parked_moved, parked_unproven;
};
struct still_stats still_stats(void) AGENT_HIDDEN;
/* Whether t used so little CPU since the survey before (at most
 * PROOF_CPU_SHARE of the time between them) that the survey's moment
 * finds it as a moment drawn at random would, but for that share: then
 * where it waits now may stand for its sample. */
bool still_little_cpu(const struct still_thread *t) AGENT_HIDDEN;
/* The surveyed threads, sorted by ThreadID. */
struct still_thread *still_threads(uint32_t *n) AGENT_HIDDEN;
/* The surveyed thread, or NULL for one that started after the survey. */
struct still_thread *still_find(ThreadID thread) AGENT_HIDDEN;
/* A walk of t, as of the survey, interned as stack (0: no managed frame). */
void still_walked(struct still_thread *t, uint64_t stack) AGENT_HIDDEN;
/* A signal capture of t whose handler ended at the thread's CPU time
 * cpu_end, the system call it interrupted (NULL or pc 0: none); its stack
 * (0: no managed frame) is STILL_STACK_PENDING until the tick interns it. */
#define STILL_STACK_PENDING UINT64_MAX
void still_captured(struct still_thread *t, uint64_t cpu_end, const struct syscall_site *wait,
		    uint64_t stack) AGENT_HIDDEN;

#endif
