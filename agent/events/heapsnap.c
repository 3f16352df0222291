#include "agent/events/heapsnap.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/events/awaitsnap.h"
#include "agent/events/classcount.h"
#include "agent/events/eventmask.h"
#include "agent/events/heapgraph.h"
#include "agent/events/heaprecord.h"
#include "agent/log/logwriter.h"
#include "agent/symbols/symbols.h"
#include "common/logfmt.h"
#include "common/records.h"

#define TABLE_SLOTS (64u * 1024u)
#define OBJECT_ALIGN 8u /* the GC's allocation alignment on 64-bit */

enum phase { IDLE, ARMED, CAPTURING, CAPTURED, WRITING };
enum walk { WALK_NONE, WALK_SUSPENDED, WALK_GC, WALK_GRAPH };
/* What a walk does with each object: counts it by type (a heap snapshot),
 * or shows it to an awaits snapshot. */
enum visit { VISIT_COUNT, VISIT_AWAITS };

#define SUSPEND_TRIES 200 /* 2 ms apart: the sampler's suspensions come and go */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started, stop;
	uint32_t asked, done; /* snapshots asked for / taken or failed */
	uint32_t awaits_asked, awaits_done; /* awaits snapshots, likewise */
	_Atomic int visit;    /* enum visit, for the walk under way */
	pthread_mutex_t visit_mu;
	_Atomic int phase;
	struct cc_table table;
	_Atomic uint64_t roots[CS_ROOT_KINDS]; /* (objects and bytes are the table's sums) */
	uint64_t time_us, pause_us, seq;
	int walk;      /* enum walk, chosen at startup */
	bool attached; /* an older runtime after attach: the gc walk, on demand */
} h = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .visit_mu = PTHREAD_MUTEX_INITIALIZER};

static bool runtime_has_info15(void)
{
	ICorProfilerInfo10 *info = g_agent.info;
	void *info15 = NULL;
	if (FAILED(info->vtbl->QueryInterface(info, &IID_ICorProfilerInfo15, &info15)) || !info15)
		return false;
	info->vtbl->Release(info);
	return true;
}

bool heapsnap_configure(bool gc_walk, bool attached)
{
	h.attached = attached;
	if (gc_walk)
		h.walk = WALK_GC;
	else if (hg_available())
		h.walk = WALK_GRAPH;
	else if (runtime_has_info15())
		h.walk = WALK_SUSPENDED;
	else
		h.walk = attached ? WALK_GC : WALK_NONE;
	return h.walk == WALK_GC && !attached;
}

bool heapsnap_gc_walk(void)
{
	return h.walk == WALK_GC && !h.attached;
}

/* ---- GC threads ---- */

void heapsnap_gc_started(int generations, const BOOL *collected)
{
	/* only the full GC we forced: a younger one walks objects that may be dead */
	int expected = ARMED;
	if (generations > 2 && collected[2])
		atomic_compare_exchange_strong(&h.phase, &expected, CAPTURING);
}

void heapsnap_gc_finished(void)
{
	int expected = CAPTURING;
	atomic_compare_exchange_strong(&h.phase, &expected, CAPTURED);
}

/* One object of a walk, the runtime suspended. */
static void walked(ObjectID obj, ClassID cls)
{
	if (atomic_load_explicit(&h.visit, memory_order_relaxed) == VISIT_AWAITS) {
		/* one visitor at a time: server GC's threads walk together */
		pthread_mutex_lock(&h.visit_mu);
		awaitsnap_visit(obj, cls);
		pthread_mutex_unlock(&h.visit_mu);
		return;
	}
	SIZE_T size = 0;
	ICorProfilerInfo10 *info = g_agent.info;
	if (FAILED(info->vtbl->GetObjectSize2(info, obj, &size)))
		size = 0;
	cc_add(&h.table, cls, ((uint64_t)size + OBJECT_ALIGN - 1) & ~(uint64_t)(OBJECT_ALIGN - 1));
}

