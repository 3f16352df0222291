/* The survey (stillthreads.c) and the suspending engine's ticks
 * (engine_suspend.c, suspension.c, samples.c), from the agent's own
 * sources, against a fake runtime whose threads' CPU clocks the test moves
 * (sampling_fakes.c); what they write is read back from the log records. */
#include <stdlib.h>
#include <string.h>

#include "agent/sampling/engine.h"
#include "agent/sampling/samples.h"
#include "agent/sampling/stillthreads.h"
#include "agent/sampling/suspension.h"
#include "agent/sampling/threadlist.h"
#include "agent/sampling/threadtable.h"
#include "check.h"
#include "sampling_fakes.h"

#define RATE 1000
#define P 1000000ull /* its period */
#define US 1000ull

static void start(void)
{
	fake_reset();
	tt_reset();
	still_reset();
	CHECK(samples_init() == 0);
	CHECK(suspension_init() == 0);
	threadlist_changed(); /* (the list is asked for at the first survey) */
}

/* One tick of the suspending engine, a period after the one before. */
static void tick(void)
{
	fake_mono_ns += P;
	engine_suspend.tick(samples_tick_begin(RATE, 0));
}

static struct fake_thread_log logged(ThreadID thread)
{
	struct fake_thread_log per;
	struct fake_log all = fake_log_read(thread, &per);
	CHECK_EQ_U(all.bad, 0);
	return per;
}

/* A thread whose CPU clock has not moved keeps its stack: no walk, no
 * suspension when no thread ran, and its samples are held as a run. */
static void still_threads_keep_their_stacks(void)
{
	start();
	struct fake_thread *a = fake_thread_add(0x100, 11, 5 * P, 0x11);
	fake_thread_add(0x200, 12, 7 * P, 0x22);
	tick(); /* both new: walked */
	CHECK_EQ_U(fake_rt.suspensions, 1);
	CHECK_EQ_U(fake_rt.walks, 2);
	tick(); /* neither ran */
	CHECK_EQ_U(fake_rt.suspensions, 1);
	CHECK_EQ_U(fake_rt.walks, 2);
	a->cpu_ns += 2 * P;
	tick(); /* a ran: walked alone */
	CHECK_EQ_U(fake_rt.suspensions, 2);
	CHECK_EQ_U(fake_rt.walks, 3);
	samples_end(RATE);
	struct fake_thread_log la = logged(0x100), lb = logged(0x200);
	/* a: walked at the first and third ticks (on the CPU at the third: it
	 * used two periods), held at the second */
	CHECK_EQ_U(la.off_cpu, 1);
	CHECK_EQ_U(la.on_cpu, 1);
	CHECK_EQ_U(la.held, 1);
	CHECK_EQ_U(la.last_stack, FAKE_STACK_OF(0x11));
	/* b: walked once, then one run of two samples */
	CHECK_EQ_U(lb.off_cpu + lb.on_cpu, 1);
	CHECK_EQ_U(lb.held, 2);
	CHECK_EQ_U(lb.runs, 1);
	struct fake_log all = fake_log_read(0, NULL);
	CHECK_EQ_U(all.ticks, 3);
}

/* A run holds one stack: a thread that ran and parked elsewhere since
 * begins another run. */
static void a_run_is_one_stack(void)
{
	start();
	struct fake_thread *a = fake_thread_add(0x100, 11, 5 * P, 0x11);
	tick();
	tick(); /* held */
	a->cpu_ns += P;
	a->frames[0] = 0x44;
	tick(); /* walked: another stack */
	tick(); /* held */
	samples_end(RATE);
	struct fake_thread_log la = logged(0x100);
	CHECK_EQ_U(la.held, 2);
	CHECK_EQ_U(la.runs, 2);
	CHECK_EQ_U(la.last_run_stack, FAKE_STACK_OF(0x44));
}

/* A walked thread that used several periods of CPU since its last on-CPU
 * sample: the tick's sample and CPU_OWED for the rest, but two periods
 * kept for the ticks to come. */
static void cpu_time_beyond_a_sample_is_owed(void)
{
	start();
	struct fake_thread *a = fake_thread_add(0x100, 11, 5 * P, 0x11);
	tick();
	a->cpu_ns += 5 * P;
	tick();
	samples_end(RATE);
	struct fake_thread_log la = logged(0x100);
	CHECK_EQ_U(la.on_cpu, 1);
	CHECK_EQ_U(la.owed, 3);
}

