#include "agent/symbols/asyncstack.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent/log/logwriter.h"
#include "agent/symbols/idmap.h"
#include "agent/symbols/ilmap.h"
#include "agent/symbols/unloads.h"
#include "agent/unwind/memread.h"
#include "common/records.h"

#define NAME_BYTES 1024
#define PARENTS_MAX 16  /* classes between a type and the one declaring a field */
#define TYPE_ARGS_MAX 8
#define CALLERS_MAX AW_MAX_DEPTH
/* An object[]'s elements follow its MethodTable pointer and its length
 * (padded to 8 bytes): the runtime's ArrayBase layout on 64-bit targets. */
#define ARRAY_DATA 16

static const char *const box_prefixes[] = {
	"System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1<",
	"System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+DebugFinalizableAsyncStateMachineBox`1<",
};

/* What a function is to a splice. */
enum fn_kind {
	FN_OTHER,
	FN_SM,       /* a state machine's MoveNext */
	FN_DISPATCH, /* a box's dispatch: its MoveNext, ExecuteFromThreadPool, ExecutionContextCallback ... */
};
struct fn_info {
	uint8_t kind;
	ClassID cls; /* FN_SM: the state machine's type; FN_DISPATCH: the box's (0: not known) */
};

static atomic_bool enabled = true;

/* Classes the runtime loaded, from its threads to the sampler thread,
 * which learns the boxes among them: a box whose code is shared (a
 * Task<T> of a reference type) names no exact type on the stack. */
#define LOADED_RING 8192u
static _Atomic uint64_t loaded[LOADED_RING];
static _Atomic uint64_t loaded_head, loaded_tail;

static struct {
	bool ready;
	struct idmap fns;   /* FunctionID -> index into fn_infos */
	struct fn_info *fn_infos;
	size_t nfn_infos, fn_infos_cap;
	struct idmap move_next; /* state machine ClassID -> its MoveNext's FunctionID, index into move_nexts */
	FunctionID *move_nexts;
	size_t nmove_nexts, move_nexts_cap;
	uint32_t ids_stamp;
	struct async_counts counts;
} as;

void async_set_enabled(bool on)
{
	atomic_store(&enabled, on);
}

bool async_enabled(void)
{
	return atomic_load(&enabled);
}

void async_reset(void)
{
	idmap_free(&as.fns);
	idmap_free(&as.move_next);
	free(as.fn_infos);
	free(as.move_nexts);
	struct async_counts counts = as.counts;
	memset(&as, 0, sizeof as);
	as.counts = counts;
}

