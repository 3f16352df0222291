/* The record types of the session log and their payloads.
 *
 * Integers are little-endian; "v" is an unsigned LEB128 varint; "str" is a
 * varint byte count followed by UTF-8 bytes.  Readers ignore record types they
 * do not know, and trailing payload bytes they do not know (minor versions
 * only ever append fields).  clrscope-session(5) is the long form of this. */
#ifndef CLRSCOPE_RECORDS_H
#define CLRSCOPE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/wire.h"

enum cs_record_type {
	CS_REC_HELLO = 1,   /* the agent introduces itself; first record of a process */
	CS_REC_THREAD = 2,  /* a managed thread got a small reference number */
	CS_REC_FRAMES = 3,  /* frame id -> function name and module (a list) */
	CS_REC_STACKS = 4,  /* stack id -> (parent stack id, leaf frame id) (a list) */
	CS_REC_SAMPLES = 5, /* sampler ticks: which thread was in which stack */
	CS_REC_STATUS = 6,  /* the agent's counters: drops, suspension, errors */
	CS_REC_MESSAGE = 7, /* a line of text from the agent (warnings, errors) */
	CS_REC_END = 8,     /* the agent stopped writing (detach, shutdown, fatal) */
	CS_REC_DIALS = 9,   /* the agent's answer to a dials change */
	CS_REC_GC = 10,     /* a garbage collection */
	CS_REC_EXCEPTION = 11, /* an exception was thrown */
	CS_REC_CATCH = 12,  /* ... and caught */
	CS_REC_JIT = 13,    /* a method was compiled */
	CS_REC_MODULE = 14, /* a module or assembly was loaded */
	CS_REC_THREAD_EVENT = 15, /* a managed thread started, ended or was named */
	CS_REC_CALLS = 16,  /* call counts and times of instrumented functions */
	CS_REC_HEAP = 17,   /* (a part of) a heap snapshot: live objects by type */
	CS_REC_ALLOCS = 18, /* allocations by type so far */
	CS_REC_CONTENTION = 19, /* a thread waited for a lock */
	CS_REC_WAIT = 20,       /* a thread waited on a wait handle */
	CS_REC_THREADPOOL = 21, /* a thread pool worker came or went, or the pool adjusted its size */
	CS_REC_ALLOC_SAMPLE = 22, /* the runtime sampled an allocation */
	CS_REC_HOLDS = 23,  /* threads that kept the same stack for a run of ticks */
	CS_REC_FRAME_CODE = 24, /* frame id -> method token and assembly path (a list), for source lines */
	CS_REC_STACK_IL = 25,   /* stack id -> IL offset of its innermost frame (a list), for source lines */
	CS_REC_TICKS = 26,      /* SAMPLES with each sample on or off the CPU */
	CS_REC_THREAD_CPU = 27, /* threads' CPU time so far */
	CS_REC_CODE_PATH = 28,  /* file path references of FRAME_CODE and NATIVE_FRAME (a list) */
	CS_REC_NATIVE_FRAME = 29, /* frame id -> native function: its file and address there (a list) */
	CS_REC_CPU_OWED = 30,     /* on-CPU samples for CPU time the ticks' moments did not find running */
};

/* Frame ids below this are reserved for pseudo-frames: native code
 * between managed frames (or not placed), frames beyond the depth kept,
 * and a leaf in code the runtime generated (no module holds it). */