/* A ThreadID the runtime gives to a later OS thread is another thread:
 * walked afresh, not held with the former one's stack. */
static void a_reused_thread_id_is_walked_afresh(void)
{
	start();
	struct fake_thread *a = fake_thread_add(0x100, 11, 5 * P, 0x11);
	tick();
	tick();
	CHECK_EQ_U(fake_rt.walks, 1);
	a->os = 12; /* same ThreadID, another OS thread, with the same CPU time */
	a->frames[0] = 0x33;
	threadlist_changed();
	tick();
	CHECK_EQ_U(fake_rt.walks, 2);
	samples_end(RATE);
	struct fake_thread_log la = logged(0x100);
	CHECK_EQ_U(la.held, 1);
	CHECK_EQ_U(la.last_stack, FAKE_STACK_OF(0x33));
}

/* Threads with no managed frame (the runtime's own) give no sample, and
 * are not walked again until they run. */
static void threads_without_managed_frames(void)
{
	start();
	fake_thread_add(0x100, 11, 5 * P, 0); /* native frames only */
	fake_thread_add(0x200, 0, 0, 0x22);   /* not started: no OS thread */
	tick();
	tick();
	CHECK_EQ_U(fake_rt.walks, 1);
	samples_end(RATE);
	struct fake_log all = fake_log_read(0, NULL);
	CHECK_EQ_U(all.samples, 0);
	CHECK_EQ_U(logged(0x100).held + logged(0x200).held, 0);
}

/* The suspensions stay within a tenth of the time, however long each
 * takes; the ticks it puts off are counted and write nothing. */
static void suspensions_stay_within_their_budget(void)
{
	start();
	struct fake_thread *a = fake_thread_add(0x100, 11, 5 * P, 0x11);
	fake_rt.suspend_ns = 5 * P;
	uint64_t began = fake_mono_ns;
	for (int i = 0; i < 1000; i++) {
		a->cpu_ns += P; /* it runs: each tick wants a walk */
		tick();
	}
	uint64_t elapsed = fake_mono_ns - began, suspended = fake_rt.suspensions * fake_rt.suspend_ns;
	CHECK(suspended <= elapsed / 10 + 10 * P + 5 * P);
	CHECK(suspended >= elapsed / 10 - 10 * P);
	samples_end(RATE);
	samples_publish_last();
	CHECK_EQ_U(fake_status.deferred_walks, 1000 - fake_rt.suspensions);
	CHECK_EQ_U(fake_status.suspend_total_ns, suspended);
	struct fake_log all = fake_log_read(0, NULL);
	CHECK_EQ_U(all.ticks, fake_rt.suspensions);
	CHECK_EQ_U(all.suspend_ns, suspended);
}

/* During a GC no walk can be had: the still threads' samples, as they
 * wait, and the others' walks put off; a failed suspension is no tick. */
static void no_walks_during_a_gc(void)
{
	start();
	struct fake_thread *a = fake_thread_add(0x100, 11, 5 * P, 0x11);
	fake_thread_add(0x200, 12, 7 * P, 0x22);
	tick();
	fake_rt.in_gc = true;
	a->cpu_ns += P;
	tick();
	CHECK_EQ_U(fake_rt.suspensions, 1);
	fake_rt.in_gc = false;
	fake_rt.suspend_fails = true;
	a->cpu_ns += P;
	tick();
	samples_end(RATE);
	samples_publish_last();
	CHECK_EQ_U(fake_status.deferred_walks, 1);
	struct fake_log all = fake_log_read(0, NULL);
	CHECK_EQ_U(all.ticks, 2);
	CHECK_EQ_U(logged(0x200).held, 1);
	CHECK_EQ_U(logged(0x100).held, 0);
}

/* The survey's parked-thread rules.  A thread caught in a system call that
 * ran since is still when its capture's proof finds it where it was
 * (asked only of a thread that used little CPU since the survey before);
 * without a proof, only after at most 20 us of CPU at the same site; every
 * check_every-th proof is checked by a capture instead. */
