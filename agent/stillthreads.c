#include "stillthreads.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STILL_MAX 2048

/* A thread caught in a system call (a wait) that used at most this much
 * CPU since its capture's handler ended still has the captured stack:
 * returning from the handler and back into the call costs 2-15 us.  Not
 * for a thread caught in its own code: one that had sat preempted with
 * the signal pending may leave for a wait in as little (a deadline passed
 * while it was off the CPU). */
#define CAPTURE_SLACK_NS 20000u

static struct {
	struct still_thread a[STILL_MAX], b[STILL_MAX];
	struct still_thread *cur, *next;
	uint32_t n;
} st = {.cur = st.a, .next = st.b};

void still_reset(void)
{
	st.n = 0;
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

int still_survey(void)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ICorProfilerThreadEnum *threads = NULL;
	if (FAILED(info->vtbl->EnumThreads(info, &threads)) || !threads) {
		for (uint32_t i = 0; i < st.n; i++)
			st.cur[i].still = false; /* walk them all */
		return -1;
	}
	uint32_t n = 0;
	ThreadID tid;
	ULONG fetched = 0;
	while (n < STILL_MAX && threads->vtbl->Next(threads, 1, &tid, &fetched) == S_OK && fetched == 1)
		st.next[n++] = (struct still_thread){.thread = tid};
	threads->vtbl->Release(threads);
	qsort(st.next, n, sizeof *st.next, by_thread);

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
		DWORD os = 0;
		if (FAILED(info->vtbl->GetThreadInfo(info, t->thread, &os)))
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
		t->still = known && t->walked &&
			   (t->cpu_now == t->cpu_walked ||
			    (t->captured && t->cpu_now >= t->cpu_walked && t->cpu_now - t->cpu_walked <= CAPTURE_SLACK_NS));
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
	t->captured = false;
}

void still_captured(struct still_thread *t, uint64_t cpu_end, bool in_syscall, uint64_t stack)
{
	if (!cpu_end)
		return; /* when it ended is unknown: no claim on later ticks */
	t->stack = stack;
	t->cpu_walked = cpu_end;
	t->walked = true;
	t->captured = in_syscall;
}
