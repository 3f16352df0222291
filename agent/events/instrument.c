#include "agent/events/instrument.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/log/logwriter.h"
#include "common/logfmt.h"
#include "common/records.h"

#define PATTERNS_MAX 64
#define PATTERN_LEN 512
#define HOOKED_MAX 16384
#define SHADOW_INITIAL 256
#define SHADOW_MAX 65536
#define CALLS_EVERY_NS (500u * 1000000u)
#define CALLS_RECORD_BYTES (32u << 10)

/* One hooked function.  A cache line each: threads calling different
 * functions do not fight over counters. */
struct hooked {
	_Atomic FunctionID fn; /* 0 until the mapper has filled the entry */
	uint32_t index;
	_Atomic uint64_t calls, inclusive_ns, exclusive_ns;
} __attribute__((aligned(64)));

struct shadow_frame {
	struct hooked *f;
	uint64_t start_ns;
	uint64_t child_ns; /* time spent in hooked callees */
	bool outermost;    /* no other activation of f below: counts inclusive time */
};

struct thread_state {
	struct shadow_frame *frames;
	uint32_t depth, cap;
	uint32_t untracked; /* calls past SHADOW_MAX still open */
	uint32_t epoch;     /* recording epoch the stack belongs to */
	uint16_t *active;   /* by hooked index: activations on this thread */
	size_t active_cap;
	FunctionID unwinding; /* the function the exception unwinds now */
};

static struct {
	char text[PATTERNS_MAX * (PATTERN_LEN + 1)];
	char *patterns[PATTERNS_MAX];
	int npatterns;
	struct hooked *pool;
	_Atomic uint32_t nhooked;
	_Atomic uint64_t examined, repaired, too_deep, table_full;
	atomic_bool recording;
	_Atomic uint32_t epoch;
	pthread_key_t key;
	bool key_ok;
	/* sampler thread */
	uint64_t last_write_ns, last_total_calls;
	uint32_t last_hooked, last_drop_epoch;
	uint8_t last_recording;
} in;

/* ---- patterns ---- */

/* '*' is any run of characters (dots too), '?' any one. */
static bool glob_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '*') {
			star = p++;
			resume = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++resume;
		} else
			return false;
	}
	while (*p == '*')
		p++;
	return !*p;
}

static bool wanted(const char *name)
{
	for (int i = 0; i < in.npatterns; i++)
		if (glob_match(in.patterns[i], name))
			return true;
	return false;
}

