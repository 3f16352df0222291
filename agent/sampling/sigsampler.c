/* The signal sampler: instead of suspending the runtime, send a real-time
 * signal to each managed thread that used CPU since the last tick; its
 * handler copies the interrupted registers and a bounded window of the
 * thread's stack (plainly within the stack a glibc thread owns, else by
 * process_vm_readv on our own pid: an unreadable page is an error, never a
 * fault) into a per-thread ring.  On its next tick the
 * sampler thread unwinds each copy (unwind.c) the way the runtime's own
 * unwinder would: managed frames by their code's prolog and epilog, so
 * frameless and OSR methods keep their callers.
 *
 * Cheaper than a suspension and without the safe-point bias.  The handler
 * is async-signal-safe: no locks, no allocation, no runtime calls, errno
 * kept, a few system calls (its thread's id, its own CPU clock before and
 * after the copy: what it cost, and the copy where it is not plain).  A
 * thread gets at most one signal in flight, and only while the handler is
 * still ours. */
#include "agent/sampling/sigsampler.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent/log/logwriter.h"
#include "agent/sampling/kernelsamples.h"
#include "agent/sampling/threadlist.h"
#include "agent/symbols/asyncstack.h"
#include "agent/symbols/unloads.h"
#include "agent/unwind/codemap.h"
#include "agent/unwind/memread.h"
#include "agent/unwind/unwind.h"
#include "common/records.h"

#define SIG_THREADS TT_SIGNAL_SLOTS
#define SIG_RING 2 /* captures are collected every tick, one signal in flight at most */
#define STACK_COPY MEMREAD_COPY_MAX /* deep enough for hundreds of frames */
#define REFRESH_EVERY_NS 10000000ull  /* the thread list at most (when due): short-lived threads matter */
#define ALIVE_CHECK_NS 100000000ull   /* slots' threads checked for their end with no change to the list */
#define SYSCALL_FDS_KEPT 32 /* slots whose /proc syscall and stat files stay open (descriptors are the program's too) */
#define TRAILS_KEPT 64 /* slots whose threads' last walks are kept to graft (10 KiB each) */
#define KERNEL_TRUNCATED_RUN 8 /* kernel samples too deep in a row before the thread is signalled instead */
#define KERNEL_RETRY_NS 1000000000ull /* ... for this long: a thread deep for a while (compiling) comes back */
#define KERNEL_THREADS_MAX 64 /* threads the kernel samples (a descriptor and 132 KiB of locked memory each);
				 the rest are signalled */

struct capture {
	uint64_t ip, sp, fp;
	uint64_t arg0;    /* rdi: a system call's first argument */
	uint64_t arg1;    /* rsi: its second (a futex's operation) */
	uint64_t rax;     /* a system call's result (-EINTR: the signal ended a wait) */
	uint64_t callee[5]; /* rbx, r12 to r15: where a running async method's box may be (asyncstack.h) */
	uint32_t gc_epoch;  /* activity_gc_epoch() as it was taken (odd: not known) */
	struct aw_sample async; /* the running async boxes it held (taken: looked for) */
	uint64_t cpu_end; /* the thread's CPU clock as the handler ends (0: unread) */
	uint64_t at_ns;   /* when it was taken (CLOCK_MONOTONIC) */
	bool in_place;    /* read where it waits, by the sampler thread (no fp; blocked there) */
	bool kernel;      /* a sample the kernel took as the thread ran its own code (on the CPU) */
	uint32_t kernel_periods; /* ... the latest of that many since the tick before, one a period of its CPU */
	struct activity act;
	uint64_t top;     /* the top of the thread's stack, where known (0: not) */
	uint32_t len;     /* stack bytes copied from sp */
	uint8_t stack[STACK_COPY];
};

/* What the latest capture of a thread in a system call proves: a later
 * look that finds the thread at the same site with the same words on its
 * stack finds the same frames (sampler thread only). */
struct parked_proof {
	bool valid;
	struct syscall_site site;
	uint32_t walk_epoch; /* the code map's (codemap_walk_epoch), when the walk named the frames: a
			      flush, or a refuted native frame its walk may have used, ends the proof */
	struct word_log words;
};

/* The number of the system call a thread sits in, and its second
 * argument (a futex's operation). */
struct syscall_call {
	int64_t nr;
	uint64_t arg1;
};

/* A read of /proc/self/task/TID/syscall (a good part of what a read in
 * place costs), with the thread's CPU clock read just before it: while
 * the clock reads the same, the thread has not run, and the site stands. */
struct site_read {
	struct syscall_site site;
	struct syscall_call call;
	uint64_t cpu_before;
	bool valid;
	bool running; /* not valid: the file said the thread runs (or waits for a CPU) */
};

#define ASYNC_SCAN_BYTES 4096u /* stack bytes looked at for running async boxes */
#define ASYNC_POOL 1024u        /* captures with such a look per collect */

/* A signal slot: what the handler shares with the sampler thread, and
 * what is kept per slot because it costs.  The handler finds its slot by
 * the number its signal carries, and writes only the atomics and the ring
 * entry at head (see on_signal); the rest is the sampler thread's.  The
 * thread that holds the slot (owner) has the rest of its state in the
 * thread table (threadtable.h). */
struct sig_slot {
	pid_t tid;     /* its thread's OS id (a handler on another thread leaves the slot alone) */
	int32_t owner; /* the thread table's slot of its thread (-1: none) */
	bool alive;
	bool seen; /* in the latest thread list */
	_Atomic uint64_t hi, last_rsp; /* the top of the stack mapping, learnt from a first rsp:
					 only a bound on how much to copy, the copy itself cannot fault */
	_Atomic uint64_t block;            /* the thread's glibc thread block, as its handler saw it */
	_Atomic uint64_t own_lo, own_hi;   /* the mapping that holds it, as the kernel gave it (0: not yet;
					      own_lo stored first) */
	_Atomic uint32_t head, tail;
	_Atomic uint32_t sent, answered; /* signals sent to this slot, and handled */
	_Atomic uint32_t entered;          /* ... and whose handler began (a capture under way) */
	int syscall_fd;    /* its /proc/self/task/TID/syscall kept open: descriptor + 1, 0: none */
	int stat_fd;       /* ... and its stat (kernel sampler) */
	struct site_read last_site; /* what that file said last */
	timer_t timer;     /* fires our signal at this thread at the instant drawn for its sample */
	bool has_timer;
	struct parked_proof proof;
	struct capture ring[SIG_RING];
};

static struct {
	struct sig_slot *slots;
	uint32_t nslots;
	int signo;
	pid_t pid;
	uid_t uid;
	bool installed;
	uint64_t last_refresh_ns;
	struct threadlist_asked listing; /* the last refresh of the thread list */
	uint64_t alive_changes;          /* threadlist_changes at the last check for ended threads */
	uint64_t deadline_ns; /* the next tick: signals land before it, at instants drawn at random */
	uint64_t random;      /* agent_random_below's state (sampler thread) */
	bool armed;           /* a timer was armed since the last tick */
	_Atomic uint64_t handled, overflowed;
	_Atomic uint64_t handler_ns; /* CPU time spent in the handler */
	struct sig_stats stats;
	bool ks_said; /* the kernel's refusal was reported */
	bool ks_open; /* some thread's kernel sampling may be open */
	uint32_t ks_count; /* threads whose kernel sampling is open */
	uint32_t nasync;   /* async_pool entries used since the collect began */
} g;

static struct aw_sample async_pool[ASYNC_POOL]; /* the collected captures' (sampler thread) */

