/* The record kinds of the session log and their payloads, made from the
 * table in common/schema.h: the record type numbers, the structs, and the
 * encoders and decoders of every layout.  clrscope-session(5) is the long
 * form.
 *
 * Encoders write into a caller's fixed buffer (struct cs_out) and never
 * allocate.  Decoders are bounds-checked: a short or garbled payload makes
 * them return false (a list's cs_list_bad says so), never read past it.
 * Readers ignore record types they do not know and payload bytes after the
 * fields they know; an optional field a payload ends before reads as 0 or
 * empty. */
#ifndef CLRSCOPE_RECORDS_H
#define CLRSCOPE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dials.h"
#include "common/schema.h"
#include "common/wire.h"

#define CS_REC_ENUM(NAME, type, reader, head, entry, doc) CS_REC_##NAME = type,
enum cs_record_type { CS_RECORD_KINDS(CS_REC_ENUM) };
#undef CS_REC_ENUM

/* Frame ids below this are reserved for pseudo-frames: native code
 * between managed frames (or not placed), frames beyond the depth kept,
 * and a leaf in code the runtime generated (no module holds it).  Their
 * names are common/labels.h's. */
enum {
	CS_FRAME_NATIVE = 1,
	CS_FRAME_TRUNCATED = 2,
	CS_FRAME_STUB = 3,
	CS_FRAME_JIT = 4,       /* compiling the method above it */
	CS_FRAME_TYPE_LOAD = 5, /* loading a type */
	CS_FRAME_GC = 6,        /* collecting garbage */
	CS_FRAME_AWAIT = 7,     /* a logical stack: the async methods awaiting the one above, below it */
	CS_FRAME_AWAIT_UNRESOLVED = 8, /* a logical stack whose awaiting methods could not be known */
	CS_FRAME_WHEN_ALL = 9,  /* the method below awaits Task.WhenAll of the one above and others */
	CS_FRAME_BLOCKING_WAIT = 10, /* an awaits chain's root: a thread waits for it (Task.Wait, .Result) */
	CS_FRAME_THREAD_START = 15, /* the reader's own, never in a log: a thread's start (the native run at its root) */
	CS_FRAME_FIRST_FUNCTION = 16
};

struct cs_str {
	const char *p;
	size_t len;
};

enum cs_load_mode { CS_LOAD_STARTUP = 1, CS_LOAD_ATTACH = 2 };

/* What a process was started with; only a startup load can have these. */
enum cs_feature {
	CS_FEATURE_INSTRUMENT = 1u << 0,
	CS_FEATURE_ALLOCATIONS = 1u << 1,
	CS_FEATURE_HEAP_SNAPSHOTS = 1u << 2, /* snapshots by a forced GC: background GC is off */
};

enum cs_level { CS_LEVEL_INFO = 1, CS_LEVEL_WARNING = 2, CS_LEVEL_ERROR = 3 };
enum cs_end_reason { CS_END_SHUTDOWN = 1, CS_END_DETACH = 2, CS_END_FATAL = 3, CS_END_SIZE_CAP = 4 };
enum cs_dials_status { CS_DIALS_APPLIED = 0, CS_DIALS_REJECTED = 1, CS_DIALS_PARTIAL = 2 };

/* STACK_IL's offset of a frame in its method's epilog (its last line). */
#define CS_IL_EPILOG 0xFFFFFFFDu

/* HOLDS: a larger run is damage (the agent flushes runs every 50 ms) */
#define CS_HOLD_MAX_COUNT 100000u
#define CS_HOLD_MAX_GAP_PERIODS 4u /* a run's ticks are at most this many periods apart */
/* ... so its mean spacing is at most that many of the longest period (1 Hz) */
#define CS_HOLD_MAX_PERIOD_US (CS_HOLD_MAX_GAP_PERIODS * 1000000u)

