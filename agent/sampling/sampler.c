/* The sampler thread (sampler.h): its loop, the engine it ticks with, and
 * what it does between ticks. */
#include "agent/sampling/sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <time.h>

#include "agent/log/logwriter.h"
#include "agent/sampling/engine.h"
#include "agent/sampling/samples.h"
#include "agent/sampling/schedule.h"
#include "agent/sampling/sigsampler.h"
#include "agent/sampling/stillthreads.h"
#include "agent/sampling/suspension.h"
#include "agent/sampling/threadtable.h"
#include "agent/sampling/timeslice.h"
#include "agent/symbols/symbols.h"
#include "agent/symbols/unloads.h"
#include "agent/unwind/codemap.h"
#include "agent/unwind/unwind.h"
#ifdef CLRSCOPE_WALK_PROBE
#include "agent/unwind/walkprobe.h"
#endif
#include "common/records.h"

/* Other threads' events (runtime events, call totals, allocation counts)
 * are passed on at most this often, not at every tick: a drain per tick at
 * 1 kHz is some 3 % of the sampler thread's time ("naming and logging" in
 * the cost lines of clrscope report), and the samples are staged longer
 * than this anyway. */
#define DRAIN_EVERY_NS 5000000ull
#define IDLE_WAKE_NS (50u * 1000000u)

/* The engines by the sampler dial's value; a value without one
 * suspends. */
static const struct sampling_engine *const engines[] = {
	[CS_SAMPLER_SUSPEND] = &engine_suspend,
	[CS_SAMPLER_SIGNAL] = &engine_signal,
	[CS_SAMPLER_MIXED] = &engine_mixed,
	[CS_SAMPLER_KERNEL] = &engine_kernel,
};

static const struct sampling_engine *engine_of(int mode)
{
	if (mode < 0 || (size_t)mode >= sizeof engines / sizeof *engines || !engines[mode])
		return &engine_suspend;
	return engines[mode];
}

static struct {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* with mu: the thread's exit, awaited by sampler_stop */
	_Atomic bool stop;
	bool exited, started;
	_Atomic uint32_t rate_hz;
	atomic_bool sampling;
	_Atomic int mode; /* the sampler dial: enum cs_sampler */
	_Atomic uint32_t validate; /* fast walks per exact check, 0: none */
	void (*drain)(bool final);  /* sampler_set_drain's */

	/* sampler-thread only */
	const struct sampling_engine *engine; /* the one ticking (NULL: none yet) */
	uint64_t thread_cpu_ns;   /* when THREAD_CPU was last written */
	uint32_t thread_cpu_rounds;
	uint64_t drained_ns;       /* when the other threads' events were last passed on */
} s = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
};

/* The engine the dial asks for, swapped in at this tick boundary. */
static const struct sampling_engine *current_engine(void)
{
	const struct sampling_engine *want = engine_of(atomic_load(&s.mode));
	if (want != s.engine) {
		if (s.engine && s.engine->stop)
			s.engine->stop();
		if (want->start)
			want->start();
		s.engine = want;
	}
	return want;
}

static void take_tick(void)
{
	const struct sampling_engine *e = current_engine();
	timeslice_short(e->short_slice);
	struct tick *t = samples_tick_begin(atomic_load(&s.rate_hz), atomic_load(&s.validate));
	e->tick(t);
}

