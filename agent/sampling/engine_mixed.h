/* The mixed engine's tick (engine_mixed.c), which the kernel engine shares
 * with a capture of its own.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_ENGINE_MIXED_H
#define CLRSCOPE_AGENT_ENGINE_MIXED_H

#include <stdbool.h>

#include "agent/agent.h"
#include "agent/sampling/samples.h"
#include "agent/sampling/threadtable.h"

/* How a tick samples a thread that ran since the tick before: a capture
 * to come (true), or false: walk it in the tick's suspension. */
typedef bool (*ran_capture)(struct sampled_thread *th, const struct tick *t);

/* The mixed engine's: if it waits, its stack read where it waits (only
 * after little CPU, see still_little_cpu), else a signal. */
bool mixed_capture(struct sampled_thread *th, const struct tick *t) AGENT_HIDDEN;
/* A tick of the mixed kind (see engine_mixed.c), the threads that ran
 * taken by capture. */
void mixed_tick(struct tick *t, ran_capture capture) AGENT_HIDDEN;

#endif