static bool ready(void)
{
	if (as.ready)
		return true;
	if (!idmap_init(&as.fns, 1024) || !idmap_init(&as.move_next, 256))
		return false;
	as.ready = true;
	return true;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_box_name(const char *name)
{
	for (size_t i = 0; i < sizeof box_prefixes / sizeof *box_prefixes; i++)
		if (starts_with(name, box_prefixes[i]))
			return true;
	return false;
}

static struct fn_info classify_function(FunctionID fn)
{
	struct fn_info fi = {FN_OTHER, 0};
	char name[NAME_BYTES];
	sym_function_name(fn, name, sizeof name);
	const char *dot = strrchr(name, '.');
	if (!dot)
		return fi;
	ICorProfilerInfo10 *info = g_agent.info;
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken token = 0;
	if (strcmp(dot + 1, "MoveNext") == 0 && strstr(name, ">d__") && !strstr(name, "AsyncStateMachineBox`1")) {
		if (SUCCEEDED(info->vtbl->GetFunctionInfo2(info, fn, 0, &cls, &mod, &token, 0, NULL, NULL)) && cls)
			fi = (struct fn_info){FN_SM, cls};
	} else if (strstr(name, "AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1.") ||
		   strstr(name, "AsyncTaskMethodBuilder`1+DebugFinalizableAsyncStateMachineBox`1.")) {
		if (FAILED(info->vtbl->GetFunctionInfo2(info, fn, 0, &cls, &mod, &token, 0, NULL, NULL)))
			cls = 0;
		fi = (struct fn_info){FN_DISPATCH, cls};
	} else if (strcmp(name, "System.Threading.ExecutionContext.RunInternal") == 0 ||
		   strcmp(name, "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop") == 0) {
		fi = (struct fn_info){FN_DISPATCH, 0};
	}
	return fi;
}

static struct fn_info function_info(FunctionID fn)
{
	uint32_t idx;
	if (!fn)
		return (struct fn_info){FN_OTHER, 0};
	if (idmap_get(&as.fns, fn, &idx))
		return as.fn_infos[idx];
	struct fn_info fi = classify_function(fn);
	if (agent_grow(&as.fn_infos, &as.fn_infos_cap, as.nfn_infos + 1, sizeof *as.fn_infos, 64)) {
		as.fn_infos[as.nfn_infos] = fi;
		idmap_put(&as.fns, fn, (uint32_t)as.nfn_infos++);
	}
	return fi;
}

int32_t async_splice(const FunctionID *frames, uint32_t n, uint64_t *box_class)
{
	*box_class = 0;
	if (!ready())
		return -1;
	if (as.ids_stamp != sym_ids_stamp()) { /* FunctionIDs may mean others (an unload, an attach) */
		async_reset();
		if (!ready())
			return -1;
		as.ids_stamp = sym_ids_stamp();
	}
	for (uint32_t i = 0; i < n; i++) {
		if (function_info(frames[i]).kind != FN_SM)
			continue;
		bool dispatched = false;
		for (uint32_t j = i + 1; j < n; j++) {
			struct fn_info fi = function_info(frames[j]);
			if (fi.kind != FN_DISPATCH)
				break;
			dispatched = true;
			if (!*box_class)
				*box_class = fi.cls;
		}
		if (dispatched)
			return (int32_t)i;
	}
	return -1;
}

/* ---- types, from the runtime ---- */

static bool class_info(ClassID cls, ModuleID *mod, mdTypeDef *td, ClassID *parent)
{
	ICorProfilerInfo10 *info = g_agent.info;
	return SUCCEEDED(info->vtbl->GetClassIDInfo2(info, cls, mod, td, parent, 0, NULL, NULL));
}

/* ... or by one of its ancestors. */
static bool field_offset(ClassID cls, const WCHAR *name, uint32_t *offset)
{
	for (int depth = 0; cls && depth < PARENTS_MAX; depth++) {
		ModuleID mod = 0;
		mdTypeDef td = 0;
		ClassID parent = 0;
		if (!class_info(cls, &mod, &td, &parent))
			return false;
		if (sym_field_offset(cls, mod, td, name, offset))
			return true;
		cls = parent;
	}
	return false;
}

/* Whether cls is name or derives from it. */
static bool derives_from(ClassID cls, const char *name)
{
	char buf[NAME_BYTES];
	for (int depth = 0; cls && depth < PARENTS_MAX; depth++) {
		sym_class_name(cls, buf, sizeof buf);
		if (strcmp(buf, name) == 0)
			return true;
		ModuleID mod = 0;
		mdTypeDef td = 0;
		ClassID parent = 0;
		if (!class_info(cls, &mod, &td, &parent))
			return false;
		cls = parent;
	}
	return false;
}

/* A box's type: its state machine's type (the last type argument) and
 * where the state and the builder sit (a struct state machine only: a
 * class one, as Debug builds make, is not walked). */
static bool box_type(ClassID cls, struct aw_type *t)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ModuleID mod = 0;
	mdTypeDef td = 0;
	ClassID parent = 0, args[TYPE_ARGS_MAX];
	ULONG32 nargs = 0;
	if (FAILED(info->vtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent, TYPE_ARGS_MAX, &nargs, args)) ||
	    nargs < 1 || nargs > TYPE_ARGS_MAX)
		return false;
	ClassID sm = args[nargs - 1], sm_parent = 0;
	ModuleID sm_mod = 0;
	mdTypeDef sm_td = 0;
	char pname[NAME_BYTES];
	if (!class_info(sm, &sm_mod, &sm_td, &sm_parent))
		return false;
	sym_class_name(sm_parent, pname, sizeof pname);
	if (strcmp(pname, "System.ValueType") != 0)
		return false;
	t->kind = AW_BOX;
	t->sm_class = sm;
	/* the awaiter fields, one a type of awaiter, numbered from 1 */
	static const WCHAR *const awaiters[AW_AWAITERS_MAX] = {u"<>u__1", u"<>u__2", u"<>u__3", u"<>u__4"};
	t->nawaiters = 0;
	for (int i = 0; i < AW_AWAITERS_MAX; i++)
		if (sym_field_offset(sm, sm_mod, sm_td, awaiters[i], &t->awaiters[t->nawaiters]))
			t->nawaiters++;
	return field_offset(cls, u"m_continuationObject", &t->continuation) &&
	       field_offset(cls, u"StateMachine", &t->sm_off) &&
	       sym_field_offset(sm, sm_mod, sm_td, u"<>1__state", &t->sm_state) &&
	       sym_field_offset(sm, sm_mod, sm_td, u"<>t__builder", &t->sm_builder);
}

