/* The signal sampler (see sigsampler.c): the sampler thread's other way of
 * taking a tick, chosen by the 'sampler' dial. */
#ifndef CLRSCOPE_AGENT_SIGSAMPLER_H
#define CLRSCOPE_AGENT_SIGSAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/sampling/threadtable.h"
#include "agent/symbols/activity.h"
#include "agent/symbols/asyncwalk.h"
#include "agent/unwind/unwind.h"

struct sig_walk {
	ThreadID thread;
	uint32_t start, n; /* FunctionIDs in the pool, innermost first (and their
			      instructions in the address pool beside it) */
	bool truncated;
	bool captured;    /* by a signal handler (else: walked by the runtime) */
	uint32_t weight;  /* the ticks it stands for (a capture: 1, more when its
			     thread sat with the signal pending; 0 for an empty walk) */
	uint64_t cpu_end; /* a capture: the thread's CPU clock as the handler ended */
	struct syscall_site wait; /* a capture: the system call it was in (pc 0: none) */
	bool blocked;     /* a capture: the signal found it waiting in that call (off the CPU) */
	bool woke;        /* a capture: at the return of a call that waits (the signal came as
			     it waited or, woken, waited for a CPU: most likely off the CPU) */
	bool kernel;      /* a capture the kernel took as the thread ran its own code: on the CPU */
	uint32_t kernel_periods; /* ... standing for that many periods of its CPU time (else 0) */
	struct activity act; /* what the runtime was doing on the thread then */
	struct sampled_thread *known; /* its thread as the survey knows it, set by the engine (its stack when
					 it is still, its CPU credit); NULL: a plain sample */
	uint32_t async;      /* a capture: its look for running async boxes (sigsampler_async), 0: none */
	uint32_t gc_epoch;   /* a capture: activity_gc_epoch() as it was taken */
};

/* A walk's look for running async boxes (asyncstack.h), valid until the
 * next collect; NULL when none was taken. */
const struct aw_sample *sigsampler_async(const struct sig_walk *walk) AGENT_HIDDEN;

/* What became of the captures (sampler thread). */
struct sig_stats {
	uint64_t fast_walks;    /* captures unwound */
	uint64_t native_frames; /* ... through native frames, followed by frame pointers */
	uint64_t truncated;     /* ... deeper than the copy */
	uint64_t broken;        /* ... with a managed frame that could not be placed: walked exactly instead */
	uint64_t past_copy;     /* ... (signalled) ending at a native frame whose caller lies beyond a copy
				   short of the stack's top, not known to be the root part: walked exactly
				   where that can be had, else truncated */
	uint64_t no_managed;    /* ... with no managed frame at all, the walk ending before the thread's first frame */
	uint64_t unmanaged_roots; /* ... with no managed frame from the leaf to the thread's first frame */
	uint64_t handler_lost;  /* signals not sent: the program replaced our handler */
	uint64_t signals;       /* signals sent */
	uint64_t found_waiting; /* captures that found their thread in a waiting system call or just
				   back from one: the signal woke it (the kernel's time, charged to it) */
	uint64_t unwind_ns;     /* time spent collecting and unwinding captures */
	uint64_t waiting_read;  /* captures read where the thread waited, without a signal */
	uint64_t waiting_unread; /* ... tried, and not taken (it moved, or its walk needs rbp) */
	uint64_t waiting_checks, waiting_mismatches; /* reads in place compared with a capture (validate dial) */
	uint64_t kernel_samples;   /* captures the kernel took (kernel sampler) */
	uint64_t kernel_lost;      /* ... it could not write (a full ring) */
	uint64_t kernel_truncated; /* ... deeper than its copy: walked exactly (eight in a row: the thread
				      signalled for a second) */
};

/* Installs the handler on a free real-time signal (once per process). */
int sigsampler_init(char *why, size_t whylen) AGENT_HIDDEN;
/* Forgets the signal slots and their threads' names (a new attach, before
 * the thread table forgets its entries). */
void sigsampler_reset(void) AGENT_HIDDEN;
/* Closes the files kept open for looking at threads and deletes the
 * threads' timers (the sampler thread, as it ends: a detached agent leaves
 * no descriptor or timer behind). */
void sigsampler_release(void) AGENT_HIDDEN;
/* When the next tick comes: signals sent before it land at instants drawn
 * at random before it (CLOCK_MONOTONIC ns). */
void sigsampler_set_deadline(uint64_t next_tick_ns) AGENT_HIDDEN;
/* Collects what the handlers caught since the last call into pool/walks,
 * then signals the busy threads; returns the number of walks. */
uint32_t sigsampler_tick(uint32_t rate_hz, FunctionID *pool, uint64_t *addrs, uint32_t pool_size,
			 struct sig_walk *walks, uint32_t max_walks, uint32_t depth_max) AGENT_HIDDEN;
/* The parts of a tick, for the mixed sampler: what the handlers caught
 * since the last call, unwound (threads whose capture gave no sample go
 * to retry, when given, for an exact walk), and a signal to one thread
 * (false: not sent, walk it instead).  The functions below that take a
 * thread's entry (threadtable.h) give it a signal slot if it has none, but
 * for sigsampler_parked_as_captured and the kernel's counts, which only
 * look at the one it has. */