static struct timespec to_timespec(uint64_t ns)
{
	return (struct timespec){.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
}

#define THREAD_CPU_EVERY_NS 100000000ull /* a busy thread's last reading is at most this old when it ends */
#define THREAD_CPU_BUSY_NS 1000000ull /* ... busy: used this much CPU since its last entry */
#define THREAD_CPU_IDLE_EVERY 10u     /* others: every 10th time (a second) */
#define THREAD_CPU_BYTES 4096

/* The CPU time of the managed threads (their own CPU clocks, exact where
 * samples are estimates): the reports' per-thread CPU time and the Threads
 * view's CPU%.  Every 100 ms for threads that used a millisecond of CPU
 * since their last entry, every second for those that used less (an idle
 * program's runtime threads stir a little: not worth ten entries a second). */
static void write_thread_cpu(uint64_t now_ns)
{
	if (now_ns - s.thread_cpu_ns < THREAD_CPU_EVERY_NS)
		return;
	s.thread_cpu_ns = now_ns;
	bool everyone = ++s.thread_cpu_rounds % THREAD_CPU_IDLE_EVERY == 0;
	if (!s.engine->surveys && still_survey(0) < 0)
		return; /* (the others survey every tick) */
	uint32_t n;
	struct sampled_thread **all = still_threads(&n);
	uint8_t buf[THREAD_CPU_BYTES];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	cs_thread_cpu_head_encode(&o, agent_now_us());
	size_t head = o.len;
	for (uint32_t i = 0; i < n; i++) {
		struct sampled_thread *t = all[i];
		if (!t->clock || !t->os_tid || t->cpu_now == t->cpu_logged)
			continue;
		if (!everyone && t->cpu_now < t->cpu_logged + THREAD_CPU_BUSY_NS)
			continue;
		size_t before = o.len;
		struct cs_thread_cpu e = {sym_thread(t->thread), t->cpu_now};
		cs_thread_cpu_encode(&o, &e);
		if (o.overflow) { /* the rest next time */
			o.len = before;
			o.overflow = false;
			break;
		}
		t->cpu_logged = t->cpu_now;
	}
	if (o.len > head)
		lw_append_record(CS_REC_THREAD_CPU, o.buf, o.len);
}

static void drain_events(bool final)
{
	if (s.drain)
		s.drain(final);
}

/* The tick's sleep: a plain timed sleep (a semaphore's wait would add the
 * futex's queueing to every wake-up), in pieces no longer than
 * STOP_CHECK_NS so that sampler_stop is seen in time at any rate. */
#define STOP_CHECK_NS 50000000ull
static void sleep_until(uint64_t until_ns, uint64_t now_ns)
{
	while (now_ns < until_ns && !atomic_load(&s.stop)) {
		bool last_piece = until_ns - now_ns <= STOP_CHECK_NS;
		struct timespec piece = to_timespec(last_piece ? until_ns : now_ns + STOP_CHECK_NS);
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &piece, NULL) == 0 && last_piece)
			return; /* (the usual tick: one sleep, no clock read after it) */
		now_ns = agent_mono_ns();
	}
}

static void *sampler_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/* The runtime's suspension loop sleeps 16 us at a time (nanosleep) on
	 * this thread; the default 50 us timer slack would make each of those
	 * ~100 us. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

	struct tick_schedule ticks = schedule_start(agent_mono_ns());
	unloads_hold();
	unloads_sampler_running(true);
	unloads_release();
	while (!atomic_load(&s.stop)) {
		bool sampling = atomic_load(&s.sampling);
		/* without sampling, still wake to pass events on */
		uint64_t period = sampling ? agent_period_ns(atomic_load(&s.rate_hz)) : IDLE_WAKE_NS;
		uint64_t now = agent_mono_ns();
		sleep_until(schedule_next(&ticks, now, period, sampling), now);
		if (atomic_load(&s.stop))
			break;
		/* from the walks to the names, and the drain: the runtime's IDs stay
		 * good until the guard is given back (unloads.h) */
		unloads_hold();
		if (sampling) {
			/* drawn now: this tick's signals land before the next one */
			sigsampler_set_deadline(schedule_draw(&ticks, period));
			take_tick();
		} else {
			samples_idle(atomic_load(&s.rate_hz));
		}
		uint64_t drained = agent_mono_ns();
		if (sampling)
			write_thread_cpu(drained);
		if (drained - s.drained_ns >= DRAIN_EVERY_NS) {
			s.drained_ns = drained;
			drain_events(false);
		}
		unloads_release();
	}
	unloads_hold(); /* (given back when the last drain is done) */
	struct sig_stats ss = sigsampler_stats();
	agent_debug("signal captures: %llu unwound, %llu through native frames, %llu truncated, %llu broken, "
		    "%llu ended beyond a copy short of the stack's top, "
		    "%llu without a managed frame, %llu native to the root, %llu signals not sent (handler replaced); "
		    "%llu read where they waited, %llu such reads not kept",
		    (unsigned long long)ss.fast_walks, (unsigned long long)ss.native_frames,
		    (unsigned long long)ss.truncated, (unsigned long long)ss.broken, (unsigned long long)ss.past_copy,
		    (unsigned long long)ss.no_managed,
		    (unsigned long long)ss.unmanaged_roots, (unsigned long long)ss.handler_lost,
		    (unsigned long long)ss.waiting_read, (unsigned long long)ss.waiting_unread);
	struct unwind_counts uc = unwind_counts();
	agent_debug("walks: %llu (%llu frames), %llu of them grafted onto their thread's last walk (%llu frames), "
		    "%llu ended beyond the copy where that walk had native frames to the root",
		    (unsigned long long)uc.walks, (unsigned long long)uc.frames, (unsigned long long)uc.grafts,
		    (unsigned long long)uc.grafted_frames, (unsigned long long)uc.rests);
