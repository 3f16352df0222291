/* Walking threads with the runtime suspended (suspension.h). */
#include "agent/sampling/suspension.h"

#include <stdlib.h>
#include <string.h>

#include "agent/sampling/budget.h"
#include "agent/sampling/stillthreads.h"
#include "agent/sampling/timeslice.h"
#include "agent/symbols/activity.h"
#include "agent/unwind/memread.h"
#include "agent/unwind/stackwalk.h"
#include "agent/unwind/unwind.h"

#define CHECK_STACK MEMREAD_COPY_MAX /* stack bytes copied for one, as the signal handler does */

/* A thread walked exactly whose walk is repeated the fast way: the
 * registers of its innermost managed frame (DoStackSnapshot's context)
 * and a copy of its stack from there, taken while the runtime is
 * suspended, unwound after it resumes. */
struct check {
	uint32_t walk;  /* its exact walk in the tick */
	uint32_t first; /* where the innermost managed frame is in that walk */
	struct unwind_regs regs;
	uint32_t len;
	uint8_t *stack;
};

struct check_walk {
	struct walk w; /* first: walk_frame sees a struct walk */
	bool got;
	uint32_t first;
	struct unwind_regs regs;
};

static struct {
	struct check checks[SUSPENSION_MAX_CHECKS];
	uint32_t nchecks;
	FunctionID *check_frames;
	uint32_t failed_suspends;
	struct suspend_budget budget;
} sus;

int suspension_init(void)
{
	for (uint32_t i = 0; i < SUSPENSION_MAX_CHECKS; i++)
		if (!sus.checks[i].stack)
			sus.checks[i].stack = malloc(CHECK_STACK);
	if (!sus.check_frames)
		sus.check_frames = malloc(TICK_MAX_DEPTH * sizeof *sus.check_frames);
	if (!sus.checks[SUSPENSION_MAX_CHECKS - 1].stack || !sus.check_frames)
		return -1;
	sus.nchecks = 0;
	sus.failed_suspends = 0;
	sus.budget = budget_full();
	return 0;
}