/* What a type is to the walk (AW_OTHER when nothing the walk follows). */
static struct aw_type classify_type(ClassID cls)
{
	struct aw_type t = {.kind = AW_OTHER};
	char name[NAME_BYTES];
	sym_class_name(cls, name, sizeof name);
	if (is_box_name(name)) {
		if (!box_type(cls, &t))
			t = (struct aw_type){.kind = AW_OTHER};
	} else if (strcmp(name, "System.Threading.Tasks.Task") == 0) {
		t.kind = AW_SENTINEL; /* a plain Task as a continuation: s_taskCompletionSentinel */
	} else if (strcmp(name, "System.Threading.Tasks.Task+SetOnInvokeMres") == 0) {
		t.kind = AW_BLOCKING;
	} else if (strcmp(name, "System.Action") == 0) {
		if (field_offset(cls, u"_target", &t.target))
			t.kind = AW_DELEGATE;
	} else if (strcmp(name, "System.Runtime.CompilerServices.AsyncMethodBuilderCore+ContinuationWrapper") == 0) {
		if (field_offset(cls, u"_continuation", &t.target))
			t.kind = AW_WRAPPER;
	} else if (strcmp(name, "System.Threading.Tasks.AwaitTaskContinuation") == 0 ||
		   strcmp(name, "System.Threading.Tasks.SynchronizationContextAwaitTaskContinuation") == 0 ||
		   strcmp(name, "System.Threading.Tasks.TaskSchedulerAwaitTaskContinuation") == 0) {
		if (field_offset(cls, u"m_action", &t.target))
			t.kind = AW_AWAIT_CONT;
	} else if (strcmp(name, "System.Collections.Generic.List`1<System.Object>") == 0) {
		if (field_offset(cls, u"_items", &t.items) && field_offset(cls, u"_size", &t.size))
			t.kind = AW_LIST;
	} else if (derives_from(cls, "System.Threading.Tasks.Task")) {
		if (field_offset(cls, u"m_continuationObject", &t.continuation)) {
			t.kind = AW_TASK;
			t.when_all = starts_with(name, "System.Threading.Tasks.Task+WhenAllPromise");
		}
	}
	return t;
}

/* ---- classes as they load ---- */

/* Whether the walk follows objects of a class of this name: the boxes,
 * and what lies between a task and the box that awaits it.  Learnt as they
 * load, they are known to the signal handlers and to the awaits
 * snapshots' heap walks, which cannot ask the runtime. */
static bool walked_name(const char *name)
{
	static const char *const exact[] = {
		"System.Threading.Tasks.Task",
		"System.Threading.Tasks.Task+SetOnInvokeMres",
		"System.Action",
		"System.Runtime.CompilerServices.AsyncMethodBuilderCore+ContinuationWrapper",
		"System.Threading.Tasks.AwaitTaskContinuation",
		"System.Threading.Tasks.SynchronizationContextAwaitTaskContinuation",
		"System.Threading.Tasks.TaskSchedulerAwaitTaskContinuation",
		"System.Collections.Generic.List`1<System.Object>",
	};
	for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
		if (strcmp(name, exact[i]) == 0)
			return true;
	return is_box_name(name) || (starts_with(name, "System.Threading.Tasks.") && strstr(name, "Promise"));
}

