#include "agent/sampling/stillthreads.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/sampling/threadlist.h"
#include "agent/symbols/activity.h"

#define STILL_MAX 2048

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
	struct still_thread a[STILL_MAX], b[STILL_MAX];
	struct still_thread *cur, *next;
	uint32_t n;
	uint64_t surveyed_ns; /* when the last survey read the clocks */
	uint64_t little_cpu_ns; /* PROOF_CPU_SHARE of the time between the last two surveys */
	struct still_stats stats;
} st = {.cur = st.a, .next = st.b};

static struct threadlist_asked survey_asked;

void still_reset(void)
{
	st.n = 0;
	st.stats = (struct still_stats){0};
}

static int by_thread(const void *x, const void *y)
{
	ThreadID a = ((const struct still_thread *)x)->thread, b = ((const struct still_thread *)y)->thread;
	return a < b ? -1 : a > b;
}

static bool read_cpu(clockid_t clock, uint64_t *ns)
{
	struct timespec ts;
	if (!clock || clock_gettime(clock, &ts) != 0)
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return true;
}

/* Whether a thread caught in a system call that ran since still has the
 * captured frames (see CAPTURE_SLACK_NS; only for a thread that used
 * little CPU since the last survey, PROOF_CPU_SHARE); every
 * check_every-th proof is checked by a capture instead. */
static bool parked_as_captured(struct still_thread *t, uint32_t check_every)
{
	if (t->cpu_before && !still_little_cpu(t))
		return false; /* busy enough for the survey's moment to matter: a signal decides */
	struct syscall_site now;
	switch (sigsampler_parked_as_captured(t->os_tid, t->thread, t->cpu_now, &now)) {
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

struct still_thread *still_find(ThreadID thread)
{
	uint32_t lo = 0, hi = st.n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (st.cur[mid].thread < thread)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st.n && st.cur[lo].thread == thread ? &st.cur[lo] : NULL;
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
	bool same_threads = st.n && (activity_in_gc_suspension() || !threadlist_due(&survey_asked, now));
	uint32_t n = 0;
	if (same_threads) {
		for (; n < st.n; n++)
			st.next[n] = (struct still_thread){.thread = st.cur[n].thread};
	} else {
		ICorProfilerThreadEnum *threads = NULL;
		if (FAILED(info->vtbl->EnumThreads(info, &threads)) || !threads) {
			for (uint32_t i = 0; i < st.n; i++)
				st.cur[i].still = false; /* walk them all */
			return -1;
		}
		ThreadID tid;
		ULONG fetched = 0;
		while (n < STILL_MAX && threads->vtbl->Next(threads, 1, &tid, &fetched) == S_OK && fetched == 1)
			st.next[n++] = (struct still_thread){.thread = tid};
		threads->vtbl->Release(threads);
		qsort(st.next, n, sizeof *st.next, by_thread);
		threadlist_taken(&survey_asked, changes, now);
	}

	int moved = 0;
	for (uint32_t i = 0, j = 0; i < n; i++) {
		struct still_thread *t = &st.next[i];
		while (j < st.n && st.cur[j].thread < t->thread)
			j++;
		if (j < st.n && st.cur[j].thread == t->thread) {
			*t = st.cur[j];
			t->cpu_before = t->cpu_now;
			t->walk_only -= t->walk_only > 0;
		}
		t->by_signal = false;
		/* ThreadIDs are reused by later threads: the OS id tells them apart */
		DWORD os = t->os_tid;
		if (!same_threads && FAILED(info->vtbl->GetThreadInfo(info, t->thread, &os)))
			os = 0;
		if (os != t->os_tid || !t->clock) {
			*t = (struct still_thread){.thread = t->thread, .os_tid = os};
			if (os)
				t->clock = agent_thread_cpu_clock(os);
		}
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
	struct still_thread *old = st.cur;
	st.cur = st.next;
	st.next = old;
	st.n = n;
	return moved;
}

bool still_little_cpu(const struct still_thread *t)
{
	return t->cpu_before && t->cpu_now >= t->cpu_before && t->cpu_now - t->cpu_before <= st.little_cpu_ns;
}

struct still_stats still_stats(void)
{
	return st.stats;
}

struct still_thread *still_threads(uint32_t *n)
{
	*n = st.n;
	return st.cur;
}

void still_walked(struct still_thread *t, uint64_t stack)
{
	t->stack = stack;
	t->cpu_walked = t->cpu_now;
	t->walked = true;
	t->wait = (struct syscall_site){0};
	t->parked_check = 0;
}

void still_captured(struct still_thread *t, uint64_t cpu_end, const struct syscall_site *wait, uint64_t stack)
{
	if (!cpu_end)
		return; /* when it ended is unknown: no claim on later ticks */
	t->stack = stack;
	t->cpu_walked = cpu_end;
	t->walked = true;
	t->wait = wait ? *wait : (struct syscall_site){0};
}
