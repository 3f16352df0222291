#include "agent/events/eventmask.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "agent/events/eventpipe.h"
#include "agent/symbols/asyncstack.h"
#include "common/dials.h"

static _Atomic uint32_t enabled_kinds;

bool evmask_recording(uint32_t kind)
{
	return atomic_load_explicit(&enabled_kinds, memory_order_relaxed) & kind;
}

uint32_t evmask_enabled(void)
{
	return atomic_load(&enabled_kinds);
}

/* What every event mask carries besides the event kinds: the startup-only
 * features (immutable once Initialize returns), and COR_PRF_MONITOR_GC while
 * a heap snapshot walks the heap during a GC or, with --heap-snapshots,
 * while the runtime still has to see it once to turn concurrent GC off
 * (else that walk could not be turned on later). */
static struct {
	pthread_mutex_t mu;
	DWORD fixed_low;
	bool heap_walk, gc_at_start;
	uint32_t kinds; /* the kinds last asked of the runtime */
	uint64_t settle_after_ns;
} mask = {.mu = PTHREAD_MUTEX_INITIALIZER};

void evmask_set_fixed(DWORD low, bool background_gc_off)
{
	pthread_mutex_lock(&mask.mu);
	mask.fixed_low = low;
	mask.gc_at_start = background_gc_off;
	mask.settle_after_ns = 0;
	pthread_mutex_unlock(&mask.mu);
}

/* Whether samples get activity labels (activity.c): from the start until
 * profiling stops or detaches, whatever event kinds are recorded. */
static atomic_bool labels;

static void compute_mask(uint32_t kinds, DWORD *low, DWORD *high)
{
	*low = COR_PRF_ENABLE_STACK_SNAPSHOT | mask.fixed_low;
	/* GC start and finish without a heap walk at every collection: the
	 * allocation view counts GCs even when GC events are not recorded */
	/* not COR_PRF_HIGH_MONITOR_EVENT_PIPE: it only adds the
	 * EventPipeProviderCreated callbacks; delivery to EventPipeEventDelivered
	 * does not check it (nor does it bear on the abort below) */
	*high = COR_PRF_HIGH_BASIC_GC;
	/* what activity.c needs to say a sample is compiling or collecting:
	 * callbacks that cost little beside the work they bracket (the class
	 * load callbacks come in a pair after the load: of no use there) */
	/* (and the thread callbacks: the sampler's thread list; the module
	 * unloads: the code map's cue to forget where code was) */
	if (atomic_load(&labels))
		*low |= COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_THREADS |
			COR_PRF_MONITOR_MODULE_LOADS;
	if (kinds & CS_EV_GC)
		*low |= COR_PRF_MONITOR_SUSPENDS;
	/* the async stacks: the GC epoch (activity.h), and the box types as
	 * they load (asyncstack.h) */
	if (async_enabled())
		*low |= COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CLASS_LOADS;
	if (kinds & CS_EV_JIT)
		*low |= COR_PRF_MONITOR_JIT_COMPILATION;
	if (mask.heap_walk || mask.gc_at_start)
		*low |= COR_PRF_MONITOR_GC;
	/* exceptions come from the event stream when it carries them: the
	 * exception callbacks beside any session of it make the runtime
	 * (10.0.12) abort on a corrupted mutex, in about one run in four of
	 * tests/apps/Server recorded with exceptions (neither alone does) */
	if ((kinds & CS_EV_EXCEPTIONS) && !eventpipe_covers(CS_EV_EXCEPTIONS))
		*low |= COR_PRF_MONITOR_EXCEPTIONS;
	if (kinds & CS_EV_MODULES)
		*low |= COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS;
	if (kinds & CS_EV_THREADS)
		*low |= COR_PRF_MONITOR_THREADS;
}

