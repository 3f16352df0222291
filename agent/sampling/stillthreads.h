/* The survey: the managed threads the runtime lists, each tick, with the
 * CPU clock of each, into the thread table (threadtable.h), and which of
 * them have not run since their stack was last walked.  A thread whose CPU
 * clock has not moved cannot have changed its stack, so the engines reuse
 * the stack interned then instead of walking the thread again, and do not
 * suspend at all when no thread ran.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_STILLTHREADS_H
#define CLRSCOPE_AGENT_STILLTHREADS_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/sampling/threadtable.h"

/* Forgets every thread it listed (the interned stacks are gone: a new
 * attach, a new id space) and its counts. */
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
bool still_little_cpu(const struct sampled_thread *t) AGENT_HIDDEN;
/* The surveyed threads, sorted by ThreadID. */
struct sampled_thread **still_threads(uint32_t *n) AGENT_HIDDEN;
/* The surveyed thread, or NULL for one that started after the survey. */
struct sampled_thread *still_find(ThreadID thread) AGENT_HIDDEN;
/* A walk of t, as of the survey, interned as stack (0: no managed frame). */
void still_walked(struct sampled_thread *t, uint64_t stack) AGENT_HIDDEN;
/* A signal capture of t whose handler ended at the thread's CPU time
 * cpu_end, the system call it interrupted (NULL or pc 0: none); its stack
 * (0: no managed frame) is STILL_STACK_PENDING until the tick interns it. */
#define STILL_STACK_PENDING UINT64_MAX
void still_captured(struct sampled_thread *t, uint64_t cpu_end, const struct syscall_site *wait,
		    uint64_t stack) AGENT_HIDDEN;

#endif
