#include "agent/sampling/sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

#include "agent/log/logwriter.h"
#include "agent/sampling/sigsampler.h"
#include "agent/sampling/stillthreads.h"
#include "agent/symbols/activity.h"
#include "agent/symbols/symbols.h"
#include "agent/symbols/unloads.h"
#include "agent/unwind/codemap.h"
#include "agent/unwind/memread.h"
#include "agent/unwind/stackwalk.h"
#include "agent/unwind/unwind.h"
#ifdef CLRSCOPE_WALK_PROBE
#include "agent/unwind/walkprobe.h"
#endif
#include "common/logfmt.h"
#include "common/records.h"

#define MAX_THREADS 2048
#define MAX_DEPTH 1024
#define DEFS_FLUSH_BYTES (SYM_DEFS_BYTES / 2) /* pending definitions written before a tick could overflow them */
#define FRAME_POOL (256u * 1024u) /* FunctionIDs copied per tick, all threads */
#define STAGE_BYTES (32u << 10)
#define STAGE_COMMIT_BYTES (24u << 10)
#define STAGE_COMMIT_NS (50u * 1000000u)
/* Other threads' events (runtime events, call totals, allocation counts)
 * are passed on at most this often, not at every tick: a drain per tick at
 * 1 kHz is some 3 % of the sampler thread's time ("naming and logging" in
 * the cost lines of clrscope report), and the samples are staged longer
 * than this anyway. */
#define DRAIN_EVERY_NS 5000000ull
#define IDLE_WAKE_NS (50u * 1000000u)
#define HOLD_SLOTS 4096             /* threads whose unchanged stack is held as a run */
#define HOLD_BYTES (32u << 10)
#define OWED_SLOTS 512 /* CPU_OWED entries (at most 40 bytes each) a commit writes in one record of HOLD_BYTES */
#define HOLD_FLUSH_NS (100u * 1000000u) /* runs are written this often: what a killed program loses */
#define MAX_CHECKS 4                /* exact-vs-fast comparisons per tick */
#define CHECK_STACK MEMREAD_COPY_MAX /* stack bytes copied for one, as the signal handler does */

/* A thread walked exactly whose walk is repeated the fast way: the
 * registers of its innermost managed frame (DoStackSnapshot's context)
 * and a copy of its stack from there, taken while the runtime is
 * suspended, unwound after it resumes. */
struct check {
	uint32_t slot;  /* its exact walk in s.slots */
	uint32_t first; /* where the innermost managed frame is in that walk */
	struct unwind_regs regs;
	uint32_t len;
	uint8_t *stack;
};

/* A thread that kept its stack through a run of ticks: written as one
 * HOLDS entry instead of a sample per tick (an idle program's log would
 * otherwise grow by every parked thread every tick). */
struct hold {
	uint64_t ref, stack, first_us, last_us;
	uint32_t count;
	bool used;
};

/* Threads whose last walk's root part is kept for the next one (a thread
 * that hashes to a slot another holds takes it over). */
#define MEMO_THREADS 64
struct thread_memo {
	ThreadID thread;
	struct sym_memo memo;
};

struct check_walk {
	struct walk w; /* first: walk_frame sees a struct walk */
	bool got;
	uint32_t first;
	struct unwind_regs regs;
};

static struct {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* with mu: the thread's exit, awaited by sampler_stop */
	_Atomic bool stop;
	bool exited, started;
	_Atomic uint32_t rate_hz;
	atomic_bool sampling;
	_Atomic int mode; /* enum sampler_mode */
	_Atomic uint32_t validate; /* fast walks per exact check, 0: none */
	void (*drain)(bool final);  /* sampler_set_drain's */

	/* sampler-thread only */
	FunctionID *pool;
	uint64_t *addrs; /* beside pool: each frame's instruction, for source lines */
	struct sig_walk *slots;
	struct still_thread **known; /* per slot: what is known of its thread, or NULL */
	ThreadID *unmanaged;         /* threads whose signal capture gave no sample */
	struct cs_status stats; /* its fields of the STATUS records (lw_set_sampler_stats) */
	uint8_t *stage_buf;
	struct cs_out stage;
	size_t stage_at;         /* start of the open SAMPLES record */
	uint64_t stage_last_us;  /* time of the last tick in it */
	uint64_t stage_open_ns;  /* when it was opened */
	bool stage_open;
	uint32_t failed_suspends;
	struct hold *holds;      /* open addressing by thread ref */
	uint32_t *held;          /* slots of the holds in use, in the order they began */
	uint32_t nheld;
	struct cs_hold *ended;   /* runs that ended since the last flush */
	uint32_t nended;
	uint64_t holds_flushed_ns;
	uint8_t *holds_buf;      /* (and CPU_OWED's) */
	struct cs_cpu_owed owed[OWED_SLOTS]; /* since the last commit */
	uint32_t nowed;
	struct check checks[MAX_CHECKS];
	uint32_t nchecks;
	FunctionID *check_frames;
	uint64_t thread_cpu_ns;   /* when THREAD_CPU was last written */
	uint32_t thread_cpu_rounds;
	int64_t budget_ns;        /* suspension time that may be spent now */
	uint64_t budget_at_ns;    /* when it was last topped up */
	struct thread_memo *memos; /* MEMO_THREADS, by a hash of the thread */
	uint64_t drained_ns;       /* when the other threads' events were last passed on */
	uint64_t published_ns;     /* when the counts were last published (publish_stats); 0: all are */
	uint64_t cpu_read_ns;      /* when the sampler thread's own CPU clock was last read */
	uint64_t last_tick_ns;     /* when the mixed sampler's last tick began */
} s = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
};

/* The StackSnapshotCallback of a checked walk: walk_frame, and the
 * registers of the innermost managed frame (the CONTEXT is the AMD64
 * layout: Rsp at 0x98, Rbp at 0xA0, Rip at 0xF8). */
static HRESULT check_frame(FunctionID fn, UINT_PTR ip, COR_PRF_FRAME_INFO frame, ULONG32 context_size, BYTE context[],
			   void *client)
{
	struct check_walk *cw = client;
	if (fn && !cw->got && context && context_size >= 0x100) {
		uint64_t rsp, rbp, rip;
		memcpy(&rsp, context + 0x98, 8);
		memcpy(&rbp, context + 0xA0, 8);
		memcpy(&rip, context + 0xF8, 8);
		cw->regs = (struct unwind_regs){rip, rsp, rbp};
		cw->first = cw->w.n; /* where walk_frame puts it */
		cw->got = true;
	}
	return walk_frame(fn, ip, frame, context_size, context, &cw->w);
}

/* The part that runs while every managed thread is stopped: copy only, and
 * only the stacks of threads that ran since their last walk (the others
 * keep theirs: see stillthreads.h). */