enum {
	CS_FRAME_NATIVE = 1,
	CS_FRAME_TRUNCATED = 2,
	CS_FRAME_STUB = 3,
	CS_FRAME_JIT = 4,       /* compiling the method above it */
	CS_FRAME_TYPE_LOAD = 5, /* loading a type */
	CS_FRAME_GC = 6,        /* collecting garbage */
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

/* HELLO: u32 pid, u32 ppid, u64 start_unix_ns, u8 load_mode, u32 rate_hz,
 *        str agent_version, str runtime_version, str command_line,
 *        str control (the named semaphore that announces dials changes),
 *        v events (the CS_EV_* kinds recorded at start),
 *        v features (cs_feature bits), str patterns (instrumented functions,
 *        one pattern per line) */
struct cs_hello {
	uint32_t pid, ppid;
	uint64_t start_unix_ns; /* wall clock when the agent started; time 0 of the log */
	uint8_t load_mode;
	uint32_t rate_hz;
	struct cs_str agent_version, runtime_version, command_line;
	struct cs_str control;
	uint32_t events;
	uint32_t features;
	struct cs_str patterns;
};
void cs_hello_encode(struct cs_out *o, const struct cs_hello *h);
bool cs_hello_decode(const uint8_t *p, size_t n, struct cs_hello *h);

/* THREAD: v thread_ref, u64 runtime ThreadID, u32 os_tid, str name */
struct cs_thread {
	uint64_t ref;
	uint64_t runtime_id;
	uint32_t os_tid;
	struct cs_str name;
};
void cs_thread_encode(struct cs_out *o, const struct cs_thread *t);
bool cs_thread_decode(const uint8_t *p, size_t n, struct cs_thread *t);

/* FRAMES: { v frame_id, str name, str module }*
 * STACKS: { v stack_id, v parent_stack_id (0 = none), v frame_id }*
 * Stacks form a tree from the outermost frame: a stack id names a whole path,
 * root first.  A definition may be repeated (after data was dropped, the agent
 * restates what the lost records defined); repeats are identical. */
struct cs_frame_def {
	uint64_t id;
	struct cs_str name, module;
};
struct cs_stack_def {
	uint64_t id, parent, frame;
};
void cs_frame_def_encode(struct cs_out *o, const struct cs_frame_def *f);
void cs_stack_def_encode(struct cs_out *o, const struct cs_stack_def *s);

/* CODE_PATH: { v path_ref, str path }*
 *   the assemblies FRAME_CODE and the native modules NATIVE_FRAME refer
 *   to, each written once (and again after data was dropped), before the
 *   records that use it.
 * FRAME_CODE: { v frame_id, v method_token, v path_ref }*
 *   where a managed frame's code came from: its MethodDef token in the
 *   assembly at that path (whose PDB maps IL offsets to lines); written
 *   after the FRAMES record that defines the frame, for frames of
 *   assemblies loaded from a file.
 * STACK_IL: { v stack_id, v il_offset }*
 *   the IL offset the innermost frame of a stack was at (for a caller:
 *   its call); stacks that differ only there are different stacks with
 *   the same frames.  Written after the STACKS record that defines them;
 *   a stack without one has no known offset (native code, older agents).
 *   CS_IL_EPILOG: in the method's epilog (its last line). */
#define CS_IL_EPILOG 0xFFFFFFFDu
struct cs_code_path {
	uint64_t ref;
	struct cs_str path;
};
struct cs_frame_code {
	uint64_t frame;
	uint32_t token;
	uint64_t path_ref;
};
void cs_code_path_encode(struct cs_out *o, const struct cs_code_path *c);
struct cs_stack_il {
	uint64_t stack;
	uint32_t il_offset;
};
void cs_frame_code_encode(struct cs_out *o, const struct cs_frame_code *c);
void cs_stack_il_encode(struct cs_out *o, const struct cs_stack_il *s);

/* NATIVE_FRAME: { v frame_id, v path_ref, v file_address, str build_id }*
 *   a frame that is a native function (its FRAMES name is "[native]",
 *   its module the file's name): the function's start as the file's own
 *   symbols give it (its address minus the module's load address), in the
 *   module at path_ref, whose GNU build id (raw bytes, empty: none) tells
 *   the reader whether the file on disk is the one that was loaded.  The
 *   name is the reader's to find.  Written after the FRAMES and CODE_PATH
 *   records it completes. */
struct cs_native_frame {
	uint64_t frame, path_ref, file_address;
	struct cs_str build_id;
};
void cs_native_frame_encode(struct cs_out *o, const struct cs_native_frame *f);

/* SAMPLES: { v time_delta_us, v suspend_ns, v count, { v thread_ref, v stack_id }*count }*
 * The first tick's time is microseconds since start_unix_ns; each next
 * one is relative to the tick before it in the same record. */
struct cs_tick {
	uint64_t time_us;
	uint64_t suspend_ns; /* how long the runtime stayed suspended for this tick */
	uint64_t count;
};

/* A cursor over a list payload (FRAMES, STACKS, SAMPLES). */
struct cs_list {
	struct cs_in in;
	uint64_t time_us;
	uint64_t pending; /* samples of the current tick not read yet */
	bool with_state;  /* a TICKS list: stack ids carry the on/off-CPU bit */
};
void cs_list_init(struct cs_list *l, const uint8_t *p, size_t n);
bool cs_list_bad(const struct cs_list *l);
bool cs_next_frame_def(struct cs_list *l, struct cs_frame_def *f);
bool cs_next_stack_def(struct cs_list *l, struct cs_stack_def *s);
bool cs_next_frame_code(struct cs_list *l, struct cs_frame_code *c);
bool cs_next_code_path(struct cs_list *l, struct cs_code_path *c);
bool cs_next_stack_il(struct cs_list *l, struct cs_stack_il *s);
bool cs_next_native_frame(struct cs_list *l, struct cs_native_frame *f);
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

/* THREAD_CPU: u64 time_us, then { v thread_ref, v cpu_ns }*
 *   each listed thread's CPU time (its CPU clock) since it started, as of
 *   time_us; written every 100 ms for the threads that ran since
 *   the last one. */
struct cs_thread_cpu {
	uint64_t thread_ref, cpu_ns;
};
void cs_thread_cpu_head_encode(struct cs_out *o, uint64_t time_us);
void cs_thread_cpu_encode(struct cs_out *o, const struct cs_thread_cpu *t);
/* The time of a THREAD_CPU payload; the list starts after it. */
bool cs_thread_cpu_begin(struct cs_list *l, const uint8_t *p, size_t n, uint64_t *time_us);
bool cs_next_thread_cpu(struct cs_list *l, struct cs_thread_cpu *t);

/* HOLDS: { v thread_ref, v stack_id, v first_us, v period_us, v count }*
 * A thread that did not run keeps its stack, and its samples are written as
 * a run instead of one per tick: count samples at first_us, first_us +
 * period_us, ... (microseconds since start_unix_ns; the ticks' own times
 * differ from these by their jitter).  Samples of the SAMPLES records and of
 * the HOLDS records together are the profile. */
#define CS_HOLD_MAX_COUNT 100000u /* a larger run is damage (runs are flushed every 50 ms) */
#define CS_HOLD_MAX_GAP_PERIODS 4u /* a run's ticks are at most this many periods apart */
/* ... so its mean spacing is at most that many of the longest period (1 Hz) */
#define CS_HOLD_MAX_PERIOD_US (CS_HOLD_MAX_GAP_PERIODS * 1000000u)
struct cs_hold {
	uint64_t thread_ref, stack_id, first_us, period_us, count;
};
void cs_hold_encode(struct cs_out *o, const struct cs_hold *h);
/* The next run of a HOLDS list; false at the end or on damage (then
 * cs_list_bad says so). */
bool cs_next_hold(struct cs_list *l, struct cs_hold *h);

/* CPU_OWED: { v thread_ref, v stack_id, v time_us, v count }*
 * More on-CPU samples, none of them a tick's moment: a thread that works in
 * bursts shorter than a tick is often back in its wait when a tick comes,
 * and the CPU time it used meanwhile has no sample on the CPU.  When a
 * later tick finds it running (TICKS: stack_id, on the CPU, at time_us,
 * microseconds since start_unix_ns), that sample stands for count periods
 * more of its CPU time.  They count in the CPU time only: the wall time is
 * the ticks' moments. */
#define CS_CPU_OWED_MAX_COUNT 64u /* more is damage (the agent's credit is a few periods) */
struct cs_cpu_owed {
	uint64_t thread_ref, stack_id, time_us, count;
};
void cs_cpu_owed_encode(struct cs_out *o, const struct cs_cpu_owed *c);
/* The next entry of a CPU_OWED list; false at the end or on damage. */
bool cs_next_cpu_owed(struct cs_list *l, struct cs_cpu_owed *c);

/* STATUS: u64 time_us, then varints: dropped_records, dropped_bytes,
 *         write_errors, ticks, samples, suspend_total_ns, suspend_max_ns,
 *         truncated_stacks, failed_walks, deferred_walks, stack_checks,
 *         stack_mismatches, signals, parked_kept, sampler_cpu_ns,
 *         writer_cpu_ns, handler_cpu_ns, unwind_ns, survey_ns, signal_ns,
 *         record_ns, signals_waiting, waiting_read, kernel_samples,
 *         kernel_lost, beyond_copy (from deferred_walks on, each absent in
 *         logs of older agents: 0) */
struct cs_status {
	uint64_t time_us;
	uint64_t dropped_records, dropped_bytes, write_errors;
	uint64_t ticks, samples, suspend_total_ns, suspend_max_ns;
	uint64_t truncated_stacks, failed_walks, deferred_walks;
	uint64_t stack_checks, stack_mismatches; /* fast walks repeated exactly, and how many differed */
	uint64_t signals;     /* sent to threads that ran, for their stacks */
	uint64_t parked_kept; /* samples of threads that ran, found parked with their capture's frames: no signal */
	/* what the profiler cost the program: the CPU time of the agent's own
	 * threads (the sampler's, the log writer's) and of its signal handler in
	 * the program's threads; and the sampler thread's time by task, as time
	 * passed while it did it (signal delivery and the sampler's sleeps and
	 * wake-ups are in none of them) */
	uint64_t sampler_cpu_ns, writer_cpu_ns, handler_cpu_ns;
	uint64_t unwind_ns; /* unwinding what the signal handlers copied */
	uint64_t survey_ns; /* reading the threads' CPU clocks, and asking parked ones where they are */
	uint64_t signal_ns; /* deciding which threads to signal, arming their timers */
	uint64_t record_ns; /* naming the frames, interning the stacks, logging the samples */
	/* signals whose capture found the thread waiting in a system call (or
	 * just back from one): the signal woke it, which costs the thread the
	 * kernel's time for two switches and the delivery (not counted above) */
	uint64_t signals_waiting;
	/* threads that ran and were found waiting in a system call, whose
	 * stacks the sampler thread read where they waited instead (no signal,
	 * nothing woken) */
	uint64_t waiting_read;
	/* the kernel sampler: samples the kernel took of running threads (no
	 * signal), and those it could not write (the thread's ring was full) */
	uint64_t kernel_samples, kernel_lost;
	/* captures whose stacks went on beyond what was copied (a kernel
	 * sample's 32 KiB; a signal's 64 KiB, ending at a native frame): walked
	 * exactly instead, or truncated where no exact walk could be had */
	uint64_t beyond_copy;
};
void cs_status_encode(struct cs_out *o, const struct cs_status *s);
bool cs_status_decode(const uint8_t *p, size_t n, struct cs_status *s);

/* MESSAGE: u64 time_us, u8 level, str text
 * END:     u64 time_us, u8 reason, str text */
enum cs_level { CS_LEVEL_INFO = 1, CS_LEVEL_WARNING = 2, CS_LEVEL_ERROR = 3 };
enum cs_end_reason { CS_END_SHUTDOWN = 1, CS_END_DETACH = 2, CS_END_FATAL = 3, CS_END_SIZE_CAP = 4 };
struct cs_message {
	uint64_t time_us;
	uint8_t level; /* cs_level for MESSAGE, cs_end_reason for END */
	struct cs_str text;
};
void cs_message_encode(struct cs_out *o, const struct cs_message *m);
bool cs_message_decode(const uint8_t *p, size_t n, struct cs_message *m);

/* DIALS: u64 time_us, v generation, u8 status, str effective, str error
 * status 0: applied; 1: rejected (nothing changed); 2: applied in part
 * (error says what could not be done).  effective is cs_dials_summary(). */
enum cs_dials_status { CS_DIALS_APPLIED = 0, CS_DIALS_REJECTED = 1, CS_DIALS_PARTIAL = 2 };
struct cs_dials_ack {
	uint64_t time_us;
	uint64_t generation;
	uint8_t status;
	struct cs_str effective, error;
};
void cs_dials_ack_encode(struct cs_out *o, const struct cs_dials_ack *a);
bool cs_dials_ack_decode(const uint8_t *p, size_t n, struct cs_dials_ack *a);

/* GC: u64 start_us, v duration_us, v pause_us, u8 generation, u8 reason,
 *     v count, v bytes[count] (heap size per generation after the GC:
 *     0, 1, 2, large objects, pinned objects),
 *     then (from the runtime's event stream; absent in older logs: 0)
 *     v cause (the runtime's gc_reason + 1; 0: unknown), u8 type
 *     (cs_gc_type), v promoted_bytes, v pinned_objects */
enum cs_gc_reason { CS_GC_OTHER = 0, CS_GC_INDUCED = 1 };
enum cs_gc_type { CS_GC_TYPE_UNKNOWN = 0, CS_GC_BLOCKING = 1, CS_GC_BACKGROUND = 2, CS_GC_FOREGROUND = 3 };
#define CS_GC_GENERATIONS 5
struct cs_gc {
	uint64_t start_us, duration_us, pause_us;
	uint8_t generation, reason;
	uint32_t ngens;
	uint64_t gen_bytes[CS_GC_GENERATIONS];
	uint32_t cause;
	uint8_t type;
	uint64_t promoted_bytes, pinned_objects;
};
void cs_gc_encode(struct cs_out *o, const struct cs_gc *g);
bool cs_gc_decode(const uint8_t *p, size_t n, struct cs_gc *g);
/* "induced", "alloc_small", ...: the cause when known, else the reason. */
const char *cs_gc_reason_name(uint8_t reason, uint32_t cause);
/* "blocking", "background", "foreground" or "" (unknown). */
const char *cs_gc_type_name(uint8_t type);

/* EXCEPTION: u64 time_us, v thread_ref, v stack_id (0: not walked), str type,
 *            str message (absent in older logs and without the event
 *            stream: empty)
 * CATCH:     u64 time_us, v thread_ref, v frame_id (the catching method)
 * JIT:       u64 time_us, v frame_id, v duration_us
 * MODULE:    u64 time_us, u8 kind, str name (a path for modules)
 * THREAD_EVENT: u64 time_us, u8 kind, v thread_ref, u32 os_tid, str name
 * CONTENTION: u64 time_us (when the wait ended), v thread_ref, v stack_id
 *            (the waiting thread's; 0: not walked), v wait_ns
 * WAIT:      the same, then u8 kind (the runtime's WaitSource: 0 a wait
 *            handle, 1 Monitor.Wait)
 * ALLOC_SAMPLE: u64 time_us, v thread_ref, v stack_id (the allocating
 *            thread's), v size (the object's bytes), v weight (the bytes
 *            of allocation the sample stands for), str type
 * THREADPOOL: u64 time_us, u8 kind (cs_threadpool_kind), v workers (active
 *            workers after a start or stop, the new count after an
 *            adjustment), u8 reason (an adjustment's: the runtime's
 *            ThreadAdjustmentReason, 6 starvation)
 * One shape serves them all: fields a record type does not have stay 0. */
enum cs_module_kind { CS_MODULE = 1, CS_ASSEMBLY = 2 };
enum cs_thread_event_kind { CS_THREAD_CREATED = 1, CS_THREAD_DESTROYED = 2, CS_THREAD_NAMED = 3 };
enum cs_threadpool_kind { CS_POOL_WORKER_STARTED = 1, CS_POOL_WORKER_STOPPED = 2, CS_POOL_ADJUSTED = 3 };
#define CS_POOL_STARVATION 6 /* ThreadAdjustmentReason: the pool added a worker for starvation */
/* "warmup", "starvation", ...: the runtime's ThreadAdjustmentReason. */
const char *cs_pool_reason_name(uint8_t reason);
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
void cs_event_encode(struct cs_out *o, uint16_t type, const struct cs_event *e);
bool cs_event_decode(uint16_t type, const uint8_t *p, size_t n, struct cs_event *e);

/* CALLS: u64 time_us, u8 recording, v hooked (functions with hooks),
 *        v examined (functions the mapper saw), v repaired (shadow stack
 *        entries a missing leave left behind), v too_deep (calls past the
 *        shadow stack's depth, counted but not timed),
 *        { v frame_id, v calls, v inclusive_ns, v exclusive_ns }*
 * Totals since the start, for every hooked function that has a frame id:
 * the newest CALLS record holds everything. */
struct cs_calls_head {
	uint64_t time_us;
	uint8_t recording;
	uint64_t hooked, examined, repaired, too_deep;
};
struct cs_call_entry {
	uint64_t frame, calls, inclusive_ns, exclusive_ns;
};
void cs_calls_head_encode(struct cs_out *o, const struct cs_calls_head *h);
void cs_call_entry_encode(struct cs_out *o, const struct cs_call_entry *e);
bool cs_calls_head_decode(struct cs_in *in, struct cs_calls_head *h);
bool cs_next_call_entry(struct cs_in *in, struct cs_call_entry *e);

/* HEAP: u64 time_us, v seq, v part, v parts, v pause_us, v objects, v bytes,
 *       v types, v nroots, v roots[nroots] (by cs_root_kind),
 *       { str type, v count, v bytes }*
 * nroots 0 marks a snapshot walked in a runtime suspension (every object in
 * the heap, roots not counted; CS_HEAP_WALK_SUSPENDED); else it was walked
 * during a forced full GC (the live objects and their roots).
 * One snapshot (seq) may take several records (parts 0..parts-1); each
 * repeats the totals.  bytes are object sizes rounded up to the heap's
 * alignment.  types is how many entries all parts hold together. */
enum cs_root_kind { CS_ROOT_STACK, CS_ROOT_FINALIZER, CS_ROOT_HANDLE, CS_ROOT_OTHER, CS_ROOT_KINDS };
enum cs_heap_walk { CS_HEAP_WALK_GC = 0, CS_HEAP_WALK_SUSPENDED = 1 };
struct cs_heap_head {
	uint64_t time_us, seq, part, parts, pause_us, objects, bytes, types;
	uint64_t roots[CS_ROOT_KINDS];
	uint8_t walk; /* cs_heap_walk */
};
struct cs_type_count {
	uint64_t type_id; /* ALLOCS only: the agent's number for the type */
	struct cs_str type;
	uint64_t count, bytes;
};
void cs_heap_head_encode(struct cs_out *o, const struct cs_heap_head *h);
bool cs_heap_head_decode(struct cs_in *in, struct cs_heap_head *h);
void cs_heap_entry_encode(struct cs_out *o, const struct cs_type_count *e);
bool cs_next_heap_entry(struct cs_in *in, struct cs_type_count *e);

/* ALLOCS: u64 time_us, v gcs (garbage collections so far), u8 recording,
 *         { v type_id, str type, v count, v bytes }*
 * Totals since the start for the types that changed since the previous
 * ALLOCS record; the agent writes one after each GC and every second. */
struct cs_allocs_head {
	uint64_t time_us, gcs;
	uint8_t recording;
};
void cs_allocs_head_encode(struct cs_out *o, const struct cs_allocs_head *h);
bool cs_allocs_head_decode(struct cs_in *in, struct cs_allocs_head *h);
void cs_alloc_entry_encode(struct cs_out *o, const struct cs_type_count *e);
bool cs_next_alloc_entry(struct cs_in *in, struct cs_type_count *e);

#endif
