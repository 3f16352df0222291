/* The signal sampler: instead of suspending the runtime, send a real-time
 * signal to each managed thread that used CPU since the last tick; its
 * handler copies the interrupted IP and the frame-pointer chain (bounded to
 * the thread's own stack) into a per-thread ring; the sampler thread maps
 * the addresses to FunctionIDs (GetFunctionFromIP) on its next tick.
 *
 * Cheaper than a suspension and without the safe-point bias, but blind to
 * the callers of methods the JIT compiled without a frame, and to threads
 * that wait (they use no CPU, so they are not signalled).  The handler is
 * async-signal-safe: no locks, no allocation, no runtime calls, errno kept,
 * and no read outside [rsp, top of the thread's stack mapping). */
#include "sigsampler.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define SIG_THREADS 512
#define SIG_DEPTH 128
#define SIG_RING 4 /* captures are collected every tick, a signal per tick at most */
#define IP_CACHE 65536
#define REFRESH_EVERY_NS 10000000ull     /* the thread list: short-lived threads matter */
#define IP_CACHE_FLUSH_NS 10000000000ull /* code may be unloaded: forget names */

struct capture {
	uint32_t n;
	uint64_t ip[SIG_DEPTH];
};

struct slot {
	pid_t tid;
	ThreadID thread;
	clockid_t clock;
	uint64_t last_cpu;
	uint64_t owed; /* CPU time since its last sample */
	bool alive;
	bool seen; /* in the latest thread list */
	_Atomic uint64_t lo, hi, last_rsp; /* the stack mapping, learnt from a first rsp */
	_Atomic uint32_t head, tail;
	struct capture ring[SIG_RING];
};

static struct {
	struct slot *slots;
	uint32_t nslots;
	int signo;
	pid_t pid;
	bool installed;
	uint64_t last_refresh_ns, last_flush_ns;
	struct {
		uint64_t ip;
		FunctionID fn;
	} *cache;
	bool cache_dirty;
	_Atomic uint64_t handled, overflowed;
} g;

static void on_signal(int sig, siginfo_t *si, void *context)
{
	(void)sig;
	int saved = errno;
	if (si->si_code != SI_QUEUE || si->si_pid != g.pid || !g.slots || (uint32_t)si->si_value.sival_int >= SIG_THREADS)
		goto out;
	struct slot *sl = &g.slots[si->si_value.sival_int];
	if (sl->tid != (pid_t)syscall(SYS_gettid))
		goto out; /* a stale slot: the id went to another thread */
	ucontext_t *uc = context;
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t rsp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	uint64_t fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	atomic_store_explicit(&sl->last_rsp, rsp, memory_order_relaxed);
	uint32_t h = atomic_load_explicit(&sl->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&sl->tail, memory_order_acquire) >= SIG_RING) {
		atomic_fetch_add_explicit(&g.overflowed, 1, memory_order_relaxed);
		goto out;
	}
	struct capture *c = &sl->ring[h % SIG_RING];
	uint32_t n = 0;
	c->ip[n++] = rip;
	uint64_t lo = atomic_load_explicit(&sl->lo, memory_order_relaxed);
	uint64_t hi = atomic_load_explicit(&sl->hi, memory_order_relaxed);
	if (hi && rsp >= lo && rsp < hi) {
		while (n < SIG_DEPTH && fp >= rsp && fp <= hi - 16 && !(fp & 7)) {
			uint64_t next = ((const uint64_t *)fp)[0], ret = ((const uint64_t *)fp)[1];
			if (!ret)
				break;
			c->ip[n++] = ret;
			if (next <= fp)
				break; /* frames only go up the stack */
			fp = next;
		}
	}
	c->n = n;
	atomic_store_explicit(&sl->head, h + 1, memory_order_release);
	atomic_fetch_add_explicit(&g.handled, 1, memory_order_relaxed);
out:
	errno = saved;
}

int sigsampler_init(char *why, size_t whylen)
{
	if (g.installed)
		return 0;
	g.slots = calloc(SIG_THREADS, sizeof *g.slots);
	g.cache = calloc(IP_CACHE, sizeof *g.cache);
	if (!g.slots || !g.cache) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	g.pid = getpid();
	/* a real-time signal nobody in this process handles; the runtime takes
	 * SIGRTMIN for its own activation injection */
	for (int sig = SIGRTMIN + 4; sig <= SIGRTMAX - 4; sig++) {
		struct sigaction old;
		if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, NULL) == 0) {
			/* never put back: a late signal must not kill the process, and
			 * the agent is never unloaded */
			g.signo = sig;
			g.installed = true;
			agent_debug("signal sampling on signal %d", sig);
			return 0;
		}
	}
	snprintf(why, whylen, "no free real-time signal in this process");
	return -1;
}

