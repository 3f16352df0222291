/* The signal engine: no suspension; each tick, what the signal handlers
 * of the busy threads caught since the tick before, and a signal to each
 * thread that used a period of CPU time since its last sample (see
 * sigsampler.c).  Cheaper than a suspension, without its safe-point bias,
 * on-CPU samples only. */
#include "agent/sampling/engine.h"

#include "agent/sampling/sigsampler.h"

static void signal_tick(struct tick *t)
{
	uint64_t lap = t->start_ns, unwound = sigsampler_stats().unwind_ns;
	t->n = sigsampler_tick(t->rate_hz, t->pool, t->addrs, TICK_FRAME_POOL, t->walks, TICK_MAX_WALKS,
			       TICK_MAX_DEPTH);
	t->stats->signal_ns += tick_lap(&lap) - (sigsampler_stats().unwind_ns - unwound); /* (its clocks too) */
	samples_end_tick(t, lap);
}

const struct sampling_engine engine_signal = {
	.short_slice = true,
	.surveys = false,
	.check = sigsampler_init,
	.tick = signal_tick,
};
