/* The sampler's rules that need no runtime, from the agent's own sources:
 * when ticks come (schedule.h), the suspension budget (budget.h), the CPU
 * time a sample stands for (credit.c) and the thread table (threadtable.c).
 * The fakes (sampling_fakes.c) stand in for the base's clocks and the
 * signal sampler's kernel counts. */
#include <stdlib.h>
#include <string.h>

#include "agent/sampling/budget.h"
#include "agent/sampling/credit.h"
#include "agent/sampling/schedule.h"
#include "agent/sampling/threadtable.h"
#include "check.h"
#include "common/records.h"
#include "sampling_fakes.h"

#define P 1000000ull /* a period: 1 ms (1 kHz) */

/* Gaps are drawn uniformly from [P/2, 3P/2): their mean is the period, and
 * every tenth of that range gets a tenth of them. */
static void tick_gaps_are_uniform_around_the_period(void)
{
	struct tick_schedule s = schedule_start(0);
	enum { DRAWS = 200000, BINS = 10 };
	uint64_t bins[BINS] = {0}, sum = 0, outside = 0;
	for (int i = 0; i < DRAWS; i++) {
		uint64_t g = schedule_gap(&s, P);
		sum += g;
		if (g < P / 2 || g >= 3 * P / 2) {
			outside++;
			continue;
		}
		bins[(g - P / 2) * BINS / P]++;
	}
	CHECK_EQ_U(outside, 0);
	double mean = (double)sum / DRAWS;
	CHECK(mean > 0.995 * P && mean < 1.005 * P);
	for (int b = 0; b < BINS; b++)
		CHECK(bins[b] > 0.95 * DRAWS / BINS && bins[b] < 1.05 * DRAWS / BINS);
}

/* The next tick: the gap drawn as the tick before was taken (which is the
 * instant its signals aimed at), a plain period while sampling is off, and
 * no burst after falling behind. */
static void next_tick_follows_the_drawn_gap(void)
{
	uint64_t t0 = 5 * P;
	struct tick_schedule s = schedule_start(t0);
	uint64_t first = schedule_next(&s, t0, P, true);
	CHECK(first >= t0 + P / 2 && first < t0 + 3 * P / 2);
	uint64_t deadline = schedule_draw(&s, P); /* as the first tick is taken */
	CHECK(deadline >= first + P / 2 && deadline < first + 3 * P / 2);
	CHECK_EQ_U(schedule_next(&s, first, P, true), deadline);
	/* sampling off: the sampler wakes every period exactly */
	uint64_t idle = schedule_next(&s, deadline, 50 * P, false);
	CHECK_EQ_U(idle, deadline + 50 * P);
	/* a sampler that fell behind (a long GC) takes the next tick a period
	 * from now, not the ones it missed */
	uint64_t late = idle + 1000 * P;
	CHECK_EQ_U(schedule_next(&s, late, P, true), late + P);
	/* ... and goes on from there */
	uint64_t after = schedule_next(&s, late + P, P, true);
	CHECK(after >= late + P + P / 2 && after < late + P + 3 * P / 2);
}

/* The runtime stays suspended at most a tenth of the time: the budget
 * grows by a tenth of the time that passes, up to 10 ms in store, and a
 * suspension spends its length. */
static void suspension_budget_is_a_tenth_of_the_time(void)
{
	struct suspend_budget b = budget_full();
	uint64_t now = 1000 * P;
	CHECK(budget_allows(&b, now));
	budget_spend(&b, 15 * P); /* 5 ms over */
	CHECK(!budget_allows(&b, now + 49 * P));
	CHECK(budget_allows(&b, now + 51 * P));
	/* what a long idle time stores is capped */
	now += 10000 * P;
	CHECK(budget_allows(&b, now));
	budget_spend(&b, SUSPEND_BUDGET_MAX_NS + 1);
	CHECK(!budget_allows(&b, now));
	/* a run of ticks a period apart whose suspensions last 3 periods each:
	 * suspended a tenth of the time, but for what was in store */
	b = budget_full();
	uint64_t start = now, suspended = 0;
	for (int i = 0; i < 10000; i++, now += P)
		if (budget_allows(&b, now)) {
			budget_spend(&b, 3 * P);
			suspended += 3 * P;
			now += 3 * P;
		}
	uint64_t elapsed = now - start;
	CHECK(suspended <= elapsed / SUSPEND_SHARE + SUSPEND_BUDGET_MAX_NS + 3 * P);
	CHECK(suspended >= elapsed / SUSPEND_SHARE - 3 * P); /* and it is used */
}

/* A thread as the survey leaves it: its CPU clock now and at the survey
 * before. */
