#include "agent/events/events.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/events/eventmask.h"
#include "agent/events/eventpipe.h"
#include "agent/events/evqueue.h"
#include "agent/events/excmessage.h"
#include "agent/events/heapsnap.h"
#include "agent/events/runtimeevents.h"
#include "agent/log/logwriter.h"
#include "agent/symbols/activity.h"
#include "agent/symbols/unloads.h"
#include "agent/unwind/stackwalk.h"
#include "common/dials.h"
#include "common/logfmt.h"
#include "common/records.h"
#include "common/utf16.h"

/* Garbage collections started since the agent started. */
static _Atomic uint64_t gcs;

uint64_t events_gc_count(void)
{
	return atomic_load(&gcs);
}

/* ---- GC: complete records on the spot ---- */

#define GC_RANGES_MAX 4096

static struct {
	pthread_mutex_t mu;
	uint64_t suspend_start_us; /* a suspension for GC began (0: none) */
	bool pending;              /* a finished GC waits for its resume to know the pause */
	struct cs_gc rec;
	COR_PRF_GC_GENERATION_RANGE ranges[GC_RANGES_MAX];
} gc = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void gc_write_locked(uint64_t pause_us)
{
	gc.rec.pause_us = pause_us;
	uint8_t payload[128];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	cs_gc_encode(&o, &gc.rec);
	lw_append_record(CS_REC_GC, o.buf, o.len);
	gc.pending = false;
}

static HRESULT on_runtime_suspend_started(ICorProfilerCallback11 *self, COR_PRF_SUSPEND_REASON reason)
{
	(void)self;
	bool for_gc = reason == COR_PRF_SUSPEND_FOR_GC || reason == COR_PRF_SUSPEND_FOR_GC_PREP;
	if (for_gc) { /* this thread collects until it resumes the runtime */
		activity_gc_suspension(true);
		activity_enter(ACT_GC, 0);
	}
	if (!for_gc || !evmask_recording(CS_EV_GC) || eventpipe_covers(CS_EV_GC))
		return S_OK;
	pthread_mutex_lock(&gc.mu);
	if (!gc.suspend_start_us)
		gc.suspend_start_us = agent_now_us();
	pthread_mutex_unlock(&gc.mu);
	return S_OK;
}

static HRESULT on_runtime_suspend_aborted(ICorProfilerCallback11 *self)
{
	(void)self;
	activity_gc_suspension(false);
	activity_leave(ACT_GC);
	return S_OK;
}

static HRESULT on_runtime_resume_finished(ICorProfilerCallback11 *self)
{
	(void)self;
	activity_gc_suspension(false); /* one suspension at a time: any resume ends it */
	activity_leave(ACT_GC);
	pthread_mutex_lock(&gc.mu);
	if (gc.pending) {
		uint64_t now = agent_now_us();
		bool known = gc.suspend_start_us && gc.suspend_start_us <= gc.rec.start_us;
		gc_write_locked(known ? now - gc.suspend_start_us : 0);
	}
	gc.suspend_start_us = 0;
	pthread_mutex_unlock(&gc.mu);
	return S_OK;
}

static HRESULT on_gc_started(ICorProfilerCallback11 *self, int generations, BOOL *collected, COR_PRF_GC_REASON reason)
{
	(void)self;
	atomic_fetch_add(&gcs, 1);
	heapsnap_gc_started(generations, collected);
	if (!evmask_recording(CS_EV_GC) || eventpipe_covers(CS_EV_GC))
		return S_OK; /* gcstream.c builds the records from the runtime's events */
	pthread_mutex_lock(&gc.mu);
	if (gc.pending)
		gc_write_locked(0); /* a background GC that never paused */
	memset(&gc.rec, 0, sizeof gc.rec);
	gc.rec.start_us = agent_now_us();
	for (int i = 0; i < generations && i <= 2; i++)
		if (collected[i])
			gc.rec.generation = (uint8_t)i;
	gc.rec.reason = reason == COR_PRF_GC_INDUCED ? CS_GC_INDUCED : CS_GC_OTHER;
	pthread_mutex_unlock(&gc.mu);
	return S_OK;
}

