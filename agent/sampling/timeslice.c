/* A short time slice for the sampler thread (EEVDF's own slice, Linux 6.12
 * and later; older kernels ignore it): woken when every CPU is busy, it
 * preempts a running thread at once instead of waiting for one to stop or
 * park.  Were it to wait, its ticks would come as a worker parks and frees
 * a CPU, and the signals drawn from then on would find the worker's bursts
 * over: a bursty thread's work would be undersampled (e2e.parked measures
 * Burst's share of the worker's samples).  Not while it suspends the
 * runtime: its waits for the threads to reach safe points are 16 us
 * sleeps, and each wake would take a CPU from a thread that needs one to
 * get there (threads spinning on fewer CPUs, sampled by suspension, would
 * lose a good part of their samples).  Its CPU share is not raised; the
 * thread's nice value and policy stay. */
#include "agent/sampling/timeslice.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SAMPLER_SLICE_NS 100000ull /* the shortest the kernel allows */

struct sched_attr_v0 { /* the first 48 bytes of the uapi's struct sched_attr (its header clashes with sched.h) */
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

void timeslice_short(bool on)
{
	static int now = -1;
	if (now == (int)on)
		return;
	now = on;
	struct sched_attr_v0 a;
	memset(&a, 0, sizeof a);
	if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0u) != 0 || a.sched_policy != SCHED_OTHER)
		return;
	a.size = sizeof a;
	a.sched_flags = 0;
	a.sched_runtime = on ? SAMPLER_SLICE_NS : 0; /* 0: the kernel's own */
	if (syscall(SYS_sched_setattr, 0, &a, 0u) != 0 && on)
		agent_debug("no short time slice for the sampler thread: %s", strerror(errno));
}