/* The capture's look for running async boxes (the handler's: the box
 * cannot complete, and while the thread runs managed code no GC can move
 * it, until the handler returns): its registers, and its stack words from
 * the stack pointer up to ASYNC_SCAN_BYTES that may be an object's
 * address (not in the stack, aligned, in user space). */
static void take_async(struct capture *c)
{
	c->async.taken = false;
	if (!async_wanted())
		return;
	uint64_t w[AW_WORDS_MAX];
	uint32_t n = 0;
	const uint64_t regs[] = {c->arg0, c->arg1, c->rax, c->fp, c->callee[0], c->callee[1], c->callee[2],
				 c->callee[3], c->callee[4]};
	for (uint32_t i = 0; i < sizeof regs / sizeof *regs; i++)
		w[n++] = regs[i];
	uint32_t scan = c->len < ASYNC_SCAN_BYTES ? c->len : ASYNC_SCAN_BYTES;
	for (uint32_t at = 0; at + 8 <= scan && n < AW_WORDS_MAX; at += 8) {
		uint64_t v;
		memcpy(&v, c->stack + at, sizeof v);
		if (v >= c->sp && v < c->sp + c->len)
			continue; /* the stack's own addresses */
		if ((v & 7) || v < (1u << 20) || v >> 47)
			continue;
		w[n++] = v;
	}
	async_take(w, n, c->gc_epoch, &c->async);
}

/* A capture's look, kept for the walk until the next collect. */
static void keep_async(const struct capture *c, struct sig_walk *walk)
{
	walk->gc_epoch = c->gc_epoch;
	if (!c->async.taken || g.nasync == ASYNC_POOL)
		return;
	async_pool[g.nasync] = c->async;
	walk->async = ++g.nasync;
}

const struct aw_sample *sigsampler_async(const struct sig_walk *walk)
{
	return walk->async ? &async_pool[walk->async - 1] : NULL;
}

/* The last complete walk of each of the first slots' threads (unwind.h):
 * apart from the slots, whose rings are touched by the signal handler. */
static struct unwind_trail trails[TRAILS_KEPT];

static struct unwind_trail *trail_of(const struct sig_slot *sl)
{
	return sl && sl - g.slots < TRAILS_KEPT ? &trails[sl - g.slots] : NULL;
}

static void drop_timer(struct sig_slot *sl);

/* The thread that holds a slot, or NULL. */
static struct sampled_thread *owner_of(const struct sig_slot *sl)
{
	return sl && sl->owner >= 0 ? tt_at((uint32_t)sl->owner) : NULL;
}

/* A signal sent to the slot's thread has not been handled yet. */
static bool in_flight(struct sig_slot *sl)
{
	return atomic_load(&sl->sent) != atomic_load(&sl->answered);
}

/* Where the sampler thread may put a capture of its own in the slot's ring
 * (*h: the index): no signal in flight (its handler owns the ring) and a
 * free entry. */
static bool ring_free(struct sig_slot *sl, uint32_t *h)
{
	*h = atomic_load_explicit(&sl->head, memory_order_relaxed);
	return !in_flight(sl) && *h - atomic_load_explicit(&sl->tail, memory_order_acquire) < SIG_RING;
}

/* Ends the kernel's sampling of a thread (NULL: none). */
static void kernel_stop(struct sampled_thread *t)
{
	if (!t)
		return;
	if (t->kernel.ks.fd && g.ks_count)
		g.ks_count--;
	ks_close(&t->kernel.ks);
}

static void on_signal(int sig, siginfo_t *si, void *context)
{
	(void)sig;
	int saved = errno;
	bool ours = (si->si_code == SI_QUEUE && si->si_pid == g.pid) || si->si_code == SI_TIMER;
	if (!ours || !g.slots || (uint32_t)si->si_value.sival_int >= SIG_THREADS)
		goto out;
	struct sig_slot *sl = &g.slots[si->si_value.sival_int];
	if (sl->tid != (pid_t)syscall(SYS_gettid))
		goto out; /* a stale slot: the id went to another thread */
	atomic_fetch_add_explicit(&sl->entered, 1, memory_order_relaxed);
	ucontext_t *uc = context;
	uint64_t rsp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	atomic_store_explicit(&sl->last_rsp, rsp, memory_order_relaxed);
	uint32_t h = atomic_load_explicit(&sl->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&sl->tail, memory_order_acquire) >= SIG_RING) {
		atomic_fetch_add_explicit(&g.overflowed, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&sl->answered, 1, memory_order_release);
		goto out;
	}
	struct capture *c = &sl->ring[h % SIG_RING];
	uint64_t cpu_start = agent_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	c->in_place = c->kernel = false;
	c->ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	c->sp = rsp;
	c->fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	c->arg0 = (uint64_t)uc->uc_mcontext.gregs[REG_RDI];
	c->arg1 = (uint64_t)uc->uc_mcontext.gregs[REG_RSI];
	c->rax = (uint64_t)uc->uc_mcontext.gregs[REG_RAX];
	c->callee[0] = (uint64_t)uc->uc_mcontext.gregs[REG_RBX];
	c->callee[1] = (uint64_t)uc->uc_mcontext.gregs[REG_R12];
	c->callee[2] = (uint64_t)uc->uc_mcontext.gregs[REG_R13];
	c->callee[3] = (uint64_t)uc->uc_mcontext.gregs[REG_R14];
	c->callee[4] = (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	c->gc_epoch = activity_gc_epoch(); /* (before the copy: a GC after it may move what the copy holds) */
	uint64_t hi = atomic_load_explicit(&sl->hi, memory_order_relaxed);
	/* A thread that glibc started has its thread block at the top of its
	 * stack's mapping: from its stack pointer up to there every byte is
	 * its stack, mapped while it lives, and is copied plainly, without the
	 * system call that pins each page (which every capture would cost the
	 * program's thread: the signal handler's time in the cost lines of
	 * clrscope report).  Only with the stack pointer
	 * inside the mapping that holds the block; elsewhere (the main thread,
	 * an alternate signal stack, a mapping not learnt yet) the copy goes
	 * page by page and ends at an unreadable one. */
	uint64_t block = (uint64_t)(uintptr_t)pthread_self();
	atomic_store_explicit(&sl->block, block, memory_order_relaxed);
	uint64_t own_hi = atomic_load_explicit(&sl->own_hi, memory_order_acquire);
	uint64_t own_lo = atomic_load_explicit(&sl->own_lo, memory_order_relaxed);
	if (own_hi && own_lo <= rsp && rsp < block && block < own_hi) {
		uint64_t want = block - rsp < STACK_COPY ? block - rsp : STACK_COPY;
		memcpy(c->stack, (const void *)(uintptr_t)rsp, want);
		c->len = (uint32_t)want;
		c->top = block;
	} else {
		uint64_t want = hi > rsp && hi - rsp < STACK_COPY ? hi - rsp : STACK_COPY;
		c->len = memread_pages(rsp, c->stack, (uint32_t)want);
		c->top = hi > rsp ? hi : 0;
	}
	take_async(c);
	activity_of((uint32_t)sl->tid, &c->act);
	c->cpu_end = agent_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	c->at_ns = agent_mono_ns();
	/* what the capture cost the program's thread (its CPU time: the
	 * handler's wall time also counts where the thread was preempted in
	 * it, on a busy server most of it) */
	if (cpu_start && c->cpu_end > cpu_start)
		atomic_fetch_add_explicit(&g.handler_ns, c->cpu_end - cpu_start, memory_order_relaxed);
	atomic_store_explicit(&sl->head, h + 1, memory_order_release);
	/* answered last: until then the ring's next entry is this handler's
	 * (the sampler thread writes captures of its own, read in place or the
	 * kernel's, only while no signal is in flight: answered first, one
	 * could be written into the entry this handler was filling) */
	atomic_fetch_add_explicit(&sl->answered, 1, memory_order_release);
	atomic_fetch_add_explicit(&g.handled, 1, memory_order_relaxed);
out:
	errno = saved;
}

