/* What the sampler knows of each managed thread, in one table: an entry
 * per thread (its ThreadID and OS thread id: a ThreadID the runtime gives
 * to a later thread is another entry), at a slot that does not move while
 * the entry is in use.  An entry is in use while the survey lists its
 * thread (stillthreads.c) or it holds a signal slot (sigsampler.c); each
 * module writes its own fields, below.  The signal handler never reads the
 * table: what it shares with the sampler thread is the signal slot's
 * (sigsampler.c, struct sig_slot: the capture ring and its counters, the
 * thread's stack bounds), lock-free; so is what is kept per signal slot
 * because it costs (open /proc files, a timer, the stack words a capture
 * read, the thread's last walk for the unwinder).  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_THREADTABLE_H
#define CLRSCOPE_AGENT_THREADTABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "agent/agent.h"
#include "agent/sampling/kernelsamples.h"

#define TT_LISTED_MAX 2048 /* threads a survey lists */
#define TT_SIGNAL_SLOTS 512 /* threads with a signal slot (a capture ring of 128 KiB each) */
#define TT_THREADS (TT_LISTED_MAX + TT_SIGNAL_SLOTS)
#define TT_EXTRA_INSTANTS 8 /* ticks a pending signal's capture may stand for, each at its own instant */

/* Where a thread sits in a system call: the address after its syscall
 * instruction, its stack pointer and first argument, as the kernel reports
 * them in /proc/self/task/TID/syscall. */
struct syscall_site {
	uint64_t pc, sp, arg0;
};
static inline bool syscall_site_same(const struct syscall_site *a, const struct syscall_site *b)
{
	return a->pc == b->pc && a->sp == b->sp && a->arg0 == b->arg0;
}

/* The signal sampler's view of a thread while it holds a signal slot
 * (sigsampler.c); set afresh when it takes one. */
struct thread_signal {
	int32_t slot;      /* its signal slot (-1: none) */
	uint64_t last_cpu; /* its CPU clock at the signal engine's last look */
	uint64_t owed;     /* ... CPU time since its last signal there */
	uint64_t due_ns;   /* the instant its signal in flight was drawn for (or when it was sent) */
	uint32_t extra;    /* ticks the signal in flight may also stand for */
	uint32_t extra_at; /* the ring index its capture will take */
	uint64_t extra_instant[TT_EXTRA_INSTANTS]; /* each such tick's instant, drawn at random in it */
	uint32_t carried;  /* ticks whose instant came after the thread ran again: the next capture's */
};

/* The kernel's samples of a thread (kernel engine, kernelsamples.h),
 * while it holds a signal slot; set afresh when it takes one. */
struct thread_kernel {
	struct ks_thread ks; /* its perf event and ring */
	bool tried;          /* ... asked for once */
	uint32_t truncated;  /* ... deeper than the kernel copies, in a row */
	uint64_t retry_ns;   /* ... stopped for that: asked for again from then (0: not stopped) */
	uint64_t cpu_open;   /* its CPU clock as they started (or their period last changed) */
	uint64_t counted;    /* periods of CPU time since then with a sample: the kernel's, and signals' */
};

/* A run of samples of a thread that kept its stack (samples.c): written as
 * one HOLDS entry.  It outlives the entry's thread: a run is written when
 * it ends or at the next flush, with the reference it began with. */
struct thread_hold {
	uint64_t ref, stack, first_us, last_us;
	uint32_t count;
	bool open;
};

struct sampled_thread {
	/* who it is (threadtable.c) */
	ThreadID thread;
	uint32_t os_tid;   /* 0: not started, or gone */
	clockid_t clock;   /* its CPU clock (0: unknown) */
	uint32_t slot;     /* its place in the table */
	bool listed;       /* the survey lists it */
	uint32_t generation; /* the list that has it (threadtable.c) */

	/* Known while the survey lists it (tt_forget_survey forgets them).
	 * The survey's (stillthreads.c): */
	uint64_t cpu_now;    /* CPU time, read by the survey before any suspension */
	uint64_t cpu_before; /* ... at the survey before (0: not in it) */
	uint64_t cpu_walked; /* CPU time at (or before) its last walk */
	uint64_t stack;      /* the interned stack of that walk (0: no managed frame) */
	bool walked;         /* stack and cpu_walked hold */
	struct syscall_site wait; /* ... from a capture in this system call (cpu_walked: as its handler
				     ended, or when it was last seen still in that call); pc 0: not so */
	bool still;          /* not run since that walk, as of cpu_now */
	uint64_t parked_check; /* the stack its proof kept, to compare with this signal's capture (0: none) */
	struct syscall_site parked_check_site; /* ... where the proof found it */
	/* the tick's (engine_mixed.c, engine_kernel.c) */
	bool by_signal;      /* this tick's sample comes from a capture */
	bool walk_now;       /* its capture gave no sample: walk it in this tick's suspension */
	uint32_t unmanaged_run; /* captures without a managed frame in a row */
	uint32_t walk_only;  /* surveys left in which it is walked, not signalled */
	bool check_now;      /* walk it exactly and repeat the walk the fast way (validate dial) */
	bool check_wanted;   /* ... when a tick suspends anyway */
	uint32_t check_waited; /* fast walks since it was wanted */
	uint32_t fast_walks; /* signal samples (and frames kept by proof) since its last check */
	bool kernel_sampled; /* the kernel samples it (kernel engine): its CPU time is their samples' */
	bool paying;         /* ... and a signal was sent for a period of CPU time they missed */
	/* its CPU time's (credit.c, and THREAD_CPU in sampler.c) */
	uint64_t cpu_accounted; /* CPU time its samples have been weighed against */
	int64_t cpu_credit;     /* CPU time used and not yet stood for by an on-CPU sample */
	uint64_t cpu_logged;    /* CPU time in its last THREAD_CPU entry */

	struct thread_signal sig;
	struct thread_kernel kernel;
	struct thread_hold hold;
};

/* Forgets every thread (a new attach, once samples_init has closed the
 * runs). */
void tt_reset(void) AGENT_HIDDEN;
/* The entry at a slot (in use or not), or NULL past the table. */
struct sampled_thread *tt_at(uint32_t slot) AGENT_HIDDEN;
/* The entry of a thread: the one in use, or a free one set up for it (its
 * clock, no signal slot, not listed); NULL when the table is full. */
struct sampled_thread *tt_entry(ThreadID thread, uint32_t os_tid) AGENT_HIDDEN;
/* Forgets what the survey and the ticks knew of an entry: all but who it
 * is, its signal slot's and kernel's parts, and its run. */
void tt_forget_survey(struct sampled_thread *t) AGENT_HIDDEN;

/* The entries the last survey listed, sorted by ThreadID. */
struct sampled_thread **tt_listed(uint32_t *n) AGENT_HIDDEN;
/* The listed entry of a ThreadID, or NULL. */
struct sampled_thread *tt_find_listed(ThreadID thread) AGENT_HIDDEN;
/* The survey makes a new list: tt_list_keep for each entry in it (it is
 * in use from then on), then tt_set_listed with the list (sorted by
 * ThreadID, at most TT_LISTED_MAX): entries no longer in it are unlisted
 * (and free, unless a signal slot holds them).  An empty list forgets
 * every thread the survey knew. */
void tt_list_keep(struct sampled_thread *t) AGENT_HIDDEN;
void tt_set_listed(struct sampled_thread *const *list, uint32_t n) AGENT_HIDDEN;

#endif