/* CPU_OWED: more is damage (the agent's credit is a few periods) */
#define CS_CPU_OWED_MAX_COUNT 64u

enum cs_gc_reason { CS_GC_OTHER = 0, CS_GC_INDUCED = 1 };
enum cs_gc_type { CS_GC_TYPE_UNKNOWN = 0, CS_GC_BLOCKING = 1, CS_GC_BACKGROUND = 2, CS_GC_FOREGROUND = 3 };
#define CS_GC_GENERATIONS 5

enum cs_module_kind { CS_MODULE = 1, CS_ASSEMBLY = 2 };
enum cs_thread_event_kind { CS_THREAD_CREATED = 1, CS_THREAD_DESTROYED = 2, CS_THREAD_NAMED = 3 };
enum cs_threadpool_kind { CS_POOL_WORKER_STARTED = 1, CS_POOL_WORKER_STOPPED = 2, CS_POOL_ADJUSTED = 3 };
#define CS_POOL_STARVATION 6 /* ThreadAdjustmentReason: the pool added a worker for starvation */

enum cs_root_kind { CS_ROOT_STACK, CS_ROOT_FINALIZER, CS_ROOT_HANDLE, CS_ROOT_OTHER, CS_ROOT_KINDS };
enum cs_heap_walk { CS_HEAP_WALK_GC = 0, CS_HEAP_WALK_SUSPENDED = 1 };

/* ---- the structs and functions the table makes ---- */

#define CS_CTYPE_u8 uint8_t
#define CS_CTYPE_u32 uint32_t
#define CS_CTYPE_u64 uint64_t
#define CS_CTYPE_varint uint64_t
#define CS_CTYPE_v32 uint32_t
#define CS_CTYPE_str struct cs_str

#define CS_DECLARE_TYPE(layout, type, code, api, check) struct type;
CS_LAYOUTS(CS_DECLARE_TYPE)
#undef CS_DECLARE_TYPE

#define CS_MEMBER(presence, wire, name, member, doc) CS_CTYPE_##wire member;
#define CS_STRUCT_STRUCT(layout, type) struct type { CS_FIELDS_##layout(CS_MEMBER) };
#define CS_STRUCT_CODE(layout, type)
#define CS_STRUCT_HAND(layout, type)
#define CS_STRUCT(layout, type, code, api, check) CS_STRUCT_##code(layout, type)
CS_LAYOUTS(CS_STRUCT)
#undef CS_STRUCT
#undef CS_STRUCT_HAND
#undef CS_STRUCT_CODE
#undef CS_STRUCT_STRUCT
#undef CS_MEMBER

/* A cursor over a list payload (FRAMES, STACKS, SAMPLES, ...). */
struct cs_list {
	struct cs_in in;
	uint64_t time_us;
	uint64_t pending; /* samples of the current tick not read yet */
	bool with_state;  /* a TICKS list: stack ids carry the on/off-CPU bit */
};

#define CS_ENCODER(layout, type) void cs_##layout##_encode(struct cs_out *o, const struct type *s);
#define CS_API_PAYLOAD(layout, type) \
	CS_ENCODER(layout, type) bool cs_##layout##_decode(const uint8_t *p, size_t n, struct type *s);
#define CS_API_LIST(layout, type) CS_ENCODER(layout, type) bool cs_next_##layout(struct cs_list *l, struct type *s);
#define CS_API_IN_HEAD(layout, type) CS_ENCODER(layout, type) bool cs_##layout##_decode(struct cs_in *in, struct type *s);
#define CS_API_IN_LIST(layout, type) CS_ENCODER(layout, type) bool cs_next_##layout(struct cs_in *in, struct type *s);
#define CS_API_INNER(layout, type)
#define CS_API(layout, type, code, api, check) CS_API_##api(layout, type)
CS_LAYOUTS(CS_API)
#undef CS_API
#undef CS_API_INNER
#undef CS_API_IN_LIST
#undef CS_API_IN_HEAD
#undef CS_API_LIST
#undef CS_API_PAYLOAD
#undef CS_ENCODER

