/* The mixed engine (the default): every thread every tick, the running
 * ones by signal, the others from their last walk, a suspension only to
 * walk a thread that ran without running through the tick.
 *  - the threads that ran since the last survey are signalled, however
 *    briefly they ran, and their captures arrive by the next tick: a
 *    signal is cheaper than a suspension even for a thread that ran
 *    briefly and is parked again, since the suspension stops every thread
 *    (the runtime's suspended time is in the cost lines of clrscope
 *    report);
 *  - still threads keep their stacks: a capture tells where its thread
 *    stays until it runs again.  A thread caught in a wait that is in that
 *    wait again, with the stack words its walk read unchanged, is still
 *    however long it ran in between (see CAPTURE_SLACK_NS), and one whose
 *    signal is still pending has not run since it was sent, so its capture
 *    stands for this tick too, up to the instant it is taken
 *    (sigsampler_extend; walking it instead would make it run to a safe
 *    point first, where the runtime's walk of an OSR frame loses its
 *    caller);
 *  - the others (new threads, threads that stopped after a signal, and the
 *    walks that are checks) are walked in a suspension, which a tick
 *    without them does not need.  A capture that gives no sample (a
 *    managed frame the unwinder could not place, or native frames it could
 *    not follow to the thread's first) has its thread walked exactly in
 *    this tick's suspension instead; after a few in a row the thread is
 *    walked instead of signalled for a while. */
#include "agent/sampling/engine_mixed.h"

#include "agent/sampling/engine.h"
#include "agent/sampling/sigsampler.h"
#include "agent/sampling/stillthreads.h"
#include "agent/sampling/suspension.h"
#include "agent/symbols/activity.h"

#define UNMANAGED_RUN_LIMIT 4
#define WALK_ONLY_SURVEYS 64

bool mixed_capture(struct sampled_thread *th, const struct tick *t)
{
	th->kernel_sampled = false;
	if (still_little_cpu(th) && sigsampler_read_waiting(th, t->validate))
		return true;
	return sigsampler_signal(th);
}

/* The captures the handlers (and reads in place) left since the tick
 * before, into the tick; those that gave no sample have their threads
 * walked in this tick's suspension.  Returns the frames they use. */
static uint32_t collect_captures(struct tick *t)
{
	static ThreadID unmanaged[TICK_MAX_WALKS]; /* threads whose capture gave no sample */
	uint32_t nretry = 0;
	uint32_t n = sigsampler_collect(t->pool, t->addrs, TICK_FRAME_POOL, t->walks, TICK_MAX_WALKS, TICK_MAX_DEPTH,
					unmanaged, &nretry, TICK_MAX_WALKS);
	uint32_t used = 0, kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct sig_walk w = t->walks[i];
		if (w.start + w.n > used)
			used = w.start + w.n;
		struct sampled_thread *known = still_find(w.thread);
		if (known) {
			known->unmanaged_run = 0;
			/* before the survey, which asks whether it ran since */
			still_captured(known, w.cpu_end, &w.wait, w.n ? STILL_STACK_PENDING : 0);
			known->paying &= w.n != 0; /* (no sample to stand for the period) */
		}
		if (!w.n)
			continue; /* no managed frame to its root: no sample */
		t->walks[kept++] = w;
	}
	t->n = kept;
	t->stats->failed_walks += nretry;
	for (uint32_t i = 0; i < nretry; i++) {
		struct sampled_thread *th = still_find(unmanaged[i]);
		if (!th)
			continue;
		th->walk_now = true;
		th->paying = false;
		if (++th->unmanaged_run >= UNMANAGED_RUN_LIMIT) {
			th->walk_only = WALK_ONLY_SURVEYS;
			th->unmanaged_run = 0;
		}
	}
	return used;
}

/* How the tick takes each thread the survey found moved: its capture to
 * come stands for it (by_signal), or it is walked.  Threads due for a
 * check go to wanting (decided by take_checks); *checks_due: one of them
 * has waited long enough.  Returns the walks. */