/* Only what was used is cleared: the rest is still calloc's untouched
 * zero pages, which cost no memory. */
static void forget_names(void)
{
	if (g.cache && g.cache_dirty)
		memset(g.cache, 0, IP_CACHE * sizeof *g.cache);
	g.cache_dirty = false;
}

void sigsampler_reset(void)
{
	if (g.slots)
		memset(g.slots, 0, g.nslots * sizeof *g.slots);
	forget_names();
	g.nslots = 0;
	g.last_refresh_ns = g.last_flush_ns = 0;
}

static uint64_t cpu_ns(clockid_t clock, bool *ok)
{
	struct timespec ts;
	*ok = clock_gettime(clock, &ts) == 0;
	return *ok ? (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec : 0;
}

/* The stack mapping that holds rsp, from /proc/self/maps. */
static void learn_stack(struct slot *sl)
{
	uint64_t rsp = atomic_load(&sl->last_rsp);
	FILE *f = rsp ? fopen("/proc/self/maps", "re") : NULL;
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		unsigned long a, b;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3 && rsp >= a && rsp < b) {
			if (perms[0] == 'r') {
				atomic_store(&sl->lo, a);
				atomic_store(&sl->hi, b);
			}
			break;
		}
	}
	fclose(f);
}

/* The slot of OS thread os (the managed thread `thread`), taken on first
 * sight; NULL when every slot is in use. */
static struct slot *slot_for(pid_t os, ThreadID thread)
{
	struct slot *free_slot = NULL;
	for (uint32_t i = 0; i < g.nslots; i++) {
		if (g.slots[i].alive && g.slots[i].tid == os && g.slots[i].thread == thread)
			return &g.slots[i];
		if (g.slots[i].alive && g.slots[i].tid == os)
			g.slots[i].alive = false; /* the OS id went to another managed thread */
		if (!g.slots[i].alive && !free_slot)
			free_slot = &g.slots[i];
	}
	if (!free_slot && g.nslots < SIG_THREADS)
		free_slot = &g.slots[g.nslots++];
	if (!free_slot)
		return NULL;
	struct slot *sl = free_slot;
	atomic_store(&sl->tail, atomic_load(&sl->head)); /* forget a former thread's captures */
	atomic_store(&sl->lo, 0);
	atomic_store(&sl->hi, 0);
	atomic_store(&sl->last_rsp, 0);
	sl->tid = os;
	sl->thread = thread;
	sl->clock = agent_thread_cpu_clock((uint32_t)os);
	bool ok;
	sl->last_cpu = cpu_ns(sl->clock, &ok);
	sl->owed = 0;
	sl->alive = ok;
	return ok ? sl : NULL;
}

static void refresh_threads(void)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ICorProfilerThreadEnum *threads = NULL;
	if (FAILED(info->vtbl->EnumThreads(info, &threads)) || !threads)
		return;
	for (uint32_t i = 0; i < g.nslots; i++)
		g.slots[i].seen = false;
	ThreadID tid;
	ULONG fetched = 0;
	while (threads->vtbl->Next(threads, 1, &tid, &fetched) == S_OK && fetched == 1) {
		DWORD os = 0;
		if (FAILED(info->vtbl->GetThreadInfo(info, tid, &os)) || !os)
			continue;
		struct slot *sl = slot_for((pid_t)os, tid);
		if (sl)
			sl->seen = true;
	}
	threads->vtbl->Release(threads);
	for (uint32_t i = 0; i < g.nslots; i++)
		if (!g.slots[i].seen)
			g.slots[i].alive = false; /* ended: its id may be reused */
}

static FunctionID function_at(uint64_t ip)
{
	uint64_t h = (ip * 0x9E3779B97F4A7C15ull) >> 48;
	for (uint32_t k = 0; k < 8; k++) {
		uint32_t j = (uint32_t)(h + k) & (IP_CACHE - 1);
		if (g.cache[j].ip == ip)
			return g.cache[j].fn;
		if (!g.cache[j].ip) {
			FunctionID fn = 0;
			if (FAILED(g_agent.info->vtbl->GetFunctionFromIP(g_agent.info, (LPCBYTE)ip, &fn)))
				fn = 0;
			g.cache[j].ip = ip;
			g.cache[j].fn = fn;
			g.cache_dirty = true;
			return fn;
		}
	}
	FunctionID fn = 0;
	if (FAILED(g_agent.info->vtbl->GetFunctionFromIP(g_agent.info, (LPCBYTE)ip, &fn)))
		fn = 0;
	return fn;
}