/* ---- the rest, by hand ---- */

void cs_list_init(struct cs_list *l, const uint8_t *p, size_t n);
bool cs_list_bad(const struct cs_list *l);

/* SAMPLES and TICKS: ticks, each with its samples.  The first tick's time
 * is microseconds since start_unix_ns; each next one is relative to the
 * tick before it in the same record. */
struct cs_tick {
	uint64_t time_us;    /* decoded: since start_unix_ns */
	uint64_t suspend_ns; /* how long the runtime stayed suspended for this tick */
	uint64_t count;
};
/* A tick's head, then count times cs_sample_encode. */
void cs_tick_encode(struct cs_out *o, uint64_t time_delta_us, uint64_t suspend_ns, uint64_t count);
/* TICKS: stack_id is cs_tick_stack_state() */
void cs_sample_encode(struct cs_out *o, uint64_t thread_ref, uint64_t stack_id);
/* Ticks and their samples: call cs_next_sample until it returns false, then
 * cs_next_tick again (remaining samples of a tick are skipped). */
bool cs_next_tick(struct cs_list *l, struct cs_tick *t);
bool cs_next_sample(struct cs_list *l, uint64_t *thread_ref, uint64_t *stack_id);

/* TICKS: the layout of SAMPLES, but each sample's second number is
 * stack_id << 1 | off_cpu: off_cpu 1 when the thread was not running on a
 * CPU at the sample (blocked in the kernel, or waiting for its turn), 0
 * when it was.  A SAMPLES record does not say (read as on the CPU). */
void cs_list_init_ticks(struct cs_list *l, const uint8_t *p, size_t n);
/* A sample of either kind of list (off_cpu false for SAMPLES). */
bool cs_next_sample_state(struct cs_list *l, uint64_t *thread_ref, uint64_t *stack_id, bool *off_cpu);
static inline uint64_t cs_tick_stack_state(uint64_t stack_id, bool off_cpu)
{
	return stack_id << 1 | (off_cpu ? 1u : 0u);
}

/* THREAD_CPU: its time, then cs_thread_cpu entries (written every 100 ms
 * for the threads that ran since the record before). */
void cs_thread_cpu_head_encode(struct cs_out *o, uint64_t time_us);
/* The time of a THREAD_CPU payload; the list starts after it. */
bool cs_thread_cpu_begin(struct cs_list *l, const uint8_t *p, size_t n, uint64_t *time_us);

/* MESSAGE and END share a struct and a codec. */
struct cs_message {
	uint64_t time_us;
	uint8_t level; /* cs_level for MESSAGE, cs_end_reason for END */
	struct cs_str text;
};

/* DIALS: the answer to a dials file, with the dials in effect twice: as a
 * line (effective: cs_dials_summary(), for people and for readers that
 * know no more) and as fields (dials). */
struct cs_dials_ack {
	uint64_t time_us;
	uint64_t generation;
	uint8_t status; /* cs_dials_status */
	struct cs_str effective, error;
	/* Encoding: the fields are written when has_dials is set.  Decoding:
	 * has_dials says the record held them; without them, dials comes from
	 * effective (cs_dials_apply_summary), dials it does not name 0. */
	bool has_dials;
	struct cs_dials dials;
};
void cs_dials_ack_encode(struct cs_out *o, const struct cs_dials_ack *a);
bool cs_dials_ack_decode(const uint8_t *p, size_t n, struct cs_dials_ack *a);

/* GC: the heap sizes are a counted run (5, or 0 when not known); a reader
 * keeps the first CS_GC_GENERATIONS. */