static HRESULT on_class_loaded(ICorProfilerCallback11 *self, ClassID cls, HRESULT status)
{
	(void)self;
	if (FAILED(status) || !cls)
		return S_OK;
	uint64_t at = atomic_fetch_add(&loaded_head, 1);
	if (at - atomic_load(&loaded_tail) >= LOADED_RING)
		return S_OK; /* (a burst beyond the ring: those boxes are learnt from their stacks) */
	atomic_store_explicit(&loaded[at % LOADED_RING], cls, memory_order_release);
	return S_OK;
}

void async_install(struct ICorProfilerCallback11Vtbl *vtbl)
{
	vtbl->ClassLoadFinished = on_class_loaded;
}

static bool learn(uint64_t cls, struct aw_type *t);

/* When the latest unload that async_drain saw began (unloads.h). */
static uint64_t unload_seen_ns;

void async_drain(void)
{
	uint64_t tail = atomic_load(&loaded_tail), head = atomic_load(&loaded_head);
	uint64_t unloaded = unloads_last_ns();
	if (unloaded != unload_seen_ns) {
		/* collectible code was unloaded: the classes queued, and every ID
		 * kept here, may be freed memory now (the runtime does not check
		 * an ID it is asked about): all forgotten */
		unload_seen_ns = unloaded;
		for (; tail != head; tail++)
			atomic_store(&loaded[tail % LOADED_RING], 0);
		atomic_store(&loaded_tail, tail);
		async_reset();
		aw_types_clear();
		return;
	}
	char name[NAME_BYTES];
	for (; tail != head; tail++) {
		uint64_t cls = atomic_exchange_explicit(&loaded[tail % LOADED_RING], 0, memory_order_acquire);
		if (!cls)
			break; /* (not written yet: next time) */
		sym_class_name((ClassID)cls, name, sizeof name);
		struct aw_type t;
		if (walked_name(name))
			learn(cls, &t);
	}
	atomic_store(&loaded_tail, tail);
}

/* ---- the look in the signal handler ---- */

static int handler_read(void *ctx, uint64_t addr, void *buf, uint32_t n)
{
	(void)ctx;
	return memread(addr, buf, n);
}

/* The words in one system call; from an unreadable one on, again past it. */
static void handler_read_words(void *ctx, const uint64_t *addrs, uint64_t *out, uint32_t n)
{
	(void)ctx;
	struct iovec remote[64];
	uint32_t at = 0;
	while (at < n) {
		uint32_t k = n - at < 64 ? n - at : 64;
		for (uint32_t i = 0; i < k; i++)
			remote[i] = (struct iovec){(void *)(uintptr_t)addrs[at + i], 8};
		struct iovec local = {out + at, (size_t)k * 8};
		ssize_t got = syscall(SYS_process_vm_readv, (long)getpid(), &local, 1ul, remote, (unsigned long)k, 0ul);
		uint32_t whole = got > 0 ? (uint32_t)(got / 8) : 0;
		if (whole < k)
			out[at + whole++] = 0; /* unreadable: skipped */
		at += whole;
	}
}

static bool handler_type_of(void *ctx, uint64_t mt, struct aw_type *out)
{
	(void)ctx;
	return aw_types_get(mt, out);
}

const struct aw_env *async_memory(void)
{
	static const struct aw_env env = {NULL, handler_read, handler_read_words, handler_type_of, ARRAY_DATA};
	return &env;
}

bool async_wanted(void)
{
	return atomic_load_explicit(&enabled, memory_order_relaxed) && aw_types_any_box();
}

void async_take(const uint64_t *words, uint32_t n, uint32_t gc_epoch, struct aw_sample *out)
{
	out->taken = out->moved = false;
	out->nboxes = 0;
	out->gc_epoch = gc_epoch;
	if (gc_epoch & 1) {
		out->moved = true;
		return;
	}
	aw_take(async_memory(), words, n, out);
	if (activity_gc_epoch() != gc_epoch) {
		out->taken = false;
		out->moved = true;
	}
}

/* ---- on the sampler thread ---- */