static HRESULT on_gc_finished(ICorProfilerCallback11 *self)
{
	(void)self;
	heapsnap_gc_finished();
	if (!evmask_recording(CS_EV_GC) || eventpipe_covers(CS_EV_GC))
		return S_OK;
	pthread_mutex_lock(&gc.mu);
	if (!gc.rec.start_us) {
		pthread_mutex_unlock(&gc.mu);
		return S_OK; /* started before we were recording */
	}
	gc.rec.duration_us = agent_now_us() - gc.rec.start_us;
	ULONG count = 0;
	ICorProfilerInfo10 *info = g_agent.info;
	if (SUCCEEDED(info->vtbl->GetGenerationBounds(info, GC_RANGES_MAX, &count, gc.ranges))) {
		if (count > GC_RANGES_MAX)
			count = GC_RANGES_MAX;
		for (ULONG i = 0; i < count; i++) {
			uint32_t g = (uint32_t)gc.ranges[i].generation;
			if (g < CS_GC_GENERATIONS)
				gc.rec.gen_bytes[g] += gc.ranges[i].rangeLength;
		}
		gc.rec.ngens = CS_GC_GENERATIONS;
	}
	gc.pending = true;
	pthread_mutex_unlock(&gc.mu);
	return S_OK;
}

/* ---- exceptions, JIT, modules, threads: queued for naming ---- */

static ThreadID current_thread(void)
{
	ThreadID tid = 0;
	g_agent.info->vtbl->GetCurrentThreadID(g_agent.info, &tid);
	return tid;
}

static void push(uint16_t type, uint8_t kind, ThreadID thread, UINT_PTR id, uint64_t duration_us,
		 const FunctionID *frames, uint16_t nframes, const char *text)
{
	size_t tlen = text ? strlen(text) : 0;
	struct ev_item item = {
		.type = type,
		.kind = kind,
		.nframes = nframes,
		.text_len = (uint16_t)(tlen < EVQ_MAX_TEXT ? tlen : EVQ_MAX_TEXT),
		.time_us = agent_now_us(),
		.duration_us = duration_us,
		.thread = thread,
		.id = id,
	};
	evq_push(&item, frames, text);
}

static HRESULT on_exception_thrown(ICorProfilerCallback11 *self, ObjectID thrown)
{
	(void)self;
	if (!evmask_recording(CS_EV_EXCEPTIONS) || eventpipe_covers(CS_EV_EXCEPTIONS))
		return S_OK;
	ICorProfilerInfo10 *info = g_agent.info;
	ClassID cls = 0;
	if (FAILED(info->vtbl->GetClassFromObject(info, thrown, &cls)))
		cls = 0; /* named "[unknown class]"; the stack is still worth having */
	FunctionID frames[EVQ_MAX_FRAMES];
	struct walk w = {frames, 0, EVQ_MAX_FRAMES, false};
	/* the throwing thread's own stack, walked synchronously */
	info->vtbl->DoStackSnapshot(info, 0, walk_frame, COR_PRF_SNAPSHOT_DEFAULT, &w, NULL, 0);
	char message[EXC_MESSAGE_MAX];
	exc_message(thrown, cls, message, sizeof message);
	push(CS_REC_EXCEPTION, w.truncated, current_thread(), cls, 0, frames, (uint16_t)w.n, message);
	return S_OK;
}

static HRESULT on_exception_catcher_enter(ICorProfilerCallback11 *self, FunctionID fn, ObjectID obj)
{
	(void)self, (void)obj;
	if (evmask_recording(CS_EV_EXCEPTIONS) && !eventpipe_covers(CS_EV_EXCEPTIONS))
		push(CS_REC_CATCH, 0, current_thread(), fn, 0, NULL, 0, NULL);
	return S_OK;
}

/* JIT durations: a thread compiles one method at a time, rarely nested.
 * Per-thread state lives behind a pthread key (no __thread: that would tie
 * the agent to the dynamic loader's TLS entry points). */
#define JIT_NESTING 4
struct jit_state {
	uint64_t started[JIT_NESTING];
	int depth;
};
static pthread_key_t jit_key;
static pthread_once_t jit_once = PTHREAD_ONCE_INIT;

static void jit_key_create(void)
{
	pthread_key_create(&jit_key, free);
}

static struct jit_state *jit_state(void)
{
	pthread_once(&jit_once, jit_key_create);
	struct jit_state *js = pthread_getspecific(jit_key);
	if (!js && (js = calloc(1, sizeof *js)))
		pthread_setspecific(jit_key, js);
	return js;
}

static HRESULT on_jit_started(ICorProfilerCallback11 *self, FunctionID fn, BOOL safe)
{
	(void)self, (void)safe;
	activity_enter(ACT_JIT, fn);
	struct jit_state *js = jit_state();
	if (!js)
		return S_OK;
	if (js->depth < JIT_NESTING)
		js->started[js->depth] = agent_now_us();
	js->depth++;
	return S_OK;
}