struct cs_gc {
	uint64_t start_us, duration_us, pause_us;
	uint8_t generation, reason;
	uint32_t ngens;
	uint64_t gen_bytes[CS_GC_GENERATIONS];
	uint32_t cause; /* the runtime's gc_reason + 1; 0: not known */
	uint8_t type;   /* cs_gc_type */
	uint64_t promoted_bytes, pinned_objects;
};
void cs_gc_encode(struct cs_out *o, const struct cs_gc *g);
bool cs_gc_decode(const uint8_t *p, size_t n, struct cs_gc *g);
/* "induced", "alloc_small", ...: the cause when known, else the reason. */
const char *cs_gc_reason_name(uint8_t reason, uint32_t cause);
/* "blocking", "background", "foreground" or "" (unknown). */
const char *cs_gc_type_name(uint8_t type);

/* The event kinds (the table's EVENT readers: EXCEPTION, CATCH, JIT,
 * MODULE, THREAD_EVENT, CONTENTION, WAIT, THREADPOOL, ALLOC_SAMPLE) share
 * one shape: members a kind does not have stay 0 (strings empty). */
struct cs_event {
	uint64_t time_us;
	uint8_t kind;
	uint64_t thread_ref, id; /* id: stack, frame (catch, jit) */
	uint64_t duration_us;
	uint32_t os_tid;
	struct cs_str text;
	struct cs_str message; /* EXCEPTION */
	uint64_t wait_ns;      /* CONTENTION, WAIT */
	uint64_t workers;      /* THREADPOOL */
	uint64_t size, weight; /* ALLOC_SAMPLE */
	uint8_t reason;        /* THREADPOOL */
};
/* An event of kind type; a type that is not an event's writes nothing
 * valid (o->overflow) and decodes as false. */
void cs_event_encode(struct cs_out *o, uint16_t type, const struct cs_event *e);
bool cs_event_decode(uint16_t type, const uint8_t *p, size_t n, struct cs_event *e);
/* "warmup", "starvation", ...: the runtime's ThreadAdjustmentReason. */
const char *cs_pool_reason_name(uint8_t reason);

/* HEAP: nroots 0 marks a snapshot walked in a runtime suspension (every
 * object in the heap, roots not counted); else it was walked during a
 * forced full GC (the live objects and their roots).  One snapshot (seq)
 * may take several records (parts 0..parts-1); each repeats the totals.
 * bytes are object sizes rounded up to the heap's alignment. */
struct cs_heap_head {
	uint64_t time_us, seq, part, parts, pause_us, objects, bytes, types;
	uint64_t roots[CS_ROOT_KINDS];
	uint8_t walk; /* cs_heap_walk */
};
void cs_heap_head_encode(struct cs_out *o, const struct cs_heap_head *h);
/* false also for a part number past the parts */
bool cs_heap_head_decode(struct cs_in *in, struct cs_heap_head *h);

/* HEAP and ALLOCS entries. */
struct cs_type_count {
	uint64_t type_id; /* ALLOCS only: the agent's number for the type */
	struct cs_str type;
	uint64_t count, bytes;
};

/* ---- the heap graph (HEAP_NODES ... HEAP_GRAPH) ---- */

/* HEAP_ROOTS: the runtime's root kinds (cs_root_kind), and a dependent
 * handle (a ConditionalWeakTable entry: its key keeps its value alive). */
enum cs_graph_root_kind { CS_GRAPH_ROOT_DEPENDENT = CS_ROOT_KINDS, CS_GRAPH_ROOT_KINDS };
enum cs_graph_root_flag {
	CS_GRAPH_ROOT_PINNING = 1,
	CS_GRAPH_ROOT_WEAK = 2, /* holds nothing alive */
	CS_GRAPH_ROOT_INTERIOR = 4,
	CS_GRAPH_ROOT_REFCOUNTED = 8,
};
enum { CS_GRAPH_STATIC_THREAD = 1 };
#define CS_GRAPH_ALIGN 8u /* addresses are coded in units of this */