/* The type of a ClassID the runtime gave, or of a MethodTable read while
 * no GC could move what held it: learnt once, for the handlers. */
static bool learn(uint64_t cls, struct aw_type *t)
{
	if (aw_types_get(cls, t))
		return true;
	*t = classify_type((ClassID)cls);
	return aw_types_put(cls, t);
}

/* The MoveNext of a state machine type (0: not to be had). */
static FunctionID move_next_of(ClassID sm)
{
	uint32_t idx;
	if (idmap_get(&as.move_next, sm, &idx))
		return as.move_nexts[idx];
	FunctionID fn = 0;
	ModuleID mod = 0;
	mdTypeDef td = 0;
	ClassID parent = 0;
	IMetaDataImport *md = NULL;
	mdMethodDef method = 0;
	ICorProfilerInfo10 *info = g_agent.info;
	/* a generic state machine's (its class is an instantiation) comes
	 * with its class's type arguments */
	if (class_info(sm, &mod, &td, &parent) && (md = sym_module_metadata(mod)) &&
	    SUCCEEDED(md->vtbl->FindMethod(md, td, u"MoveNext", NULL, 0, &method)) &&
	    FAILED(info->vtbl->GetFunctionFromToken(info, mod, method, &fn)) &&
	    FAILED(info->vtbl->GetFunctionFromTokenAndTypeArgs(info, mod, method, (ClassID)sm, 0, NULL, &fn)))
		fn = 0;
	if (agent_grow(&as.move_nexts, &as.move_nexts_cap, as.nmove_nexts + 1, sizeof *as.move_nexts, 64)) {
		as.move_nexts[as.nmove_nexts] = fn;
		idmap_put(&as.move_next, sm, (uint32_t)as.nmove_nexts++);
	}
	return fn;
}

/* Whether a box's state machine type is the frame's: the same type, or
 * the same generic definition where the frame's code is shared by its
 * instantiations over reference types (the frame names the canonical one,
 * <ProcessRequests>d__237`1<__Canon>, the box its exact type). */
static bool same_state_machine(ClassID box_sm, ClassID frame_sm)
{
	ModuleID m1 = 0, m2 = 0;
	mdTypeDef t1 = 0, t2 = 0;
	ClassID p1 = 0, p2 = 0;
	return box_sm == frame_sm || (box_sm && frame_sm && class_info(box_sm, &m1, &t1, &p1) &&
				      class_info(frame_sm, &m2, &t2, &p2) && m1 == m2 && t1 == t2);
}

/* The callers of the box running the state machine of frame sm_frame, as
 * the capture's look found them. */
static enum aw_status resolve(FunctionID sm_frame, uint64_t box_class, const struct aw_sample *taken,
			      const struct aw_found **found)
{
	struct aw_type bt;
	ClassID sm = function_info(sm_frame).cls;
	if (box_class && learn(box_class, &bt) && (bt.kind != AW_BOX || !same_state_machine(bt.sm_class, sm)))
		return AW_TYPE; /* (the dispatch frame's box is not the frame's state machine's) */
	if (taken && taken->moved)
		return AW_GC;
	if (!taken || !taken->taken)
		return AW_TYPE; /* (not looked for: no box type was known yet) */
	*found = NULL;
	for (uint32_t i = 0; i < taken->nboxes; i++) {
		/* a box of the frame's state machine (the dispatch frame's class is
		 * the canonical one where the box's code is shared: Task<string>) */
		if (!aw_types_get(taken->box[i].box_mt, &bt) || bt.kind != AW_BOX || !same_state_machine(bt.sm_class, sm))
			continue;
		if (*found)
			return AW_AMBIGUOUS;
		*found = &taken->box[i];
	}
	if (!*found)
		return taken->more ? AW_AMBIGUOUS : AW_NOT_FOUND;
	if ((*found)->status == AW_TYPE) {
		struct aw_type t;
		learn((*found)->unknown_mt, &t); /* (read with the box held: a real type) */
	}
	if ((*found)->status != AW_RESOLVED)
		return (enum aw_status)(*found)->status;
	/* a root may have been a method registering its await on another
	 * thread: it stands if its continuation is still null (no GC since the
	 * sample, so the address is still the object's) */
	uint32_t epoch = activity_gc_epoch();
	if (epoch != taken->gc_epoch)
		return AW_GC;
	bool stands = aw_root_stands(async_memory(), *found);
	if (activity_gc_epoch() != epoch)
		return AW_GC;
	return stands ? AW_RESOLVED : AW_UNKNOWN;
}

