/* The sampler thread (sampler.c, from the agent's own source) with four
 * fake engines in place of the real ones: the sampler dial swaps the
 * engine only between ticks (the one that ends is stopped before the next
 * starts, and no tick runs outside its engine's start and stop), a dial
 * value whose engine cannot run is refused and the engine stays, an
 * unknown one suspends, and each tick gets the dials and the time slice
 * its engine asks for. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/sampling/engine.h"
#include "agent/sampling/sampler.h"
#include "agent/sampling/samples.h"
#include "agent/sampling/sigsampler.h"
#include "agent/sampling/stillthreads.h"
#include "agent/sampling/suspension.h"
#include "agent/sampling/threadtable.h"
#include "agent/sampling/timeslice.h"
#include "agent/unwind/codemap.h"
#include "agent/unwind/unwind.h"
#include "check.h"
#include "sampling_fakes.h"

/* What the sampler thread did, in order (read by the test once it
 * stopped). */
enum what { START, STOP, TICK };
struct event {
	enum what what;
	int engine;          /* the dial's value of the engine */
	bool slice_ok;       /* (a tick) the time slice was its engine's */
	uint32_t rate_hz;    /* (a tick) the dials it got */
	uint32_t validate;
};
#define EVENTS_MAX 100000
static struct event events[EVENTS_MAX];
static atomic_uint nevents;
static atomic_uint ticks_of[4];
static atomic_bool check_fails;
static int slice = -1; /* timeslice_short's last (sampler thread) */
static atomic_uint idles;

static void note(enum what what, int engine, const struct tick *t)
{
	unsigned n = atomic_load(&nevents);
	if (n == EVENTS_MAX)
		return;
	events[n] = (struct event){what, engine, false, 0, 0};
	if (t) {
		events[n].rate_hz = t->rate_hz;
		events[n].validate = t->validate;
	}
	atomic_store(&nevents, n + 1);
}

#define FAKE_ENGINE(name, dial, slice_short, can_run)                                          \
	static void name##_start(void)                                                  \
	{                                                                               \
		note(START, dial, NULL);                                                \
	}                                                                               \
	static void name##_stop(void)                                                   \
	{                                                                               \
		note(STOP, dial, NULL);                                                 \
	}                                                                               \
	static void name##_tick(struct tick *t)                                         \
	{                                                                               \
		note(TICK, dial, t);                                                    \
		events[atomic_load(&nevents) - 1].slice_ok = slice == (slice_short);    \
		atomic_fetch_add(&ticks_of[dial], 1);                                   \
	}                                                                               \
	const struct sampling_engine engine_##name = {                                  \
		.short_slice = slice_short,                                             \
		.surveys = true,                                                        \
		.check = can_run,                                                       \
		.start = name##_start,                                                  \
		.stop = name##_stop,                                                    \
		.tick = name##_tick,                                                    \
	}

static int fake_check(char *why, size_t whylen)
{
	if (!atomic_load(&check_fails))
		return 0;
	snprintf(why, whylen, "no signals here");
	return -1;
}

FAKE_ENGINE(suspend, CS_SAMPLER_SUSPEND, false, NULL);
FAKE_ENGINE(signal, CS_SAMPLER_SIGNAL, true, fake_check);
FAKE_ENGINE(mixed, CS_SAMPLER_MIXED, true, fake_check);
FAKE_ENGINE(kernel, CS_SAMPLER_KERNEL, true, fake_check);

/* ---- what sampler.c calls besides its engines ---- */

static struct tick the_tick;
static struct cs_status stats;

int samples_init(void)
{
	the_tick.stats = &stats;
	return 0;
}

struct tick *samples_tick_begin(uint32_t rate_hz, uint32_t validate)
{
	the_tick.start_ns = agent_mono_ns();
	the_tick.rate_hz = rate_hz;
	the_tick.validate = validate;
	return &the_tick;
}

void samples_idle(uint32_t rate_hz)
{
	(void)rate_hz;
	atomic_fetch_add(&idles, 1);
}

void samples_end(uint32_t rate_hz)
{
	(void)rate_hz;
}

void samples_publish_last(void)
{
}

int suspension_init(void)
{
	return 0;
}

int codemap_init(void)
{
	return 0;
}

void timeslice_short(bool on)
{
	slice = on;
}

void sigsampler_reset(void)
{
}

void sigsampler_release(void)
{
}

void sigsampler_set_deadline(uint64_t next_tick_ns)
{
	(void)next_tick_ns;
}

void tt_reset(void)
{
}

void still_reset(void)
{
}

struct still_stats still_stats(void)
{
	return (struct still_stats){0};
}

