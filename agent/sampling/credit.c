/* The CPU time a thread's samples stand for (credit.h). */
#include "agent/sampling/credit.h"

#include "agent/sampling/sigsampler.h"
#include "common/records.h"

/* A thread the kernel samples: its CPU time is the kernel's samples' (each
 * capture of theirs the latest of `kernel` since the tick before), but for
 * periods they missed (its time in the kernel), which a signal sent for it
 * stands for: one if it found the thread running, all of them if it found
 * it just back from its wait after the most credit kept (see the kernel
 * engine's instant); the credit starts afresh should signals take over. */
static uint32_t credit_kernel_sampled(struct sampled_thread *t, uint64_t period_ns, bool waiting, bool woke,
				      uint32_t kernel)
{
	uint64_t now = t->cpu_now;
	t->cpu_credit = 0;
	t->cpu_accounted = now;
	if (kernel)
		return kernel;
	bool paid = t->paying && !waiting;
	t->paying = false;
	if (!paid)
		return 0;
	uint32_t n = 1;
	if (woke) { /* just back from its wait: only for all it used there */
		uint64_t owed = sigsampler_kernel_unsampled(t, now);
		if (owed < CREDIT_MAX_PERIODS * period_ns)
			return 0;
		n = (uint32_t)(owed / period_ns);
		n = n > CS_CPU_OWED_MAX_COUNT + 1 ? CS_CPU_OWED_MAX_COUNT + 1 : n;
	}
	sigsampler_kernel_counted(t, n);
	return n;
}

/* A thread weighed by its CPU clock: the time it used since its last
 * on-CPU sample is its credit.
 *  - a capture that finds it running spends the whole credit, in periods:
 *    the tick's sample and, past one period, more (CPU_OWED) at the same
 *    place.  A thread that works in bursts shorter than a tick is mostly
 *    found back in its wait; the captures that do find it running are no
 *    less fair a sample of where it runs (their instants are drawn at
 *    random), so they stand for the time the others missed (counted as one
 *    each, a bursty thread's on-CPU samples would fall short of its CPU
 *    time);
 *  - a capture that found it waiting in a system call (waiting), or just
 *    back from one that waits (woke: the signal came as it waited, or as
 *    it waited for a CPU), is off the CPU, unless it woke after using the
 *    most credit kept with no capture that found it running: then that
 *    capture stands for all of it (a thread that polls or yields in a loop
 *    runs there; one whose CPU time is mostly the kernel's as its wait
 *    returns, as the socket engine's in epoll_wait, is hardly ever caught
 *    elsewhere);
 *  - a thread with less than half a period of credit is off the CPU.
 * The signal sampler signals only threads that used a period of CPU: on. */
static uint32_t credit_by_clock(struct sampled_thread *t, uint64_t period_ns, bool waiting, bool woke, uint32_t kernel)
{
	uint64_t now = t->cpu_now;
	if (!t->cpu_accounted || now < t->cpu_accounted)
		t->cpu_accounted = t->cpu_before && t->cpu_before <= now ? t->cpu_before : now;
	t->cpu_credit += (int64_t)(now - t->cpu_accounted);
	t->cpu_accounted = now;
	int64_t most = (int64_t)(CREDIT_MAX_PERIODS * period_ns);
	if (t->cpu_credit > most)
		t->cpu_credit = most; /* (time no capture found running for long: lost) */
	if (kernel) { /* the kernel took it after each period of the thread's CPU time */
		t->cpu_credit -= (int64_t)(kernel * period_ns);
		return kernel;
	}
	if (waiting || t->cpu_credit * 2 < (int64_t)period_ns)
		return 0;
	if (woke && t->cpu_credit < most)
		return 0;
	/* up to two periods are kept for the ticks to come: a thread that runs
	 * all the time is on the CPU at each of them, however they are spaced
	 * (paying all at a late tick would leave the next one, early, with too
	 * little: off the CPU where it ran) */
	uint64_t whole = (uint64_t)t->cpu_credit / period_ns;
	uint32_t n = whole > 2 ? (uint32_t)(whole - 1) : 1;
	t->cpu_credit -= (int64_t)(n * period_ns);
	return n;
}

uint32_t credit_on_cpu(struct sampled_thread *t, uint64_t period_ns, bool waiting, bool woke, uint32_t kernel)
{
	if (kernel > CS_CPU_OWED_MAX_COUNT + 1)
		kernel = CS_CPU_OWED_MAX_COUNT + 1; /* (ticks that long apart: the rest is lost) */
	if (!t || !t->clock)
		return kernel ? kernel : 1;
	if (t->kernel_sampled)
		return credit_kernel_sampled(t, period_ns, waiting, woke, kernel);
	return credit_by_clock(t, period_ns, waiting, woke, kernel);
}