static HRESULT on_jit_finished(ICorProfilerCallback11 *self, FunctionID fn, HRESULT status, BOOL safe)
{
	(void)self, (void)safe;
	activity_leave(ACT_JIT);
	struct jit_state *js = jit_state();
	if (!js || js->depth <= 0)
		return S_OK; /* events were switched on mid-compilation */
	js->depth--;
	if (!evmask_recording(CS_EV_JIT) || FAILED(status) || js->depth >= JIT_NESTING)
		return S_OK;
	push(CS_REC_JIT, 0, 0, fn, agent_now_us() - js->started[js->depth], NULL, 0, NULL);
	return S_OK;
}

static HRESULT on_module_loaded(ICorProfilerCallback11 *self, ModuleID mod, HRESULT status)
{
	(void)self;
	if (!evmask_recording(CS_EV_MODULES) || FAILED(status))
		return S_OK;
	WCHAR wide[512];
	ULONG len = 0;
	LPCBYTE base = NULL;
	AssemblyID asm_id = 0;
	char path[EVQ_MAX_TEXT + 1];
	if (FAILED(g_agent.info->vtbl->GetModuleInfo(g_agent.info, mod, &base, 512, &len, wide, &asm_id)))
		return S_OK;
	cs_utf16_to_utf8((const uint16_t *)wide, len, path, sizeof path);
	push(CS_REC_MODULE, CS_MODULE, 0, 0, 0, NULL, 0, path);
	return S_OK;
}

/* What the other threads queued is named now: its FunctionIDs may be this
 * module's, good only until this callback returns (unloads.h). */
static void name_queued(void)
{
	events_drain(sym_defs());
}

static HRESULT on_module_unloading(ICorProfilerCallback11 *self, ModuleID mod)
{
	(void)self;
	(void)mod;
	unloads_module(name_queued);
	return S_OK;
}

static HRESULT on_assembly_loaded(ICorProfilerCallback11 *self, AssemblyID asm_id, HRESULT status)
{
	(void)self;
	if (!evmask_recording(CS_EV_MODULES) || FAILED(status))
		return S_OK;
	WCHAR wide[512];
	ULONG len = 0;
	AppDomainID domain = 0;
	ModuleID mod = 0;
	char name[EVQ_MAX_TEXT + 1];
	if (FAILED(g_agent.info->vtbl->GetAssemblyInfo(g_agent.info, asm_id, 512, &len, wide, &domain, &mod)))
		return S_OK;
	cs_utf16_to_utf8((const uint16_t *)wide, len, name, sizeof name);
	push(CS_REC_MODULE, CS_ASSEMBLY, 0, 0, 0, NULL, 0, name);
	return S_OK;
}

static void (*thread_list_changed)(void); /* events_set_thread_hook's */

void events_set_thread_hook(void (*changed)(void))
{
	thread_list_changed = changed;
}

static HRESULT on_thread_created(ICorProfilerCallback11 *self, ThreadID tid)
{
	(void)self;
	if (thread_list_changed)
		thread_list_changed();
	if (evmask_recording(CS_EV_THREADS))
		push(CS_REC_THREAD_EVENT, CS_THREAD_CREATED, tid, 0, 0, NULL, 0, NULL);
	return S_OK;
}

static HRESULT on_thread_destroyed(ICorProfilerCallback11 *self, ThreadID tid)
{
	(void)self;
	if (thread_list_changed)
		thread_list_changed();
	if (evmask_recording(CS_EV_THREADS))
		push(CS_REC_THREAD_EVENT, CS_THREAD_DESTROYED, tid, 0, 0, NULL, 0, NULL);
	return S_OK;
}

static HRESULT on_thread_named(ICorProfilerCallback11 *self, ThreadID tid, ULONG cch, WCHAR *name)
{
	(void)self;
	char text[128];
	cs_utf16_to_utf8((const uint16_t *)name, name ? cch : 0, text, sizeof text);
	push(CS_REC_THREAD_EVENT, CS_THREAD_NAMED, tid, 0, 0, NULL, 0, text);
	return S_OK;
}

static HRESULT on_thread_assigned(ICorProfilerCallback11 *self, ThreadID tid, DWORD os_tid)
{
	(void)self;
	if (thread_list_changed)
		thread_list_changed();
	push(CS_REC_THREAD_EVENT, 0, tid, os_tid, 0, NULL, 0, NULL);
	return S_OK;
}