static uint32_t walk_moved_threads(uint32_t nslots, uint32_t used, uint32_t *failed)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ICorProfilerThreadEnum *threads = NULL;
	*failed = 0;
	if (FAILED(info->vtbl->EnumThreads(info, &threads)) || !threads)
		return nslots;
	ThreadID tid;
	ULONG fetched = 0;
	while (nslots < MAX_THREADS && used < FRAME_POOL &&
	       threads->vtbl->Next(threads, 1, &tid, &fetched) == S_OK && fetched == 1) {
		struct still_thread *known = still_find(tid);
		if (known && known->by_signal)
			continue; /* its sample is the signal's */
		if (known && known->still) {
			if (known->stack) { /* n == 0: the stack it had */
				s.known[nslots] = known;
				s.slots[nslots++] = (struct sig_walk){tid, 0, 0, false};
			}
			continue;
		}
		uint32_t room = FRAME_POOL - used;
		struct check_walk cw = {
			{s.pool + used, 0, room < MAX_DEPTH ? room : MAX_DEPTH, false, s.addrs + used, false}, false, 0, {0}};
		struct walk w;
		HRESULT hr;
		bool checked = known && known->check_now && s.nchecks < MAX_CHECKS;
		if (checked) {
			hr = info->vtbl->DoStackSnapshot(info, tid, check_frame, COR_PRF_SNAPSHOT_REGISTER_CONTEXT, &cw,
							 NULL, 0);
			if (cw.got && SUCCEEDED(hr) && !cw.w.truncated) {
				struct check *c = &s.checks[s.nchecks++];
				c->slot = nslots;
				c->first = cw.first;
				c->regs = cw.regs;
				c->len = memread_pages(cw.regs.sp, c->stack, CHECK_STACK);
			}
		} else {
			hr = info->vtbl->DoStackSnapshot(info, tid, walk_frame, COR_PRF_SNAPSHOT_DEFAULT, &cw.w, NULL, 0);
		}
		if (known)
			known->check_now = false;
		w = cw.w;
		if ((FAILED(hr) && !w.truncated) || !walk_has_managed(&w)) {
			/* a thread that cannot be walked, or has not run managed code
			 * (the runtime's own waiting threads): nothing to attribute,
			 * and the same answer until it runs */
			*failed += FAILED(hr) && !w.truncated;
			if (known)
				still_walked(known, 0);
			continue;
		}
		s.known[nslots] = known;
		s.slots[nslots] = (struct sig_walk){tid, used, w.n, w.truncated};
		if (known) /* read now: a thread compiling runs on through the suspension */
			activity_of(known->os_tid, &s.slots[nslots].act);
		nslots++;
		used += w.n;
	}
	threads->vtbl->Release(threads);
	return nslots;
}

static struct cs_hold hold_entry(const struct hold *h)
{
	uint64_t period_us = agent_period_ns(atomic_load(&s.rate_hz)) / 1000;
	struct cs_hold e = {h->ref, h->stack, h->first_us,
			    h->count > 1 ? (h->last_us - h->first_us) / (h->count - 1) : period_us, h->count};
	if (!e.period_us)
		e.period_us = 1;
	return e;
}

static void write_holds(bool open_too);

/* A run that ended (its thread ran, or took another stack): kept with the
 * others until the next flush. */
static void end_hold(const struct hold *h)
{
	if (s.nended == HOLD_SLOTS)
		write_holds(false);
	s.ended[s.nended++] = hold_entry(h);
}

/* Writes the runs that ended, and with open_too every open one, as HOLDS
 * entries (records of at most HOLD_BYTES), and forgets them. */
static void write_holds(bool open_too)
{
	sym_flush_defs(sym_defs()); /* the stacks they name first */
	struct cs_out o;
	cs_out_init(&o, s.holds_buf, HOLD_BYTES);
	size_t at = cs_record_begin(&o);
	uint32_t nopen = open_too ? s.nheld : 0;
	for (uint32_t i = 0; i < s.nended + nopen; i++) {
		struct hold *h = i >= s.nended ? &s.holds[s.held[i - s.nended]] : NULL;
		struct cs_hold e = h ? hold_entry(h) : s.ended[i];
		size_t before = o.len;
		cs_hold_encode(&o, &e);
		if (o.overflow) { /* this record is full: send it, start another */
			o.overflow = false;
			o.len = before;
			if (cs_record_end(&o, at, CS_REC_HOLDS))
				lw_append(o.buf, o.len, 1);
			cs_out_init(&o, s.holds_buf, HOLD_BYTES);
			at = cs_record_begin(&o);
			cs_hold_encode(&o, &e);
		}
		if (h)
			h->used = false;
	}
	if (s.nended + nopen && cs_record_end(&o, at, CS_REC_HOLDS))
		lw_append(o.buf, o.len, 1);
	if (open_too)
		s.nheld = 0;
	s.nended = 0;
}

static void write_owed(void)
{
	struct cs_out o;
	cs_out_init(&o, s.holds_buf, HOLD_BYTES);
	size_t at = cs_record_begin(&o);
	for (uint32_t i = 0; i < s.nowed; i++)
		cs_cpu_owed_encode(&o, &s.owed[i]); /* (OWED_SLOTS entries fit: see its definition) */
	if (s.nowed && cs_record_end(&o, at, CS_REC_CPU_OWED))
		lw_append(o.buf, o.len, 1);
	s.nowed = 0;
}

static void stage_commit(void)
{
	sym_flush_defs(sym_defs()); /* definitions before the samples that use them */
	if (s.stage_open && cs_record_end(&s.stage, s.stage_at, CS_REC_TICKS))
		lw_append(s.stage.buf, s.stage.len, 1);
	write_owed();
	s.stage.len = 0;
	s.stage_open = false;
	uint64_t now = agent_mono_ns();
	if (now - s.holds_flushed_ns >= HOLD_FLUSH_NS || !atomic_load(&s.sampling)) {
		s.holds_flushed_ns = now;
		write_holds(true);
	}
}

/* Adds a sample of a still thread to its run; false when it cannot be
 * held (the table is full: then it is written as an ordinary sample). */