static struct sampled_thread thread_at(uint64_t cpu_before, uint64_t cpu_now)
{
	struct sampled_thread t = {.thread = 1, .os_tid = 10, .clock = agent_thread_cpu_clock(10)};
	t.cpu_before = cpu_before;
	t.cpu_now = cpu_now;
	return t;
}

static void survey_again(struct sampled_thread *t, uint64_t used)
{
	t->cpu_before = t->cpu_now;
	t->cpu_now += used;
}

/* Each period of CPU time is one on-CPU sample: a capture that finds the
 * thread running spends its credit (past one period as CPU_OWED), keeping
 * up to two periods for the ticks to come. */
static void on_cpu_samples_stand_for_cpu_time(void)
{
	/* a plain sample (no thread known) is one on the CPU, a kernel sample
	 * as many periods as it stands for (at most CS_CPU_OWED_MAX_COUNT more) */
	CHECK_EQ_U(credit_on_cpu(NULL, P, false, false, 0), 1);
	CHECK_EQ_U(credit_on_cpu(NULL, P, false, false, 3), 3);
	CHECK_EQ_U(credit_on_cpu(NULL, P, false, false, 1000), CS_CPU_OWED_MAX_COUNT + 1);

	/* 5 periods used since the survey before: 4 now, 1 kept */
	struct sampled_thread t = thread_at(100 * P, 105 * P);
	CHECK_EQ_U(credit_on_cpu(&t, P, false, false, 0), 4);
	CHECK_EQ_U(t.cpu_credit, P);
	/* then a period a tick: one sample each */
	for (int i = 0; i < 5; i++) {
		survey_again(&t, P);
		CHECK_EQ_U(credit_on_cpu(&t, P, false, false, 0), 1);
	}
	/* found waiting in a system call: off the CPU, the credit kept */
	survey_again(&t, P);
	CHECK_EQ_U(credit_on_cpu(&t, P, true, false, 0), 0);
	CHECK_EQ_U(t.cpu_credit, 2 * P);
	/* less than half a period of credit: off the CPU */
	struct sampled_thread idle = thread_at(100 * P, 100 * P + P / 3);
	CHECK_EQ_U(credit_on_cpu(&idle, P, false, false, 0), 0);
	/* at most 8 periods are kept with no capture that found it running */
	struct sampled_thread busy = thread_at(100 * P, 150 * P);
	CHECK_EQ_U(credit_on_cpu(&busy, P, true, false, 0), 0);
	CHECK_EQ_U(busy.cpu_credit, CREDIT_MAX_PERIODS * P);
	/* just back from a wait: off the CPU, unless it used all that
	 * credit: then it stands for it */
	struct sampled_thread woke = thread_at(100 * P, 104 * P);
	CHECK_EQ_U(credit_on_cpu(&woke, P, false, true, 0), 0);
	CHECK_EQ_U(credit_on_cpu(&busy, P, false, true, 0), CREDIT_MAX_PERIODS - 1);
	/* the kernel's samples are one a period of the thread's CPU time */
	struct sampled_thread k = thread_at(100 * P, 103 * P);
	CHECK_EQ_U(credit_on_cpu(&k, P, false, false, 3), 3);
	CHECK_EQ_U(k.cpu_credit, 0);
}

/* A thread that runs all the time, sampled at ticks drawn as the sampler
 * draws them: its on-CPU samples add up to its CPU time in periods. */
static void on_cpu_samples_add_up_to_cpu_time(void)
{
	struct tick_schedule s = schedule_start(0);
	struct sampled_thread t = thread_at(0, 0);
	uint64_t samples = 0, used = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t gap = schedule_gap(&s, P);
		survey_again(&t, gap);
		used += gap;
		samples += credit_on_cpu(&t, P, false, false, 0);
	}
	CHECK(samples + 3 >= used / P && samples <= used / P);
	/* ... and a thread that runs a third of the time in bursts, found
	 * running by one capture in three */
	t = thread_at(0, 0);
	samples = used = 0;
	for (int i = 0; i < 9000; i++) {
		survey_again(&t, P / 3);
		used += P / 3;
		samples += credit_on_cpu(&t, P, i % 3 != 0, false, 0);
	}
	CHECK(samples + 3 >= used / P && samples <= used / P);
}

/* A thread the kernel samples: its CPU time is their samples'; a signal
 * sent for a period they missed stands for one, or, just back from its
 * wait after the most credit kept, for all it used there. */
