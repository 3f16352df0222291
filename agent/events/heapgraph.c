#include "agent/events/heapgraph.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/events/eventpipe.h"
#include "agent/events/graphenc.h"
#include "agent/events/heaprecord.h"
#include "agent/events/instrument.h"
#include "agent/events/staticnames.h"
#include "agent/log/logwriter.h"
#include "agent/symbols/symbols.h"
#include "common/logfmt.h"
#include "common/records.h"
#include "common/utf16.h"
#include "common/wire.h"

/* Microsoft-Windows-DotNETRuntime: the heap-dump events and their keyword
 * (ClrEtwAll.man).  Types are not asked for (keyword Type): the agent
 * names them itself, after the pause, as it names HEAP's. */
#define KW_GC_HEAP_DUMP UINT64_C(0x100000)
enum {
	EV_BULK_ROOT_EDGE = 16,
	EV_BULK_ROOT_CWT = 17,
	EV_BULK_NODE = 18,
	EV_BULK_EDGE = 19,
	EV_BULK_ROOT_STATIC = 38,
};
/* the bulk events' head: Index u32, Count u32, ClrInstanceID u16 */
#define BULK_HEAD 10u
#define NODE_BYTES 32u   /* Address, Size, TypeID, EdgeCount: u64 each */
#define EDGE_BYTES 12u   /* Value u64, ReferencingFieldID u32 */
#define ROOT_BYTES 21u   /* RootedNodeAddress u64, GCRootKind u8, GCRootFlag u32, GCRootID u64 */
#define CWT_BYTES 24u    /* GCKeyNodeID, GCValueNodeID, GCRootID: u64 each */
#define STATIC_HEAD 14u  /* Count u32, AppDomainID u64, ClrInstanceID u16 */

#define TYPE_MAX (1u << 17)     /* types in one snapshot; more are lost */
#define TYPE_SLOTS (1u << 18)   /* the open-addressing table over them */
#define METHOD_SLOTS (1u << 14) /* distinct methods of stack roots named */
#define FIELD_MAX 256           /* bytes of a static field's name kept */
#define NAME_MAX_BYTES 1024

static const WCHAR provider_name[] = u"Microsoft-Windows-DotNETRuntime";

struct type_info {
	ClassID cls;
	uint64_t count, bytes; /* bytes rounded up to the heap's alignment, as HEAP's */
};

struct static_root {
	uint64_t slot, object;
	uint8_t flags;
	char field[FIELD_MAX];
};

enum { STREAM_NODE, STREAM_EDGE, STREAM_ROOT, STREAM_CWT, STREAM_STATIC, EVENT_STREAMS };

/* What the walk gathers besides the encoded streams; the callback's, under mu. */
static struct {
	pthread_mutex_t mu;
	_Atomic bool armed;
	uint32_t *slots; /* type index + 1 by hash of ClassID, TYPE_SLOTS */
	struct type_info *types;
	uint32_t ntypes;
	ClassID last_cls; /* the type before: objects of one type come in runs */
	uint32_t last_type;
	FunctionID *methods; /* METHOD_SLOTS, 0: free */
	uint32_t nmethods;
	struct static_root *statics;
	size_t nstatics, statics_cap;
	uint64_t roots[CS_ROOT_KINDS];
	uint32_t next_index[EVENT_STREAMS]; /* each bulk stream's next event Index */
	uint64_t lost;                       /* events or values lost or cut, types and statics not kept */
	void (*visit)(uint64_t address, uint64_t type); /* a visiting walk's (hg_visit): nothing encoded */
	uint64_t visited;
	uint64_t callback_ns;                /* time spent in the callback (the debug log says it) */
} w = {.mu = PTHREAD_MUTEX_INITIALIZER};

bool hg_available(void)
{
	/* instrumentation keeps exception callbacks on, which beside a session
	 * make the runtime abort (see eventpipe.c) */
	return eventpipe_available() && !instr_configured();
}

/* ---- the callback: the runtime suspended, only counting and encoding ---- */

static uint32_t hash_ptr(uint64_t p)
{
	p ^= p >> 33;
	p *= UINT64_C(0xff51afd7ed558ccd);
	p ^= p >> 33;
	return (uint32_t)p;
}

