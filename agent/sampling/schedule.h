/* When the sampler's ticks come: at gaps drawn uniformly from [P/2, 3P/2)
 * around the period P.  Ticks on an exact grid alias with work that
 * repeats in step with it (a frame loop, a timer, a round that takes
 * P/12): the same phase of every round is sampled and a true 3:1 split
 * reads 1193:5.  Random gaps keep the mean rate and sample every phase
 * alike (e2e.cpu_ratio checks such a split).  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_SCHEDULE_H
#define CLRSCOPE_AGENT_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"

struct tick_schedule {
	uint64_t next_ns; /* the instant of the next tick (CLOCK_MONOTONIC) */
	uint64_t gap_ns;  /* the gap after it, drawn as it was taken (0: none drawn) */
	uint64_t random;  /* agent_random_below's state */
};

static inline struct tick_schedule schedule_start(uint64_t now_ns)
{
	return (struct tick_schedule){now_ns, 0, 0};
}

/* A gap around period_ns, from [period/2, 3 period/2). */
static inline uint64_t schedule_gap(struct tick_schedule *s, uint64_t period_ns)
{
	return period_ns / 2 + agent_random_below(&s->random, period_ns);
}

/* The instant of the next tick: the gap drawn at the tick before, else one
 * drawn now (sampling), else the plain period (sampling off: the sampler
 * only wakes to pass events on).  A sampler that fell behind (a long GC)
 * skips the ticks it missed instead of taking them in a burst. */
static inline uint64_t schedule_next(struct tick_schedule *s, uint64_t now_ns, uint64_t period_ns, bool sampling)
{
	s->next_ns += s->gap_ns ? s->gap_ns : sampling ? schedule_gap(s, period_ns) : period_ns;
	s->gap_ns = 0;
	if (s->next_ns + period_ns < now_ns)
		s->next_ns = now_ns + period_ns;
	return s->next_ns;
}

/* As a tick is taken: draws the gap to the one after and returns that
 * instant (the signals sent in this tick land before it). */
static inline uint64_t schedule_draw(struct tick_schedule *s, uint64_t period_ns)
{
	s->gap_ns = schedule_gap(s, period_ns);
	return s->next_ns + s->gap_ns;
}

#endif
