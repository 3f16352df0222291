#include "agent/events/runtimeevents.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent/events/eventpipe.h"
#include "agent/events/evqueue.h"
#include "agent/events/gcstream.h"
#include "agent/events/heapgraph.h"
#include "agent/log/logwriter.h"
#include "agent/symbols/activity.h"
#include "agent/unwind/stackwalk.h"
#include "common/dials.h"
#include "common/logfmt.h"
#include "common/records.h"
#include "common/utf16.h"
#include "common/wire.h"

/* Microsoft-Windows-DotNETRuntime event ids (ClrEtwAll.man) */
enum {
	EV_GC_START = 1,
	EV_GC_END = 2,
	EV_GC_RESTART_EE_END = 3,
	EV_GC_HEAP_STATS = 4,
	EV_GC_SUSPEND_EE_BEGIN = 9,
	EV_GC_BULK_ROOT_EDGE = 16, /* 16-19 and 38: the heap-dump events (heapgraph.c) */
	EV_GC_BULK_ROOT_CWT = 17,
	EV_GC_BULK_NODE = 18,
	EV_GC_BULK_EDGE = 19,
	EV_GC_BULK_ROOT_STATIC = 38,
	EV_POOL_WORKER_START = 50,
	EV_POOL_WORKER_STOP = 51,
	EV_POOL_ADJUSTMENT = 55,
	EV_TYPE_LOAD_START = 73,
	EV_TYPE_LOAD_STOP = 74,
	EV_EXCEPTION_THROWN = 80,
	EV_CONTENTION_STOP = 91,
	EV_EXCEPTION_CATCH_START = 250,
	EV_WAIT_START = 301,
	EV_WAIT_STOP = 302,
	EV_ALLOCATION_SAMPLED = 303,
};

/* the mean distance between sampled allocations (DynamicAllocationSampling.md) */
#define SAMPLING_DISTANCE 102400.0

#define UNITS_MAX 256 /* UTF-16 units of a string kept */

/* ---- payload parsing: packed little-endian, NUL-terminated UTF-16 ---- */

/* Skips a string; copies at most cap-1 bytes of it as UTF-8 into out
 * (when out is not NULL), control characters replaced by spaces. */
static void get_wstr(struct cs_in *in, char *out, size_t cap)
{
	uint16_t units[UNITS_MAX];
	size_t n = 0;
	for (;;) {
		if (cs_in_left(in) < 2) {
			in->bad = true;
			break;
		}
		uint16_t u = cs_get_u16(in);
		if (!u)
			break;
		if (n < UNITS_MAX)
			units[n++] = u;
	}
	if (!out)
		return;
	size_t len = cs_utf16_to_utf8(units, n, out, cap);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = ' ';
}

