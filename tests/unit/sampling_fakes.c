/* A world for the agent's sampling modules without a runtime
 * (sampling_fakes.h). */
#include "sampling_fakes.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/log/logwriter.h"
#include "agent/symbols/activity.h"
#include "agent/symbols/asyncstack.h"
#include "agent/symbols/symbols.h"
#include "agent/unwind/codemap.h"
#include "agent/unwind/memread.h"
#include "agent/unwind/unwind.h"
#include "common/logfmt.h"
#include "common/records.h"

struct fake_runtime fake_rt;
uint64_t fake_mono_ns;
bool fake_real_time;
enum parked fake_parked;
struct syscall_site fake_parked_site;
uint32_t fake_parked_asked;
uint64_t fake_kernel_unsampled;
uint32_t fake_kernel_counted;
struct cs_status fake_status;

#define LOG_BYTES (4u << 20)
static uint8_t log_buf[LOG_BYTES];
static size_t log_len;

/* ---- the base (agent/agent.h) ---- */

struct agent g_agent;

clockid_t agent_thread_cpu_clock(uint32_t os_tid)
{
	return (clockid_t)((~os_tid << 3) | 6);
}

static uint64_t real_ns(clockid_t clock)
{
	struct timespec ts;
	return clock_gettime(clock, &ts) == 0 ? (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec : 0;
}

uint64_t agent_clock_ns(clockid_t clock)
{
	if (clock == CLOCK_MONOTONIC)
		return agent_mono_ns();
	if (clock == CLOCK_THREAD_CPUTIME_ID)
		return real_ns(clock);
	for (uint32_t i = 0; i < fake_rt.nthreads; i++)
		if (fake_rt.threads[i].os && agent_thread_cpu_clock(fake_rt.threads[i].os) == clock)
			return fake_rt.threads[i].cpu_ns;
	return 0;
}

uint64_t agent_mono_ns(void)
{
	return fake_real_time ? real_ns(CLOCK_MONOTONIC) : fake_mono_ns;
}

uint64_t agent_random_below(uint64_t *state, uint64_t n)
{
	if (!*state)
		*state = 0x9E3779B97F4A7C15ull;
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (uint64_t)(((unsigned __int128)(*state >> 11) * n) >> 53);
}

uint64_t agent_now_us(void)
{
	return (agent_mono_ns() - g_agent.start_mono_ns) / 1000;
}

void agent_debug(const char *fmt, ...)
{
	(void)fmt;
}

/* ---- the profiling API ---- */

static struct fake_thread *thread_of(ThreadID id)
{
	for (uint32_t i = 0; i < fake_rt.nthreads; i++)
		if (fake_rt.threads[i].id == id)
			return &fake_rt.threads[i];
	return NULL;
}

struct thread_enum {
	ICorProfilerThreadEnum iface;
	uint32_t next;
};

static HRESULT enum_next(ICorProfilerThreadEnum *self, ULONG celt, ThreadID *out, ULONG *fetched)
{
	struct thread_enum *e = (struct thread_enum *)self;
	*fetched = 0;
	while (celt && e->next < fake_rt.nthreads) {
		struct fake_thread *t = &fake_rt.threads[e->next++];
		if (!t->listed)
			continue;
		out[(*fetched)++] = t->id;
		celt--;
	}
	return *fetched ? S_OK : S_FALSE;
}

static ULONG enum_release(ICorProfilerThreadEnum *self)
{
	free(self);
	return 0;
}

static const struct ICorProfilerThreadEnumVtbl enum_vtbl = {.Release = enum_release, .Next = enum_next};

static HRESULT fake_enum_threads(ICorProfilerInfo15 *self, ICorProfilerThreadEnum **out)
{
	(void)self;
	struct thread_enum *e = calloc(1, sizeof *e);
	if (!e)
		return E_FAIL;
	e->iface.vtbl = &enum_vtbl;
	fake_rt.enums++;
	*out = &e->iface;
	return S_OK;
}

static HRESULT fake_thread_info(ICorProfilerInfo15 *self, ThreadID id, DWORD *os)
{
	(void)self;
	struct fake_thread *t = thread_of(id);
	if (!t)
		return E_FAIL;
	*os = t->os;
	return S_OK;
}

static HRESULT fake_suspend(ICorProfilerInfo15 *self)
{
	(void)self;
	if (fake_rt.suspend_fails)
		return E_FAIL;
	fake_rt.suspensions++;
	fake_rt.suspended = true;
	return S_OK;
}

static HRESULT fake_resume(ICorProfilerInfo15 *self)
{
	(void)self;
	fake_rt.suspended = false;
	fake_mono_ns += fake_rt.suspend_ns;
	return S_OK;
}

static HRESULT fake_snapshot(ICorProfilerInfo15 *self, ThreadID id, StackSnapshotCallback *callback, ULONG32 flags,
			     void *client, BYTE *context, ULONG32 context_size)
{
	(void)self, (void)flags, (void)context, (void)context_size;
	struct fake_thread *t = thread_of(id);
	if (!t || !fake_rt.suspended)
		return E_FAIL;
	fake_rt.walks++;
	for (uint32_t i = 0; i < t->nframes; i++)
		if (callback(t->frames[i], 0x1000 + i, 0, 0, NULL, client) != S_OK)
			break;
	return S_OK;
}

static HRESULT fake_is_dynamic(ICorProfilerInfo15 *self, FunctionID fn, BOOL *dynamic)
{
	(void)self, (void)fn;
	*dynamic = FALSE;
	return S_OK;
}

static const struct ICorProfilerInfo15Vtbl info_vtbl = {
	.EnumThreads = fake_enum_threads,
	.GetThreadInfo = fake_thread_info,
	.SuspendRuntime = fake_suspend,
	.ResumeRuntime = fake_resume,
	.DoStackSnapshot = fake_snapshot,
	.IsFunctionDynamic = fake_is_dynamic,
};
static ICorProfilerInfo15 info = {&info_vtbl};

void fake_reset(void)
{
	memset(&fake_rt, 0, sizeof fake_rt);
	fake_mono_ns = 1000000000ull;
	fake_real_time = false;
	fake_parked = PARKED_UNPROVEN;
	fake_parked_site = (struct syscall_site){0};
	fake_parked_asked = 0;
	fake_kernel_unsampled = 0;
	fake_kernel_counted = 0;
	memset(&fake_status, 0, sizeof fake_status);
	log_len = 0;
	g_agent.info = &info;
	g_agent.start_mono_ns = 0;
}

struct fake_thread *fake_thread_add(ThreadID id, uint32_t os, uint64_t cpu_ns, FunctionID fn)
{
	struct fake_thread *t = &fake_rt.threads[fake_rt.nthreads++];
	*t = (struct fake_thread){.id = id, .os = os, .cpu_ns = cpu_ns, .listed = true, .frames = {fn}, .nframes = 1};
	return t;
}

/* ---- the log writer ---- */

bool lw_append(const void *records, size_t len, uint32_t nrecords)
{
	(void)nrecords;
	if (log_len + len > LOG_BYTES)
		abort(); /* (a test that writes this much is broken) */
	memcpy(log_buf + log_len, records, len);
	log_len += len;
	return true;
}

bool lw_append_record(uint16_t type, const void *payload, size_t len)
{
	static uint8_t rec[64 << 10];
	struct cs_out o;
	cs_out_init(&o, rec, sizeof rec);
	size_t at = cs_record_begin(&o);
	cs_put_bytes(&o, payload, len);
	return cs_record_end(&o, at, type) && lw_append(o.buf, o.len, 1);
}

void lw_message(int level, const char *fmt, ...)
{
	(void)level, (void)fmt;
}

void lw_set_sampler_stats(const struct cs_status *s)
{
	fake_status = *s;
}

struct fake_log fake_log_read(ThreadID thread, struct fake_thread_log *per)
{
	struct fake_log all = {0};
	if (per)
		*per = (struct fake_thread_log){0};
	size_t at = 0;
	while (at < log_len) {
		struct cs_record r;
		size_t used;
		if (cs_scan_record(log_buf + at, log_len - at, &r, &used) != CS_SCAN_RECORD) {
			all.bad++;
			break;
		}
		at += used;
		all.records++;
		struct cs_list l;
		if (r.type == CS_REC_TICKS) {
			cs_list_init_ticks(&l, r.payload, r.len);
			struct cs_tick tk;
			while (cs_next_tick(&l, &tk)) {
				all.ticks++;
				all.suspend_ns += tk.suspend_ns;
				uint64_t ref, stack;
				bool off;
				while (cs_next_sample_state(&l, &ref, &stack, &off)) {
					all.samples++;
					if (per && ref == thread) {
						per->on_cpu += !off;
						per->off_cpu += off;
						per->last_stack = stack;
					}
				}
			}
		} else if (r.type == CS_REC_HOLDS) {
			cs_list_init(&l, r.payload, r.len);
			struct cs_hold h;
			while (cs_next_hold(&l, &h))
				if (per && h.thread_ref == thread) {
					per->held += h.count;
					per->runs++;
					per->last_run_stack = h.stack_id;
				}
		} else if (r.type == CS_REC_CPU_OWED) {
			cs_list_init(&l, r.payload, r.len);
			struct cs_cpu_owed o;
			while (cs_next_cpu_owed(&l, &o))
				if (per && o.thread_ref == thread)
					per->owed += o.count;
		} else {
			continue;
		}
		all.bad += cs_list_bad(&l);
	}
	return all;
}

/* ---- names and activities (agent/symbols) ---- */

static struct sym_defs defs;

struct sym_defs *sym_defs(void)
{
	return &defs;
}

size_t sym_defs_pending(void)
{
	return 0;
}

void sym_flush_defs(struct sym_defs *d)
{
	(void)d;
}

uint64_t sym_stack_of_memo(const FunctionID *frames, const uint64_t *addrs, uint32_t n, bool truncated,
			   bool leaf_maybe_call, const struct activity *act, struct sym_defs *d, struct sym_memo *memo)
{
	(void)addrs, (void)truncated, (void)leaf_maybe_call, (void)act, (void)d, (void)memo;
	return n ? FAKE_STACK_OF(frames[0]) : 0;
}

uint64_t sym_thread(ThreadID tid)
{
	return tid;
}

bool activity_of(uint32_t tid, struct activity *out)
{
	(void)tid;
	out->n = 0;
	return false;
}

bool activity_in_gc_suspension(void)
{
	return fake_rt.in_gc;
}

/* ---- the unwinder and the signal sampler, where the modules under test
 * reach them (the validate dial's checks and signals are not faked: a
 * test that gets here is broken) ---- */

void codemap_code_unloaded(void)
{
}

/* ---- async stacks: none (the physical stack is every sample's) ---- */

uint64_t async_stack(uint64_t physical, const FunctionID *frames, const uint64_t *addrs, uint32_t n,
		     bool truncated, bool leaf_maybe_call, const struct activity *act, const struct aw_sample *taken,
		     struct sym_defs *d)
{
	(void)frames, (void)addrs, (void)n, (void)truncated, (void)leaf_maybe_call, (void)act, (void)taken, (void)d;
	return physical;
}

void async_drain(void)
{
}

struct async_counts async_counts(void)
{
	return (struct async_counts){0};
}

const struct aw_sample *sigsampler_async(const struct sig_walk *walk)
{
	(void)walk;
	return NULL;
}

uint32_t memread_pages(uint64_t addr, uint8_t *out, uint32_t len)
{
	(void)addr, (void)out, (void)len;
	return 0;
}

const struct unwind_source unwind_live;

void unwind_walk(const struct unwind_source *src, const struct unwind_regs *r, bool leaf_interrupted,
		 const struct stack_copy *s, struct unwind_out *out, struct unwind_trail *trail)
{
	(void)src, (void)r, (void)leaf_interrupted, (void)s, (void)out, (void)trail;
	abort();
}

struct unwind_trail *sigsampler_trail(ThreadID thread)
{
	(void)thread;
	return NULL;
}

enum parked sigsampler_parked_as_captured(const struct sampled_thread *t, uint64_t cpu_now,
					  struct syscall_site *now)
{
	(void)t, (void)cpu_now;
	fake_parked_asked++;
	*now = fake_parked_site;
	return fake_parked;
}

uint64_t sigsampler_kernel_unsampled(const struct sampled_thread *t, uint64_t cpu_now)
{
	(void)t, (void)cpu_now;
	return fake_kernel_unsampled;
}

void sigsampler_kernel_counted(struct sampled_thread *t, uint32_t n)
{
	(void)t;
	fake_kernel_counted += n;
}

struct sig_stats sigsampler_stats(void)
{
	return (struct sig_stats){0};
}

uint64_t sigsampler_handler_ns(void)
{
	return 0;
}