static bool hold_sample(uint64_t ref, uint64_t stack, uint64_t tick_us)
{
	uint64_t period_us = agent_period_ns(atomic_load(&s.rate_hz)) / 1000;
	uint32_t j = (uint32_t)((ref * 0x9E3779B97F4A7C15ull) >> 52) & (HOLD_SLOTS - 1);
	for (uint32_t k = 0; k < HOLD_SLOTS; k++, j = (j + 1) & (HOLD_SLOTS - 1)) {
		struct hold *h = &s.holds[j];
		if (h->used && h->ref != ref)
			continue;
		if (h->used) {
			/* the same run: same stack, the next tick (ticks come at
			 * random gaps of up to 1.5 periods, later under load: a run
			 * is not cut for that), not too long */
			if (h->stack == stack && tick_us - h->last_us <= CS_HOLD_MAX_GAP_PERIODS * period_us &&
			    h->count < CS_HOLD_MAX_COUNT) {
				h->count++;
				h->last_us = tick_us;
				return true;
			}
			/* a new run of this thread (in the same slot): the old one
			 * is written first */
			end_hold(h);
			*h = (struct hold){ref, stack, tick_us, tick_us, 1, true};
			return true;
		}
		*h = (struct hold){ref, stack, tick_us, tick_us, 1, true};
		s.held[s.nheld++] = j;
		return true;
	}
	return false;
}

static void stage_open(uint64_t now_ns)
{
	s.stage.len = 0;
	s.stage.overflow = false;
	s.stage_at = cs_record_begin(&s.stage);
	s.stage_last_us = 0; /* the first tick carries its absolute time */
	s.stage_open_ns = now_ns;
	s.stage_open = true;
}

/* A walk as the profiling API's unwinder reports it: without dynamic
 * methods (it gives no frame to a method without metadata), and one
 * frame for a run of native frames. */
static uint32_t as_snapshot_reports(const FunctionID *in, uint32_t n, FunctionID *out)
{
	ICorProfilerInfo10 *info = g_agent.info;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		BOOL dynamic = FALSE;
		if (in[i] && SUCCEEDED(info->vtbl->IsFunctionDynamic(info, in[i], &dynamic)) && dynamic)
			continue;
		if (!in[i] && k && !out[k - 1])
			continue;
		out[k++] = in[i];
	}
	return k;
}

/* The checks of this tick, with the runtime running again: each exact
 * walk's managed part against the fast unwinder's walk of the same stack
 * from the same registers. */
static void run_checks(uint32_t nslots)
{
	static FunctionID fast[MAX_DEPTH], exact_frames[MAX_DEPTH];
	static uint64_t fast_addrs[MAX_DEPTH];
	uint32_t pool_end = 0;
	for (uint32_t t = 0; t < nslots; t++)
		if (s.slots[t].start + s.slots[t].n > pool_end)
			pool_end = s.slots[t].start + s.slots[t].n;
	for (uint32_t i = 0; i < s.nchecks; i++) {
		const struct check *c = &s.checks[i];
		struct sig_walk *exact = &s.slots[c->slot];
		if (c->first >= exact->n)
			continue;
		struct stack_copy copy = {c->regs.sp, c->len, c->stack};
		struct unwind_out out = {s.check_frames, 0, MAX_DEPTH, UNWIND_EXACT, 0, false, fast_addrs, false};
		unwind_stack(&c->regs, true, &copy, &out, sigsampler_trail(exact->thread)); /* as the fast walks are */
		const FunctionID *want = s.pool + exact->start + c->first;
		uint32_t nwant = exact->n - c->first;
		if (out.verdict == UNWIND_BROKEN)
			continue; /* never a sample: the runtime walks such a thread instead */
		uint32_t nfast = as_snapshot_reports(out.frames, out.n, fast);
		nwant = as_snapshot_reports(want, nwant, exact_frames);
		bool same = out.verdict != UNWIND_TRUNCATED && nfast == nwant &&
			    memcmp(fast, exact_frames, nwant * sizeof *want) == 0;
		if (same && out.n != exact->n - c->first && pool_end + c->first + out.n <= FRAME_POOL) {
			/* the same but for the dynamic methods only the fast walk has:
			 * the sample is the fast walk under the exact one's native leaf */
			memcpy(s.pool + pool_end, s.pool + exact->start, c->first * sizeof *s.pool);
			memcpy(s.addrs + pool_end, s.addrs + exact->start, c->first * sizeof *s.addrs);
			memcpy(s.pool + pool_end + c->first, out.frames, out.n * sizeof *s.pool);
			memcpy(s.addrs + pool_end + c->first, fast_addrs, out.n * sizeof *s.addrs);
			s.addrs[pool_end + c->first] = s.addrs[exact->start + c->first]; /* (a call's, or the leaf's) */
			exact->start = pool_end;
			exact->n = c->first + out.n;
			pool_end += exact->n;
		}
		s.stats.stack_checks++;
		if (!same && s.stats.stack_mismatches++ < 20) {
			agent_debug("stack check: fast walk differs (%u frames, verdict %d; exact %u frames from ip %#lx)",
				    out.n, out.verdict, nwant, (unsigned long)c->regs.ip);
			for (uint32_t k = 0; k < nfast || k < nwant; k++)
				agent_debug("  %3u fast %#lx exact %#lx", k, k < nfast ? (unsigned long)fast[k] : 0ul,
					    k < nwant ? (unsigned long)exact_frames[k] : 0ul);
		}
	}
	s.nchecks = 0;
}

static void write_tick(const uint64_t *refs, const uint64_t *stacks, uint32_t nslots, uint64_t tick_us,
		       uint64_t suspend_ns, uint64_t now_ns);

/* The time since *lap, which moves to now: a tick's parts, timed for
 * STATUS (what the sampler thread spends its time on). */
static uint64_t since(uint64_t *lap)
{
	uint64_t now = agent_mono_ns();
	uint64_t d = now - *lap;
	*lap = now;
	return d;
}

#define OWN_CPU_EVERY_NS 100000000ull

/* The sampler's counts for the next STATUS record (publish_stats: at most
 * every PUBLISH_EVERY_NS, half the shortest flush, which is when the
 * writer reads them: not every tick). */
#define PUBLISH_EVERY_NS 5000000ull
static void publish_stats_now(void)
{
	struct sig_stats sig = sigsampler_stats();
	s.stats.signals = sig.signals;
	s.stats.signals_waiting = sig.found_waiting;
	s.stats.waiting_read = sig.waiting_read;
	s.stats.kernel_samples = sig.kernel_samples;
	s.stats.kernel_lost = sig.kernel_lost;
	s.stats.beyond_copy = sig.kernel_truncated + sig.past_copy;
	s.stats.unwind_ns = sig.unwind_ns;
	s.stats.handler_cpu_ns = sigsampler_handler_ns();
	s.stats.parked_kept = still_stats().parked_kept;
	uint64_t now = agent_mono_ns(), cpu;
	if (now - s.cpu_read_ns >= OWN_CPU_EVERY_NS && (cpu = agent_clock_ns(CLOCK_THREAD_CPUTIME_ID))) {
		s.cpu_read_ns = now;
		s.stats.sampler_cpu_ns = cpu;
	}
	struct cs_status status = s.stats; /* (the checks of reads in place are the signal sampler's) */
	status.stack_checks += sig.waiting_checks;
	status.stack_mismatches += sig.waiting_mismatches;
	lw_set_sampler_stats(&status);
}