int instr_configure(const char *patterns, char *why, size_t whylen)
{
	in.npatterns = 0;
	if (!patterns || !*patterns)
		return 0;
	size_t len = strlen(patterns);
	if (len >= sizeof in.text) {
		snprintf(why, whylen, "the instrumentation patterns are too long (%zu bytes)", len);
		return -1;
	}
	memcpy(in.text, patterns, len + 1);
	/* split in place: patterns[] point into text */
	char *save = NULL;
	for (char *line = strtok_r(in.text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t ll = strlen(line);
		while (ll && (line[ll - 1] == ' ' || line[ll - 1] == '\r'))
			line[--ll] = 0;
		while (*line == ' ')
			line++, ll--;
		if (!ll)
			continue;
		if (in.npatterns == PATTERNS_MAX || ll > PATTERN_LEN) {
			snprintf(why, whylen, "at most %d patterns of up to %d characters", PATTERNS_MAX, PATTERN_LEN);
			in.npatterns = 0;
			return -1;
		}
		in.patterns[in.npatterns++] = line;
	}
	if (!in.npatterns)
		return 0;
	if (!in.pool && !(in.pool = aligned_alloc(64, HOOKED_MAX * sizeof *in.pool))) {
		snprintf(why, whylen, "out of memory for the instrumentation table");
		in.npatterns = 0;
		return -1;
	}
	memset(in.pool, 0, HOOKED_MAX * sizeof *in.pool);
	atomic_store(&in.recording, true);
	return 0;
}

bool instr_configured(void)
{
	return in.npatterns > 0;
}

const char *instr_patterns(void)
{
	/* the patterns were split in place: give them back one per line */
	static char joined[sizeof in.text];
	size_t at = 0;
	joined[0] = 0;
	for (int i = 0; i < in.npatterns && at < sizeof joined; i++)
		at += (size_t)snprintf(joined + at, sizeof joined - at, "%s%s", i ? "\n" : "", in.patterns[i]);
	return joined;
}

DWORD instr_mask_bits(void)
{
	if (!instr_configured())
		return 0;
	/* FRAME_INFO is the cheapest flag that selects the slow path (plain C
	 * hooks, registers saved by the runtime); exceptions bring the unwind
	 * callbacks that keep shadow stacks right */
	return COR_PRF_MONITOR_ENTERLEAVE | COR_PRF_ENABLE_FRAME_INFO | COR_PRF_MONITOR_EXCEPTIONS;
}

/* ---- per thread ---- */

static void free_thread_state(void *p)
{
	struct thread_state *t = p;
	if (!t)
		return;
	free(t->frames);
	free(t->active);
	free(t);
}

static struct thread_state *thread_state(void)
{
	struct thread_state *t = pthread_getspecific(in.key);
	if (t)
		return t;
	t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->frames = malloc(SHADOW_INITIAL * sizeof *t->frames);
	if (!t->frames) {
		free(t);
		return NULL;
	}
	t->cap = SHADOW_INITIAL;
	t->epoch = atomic_load(&in.epoch);
	pthread_setspecific(in.key, t);
	return t;
}

/* A recording switch since this thread's last hook: its open frames were
 * entered in another epoch and cannot be timed. */
static void sync_epoch(struct thread_state *t)
{
	uint32_t e = atomic_load_explicit(&in.epoch, memory_order_relaxed);
	if (t->epoch == e)
		return;
	t->epoch = e;
	t->depth = 0;
	t->untracked = 0;
	if (t->active)
		memset(t->active, 0, t->active_cap * sizeof *t->active);
}

static bool ensure_active(struct thread_state *t, uint32_t index)
{
	return agent_grow(&t->active, &t->active_cap, (size_t)index + 1, sizeof *t->active, 64);
}

static bool ensure_depth(struct thread_state *t)
{
	if (t->depth < t->cap)
		return true;
	if (t->cap >= SHADOW_MAX)
		return false;
	struct shadow_frame *n = realloc(t->frames, (size_t)t->cap * 2 * sizeof *n);
	if (!n)
		return false;
	t->frames = n;
	t->cap *= 2;
	return true;
}

static void pop_frame(struct thread_state *t, uint64_t now)
{
	struct shadow_frame *fr = &t->frames[--t->depth];
	uint64_t elapsed = now > fr->start_ns ? now - fr->start_ns : 0;
	uint64_t own = elapsed > fr->child_ns ? elapsed - fr->child_ns : 0;
	atomic_fetch_add_explicit(&fr->f->exclusive_ns, own, memory_order_relaxed);
	if (fr->outermost)
		atomic_fetch_add_explicit(&fr->f->inclusive_ns, elapsed, memory_order_relaxed);
	if (fr->f->index < t->active_cap && t->active[fr->f->index])
		t->active[fr->f->index]--;
	if (t->depth)
		t->frames[t->depth - 1].child_ns += elapsed;
}

/* ---- the hooks (application threads, inside every hooked call) ---- */

static void on_enter(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
	(void)elt;
	if (!atomic_load_explicit(&in.recording, memory_order_relaxed))
		return;
	struct hooked *f = (struct hooked *)id.clientID;
	atomic_fetch_add_explicit(&f->calls, 1, memory_order_relaxed);
	struct thread_state *t = thread_state();
	if (!t)
		return;
	sync_epoch(t);
	if (t->untracked || !ensure_depth(t) || !ensure_active(t, f->index)) {
		t->untracked++;
		atomic_fetch_add_explicit(&in.too_deep, 1, memory_order_relaxed);
		return;
	}
	t->frames[t->depth++] = (struct shadow_frame){f, agent_mono_ns(), 0, t->active[f->index] == 0};
	t->active[f->index]++;
}

/* f's frame ends now (a return or a tail call).  Frames above it lost their
 * leave (an exception the unwind callbacks did not report): end them too. */
static void leave_frame(struct hooked *f)
{
	struct thread_state *t = pthread_getspecific(in.key);
	if (!t)
		return;
	sync_epoch(t);
	if (t->untracked) {
		t->untracked--;
		return;
	}
	uint32_t at = t->depth;
	while (at > 0 && t->frames[at - 1].f != f)
		at--;
	if (at == 0)
		return; /* entered before recording began: nothing to time */
	uint64_t now = agent_mono_ns();
	while (t->depth > at) {
		pop_frame(t, now);
		atomic_fetch_add_explicit(&in.repaired, 1, memory_order_relaxed);
	}
	pop_frame(t, now);
}

static void on_leave(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
	(void)elt;
	if (atomic_load_explicit(&in.recording, memory_order_relaxed))
		leave_frame((struct hooked *)id.clientID);
}

static void on_tailcall(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
	/* the caller's frame is replaced by the callee's: its part is over */
	(void)elt;
	if (atomic_load_explicit(&in.recording, memory_order_relaxed))
		leave_frame((struct hooked *)id.clientID);
}

static HRESULT on_unwind_enter(ICorProfilerCallback11 *self, FunctionID fn)
{
	(void)self;
	struct thread_state *t = pthread_getspecific(in.key);
	if (t)
		t->unwinding = fn;
	return S_OK;
}

static HRESULT on_unwind_leave(ICorProfilerCallback11 *self)
{
	(void)self;
	struct thread_state *t = pthread_getspecific(in.key);
	if (!t || !atomic_load_explicit(&in.recording, memory_order_relaxed))
		return S_OK;
	sync_epoch(t);
	/* only hooked frames are on the shadow stack, innermost on top */
	if (t->depth && atomic_load_explicit(&t->frames[t->depth - 1].f->fn, memory_order_relaxed) == t->unwinding)
		pop_frame(t, agent_mono_ns());
	t->unwinding = 0;
	return S_OK;
}

/* Called by the JIT for each function it compiles (on its own thread): the
 * answer decides whether the function gets hooks at all. */
static UINT_PTR map_function(FunctionID fn, void *ctx, BOOL *hook)
{
	(void)ctx;
	*hook = FALSE;
	atomic_fetch_add_explicit(&in.examined, 1, memory_order_relaxed);
	char name[1024];
	sym_function_name(fn, name, sizeof name);
	if (!wanted(name))
		return fn;
	uint32_t index = atomic_fetch_add(&in.nhooked, 1);
	if (index >= HOOKED_MAX) {
		atomic_store(&in.nhooked, HOOKED_MAX);
		atomic_fetch_add(&in.table_full, 1);
		return fn;
	}
	struct hooked *f = &in.pool[index];
	f->index = index;
	atomic_store_explicit(&f->fn, fn, memory_order_release);
	*hook = TRUE;
	return (UINT_PTR)f;
}

int instr_install(char *why, size_t whylen)
{
	if (!instr_configured())
		return 0;
	if (!in.key_ok) {
		if (pthread_key_create(&in.key, free_thread_state) != 0) {
			snprintf(why, whylen, "no thread-local slot for shadow stacks");
			return -1;
		}
		in.key_ok = true;
	}
	ICorProfilerInfo10 *info = g_agent.info;
	HRESULT hr = info->vtbl->SetFunctionIDMapper2(info, map_function, NULL);
	if (SUCCEEDED(hr))
		hr = info->vtbl->SetEnterLeaveFunctionHooks3WithInfo(info, on_enter, on_leave, on_tailcall);
	if (FAILED(hr)) {
		snprintf(why, whylen, "the runtime refused enter/leave hooks (0x%08x)", (unsigned)hr);
		return -1;
	}
	return 0;
}

void instr_install_callbacks(struct ICorProfilerCallback11Vtbl *vtbl)
{
	vtbl->ExceptionUnwindFunctionEnter = on_unwind_enter;
	vtbl->ExceptionUnwindFunctionLeave = on_unwind_leave;
}

void instr_set_recording(bool on)
{
	if (atomic_load(&in.recording) == on)
		return;
	atomic_fetch_add(&in.epoch, 1); /* open frames of the old epoch are dropped */
	atomic_store(&in.recording, on);
}

bool instr_recording(void)
{
	return instr_configured() && atomic_load(&in.recording);
}

/* ---- the sampler thread's side ---- */

struct calls_out {
	struct cs_out o;
	size_t at;
	struct cs_calls_head head;
	struct sym_defs *defs;
};

static void calls_begin(struct calls_out *c)
{
	c->at = cs_record_begin(&c->o);
	cs_calls_head_encode(&c->o, &c->head);
}

static void calls_flush(struct calls_out *c)
{
	sym_flush_defs(c->defs); /* frame names before the records that use them */
	if (cs_record_end(&c->o, c->at, CS_REC_CALLS))
		lw_append(c->o.buf, c->o.len, 1);
	c->o.len = 0;
	c->o.overflow = false;
}

void instr_drain(struct sym_defs *defs, bool force)
{
	if (!instr_configured())
		return;
	uint64_t now = agent_mono_ns();
	if (!force && now - in.last_write_ns < CALLS_EVERY_NS)
		return;
	uint32_t n = atomic_load(&in.nhooked);
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		total += atomic_load_explicit(&in.pool[i].calls, memory_order_relaxed);
	uint8_t recording = atomic_load(&in.recording);
	bool changed = total != in.last_total_calls || n != in.last_hooked || recording != in.last_recording;
	/* totals are cumulative: a lost record is made good by the next one,
	 * but after a drop the frame names must be restated */
	changed |= lw_drop_epoch() != in.last_drop_epoch;
	if (!changed && !force && in.last_write_ns)
		return;
	in.last_drop_epoch = lw_drop_epoch();
	in.last_write_ns = now;
	in.last_total_calls = total;
	in.last_hooked = n;
	in.last_recording = recording;

	static uint8_t buf[CALLS_RECORD_BYTES];
	struct calls_out c = {.defs = defs};
	cs_out_init(&c.o, buf, sizeof buf);
	c.head = (struct cs_calls_head){
		.time_us = agent_now_us(),
		.recording = recording,
		.hooked = n,
		.examined = atomic_load(&in.examined),
		.repaired = atomic_load(&in.repaired),
		.too_deep = atomic_load(&in.too_deep),
	};
	calls_begin(&c);
	for (uint32_t i = 0; i < n; i++) {
		struct hooked *f = &in.pool[i];
		FunctionID fn = atomic_load_explicit(&f->fn, memory_order_acquire);
		if (!fn)
			continue; /* the mapper is still filling it */
		if (c.o.cap - c.o.len < 64 || defs->frames.cap - defs->frames.len < 4096) {
			calls_flush(&c);
			calls_begin(&c);
		}
		struct cs_call_entry e = {
			.frame = sym_frame(fn, defs),
			.calls = atomic_load_explicit(&f->calls, memory_order_relaxed),
			.inclusive_ns = atomic_load_explicit(&f->inclusive_ns, memory_order_relaxed),
			.exclusive_ns = atomic_load_explicit(&f->exclusive_ns, memory_order_relaxed),
		};
		cs_call_entry_encode(&c.o, &e);
	}
	calls_flush(&c);
}
