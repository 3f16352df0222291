/* The base every folder of the agent may include (README.md): the shared
 * state, set by runtime/ before any thread of the agent starts, clocks,
 * random draws and the optional debug log.
 *
 * Threads of the agent:
 *   - runtime threads calling our ICorProfilerCallback methods (installed
 *     by runtime/entry.c and the folders it asks); a module's unload waits
 *     for the sampler's tick under way (symbols/unloads.h)
 *   - the sampler (sampling/sampler.c): takes ticks, walks stacks, interns,
 *     and names and logs what the other threads queued
 *   - the writer (log/logwriter.c): moves buffered records to segment files
 *   - the control thread (runtime/control.c): dials, the session's health
 *   - the heap snapshot thread (events/heapsnap.c), once one is asked for
 * None of them ever runs managed code, and no application thread ever waits
 * on disk I/O. */
#ifndef CLRSCOPE_AGENT_H
#define CLRSCOPE_AGENT_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "agent/corprof.h"

#define AGENT_HIDDEN __attribute__((visibility("hidden")))

struct agent {
	ICorProfilerInfo10 *info; /* SuspendRuntime needs 10; .NET 6+ has it */
	char session_dir[PATH_MAX];
	char proc_dir[PATH_MAX];
	uint32_t rate_hz;
	uint64_t start_mono_ns;
	uint64_t start_unix_ns;
	uint8_t load_mode;
	int lock_fd; /* flock held while this process is profiled by us */
	char control_name[64]; /* the named semaphore clrscope posts */
};

extern struct agent g_agent AGENT_HIDDEN;

/* A clock's time in nanoseconds, 0 when it cannot be read (a thread's CPU
 * clock once the thread is gone); async-signal-safe. */
uint64_t agent_clock_ns(clockid_t clock) AGENT_HIDDEN;
uint64_t agent_mono_ns(void) AGENT_HIDDEN;
/* The CPU-time clock of any thread of this process, by its OS id (the
 * kernel's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)). */
clockid_t agent_thread_cpu_clock(uint32_t os_tid) AGENT_HIDDEN;
/* A number drawn uniformly from [0, n) by xorshift64 from *state (seeded
 * from the clock when 0); one state per thread that draws. */
uint64_t agent_random_below(uint64_t *state, uint64_t n) AGENT_HIDDEN;
/* The sampling period of a rate, in nanoseconds (a rate of 0 is taken as
 * 1 Hz: no division by zero where a dial was read mid-change). */
static inline uint64_t agent_period_ns(uint32_t rate_hz)
{
	return 1000000000ull / (rate_hz ? rate_hz : 1);
}
/* Microseconds since the agent started: the time axis of the log. */
uint64_t agent_now_us(void) AGENT_HIDDEN;

/* In n elements stride bytes apart, sorted by the uint64_t at start_off
 * in each (a range's start): the index of the first whose start is above
 * key (n when none).  Async-signal-safe. */
static inline uint32_t agent_first_above(const void *v, uint32_t n, size_t stride, size_t start_off, uint64_t key)
{
	const uint8_t *p = v;
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t start;
		memcpy(&start, p + (size_t)mid * stride + start_off, sizeof start);
		if (start <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room in the array *vp (a pointer to its elements, *cap of them, size
 * bytes each) for need elements: its capacity doubled, from first, until
 * they fit, the new elements zeroed.  false when memory ran out (the array
 * is then as it was). */
bool agent_grow(void *vp, size_t *cap, size_t need, size_t size, size_t first) AGENT_HIDDEN;

/* A line for the optional debug log only ($CLRSCOPE_AGENT_LOG). */
void agent_debug(const char *fmt, ...) AGENT_HIDDEN __attribute__((format(printf, 1, 2)));
/* Whether the process runs with privileges its user does not have (setuid,
 * setgid, file capabilities: AT_SECURE): the environment is not to be
 * trusted for paths then. */
bool agent_secure(void) AGENT_HIDDEN;
void agent_debug_open(void) AGENT_HIDDEN;

#endif
