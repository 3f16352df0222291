/* The stack sampler: a thread of our own that takes a tick at the
 * configured rate, at random gaps around its period, in one of the modes
 * below, and only once the program's threads run again interns and logs
 * what it saw. */
#ifndef CLRSCOPE_AGENT_SAMPLER_H
#define CLRSCOPE_AGENT_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "common/dials.h"

/* The sampler thread's work for the other threads: after a tick (or an
 * idle wake-up while sampling is off) at most every 5 ms, and once more
 * with final as it ends, it calls drain, which names and logs what they
 * left for it (symbols.h is the sampler thread's only).  Set before
 * sampler_start. */
void sampler_set_drain(void (*drain)(bool final)) AGENT_HIDDEN;
/* Starts the sampler thread; with sampling off it only calls the drain
 * until sampling is switched on. */
int sampler_start(uint32_t rate_hz, bool sampling) AGENT_HIDDEN;
/* Asks the sampler to stop and waits for it at most wait_ms; returns 0 when
 * it stopped (then its state may be reused), -1 when it is still stuck
 * inside the runtime (it will exit on its own later). */
int sampler_stop(uint32_t wait_ms) AGENT_HIDDEN;
void sampler_set_rate(uint32_t rate_hz) AGENT_HIDDEN;
void sampler_set_sampling(bool on) AGENT_HIDDEN;
/* Every nth fast walk of a thread (mixed sampler) is instead repeated
 * exactly in a suspension and compared (0: never). */
void sampler_set_validate(uint32_t n) AGENT_HIDDEN;
/* How ticks are taken: the engine for the sampler dial's value (enum
 * cs_sampler, common/dials.h; engine.h and the engine_*.c files):
 * suspending the runtime (exact stacks of every managed thread, at GC safe
 * points), signalling busy threads (cheaper, unbiased, CPU only), or
 * mixed: every thread every tick, the running ones by signal, the others
 * from their last walk, a suspension only to walk a thread that ran
 * without running through the tick; or kernel: mixed, but the running
 * threads sampled by the kernel (kernelsamples.h) where it allows, and
 * read where they wait when they wait.  Swapped at the next tick; -1 with
 * why when the engine cannot run here (signals cannot be used). */
int sampler_set_mode(int mode, char *why, size_t whylen) AGENT_HIDDEN;

#endif
