/* Activities by OS thread (see activity.h).
 *
 * One fixed table, open addressing on the thread id with a short probe:
 * writers are the thread itself (from runtime callbacks), readers the
 * signal handler on that same thread and the sampler thread.  A thread
 * claims its entry on its first activity and gives it back when it ends
 * (a pthread key's destructor).  Each entry is written in push order,
 * words before the depth that publishes them, so a reader never sees a
 * word that was not written; it may see one activity late or early, which
 * is one sample's label. */
#include "agent/symbols/activity.h"

#include "agent/unwind/codemap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ACT_THREADS 512 /* a power of two */
#define ACT_PROBE 16    /* entries a thread's id may sit past its hash */

struct act_entry {
	_Atomic uint32_t tid;   /* 0: free */
	_Atomic uint32_t depth; /* activities open (past ACT_DEPTH: counted, not kept) */
	_Atomic uint64_t word[ACT_DEPTH];
};

static struct act_entry table[ACT_THREADS];
static pthread_key_t entry_key;
static pthread_once_t entry_once = PTHREAD_ONCE_INIT;
static atomic_bool said_full;

static void release_entry(void *p)
{
	struct act_entry *e = p;
	atomic_store(&e->depth, 0);
	atomic_store(&e->tid, 0);
}

static void key_create(void)
{
	pthread_key_create(&entry_key, release_entry);
}

static uint32_t home_of(uint32_t tid)
{
	return (tid * 2654435761u) & (ACT_THREADS - 1);
}

/* The calling thread's entry; with claim, taken on first use.  NULL when
 * it has none (or every entry near its hash is taken). */
static struct act_entry *own_entry(bool claim)
{
	pthread_once(&entry_once, key_create);
	struct act_entry *e = pthread_getspecific(entry_key);
	if (e || !claim)
		return e;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	for (uint32_t k = 0, j = home_of(tid); k < ACT_PROBE; k++, j = (j + 1) & (ACT_THREADS - 1)) {
		uint32_t free_tid = 0;
		if (atomic_load_explicit(&table[j].tid, memory_order_relaxed) != 0 ||
		    !atomic_compare_exchange_strong(&table[j].tid, &free_tid, tid))
			continue;
		atomic_store(&table[j].depth, 0);
		if (pthread_setspecific(entry_key, &table[j]) != 0) {
			atomic_store(&table[j].tid, 0);
			return NULL;
		}
		return &table[j];
	}
	if (!atomic_exchange(&said_full, true))
		agent_debug("activity table full near thread %u: its compilations and GCs show as native code", tid);
	return NULL;
}

void activity_enter(enum act_kind kind, FunctionID fn)
{
	struct act_entry *e = own_entry(true);
	if (!e)
		return;
	uint32_t d = atomic_load_explicit(&e->depth, memory_order_relaxed);
	if (d < ACT_DEPTH)
		atomic_store_explicit(&e->word[d], (uint64_t)kind << 56 | ((uint64_t)fn & ACT_FN_MASK),
				      memory_order_relaxed);
	atomic_store_explicit(&e->depth, d + 1, memory_order_release);
}

void activity_leave(enum act_kind kind)
{
	struct act_entry *e = own_entry(false);
	if (!e)
		return;
	uint32_t d = atomic_load_explicit(&e->depth, memory_order_relaxed);
	if (d > ACT_DEPTH) { /* the kinds past the kept ones are unknown: trust the pairing */
		atomic_store_explicit(&e->depth, d - 1, memory_order_release);
		return;
	}
	for (uint32_t i = d; i-- > 0;)
		if (act_word_kind(atomic_load_explicit(&e->word[i], memory_order_relaxed)) == kind) {
			atomic_store_explicit(&e->depth, i, memory_order_release);
			return;
		}
}

bool activity_of(uint32_t tid, struct activity *out)
{
	out->n = 0;
	if (!tid)
		return false;
	for (uint32_t k = 0, j = home_of(tid); k < ACT_PROBE; k++, j = (j + 1) & (ACT_THREADS - 1)) {
		if (atomic_load_explicit(&table[j].tid, memory_order_relaxed) != tid)
			continue;
		uint32_t d = atomic_load_explicit(&table[j].depth, memory_order_acquire);
		if (d > ACT_DEPTH)
			d = ACT_DEPTH;
		for (uint32_t i = 0; i < d; i++)
			out->word[i] = atomic_load_explicit(&table[j].word[i], memory_order_relaxed);
		out->n = (uint8_t)d;
		return d > 0;
	}
	return false;
}

static atomic_bool gc_suspension;
static _Atomic uint32_t gc_epoch; /* odd while the runtime is suspended for a GC */

void activity_gc_suspension(bool on)
{
	if (atomic_exchange(&gc_suspension, on) != on)
		atomic_fetch_add(&gc_epoch, 1);
}

uint32_t activity_gc_epoch(void)
{
	return atomic_load(&gc_epoch);
}

bool activity_in_gc_suspension(void)
{
	return atomic_load(&gc_suspension);
}

static HRESULT on_dynamic_jit_started(ICorProfilerCallback11 *self, FunctionID fn, BOOL safe, LPCBYTE header,
				      ULONG header_len)
{
	(void)self, (void)safe, (void)header, (void)header_len;
	activity_enter(ACT_JIT, fn);
	return S_OK;
}

static HRESULT on_dynamic_jit_finished(ICorProfilerCallback11 *self, FunctionID fn, HRESULT status, BOOL safe)
{
	(void)self, (void)fn, (void)status, (void)safe;
	activity_leave(ACT_JIT);
	codemap_dynamic_compiled(); /* its code may be where a collected one's was */
	return S_OK;
}

void activity_install(struct ICorProfilerCallback11Vtbl *vtbl)
{
	vtbl->DynamicMethodJITCompilationStarted = on_dynamic_jit_started;
	vtbl->DynamicMethodJITCompilationFinished = on_dynamic_jit_finished;
}