/* Decoded entries: addresses absolute. */
struct cs_graph_node {
	uint64_t address, type, size, edges;
};
struct cs_graph_edge {
	uint64_t target;
};
struct cs_graph_root {
	uint8_t kind, flags; /* cs_graph_root_kind, cs_graph_root_flag */
	uint64_t address, root_id;
	uint64_t value; /* a dependent handle's value, else 0 */
};

/* The delta-coded lists: the encoders take the address before (0 at a
 * record's start) and advance it; an address off the alignment is coded
 * rounded down and returns false.  A cursor reads one record's entries
 * after its head.
 *
 * A snapshot of a large heap has tens of millions of entries, encoded
 * while the runtime is suspended: the encoders are inline and write
 * straight into the buffer, which must have room for the largest entry,
 * CS_GRAPH_ENTRY_MAX bytes (else nothing is written, and overflow set). */
#define CS_GRAPH_ENTRY_MAX 64

static inline uint8_t *cs_graph_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* The address as a zigzag step from *prev, in units of CS_GRAPH_ALIGN. */
static inline uint8_t *cs_graph_put_address(uint8_t *p, uint64_t *prev, uint64_t address, bool *aligned)
{
	*aligned = address % CS_GRAPH_ALIGN == 0;
	address -= address % CS_GRAPH_ALIGN;
	int64_t step = (int64_t)(address - *prev) / (int64_t)CS_GRAPH_ALIGN;
	*prev = address;
	return cs_graph_put_varint(p, ((uint64_t)step << 1) ^ (uint64_t)(step >> 63));
}

/* Where an entry goes: the buffer's end, or NULL without room for one. */
static inline uint8_t *cs_graph_entry_at(struct cs_out *o)
{
	if (o->overflow || o->cap - o->len < CS_GRAPH_ENTRY_MAX) {
		o->overflow = true;
		return NULL;
	}
	return o->buf + o->len;
}

static inline bool cs_graph_node_encode(struct cs_out *o, uint64_t *prev, const struct cs_graph_node *n)
{
	uint8_t *p = cs_graph_entry_at(o), *start = p;
	bool aligned = true;
	if (!p)
		return aligned;
	p = cs_graph_put_address(p, prev, n->address, &aligned);
	p = cs_graph_put_varint(p, n->type);
	p = cs_graph_put_varint(p, n->size);
	p = cs_graph_put_varint(p, n->edges);
	o->len += (size_t)(p - start);
	return aligned;
}

static inline bool cs_graph_edge_encode(struct cs_out *o, uint64_t *prev, uint64_t target)
{
	uint8_t *p = cs_graph_entry_at(o), *start = p;
	bool aligned = true;
	if (!p)
		return aligned;
	p = cs_graph_put_address(p, prev, target, &aligned);
	o->len += (size_t)(p - start);
	return aligned;
}

static inline bool cs_graph_root_encode(struct cs_out *o, uint64_t *prev, const struct cs_graph_root *r)
{
	uint8_t *p = cs_graph_entry_at(o), *start = p;
	bool aligned = true, value_aligned = true;
	if (!p)
		return aligned;
	*p++ = r->kind;
	*p++ = r->flags;
	p = cs_graph_put_address(p, prev, r->address, &aligned);
	p = cs_graph_put_varint(p, r->root_id);
	uint64_t base = *prev;
	p = cs_graph_put_address(p, &base, r->value ? r->value : base, &value_aligned);
	o->len += (size_t)(p - start);
	return aligned && value_aligned;
}

struct cs_graph_cursor {
	struct cs_in in;
	uint64_t prev;
};
void cs_graph_cursor_init(struct cs_graph_cursor *c, const struct cs_in *after_head);
bool cs_next_graph_node(struct cs_graph_cursor *c, struct cs_graph_node *n);
bool cs_next_graph_edge(struct cs_graph_cursor *c, struct cs_graph_edge *e);
bool cs_next_graph_root(struct cs_graph_cursor *c, struct cs_graph_root *r);

#endif
