/* The suspending engine: every thread's stack, walked by the runtime while
 * it is suspended, unless the thread has not run since its last walk (it
 * keeps its stack: stillthreads.h); no suspension at all when no thread
 * ran.  Exact stacks of every managed thread, at GC safe points. */
#include "agent/sampling/engine.h"

#include "agent/sampling/stillthreads.h"
#include "agent/sampling/suspension.h"
#include "agent/symbols/activity.h"

static void suspend_tick(struct tick *t)
{
	uint64_t lap = t->start_ns;
	int moved = still_survey(0);
	t->stats->survey_ns += tick_lap(&lap);
	if (moved != 0 && !suspension_allowed()) {
		t->stats->deferred_walks += moved > 0 ? (uint64_t)moved : 0;
		samples_publish(lap);
		return; /* the whole tick, not a tick of the still threads only */
	}
	if (moved == 0 || activity_in_gc_suspension()) {
		/* during a GC only the collecting thread runs, and no walk can be
		 * had before the GC ends: the others' samples, as they wait */
		t->stats->deferred_walks += moved > 0 ? (uint64_t)moved : 0;
		samples_add_still(t);
	} else if (!suspension_walk(t, 0)) {
		return; /* not suspended: no tick */
	}
	tick_lap(&lap); /* (the suspension has a figure of its own) */
	samples_end_tick(t, lap);
}

const struct sampling_engine engine_suspend = {
	.short_slice = false,
	.surveys = true,
	.tick = suspend_tick,
};