static void publish_stats(uint64_t now_ns)
{
	if (now_ns - s.published_ns < PUBLISH_EVERY_NS)
		return;
	s.published_ns = now_ns;
	publish_stats_now();
}

/* A capture of a thread whose frames a proof kept (the validate dial's
 * turn): caught at the site the proof found it, it has the frames the
 * proof kept, or the proof was wrong.  Caught elsewhere, it moved after
 * the proof (in the microseconds before its signal): no comparison. */
static void check_parked(struct still_thread *known, const struct sig_walk *capture, uint64_t stack)
{
	uint64_t kept = known->parked_check;
	known->parked_check = 0;
	if (!kept || !syscall_site_same(&known->parked_check_site, &capture->wait))
		return;
	s.stats.stack_checks++;
	if (stack != kept && s.stats.stack_mismatches++ < 20)
		agent_debug("stack check: frames kept by proof (stack %llu) differ from a capture at the same site "
			    "(stack %llu, ip %#lx)",
			    (unsigned long long)kept, (unsigned long long)stack, (unsigned long)capture->wait.pc);
}

/* How many on-CPU samples a thread's sample of this tick is (0: off the
 * CPU).  Each period of CPU time a thread uses by its own clock (kernel
 * time in system calls too) is one on-CPU sample, so on-CPU samples add up
 * to CPU time as a CPU-time timer's would (e2e.cpu_wall checks it).  The
 * time it used since its last on-CPU sample is its credit:
 *  - a capture that finds it running spends the whole credit, in periods:
 *    the tick's sample and, past one period, more (CPU_OWED) at the same
 *    place.  A thread that works in bursts shorter than a tick is mostly
 *    found back in its wait; the captures that do find it running are no
 *    less fair a sample of where it runs (their instants are drawn at
 *    random), so they stand for the time the others missed (counted as one
 *    each, a bursty thread's on-CPU samples would fall short of its CPU
 *    time);
 *  - a capture that found it waiting in a system call (waiting), or just
 *    back from one that waits (woke: the signal came as it waited, or as
 *    it waited for a CPU), is off the CPU, unless it woke after using the
 *    most credit kept with no capture that found it running: then that
 *    capture stands for all of it (a thread that polls or yields in a loop
 *    runs there; one whose CPU time is mostly the kernel's as its wait
 *    returns, as the socket engine's in epoll_wait, is hardly ever caught
 *    elsewhere);
 *  - a thread with less than half a period of credit is off the CPU.
 * The signal sampler signals only threads that used a period of CPU: on. */
#define CREDIT_MAX_PERIODS 8
static uint32_t on_cpu_samples(struct still_thread *known, uint64_t period_ns, bool waiting, bool woke,
			       uint32_t kernel)
{
	if (kernel > CS_CPU_OWED_MAX_COUNT + 1)
		kernel = CS_CPU_OWED_MAX_COUNT + 1; /* (ticks that long apart: the rest is lost) */
	if (!known || !known->clock)
		return kernel ? kernel : 1;
	uint64_t now = known->cpu_now;
	if (known->kernel_sampled) {
		/* its CPU time is the kernel's samples' (each capture of theirs
		 * the latest of `kernel` since the tick before), but for periods
		 * they missed (its time in the kernel), which a signal sent for
		 * it stands for: one if it found the thread running, all of them
		 * if it found it just back from its wait after the most credit
		 * kept (see take_kernel_instant); the credit starts afresh
		 * should signals take over */
		known->cpu_credit = 0;
		known->cpu_accounted = now;
		if (kernel)
			return kernel;
		bool paid = known->paying && !waiting;
		known->paying = false;
		if (!paid)
			return 0;
		uint32_t n = 1;
		if (woke) { /* just back from its wait: only for all it used there (see take_kernel_instant) */
			uint64_t owed = sigsampler_kernel_unsampled(known->os_tid, known->thread, now);
			if (owed < CREDIT_MAX_PERIODS * period_ns)
				return 0;
			n = (uint32_t)(owed / period_ns);
			n = n > CS_CPU_OWED_MAX_COUNT + 1 ? CS_CPU_OWED_MAX_COUNT + 1 : n;
		}
		sigsampler_kernel_counted(known->os_tid, known->thread, n);
		return n;
	}
	if (!known->cpu_accounted || now < known->cpu_accounted)
		known->cpu_accounted = known->cpu_before && known->cpu_before <= now ? known->cpu_before : now;
	known->cpu_credit += (int64_t)(now - known->cpu_accounted);
	known->cpu_accounted = now;
	int64_t most = (int64_t)(CREDIT_MAX_PERIODS * period_ns);
	if (known->cpu_credit > most)
		known->cpu_credit = most; /* (time no capture found running for long: lost) */
	if (kernel) { /* the kernel took it after each period of the thread's CPU time */
		known->cpu_credit -= (int64_t)(kernel * period_ns);
		return kernel;
	}
	if (waiting || known->cpu_credit * 2 < (int64_t)period_ns)
		return 0;
	if (woke && known->cpu_credit < most)
		return 0;
	/* up to two periods are kept for the ticks to come: a thread that runs
	 * all the time is on the CPU at each of them, however they are spaced
	 * (paying all at a late tick would leave the next one, early, with too
	 * little: off the CPU where it ran) */
	uint64_t whole = (uint64_t)known->cpu_credit / period_ns;
	uint32_t n = whole > 2 ? (uint32_t)(whole - 1) : 1;
	known->cpu_credit -= (int64_t)(n * period_ns);
	return n;
}

/* On-CPU samples past a tick's own (see on_cpu_samples), written after the
 * tick's record. */
static void owe_cpu(uint64_t ref, uint64_t stack, uint64_t tick_us, uint32_t more)
{
	if (s.nowed == OWED_SLOTS)
		stage_commit();
	s.owed[s.nowed++] = (struct cs_cpu_owed){ref, stack, tick_us, more};
}

static struct sym_memo *memo_of(ThreadID thread)
{
	struct thread_memo *m = &s.memos[(thread * 0x9E3779B97F4A7C15ull) >> 58 & (MEMO_THREADS - 1)];
	if (m->thread != thread) {
		m->thread = thread;
		m->memo.n = 0;
		m->memo.ids_stamp = 0;
	}
	return &m->memo;
}

/* After ResumeRuntime: turn the copied FunctionIDs into ids and log them.
 * A capture that stood for several ticks (its thread sat with the signal
 * pending) gives that many samples. */