/* The type's index, TYPE_MAX when the table is full. */
static uint32_t type_of(ClassID cls)
{
	if (cls == w.last_cls && w.ntypes)
		return w.last_type;
	uint32_t i = hash_ptr(cls) & (TYPE_SLOTS - 1);
	for (;; i = (i + 1) & (TYPE_SLOTS - 1)) {
		uint32_t at = w.slots[i];
		if (!at) {
			if (w.ntypes == TYPE_MAX) {
				w.lost++;
				return TYPE_MAX;
			}
			w.types[w.ntypes] = (struct type_info){cls, 0, 0};
			w.slots[i] = ++w.ntypes;
			at = w.ntypes;
		} else if (w.types[at - 1].cls != cls)
			continue;
		w.last_cls = cls;
		w.last_type = at - 1;
		return at - 1;
	}
}

static void note_method(FunctionID fn)
{
	if (!fn)
		return;
	uint32_t i = hash_ptr(fn) & (METHOD_SLOTS - 1);
	for (uint32_t probes = 0; probes < METHOD_SLOTS; probes++, i = (i + 1) & (METHOD_SLOTS - 1)) {
		if (w.methods[i] == fn)
			return;
		if (!w.methods[i]) {
			if (w.nmethods >= METHOD_SLOTS / 2)
				break; /* unnamed beyond this: the roots stay */
			w.methods[i] = fn;
			w.nmethods++;
			return;
		}
	}
	w.lost++;
}

/* A bulk event's values, after checking its Index follows the one before
 * of its stream and its payload holds Count values of `size` bytes. */
static const uint8_t *bulk_values(int stream, const uint8_t *data, size_t len, size_t size, uint32_t *count)
{
	if (len < BULK_HEAD) {
		w.lost++;
		return NULL;
	}
	uint32_t index = cs_load_u32(data), n = cs_load_u32(data + 4);
	if (index != w.next_index[stream])
		w.lost++; /* an event of the stream went missing */
	w.next_index[stream] = index + 1;
	if (n > (len - BULK_HEAD) / size) {
		w.lost++;
		n = (uint32_t)((len - BULK_HEAD) / size);
	}
	*count = n;
	return data + BULK_HEAD;
}

static uint64_t load_u64(const uint8_t *p)
{
	return (uint64_t)cs_load_u32(p) | (uint64_t)cs_load_u32(p + 4) << 32;
}

static void on_nodes(const uint8_t *data, size_t len)
{
	uint32_t n;
	const uint8_t *v = bulk_values(STREAM_NODE, data, len, NODE_BYTES, &n);
	for (uint32_t i = 0; v && i < n; i++, v += NODE_BYTES) {
		struct cs_graph_node node = {load_u64(v), 0, load_u64(v + 8), load_u64(v + 24)};
		node.type = type_of((ClassID)load_u64(v + 16));
		if (node.type < TYPE_MAX) {
			struct type_info *t = &w.types[node.type];
			t->count++;
			t->bytes += (node.size + CS_GRAPH_ALIGN - 1) & ~(uint64_t)(CS_GRAPH_ALIGN - 1);
		}
		ge_node(&node);
	}
}

/* A visiting walk's nodes: each shown to the visitor as it comes. */
static void visit_nodes(const uint8_t *data, size_t len)
{
	uint32_t n;
	const uint8_t *v = bulk_values(STREAM_NODE, data, len, NODE_BYTES, &n);
	for (uint32_t i = 0; v && i < n; i++, v += NODE_BYTES)
		w.visit(load_u64(v), load_u64(v + 16));
	w.visited += n;
}

static void on_edges(const uint8_t *data, size_t len)
{
	uint32_t n;
	const uint8_t *v = bulk_values(STREAM_EDGE, data, len, EDGE_BYTES, &n);
	for (uint32_t i = 0; v && i < n; i++, v += EDGE_BYTES)
		ge_edge(load_u64(v));
}

static void on_roots(const uint8_t *data, size_t len)
{
	uint32_t n;
	const uint8_t *v = bulk_values(STREAM_ROOT, data, len, ROOT_BYTES, &n);
	for (uint32_t i = 0; v && i < n; i++, v += ROOT_BYTES) {
		uint8_t kind = v[8];
		struct cs_graph_root r = {kind < CS_ROOT_KINDS ? kind : CS_ROOT_OTHER, (uint8_t)cs_load_u32(v + 9),
					  load_u64(v), load_u64(v + 13), 0};
		if (!r.address)
			continue; /* a stack slot that holds null */
		w.roots[r.kind]++;
		if (r.kind == CS_ROOT_STACK)
			note_method((FunctionID)r.root_id);
		ge_root(&r);
	}
}