static HRESULT on_object_references(ICorProfilerCallback11 *self, ObjectID obj, ClassID cls, ULONG nrefs,
				    ObjectID refs[])
{
	(void)self, (void)nrefs, (void)refs;
	if (atomic_load_explicit(&h.phase, memory_order_relaxed) != CAPTURING)
		return E_FAIL; /* not ours: the runtime stops this walk */
	walked(obj, cls);
	return S_OK;
}

static HRESULT on_root_references2(ICorProfilerCallback11 *self, ULONG n, ObjectID ids[],
				   COR_PRF_GC_ROOT_KIND kinds[], COR_PRF_GC_ROOT_FLAGS flags[], UINT_PTR root_ids[])
{
	(void)self, (void)ids, (void)flags, (void)root_ids;
	if (atomic_load_explicit(&h.phase, memory_order_relaxed) != CAPTURING)
		return S_OK;
	for (ULONG i = 0; i < n; i++) {
		int k = kinds[i] == COR_PRF_GC_ROOT_STACK       ? CS_ROOT_STACK
			: kinds[i] == COR_PRF_GC_ROOT_FINALIZER ? CS_ROOT_FINALIZER
			: kinds[i] == COR_PRF_GC_ROOT_HANDLE    ? CS_ROOT_HANDLE
								: CS_ROOT_OTHER;
		atomic_fetch_add_explicit(&h.roots[k], 1, memory_order_relaxed);
	}
	return S_OK;
}

void heapsnap_install_callbacks(struct ICorProfilerCallback11Vtbl *vtbl)
{
	vtbl->ObjectReferences = on_object_references;
	vtbl->RootReferences2 = on_root_references2;
}

/* ---- the snapshot thread ---- */

static void reset_counts(void)
{
	cc_clear(&h.table);
	for (int i = 0; i < CS_ROOT_KINDS; i++)
		atomic_store(&h.roots[i], 0);
}

static void warn_dropped(uint64_t seq)
{
	if (atomic_load(&h.table.dropped))
		lw_message(CS_LEVEL_WARNING, "heap snapshot %llu: more than %u types, %llu objects not counted",
			   (unsigned long long)seq, cc_capacity(&h.table) / 4,
			   (unsigned long long)atomic_load(&h.table.dropped));
}

static BOOL enumerated(ObjectID obj, void *state)
{
	(void)state;
	ICorProfilerInfo10 *info = g_agent.info;
	ClassID cls = 0;
	if (SUCCEEDED(info->vtbl->GetClassFromObject(info, obj, &cls)) && cls)
		walked(obj, cls);
	return TRUE;
}

/* Every object in the heap, walked while the runtime stands still: no
 * collection and no GC event mask, so background GC stays on.  The pause
 * (its start at *t0), or -1 (said why). */
static int64_t walk_suspended(const char *what, uint64_t seq, uint64_t *t0_out)
{
	ICorProfilerInfo10 *info = g_agent.info;
	HRESULT hr = CORPROF_E_SUSPENSION_IN_PROGRESS;
	uint64_t t0 = 0;
	for (int i = 0; i < SUSPEND_TRIES && hr == CORPROF_E_SUSPENSION_IN_PROGRESS; i++) {
		if (i) {
			struct timespec pause = {0, 2 * 1000000L};
			nanosleep(&pause, NULL);
		}
		t0 = agent_mono_ns();
		hr = info->vtbl->SuspendRuntime(info);
	}
	if (FAILED(hr)) {
		lw_message(CS_LEVEL_WARNING, "%s %llu failed: the runtime could not be suspended (0x%08x)", what,
			   (unsigned long long)seq, (unsigned)hr);
		return -1;
	}
	hr = info->vtbl->EnumerateGCHeapObjects(info, enumerated, NULL);
	info->vtbl->ResumeRuntime(info);
	uint64_t t1 = agent_mono_ns();
	if (FAILED(hr)) {
		lw_message(CS_LEVEL_WARNING, "%s %llu failed: the runtime refused the heap walk (0x%08x)", what,
			   (unsigned long long)seq, (unsigned)hr);
		return -1;
	}
	*t0_out = t0;
	return (int64_t)((t1 - t0) / 1000);
}

/* A full blocking collection forced with the heap walk on: each live
 * object and the roots, as the collection sees them.  The pause (its start
 * at *t0), or -1 (said why). */