#ifdef CLRSCOPE_WALK_PROBE
	walkprobe_report();
#endif
	struct still_stats parked = still_stats();
	agent_debug("threads that ran and sat in a system call again: %llu where their capture was (proven), %llu "
		    "elsewhere, %llu unproven",
		    (unsigned long long)parked.parked_kept, (unsigned long long)parked.parked_moved,
		    (unsigned long long)parked.parked_unproven);
	if (s.engine && s.engine->stop)
		s.engine->stop();
	sigsampler_release();
	samples_end(atomic_load(&s.rate_hz));
	drain_events(true);
	unloads_sampler_running(false);
	unloads_release();
	samples_publish_last(); /* with the last reading of its own clock */

	pthread_mutex_lock(&s.mu);
	s.exited = true;
	pthread_cond_broadcast(&s.cv);
	pthread_mutex_unlock(&s.mu);
	return NULL;
}

void sampler_set_drain(void (*drain)(bool final))
{
	s.drain = drain;
}

void sampler_set_rate(uint32_t rate_hz)
{
	atomic_store(&s.rate_hz, rate_hz); /* from the next tick on */
}

int sampler_set_mode(int mode, char *why, size_t whylen)
{
	const struct sampling_engine *e = engine_of(mode);
	if (e->check && e->check(why, whylen) < 0)
		return -1;
	atomic_store(&s.mode, mode);
	return 0;
}

void sampler_set_validate(uint32_t n)
{
	atomic_store(&s.validate, n);
}

void sampler_set_sampling(bool on)
{
#ifdef CLRSCOPE_WALK_PROBE
	if (on)
		walkprobe_restart();
#endif
	atomic_store(&s.sampling, on);
}

int sampler_start(uint32_t rate_hz, bool sampling)
{
	if (samples_init() != 0 || suspension_init() != 0 || codemap_init() != 0)
		return -1;
	s.engine = NULL; /* the first tick starts the dial's */
	atomic_store(&s.rate_hz, rate_hz);
	atomic_store(&s.sampling, sampling);
	sigsampler_reset();
	tt_reset();
	still_reset();

	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s.cv, &ca);
	pthread_condattr_destroy(&ca);
	atomic_store(&s.stop, false);
	s.exited = false;
	if (pthread_create(&s.thread, NULL, sampler_main, NULL) != 0)
		return -1;
	pthread_setname_np(s.thread, "clrscope-sample"); /* top -H, the Threads view */
	s.started = true;
	return 0;
}

int sampler_stop(uint32_t wait_ms)
{
	if (!s.started)
		return 0;
	struct timespec until = to_timespec(agent_mono_ns() + (uint64_t)wait_ms * 1000000ull);
	atomic_store(&s.stop, true);
	pthread_mutex_lock(&s.mu);
	while (!s.exited && pthread_cond_timedwait(&s.cv, &s.mu, &until) != ETIMEDOUT)
		;
	bool exited = s.exited;
	pthread_mutex_unlock(&s.mu);
	if (!exited) {
		pthread_detach(s.thread);
		s.started = false;
		return -1;
	}
	pthread_join(s.thread, NULL);
	s.started = false;
	return 0;
}