static void on_dependent_handles(const uint8_t *data, size_t len)
{
	uint32_t n;
	const uint8_t *v = bulk_values(STREAM_CWT, data, len, CWT_BYTES, &n);
	for (uint32_t i = 0; v && i < n; i++, v += CWT_BYTES) {
		struct cs_graph_root r = {CS_GRAPH_ROOT_DEPENDENT, 0, load_u64(v), load_u64(v + 16), load_u64(v + 8)};
		ge_root(&r);
	}
}

/* GCBulkRootStaticVar: values of GCRootID u64 (the field's address),
 * ObjectID u64, TypeID u64, Flags u32, FieldName (NUL-terminated UTF-16). */
static void on_statics(const uint8_t *data, size_t len)
{
	if (len < STATIC_HEAD) {
		w.lost++;
		return;
	}
	uint32_t n = cs_load_u32(data);
	const uint8_t *p = data + STATIC_HEAD, *end = data + len;
	for (uint32_t i = 0; i < n; i++) {
		if (end - p < 28) {
			w.lost++;
			return;
		}
		struct static_root s = {load_u64(p), load_u64(p + 8), (uint8_t)(cs_load_u32(p + 24) & CS_GRAPH_STATIC_THREAD), ""};
		p += 28;
		const uint8_t *name = p;
		while (end - p >= 2 && cs_load_u16(p))
			p += 2;
		if (end - p < 2) {
			w.lost++;
			return;
		}
		size_t units = (size_t)(p - name) / 2;
		p += 2;
		uint16_t wide[FIELD_MAX];
		if (units > FIELD_MAX)
			units = FIELD_MAX;
		for (size_t k = 0; k < units; k++)
			wide[k] = cs_load_u16(name + 2 * k);
		cs_utf16_to_utf8(wide, units, s.field, sizeof s.field);
		if (!agent_grow(&w.statics, &w.statics_cap, w.nstatics + 1, sizeof *w.statics, 256)) {
			w.lost++;
			continue;
		}
		w.statics[w.nstatics++] = s;
	}
}

void hg_event(uint32_t id, const uint8_t *data, size_t len)
{
	if (!atomic_load_explicit(&w.armed, memory_order_acquire))
		return;
	pthread_mutex_lock(&w.mu);
	uint64_t t0 = agent_mono_ns();
	if (atomic_load_explicit(&w.armed, memory_order_relaxed) && w.visit) {
		if (id == EV_BULK_NODE)
			visit_nodes(data, len);
	} else if (atomic_load_explicit(&w.armed, memory_order_relaxed)) {
		switch (id) {
		case EV_BULK_NODE: on_nodes(data, len); break;
		case EV_BULK_EDGE: on_edges(data, len); break;
		case EV_BULK_ROOT_EDGE: on_roots(data, len); break;
		case EV_BULK_ROOT_CWT: on_dependent_handles(data, len); break;
		case EV_BULK_ROOT_STATIC: on_statics(data, len); break;
		default: break;
		}
	}
	w.callback_ns += agent_mono_ns() - t0;
	pthread_mutex_unlock(&w.mu);
}

/* ---- the snapshot thread ---- */

static bool prepare(void)
{
	if (!w.slots)
		w.slots = malloc(TYPE_SLOTS * sizeof *w.slots);
	if (!w.types)
		w.types = malloc(TYPE_MAX * sizeof *w.types);
	if (!w.methods)
		w.methods = malloc(METHOD_SLOTS * sizeof *w.methods);
	if (!w.slots || !w.types || !w.methods)
		return false;
	memset(w.slots, 0, TYPE_SLOTS * sizeof *w.slots);
	memset(w.methods, 0, METHOD_SLOTS * sizeof *w.methods);
	memset(w.roots, 0, sizeof w.roots);
	memset(w.next_index, 0, sizeof w.next_index);
	w.ntypes = w.nmethods = 0;
	w.last_cls = 0;
	w.nstatics = 0;
	w.lost = 0;
	w.callback_ns = 0;
	return true;
}