uint64_t async_stack(uint64_t physical, const FunctionID *frames, const uint64_t *addrs, uint32_t n,
		     bool truncated, bool leaf_maybe_call, const struct activity *act, const struct aw_sample *taken,
		     struct sym_defs *d)
{
	if (!atomic_load(&enabled) || truncated || !physical)
		return physical;
	uint64_t box_class = 0;
	int32_t splice = async_splice(frames, n, &box_class);
	if (splice < 0)
		return physical;
	uint64_t t0 = agent_mono_ns();
	const struct aw_found *found = NULL;
	enum aw_status st = resolve(frames[splice], box_class, taken, &found);
	uint64_t base = 0;
	for (uint32_t k = st == AW_RESOLVED ? found->n : 0; k-- > 0;) {
		FunctionID fn = move_next_of(found->callers[k].sm_class);
		if (!fn) {
			st = AW_TYPE;
			break;
		}
		base = sym_stack(base, sym_frame(fn, d), ILMAP_NONE, d);
		if (found->callers[k].when_all)
			base = sym_stack(base, sym_pseudo_frame(CS_FRAME_WHEN_ALL, d), ILMAP_NONE, d);
	}
	if (st != AW_RESOLVED)
		base = 0;
	uint64_t marker = sym_splice(base, st == AW_RESOLVED, physical, d);
	uint64_t logical = sym_stack_above(marker, frames, addrs, (uint32_t)splice + 1, leaf_maybe_call, act, d);
	sym_logical(logical, physical, d);
	if (st == AW_RESOLVED)
		as.counts.resolved++;
	else if (as.counts.unresolved[st]++ % 256 == 0)
		agent_debug("async stacks: %" PRIu64 " unresolved (%s), %" PRIu64 " resolved", as.counts.unresolved[st],
			    aw_status_name(st), as.counts.resolved);
	as.counts.ns += agent_mono_ns() - t0;
	return logical;
}

bool async_learn_walked(uint64_t mt)
{
	struct aw_type t;
	char name[NAME_BYTES];
	if (!mt || aw_types_get(mt, &t))
		return false;
	sym_class_name((ClassID)mt, name, sizeof name);
	return walked_name(name) && learn(mt, &t) && t.kind == AW_BOX;
}

uint64_t async_chain_stack(const struct aw_caller *chain, uint32_t n, enum async_root root, uint64_t awaited,
			   struct sym_defs *d)
{
	if (!ready())
		return 0;
	uint64_t stack = 0;
	if (root != ASYNC_ROOT_NONE)
		stack = sym_stack(0,
				  sym_pseudo_frame(root == ASYNC_ROOT_BLOCKED ? CS_FRAME_BLOCKING_WAIT
									     : CS_FRAME_AWAIT_UNRESOLVED,
						   d),
				  ILMAP_NONE, d);
	for (uint32_t k = n; k-- > 0;) {
		FunctionID fn = move_next_of(chain[k].sm_class);
		if (!fn) /* (a state machine without a MoveNext to be had: its callers are kept, under [await ?]) */
			stack = sym_stack(0, sym_pseudo_frame(CS_FRAME_AWAIT_UNRESOLVED, d), ILMAP_NONE, d);
		else
			stack = sym_stack(stack, sym_frame(fn, d), ILMAP_NONE, d);
		if (chain[k].when_all && k > 0)
			stack = sym_stack(stack, sym_pseudo_frame(CS_FRAME_WHEN_ALL, d), ILMAP_NONE, d);
	}
	if (awaited)
		stack = sym_stack(stack, sym_awaiting_frame((ClassID)awaited, d), ILMAP_NONE, d);
	return stack;
}

struct async_counts async_counts(void)
{
	return as.counts;
}
