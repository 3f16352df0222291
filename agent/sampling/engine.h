/* A sampling engine: one way of taking the sampler's ticks, chosen by the
 * sampler dial (enum cs_sampler; sampler.c has the table).  The sampler thread
 * (sampler.c) runs one engine at a time and swaps engines only between
 * ticks: the one that ends is stopped, the one that takes over is started,
 * then it ticks.  A tick gathers a walk per sampled thread into the tick
 * (samples.h) and records it with samples_record.  One file per engine
 * (engine_*.c); what two engines share is a function of the one that
 * offers it (the kernel engine's tick is the mixed engine's mixed_tick). */
#ifndef CLRSCOPE_AGENT_ENGINE_H
#define CLRSCOPE_AGENT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/sampling/samples.h"

struct sampling_engine {
	bool short_slice; /* the sampler thread asks for a short time slice as each tick begins (timeslice.c) */
	bool surveys;     /* its ticks survey the threads (still_survey): their CPU clocks are fresh */
	/* Whether it can run in this process (-1, why says why); the control
	 * thread asks as the dial is set.  NULL: always. */
	int (*check)(char *why, size_t whylen);
	/* Sampler thread, between ticks: it takes over, or hands over to
	 * another (or the sampler ends).  NULL: nothing to do. */
	void (*start)(void);
	void (*stop)(void);
	/* One tick, begun by samples_tick_begin. */
	void (*tick)(struct tick *t);
};

extern const struct sampling_engine engine_suspend AGENT_HIDDEN;
extern const struct sampling_engine engine_signal AGENT_HIDDEN;
extern const struct sampling_engine engine_mixed AGENT_HIDDEN;
extern const struct sampling_engine engine_kernel AGENT_HIDDEN;

#endif