/* The memory of a big walk goes back: snapshots are rare. */
static void release(void)
{
	free(w.slots);
	free(w.types);
	free(w.methods);
	free(w.statics);
	w.slots = NULL;
	w.types = NULL;
	w.methods = NULL;
	w.statics = NULL;
	w.statics_cap = 0;
}

/* The collection with the session around it; the pause, or -1 (said why:
 * "WHAT SEQ failed: ..."). */
static int64_t collect(const char *what, uint64_t seq)
{
	ICorProfilerInfo10 *info = g_agent.info;
	COR_PRF_EVENTPIPE_PROVIDER_CONFIG cfg = {provider_name, KW_GC_HEAP_DUMP, COR_PRF_EVENTPIPE_INFORMATIONAL, NULL};
	EVENTPIPE_SESSION session = 0;
	HRESULT hr = info->vtbl->EventPipeStartSession(info, 1, &cfg, FALSE, &session);
	if (FAILED(hr)) {
		lw_message(CS_LEVEL_WARNING, "%s %llu failed: the runtime refused its event session (0x%08x)", what,
			   (unsigned long long)seq, (unsigned)hr);
		return -1;
	}
	atomic_store_explicit(&w.armed, true, memory_order_release);
	uint64_t t0 = agent_mono_ns();
	hr = info->vtbl->ForceGC(info);
	uint64_t t1 = agent_mono_ns();
	pthread_mutex_lock(&w.mu);
	atomic_store_explicit(&w.armed, false, memory_order_relaxed);
	pthread_mutex_unlock(&w.mu);
	info->vtbl->EventPipeStopSession(info, session);
	if (FAILED(hr)) {
		lw_message(CS_LEVEL_WARNING, "%s %llu failed: the runtime refused to collect (0x%08x)", what,
			   (unsigned long long)seq, (unsigned)hr);
		return -1;
	}
	return (int64_t)((t1 - t0) / 1000);
}

static void write_statics(uint64_t seq, uint64_t *count, uint64_t *lost)
{
	struct sn_static *names = calloc(w.nstatics ? w.nstatics : 1, sizeof *names);
	if (!names) {
		*lost += w.nstatics;
		return;
	}
	for (size_t i = 0; i < w.nstatics; i++)
		names[i] = (struct sn_static){.slot = w.statics[i].slot, .object = w.statics[i].object,
					      .field = w.statics[i].field};
	sn_resolve(names, w.nstatics);
	static struct ge_list l;
	ge_list_begin(&l, CS_REC_HEAP_STATICS, seq);
	for (size_t i = 0; i < w.nstatics; i++) {
		const struct static_root *s = &w.statics[i];
		struct cs_graph_static e = {s->slot, s->object, s->flags, {names[i].type, strlen(names[i].type)},
					    {s->field, strlen(s->field)}};
		ge_list_need(&l, 40 + e.type.len + e.field.len);
		cs_graph_static_encode(&l.o, &e);
	}
	ge_list_end(&l);
	*count = w.nstatics;
	*lost += l.lost;
	free(names);
}

static void write_methods(uint64_t seq, uint64_t *count, uint64_t *lost)
{
	static struct ge_list l;
	ge_list_begin(&l, CS_REC_HEAP_METHODS, seq);
	for (uint32_t i = 0; i < METHOD_SLOTS; i++) {
		if (!w.methods[i])
			continue;
		char name[NAME_MAX_BYTES];
		sym_function_name(w.methods[i], name, sizeof name);
		struct cs_graph_method e = {w.methods[i], {name, strlen(name)}};
		ge_list_need(&l, 24 + e.name.len);
		cs_graph_method_encode(&l.o, &e);
	}
	ge_list_end(&l);
	*count = w.nmethods;
	*lost += l.lost;
}

/* HEAP_TYPES, and HEAP's entries into parts: the types' names, with
 * their objects and bytes; false when those are lost. */