static int64_t walk_gc(const char *what, uint64_t seq, uint64_t *t0_out)
{
	ICorProfilerInfo10 *info = g_agent.info;
	HRESULT hr = evmask_set_heap_walk(true);
	if (FAILED(hr)) {
		lw_message(CS_LEVEL_WARNING, "%s %llu failed: the runtime refused heap walks (0x%08x)%s", what,
			   (unsigned long long)seq, (unsigned)hr,
			   hr == CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE
				   ? "; concurrent GC is on (start the program with DOTNET_gcConcurrent=0)"
				   : "");
		return -1;
	}
	atomic_store(&h.phase, ARMED);
	uint64_t t0 = agent_mono_ns();
	hr = info->vtbl->ForceGC(info);
	uint64_t t1 = agent_mono_ns();
	int expected = ARMED;
	atomic_compare_exchange_strong(&h.phase, &expected, IDLE); /* the GC never came */
	evmask_set_heap_walk(false);
	bool captured = atomic_load(&h.phase) == CAPTURED;
	atomic_store(&h.phase, IDLE);
	if (!captured) {
		lw_message(CS_LEVEL_WARNING, "%s %llu failed: %s (0x%08x)", what, (unsigned long long)seq,
			   FAILED(hr) ? "the runtime refused to collect" : "the forced collection was not seen",
			   (unsigned)hr);
		return -1;
	}
	*t0_out = t0;
	return (int64_t)((t1 - t0) / 1000);
}

static uint64_t since_start_us(uint64_t t)
{
	return (t - g_agent.start_mono_ns) / 1000;
}

static void take_one(uint64_t seq)
{
	if (h.walk == WALK_GRAPH) {
		hg_take(seq, since_start_us(agent_mono_ns()));
		return;
	}
	if (!h.table.slots && cc_init(&h.table, TABLE_SLOTS) < 0) {
		lw_message(CS_LEVEL_WARNING, "heap snapshot %llu skipped: out of memory", (unsigned long long)seq);
		return;
	}
	reset_counts();
	atomic_store(&h.visit, VISIT_COUNT);
	uint64_t t0 = 0;
	int64_t pause_us = h.walk == WALK_SUSPENDED ? walk_suspended("heap snapshot", seq, &t0)
						    : walk_gc("heap snapshot", seq, &t0);
	if (pause_us < 0)
		return;
	h.seq = seq;
	h.time_us = since_start_us(t0);
	h.pause_us = (uint64_t)pause_us;
	warn_dropped(seq);
	atomic_store(&h.phase, WRITING); /* the sampler thread's turn */
}

/* An awaits snapshot: the same walks, each object shown to awaitsnap;
 * false when the one before is not written yet. */
static bool take_awaits(uint64_t seq)
{
	if (!awaitsnap_begin())
		return false;
	atomic_store(&h.visit, VISIT_AWAITS);
	uint64_t t0 = agent_mono_ns();
	int64_t pause_us = h.walk == WALK_GRAPH	       ? hg_visit(seq, "awaits snapshot", awaitsnap_visit)
			   : h.walk == WALK_SUSPENDED ? walk_suspended("awaits snapshot", seq, &t0)
						      : walk_gc("awaits snapshot", seq, &t0);
	atomic_store(&h.visit, VISIT_COUNT);
	awaitsnap_end(seq, since_start_us(t0), pause_us,
		      h.walk == WALK_SUSPENDED ? CS_HEAP_WALK_SUSPENDED : CS_HEAP_WALK_GC);
	return true;
}

/* Waits for a request or a drain, at most 50 ms (h.mu held). */
static void wait_a_while(void)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 50 * 1000000L;
	if (until.tv_nsec >= 1000000000L)
		until.tv_sec++, until.tv_nsec -= 1000000000L;
	pthread_cond_timedwait(&h.cv, &h.mu, &until);
}