static double get_double(struct cs_in *in)
{
	uint64_t bits = cs_get_u64(in);
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

static void on_gc_start(struct cs_in *in)
{
	uint32_t count = cs_get_u32(in), depth = cs_get_u32(in), reason = cs_get_u32(in), type = cs_get_u32(in);
	if (!in->bad)
		gcs_started(count, depth, reason, type);
}

static void on_gc_heap_stats(struct cs_in *in)
{
	struct gcs_heap_stats st = {0};
	for (int g = 0; g < 4; g++) {
		st.gen_bytes[g] = cs_get_u64(in);
		st.promoted_bytes += cs_get_u64(in);
	}
	cs_get_u64(in); /* FinalizationPromotedSize */
	cs_get_u64(in); /* FinalizationPromotedCount */
	st.pinned_objects = cs_get_u32(in);
	cs_get_u32(in); /* SinkBlockCount */
	cs_get_u32(in); /* GCHandleCount */
	cs_get_u16(in); /* ClrInstanceID */
	if (cs_in_left(in) >= 16) { /* V2: the pinned object heap */
		st.gen_bytes[4] = cs_get_u64(in);
		st.promoted_bytes += cs_get_u64(in);
	}
	if (!in->bad)
		gcs_heap_stats(&st);
}

static ThreadID current_thread(void)
{
	ThreadID tid = 0;
	g_agent.info->vtbl->GetCurrentThreadID(g_agent.info, &tid);
	return tid;
}

/* A throw, on the throwing thread: its type and message from the payload,
 * the thread's stack walked here (the callback is not asked for: see
 * compute_mask in eventmask.c). */
static void on_exception(struct cs_in *in)
{
	char text[EVQ_MAX_TEXT];
	get_wstr(in, text, 256); /* ExceptionType */
	size_t tlen = strlen(text);
	size_t room = sizeof text - tlen - 1;
	get_wstr(in, text + tlen + 1, room < 256 ? room : 256); /* ExceptionMessage, 255 bytes at most */
	if (in->bad)
		return;
	size_t mlen = strlen(text + tlen + 1);
	ICorProfilerInfo10 *info = g_agent.info;
	FunctionID frames[EVQ_MAX_FRAMES];
	struct walk w = {frames, 0, EVQ_MAX_FRAMES, false};
	info->vtbl->DoStackSnapshot(info, 0, walk_frame, COR_PRF_SNAPSHOT_DEFAULT, &w, NULL, 0);
	struct ev_item item = {
		.type = CS_REC_EXCEPTION,
		.kind = w.truncated,
		.nframes = (uint16_t)w.n,
		.text_len = (uint16_t)(tlen + 1 + mlen), /* "type\0message" */
		.time_us = agent_now_us(),
		.thread = current_thread(),
	};
	evq_push(&item, frames, text);
}

/* A catch clause entered: ExceptionCatch's MethodID is the MethodDesc, which
 * is the profiling API's FunctionID. */
static void on_exception_catch(struct cs_in *in)
{
	cs_get_u64(in); /* EntryEIP */
	uint64_t method = cs_get_u64(in);
	if (in->bad || !method)
		return;
	struct ev_item item = {
		.type = CS_REC_CATCH,
		.time_us = agent_now_us(),
		.thread = current_thread(),
		.id = (UINT_PTR)method,
	};
	evq_push(&item, NULL, NULL);
}

/* A wait that ended on this thread, with the thread's own stack, walked
 * synchronously like a throw's. */
static void queue_wait(uint16_t type, uint8_t source, uint64_t ns)
{
	ICorProfilerInfo10 *info = g_agent.info;
	FunctionID frames[EVQ_MAX_FRAMES];
	struct walk w = {frames, 0, EVQ_MAX_FRAMES, false};
	info->vtbl->DoStackSnapshot(info, 0, walk_frame, COR_PRF_SNAPSHOT_DEFAULT, &w, NULL, 0);
	struct ev_item item = {
		.type = type,
		.kind = w.truncated,
		.nframes = (uint16_t)w.n,
		.os_tid = source, /* the wait's source, for WAIT */
		.time_us = agent_now_us(),
		.duration_us = ns, /* nanoseconds for waits */
		.thread = current_thread(),
	};
	evq_push(&item, frames, NULL);
}

static void on_contention_stop(struct cs_in *in)
{
	cs_get_u8(in);  /* ContentionFlags */
	cs_get_u16(in); /* ClrInstanceID */
	double ns = get_double(in);
	if (!in->bad && ns >= 0)
		queue_wait(CS_REC_CONTENTION, 0, (uint64_t)ns);
}

/* WaitHandleWaitStop carries no duration: the start's time waits here. */
struct wait_state {
	uint64_t start_ns;
	uint8_t source;
};
static pthread_key_t wait_key;
static pthread_once_t wait_once = PTHREAD_ONCE_INIT;

static void wait_key_create(void)
{
	pthread_key_create(&wait_key, free);
}

static struct wait_state *wait_state(void)
{
	pthread_once(&wait_once, wait_key_create);
	struct wait_state *ws = pthread_getspecific(wait_key);
	if (!ws && (ws = calloc(1, sizeof *ws)))
		pthread_setspecific(wait_key, ws);
	return ws;
}

static void on_wait_start(struct cs_in *in)
{
	uint8_t source = cs_get_u8(in);
	struct wait_state *ws = wait_state();
	if (in->bad || !ws)
		return;
	ws->start_ns = agent_mono_ns();
	ws->source = source;
}

static void on_wait_stop(void)
{
	struct wait_state *ws = wait_state();
	if (!ws || !ws->start_ns)
		return; /* began before the session */
	uint64_t ns = agent_mono_ns() - ws->start_ns;
	ws->start_ns = 0;
	queue_wait(CS_REC_WAIT, ws->source, ns);
}

/* 1 - e^-x for x >= 0, without libm (the agent links only libc, libpthread
 * and libdl): halve x until small, a Taylor series, square back. */
static double one_minus_exp_neg(double x)
{
	if (x < 1e-3)
		return x - x * x / 2 + x * x * x / 6;
	if (x > 40)
		return 1.0;
	int halvings = 0;
	while (x > 0.5) {
		x /= 2;
		halvings++;
	}
	double e = 1, term = 1;
	for (int i = 1; i <= 12; i++) {
		term *= -x / i;
		e += term;
	}
	while (halvings--)
		e *= e;
	return 1 - e;
}

/* An allocation the runtime sampled, on the allocating thread (the object
 * is not initialised yet: only its size and type are read, from the
 * payload).  A sample stands for size / (1 - e^(-size / distance)) bytes:
 * the distance for small objects, the object itself for large ones. */
static void on_allocation_sampled(struct cs_in *in)
{
	cs_get_u32(in); /* AllocationKind */
	cs_get_u16(in); /* ClrInstanceID */
	cs_get_u64(in); /* TypeID */
	char type[EVQ_MAX_TEXT];
	get_wstr(in, type, sizeof type);
	cs_get_u64(in); /* Address */
	uint64_t size = cs_get_u64(in);
	if (in->bad)
		return;
	double x = (double)size / SAMPLING_DISTANCE;
	double weight = x > 1e-9 ? (double)size / one_minus_exp_neg(x) : SAMPLING_DISTANCE;
	ICorProfilerInfo10 *info = g_agent.info;
	FunctionID frames[EVQ_MAX_FRAMES];
	struct walk w = {frames, 0, EVQ_MAX_FRAMES, false};
	info->vtbl->DoStackSnapshot(info, 0, walk_frame, COR_PRF_SNAPSHOT_DEFAULT, &w, NULL, 0);
	size_t tlen = strlen(type);
	struct ev_item item = {
		.type = CS_REC_ALLOC_SAMPLE,
		.kind = w.truncated,
		.nframes = (uint16_t)w.n,
		.text_len = (uint16_t)tlen,
		.time_us = agent_now_us(),
		.duration_us = (uint64_t)weight, /* the bytes it stands for */
		.thread = current_thread(),
		.id = (UINT_PTR)size,
	};
	evq_push(&item, frames, type);
}

/* Thread pool records need no names: written on the spot. */
static void write_pool(uint8_t kind, uint64_t workers, uint8_t reason)
{
	struct cs_event e = {.time_us = agent_now_us(), .kind = kind, .workers = workers, .reason = reason};
	uint8_t payload[32];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	cs_event_encode(&o, CS_REC_THREADPOOL, &e);
	lw_append_record(CS_REC_THREADPOOL, o.buf, o.len);
}

static void on_pool_worker(struct cs_in *in, uint8_t kind)
{
	uint32_t active = cs_get_u32(in);
	if (!in->bad)
		write_pool(kind, active, 0);
}

static void on_pool_adjustment(struct cs_in *in)
{
	get_double(in); /* AverageThroughput */
	uint32_t count = cs_get_u32(in), reason = cs_get_u32(in);
	if (!in->bad)
		write_pool(CS_POOL_ADJUSTED, count, (uint8_t)(reason < 255 ? reason : 255));
}

static void deliver(uint32_t id, const uint8_t *data, size_t len)
{
	struct cs_in in;
	cs_in_init(&in, data, len);
	switch (id) {
	case EV_GC_BULK_ROOT_EDGE:
	case EV_GC_BULK_ROOT_CWT:
	case EV_GC_BULK_NODE:
	case EV_GC_BULK_EDGE:
	case EV_GC_BULK_ROOT_STATIC:
		hg_event(id, data, len);
		break;
	case EV_TYPE_LOAD_START: /* delivered on the loading thread, as it begins */
		activity_enter(ACT_TYPE_LOAD, 0);
		break;
	case EV_TYPE_LOAD_STOP:
		activity_leave(ACT_TYPE_LOAD);
		break;
	case EV_GC_START:
		if (eventpipe_covers(CS_EV_GC))
			on_gc_start(&in);
		break;
	case EV_GC_END: {
		uint32_t count = cs_get_u32(&in);
		if (!in.bad && eventpipe_covers(CS_EV_GC))
			gcs_ended(count);
		break;
	}
	case EV_GC_HEAP_STATS:
		if (eventpipe_covers(CS_EV_GC))
			on_gc_heap_stats(&in);
		break;
	case EV_GC_SUSPEND_EE_BEGIN: {
		uint32_t reason = cs_get_u32(&in);
		if (!in.bad && eventpipe_covers(CS_EV_GC))
			gcs_suspend_begin(reason);
		break;
	}
	case EV_GC_RESTART_EE_END:
		if (eventpipe_covers(CS_EV_GC))
			gcs_restart_end();
		break;
	case EV_EXCEPTION_THROWN:
		if (eventpipe_covers(CS_EV_EXCEPTIONS))
			on_exception(&in);
		break;
	case EV_EXCEPTION_CATCH_START:
		if (eventpipe_covers(CS_EV_EXCEPTIONS))
			on_exception_catch(&in);
		break;
	case EV_CONTENTION_STOP:
		if (eventpipe_covers(CS_EV_CONTENTION))
			on_contention_stop(&in);
		break;
	case EV_WAIT_START:
		if (eventpipe_covers(CS_EV_WAITS))
			on_wait_start(&in);
		break;
	case EV_WAIT_STOP:
		if (eventpipe_covers(CS_EV_WAITS))
			on_wait_stop();
		break;
	case EV_POOL_WORKER_START:
	case EV_POOL_WORKER_STOP:
		if (eventpipe_covers(CS_EV_THREADPOOL))
			on_pool_worker(&in, id == EV_POOL_WORKER_START ? CS_POOL_WORKER_STARTED : CS_POOL_WORKER_STOPPED);
		break;
	case EV_POOL_ADJUSTMENT:
		if (eventpipe_covers(CS_EV_THREADPOOL))
			on_pool_adjustment(&in);
		break;
	case EV_ALLOCATION_SAMPLED:
		if (eventpipe_covers(CS_EV_ALLOCSAMPLES))
			on_allocation_sampled(&in);
		break;
	default:
		break;
	}
}

static HRESULT on_event(ICorProfilerCallback11 *self, EVENTPIPE_PROVIDER provider, DWORD id, DWORD version,
			ULONG meta_len, LPCBYTE meta, ULONG len, LPCBYTE data, LPCGUID activity, LPCGUID related,
			ThreadID thread, ULONG nframes, UINT_PTR *frames)
{
	(void)self, (void)provider, (void)version, (void)meta_len, (void)meta, (void)activity, (void)related,
		(void)thread, (void)nframes, (void)frames;
	deliver(id, data, data ? len : 0);
	return S_OK;
}

void rte_install(struct ICorProfilerCallback11Vtbl *vtbl)
{
	vtbl->EventPipeEventDelivered = on_event;
}