static bool write_types(uint64_t seq, uint64_t time_us, uint64_t pause_us, struct heap_parts *parts, uint64_t *lost)
{
	static struct ge_list l;
	ge_list_begin(&l, CS_REC_HEAP_TYPES, seq);
	struct cs_heap_head head = {.time_us = time_us, .seq = seq, .pause_us = pause_us, .walk = CS_HEAP_WALK_GC};
	memcpy(head.roots, w.roots, sizeof head.roots);
	hp_init(parts, &head);
	bool ok = true;
	for (uint32_t i = 0; i < w.ntypes; i++) {
		char name[NAME_MAX_BYTES];
		sym_class_name_uncached(w.types[i].cls, name, sizeof name);
		struct cs_graph_type e = {i, {name, strlen(name)}};
		ge_list_need(&l, 24 + e.name.len);
		cs_graph_type_encode(&l.o, &e);
		ok = ok && hp_add(parts, name, w.types[i].count, w.types[i].bytes);
	}
	ge_list_end(&l);
	*lost += l.lost;
	if (!ok)
		lw_message(CS_LEVEL_WARNING, "heap snapshot %llu: its objects by type lost: out of memory",
			   (unsigned long long)seq);
	return ok;
}

void hg_take(uint64_t seq, uint64_t time_us)
{
	char why[200];
	if (!prepare() || ge_start(seq, why, sizeof why) < 0) {
		if (!w.slots || !w.types || !w.methods)
			snprintf(why, sizeof why, "out of memory");
		lw_message(CS_LEVEL_WARNING, "heap snapshot %llu skipped: %s", (unsigned long long)seq, why);
		release();
		return;
	}
	int64_t pause_us = collect("heap snapshot", seq);
	struct ge_totals totals;
	ge_finish(&totals);
	if (pause_us >= 0 && !totals.entries[GE_NODES]) {
		lw_message(CS_LEVEL_WARNING, "heap snapshot %llu failed: the runtime did not walk the heap",
			   (unsigned long long)seq);
		pause_us = -1;
	}
	if (pause_us < 0) {
		release();
		return;
	}
	struct cs_graph_head sum = {
		.time_us = time_us,
		.seq = seq,
		.pause_us = (uint64_t)pause_us,
		.nodes = totals.entries[GE_NODES],
		.edges = totals.entries[GE_EDGES],
		.roots = totals.entries[GE_ROOTS],
		.types = w.ntypes,
		.lost = w.lost + totals.lost_records + totals.misaligned,
	};
	write_statics(seq, &sum.statics, &sum.lost);
	write_methods(seq, &sum.methods, &sum.lost);
	/* HEAP_GRAPH before HEAP: a reader has the whole graph by the time the
	 * snapshot's HEAP records are complete */
	struct heap_parts parts;
	bool named = write_types(seq, time_us, sum.pause_us, &parts, &sum.lost);
	uint8_t buf[256];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	size_t at = cs_record_begin(&o);
	cs_graph_head_encode(&o, &sum);
	if (!cs_record_end(&o, at, CS_REC_HEAP_GRAPH) || !ge_write(o.buf, o.len, 1))
		sum.lost++;
	if (named)
		hp_write(&parts, true);
	hp_free(&parts);
	if (sum.lost)
		lw_message(CS_LEVEL_WARNING,
			   "heap snapshot %llu is incomplete: %llu records or events of its walk were lost "
			   "(the log could not keep up, or the walk had more types than %u)",
			   (unsigned long long)seq, (unsigned long long)sum.lost, TYPE_MAX);
	agent_debug("heap snapshot %llu: %llu objects, %llu references, %llu roots, %llu statics, %u types; "
		    "pause %.3f ms, %.3f ms of it encoding; %llu KiB waited in memory at most",
		    (unsigned long long)seq, (unsigned long long)sum.nodes, (unsigned long long)sum.edges,
		    (unsigned long long)sum.roots, (unsigned long long)sum.statics, w.ntypes, (double)pause_us / 1000.0,
		    (double)w.callback_ns / 1e6,
		    (unsigned long long)(totals.queued_max >> 10));
	release();
}

int64_t hg_visit(uint64_t seq, const char *what, void (*visit)(uint64_t address, uint64_t type))
{
	w.visit = visit;
	w.visited = 0;
	memset(w.next_index, 0, sizeof w.next_index);
	int64_t pause_us = collect(what, seq);
	if (pause_us >= 0 && !w.visited) {
		lw_message(CS_LEVEL_WARNING, "%s %llu failed: the runtime did not walk the heap", what,
			   (unsigned long long)seq);
		pause_us = -1;
	}
	w.visit = NULL;
	return pause_us;
}