static void *snapshot_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&h.mu);
	while (!h.stop) {
		bool heap = h.done < h.asked && atomic_load(&h.phase) == IDLE;
		uint32_t again = awaitsnap_retake();
		if (again) { /* (no request meanwhile: it answers them too) */
			pthread_mutex_unlock(&h.mu);
			take_awaits(again);
			pthread_mutex_lock(&h.mu);
		}
		bool awaits = h.awaits_done < h.awaits_asked;
		if (!heap && !awaits) {
			wait_a_while();
			continue;
		}
		/* every request pending now is answered by one snapshot: a huge
		 * count must not force collections back to back */
		if (heap) {
			uint64_t seq = h.done = h.asked;
			pthread_mutex_unlock(&h.mu);
			take_one(seq);
			pthread_mutex_lock(&h.mu);
		}
		if (awaits) {
			uint32_t seq = h.awaits_asked;
			pthread_mutex_unlock(&h.mu);
			bool taken = take_awaits(seq);
			pthread_mutex_lock(&h.mu);
			if (taken)
				h.awaits_done = seq;
			else
				wait_a_while(); /* the one before is still being written */
		}
	}
	pthread_mutex_unlock(&h.mu);
	return NULL;
}

/* Raises *asked to seq and starts the snapshot thread if need be. */
static void ask(uint32_t *asked, uint32_t seq)
{
	pthread_mutex_lock(&h.mu);
	if (seq > *asked)
		*asked = seq;
	if (!h.started && (h.asked > h.done || h.awaits_asked > h.awaits_done)) {
		h.stop = false;
		if (pthread_create(&h.thread, NULL, snapshot_main, NULL) == 0) {
			h.started = true;
			pthread_setname_np(h.thread, "clrscope-heap");
		} else {
			lw_message(CS_LEVEL_WARNING, "heap and awaits snapshots unavailable: no thread for them");
		}
	}
	pthread_cond_broadcast(&h.cv);
	pthread_mutex_unlock(&h.mu);
}

int heapsnap_request(enum snapshot_kind kind, uint32_t seq, char *why, size_t whylen)
{
	if (h.walk == WALK_NONE) {
		snprintf(why, whylen, "no %s snapshots: this runtime (before .NET 10), with instrumentation on, can walk "
				      "the heap only during a GC with background GC off, which must be chosen when the program "
				      "starts (clrscope record --heap-snapshots -- PROGRAM)",
			 kind == SNAPSHOT_AWAITS ? "awaits" : "heap");
		return -1;
	}
	ask(kind == SNAPSHOT_AWAITS ? &h.awaits_asked : &h.asked, seq);
	return 0;
}

void heapsnap_stop(void)
{
	pthread_mutex_lock(&h.mu);
	bool started = h.started;
	h.stop = true;
	h.started = false;
	pthread_cond_broadcast(&h.cv);
	pthread_mutex_unlock(&h.mu);
	if (started)
		pthread_join(h.thread, NULL);
	atomic_store(&h.phase, IDLE);
}

/* ---- the sampler thread: names and records ---- */

void heapsnap_drain(struct sym_defs *defs)
{
	awaitsnap_drain(defs);
	if (atomic_load(&h.phase) != WRITING)
		return;
	struct heap_parts w;
	struct cs_heap_head head = {
		.time_us = h.time_us,
		.seq = h.seq,
		.pause_us = h.pause_us,
		.walk = h.walk == WALK_SUSPENDED ? CS_HEAP_WALK_SUSPENDED : CS_HEAP_WALK_GC,
	};
	for (int i = 0; i < CS_ROOT_KINDS; i++)
		head.roots[i] = atomic_load(&h.roots[i]);
	hp_init(&w, &head);
	bool ok = true;
	for (uint32_t i = 0; i < cc_capacity(&h.table) && ok; i++) {
		struct cc_slot *s = &h.table.slots[i];
		ClassID cls = atomic_load_explicit(&s->cls, memory_order_relaxed);
		if (!cls)
			continue;
		char name[1024];
		sym_class_name(cls, name, sizeof name);
		ok = hp_add(&w, name, atomic_load(&s->count), atomic_load(&s->bytes));
	}
	if (ok)
		hp_write(&w, false);
	else
		lw_message(CS_LEVEL_WARNING, "heap snapshot %llu lost: out of memory", (unsigned long long)h.seq);
	hp_free(&w);
	atomic_store(&h.phase, IDLE);
	pthread_cond_broadcast(&h.cv);
}