static void send_to(struct slot *sl)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = g.signo;
	si.si_code = SI_QUEUE;
	si.si_pid = g.pid;
	si.si_uid = getuid();
	si.si_value.sival_int = (int)(sl - g.slots);
	if (syscall(SYS_rt_tgsigqueueinfo, g.pid, sl->tid, g.signo, &si) != 0 && errno == ESRCH)
		sl->alive = false; /* gone (EAGAIN, a full signal queue, only skips this tick) */
}

uint32_t sigsampler_collect(FunctionID *pool, uint32_t pool_size, struct sig_walk *walks, uint32_t max_walks,
			    uint32_t depth_max, ThreadID *unmanaged, uint32_t *nunmanaged, uint32_t max_unmanaged)
{
	uint64_t now = agent_mono_ns();
	if (now - g.last_flush_ns >= IP_CACHE_FLUSH_NS) {
		g.last_flush_ns = now;
		forget_names();
	}
	/* threads that ended give their slots back (in signal mode the thread
	 * list sigsampler_tick has just refreshed does it first) */
	if (now - g.last_refresh_ns >= REFRESH_EVERY_NS) {
		g.last_refresh_ns = now;
		for (uint32_t i = 0; i < g.nslots; i++) {
			bool ok = false;
			if (g.slots[i].alive) {
				cpu_ns(g.slots[i].clock, &ok);
				g.slots[i].alive = ok;
			}
		}
	}
	uint32_t nwalks = 0, used = 0;
	if (nunmanaged)
		*nunmanaged = 0;
	for (uint32_t i = 0; i < g.nslots; i++) {
		struct slot *sl = &g.slots[i];
		if (sl->alive && !atomic_load(&sl->hi) && atomic_load(&sl->last_rsp))
			learn_stack(sl);
		uint32_t t = atomic_load_explicit(&sl->tail, memory_order_relaxed);
		uint32_t h = atomic_load_explicit(&sl->head, memory_order_acquire);
		for (; t != h && nwalks < max_walks && used + SIG_DEPTH <= pool_size; t++) {
			const struct capture *c = &sl->ring[t % SIG_RING];
			uint32_t start = used, n = 0;
			bool managed = false;
			for (uint32_t k = 0; k < c->n && n < depth_max; k++) {
				/* a return address points after its call: look one byte back */
				FunctionID fn = function_at(k ? c->ip[k] - 1 : c->ip[k]);
				if (!fn && n && pool[used - 1] == 0)
					continue; /* one [native] per run */
				pool[used++] = fn;
				n++;
				managed |= fn != 0;
			}
			if (!managed) {
				used = start;
				if (nunmanaged && *nunmanaged < max_unmanaged)
					unmanaged[(*nunmanaged)++] = sl->thread;
				continue;
			}
			walks[nwalks++] = (struct sig_walk){sl->thread, start, n, c->n == SIG_DEPTH};
		}
		atomic_store_explicit(&sl->tail, t, memory_order_release);
	}
	return nwalks;
}

bool sigsampler_signal(uint32_t os_tid, ThreadID thread)
{
	struct slot *sl = slot_for((pid_t)os_tid, thread);
	if (!sl)
		return false;
	send_to(sl);
	return sl->alive;
}

uint32_t sigsampler_tick(uint32_t rate_hz, FunctionID *pool, uint32_t pool_size, struct sig_walk *walks,
			 uint32_t max_walks, uint32_t depth_max)
{
	uint64_t now = agent_mono_ns();
	if (now - g.last_refresh_ns >= REFRESH_EVERY_NS) {
		g.last_refresh_ns = now;
		refresh_threads();
	}
	/* 1. what the handlers caught since the last tick */
	uint32_t nwalks = sigsampler_collect(pool, pool_size, walks, max_walks, depth_max, NULL, NULL, 0);
	/* 2. signal each thread that has used a period's worth of CPU since its
	 * last sample: one sample per period of CPU time, however many threads
	 * share the cores (a handler costs microseconds: it cannot keep an idle
	 * thread sampled) */
	uint64_t period = 1000000000ull / (rate_hz ? rate_hz : 1);
	for (uint32_t i = 0; i < g.nslots; i++) {
		struct slot *sl = &g.slots[i];
		if (!sl->alive)
			continue;
		bool ok;
		uint64_t cpu = cpu_ns(sl->clock, &ok);
		if (!ok) {
			sl->alive = false;
			continue;
		}
		sl->owed += cpu - sl->last_cpu;
		sl->last_cpu = cpu;
		if (sl->owed < period)
			continue;
		sl->owed = sl->owed >= 2 * period ? period : sl->owed - period; /* a backlog is not made up */
		send_to(sl);
	}
	return nwalks;
}

uint64_t sigsampler_overflowed(void)
{
	return atomic_load(&g.overflowed);
}