static uint32_t take_moved(const struct tick *t, ran_capture capture, struct sampled_thread **wanting,
			   uint32_t *nwanting, bool *checks_due)
{
	uint32_t every = t->validate;
	uint32_t walks = 0, n;
	struct sampled_thread **all = still_threads(&n);
	for (uint32_t i = 0; i < n; i++) {
		struct sampled_thread *th = all[i];
		bool walk_now = th->walk_now;
		th->walk_now = false;
		if (th->still && !walk_now)
			continue;
		th->still = false;
		/* pending and not run (frozen where the handler will catch it),
		 * or its signal's instant only just came (a thread waiting for a
		 * CPU has not taken it yet): the capture to come stands for this
		 * tick too, if it comes after an instant drawn in the tick (else
		 * the capture after it); pending long after its instant while
		 * it ran: it blocks the signal, walk it instead */
		bool pending = !walk_now && sigsampler_pending(th);
		bool not_run = th->cpu_before && th->cpu_now == th->cpu_before;
		if (pending && (not_run || !sigsampler_overdue(th)) &&
		    sigsampler_extend(th)) {
			th->by_signal = true;
			continue;
		}
		bool running = th->cpu_before && th->cpu_now != th->cpu_before && !th->walk_only && !walk_now && !pending;
		if (running && every && !th->check_wanted && ++th->fast_walks >= every) {
			th->fast_walks = 0;
			th->check_wanted = true;
			th->check_waited = 0;
		}
		if (running && every && th->check_wanted && *nwanting < TICK_MAX_WALKS) {
			*checks_due |= th->check_waited++ >= every - 1;
			wanting[(*nwanting)++] = th; /* decided by take_checks */
			continue;
		}
		/* a thread that has not run since the last tick, whose stack is
		 * not known (it ran on after its capture, or the kernel's sample
		 * was taken as it ran on): where it waits, it is read, with no
		 * suspension; one that waits for a CPU is signalled (its capture
		 * comes as it runs again, where it stopped: a suspension would
		 * wait for it to get a CPU too, with every thread stopped; such
		 * threads can make half the suspensions of a busy program, as
		 * of the C# compiler on two CPUs) */
		bool parked = not_run && !walk_now && !th->check_now && !pending;
		th->by_signal = running ? capture(th, t)
					: parked && (sigsampler_read_waiting(th, 0) ||
						     sigsampler_signal(th));
		walks += !th->by_signal;
	}
	return walks;
}

/* The validate dial's checks: each one an exact walk in a suspension,
 * which stops the whole program (on a busy machine for milliseconds:
 * checks can make half the runtime's suspended time, as on the C#
 * compiler on two CPUs).  A thread's check waits for a tick that suspends
 * anyway, for as many fast walks again at most; then it suspends, for the
 * checks waiting among the threads that ran (up to SUSPENSION_MAX_CHECKS
 * a tick).
 * The others are taken by capture.  Returns the walks. */
static uint32_t take_checks(const struct tick *t, ran_capture capture, struct sampled_thread **wanting,
			    uint32_t nwanting, bool suspending)
{
	uint32_t walks = 0;
	uint32_t checking = suspending ? SUSPENSION_MAX_CHECKS : 0;
	for (uint32_t i = 0; i < nwanting; i++) {
		struct sampled_thread *th = wanting[i];
		if (checking) {
			checking--;
			th->check_wanted = false;
			th->check_now = true; /* this tick: walked exactly, and checked */
			th->by_signal = false;
		} else {
			th->by_signal = capture(th, t);
		}
		walks += !th->by_signal;
	}
	return walks;
}

void mixed_tick(struct tick *t, ran_capture capture)
{
	uint32_t used = collect_captures(t);
	uint32_t walks = 0, nwanting = 0;
	static struct sampled_thread *wanting[TICK_MAX_WALKS]; /* (no more threads than walks) */
	bool checks_due = false;
	uint64_t lap = agent_mono_ns();
	int moved = still_survey(t->validate);
	t->stats->survey_ns += tick_lap(&lap);
	for (uint32_t i = 0; i < t->n; i++)
		t->walks[i].known = still_find(t->walks[i].thread); /* the survey's own list now */
	if (moved != 0)
		walks = take_moved(t, capture, wanting, &nwanting, &checks_due);
	walks += take_checks(t, capture, wanting, nwanting, walks || checks_due);
	t->stats->signal_ns += tick_lap(&lap);
	bool walked = false; /* a walk takes the still threads' stacks too */
	if (walks && (activity_in_gc_suspension() || !suspension_allowed()))
		t->stats->deferred_walks += walks; /* (a GC has the runtime suspended: ours would wait for its end) */
	else if (walks)
		walked = suspension_walk(t, used);
	if (!walked)
		samples_add_still(t);
	tick_lap(&lap); /* (the suspension has a figure of its own) */
	suspension_checks(t);
	samples_end_tick(t, lap);
}

static void tick_mixed(struct tick *t)
{
	mixed_tick(t, mixed_capture);
}

const struct sampling_engine engine_mixed = {
	.short_slice = true,
	.surveys = true,
	.check = sigsampler_init,
	.tick = tick_mixed,
};
