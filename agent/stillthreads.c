#include "agent/stillthreads.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/activity.h"

#define STILL_MAX 2048

/* A thread caught in a system call (a wait) uses 2-15 us of CPU going back
 * into the call after the handler.  One that used at most this much since
 * is asked where it is; still in the same call (same instruction, stack
 * pointer and first argument) it still has the captured stack.  Its CPU
 * time alone cannot tell: a thread woken from a lock's wait may reach its
 * next wait in as little (threads waiting for a method's compilation went
 * on into the method's own wait, which got the caller's stack), and a
 * thread caught in its own code may have sat preempted with the signal
 * pending, past a deadline. */
#define CAPTURE_SLACK_NS 20000u

static struct {
	struct still_thread a[STILL_MAX], b[STILL_MAX];
	struct still_thread *cur, *next;
	uint32_t n;
} st = {.cur = st.a, .next = st.b};

/* The runtime's thread list is asked for again when a thread started,
 * got its OS thread or ended (the thread callbacks say so), and at least
 * this often (in case they are not delivered): asking takes the lock a GC
 * holds for its whole length, and costs a runtime call per thread. */
#define LIST_REFRESH_NS 1000000000ull

static _Atomic uint64_t list_changes;
static struct still_listing survey_listing;

void still_list_changed(void)
{
	atomic_fetch_add_explicit(&list_changes, 1, memory_order_relaxed);
}

bool still_list_due(const struct still_listing *l, uint64_t now_ns)
{
	return atomic_load_explicit(&list_changes, memory_order_relaxed) != l->changes ||
	       now_ns - l->at_ns >= LIST_REFRESH_NS;
}

void still_list_taken(struct still_listing *l, uint64_t changes, uint64_t now_ns)
{
	l->changes = changes;
	l->at_ns = now_ns;
}

uint64_t still_list_changes(void)
{
	return atomic_load_explicit(&list_changes, memory_order_relaxed);
}

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

/* Whether the thread sits in the system call at site, as the kernel says:
 * "NR ARG0 .. ARG5 SP PC" while it is in one ("running" or "-1 SP PC" when
 * it is not). */
static bool in_same_syscall(uint32_t os_tid, const struct syscall_site *site)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/task/%" PRIu32 "/syscall", os_tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n <= 0)
		return false;
	line[n] = 0;
	long long nr;
	unsigned long long a[6], sp, pc;
	if (sscanf(line, "%lld %llx %llx %llx %llx %llx %llx %llx %llx", &nr, &a[0], &a[1], &a[2], &a[3], &a[4],
		   &a[5], &sp, &pc) != 9 || nr < 0)
		return false;
	return pc == site->pc && sp == site->sp && a[0] == site->arg0;
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
	/* the threads of the last survey unless the list changed; and during a
	 * GC, which holds the runtime's list (asking would wait for the GC's
	 * end, and the ticks meanwhile would be lost), in any case */
	uint64_t changes = still_list_changes(), now = agent_mono_ns();
	bool same_threads = st.n && (activity_in_gc_suspension() || !still_list_due(&survey_listing, now));
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
		still_list_taken(&survey_listing, changes, now);
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
		if (known && t->walked && !t->still && t->wait.pc && t->cpu_now > t->cpu_walked &&
		    t->cpu_now - t->cpu_walked <= CAPTURE_SLACK_NS) {
			t->still = in_same_syscall(t->os_tid, &t->wait);
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