static void kernel_sampled_threads_are_credited_by_their_samples(void)
{
	fake_reset();
	struct sampled_thread t = thread_at(100 * P, 110 * P);
	t.kernel_sampled = true;
	CHECK_EQ_U(credit_on_cpu(&t, P, false, false, 4), 4);
	CHECK_EQ_U(t.cpu_credit, 0);
	CHECK_EQ_U(t.cpu_accounted, 110 * P);
	CHECK_EQ_U(credit_on_cpu(&t, P, false, false, 0), 0); /* no signal paid for it */
	t.paying = true;
	CHECK_EQ_U(credit_on_cpu(&t, P, true, false, 0), 0); /* ... found waiting: not running */
	CHECK(!t.paying);
	t.paying = true;
	CHECK_EQ_U(credit_on_cpu(&t, P, false, false, 0), 1);
	CHECK_EQ_U(fake_kernel_counted, 1);
	t.paying = true;
	fake_kernel_unsampled = 3 * P;
	CHECK_EQ_U(credit_on_cpu(&t, P, false, true, 0), 0); /* woke after little unsampled time */
	t.paying = true;
	fake_kernel_unsampled = 20 * P;
	CHECK_EQ_U(credit_on_cpu(&t, P, false, true, 0), 20);
	CHECK_EQ_U(fake_kernel_counted, 21);
}

/* One entry per thread (ThreadID and OS thread): found again while in
 * use, free again when nothing holds it; its run and signal part outlive
 * what the survey forgets. */
static void thread_table_entries(void)
{
	fake_reset();
	tt_reset();
	struct sampled_thread *a = tt_entry(0x100, 11), *b;
	CHECK(a && a->thread == 0x100 && a->os_tid == 11 && a->clock == agent_thread_cpu_clock(11));
	CHECK(a->sig.slot == -1);
	tt_list_keep(a);
	b = tt_entry(0x200, 12);
	CHECK(b && b != a);
	tt_list_keep(b);
	struct sampled_thread *list[2] = {a, b};
	tt_set_listed(list, 2);
	CHECK(tt_entry(0x100, 11) == a);
	CHECK(tt_find_listed(0x200) == b && !tt_find_listed(0x300));
	/* a ThreadID the runtime gave to a later OS thread: another entry */
	struct sampled_thread *a2 = tt_entry(0x100, 13);
	CHECK(a2 && a2 != a && a2 != b);
	/* b leaves the list while a signal slot holds it; a leaves it for good */
	b->sig.slot = 5;
	b->hold = (struct thread_hold){.ref = 0x200, .count = 3, .open = true};
	b->still = true;
	tt_list_keep(a2);
	struct sampled_thread *next[1] = {a2};
	tt_set_listed(next, 1);
	CHECK(!a->listed && !b->listed && a2->listed);
	CHECK(tt_entry(0x200, 12) == b); /* still in use */
	struct sampled_thread *c = tt_entry(0x300, 14);
	CHECK(c == a); /* a's place, free again */
	CHECK(c->thread == 0x300 && !c->listed);
	/* what the survey knew goes; who it is, its signal part and its run stay */
	tt_forget_survey(b);
	CHECK(!b->still && b->thread == 0x200 && b->os_tid == 12 && b->sig.slot == 5 && b->hold.open);
	/* an empty list forgets every listed thread */
	tt_set_listed(NULL, 0);
	CHECK(!a2->listed && !tt_find_listed(0x100));
	/* many threads: each found by its ThreadID */
	tt_reset();
	static struct sampled_thread *many[TT_LISTED_MAX];
	for (uint32_t i = 0; i < TT_LISTED_MAX; i++) {
		many[i] = tt_entry(0x1000 + 8 * (ThreadID)i, 100 + i);
		CHECK(many[i] != NULL);
		if (many[i])
			tt_list_keep(many[i]);
	}
	tt_set_listed(many, TT_LISTED_MAX);
	int lost = 0;
	for (uint32_t i = 0; i < TT_LISTED_MAX; i++)
		lost += tt_find_listed(0x1000 + 8 * (ThreadID)i) != many[i];
	CHECK_EQ_U(lost, 0);
	/* the table has room for every listed thread and every signal slot's */
	uint32_t more = 0;
	for (uint32_t i = 0; i < TT_SIGNAL_SLOTS + 1; i++) {
		struct sampled_thread *t = tt_entry(0x900000 + (ThreadID)i, 5000 + i);
		if (t) {
			t->sig.slot = (int32_t)i;
			more++;
		}
	}
	CHECK_EQ_U(more, TT_SIGNAL_SLOTS);
}

int main(void)
{
	RUN(tick_gaps_are_uniform_around_the_period);
	RUN(next_tick_follows_the_drawn_gap);
	RUN(suspension_budget_is_a_tenth_of_the_time);
	RUN(on_cpu_samples_stand_for_cpu_time);
	RUN(on_cpu_samples_add_up_to_cpu_time);
	RUN(kernel_sampled_threads_are_credited_by_their_samples);
	RUN(thread_table_entries);
	return CHECK_DONE();
}