int sigsampler_init(char *why, size_t whylen)
{
	if (g.installed)
		return 0;
	g.slots = calloc(SIG_THREADS, sizeof *g.slots);
	if (!g.slots || codemap_init() != 0) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	g.pid = getpid();
	g.uid = getuid();
	/* the handler copies the stack with process_vm_readv on our own pid: a
	 * seccomp filter (some container runtimes) may forbid it */
	uint64_t probe = 42, copy = 0;
	if (memread((uint64_t)(uintptr_t)&probe, &copy, sizeof copy) != 0 || copy != probe) {
		snprintf(why, whylen, "process_vm_readv on this process is not permitted (%s)", strerror(errno));
		return -1;
	}
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

/* A thread's /proc/self/task/TID/NAME, open for reading: kept open in
 * *kept (descriptor + 1; 0 until opened) when given, else a descriptor the
 * caller closes; -1 when it cannot be opened (the thread is gone). */
static int task_file(pid_t tid, const char *name, int *kept)
{
	if (kept && *kept)
		return *kept - 1;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/%s", (int)tid, name);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f >= 0 && kept)
		*kept = f + 1;
	return f;
}

static void close_task_files(struct sig_slot *sl)
{
	if (sl->syscall_fd)
		close(sl->syscall_fd - 1);
	if (sl->stat_fd)
		close(sl->stat_fd - 1);
	sl->syscall_fd = sl->stat_fd = 0;
}

void sigsampler_release(void)
{
	for (uint32_t i = 0; g.slots && i < g.nslots; i++) {
		close_task_files(&g.slots[i]);
		drop_timer(&g.slots[i]);
		struct sampled_thread *t = owner_of(&g.slots[i]);
		kernel_stop(t);
		if (t)
			t->kernel.tried = false;
	}
}

void sigsampler_set_deadline(uint64_t next_tick_ns)
{
	g.deadline_ns = next_tick_ns;
}

void sigsampler_reset(void)
{
	sigsampler_release();
	for (uint32_t i = 0; g.slots && i < g.nslots; i++) {
		struct sampled_thread *t = owner_of(&g.slots[i]);
		if (t)
			t->sig.slot = -1;
	}
	if (g.slots)
		memset(g.slots, 0, g.nslots * sizeof *g.slots);
	codemap_forget();
	g.nslots = 0;
	g.last_refresh_ns = 0;
	memset(&g.stats, 0, sizeof g.stats);
	atomic_store(&g.handler_ns, 0);
}

static uint64_t cpu_ns(clockid_t clock, bool *ok)
{
	struct timespec ts;
	*ok = clock_gettime(clock, &ts) == 0;
	return *ok ? (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec : 0;
}

/* The kernel samples the thread once per period of its CPU time from now
 * (its own code's; the kernel's are left out): the count starts again. */
static void kernel_anchor(struct sampled_thread *t)
{
	bool ok;
	t->kernel.cpu_open = cpu_ns(t->clock, &ok);
	t->kernel.counted = 0;
}

/* The top of the stack mapping that holds the thread's stack, learnt from
 * one of its stack pointers (sp) the first time: how much of its stack a
 * capture copies, and where it ends; 0 while unknown. */
static uint64_t stack_top(struct sig_slot *sl, uint64_t sp)
{
	uint64_t hi = atomic_load(&sl->hi);
	if (!hi && sp && (hi = codemap_stack_top(sp)) != 0)
		atomic_store(&sl->hi, hi);
	return hi;
}

/* The mapping that holds the thread's glibc block, once its handler has
 * said where the block is: the bound of the handler's plain copy.  From
 * the kernel's answer now (a mapping from an older reading of the maps may
 * have been another thread's stack); a failed answer is asked again at the
 * next tick (on a kernel without PROCMAP_QUERY, with no system call). */
static void learn_own_mapping(struct sig_slot *sl)
{
	uint64_t block = atomic_load_explicit(&sl->block, memory_order_relaxed), lo, top;
	if (block && !atomic_load_explicit(&sl->own_hi, memory_order_relaxed) &&
	    codemap_stack_mapping(block, &lo, &top)) {
		atomic_store_explicit(&sl->own_lo, lo, memory_order_relaxed);
		atomic_store_explicit(&sl->own_hi, top, memory_order_release); /* (the handler reads own_hi first) */
	}
}

/* Whether the slot keeps its thread's /proc files open (the first
 * SYSCALL_FDS_KEPT slots). */
static bool keeps_files(const struct sig_slot *sl)
{
	return sl - g.slots < SYSCALL_FDS_KEPT;
}

/* Hands a slot to a thread, from the thread that held it (which keeps its
 * entry while the survey lists it); what the thread's entry knew of a
 * former slot is forgotten. */
static void give_slot(struct sig_slot *sl, struct sampled_thread *t)
{
	int32_t index = (int32_t)(sl - g.slots);
	struct sampled_thread *was = owner_of(sl);
	if (was && was != t) {
		kernel_stop(was);
		was->sig.slot = -1;
	}
	if (t->sig.slot >= 0 && t->sig.slot != index)
		g.slots[t->sig.slot].owner = -1; /* the slot it held before (its thread was taken for gone) */
	kernel_stop(t);
	t->kernel = (struct thread_kernel){0};
	t->sig = (struct thread_signal){.slot = index};
	sl->owner = (int32_t)t->slot;
}

/* The slot of OS thread os (the managed thread `thread`, whose entry t may
 * be), taken on first sight; NULL when every slot is in use. */
static struct sig_slot *slot_for(pid_t os, ThreadID thread, struct sampled_thread *t)
{
	struct sig_slot *free_slot = NULL;
	for (uint32_t i = 0; i < g.nslots; i++) {
		struct sig_slot *sl = &g.slots[i];
		struct sampled_thread *o = owner_of(sl);
		if (sl->alive && sl->tid == os && o && o->thread == thread)
			return sl;
		if (sl->alive && sl->tid == os)
			sl->alive = false; /* the OS id went to another managed thread */
		if (!sl->alive && !free_slot)
			free_slot = sl;
	}
	if (!free_slot && g.nslots < SIG_THREADS) {
		free_slot = &g.slots[g.nslots++];
		free_slot->owner = -1;
	}
	if (!free_slot)
		return NULL;
	if (!t || t->thread != thread || t->os_tid != (uint32_t)os)
		t = tt_entry(thread, (uint32_t)os);
	if (!t)
		return NULL;
	struct sig_slot *sl = free_slot;
	atomic_store(&sl->tail, atomic_load(&sl->head)); /* forget a former thread's captures */
	atomic_store(&sl->sent, atomic_load(&sl->answered));
	atomic_store(&sl->entered, atomic_load(&sl->answered));
	give_slot(sl, t);
	sl->proof.valid = false;
	sl->last_site.valid = false;
	if (trail_of(sl))
		trail_of(sl)->epoch = 0; /* a former thread's */
	close_task_files(sl); /* a former thread's */
	drop_timer(sl); /* aimed at the former thread */
	atomic_store(&sl->hi, 0);
	atomic_store(&sl->own_hi, 0);
	atomic_store(&sl->own_lo, 0);
	atomic_store(&sl->block, 0);
	atomic_store(&sl->last_rsp, 0);
	sl->tid = os;
	bool ok;
	t->sig.last_cpu = cpu_ns(t->clock, &ok);
	t->sig.owed = 0;
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
		struct sig_slot *sl = slot_for((pid_t)os, tid, NULL);
		if (sl)
			sl->seen = true;
	}
	threads->vtbl->Release(threads);
	for (uint32_t i = 0; i < g.nslots; i++)
		if (!g.slots[i].seen)
			g.slots[i].alive = false; /* ended: its id may be reused */
}

/* Whether the handler on our signal is still ours: a program may install
 * its own later, and our signal would then reach code that does not
 * expect it. */
static bool handler_is_ours(void)
{
	struct sigaction cur;
	return sigaction(g.signo, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal;
}

/* Where in the time before the next tick the thread's signal lands: at
 * an instant drawn at random, set by a timer of its own.  The sampler
 * thread wakes late when every CPU is busy (it waits for one), most often
 * just as some thread parks and frees one: a signal sent on waking would
 * find short bursts of work over and their threads parked (a worker busy
 * a third of the time would seldom be caught working: e2e.parked measures
 * its share).  A timer fires on time whoever runs, and the signal reaches
 * a running thread at once.  0: send it now. */
#define SIGNAL_MARGIN_NS 100000ull /* delivered and handled before the tick */
static uint64_t signal_delay(void)
{
	uint64_t now = agent_mono_ns();
	if (g.deadline_ns <= now + SIGNAL_MARGIN_NS + 1000)
		return 0;
	return agent_random_below(&g.random, g.deadline_ns - now - SIGNAL_MARGIN_NS);
}

/* Arms the slot's timer to signal its thread after delay_ns; false when
 * it has none and cannot have one (then the signal goes now). */
static bool arm_timer(struct sig_slot *sl, uint64_t delay_ns)
{
	if (!sl->has_timer) {
		struct sigevent ev;
		memset(&ev, 0, sizeof ev);
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = g.signo;
		ev.sigev_value.sival_int = (int)(sl - g.slots);
		ev._sigev_un._tid = sl->tid;
		if (timer_create(CLOCK_MONOTONIC, &ev, &sl->timer) != 0)
			return false;
		sl->has_timer = true;
	}
	struct itimerspec at = {.it_value = {(time_t)(delay_ns / 1000000000ull), (long)(delay_ns % 1000000000ull)}};
	g.armed = true;
	return timer_settime(sl->timer, 0, &at, NULL) == 0;
}

static void disarm_timers(void)
{
	static const struct itimerspec off;
	for (uint32_t i = 0; i < g.nslots; i++)
		if (g.slots[i].has_timer)
			timer_settime(g.slots[i].timer, 0, &off, NULL);
}

static void drop_timer(struct sig_slot *sl)
{
	if (sl->has_timer)
		timer_delete(sl->timer);
	sl->has_timer = false;
}

/* Signals the slot's thread, unless a signal is still in flight to it (a
 * queued real-time signal counts against the user's limit, and its
 * capture is still to come); false when it could not be sent. */
static bool send_to(struct sig_slot *sl)
{
	if (in_flight(sl))
		return true;
	if (!handler_is_ours()) {
		g.stats.handler_lost++;
		return false;
	}
	uint64_t delay = signal_delay();
	owner_of(sl)->sig.due_ns = agent_mono_ns() + delay;
	atomic_fetch_add(&sl->sent, 1);
	if (delay && arm_timer(sl, delay)) {
		g.stats.signals++;
		return true;
	}
	atomic_fetch_sub(&sl->sent, 1);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = g.signo;
	si.si_code = SI_QUEUE;
	si.si_pid = g.pid;
	si.si_uid = g.uid;
	si.si_value.sival_int = (int)(sl - g.slots);
	atomic_fetch_add(&sl->sent, 1);
	if (syscall(SYS_rt_tgsigqueueinfo, g.pid, sl->tid, g.signo, &si) != 0) {
		atomic_fetch_sub(&sl->sent, 1);
		if (errno == ESRCH)
			sl->alive = false; /* gone (EAGAIN, a full signal queue, only skips this tick) */
		return false;
	}
	g.stats.signals++;
	return true;
}

/* The system call a capture interrupted: its ip is just after a syscall
 * instruction (the call returns EINTR) or on it (SA_RESTART: the kernel
 * moved ip back to repeat it). */
static struct syscall_site syscall_at(const struct capture *c)
{
	int code = codemap_code_facts(c->ip);
	if (code > 0 && (code & CODE_AFTER_SYSCALL))
		return (struct syscall_site){c->ip, c->sp, c->arg0};
	if (code > 0 && (code & CODE_AT_SYSCALL))
		return (struct syscall_site){c->ip + 2, c->sp, c->arg0};
	return (struct syscall_site){0};
}

/* Whether the signal found the thread waiting in the system call at site
 * (not just back from one): the kernel moved ip back to repeat the call,
 * or the call returned EINTR. */
static bool blocked_in(const struct capture *c, struct syscall_site site)
{
	return site.pc && !c->kernel && (c->in_place || site.pc != c->ip || (int64_t)c->rax == -EINTR);
}

/* Whether the capture is on the instruction after a system call that
 * waits (it returned: the call's registers but rax are as it left them):
 * the signal came while the thread waited, and the event it waited for
 * came too, or while it waited for a CPU after it: either way it was most
 * likely not running (a thread running its own code is hardly ever on that
 * one instruction).  A busy thread that polls or yields is found there
 * too: its CPU clock settles it (see credit.c). */
static bool woke_from_wait(const struct capture *c, struct syscall_site site)
{
	if (!site.pc || site.pc != c->ip || (int64_t)c->rax == -EINTR || c->in_place || c->kernel)
		return false;
	int code = codemap_code_facts(c->ip);
	if (code <= 0)
		return false;
	return (code & CODE_WAIT_SYSCALL) || ((code & CODE_FUTEX_SYSCALL) && x64_futex_op_waits(c->arg1));
}

/* The frames a capture read in place leads to, walked once before it is
 * kept: only a walk that did not need the thread's rbp (which /proc does
 * not give) stands for a signal's (sampler thread only). */
static FunctionID in_place_frames[1024];
static uint64_t in_place_addrs[1024];
static bool walks_without_fp(const struct capture *c, struct unwind_trail *trail, uint32_t *n)
{
	struct unwind_regs r = {c->ip, c->sp, 0, true};
	struct stack_copy copy = {c->sp, c->len, c->stack, NULL};
	struct unwind_out out = {in_place_frames, 0, sizeof in_place_frames / sizeof *in_place_frames,
				 UNWIND_EXACT, 0, false, in_place_addrs, false};
	unwind_stack(&r, true, &copy, &out, trail);
	*n = out.n;
	return !out.live_fp && out.verdict != UNWIND_BROKEN && (out.n || out.root);
}

/* The validate dial's check of reads in place: every Nth read is not
 * kept, and the thread is signalled instead; when that capture finds it
 * waiting at the same place, it must have the same frames (one check at a
 * time, given up when no capture came soon). */
#define WAITING_CHECK_NS 100000000ull
static struct {
	bool pending;
	ThreadID thread;
	struct syscall_site site;
	uint64_t since_ns;
	uint32_t n, reads; /* frames; reads since the last check */
	FunctionID frames[sizeof in_place_frames / sizeof *in_place_frames];
} waiting_check;

static void check_waiting_read(const struct capture *c, ThreadID thread, struct syscall_site site, bool blocked,
			       const struct unwind_out *out)
{
	if (!waiting_check.pending || waiting_check.thread != thread || c->in_place)
		return;
	waiting_check.pending = false;
	if (!blocked || !syscall_site_same(&site, &waiting_check.site))
		return; /* it moved on before its signal: nothing to compare */
	g.stats.waiting_checks++;
	if ((out->n != waiting_check.n || memcmp(out->frames, waiting_check.frames, out->n * sizeof *out->frames)) &&
	    g.stats.waiting_mismatches++ < 20)
		agent_debug("stack check: a read in place (%u frames) differs from a capture at the same site (%u frames, "
			    "ip %#lx)",
			    waiting_check.n, out->n, (unsigned long)site.pc);
}

/* Unwinds one capture into pool[*used..]; a walk, or false when it gives
 * no sample (no managed frame, or a managed frame it could not place: the
 * thread is then listed for an exact walk).  A walk that reached the
 * thread's first frame without meeting managed code is exact too: an empty
 * walk (n = 0), which the runtime's walk would not improve on.  Without
 * can_walk (no exact walk to be had), native frames the runtime says are
 * a compilation or a GC are a walk too, without their callers. */
static bool unwind_capture(const struct capture *c, ThreadID thread, FunctionID *pool, uint64_t *addrs,
			   uint32_t room, struct sig_walk *walk, uint32_t used, bool can_walk, struct parked_proof *proof,
			   struct unwind_trail *trail)
{
	struct unwind_regs r = {c->ip, c->sp, c->fp, c->in_place};
	struct syscall_site site = syscall_at(c);
	bool blocked = blocked_in(c, site), woke = woke_from_wait(c, site);
	g.stats.found_waiting += !c->in_place && (blocked || woke); /* (a read in place is blocked by definition) */
	proof->valid = false;
	proof->words.n = 0;
	proof->words.overflow = false;
	struct stack_copy copy = {c->sp, c->len, c->stack, site.pc ? &proof->words : NULL};
	struct unwind_out out = {pool + used, 0, room, UNWIND_EXACT, 0, false, addrs ? addrs + used : NULL, false};
	unwind_stack(&r, true, &copy, &out, trail);
	/* a walk that ended at a native frame whose caller lies beyond a copy
	 * short of the stack's top (a kernel sample's 32 KiB, a signal's 64)
	 * may have managed frames to come: as its root it looked complete.
	 * With an exact walk to be had, the thread is walked so; a kernel
	 * sample's is (see sigsampler_collect); else the walk is truncated. */
	if (out.past_end && c->top > c->sp + c->len && out.verdict != UNWIND_BROKEN) {
		if (!c->kernel) {
			g.stats.past_copy++;
			if (can_walk)
				return false;
		}
		out.verdict = UNWIND_TRUNCATED;
	}
	g.stats.fast_walks++;
	check_waiting_read(c, thread, site, blocked, &out);
	bool managed = false;
	for (uint32_t k = 0; k < out.n; k++)
		managed |= out.frames[k] != 0;
	if (!managed && out.root) {
		/* no managed frame to the thread's first: a sample only when the
		 * runtime says what the thread does (a compilation in the
		 * background), else an empty walk */
		g.stats.unmanaged_roots++;
		*walk = (struct sig_walk){.thread = thread, .start = used, .n = c->act.n ? out.n : 0,
					  .weight = c->act.n ? 1 : 0, .cpu_end = c->cpu_end, .captured = true,
					  .wait = site, .kernel = c->kernel, .kernel_periods = c->kernel ? c->kernel_periods : 0,
					  .act = c->act};
		return true;
	}
	if (!managed && c->act.n && !can_walk) {
		/* native frames it could not follow, but the runtime says what they
		 * do (compiling, collecting), and no exact walk is to be had (the
		 * signal sampler, or a GC holding the runtime): that much, without
		 * the callers, is worth more than a sample lost */
		g.stats.no_managed++;
		*walk = (struct sig_walk){.thread = thread, .start = used, .n = out.n, .weight = 1,
					  .cpu_end = c->cpu_end, .captured = true, .wait = site, .kernel = c->kernel,
					  .kernel_periods = c->kernel ? c->kernel_periods : 0, .act = c->act};
		return true;
	}
	if (!managed) {
		if (g.stats.no_managed++ < 20) {
			struct code_at at = codemap_at(c->ip, true);
			agent_debug("no managed frame: ip %#lx sp %#lx fp %#lx len %u frames %u (in module %d, rule %d: cfa %d%+d%s ra %+d)",
				    (unsigned long)c->ip, (unsigned long)c->sp, (unsigned long)c->fp, c->len, out.n,
				    at.in_module, at.native_known, at.rule.cfa_reg, at.rule.cfa_off,
				    at.rule.cfa_deref ? " deref" : "", at.rule.ra_off);
		}
		return false;
	}
	switch (out.verdict) {
	case UNWIND_BROKEN:
		if (g.stats.broken++ < 20)
			agent_debug("unwind broken: ip %#lx sp %#lx fp %#lx len %u frames %u last fn %#lx",
				    (unsigned long)c->ip, (unsigned long)c->sp, (unsigned long)c->fp, c->len, out.n,
				    (unsigned long)out.frames[out.n - 1]);
		return false;
	case UNWIND_NATIVE:
		g.stats.native_frames++;
		break;
	case UNWIND_TRUNCATED:
		g.stats.truncated++;
		break;
	default:
		break;
	}
	*walk = (struct sig_walk){.thread = thread, .start = used, .n = out.n,
				  .truncated = out.verdict == UNWIND_TRUNCATED, .weight = 1,
				  .cpu_end = c->cpu_end, .captured = true, .wait = site,
				  .blocked = blocked, .woke = woke, .kernel = c->kernel,
				  .kernel_periods = c->kernel ? c->kernel_periods : 0, .act = c->act};
	keep_async(c, walk);
	/* a thread found again at the site with the same stack words has the
	 * same frames, but not the same callers of a resumed async method */
	uint64_t box_class;
	bool logical = async_enabled() && async_splice(out.frames, out.n, &box_class) >= 0;
	if (site.pc && !out.live_fp && !proof->words.overflow && !logical) {
		proof->valid = true;
		proof->site = site;
		proof->walk_epoch = codemap_walk_epoch();
	}
	return true;
}

/* The ticks a pending signal's capture was to stand for (sigsampler_extend),
 * as it arrives: those whose instant came before it was taken are its (the
 * thread had not run: it was where the capture found it); the others came
 * after the thread ran again, where nothing says it was, and go to its next
 * capture.  Were a capture to stand for every such tick, a thread woken by
 * its signal and left waiting for a CPU (a crowded machine) would give its
 * wait those ticks whole, and its work too few samples; signalling it
 * again at that instant, from the handler, would wake a parked thread once
 * more, and give its work too many.  A capture that gave no sample (walk:
 * NULL) leaves them all to the next. */
static void settle_extra(struct thread_signal *ts, const struct capture *c, struct sig_walk *walk)
{
	uint32_t before = 0;
	for (uint32_t i = 0; i < ts->extra; i++)
		before += i >= TT_EXTRA_INSTANTS || ts->extra_instant[i] < c->at_ns; /* (beyond those kept: its) */
	if (walk && walk->weight)
		walk->weight += before;
	else
		before = 0;
	ts->carried += ts->extra - before;
	ts->extra = 0;
}

uint32_t sigsampler_collect(FunctionID *pool, uint64_t *addrs, uint32_t pool_size, struct sig_walk *walks,
			    uint32_t max_walks, uint32_t depth_max, ThreadID *retry, uint32_t *nretry,
			    uint32_t max_retry)
{
	uint64_t now = agent_mono_ns(), unloaded = unloads_last_ns();
	if (codemap_stale(now))
		codemap_forget(); /* code may have been unloaded: forget what is where */
	/* threads that ended give their slots back (in signal mode the thread
	 * list sigsampler_tick has just refreshed does it first): looked for
	 * when the runtime's thread list changed, else every ALIVE_CHECK_NS (a
	 * clock read per slot) */
	uint64_t changes = threadlist_changes();
	if (now - g.last_refresh_ns >= REFRESH_EVERY_NS &&
	    (changes != g.alive_changes || now - g.last_refresh_ns >= ALIVE_CHECK_NS)) {
		g.last_refresh_ns = now;
		g.alive_changes = changes;
		for (uint32_t i = 0; i < g.nslots; i++) {
			bool ok = false;
			if (g.slots[i].alive) {
				cpu_ns(owner_of(&g.slots[i])->clock, &ok);
				g.slots[i].alive = ok;
			}
		}
	}
	/* a program that took our signal over since the last tick must not get
	 * the signals of timers armed before it did */
	if (g.armed && !handler_is_ours())
		disarm_timers();
	g.armed = false;
	uint32_t nwalks = 0, used = 0;
	g.nasync = 0;
	if (nretry)
		*nretry = 0;
	uint64_t began = agent_mono_ns();
	for (uint32_t i = 0; i < g.nslots; i++) {
		struct sig_slot *sl = &g.slots[i];
		struct sampled_thread *o = owner_of(sl);
		if (!o) { /* nobody's: its captures go with it */
			atomic_store_explicit(&sl->tail, atomic_load_explicit(&sl->head, memory_order_acquire),
					      memory_order_release);
			continue;
		}
		if (sl->alive) {
			stack_top(sl, atomic_load(&sl->last_rsp));
			learn_own_mapping(sl);
		}
		if (!sl->alive && o->kernel.ks.fd)
			kernel_stop(o); /* its thread ended */
		uint32_t t = atomic_load_explicit(&sl->tail, memory_order_relaxed);
		uint32_t h = atomic_load_explicit(&sl->head, memory_order_acquire);
		for (; t != h && nwalks < max_walks && used + depth_max <= pool_size; t++) {
			const struct capture *c = &sl->ring[t % SIG_RING];
			struct sig_walk *w = &walks[nwalks];
			/* one taken before the latest unload may hold the freed code's
			 * addresses and a freed method's activity (unloads.h): its
			 * thread is walked exactly instead */
			bool ok = c->at_ns >= unloaded &&
				  unwind_capture(c, o->thread, pool, addrs, depth_max, w, used,
						 nretry && !activity_in_gc_suspension(), &sl->proof, trail_of(sl));
			if (ok && c->kernel && w->truncated) {
				/* deeper than the kernel copies: this sample is walked
				 * exactly, and a thread that stays that deep is signalled
				 * for a while (its handler copies up to the stack's top) */
				if (++o->kernel.truncated >= KERNEL_TRUNCATED_RUN) {
					kernel_stop(o);
					o->kernel.retry_ns = now + KERNEL_RETRY_NS;
				}
				g.stats.kernel_truncated++;
				ok = false;
			} else if (ok && c->kernel) {
				o->kernel.truncated = 0;
			}
			if (ok && !c->kernel && w->weight && o->sig.carried) {
				/* (ticks: not a kernel sample's, which stands for CPU time) */
				w->weight += o->sig.carried;
				o->sig.carried = 0;
			}
			if (o->sig.extra && t == o->sig.extra_at)
				settle_extra(&o->sig, c, ok ? w : NULL);
			if (ok) {
				used += w->n;
				/* an empty walk only tells the mixed sampler the thread
				 * has no managed frame */
				nwalks += w->n || nretry;
			} else if (nretry && *nretry < max_retry) {
				retry[(*nretry)++] = o->thread;
			}
		}
		atomic_store_explicit(&sl->tail, t, memory_order_release);
	}
	g.stats.unwind_ns += agent_mono_ns() - began;
	return nwalks;
}

/* The live slot of a thread (os_tid 0: whatever its OS thread), or NULL;
 * never a new one (slot_for makes those). */
static struct sig_slot *live_slot(ThreadID thread, pid_t os_tid)
{
	for (uint32_t i = 0; i < g.nslots; i++)
		if (g.slots[i].alive && owner_of(&g.slots[i])->thread == thread &&
		    (!os_tid || g.slots[i].tid == os_tid))
			return &g.slots[i];
	return NULL;
}

struct unwind_trail *sigsampler_trail(ThreadID thread)
{
	return trail_of(live_slot(thread, 0));
}

/* The slot of a thread, given it on first sight; NULL when every slot is
 * in use. */
static struct sig_slot *slot_of(struct sampled_thread *t)
{
	return slot_for((pid_t)t->os_tid, t->thread, t);
}

bool sigsampler_signal(struct sampled_thread *t)
{
	struct sig_slot *sl = slot_of(t);
	return sl && send_to(sl) && sl->alive;
}

/* One number of /proc/self/task/TID/syscall: decimal (maybe negative) or
 * 0x-prefixed hex, then a space or the end; NULL when it is neither. */
static const char *parse_number(const char *p, bool hex, int64_t *out)
{
	bool negative = !hex && *p == '-';
	p += negative;
	if (hex) {
		if (p[0] != '0' || p[1] != 'x')
			return NULL;
		p += 2;
	}
	uint64_t v = 0;
	const char *start = p;
	for (;; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : hex && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d < 0)
			break;
		v = v * (hex ? 16 : 10) + (uint64_t)d;
	}
	if (p == start || (*p != ' ' && *p != '\n' && *p != 0))
		return NULL;
	*out = negative ? -(int64_t)v : (int64_t)v;
	return *p == ' ' ? p + 1 : p;
}

/* The system call a thread sits in, as the kernel says in
 * /proc/self/task/TID/syscall: "NR ARG0 .. ARG5 SP PC" while it is in one
 * ("running" while it runs or waits for a CPU, "-1 SP PC" when it is
 * stopped elsewhere): false when it is not.
 * *fd (given: the file kept open, its descriptor + 1; 0 until opened)
 * saves an open and a close per look.  Parsed by hand: it is read for
 * every thread that ran and parked again, every tick. */
static bool read_syscall_site(pid_t tid, int *fd, struct syscall_site *site, struct syscall_call *call, bool *running)
{
	*site = (struct syscall_site){0};
	*running = false;
	int f = task_file(tid, "syscall", fd);
	if (f < 0)
		return false;
	char line[256];
	ssize_t n = pread(f, line, sizeof line - 1, 0);
	if (!fd)
		close(f);
	if (n <= 0)
		return false;
	line[n] = 0;
	*running = strncmp(line, "running", 7) == 0;
	int64_t v[9];
	const char *p = line;
	for (int i = 0; i < 9 && p; i++)
		p = parse_number(p, i > 0, &v[i]);
	if (!p || v[0] < 0)
		return false;
	*site = (struct syscall_site){(uint64_t)v[8], (uint64_t)v[7], (uint64_t)v[1]};
	if (call)
		*call = (struct syscall_call){v[0], (uint64_t)v[2]};
	return true;
}

/* The system call the thread sits in: the last read while its CPU clock
 * still reads cpu_before (read just before this), else read now; NULL
 * when it is in none (it runs) or the file cannot be read. */
static const struct site_read *site_now(struct sig_slot *sl, pid_t tid, uint64_t cpu_before)
{
	static struct site_read unkept; /* (the sampler thread's) */
	struct site_read *r = sl ? &sl->last_site : &unkept;
	if (sl && r->valid && cpu_before && r->cpu_before == cpu_before)
		return r;
	bool kept = sl && keeps_files(sl);
	r->valid = read_syscall_site(tid, kept ? &sl->syscall_fd : NULL, &r->site, &r->call, &r->running);
	r->cpu_before = cpu_before;
	return r->valid ? r : NULL;
}

enum parked sigsampler_parked_as_captured(const struct sampled_thread *t, uint64_t cpu_now,
					  struct syscall_site *now)
{
	pid_t os_tid = (pid_t)t->os_tid;
	struct sig_slot *sl = live_slot(t->thread, os_tid);
	bool proof = sl && sl->proof.valid && sl->proof.walk_epoch == codemap_walk_epoch() && !in_flight(sl);
	*now = (struct syscall_site){0};
	if (proof) {
		/* the words first: a thread that moved on changed some of them,
		 * and needs no read of its system call */
		const struct parked_proof *p = &sl->proof;
		uint64_t words[UNWIND_WORDS_MAX];
		if (memread_words(p->words.addr, words, p->words.n) != 0 ||
		    memcmp(words, p->words.value, p->words.n * sizeof *words) != 0)
			return PARKED_MOVED;
	}
	const struct site_read *r = site_now(sl, os_tid, cpu_now);
	if (!r)
		return PARKED_MOVED;
	*now = r->site;
	if (!proof)
		return PARKED_UNPROVEN;
	return syscall_site_same(&sl->proof.site, now) ? PARKED_SAME : PARKED_MOVED;
}

/* The read in place of sigsampler_read_waiting, the thread's CPU clock
 * read just before (cpu; ok: it could be); *running: the kernel said the
 * thread runs or waits for a CPU. */
static bool read_waiting(struct sig_slot *sl, struct sampled_thread *t, uint32_t check_every, uint64_t cpu, bool ok,
			 bool *running)
{
	uint32_t h;
	*running = false;
	if (!ring_free(sl, &h))
		return false;
	const struct site_read *r = ok ? site_now(sl, sl->tid, cpu) : NULL;
	*running = !r && ok && sl->last_site.running;
	if (!r || !(x64_linux_syscall_waits(r->call.nr) ||
		    (r->call.nr == X64_LINUX_FUTEX && x64_futex_op_waits(r->call.arg1))))
		return false; /* running, or in a call that may not wait */
	struct syscall_site at = r->site;
	uint64_t hi = stack_top(sl, at.sp);
	if (!hi || hi <= at.sp)
		return false;
	struct capture *c = &sl->ring[h % SIG_RING];
	/* (field by field: the capture holds a stack's worth of bytes) */
	c->ip = at.pc;
	c->sp = at.sp;
	c->fp = 0;
	c->arg0 = at.arg0;
	c->arg1 = r->call.arg1;
	c->rax = 0;
	memset(c->callee, 0, sizeof c->callee);
	c->gc_epoch = activity_gc_epoch();
	c->in_place = true;
	c->kernel = false;
	c->at_ns = agent_mono_ns();
	c->len = memread_pages(at.sp, c->stack, (uint32_t)(hi - at.sp < STACK_COPY ? hi - at.sp : STACK_COPY));
	c->top = hi;
	take_async(c); /* (its stack words alone: the registers of a thread in a system call are not known) */
	activity_of((uint32_t)sl->tid, &c->act);
	/* the copy (and the look for async boxes) is the thread's stack at one
	 * instant: its CPU clock, read before its site was, says it has not
	 * run since (so its site stands) */
	c->cpu_end = cpu_ns(t->clock, &ok);
	uint32_t n;
	if (!ok || c->cpu_end != cpu || !walks_without_fp(c, trail_of(sl), &n)) {
		g.stats.waiting_unread++;
		return false;
	}
	uint64_t now = agent_mono_ns();
	if (waiting_check.pending && now - waiting_check.since_ns > WAITING_CHECK_NS)
		waiting_check.pending = false;
	if (check_every && ++waiting_check.reads >= check_every && !waiting_check.pending) {
		waiting_check.reads = 0;
		waiting_check.pending = true;
		waiting_check.thread = t->thread;
		waiting_check.site = at;
		waiting_check.since_ns = now;
		waiting_check.n = n;
		memcpy(waiting_check.frames, in_place_frames, n * sizeof *in_place_frames);
		return false; /* signalled instead, and compared */
	}
	atomic_store_explicit(&sl->head, h + 1, memory_order_release);
	g.stats.waiting_read++;
	return true;
}

bool sigsampler_read_waiting(struct sampled_thread *t, uint32_t check_every)
{
	struct sig_slot *sl = slot_of(t);
	if (!sl)
		return false;
	bool ok, running;
	uint64_t cpu = cpu_ns(t->clock, &ok);
	return read_waiting(sl, t, check_every, cpu, ok, &running);
}

/* Whether a thread that is runnable but not on a CPU last ran on the CPU
 * the sampler thread runs on: the sampler thread took it from the thread
 * (on a machine whose every CPU is busy it takes one from some thread: a
 * bursty worker is often found so right after it ran, and counted as
 * waiting for a CPU there it would get more samples than ticks;
 * e2e.parked).  /proc/self/task/TID/stat: the state is the field after
 * the name in parentheses, the CPU the 36th after the state. */
static bool displaced_by_sampler(struct sig_slot *sl)
{
	char line[1024];
	int *kept = keeps_files(sl) ? &sl->stat_fd : NULL;
	int f = task_file(sl->tid, "stat", kept);
	if (f < 0)
		return false;
	ssize_t n = pread(f, line, sizeof line - 1, 0);
	if (!kept)
		close(f);
	if (n <= 0)
		return false;
	line[n] = 0;
	const char *p = strrchr(line, ')');
	if (!p || p[1] != ' ' || p[2] != 'R')
		return false;
	p += 2;
	for (int field = 0; field < 36 && p; field++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	int cpu = sched_getcpu();
	return p && cpu >= 0 && atoi(p) == cpu;
}

enum instant sigsampler_instant(struct sampled_thread *t, uint64_t cpu_survey, uint32_t check_every)
{
	struct sig_slot *sl = slot_of(t);
	if (!sl)
		return INSTANT_ELSE;
	bool ok, running;
	uint64_t cpu = cpu_ns(t->clock, &ok);
	if (ok && cpu != cpu_survey)
		return INSTANT_ON_CPU;
	if (read_waiting(sl, t, check_every, cpu, ok, &running))
		return INSTANT_READ;
	return running && displaced_by_sampler(sl) ? INSTANT_ON_CPU : INSTANT_ELSE;
}

void sigsampler_kernel_keep(bool on)
{
	if (on || !g.ks_open)
		return;
	for (uint32_t i = 0; i < g.nslots; i++) {
		struct sampled_thread *t = owner_of(&g.slots[i]);
		kernel_stop(t);
		if (t)
			t->kernel.tried = false;
	}
	g.ks_open = false;
}

enum kernel_capture sigsampler_kernel_capture(struct sampled_thread *t, uint32_t rate_hz, uint64_t since_ns)
{
	struct sig_slot *sl = slot_of(t);
	if (!sl)
		return KERNEL_OFF;
	struct thread_kernel *tk = &t->kernel;
	uint64_t period = agent_period_ns(rate_hz);
	if (tk->retry_ns && !tk->ks.fd && agent_mono_ns() >= tk->retry_ns) {
		tk->retry_ns = 0;
		tk->tried = false; /* its stacks too deep for the kernel's copy a second ago */
	}
	if (!tk->tried) {
		tk->tried = true;
		g.ks_open = true;
		char why[160];
		if (g.ks_count >= KERNEL_THREADS_MAX)
			return KERNEL_OFF;
		if (ks_open(&tk->ks, sl->tid, period, why, sizeof why)) {
			g.ks_count++;
			kernel_anchor(t);
		} else if (!g.ks_said) {
			g.ks_said = true;
			lw_message(CS_LEVEL_WARNING,
				   "the kernel does not sample this process's threads (%s; kernel.perf_event_paranoid "
				   "must be 2 or less): they are signalled instead",
				   why);
		}
		return KERNEL_OFF; /* its samples start now */
	}
	uint64_t was = tk->ks.period_ns;
	if (!tk->ks.fd || !ks_set_period(&tk->ks, period))
		return KERNEL_OFF;
	if (tk->ks.period_ns != was)
		kernel_anchor(t);
	uint32_t h;
	if (!ring_free(sl, &h))
		return KERNEL_NONE;
	struct capture *c = &sl->ring[h % SIG_RING];
	struct ks_sample k;
	uint32_t n = ks_drain(&tk->ks, &k, c->stack, STACK_COPY, &g.stats.kernel_lost);
	if (!n || !k.user || k.time_ns < since_ns)
		return KERNEL_NONE; /* none since the last tick: it used less than a period of CPU in its own code */
	c->ip = k.ip;
	c->sp = k.sp;
	c->fp = k.bp;
	c->arg0 = c->arg1 = c->rax = 0;
	memset(c->callee, 0, sizeof c->callee);
	c->gc_epoch = 1; /* (the kernel copied the stack when it sampled: the epoch then is not known) */
	c->async.taken = false;
	c->in_place = false;
	c->kernel = true;
	c->kernel_periods = n; /* (the one kept stands for them all) */
	c->at_ns = k.time_ns;
	c->len = k.len;
	uint64_t hi = stack_top(sl, k.sp);
	c->top = hi > k.sp ? hi : 0;
	c->cpu_end = 0; /* (taken as it ran: no claim on later ticks) */
	activity_of((uint32_t)sl->tid, &c->act);
	atomic_store_explicit(&sl->head, h + 1, memory_order_release);
	g.stats.kernel_samples++;
	tk->counted += n;
	return KERNEL_CAPTURED;
}

/* The kernel's part of a thread whose signal slot is alive, or NULL. */
static struct thread_kernel *live_kernel(const struct sampled_thread *t)
{
	struct sampled_thread *o = owner_of(live_slot(t->thread, (pid_t)t->os_tid));
	return o ? &o->kernel : NULL;
}

uint64_t sigsampler_kernel_unsampled(const struct sampled_thread *t, uint64_t cpu_now)
{
	const struct thread_kernel *tk = live_kernel(t);
	if (!tk || !tk->ks.fd || !tk->ks.period_ns || cpu_now < tk->cpu_open)
		return 0;
	uint64_t used = cpu_now - tk->cpu_open, counted = tk->counted * tk->ks.period_ns;
	return used > counted ? used - counted : 0;
}

void sigsampler_kernel_counted(struct sampled_thread *t, uint32_t n)
{
	struct thread_kernel *tk = live_kernel(t);
	if (tk && tk->ks.fd)
		tk->counted += n;
}

bool sigsampler_pending(struct sampled_thread *t)
{
	struct sig_slot *sl = slot_of(t);
	return sl && sl->alive && in_flight(sl);
}

#define OVERDUE_NS 2000000ull

/* Whether the thread blocks the sampling signal, from the SigBlk line of
 * its /proc status (true when it cannot be read: it is walked instead). */
static bool signal_blocked(pid_t tid)
{
	int f = task_file(tid, "status", NULL);
	if (f < 0)
		return true;
	char text[2048];
	ssize_t n = pread(f, text, sizeof text - 1, 0);
	close(f);
	if (n <= 0)
		return true;
	text[n] = 0;
	const char *line = strstr(text, "\nSigBlk:");
	if (!line)
		return true;
	errno = 0;
	char *end;
	unsigned long long mask = strtoull(line + 8, &end, 16);
	if (errno || end == line + 8)
		return true;
	return (mask >> (g.signo - 1)) & 1;
}

bool sigsampler_overdue(struct sampled_thread *t)
{
	struct sig_slot *sl = slot_of(t);
	/* a handler that began has its capture's registers, and one that did
	 * not, with the signal not blocked, finds the thread where it was when
	 * the signal came (the kernel delivers it on the thread's first return
	 * to its own code): on a busy machine either may wait for a CPU for
	 * milliseconds.  Only a thread that blocks the signal (or whose signal
	 * no longer reaches our handler) is walked instead: the walk suspends
	 * every thread, and on such a machine for as long */
	return sl && sl->alive && in_flight(sl) && atomic_load(&sl->entered) != atomic_load(&sl->sent) &&
	       agent_mono_ns() > t->sig.due_ns + OVERDUE_NS && (signal_blocked(sl->tid) || !handler_is_ours());
}

bool sigsampler_extend(struct sampled_thread *t)
{
	struct sig_slot *sl = slot_of(t);
	if (!sl || !sl->alive || atomic_load(&sl->sent) == atomic_load(&sl->answered))
		return false;
	struct thread_signal *ts = &t->sig;
	if (!ts->extra)
		ts->extra_at = atomic_load(&sl->head);
	uint64_t now = agent_mono_ns();
	uint64_t instant = g.deadline_ns > now ? now + agent_random_below(&g.random, g.deadline_ns - now) : now;
	if (ts->extra < TT_EXTRA_INSTANTS)
		ts->extra_instant[ts->extra] = instant;
	ts->extra++;
	return true;
}

uint32_t sigsampler_tick(uint32_t rate_hz, FunctionID *pool, uint64_t *addrs, uint32_t pool_size,
			 struct sig_walk *walks, uint32_t max_walks, uint32_t depth_max)
{
	uint64_t now = agent_mono_ns();
	/* the runtime's list only when threads came or went (asking takes the
	 * lock a GC holds for its whole length), never during a GC */
	if (now - g.last_refresh_ns >= REFRESH_EVERY_NS && !activity_in_gc_suspension() &&
	    (!g.nslots || threadlist_due(&g.listing, now))) {
		g.last_refresh_ns = now;
		threadlist_taken(&g.listing, threadlist_changes(), now);
		refresh_threads();
	}
	/* 1. what the handlers caught since the last tick */
	uint32_t nwalks = sigsampler_collect(pool, addrs, pool_size, walks, max_walks, depth_max, NULL, NULL, 0);
	/* 2. signal each thread that has used a period's worth of CPU since its
	 * last sample: one sample per period of CPU time, however many threads
	 * share the cores (a handler costs microseconds: it cannot keep an idle
	 * thread sampled) */
	uint64_t period = agent_period_ns(rate_hz);
	for (uint32_t i = 0; i < g.nslots; i++) {
		struct sig_slot *sl = &g.slots[i];
		if (!sl->alive)
			continue;
		struct thread_signal *ts = &owner_of(sl)->sig;
		bool ok;
		uint64_t cpu = cpu_ns(owner_of(sl)->clock, &ok);
		if (!ok) {
			sl->alive = false;
			continue;
		}
		ts->owed += cpu - ts->last_cpu;
		ts->last_cpu = cpu;
		if (ts->owed < period)
			continue;
		ts->owed = ts->owed >= 2 * period ? period : ts->owed - period; /* a backlog is not made up */
		send_to(sl);
	}
	return nwalks;
}

uint64_t sigsampler_handler_ns(void)
{
	return atomic_load_explicit(&g.handler_ns, memory_order_relaxed);
}

uint64_t sigsampler_overflowed(void)
{
	return atomic_load(&g.overflowed);
}

struct sig_stats sigsampler_stats(void)
{
	return g.stats;
}