static void record_tick(uint32_t nslots, uint64_t tick_us, uint64_t suspend_ns, uint64_t now_ns)
{
	struct sym_defs *defs = sym_defs();

	static uint64_t refs[2 * MAX_THREADS], stacks[2 * MAX_THREADS], slot_stacks[MAX_THREADS];
	bool still[MAX_THREADS];
	for (uint32_t t = 0; t < nslots; t++) {
		struct sig_walk *slot = &s.slots[t];
		struct still_thread *known = s.known[t];
		still[t] = known && slot->n == 0;
		if (still[t]) {
			stacks[t] = known->stack; /* captures come first: theirs is interned */
		} else {
			s.stats.truncated_stacks += slot->truncated;
			stacks[t] = sym_stack_of_memo(s.pool + slot->start, s.addrs + slot->start, slot->n,
						      slot->truncated, !slot->captured, &slot->act, defs,
						      memo_of(slot->thread));
			if (known && slot->captured) {
				check_parked(known, slot, stacks[t]);
				known->stack = stacks[t];
			} else if (known)
				still_walked(known, stacks[t]);
		}
		refs[t] = sym_thread(slot->thread);
		slot_stacks[t] = stacks[t];
	}
	if (sym_defs_pending() >= DEFS_FLUSH_BYTES)
		sym_flush_defs(defs); /* else with the staged samples, in one record each */
	/* still threads' samples go into their runs; the others into the tick,
	 * each on or off the CPU */
	uint64_t period_ns = agent_period_ns(atomic_load(&s.rate_hz));
	uint32_t n = 0, samples = 0;
	for (uint32_t t = 0; t < nslots; t++) {
		if (still[t] && stacks[t] == STILL_STACK_PENDING)
			continue; /* cannot happen: its capture was not in this tick */
		samples++;
		if (still[t] && hold_sample(refs[t], stacks[t], tick_us))
			continue;
		refs[n] = refs[t];
		const struct sig_walk *w = &s.slots[t];
		uint32_t on = still[t] ? 0
				       : on_cpu_samples(s.known[t], period_ns, w->captured && w->blocked,
							w->captured && w->woke, w->kernel_periods);
		if (on > 1)
			owe_cpu(refs[t], stacks[t], tick_us, on - 1);
		stacks[n] = cs_tick_stack_state(stacks[t], on == 0);
		n++;
	}
	for (uint32_t t = 0; t < nslots; t++) {
		const struct sig_walk *slot = &s.slots[t];
		/* the ticks its thread sat with the signal pending: not running */
		for (uint32_t k = 1; slot->captured && k < slot->weight && n < 2 * MAX_THREADS; k++) {
			refs[n] = sym_thread(slot->thread);
			stacks[n] = cs_tick_stack_state(slot_stacks[t], true);
			n++;
			samples++;
		}
	}
	s.stats.ticks++;
	s.stats.samples += samples;
	write_tick(refs, stacks, n, tick_us, suspend_ns, now_ns);
}

/* The tick's TICKS entry (ordinary samples only; stacks carry the
 * off-CPU bit). */
static void write_tick(const uint64_t *refs, const uint64_t *stacks, uint32_t nslots, uint64_t tick_us,
		       uint64_t suspend_ns, uint64_t now_ns)
{
	if (!s.stage_open)
		stage_open(now_ns);
	size_t before = s.stage.len;
	cs_put_varint(&s.stage, tick_us - s.stage_last_us);
	cs_put_varint(&s.stage, suspend_ns);
	cs_put_varint(&s.stage, nslots);
	for (uint32_t t = 0; t < nslots; t++) {
		cs_put_varint(&s.stage, refs[t]);
		cs_put_varint(&s.stage, stacks[t]);
	}
	if (s.stage.overflow) {
		/* a tick larger than what is left: send what we have, retry once */
		s.stage.overflow = false;
		s.stage.len = before;
		stage_commit();
		if (before > CS_REC_HEADER_LEN) {
			write_tick(refs, stacks, nslots, tick_us, suspend_ns, now_ns);
			return;
		}
		return; /* a single tick too large for a record: skip it */
	}
	s.stage_last_us = tick_us;
	if (s.stage.len >= STAGE_COMMIT_BYTES || now_ns - s.stage_open_ns >= STAGE_COMMIT_NS)
		stage_commit();
}

/* A tick of the signal sampler: no suspension; what the busy threads'
 * handlers caught since the previous tick. */
static void take_tick_signal(void)
{
	uint64_t t0 = agent_mono_ns(), lap = t0, unwound = sigsampler_stats().unwind_ns;
	uint32_t n = sigsampler_tick(atomic_load(&s.rate_hz), s.pool, s.addrs, FRAME_POOL, s.slots, MAX_THREADS, MAX_DEPTH);
	memset(s.known, 0, n * sizeof *s.known); /* every stack is new */
	s.stats.signal_ns += since(&lap) - (sigsampler_stats().unwind_ns - unwound); /* (its clocks too) */
	record_tick(n, (t0 - g_agent.start_mono_ns) / 1000, 0, lap);
	s.stats.record_ns += since(&lap);
	publish_stats(lap);
}

/* The stacks of still threads, as they were at their last walk. */
static uint32_t reuse_still_stacks(uint32_t nslots)
{
	uint32_t n;
	struct still_thread *all = still_threads(&n);
	for (uint32_t i = 0; i < n && nslots < MAX_THREADS; i++) {
		if (!all[i].still || !all[i].stack)
			continue;
		s.known[nslots] = &all[i];
		s.slots[nslots++] = (struct sig_walk){all[i].thread, 0, 0, false};
	}
	return nslots;
}

/* However slowly the runtime stops (threads waiting for a core to reach a
 * safe point, a debugger), it stays suspended at most a tenth of the time:
 * a budget grows by a tenth of the time that passes (up to a little in
 * store), each suspension spends its length, and while the budget is spent
 * the walks are put off (and counted). */
#define SUSPEND_SHARE 10
#define SUSPEND_BUDGET_MAX_NS 10000000

static bool suspension_allowed(void)
{
	uint64_t now = agent_mono_ns();
	if (s.budget_at_ns) {
		s.budget_ns += (int64_t)((now - s.budget_at_ns) / SUSPEND_SHARE);
		if (s.budget_ns > SUSPEND_BUDGET_MAX_NS)
			s.budget_ns = SUSPEND_BUDGET_MAX_NS;
	}
	s.budget_at_ns = now;
	return s.budget_ns > 0;
}

