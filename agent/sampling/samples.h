/* A tick's samples: the walks an engine gathers into a struct tick, weighed
 * on or off the CPU, held as runs while a thread keeps its stack, staged
 * and written to the log; and the sampler's counts for the STATUS
 * records.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_SAMPLES_H
#define CLRSCOPE_AGENT_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/sampling/sigsampler.h"
#include "common/records.h"

#define TICK_MAX_WALKS 2048          /* walks in one tick: one per thread */
#define TICK_MAX_DEPTH 1024          /* frames in one walk */
#define TICK_FRAME_POOL (256u * 1024u) /* frames in one tick, all walks */

/* One tick, as an engine fills it: a walk per sampled thread, its frames
 * in the pool.  samples_tick_begin clears it; the buffers are the sampler
 * thread's for as long as it runs. */
struct tick {
	uint64_t start_ns;      /* when it began (CLOCK_MONOTONIC) */
	uint64_t prev_start_ns; /* when the tick before began (0: none) */
	uint32_t rate_hz;       /* the rate dial, read as it began */
	uint32_t validate;      /* the validate dial: fast walks per exact check (0: none) */
	uint32_t n;             /* walks */
	uint64_t suspend_ns;    /* how long the runtime stayed suspended for it */
	struct sig_walk *walks; /* TICK_MAX_WALKS */
	FunctionID *pool;       /* TICK_FRAME_POOL FunctionIDs, innermost first per walk */
	uint64_t *addrs;        /* beside the pool: each frame's instruction, for source lines */
	struct cs_status *stats; /* the sampler's counts (see samples_publish) */
};

/* Allocates the buffers and forgets a former attach's runs and counts;
 * -1 when out of memory. */
int samples_init(void) AGENT_HIDDEN;
/* The tick about to be taken, cleared, with the dials it runs with. */
struct tick *samples_tick_begin(uint32_t rate_hz, uint32_t validate) AGENT_HIDDEN;

/* The time since *lap, which moves to now: a tick's parts, timed for
 * STATUS (what the sampler thread spends its time on). */
static inline uint64_t tick_lap(uint64_t *lap)
{
	uint64_t now = agent_mono_ns();
	uint64_t d = now - *lap;
	*lap = now;
	return d;
}

/* Adds the still threads' samples (their stacks as of their last walk)
 * after the walks already gathered. */
void samples_add_still(struct tick *t) AGENT_HIDDEN;
/* The end of a tick, its walks gathered (lap_ns: when they were), with
 * the runtime running again: turns the walks' FunctionIDs into stack ids
 * and stages them, timed for STATUS (record_ns), and samples_publish.  A
 * capture that stood for several ticks (its thread sat with the signal
 * pending) gives that many samples. */
void samples_end_tick(struct tick *t, uint64_t lap_ns) AGENT_HIDDEN;
/* Sampling is off: writes what was staged before and every run, and the
 * counts once (rate_hz: the rate dial, for runs of one sample). */
void samples_idle(uint32_t rate_hz) AGENT_HIDDEN;
/* The log ends: writes what is staged and every run. */
void samples_end(uint32_t rate_hz) AGENT_HIDDEN;

/* Publishes the counts for the next STATUS record, at most every
 * PUBLISH_EVERY_NS (now_ns: the time). */
void samples_publish(uint64_t now_ns) AGENT_HIDDEN;
/* ... at once, with the sampler thread's own CPU time read afresh (the
 * thread ends). */
void samples_publish_last(void) AGENT_HIDDEN;

#endif