static void parked_threads_and_their_proof(void)
{
	start();
	struct fake_thread *a = fake_thread_add(0x100, 11, 100 * P, 0x11);
	struct syscall_site site = {0x7000, 0x8000, 3};
	CHECK_EQ_U(still_survey(0), 1);
	struct sampled_thread *t = still_find(0x100);
	CHECK(t != NULL);
	if (!t)
		return;
	/* a capture in that system call */
	still_captured(t, a->cpu_ns, &site, 1234);
	/* survey again 10 ms later (little CPU: a twentieth of that) */
#define SURVEY(used, answer, every)            \
	(fake_mono_ns += 10 * P, a->cpu_ns += (used), fake_parked = (answer), still_survey(every))
	CHECK_EQ_U(SURVEY(30 * US, PARKED_SAME, 0), 0);
	CHECK(t->still && t->stack == 1234 && t->cpu_walked == a->cpu_ns);
	CHECK_EQ_U(still_stats().parked_kept, 1);
	CHECK_EQ_U(SURVEY(30 * US, PARKED_MOVED, 0), 1);
	CHECK(!t->still);
	CHECK_EQ_U(still_stats().parked_moved, 1);
	/* no proof: the site and little CPU since the capture */
	still_captured(t, a->cpu_ns, &site, 1234);
	fake_parked_site = site;
	CHECK_EQ_U(SURVEY(10 * US, PARKED_UNPROVEN, 0), 0);
	CHECK_EQ_U(SURVEY(30 * US, PARKED_UNPROVEN, 0), 1);
	CHECK_EQ_U(still_stats().parked_unproven, 2);
	/* busy since the survey before: not asked, a signal decides */
	still_captured(t, a->cpu_ns, &site, 1234);
	uint32_t asked = fake_parked_asked;
	CHECK_EQ_U(SURVEY(5 * P, PARKED_SAME, 0), 1);
	CHECK_EQ_U(fake_parked_asked, asked);
	/* the validate dial: every 2nd proof is checked instead of kept */
	still_captured(t, a->cpu_ns, &site, 1234);
	CHECK_EQ_U(SURVEY(30 * US, PARKED_SAME, 2), 0);
	CHECK_EQ_U(t->parked_check, 0);
	CHECK_EQ_U(SURVEY(30 * US, PARKED_SAME, 2), 1);
	CHECK_EQ_U(t->parked_check, 1234);
	CHECK(syscall_site_same(&t->parked_check_site, &site));
	/* a thread that was not captured in a system call is never asked */
	still_walked(t, 1234);
	asked = fake_parked_asked;
	CHECK_EQ_U(SURVEY(1 * US, PARKED_SAME, 0), 1);
	CHECK_EQ_U(fake_parked_asked, asked);
	/* ... and one whose clock did not move is still without asking */
	still_walked(t, 1234);
	CHECK_EQ_U(SURVEY(0, PARKED_MOVED, 0), 0);
	CHECK_EQ_U(fake_parked_asked, asked);
#undef SURVEY
}

/* Threads that end leave the survey's list; threads that start join it;
 * the list is asked for again only when threads came or went (or a second
 * passed). */
static void the_survey_follows_the_runtime_list(void)
{
	start();
	struct fake_thread *a = fake_thread_add(0x100, 11, 5 * P, 0x11);
	fake_thread_add(0x200, 12, 7 * P, 0x22);
	CHECK_EQ_U(still_survey(0), 2);
	uint32_t enums = fake_rt.enums, n;
	fake_mono_ns += P;
	CHECK_EQ_U(still_survey(0), 2); /* (never walked) */
	CHECK_EQ_U(fake_rt.enums, enums);
	a->listed = false;
	fake_thread_add(0x50, 13, 9 * P, 0x33);
	threadlist_changed();
	still_survey(0);
	CHECK_EQ_U(fake_rt.enums, enums + 1);
	struct sampled_thread **all = still_threads(&n);
	CHECK_EQ_U(n, 2);
	CHECK(n == 2 && all[0]->thread == 0x50 && all[1]->thread == 0x200); /* by ThreadID */
	CHECK(!still_find(0x100));
	fake_mono_ns += 2000 * P;
	still_survey(0);
	CHECK_EQ_U(fake_rt.enums, enums + 2);
}

int main(void)
{
	RUN(still_threads_keep_their_stacks);
	RUN(a_run_is_one_stack);
	RUN(cpu_time_beyond_a_sample_is_owed);
	RUN(a_reused_thread_id_is_walked_afresh);
	RUN(threads_without_managed_frames);
	RUN(suspensions_stay_within_their_budget);
	RUN(no_walks_during_a_gc);
	RUN(parked_threads_and_their_proof);
	RUN(the_survey_follows_the_runtime_list);
	return CHECK_DONE();
}