/* A short time slice for the sampler thread (EEVDF's own slice, Linux 6.12
 * and later; older kernels ignore it): woken when every CPU is busy, it
 * preempts a running thread at once instead of waiting for one to stop or
 * park.  Were it to wait, its ticks would come as a worker parks and frees
 * a CPU, and the signals drawn from then on would find the worker's bursts
 * over: a bursty thread's work would be undersampled (e2e.parked measures
 * Burst's share of the worker's samples).  Not while it suspends the
 * runtime: its waits for the threads to reach safe points are 16 us
 * sleeps, and each wake would take a CPU from a thread that needs one to
 * get there (threads spinning on fewer CPUs, sampled by suspension, would
 * lose a good part of their samples).  Its CPU share is not raised; the
 * thread's nice value and policy stay.  Sampler thread only. */
#define SAMPLER_SLICE_NS 100000ull /* the shortest the kernel allows */
struct sched_attr_v0 { /* the first 48 bytes of the uapi's struct sched_attr (its header clashes with sched.h) */
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};
static void use_short_slice(bool on)
{
	static int now = -1;
	if (now == (int)on)
		return;
	now = on;
	struct sched_attr_v0 a;
	memset(&a, 0, sizeof a);
	if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0u) != 0 || a.sched_policy != SCHED_OTHER)
		return;
	a.size = sizeof a;
	a.sched_flags = 0;
	a.sched_runtime = on ? SAMPLER_SLICE_NS : 0; /* 0: the kernel's own */
	if (syscall(SYS_sched_setattr, 0, &a, 0u) != 0 && on)
		agent_debug("no short time slice for the sampler thread: %s", strerror(errno));
}

/* Suspends the runtime and walks the threads that ran (but for those a
 * signal samples), after the *nslots slots and used frames already taken;
 * false when the runtime could not be suspended. */
static bool walk_suspended(uint32_t *nslots, uint32_t used, uint64_t *suspend_ns)
{
	ICorProfilerInfo10 *info = g_agent.info;
	use_short_slice(false); /* (until the next tick) */
	uint64_t t0 = agent_mono_ns();
	HRESULT hr = info->vtbl->SuspendRuntime(info);
	if (FAILED(hr)) {
		/* e.g. a GC is suspending right now, or the runtime is not up yet */
		if (s.failed_suspends++ == 0)
			agent_debug("SuspendRuntime failed: 0x%08x", (unsigned)hr);
		return false;
	}
	uint32_t failed = 0;
	s.nchecks = 0;
	*nslots = walk_moved_threads(*nslots, used, &failed);
	info->vtbl->ResumeRuntime(info);
	uint64_t t1 = agent_mono_ns();
	*suspend_ns = t1 - t0;
	s.budget_ns -= (int64_t)*suspend_ns;
	s.stats.suspend_total_ns += *suspend_ns;
	if (*suspend_ns > s.stats.suspend_max_ns)
		s.stats.suspend_max_ns = *suspend_ns;
	s.stats.failed_walks += failed;
	return true;
}

/* A tick of the suspending sampler: every thread's stack, walked while the
 * runtime is suspended unless the thread has not run since its last walk;
 * no suspension at all when no thread ran. */
static void take_tick_suspend(void)
{
	uint64_t t0 = agent_mono_ns(), lap = t0;
	uint64_t suspend_ns = 0;
	uint32_t nslots = 0;
	int moved = still_survey(0);
	s.stats.survey_ns += since(&lap);
	if (moved != 0 && !suspension_allowed()) {
		s.stats.deferred_walks += moved > 0 ? (uint64_t)moved : 0;
		publish_stats(lap);
		return; /* the whole tick, not a tick of the still threads only */
	}
	if (moved == 0 || activity_in_gc_suspension()) {
		/* during a GC only the collecting thread runs, and no walk can be
		 * had before the GC ends: the others' samples, as they wait */
		s.stats.deferred_walks += moved > 0 ? (uint64_t)moved : 0;
		nslots = reuse_still_stacks(0);
	} else if (!walk_suspended(&nslots, 0, &suspend_ns)) {
		return; /* not suspended: no tick */
	}
	since(&lap); /* (the suspension has a figure of its own) */
	record_tick(nslots, (t0 - g_agent.start_mono_ns) / 1000, suspend_ns, lap);
	s.stats.record_ns += since(&lap);
	publish_stats(lap);
}

/* Under the kernel sampler a thread's samples are of two kinds, each the
 * truth at its own moment: the kernel's, one per period of CPU time in its
 * own code, and, at each tick, where it is then: waiting (read in place),
 * waiting for a CPU (signalled: captured where it stopped), or on a CPU.
 * Its time on a CPU is what the kernel's samples stand for (a tick keeps
 * the latest, which stands for all since the tick before), so a tick that
 * finds it there adds none, unless a period of its CPU time has no sample
 * (it was in the kernel, which they leave out): then a signal, whose
 * capture on the CPU stands for it.
 * The kernel's sample in place of the tick's moment would count a bursty
 * thread's work twice (e2e.parked measures Burst's share under the kernel
 * sampler).  The thread is on a CPU if its clock moved since the survey read
 * it (tens of microseconds before: one that parks in between counts as on
 * a CPU once), or if the sampler thread took its CPU (sigsampler_instant).
 * False: walk it. */
static bool take_kernel_instant(struct still_thread *t, uint32_t check_every)
{
	uint64_t period = agent_period_ns(atomic_load(&s.rate_hz));
	switch (sigsampler_instant(t->os_tid, t->thread, t->cpu_now, check_every)) {
	case INSTANT_READ:
		return true;
	case INSTANT_ON_CPU:
		if (t->paying || sigsampler_kernel_unsampled(t->os_tid, t->thread, t->cpu_now) < period)
			return true;
		t->paying = sigsampler_signal(t->os_tid, t->thread);
		return t->paying;
	default:
		/* waiting for a CPU: a capture just back from its wait stands
		 * for the kernel's time there if the thread has used the most
		 * credit kept with no sample (its CPU time mostly the kernel's as
		 * its wait returns, as WebHash's socket engine's: were only
		 * captures on a CPU to pay, most of that time would have no CPU
		 * sample) */
		if (!sigsampler_signal(t->os_tid, t->thread))
			return false;
		t->paying = sigsampler_kernel_unsampled(t->os_tid, t->thread, t->cpu_now) >=
			    CREDIT_MAX_PERIODS * period;
		return true;
	}
}

/* A capture for this tick of a thread that ran: under the kernel sampler,
 * the kernel's sample and the tick's moment (above); else, if it waits,
 * its stack read where it waits (only after little CPU, see
 * still_little_cpu), else a signal.  False: walk it. */
static bool take_capture(struct still_thread *t, bool kernel, uint32_t check_every)
{
	enum kernel_capture k = kernel ? sigsampler_kernel_capture(t->os_tid, t->thread, atomic_load(&s.rate_hz),
								    s.last_tick_ns)
				       : KERNEL_OFF;
	t->kernel_sampled = k != KERNEL_OFF;
	if (t->kernel_sampled)
		return take_kernel_instant(t, check_every);
	if (still_little_cpu(t) && sigsampler_read_waiting(t->os_tid, t->thread, check_every))
		return true;
	return sigsampler_signal(t->os_tid, t->thread);
}