static HRESULT set_mask_locked(uint32_t kinds)
{
	DWORD low, high;
	compute_mask(kinds, &low, &high);
	HRESULT hr = g_agent.info->vtbl->SetEventMask2(g_agent.info, low, high);
	if (SUCCEEDED(hr))
		mask.kinds = kinds;
	return hr;
}

static bool set_mask(uint32_t kinds)
{
	pthread_mutex_lock(&mask.mu);
	HRESULT hr = set_mask_locked(kinds);
	pthread_mutex_unlock(&mask.mu);
	return SUCCEEDED(hr);
}

void evmask_initialized(void)
{
	pthread_mutex_lock(&mask.mu);
	mask.settle_after_ns = agent_mono_ns() + 100u * 1000000u;
	pthread_mutex_unlock(&mask.mu);
}

void evmask_settle(void)
{
	pthread_mutex_lock(&mask.mu);
	if (mask.gc_at_start && mask.settle_after_ns && agent_mono_ns() >= mask.settle_after_ns) {
		/* the runtime has seen COR_PRF_MONITOR_GC (and turned concurrent GC
		 * off): stop the heap walk it would do at every GC */
		mask.gc_at_start = false;
		if (FAILED(set_mask_locked(mask.kinds)))
			mask.gc_at_start = true;
	}
	pthread_mutex_unlock(&mask.mu);
}

HRESULT evmask_set_heap_walk(bool on)
{
	pthread_mutex_lock(&mask.mu);
	bool before = mask.heap_walk;
	mask.heap_walk = on;
	HRESULT hr = set_mask_locked(mask.kinds);
	if (FAILED(hr))
		mask.heap_walk = before;
	pthread_mutex_unlock(&mask.mu);
	return hr;
}

static uint32_t apply(uint32_t kinds, bool with_labels, char *why, size_t whylen);

uint32_t evmask_apply(uint32_t kinds, char *why, size_t whylen)
{
	return apply(kinds, true, why, whylen);
}

void evmask_stop(void)
{
	char ignored[64];
	apply(0, false, ignored, sizeof ignored);
}

static uint32_t apply(uint32_t kinds, bool with_labels, char *why, size_t whylen)
{
	why[0] = 0;
	atomic_store(&labels, with_labels);
	/* the stream first: what it carries decides the callbacks asked for */
	char stream_why[160];
	uint32_t streamed = eventpipe_apply(kinds, with_labels, stream_why, sizeof stream_why);
	uint32_t runtime = kinds; /* what the runtime delivers; we record only kinds */
	if (!set_mask(kinds)) {
		/* Some flags cannot change after attach: keep the kinds the runtime
		 * accepts one by one, and filter what it will not stop sending. */
		uint32_t before = atomic_load(&enabled_kinds);
		runtime = before;
		uint32_t refused = 0;
		for (uint32_t bit = 1; bit & CS_EV_ALL; bit <<= 1) {
			if ((kinds & bit) == (runtime & bit))
				continue;
			uint32_t trial = (runtime & ~bit) | (kinds & bit);
			if (set_mask(trial))
				runtime = trial;
			else
				refused |= bit;
		}
		uint32_t refused_on = refused & kinds;
		if (refused_on) {
			char names[128];
			cs_events_format(refused_on, names, sizeof names);
			snprintf(why, whylen, "the runtime refused to start %s events now (they can be chosen only at startup)",
				 names);
		}
		kinds &= ~refused_on;
	}
	uint32_t missing = kinds & EVENTPIPE_ONLY_KINDS & ~streamed;
	if (missing) {
		char names[128];
		cs_events_format(missing, names, sizeof names);
		size_t at = strlen(why);
		snprintf(why + at, whylen - at, "%s%s events need the runtime's event stream, which %s", at ? "; " : "",
			 names,
			 stream_why[0] ? stream_why : "this runtime lacks (ICorProfilerInfo12, .NET 5 and later)");
		kinds &= ~missing;
	}
	atomic_store(&enabled_kinds, kinds);
	return kinds;
}