int still_survey(uint32_t check_every)
{
	(void)check_every;
	return 0;
}

struct sampled_thread **still_threads(uint32_t *n)
{
	*n = 0;
	return NULL;
}

struct unwind_counts unwind_counts(void)
{
	return (struct unwind_counts){0};
}

/* ---- the tests ---- */

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Waits (at most 10 s) until the engine of dial value `engine` has ticked
 * `more` times more than `from`. */
static bool ticked(int engine, unsigned from, unsigned more)
{
	for (int i = 0; i < 1000; i++) {
		if (atomic_load(&ticks_of[engine]) >= from + more)
			return true;
		sleep_ms(10);
	}
	return false;
}

static void engines_swap_between_ticks(void)
{
	fake_reset();
	fake_real_time = true;
	char why[100] = "";
	CHECK(sampler_set_mode(CS_SAMPLER_MIXED, why, sizeof why) == 0);
	sampler_set_validate(7);
	CHECK(sampler_start(2000, true) == 0);
	CHECK(ticked(CS_SAMPLER_MIXED, 0, 20));
	/* a dial value whose engine cannot run here: refused, the engine stays */
	atomic_store(&check_fails, true);
	CHECK(sampler_set_mode(CS_SAMPLER_SIGNAL, why, sizeof why) == -1);
	CHECK_STR(why, "no signals here");
	atomic_store(&check_fails, false);
	CHECK(ticked(CS_SAMPLER_MIXED, atomic_load(&ticks_of[CS_SAMPLER_MIXED]), 20));
	CHECK_EQ_U(atomic_load(&ticks_of[CS_SAMPLER_SIGNAL]), 0);
	CHECK(sampler_set_mode(CS_SAMPLER_SIGNAL, why, sizeof why) == 0);
	CHECK(ticked(CS_SAMPLER_SIGNAL, 0, 20));
	sampler_set_rate(500);
	CHECK(sampler_set_mode(CS_SAMPLER_KERNEL, why, sizeof why) == 0);
	CHECK(ticked(CS_SAMPLER_KERNEL, 0, 10));
	/* a value without an engine suspends */
	CHECK(sampler_set_mode(77, why, sizeof why) == 0);
	CHECK(ticked(CS_SAMPLER_SUSPEND, 0, 10));
	/* sampling off: no tick, the staged samples written */
	sampler_set_sampling(false);
	sleep_ms(120);
	unsigned before = atomic_load(&ticks_of[CS_SAMPLER_SUSPEND]);
	sleep_ms(200);
	CHECK_EQ_U(atomic_load(&ticks_of[CS_SAMPLER_SUSPEND]), before);
	CHECK(atomic_load(&idles) > 0);
	CHECK(sampler_stop(2000) == 0);

	/* the order: each engine ticks only between its start and its stop,
	 * and one stops just before the next starts */
	unsigned n = atomic_load(&nevents);
	int running = -1, order[8], norder = 0;
	unsigned out_of_place = 0, slices = 0, swaps = 0, bad_rates = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct event *e = &events[i];
		switch (e->what) {
		case START:
			out_of_place += running != -1;
			running = e->engine;
			if (norder < 8)
				order[norder++] = e->engine;
			break;
		case STOP:
			out_of_place += running != e->engine;
			running = -1;
			swaps += i + 1 < n && events[i + 1].what == START;
			break;
		case TICK:
			out_of_place += running != e->engine;
			slices += !e->slice_ok;
			/* the rate went from 2000 to 500 while the signal engine ran */
			bad_rates += e->validate != 7 || (e->engine == CS_SAMPLER_MIXED && e->rate_hz != 2000) ||
				     (e->engine == CS_SAMPLER_SIGNAL && e->rate_hz != 2000 && e->rate_hz != 500) ||
				     (e->engine == CS_SAMPLER_KERNEL && e->rate_hz != 500) ||
				     (e->engine == CS_SAMPLER_SUSPEND && e->rate_hz != 500);
			break;
		}
	}
	CHECK_EQ_U(out_of_place, 0);
	CHECK_EQ_U(running, -1); /* the last engine stopped as the sampler ended */
	CHECK_EQ_U(slices, 0);
	CHECK_EQ_U(bad_rates, 0);
	CHECK_EQ_U(norder, 4);
	CHECK(norder == 4 && order[0] == CS_SAMPLER_MIXED && order[1] == CS_SAMPLER_SIGNAL &&
	      order[2] == CS_SAMPLER_KERNEL && order[3] == CS_SAMPLER_SUSPEND);
	CHECK_EQ_U(swaps, 3);
}

int main(void)
{
	RUN(engines_swap_between_ticks);
	return CHECK_DONE();
}
