#include "agent/sampling/stillthreads.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/sampling/sigsampler.h"
#include "agent/sampling/threadlist.h"
#include "agent/symbols/activity.h"

/* A thread caught in a system call (a wait) that has run since is asked
 * where it is.  In the same call (same instruction, stack pointer and
 * first argument) with every stack word its capture's walk read unchanged,
 * it has the captured frames, however long it ran in between (a pool
 * thread that served a request and parked again): the capture proves it
 * (sigsampler_parked_as_captured).  Where no proof is kept, only a thread
 * that used at most this much CPU since its handler (going back into the
 * call takes 2-15 us) keeps them.  Neither its CPU time nor the site alone
 * can tell: a thread woken from a lock's wait may reach its next wait in
 * as little (a thread waiting for a method's compilation goes on into
 * the method's own wait, which would get the caller's stack), and a
 * thread caught in its own code may have sat preempted with the signal
 * pending, past a deadline. */
#define CAPTURE_SLACK_NS 20000u

/* The proof is asked at the survey, which comes when the sampler thread
 * gets a CPU: on a busy machine just as some thread parks and frees one,
 * so a thread that works in bursts is found parked there more often than
 * it is.  A signal's instant is drawn at random instead (sigsampler.c).
 * So only a thread that used at most this share of the time since the
 * last survey is judged by the proof: the samples it could lose that way
 * are at most this share of its samples. */
#define PROOF_CPU_SHARE 20 /* 1/20: 5 % */

static struct {
	ThreadID ids[TT_LISTED_MAX];               /* the runtime's list, sorted */
	struct sampled_thread *next[TT_LISTED_MAX]; /* the survey's new list */
	uint64_t surveyed_ns; /* when the last survey read the clocks */
	uint64_t little_cpu_ns; /* PROOF_CPU_SHARE of the time between the last two surveys */
	struct still_stats stats;
	struct threadlist_asked asked;
} st;

void still_reset(void)
{
	tt_set_listed(NULL, 0);
	st.stats = (struct still_stats){0};
}

static int by_id(const void *x, const void *y)
{
	ThreadID a = *(const ThreadID *)x, b = *(const ThreadID *)y;
	return a < b ? -1 : a > b;
}

/* A CPU clock's reading (false: it cannot be read, the thread is gone). */
static bool read_cpu(clockid_t clock, uint64_t *ns)
{
	if (!clock)
		return false;
	*ns = agent_clock_ns(clock);
	return *ns != 0;
}

/* Whether a thread caught in a system call that ran since still has the
 * captured frames (see CAPTURE_SLACK_NS; only for a thread that used
 * little CPU since the last survey, PROOF_CPU_SHARE); every
 * check_every-th proof is checked by a capture instead. */
static bool parked_as_captured(struct sampled_thread *t, uint32_t check_every)
{
	if (t->cpu_before && !still_little_cpu(t))
		return false; /* busy enough for the survey's moment to matter: a signal decides */
	struct syscall_site now;
	switch (sigsampler_parked_as_captured(t, t->cpu_now, &now)) {
	case PARKED_SAME:
		/* (a stack still pending is this tick's capture: nothing to check) */
		if (check_every && t->stack && t->stack != STILL_STACK_PENDING && ++t->fast_walks >= check_every) {
			t->fast_walks = 0;
			t->parked_check = t->stack;
			t->parked_check_site = now;
			return false;
		}
		st.stats.parked_kept++;
		return true;
	case PARKED_MOVED:
		st.stats.parked_moved++;
		return false;
	default:
		st.stats.parked_unproven++;
		return t->cpu_now - t->cpu_walked <= CAPTURE_SLACK_NS && now.pc && syscall_site_same(&now, &t->wait);
	}
}

struct sampled_thread *still_find(ThreadID thread)
{
	return tt_find_listed(thread);
}

/* The runtime's thread list, sorted, into st.ids: how many; -1 when it
 * cannot be had. */
static int list_threads(void)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ICorProfilerThreadEnum *threads = NULL;
	if (FAILED(info->vtbl->EnumThreads(info, &threads)) || !threads)
		return -1;
	ThreadID tid;
	ULONG fetched = 0;
	uint32_t n = 0;
	while (n < TT_LISTED_MAX && threads->vtbl->Next(threads, 1, &tid, &fetched) == S_OK && fetched == 1)
		st.ids[n++] = tid;
	threads->vtbl->Release(threads);
	qsort(st.ids, n, sizeof *st.ids, by_id);
	return (int)n;
}