/* A tick of the mixed sampler:
 *  - the threads that ran since the last survey are signalled, however
 *    briefly they ran, and their captures arrive by the next tick: a
 *    signal is cheaper than a suspension even for a thread that ran
 *    briefly and is parked again, since the suspension stops every thread
 *    (the runtime's suspended time is in the cost lines of clrscope
 *    report);
 *  - still threads keep their stacks: a capture tells where its thread
 *    stays until it runs again.  A thread caught in a wait that is in that
 *    wait again, with the stack words its walk read unchanged, is still
 *    however long it ran in between (see CAPTURE_SLACK_NS), and one whose
 *    signal is still pending has not run since it was sent, so its capture
 *    stands for this tick too, up to the instant it is taken
 *    (sigsampler_extend; walking it instead would make it run to a safe
 *    point first, where the runtime's walk of an OSR frame loses its
 *    caller);
 *  - the others (new threads, threads that stopped after a signal, and the
 *    walks that are checks) are walked in a suspension, which a tick
 *    without them does not need.  A capture that gives no sample (a
 *    managed frame the unwinder could not place, or native frames it could
 *    not follow to the thread's first) has its thread walked exactly in
 *    this tick's suspension instead; after a few in a row the thread is
 *    walked instead of signalled for a while. */
#define UNMANAGED_RUN_LIMIT 4
#define WALK_ONLY_SURVEYS 64
static void take_tick_mixed(void)
{
	uint64_t t0 = agent_mono_ns();
	bool kernel = atomic_load(&s.mode) == SAMPLER_KERNEL;
	uint32_t nretry = 0;
	uint32_t nslots = sigsampler_collect(s.pool, s.addrs, FRAME_POOL, s.slots, MAX_THREADS, MAX_DEPTH, s.unmanaged,
					     &nretry, MAX_THREADS);
	uint32_t used = 0, kept = 0;
	for (uint32_t t = 0; t < nslots; t++) {
		struct sig_walk w = s.slots[t];
		if (w.start + w.n > used)
			used = w.start + w.n;
		struct still_thread *known = still_find(w.thread);
		if (known) {
			known->unmanaged_run = 0;
			/* before the survey, which asks whether it ran since */
			still_captured(known, w.cpu_end, &w.wait, w.n ? STILL_STACK_PENDING : 0);
			known->paying &= w.n != 0; /* (no sample to stand for the period) */
		}
		if (!w.n)
			continue; /* no managed frame to its root: no sample */
		s.slots[kept++] = w;
	}
	nslots = kept;
	s.stats.failed_walks += nretry;
	for (uint32_t i = 0; i < nretry; i++) {
		struct still_thread *t = still_find(s.unmanaged[i]);
		if (!t)
			continue;
		t->walk_now = true;
		t->paying = false;
		if (++t->unmanaged_run >= UNMANAGED_RUN_LIMIT) {
			t->walk_only = WALK_ONLY_SURVEYS;
			t->unmanaged_run = 0;
		}
	}
	uint32_t walks = 0, nwanting = 0;
	static struct still_thread *wanting[MAX_THREADS]; /* (no more threads than slots) */
	bool checks_due = false;
	uint64_t lap = agent_mono_ns();
	uint32_t every = atomic_load(&s.validate); /* the validate dial, once a tick */
	int moved = still_survey(every);
	s.stats.survey_ns += since(&lap);
	for (uint32_t t = 0; t < nslots; t++)
		s.known[t] = still_find(s.slots[t].thread); /* the survey's own list now */
	if (moved != 0) {
		uint32_t n;
		struct still_thread *all = still_threads(&n);
		for (uint32_t i = 0; i < n; i++) {
			struct still_thread *t = &all[i];
			bool walk_now = t->walk_now;
			t->walk_now = false;
			if (t->still && !walk_now)
				continue;
			t->still = false;
			/* pending and not run (frozen where the handler will catch it),
			 * or its signal's instant only just came (a thread waiting for a
			 * CPU has not taken it yet): the capture to come stands for this
			 * tick too, if it comes after an instant drawn in the tick (else
			 * the capture after it); pending long after its instant while
			 * it ran: it blocks the signal, walk it instead */
			bool pending = !walk_now && sigsampler_pending(t->os_tid, t->thread);
			bool not_run = t->cpu_before && t->cpu_now == t->cpu_before;
			if (pending && (not_run || !sigsampler_overdue(t->os_tid, t->thread)) &&
			    sigsampler_extend(t->os_tid, t->thread)) {
				t->by_signal = true;
				continue;
			}
			bool running = t->cpu_before && t->cpu_now != t->cpu_before && !t->walk_only && !walk_now && !pending;
			if (running && every && !t->check_wanted && ++t->fast_walks >= every) {
				t->fast_walks = 0;
				t->check_wanted = true;
				t->check_waited = 0;
			}
			if (running && every && t->check_wanted && nwanting < MAX_THREADS) {
				checks_due |= t->check_waited++ >= every - 1;
				wanting[nwanting++] = t; /* decided below */
				continue;
			}
			/* a thread that has not run since the last tick, whose stack is
			 * not known (it ran on after its capture, or the kernel's sample
			 * was taken as it ran on): where it waits, it is read, with no
			 * suspension; one that waits for a CPU is signalled (its capture
			 * comes as it runs again, where it stopped: a suspension would
			 * wait for it to get a CPU too, with every thread stopped; such
			 * threads can make half the suspensions of a busy program, as
			 * of the C# compiler on two CPUs) */
			bool parked = not_run && !walk_now && !t->check_now && !pending;
			t->by_signal = running ? take_capture(t, kernel, every)
					       : parked && (sigsampler_read_waiting(t->os_tid, t->thread, 0) ||
							    sigsampler_signal(t->os_tid, t->thread));
			walks += !t->by_signal;
		}
	}
	/* The validate dial's checks: each one an exact walk in a suspension,
	 * which stops the whole program (on a busy machine for milliseconds:
	 * checks can make half the runtime's suspended time, as on the C#
	 * compiler on two CPUs).  A thread's check waits for a tick that suspends anyway, for as
	 * many fast walks again at most; then it suspends, for the checks
	 * waiting among the threads that ran (up to MAX_CHECKS a tick). */
	uint32_t checking = walks || checks_due ? MAX_CHECKS : 0;
	for (uint32_t i = 0; i < nwanting; i++) {
		struct still_thread *t = wanting[i];
		if (checking) {
			checking--;
			t->check_wanted = false;
			t->check_now = true; /* this tick: walked exactly, and checked */
			t->by_signal = false;
		} else {
			t->by_signal = take_capture(t, kernel, every);
		}
		walks += !t->by_signal;
	}
	s.stats.signal_ns += since(&lap);
	uint64_t suspend_ns = 0;
	bool walked = false; /* a walk takes the still threads' stacks too */
	if (walks && (activity_in_gc_suspension() || !suspension_allowed()))
		s.stats.deferred_walks += walks; /* (a GC has the runtime suspended: ours would wait for its end) */
	else if (walks)
		walked = walk_suspended(&nslots, used, &suspend_ns);
	if (!walked)
		nslots = reuse_still_stacks(nslots);
	since(&lap); /* (the suspension has a figure of its own) */
	run_checks(nslots);
	record_tick(nslots, (t0 - g_agent.start_mono_ns) / 1000, suspend_ns, lap);
	s.stats.record_ns += since(&lap);
	publish_stats(lap);
	s.last_tick_ns = t0;
}