uint32_t sigsampler_collect(FunctionID *pool, uint64_t *addrs, uint32_t pool_size, struct sig_walk *walks,
			    uint32_t max_walks, uint32_t depth_max, ThreadID *retry, uint32_t *nretry,
			    uint32_t max_retry) AGENT_HIDDEN;
bool sigsampler_signal(struct sampled_thread *t) AGENT_HIDDEN;
/* The thread's last complete walk, grafted onto its fast walks (unwind.h),
 * for a check's walk to use as they do; NULL when none is kept. */
struct unwind_trail *sigsampler_trail(ThreadID thread) AGENT_HIDDEN;
/* Instead of a signal, for a thread in a system call that waits: its
 * stack copied by the sampler thread, where /proc says it sits, while its
 * CPU clock (read before that place was) shows it did not run; a capture
 * like a handler's (collected on the next tick), kept only when its walk needs
 * no rbp.  False when the thread is not waiting or the read is not kept:
 * signal it.  Every check_every-th read (0: none) is not kept but
 * compared with that signal's capture. */
bool sigsampler_read_waiting(struct sampled_thread *t, uint32_t check_every) AGENT_HIDDEN;
/* Where a thread that ran since the last tick is as the sampler thread
 * looks (cpu_survey: its CPU clock as the tick's survey read it):
 * INSTANT_READ, waiting, and read there (a capture, as
 * sigsampler_read_waiting's); INSTANT_ON_CPU, on a CPU (its clock moved
 * since the survey), or kept off the one it ran on by the sampler thread,
 * which took it; INSTANT_ELSE, waiting for a CPU, or where no read in
 * place could be kept. */
enum instant { INSTANT_READ, INSTANT_ON_CPU, INSTANT_ELSE };
enum instant sigsampler_instant(struct sampled_thread *t, uint64_t cpu_survey, uint32_t check_every) AGENT_HIDDEN;
/* For a thread that ran since the last tick (since_ns, CLOCK_MONOTONIC):
 * the latest sample the kernel took of it in its own code since then, as
 * a capture (collected on the next tick, as a handler's): KERNEL_CAPTURED;
 * KERNEL_NONE when there is none (it used less than a period of CPU
 * there); KERNEL_OFF when the kernel does not sample it (its sampling
 * starts with this call, or the kernel refused, said once in a MESSAGE). */
enum kernel_capture { KERNEL_OFF, KERNEL_NONE, KERNEL_CAPTURED };
/* Called every tick: off (any sampler but the kernel sampler) closes
 * every thread's kernel sampling, once the sampler has changed. */
void sigsampler_kernel_keep(bool on) AGENT_HIDDEN;
enum kernel_capture sigsampler_kernel_capture(struct sampled_thread *t, uint32_t rate_hz,
					      uint64_t since_ns) AGENT_HIDDEN;
/* The CPU time a thread the kernel samples has used since its sampling
 * began, less a period for each sample counted (the kernel's captures and
 * sigsampler_kernel_counted's): at most a period while the kernel sampled
 * every period, more for periods it did not (the thread was in the kernel,
 * whose code it leaves out). */
uint64_t sigsampler_kernel_unsampled(const struct sampled_thread *t, uint64_t cpu_now) AGENT_HIDDEN;
/* A signal's capture stood for n such periods. */
void sigsampler_kernel_counted(struct sampled_thread *t, uint32_t n) AGENT_HIDDEN;
/* Whether a thread sits where its latest capture found it in a system
 * call: now, as /proc says (*now: the call it is in, pc 0: none; read
 * again only if its CPU clock moved from cpu_now, read just before), at that
 * capture's site, with every stack word the capture's walk read unchanged.
 * Its frames are then the capture's, whatever it ran in between (see
 * struct word_log): PARKED_SAME.  PARKED_MOVED when it is elsewhere (*now
 * left empty when its stack words already say so);
 * PARKED_UNPROVEN when no such capture is kept (it was not in a system
 * call, its walk used the frame pointer register's value or read more
 * words than are kept, the code map was flushed since, or a signal is in
 * flight). */
enum parked { PARKED_UNPROVEN = -1, PARKED_MOVED = 0, PARKED_SAME = 1 };
enum parked sigsampler_parked_as_captured(const struct sampled_thread *t, uint64_t cpu_now,
					  struct syscall_site *now) AGENT_HIDDEN;
/* A thread whose signal is still pending has not run since it was sent:
 * its coming capture also stands for this tick if it comes after an instant
 * drawn at random in the tick, else the capture after it does (true); false
 * when no signal is in flight to it. */
bool sigsampler_extend(struct sampled_thread *t) AGENT_HIDDEN;
/* A signal sent to the thread has not reached its handler yet. */
bool sigsampler_pending(struct sampled_thread *t) AGENT_HIDDEN;
/* ... and its instant passed long enough ago (2 ms) that the thread, had it
 * run, would have taken it: it blocks the signal. */
bool sigsampler_overdue(struct sampled_thread *t) AGENT_HIDDEN;
uint64_t sigsampler_overflowed(void) AGENT_HIDDEN;
/* The CPU time the program's threads spent in the handler so far. */
uint64_t sigsampler_handler_ns(void) AGENT_HIDDEN;
struct sig_stats sigsampler_stats(void) AGENT_HIDDEN;

#endif