bool suspension_allowed(void)
{
	return budget_allows(&sus.budget, agent_mono_ns());
}

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
static void walk_moved_threads(struct tick *t, uint32_t used, uint32_t *failed)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ICorProfilerThreadEnum *threads = NULL;
	*failed = 0;
	if (FAILED(info->vtbl->EnumThreads(info, &threads)) || !threads)
		return;
	ThreadID tid;
	ULONG fetched = 0;
	while (t->n < TICK_MAX_WALKS && used < TICK_FRAME_POOL &&
	       threads->vtbl->Next(threads, 1, &tid, &fetched) == S_OK && fetched == 1) {
		struct sampled_thread *known = still_find(tid);
		if (known && known->by_signal)
			continue; /* its sample is the signal's */
		if (known && known->still) {
			if (known->stack) { /* n == 0: the stack it had */
				t->walks[t->n++] = (struct sig_walk){.thread = tid, .known = known};
			}
			continue;
		}
		uint32_t room = TICK_FRAME_POOL - used;
		struct check_walk cw = {{t->pool + used, 0, room < TICK_MAX_DEPTH ? room : TICK_MAX_DEPTH, false,
					 t->addrs + used, false},
					false, 0, {0}};
		struct walk w;
		HRESULT hr;
		bool checked = known && known->check_now && sus.nchecks < SUSPENSION_MAX_CHECKS;
		if (checked) {
			hr = info->vtbl->DoStackSnapshot(info, tid, check_frame, COR_PRF_SNAPSHOT_REGISTER_CONTEXT, &cw,
							 NULL, 0);
			if (cw.got && SUCCEEDED(hr) && !cw.w.truncated) {
				struct check *c = &sus.checks[sus.nchecks++];
				c->walk = t->n;
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
		t->walks[t->n] = (struct sig_walk){.thread = tid, .start = used, .n = w.n, .truncated = w.truncated,
						   .known = known};
		if (known) /* read now: a thread compiling runs on through the suspension */
			activity_of(known->os_tid, &t->walks[t->n].act);
		t->n++;
		used += w.n;
	}
	threads->vtbl->Release(threads);
}

bool suspension_walk(struct tick *t, uint32_t used)
{
	ICorProfilerInfo10 *info = g_agent.info;
	timeslice_short(false); /* (until the next tick) */
	uint64_t t0 = agent_mono_ns();
	HRESULT hr = info->vtbl->SuspendRuntime(info);
	if (FAILED(hr)) {
		/* e.g. a GC is suspending right now, or the runtime is not up yet */
		if (sus.failed_suspends++ == 0)
			agent_debug("SuspendRuntime failed: 0x%08x", (unsigned)hr);
		return false;
	}
	uint32_t failed = 0;
	sus.nchecks = 0;
	walk_moved_threads(t, used, &failed);
	info->vtbl->ResumeRuntime(info);
	uint64_t t1 = agent_mono_ns();
	t->suspend_ns = t1 - t0;
	budget_spend(&sus.budget, t->suspend_ns);
	t->stats->suspend_total_ns += t->suspend_ns;
	if (t->suspend_ns > t->stats->suspend_max_ns)
		t->stats->suspend_max_ns = t->suspend_ns;
	t->stats->failed_walks += failed;
	return true;
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

void suspension_checks(struct tick *t)
{
	static FunctionID fast[TICK_MAX_DEPTH], exact_frames[TICK_MAX_DEPTH];
	static uint64_t fast_addrs[TICK_MAX_DEPTH];
	uint32_t pool_end = 0;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->walks[i].start + t->walks[i].n > pool_end)
			pool_end = t->walks[i].start + t->walks[i].n;
	for (uint32_t i = 0; i < sus.nchecks; i++) {
		const struct check *c = &sus.checks[i];
		struct sig_walk *exact = &t->walks[c->walk];
		if (c->first >= exact->n)
			continue;
		struct stack_copy copy = {c->regs.sp, c->len, c->stack};
		struct unwind_out out = {sus.check_frames, 0, TICK_MAX_DEPTH, UNWIND_EXACT, 0, false, fast_addrs, false};
		unwind_stack(&c->regs, true, &copy, &out, sigsampler_trail(exact->thread)); /* as the fast walks are */
		const FunctionID *want = t->pool + exact->start + c->first;
		uint32_t nwant = exact->n - c->first;
		if (out.verdict == UNWIND_BROKEN)
			continue; /* never a sample: the runtime walks such a thread instead */
		uint32_t nfast = as_snapshot_reports(out.frames, out.n, fast);
		nwant = as_snapshot_reports(want, nwant, exact_frames);
		bool same = out.verdict != UNWIND_TRUNCATED && nfast == nwant &&
			    memcmp(fast, exact_frames, nwant * sizeof *want) == 0;
		if (same && out.n != exact->n - c->first && pool_end + c->first + out.n <= TICK_FRAME_POOL) {
			/* the same but for the dynamic methods only the fast walk has:
			 * the sample is the fast walk under the exact one's native leaf */
			memcpy(t->pool + pool_end, t->pool + exact->start, c->first * sizeof *t->pool);
			memcpy(t->addrs + pool_end, t->addrs + exact->start, c->first * sizeof *t->addrs);
			memcpy(t->pool + pool_end + c->first, out.frames, out.n * sizeof *t->pool);
			memcpy(t->addrs + pool_end + c->first, fast_addrs, out.n * sizeof *t->addrs);
			t->addrs[pool_end + c->first] = t->addrs[exact->start + c->first]; /* (a call's, or the leaf's) */
			exact->start = pool_end;
			exact->n = c->first + out.n;
			pool_end += exact->n;
		}
		t->stats->stack_checks++;
		if (!same && t->stats->stack_mismatches++ < 20) {
			agent_debug("stack check: fast walk differs (%u frames, verdict %d; exact %u frames from ip %#lx)",
				    out.n, out.verdict, nwant, (unsigned long)c->regs.ip);
			for (uint32_t k = 0; k < nfast || k < nwant; k++)
				agent_debug("  %3u fast %#lx exact %#lx", k, k < nfast ? (unsigned long)fast[k] : 0ul,
					    k < nwant ? (unsigned long)exact_frames[k] : 0ul);
		}
	}
	sus.nchecks = 0;
}