static void take_tick(void)
{
	int mode = atomic_load(&s.mode);
	use_short_slice(mode != SAMPLER_SUSPEND);
	/* the kernel's sampling of the threads ends with the kernel sampler */
	sigsampler_kernel_keep(mode == SAMPLER_KERNEL);
	switch (mode) {
	case SAMPLER_SIGNAL:
		take_tick_signal();
		break;
	case SAMPLER_MIXED:
	case SAMPLER_KERNEL:
		take_tick_mixed();
		break;
	default:
		take_tick_suspend();
		break;
	}
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
	if (atomic_load(&s.mode) == SAMPLER_SIGNAL && still_survey(0) < 0)
		return; /* (the other samplers survey every tick) */
	uint32_t n;
	struct still_thread *all = still_threads(&n);
	uint8_t buf[THREAD_CPU_BYTES];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	cs_thread_cpu_head_encode(&o, agent_now_us());
	size_t head = o.len;
	for (uint32_t i = 0; i < n; i++) {
		struct still_thread *t = &all[i];
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

/* The gap to the next tick: the period drawn uniformly from [P/2, 3P/2).
 * Ticks on an exact grid alias with work that repeats in step with it (a
 * frame loop, a timer, a round that takes P/12): the same phase of every
 * round is sampled and a true 3:1 split reads 1193:5. Random gaps keep the
 * mean rate and sample every phase alike (e2e.cpu_ratio checks such a
 * split). */
static uint64_t jittered_period(uint64_t period)
{
	static uint64_t state; /* the sampler thread is the only user */
	return period / 2 + agent_random_below(&state, period);
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

	uint64_t next = agent_mono_ns(), gap = 0;
	unloads_hold();
	unloads_sampler_running(true);
	unloads_release();
	while (!atomic_load(&s.stop)) {
		bool sampling = atomic_load(&s.sampling);
		/* without sampling, still wake to pass events on */
		uint64_t period = sampling ? agent_period_ns(atomic_load(&s.rate_hz)) : IDLE_WAKE_NS;
		uint64_t now = agent_mono_ns();
		next += gap ? gap : sampling ? jittered_period(period) : period; /* gap: drawn at the last tick */
		gap = 0;
		if (next + period < now)
			next = now + period; /* fell behind (a long GC): skip, don't burst */
		sleep_until(next, now);
		if (atomic_load(&s.stop))
			break;
		/* from the walks to the names, and the drain: the runtime's IDs stay
		 * good until the guard is given back (unloads.h) */
		unloads_hold();
		if (sampling) {
			/* drawn now: this tick's signals land before the next one */
			gap = jittered_period(period);
			sigsampler_set_deadline(next + gap);
			take_tick();
		} else {
			stage_commit(); /* what was staged before sampling stopped */
			if (s.published_ns) { /* ... and its last counts */
				publish_stats_now();
				s.published_ns = 0;
			}
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
	sigsampler_release();
	stage_commit();
	write_holds(true); /* whatever is still open: the log ends here */
	drain_events(true);
	unloads_sampler_running(false);
	unloads_release();
	s.cpu_read_ns = 0; /* the last reading of its own clock */
	publish_stats_now();

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
	if (mode != SAMPLER_SUSPEND && sigsampler_init(why, whylen) < 0)
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
	if (!s.pool)
		s.pool = malloc(FRAME_POOL * sizeof *s.pool);
	if (!s.slots)
		s.slots = malloc(MAX_THREADS * sizeof *s.slots);
	if (!s.known)
		s.known = malloc(MAX_THREADS * sizeof *s.known);
	if (!s.unmanaged)
		s.unmanaged = malloc(MAX_THREADS * sizeof *s.unmanaged);
	if (!s.stage_buf)
		s.stage_buf = malloc(STAGE_BYTES);
	if (!s.addrs)
		s.addrs = malloc(FRAME_POOL * sizeof *s.addrs);
	if (!s.check_frames)
		s.check_frames = malloc(MAX_DEPTH * sizeof *s.check_frames);
	if (!s.holds)
		s.holds = calloc(HOLD_SLOTS, sizeof *s.holds);
	if (!s.held)
		s.held = malloc(HOLD_SLOTS * sizeof *s.held);
	if (!s.holds_buf)
		s.holds_buf = malloc(HOLD_BYTES);
	if (!s.ended)
		s.ended = malloc(HOLD_SLOTS * sizeof *s.ended);
	if (!s.memos)
		s.memos = calloc(MEMO_THREADS, sizeof *s.memos);
	for (uint32_t i = 0; i < MAX_CHECKS; i++)
		if (!s.checks[i].stack)
			s.checks[i].stack = malloc(CHECK_STACK);
	if (!s.pool || !s.slots || !s.known || !s.unmanaged || !s.stage_buf || !s.addrs ||
	    !s.check_frames || !s.checks[MAX_CHECKS - 1].stack || !s.holds || !s.held || !s.holds_buf || !s.ended ||
	    !s.memos || codemap_init() != 0)
		return -1;
	s.nchecks = 0;
	for (uint32_t i = 0; i < s.nheld; i++)
		s.holds[s.held[i]].used = false; /* runs of a former attach were written or are gone */
	s.nheld = 0;
	s.nended = 0;
	memset(s.memos, 0, MEMO_THREADS * sizeof *s.memos); /* ids of a former attach */
	cs_out_init(&s.stage, s.stage_buf, STAGE_BYTES);
	s.stage_open = false;
	memset(&s.stats, 0, sizeof s.stats);
	s.cpu_read_ns = 0;
	s.failed_suspends = 0;
	s.budget_ns = SUSPEND_BUDGET_MAX_NS;
	s.budget_at_ns = 0;
	atomic_store(&s.rate_hz, rate_hz);
	atomic_store(&s.sampling, sampling);
	sigsampler_reset();
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
