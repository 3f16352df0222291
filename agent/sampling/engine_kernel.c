/* The kernel engine: the mixed engine's tick, but the running threads
 * sampled by the kernel (kernelsamples.h) where it allows, and read where
 * they wait when they wait.  A thread's samples are then of two kinds,
 * each the truth at its own moment: the kernel's, one per period of CPU
 * time in its own code, and, at each tick, where it is then: waiting (read
 * in place), waiting for a CPU (signalled: captured where it stopped), or
 * on a CPU.  Its time on a CPU is what the kernel's samples stand for (a
 * tick keeps the latest, which stands for all since the tick before), so
 * a tick that finds it there adds none, unless a period of its CPU time
 * has no sample (it was in the kernel, which they leave out): then a
 * signal, whose capture on the CPU stands for it.  The kernel's sample in
 * place of the tick's moment would count a bursty thread's work twice
 * (e2e.parked measures Burst's share under the kernel sampler). */
#include "agent/sampling/engine.h"

#include "agent/sampling/credit.h"
#include "agent/sampling/engine_mixed.h"
#include "agent/sampling/sigsampler.h"

/* Where a thread the kernel samples is at the tick's moment.  It is on a
 * CPU if its clock moved since the survey read it (tens of microseconds
 * before: one that parks in between counts as on a CPU once), or if the
 * sampler thread took its CPU (sigsampler_instant).  False: walk it. */
static bool kernel_instant(struct sampled_thread *th, const struct tick *t)
{
	uint64_t period = agent_period_ns(t->rate_hz);
	switch (sigsampler_instant(th, th->cpu_now, t->validate)) {
	case INSTANT_READ:
		return true;
	case INSTANT_ON_CPU:
		if (th->paying || sigsampler_kernel_unsampled(th, th->cpu_now) < period)
			return true;
		th->paying = sigsampler_signal(th);
		return th->paying;
	default:
		/* waiting for a CPU: a capture just back from its wait stands
		 * for the kernel's time there if the thread has used the most
		 * credit kept with no sample (its CPU time mostly the kernel's as
		 * its wait returns, as WebHash's socket engine's: were only
		 * captures on a CPU to pay, most of that time would have no CPU
		 * sample) */
		if (!sigsampler_signal(th))
			return false;
		th->paying = sigsampler_kernel_unsampled(th, th->cpu_now) >=
			     CREDIT_MAX_PERIODS * period;
		return true;
	}
}

/* A thread that ran: the kernel's latest sample of it since the tick
 * before and the tick's moment (above); where the kernel does not sample
 * it, as the mixed engine takes it. */
static bool kernel_capture(struct sampled_thread *th, const struct tick *t)
{
	enum kernel_capture k = sigsampler_kernel_capture(th, t->rate_hz, t->prev_start_ns);
	th->kernel_sampled = k != KERNEL_OFF;
	if (th->kernel_sampled)
		return kernel_instant(th, t);
	return mixed_capture(th, t);
}

static void kernel_tick(struct tick *t)
{
	mixed_tick(t, kernel_capture);
}

/* The kernel's sampling of the threads ends with the engine. */
static void kernel_stop(void)
{
	sigsampler_kernel_keep(false);
}

const struct sampling_engine engine_kernel = {
	.short_slice = true,
	.surveys = true,
	.check = sigsampler_init,
	.stop = kernel_stop,
	.tick = kernel_tick,
};