/* The entry of a listed thread for this survey: the one the list before
 * had (was), carried over, when it is the same OS thread; else one that
 * knows nothing of it yet (ThreadIDs are reused by later threads: the OS
 * id tells them apart). */
static struct sampled_thread *entry_of(ThreadID thread, uint32_t os, struct sampled_thread *was)
{
	if (was && was->os_tid == os && was->clock) {
		was->cpu_before = was->cpu_now;
		was->walk_only -= was->walk_only > 0;
		return was;
	}
	struct sampled_thread *t = was && was->os_tid == os ? was : tt_entry(thread, os);
	if (t)
		tt_forget_survey(t);
	return t;
}

int still_survey(uint32_t check_every)
{
	ICorProfilerInfo10 *info = g_agent.info;
	/* the threads of the last survey unless the list changed; and during a
	 * GC, which holds the runtime's list (asking would wait for the GC's
	 * end, and the ticks meanwhile would be lost), in any case */
	uint64_t changes = threadlist_changes(), now = agent_mono_ns();
	st.little_cpu_ns = st.surveyed_ns && now > st.surveyed_ns ? (now - st.surveyed_ns) / PROOF_CPU_SHARE : 0;
	st.surveyed_ns = now;
	uint32_t nwas;
	struct sampled_thread **was = tt_listed(&nwas);
	bool same_threads = nwas && (activity_in_gc_suspension() || !threadlist_due(&st.asked, now));
	int listed = same_threads ? (int)nwas : list_threads();
	if (listed < 0) {
		for (uint32_t i = 0; i < nwas; i++)
			was[i]->still = false; /* walk them all */
		return -1;
	}
	if (same_threads)
		for (uint32_t i = 0; i < nwas; i++)
			st.ids[i] = was[i]->thread;
	else
		threadlist_taken(&st.asked, changes, now);

	int moved = 0;
	uint32_t n = 0;
	for (uint32_t i = 0, j = 0; i < (uint32_t)listed; i++) {
		ThreadID thread = st.ids[i];
		while (j < nwas && was[j]->thread < thread)
			j++;
		struct sampled_thread *before = j < nwas && was[j]->thread == thread ? was[j] : NULL;
		DWORD os = before ? before->os_tid : 0;
		if (!same_threads && FAILED(info->vtbl->GetThreadInfo(info, thread, &os)))
			os = 0;
		struct sampled_thread *t = entry_of(thread, os, before);
		if (!t)
			continue; /* (the table is full) */
		tt_list_keep(t);
		st.next[n++] = t;
		t->by_signal = false;
		if (!os) {
			/* not started, or gone: no stack to take */
			t->still = true;
			t->stack = 0;
			continue;
		}
		bool known = read_cpu(t->clock, &t->cpu_now);
		t->still = known && t->walked && t->cpu_now == t->cpu_walked;
		if (known && t->walked && !t->still && t->wait.pc && t->cpu_now > t->cpu_walked) {
			t->still = parked_as_captured(t, check_every);
			if (t->still)
				t->cpu_walked = t->cpu_now; /* asked once for this much CPU */
		}
		if (!known)
			t->walked = false;
		moved += !t->still;
	}
	tt_set_listed(st.next, n);
	return moved;
}

bool still_little_cpu(const struct sampled_thread *t)
{
	return t->cpu_before && t->cpu_now >= t->cpu_before && t->cpu_now - t->cpu_before <= st.little_cpu_ns;
}

struct still_stats still_stats(void)
{
	return st.stats;
}

struct sampled_thread **still_threads(uint32_t *n)
{
	return tt_listed(n);
}

void still_walked(struct sampled_thread *t, uint64_t stack)
{
	t->stack = stack;
	t->cpu_walked = t->cpu_now;
	t->walked = true;
	t->wait = (struct syscall_site){0};
	t->parked_check = 0;
}

void still_captured(struct sampled_thread *t, uint64_t cpu_end, const struct syscall_site *wait, uint64_t stack)
{
	if (!cpu_end)
		return; /* when it ended is unknown: no claim on later ticks */
	t->stack = stack;
	t->cpu_walked = cpu_end;
	t->walked = true;
	t->wait = wait ? *wait : (struct syscall_site){0};
}
