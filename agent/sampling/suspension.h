/* Walking threads with the runtime suspended: the runtime's exact walk of
 * each thread that ran since its last walk (the others keep theirs: see
 * stillthreads.h), within the suspension budget (budget.h), and the
 * validate dial's checks of the fast unwinder against some of those walks.
 * Shared by the engines that suspend.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_SUSPENSION_H
#define CLRSCOPE_AGENT_SUSPENSION_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/sampling/samples.h"

/* Exact walks a tick checks at most (the validate dial). */
#define SUSPENSION_MAX_CHECKS 4

/* Forgets a former attach: a full budget, no check, no failure said. */
int suspension_init(void) AGENT_HIDDEN;
/* Whether the budget allows a suspension now (topped up to now). */
bool suspension_allowed(void) AGENT_HIDDEN;
/* Suspends the runtime and walks the threads that ran (but for those a
 * signal samples), after the walks already in the tick, their frames in
 * the pool's first `used`; those the survey marked check_now are walked
 * with their registers, for suspension_checks.  False when the runtime
 * could not be suspended. */
bool suspension_walk(struct tick *t, uint32_t used) AGENT_HIDDEN;
/* With the runtime running again: each checked walk's managed part against
 * the fast unwinder's walk of the same stack from the same registers
 * (counted in stack_checks and stack_mismatches). */
void suspension_checks(struct tick *t) AGENT_HIDDEN;

#endif
