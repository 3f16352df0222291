/* A world for the agent's sampling modules without a runtime: the base's
 * clocks (a monotonic clock the test moves, each thread's CPU clock), a
 * profiling API with the few vtable slots the sampler calls (EnumThreads,
 * GetThreadInfo, SuspendRuntime, ResumeRuntime, DoStackSnapshot,
 * IsFunctionDynamic), a log writer that keeps what it is given, and the
 * names, activities and signal sampler the modules under test call into.
 * Linked instead of agent/agent.c and the modules it stands for. */
#ifndef CLRSCOPE_SAMPLING_FAKES_H
#define CLRSCOPE_SAMPLING_FAKES_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/sampling/sigsampler.h"

#define FAKE_THREADS_MAX 64
#define FAKE_FRAMES_MAX 8

/* A managed thread of the fake runtime. */
struct fake_thread {
	ThreadID id;
	uint32_t os;        /* its OS thread id (0: not started) */
	uint64_t cpu_ns;    /* its CPU clock (0: gone, it cannot be read) */
	bool listed;        /* EnumThreads lists it */
	FunctionID frames[FAKE_FRAMES_MAX]; /* its stack, innermost first */
	uint32_t nframes;
};

struct fake_runtime {
	struct fake_thread threads[FAKE_THREADS_MAX];
	uint32_t nthreads;
	uint32_t enums, suspensions, walks; /* calls so far */
	uint64_t suspend_ns;  /* how long each suspension lasts (the clock moves by it) */
	bool suspend_fails;   /* SuspendRuntime fails */
	bool in_gc;           /* activity_in_gc_suspension */
	bool suspended;
};
extern struct fake_runtime fake_rt;

/* The monotonic clock (ns); real_time: the real one instead. */
extern uint64_t fake_mono_ns;
extern bool fake_real_time;
/* What sigsampler_parked_as_captured answers, and where the thread sits. */
extern enum parked fake_parked;
extern struct syscall_site fake_parked_site;
extern uint32_t fake_parked_asked;
/* What sigsampler_kernel_unsampled answers; the periods counted. */
extern uint64_t fake_kernel_unsampled;
extern uint32_t fake_kernel_counted;

/* Clears the runtime, the clock (to 1 s), the log and the answers, and
 * points g_agent at the fake runtime. */
void fake_reset(void);
/* Adds a listed thread with a stack of one frame, fn. */
struct fake_thread *fake_thread_add(ThreadID id, uint32_t os, uint64_t cpu_ns, FunctionID fn);

/* The stack id the fake names a walk by: 1000 + its innermost frame. */
#define FAKE_STACK_OF(fn) (1000u + (uint64_t)(fn))

/* What the log writer was given, per thread reference (the fake's
 * reference of a thread is its ThreadID). */
struct fake_thread_log {
	uint64_t on_cpu, off_cpu; /* TICKS samples */
	uint64_t held;            /* HOLDS samples */
	uint64_t runs;            /* HOLDS entries */
	uint64_t last_run_stack;  /* ... the stack of the last one written */
	uint64_t owed;            /* CPU_OWED periods */
	uint64_t last_stack;      /* the stack of its latest TICKS sample */
};
struct fake_log {
	uint64_t ticks, samples; /* TICKS: ticks, samples */
	uint64_t suspend_ns;     /* ... their suspended time */
	uint64_t records, bad;   /* records, and records that did not decode */
};
/* Reads every record written since fake_reset; per (a ThreadID, or NULL)
 * gets that thread's counts. */
struct fake_log fake_log_read(ThreadID thread, struct fake_thread_log *per);
/* The counts last given to lw_set_sampler_stats. */
extern struct cs_status fake_status;

#endif