void events_install(struct ICorProfilerCallback11Vtbl *vtbl)
{
	rte_install(vtbl);
	vtbl->RuntimeSuspendStarted = on_runtime_suspend_started;
	vtbl->RuntimeSuspendAborted = on_runtime_suspend_aborted;
	vtbl->RuntimeResumeFinished = on_runtime_resume_finished;
	vtbl->GarbageCollectionStarted = on_gc_started;
	vtbl->GarbageCollectionFinished = on_gc_finished;
	vtbl->ExceptionThrown = on_exception_thrown;
	vtbl->ExceptionCatcherEnter = on_exception_catcher_enter;
	vtbl->JITCompilationStarted = on_jit_started;
	vtbl->JITCompilationFinished = on_jit_finished;
	vtbl->ModuleLoadFinished = on_module_loaded;
	vtbl->ModuleUnloadStarted = on_module_unloading;
	vtbl->AssemblyLoadFinished = on_assembly_loaded;
	vtbl->ThreadCreated = on_thread_created;
	vtbl->ThreadDestroyed = on_thread_destroyed;
	vtbl->ThreadNameChanged = on_thread_named;
	vtbl->ThreadAssignedToOSThread = on_thread_assigned;
}

/* ---- the sampler thread's side ---- */

struct drain {
	struct sym_defs *defs;
	struct cs_out out;
	uint32_t nrecords;
};

static void drain_flush(struct drain *d)
{
	if (!d->nrecords)
		return; /* nothing that uses the pending definitions yet */
	sym_flush_defs(d->defs); /* definitions before the records using them */
	lw_append(d->out.buf, d->out.len, d->nrecords);
	d->out.len = 0;
	d->nrecords = 0;
}

static void drain_one(const struct ev_item *it, const FunctionID *frames, const char *text, void *ctx)
{
	struct drain *d = ctx;
	struct cs_event e = {.time_us = it->time_us, .kind = it->kind, .duration_us = it->duration_us};
	char name[EVQ_MAX_TEXT + 1];
	snprintf(name, sizeof name, "%.*s", (int)it->text_len, text);
	switch (it->type) {
	case CS_REC_EXCEPTION:
		e.thread_ref = sym_thread(it->thread);
		e.id = it->nframes ? sym_stack_of(frames, NULL, it->nframes, it->kind, false, NULL, d->defs) : 0;
		e.kind = 0;
		if (it->id) { /* from the callback: the class, then the message */
			e.message = (struct cs_str){text, it->text_len};
			sym_class_name(it->id, name, sizeof name);
		} else { /* from the event stream: "type\0message" */
			size_t tlen = strnlen(text, it->text_len);
			snprintf(name, sizeof name, "%.*s", (int)tlen, text);
			e.message = tlen < it->text_len ? (struct cs_str){text + tlen + 1, it->text_len - tlen - 1}
							 : (struct cs_str){"", 0};
		}
		break;
	case CS_REC_CONTENTION:
	case CS_REC_WAIT:
		e.thread_ref = sym_thread(it->thread);
		e.id = it->nframes ? sym_stack_of(frames, NULL, it->nframes, it->kind, false, NULL, d->defs) : 0;
		e.kind = (uint8_t)it->os_tid; /* a wait's source */
		e.duration_us = 0;
		e.wait_ns = it->duration_us; /* nanoseconds for waits */
		name[0] = 0;
		break;
	case CS_REC_CATCH:
		e.thread_ref = sym_thread(it->thread);
		e.id = sym_frame(it->id, d->defs);
		break;
	case CS_REC_JIT:
		e.id = sym_frame(it->id, d->defs);
		break;
	case CS_REC_MODULE:
		break;
	case CS_REC_ALLOC_SAMPLE:
		e.thread_ref = sym_thread(it->thread);
		e.id = it->nframes ? sym_stack_of(frames, NULL, it->nframes, it->kind, false, NULL, d->defs) : 0;
		e.kind = 0;
		e.size = it->id;
		e.weight = it->duration_us; /* the bytes the sample stands for */
		e.duration_us = 0;
		break;
	case CS_REC_THREAD_EVENT:
		if (it->kind == 0) { /* the OS thread behind a managed one */
			sym_thread_os(it->thread, (uint32_t)it->id);
			return;
		}
		if (it->kind == CS_THREAD_NAMED)
			sym_thread_name(it->thread, name);
		e.thread_ref = sym_thread(it->thread);
		e.os_tid = sym_thread_os_of(e.thread_ref);
		break;
	default:
		return;
	}
	e.text = (struct cs_str){name, strlen(name)};
	if (d->out.cap - d->out.len < 1024 || d->defs->frames.cap - d->defs->frames.len < 4096 ||
	    d->defs->stacks.cap - d->defs->stacks.len < 4096)
		drain_flush(d);
	size_t at = cs_record_begin(&d->out);
	cs_event_encode(&d->out, it->type, &e);
	if (cs_record_end(&d->out, at, it->type))
		d->nrecords++;
}

void events_drain(struct sym_defs *defs)
{
	static uint8_t buf[64 << 10];
	struct drain d = {.defs = defs};
	cs_out_init(&d.out, buf, sizeof buf);
	evq_drain(drain_one, &d);
	drain_flush(&d);
}
