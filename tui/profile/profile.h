/* The profile model: what the agent's records of one session add up to.
 *
 * Records are folded in as they are read (prof_recording_update can be called
 * again and again on a live session: only new records are read), so the
 * report command and the live screens share one model. */
#ifndef CLRSCOPE_PROFILE_H
#define CLRSCOPE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/dials.h"
#include "common/logfmt.h"
#include "common/records.h"
#include "profile/heapgraph.h"
#include "util/u64map.h"

struct prof_frame {
	uint32_t function; /* index into functions, or UINT32_MAX before its definition */
	/* instrumentation totals of this frame id, from the newest CALLS record */
	uint32_t calls_record; /* which CALLS record they came from (0: none) */
	uint64_t calls, inclusive_ns, exclusive_ns;
	/* where its code came from (FRAME_CODE), for source lines */
	uint32_t token;     /* MethodDef token, 0: not known */
	uint32_t code_path; /* index + 1 into prof_process.code_paths, 0: none */
	bool native_run;    /* a run of native code not named by function ("[native]" in the log) */
};

/* The agent's stacks are of frames at IL offsets: stacks that differ only
 * in where a frame was are distinct.  Each such stack has a canonical one
 * (the first seen with the same frames), which holds the samples of all of
 * them: whatever counts by function sees each path once.  Line-level
 * reports read the raw stacks' own counts. */
struct prof_stack {
	uint32_t parent;     /* stack id, 0 = root */
	uint32_t frame;      /* frame id, 0 = not defined (yet) */
	uint32_t canon;      /* the canonical stack, 0 = this one */
	uint32_t il_plus1;   /* the innermost frame's IL offset + 1 (STACK_IL), 0: not known */
	uint32_t physical;   /* a logical (async) stack's physical stack (LOGICAL), 0: not a logical stack */
	uint64_t count;      /* samples (of the time shown) whose innermost stack is this path of functions (canonical stacks) */
	uint64_t line_count; /* samples (of the time shown) whose innermost stack is this very stack */
	/* the same in each time: on the CPU, and all (wall clock) */
	uint64_t cpu, wall, line_cpu, line_wall;
};

/* Which samples count: those of threads running on a CPU, or all of them
 * (wall-clock time: waiting threads too).  Every view and export shows one;
 * the JSON report gives both per function. */
enum prof_time { PROF_TIME_CPU, PROF_TIME_WALL };
const char *prof_time_name(enum prof_time t);
int prof_time_parse(const char *name, enum prof_time *out);
/* "logical" (false) or "physical" (true): which stacks samples count in
 * (struct prof_filter); -1 for anything else. */
int prof_stacks_parse(const char *name, bool *physical);

/* What an off-CPU sample's thread was waiting for, told by its innermost
 * frames (PROF_STATE_RUNNING: on the CPU). */
enum prof_state {
	PROF_STATE_RUNNING,
	PROF_STATE_LOCK,   /* Monitor, Lock: a lock or its condition */
	PROF_STATE_WAIT,   /* a wait handle, event, semaphore, task or join */
	PROF_STATE_SLEEP,  /* Thread.Sleep */
	PROF_STATE_SOCKET, /* a socket, or the epoll loop */
	PROF_STATE_IO,     /* a read of a file, pipe or terminal */
	PROF_STATE_OTHER,
	PROF_STATES
};
const char *prof_state_name(enum prof_state s);

struct prof_function {
	char *name;
	char *module;
	uint64_t self, total; /* valid after prof_compute */
	/* valid after prof_compute: hooked by the instrumentation, and its totals */
	bool hooked;
	uint64_t calls, inclusive_ns, exclusive_ns;
	/* valid after prof_compute: in each time, whichever is shown */
	uint64_t self_cpu, total_cpu, self_wall, total_wall;
};

struct prof_thread {
	uint64_t runtime_id;
	uint32_t os_tid;
	char *name;         /* what to call it: its managed name, else "main", else its OS name (NULL: none known) */
	char *managed_name; /* Thread.Name (NULL: none) */
	char *os_name;      /* the kernel's name, its comm (NULL: not logged) */
	uint64_t samples;                 /* of the time shown */
	uint64_t states[PROF_STATES];     /* all its samples, by state */
	uint64_t cpu_owed;                /* on-CPU samples that are no tick's moment (CPU_OWED) */
	uint8_t last_state;               /* its latest sample's (prof_state) */
	uint64_t last_sample_us;
	/* its CPU clock (THREAD_CPU): the latest reading and the one before */
	uint64_t cpu_ns, cpu_us_at, prev_cpu_ns, prev_cpu_us_at;
};

struct prof_message {
	uint64_t time_us;
	uint8_t level;
	char *text;
};

struct prof_gc {
	uint64_t start_us, duration_us, pause_us;
	uint8_t generation, reason;
	uint64_t gen_bytes[CS_GC_GENERATIONS];
	uint32_t cause; /* the runtime's reason + 1 (0: unknown) */
	uint8_t type;   /* cs_gc_type */
	uint64_t promoted_bytes, pinned_objects;
};

/* The runtime's name for a GC's reason ("induced", "alloc_small", ...). */
const char *prof_gc_reason(const struct prof_gc *g);

struct prof_text_count {
	char *text;
	uint64_t count;
};

#define PROF_MESSAGES_MAX 64 /* distinct messages kept per exception type */
struct prof_exception_type {
	char *name;
	uint64_t thrown, caught;
	uint32_t catchers[4]; /* distinct catching frames (frame ids), the first few */
	uint32_t ncatchers;
	struct prof_text_count *messages; /* in order of first appearance */
	size_t nmessages;
	uint64_t other_messages; /* throws whose message did not fit the list */
};

/* The thread pool as its events tell it. */
struct prof_threadpool {
	uint64_t started, stopped, adjustments, starvation;
	uint64_t workers, workers_max; /* the latest count, the largest */
};

/* Events added up by the stack of their thread: lock contention and
 * blocking waits (total: nanoseconds waited), sampled allocations (total:
 * the bytes the samples stand for). */
struct prof_stack_tally {
	uint32_t stack;
	uint64_t count, total;
};
struct prof_stack_tallies {
	uint64_t count, total;
	struct prof_stack_tally *sites;
	size_t nsites, sites_cap;
	uint32_t *site_of_stack; /* by stack id: site index + 1 */
	size_t site_of_stack_cap;
};

struct prof_dials_ack {
	uint64_t time_us, generation;
	uint8_t status;        /* cs_dials_status */
	char *effective, *error;
	struct cs_dials dials; /* in effect after it, as the record holds them */
};

struct prof_module {
	uint64_t time_us;
	uint8_t kind; /* cs_module_kind */
	char *name;
};

/* Instrumentation as the newest CALLS record tells it. */
struct prof_instrumentation {
	uint32_t records; /* CALLS records read */
	uint64_t time_us;
	bool recording;
	uint64_t hooked, examined, repaired, too_deep;
};

/* Live objects or allocations of one type. */
struct prof_type_count {
	char *type;
	uint64_t count, bytes;
};

struct heap_summary;
/* A heap snapshot (complete when every part arrived). */
struct prof_heap {
	uint64_t seq, time_us, pause_us, objects, bytes, types;
	uint64_t roots[CS_ROOT_KINDS];
	uint8_t walk; /* cs_heap_walk: suspended (every object, no roots) or a forced GC */
	uint64_t parts, parts_seen;
	struct prof_type_count *entries;
	size_t nentries, entries_cap;
	struct heap_summary *summary; /* its graph's analysis in brief, once made (heapsummary.h) */
};

/* An awaits snapshot (AWAITS): the async methods suspended at an await
 * when it was asked for, each chain of them counted once under its
 * logical stack (outermost method at the root, the innermost at the leaf). */
struct prof_await_group {
	uint32_t stack;
	uint64_t count;
};
struct prof_awaits {
	uint64_t seq, time_us, pause_us;
	uint64_t suspended, chains, unresolved, lost; /* as the record's head says (clrscope-session(5)) */
	uint8_t walk;                                 /* cs_heap_walk */
	struct prof_await_group *groups;              /* biggest count first */
	size_t ngroups;
};

/* Allocations by type so far; indexed by the agent's type id. */
struct prof_allocations {
	uint32_t records;
	uint64_t time_us, gcs;
	bool recording;
	struct prof_type_count *types; /* type NULL: no such id */
	size_t ntypes;
};

/* Suspension per tick in constant memory, however long the session: a
 * histogram (0.1 us steps below 1 ms, 10 us steps up to 100 ms, one bucket
 * above) for the median, and the latest ticks for the status bar. */
#define PROF_SUSPEND_FINE 10000
#define PROF_SUSPEND_COARSE 9900
#define PROF_SUSPEND_RECENT 101
struct prof_suspend {
	uint32_t *buckets; /* PROF_SUSPEND_FINE + PROF_SUSPEND_COARSE + 1, allocated with the first tick */
	uint64_t count;
	uint32_t recent[PROF_SUSPEND_RECENT]; /* ns, a ring */
	size_t recent_at;
};

/* Counts of runtime events by kind. */
struct prof_event_counts {
	uint64_t gcs, exceptions, catches, jits, modules, assemblies, threads_created, threads_destroyed;
	uint64_t contentions, waits, threadpool, alloc_samples;
};

/* Which samples count (report --thread, --from, --to). */
struct prof_filter {
	uint32_t os_tid;          /* 0 = every thread */
	uint64_t from_us, to_us;  /* time since the agent started; to_us 0 = no end */
	bool physical;            /* samples count in their physical stacks, not their logical (async) ones */
};

/* What a sample is worth, kept per thread and stack when the session asks
 * (prof_recording.by_thread): the pprof export's sample values.  A new kind
 * of time (wall) is one more entry, filled in fold_samples. */
enum prof_value { PROF_VALUE_SAMPLES, PROF_VALUE_CPU_NS, PROF_VALUE_WALL_NS, PROF_VALUES };

/* One runtime event as it was read, for the Events view: its facts, not
 * its words (the report never pays for putting them in words). */
enum prof_event_kind {
	PEV_GC,
	PEV_EXCEPTION,
	PEV_CATCH,
	PEV_JIT,
	PEV_MODULE,
	PEV_THREAD,
	PEV_DIALS,
	PEV_MESSAGE,
	PEV_CONTENTION,
	PEV_WAIT,
	PEV_THREADPOOL,
	PEV_ALLOC_SAMPLE
};
struct prof_process;
struct prof_event {
	uint64_t time_us;
	uint8_t kind;    /* enum prof_event_kind */
	uint8_t variant; /* the record's kind within it: CS_THREAD_*, CS_POOL_*, the wait's kind, CS_ASSEMBLY */
	uint32_t ref;    /* by kind: gcs[], exception_types[], modules[], dials[] index; the frame compiled or catching */
	uint64_t thread; /* thread reference (0: none) */
	uint64_t value;  /* by kind: ns waited, us compiling, pool workers, the thread's OS id */
	uint64_t value2; /* the pool adjustment's reason */
	char *text;      /* owned, or NULL: an exception's message, a thread's new name, the agent's words */
	/* in a merged log: the process the event came from (its tables give ref
	 * a meaning); NULL in a process's own log */
	const struct prof_process *from;
};
#define PROF_EVENT_LOG_MAX 200000

struct prof_process {
	char *dir;
	struct cs_reader reader;
	bool reader_open;
	char error[320]; /* why this directory could not be read (fully) */

	bool have_hello;
	uint32_t pid, ppid;
	uint64_t start_unix_ns;
	uint8_t load_mode;
	uint32_t rate_hz;
	char *agent_version, *runtime_version, *command_line;

	struct prof_frame *frames;
	size_t nframes;
	struct prof_stack *stacks;
	size_t nstacks;
	struct u64map *canon_index; /* canonical parent << 32 | frame -> canonical stack id + 1 */
	char **code_paths;          /* file paths of CODE_PATH records (assemblies, native modules), each once */
	size_t ncode_paths, code_paths_cap;
	uint32_t *path_refs;        /* by the agent's path reference: code_paths index + 1 */
	size_t path_refs_cap;
	void *code_path_index;      /* path -> code_paths index (opaque) */
	bool have_lines;            /* some stack has an IL offset */
	struct natsym *natsym;      /* native functions' names (NATIVE_FRAME), NULL before the first */
	struct prof_function *functions;
	size_t nfunctions, functions_cap;
	struct prof_thread *threads;
	size_t nthreads;
	void *function_index; /* name+module -> function (opaque hash) */

	uint64_t ticks, samples; /* samples: of the time shown */
	uint64_t cpu_samples, wall_samples; /* cpu_samples: cpu_owed too */
	uint64_t cpu_owed; /* on-CPU samples that are no tick's moment (CPU_OWED): not in wall_samples */
	enum prof_time time;
	bool counts_stale; /* samples folded since the stacks' derived counts were made */
	uint64_t *stack_samples; /* per stack id: its samples, all and on a CPU (what folding counts) */
	size_t nstack_samples;
	uint8_t *stack_state; /* by stack id: its wait kind + 1 (0: not told yet) */
	size_t stack_state_cap;
	uint64_t *per_second;
	size_t nseconds;
	size_t per_second_cap; /* entries allocated (zero past nseconds) */
	uint64_t *waited_per_second; /* ns of lock and wait handle waits ending in each second */
	size_t waited_cap; /* entries allocated (zero past the last wait) */
	struct prof_suspend suspend; /* how long each tick held the runtime */
	uint64_t last_time_us; /* latest time any record carried */
	uint64_t last_tick_us; /* latest tick's: runs of held samples are charted up to it */
	uint64_t counted_first_us, counted_last_us; /* the first and last of the ticks counted (ticks) */

	bool have_status;
	struct cs_status status;
	struct cs_status status_before; /* the one before it (time_us 0: none) */
	struct prof_message *messages;
	size_t nmessages;
	bool ended;
	uint8_t end_reason;
	char *end_text;

	/* with prof_recording.by_thread: PROF_VALUES counters per (thread ref << 32 |
	 * stack id) since the last prof_thread_stacks_clear, and the times of
	 * the first and last tick they hold */
	struct u64map *thread_stacks;
	uint64_t window_first_us, window_last_us, window_ticks;
	uint32_t current_rate_hz; /* the sampling rate now (HELLO, then the dials answers) */

	uint64_t bad_records; /* checksummed but not decodable: a writer bug */
	struct prof_filter filter; /* the session's */
	uint64_t filtered_out;     /* samples outside the filter */

	char *control;         /* the agent's named semaphore ("": none, or HELLO does not say) */
	uint32_t hello_events; /* event kinds recorded from the start */
	uint32_t features;     /* cs_feature bits the program was started with */
	char *patterns;        /* instrumented functions, one pattern per line */
	struct prof_instrumentation instr;
	struct prof_heap *heaps;
	size_t nheaps, heaps_cap;
	struct hg_store graphs;            /* heap snapshots' object graphs, as read */
	struct heap_analysis *analysis;    /* the latest analysed (prof_heap_analysis) */
	uint64_t analysis_seq;
	struct prof_allocations allocs;
	struct prof_awaits *awaits; /* the awaits snapshots, in seq order */
	size_t nawaits, awaits_cap;
	struct prof_event_counts events;
	struct prof_gc *gcs;
	size_t ngcs, gcs_cap;
	struct prof_exception_type *exception_types;
	size_t nexception_types;
	void *exception_index;      /* type name -> exception_types index (opaque) */
	uint32_t *thread_last_throw; /* by thread ref: exception type index + 1 */
	size_t thread_last_throw_cap;
	uint64_t jit_total_us;
	struct prof_stack_tallies contention;
	struct prof_stack_tallies waits; /* WaitHandle waits, the same shape */
	struct prof_stack_tallies alloc_sites;    /* sampled allocations by stack */
	struct prof_type_count *alloc_types;      /* ... by type (bytes: what they stand for) */
	size_t nalloc_types;
	void *alloc_type_index; /* type name -> alloc_types index (opaque) */
	struct prof_threadpool pool;
	struct prof_module *modules;
	size_t nmodules, modules_cap;
	struct prof_dials_ack *dials;
	size_t ndials;
	struct prof_event *log; /* the first PROF_EVENT_LOG_MAX events */
	size_t nlog, log_cap;
	uint64_t log_dropped;
};

const char *prof_event_kind_name(uint8_t kind);

struct prof_recording {
	struct prof_filter filter; /* set before the first update */
	enum prof_time time;       /* what counts (prof_recording_set_time changes it later) */
	bool by_thread;            /* set before the first update: keep thread_stacks */
	char *dir;
	bool single_process; /* dir was a process directory, not a session */
	struct prof_process **procs;
	size_t nprocs;
};

/* Opens a session directory or a single process directory.  Returns -1 and
 * explains in err when dir is neither. */
int prof_recording_open(struct prof_recording *s, const char *dir, char *err, size_t errlen);
/* Reads what is new (final: the data on disk is complete; count torn tails). */
void prof_recording_update(struct prof_recording *s, bool final);
void prof_recording_free(struct prof_recording *s);

/* When the segment being read was last written (its mtime), for latency
 * measurements; false when unknown. */
bool prof_process_log_mtime(const struct prof_process *p, struct timespec *out);

/* Calls visit for every stack that has samples, with its functions from
 * the root outward (UINT32_MAX for a frame not named yet), how deep it is
 * and how many samples ended in it. */
typedef void (*prof_stack_visit)(void *ctx, const uint32_t *functions, size_t depth, uint64_t count);
void prof_each_stack(const struct prof_process *p, prof_stack_visit visit, void *ctx);
/* The same with the samples of one time (enum prof_time; -1: the time shown). */
void prof_each_stack_in(const struct prof_process *p, int time, prof_stack_visit visit, void *ctx);

/* Shows the other time: counts are kept for both, so this is a pass over
 * the stacks, not a re-read. */
void prof_recording_set_time(struct prof_recording *s, enum prof_time t);
void prof_process_set_time(struct prof_process *p, enum prof_time t);
/* The wait kind of an off-CPU sample in stack (cached per stack). */
enum prof_state prof_stack_state(struct prof_process *p, uint32_t stack);
/* CPU % of a thread over its latest clock readings (0 without two). */
double prof_thread_cpu_percent(const struct prof_thread *t);

/* Forgets the per-thread counts (thread_stacks) of every process: the
 * next ones start from here (record --rotate). */
void prof_thread_stacks_clear(struct prof_recording *s);

/* Fills self/total and the call totals of every function of p. */
void prof_compute(struct prof_process *p);
/* The newest complete heap snapshot and the one before it (NULL: none). */
const struct prof_heap *prof_latest_heap(const struct prof_process *p, const struct prof_heap **previous);
/* Bytes/count of type in a snapshot (0 when absent). */
const struct prof_type_count *prof_heap_find(const struct prof_heap *h, const char *type);
/* Whether snapshot h has its whole object graph (a graph walk's). */
bool prof_heap_has_graph(const struct prof_process *p, const struct prof_heap *h);
/* The analysis of snapshot h's graph (heapanalysis.h), kept until another
 * snapshot's is asked for; NULL, with why, when it has none. */
struct heap_analysis *prof_heap_analysis(struct prof_process *p, const struct prof_heap *h, char *err, size_t errlen);
/* The complete snapshots in order, those with a graph only when graphs;
 * returns how many (*out: to free). */
size_t prof_heap_snapshots(const struct prof_process *p, bool graphs, const struct prof_heap ***out);
/* The awaits snapshot with the highest number (NULL: none). */
const struct prof_awaits *prof_latest_awaits(const struct prof_process *p);
/* The snapshot in one line: its number, time, chains and groups, the
 * methods suspended, the unresolved and lost chains, the pause. */
void prof_awaits_text(const struct prof_awaits *a, char *out, size_t n);
/* Median suspension per tick in microseconds (0 without ticks): of all
 * ticks (to 0.1 us below 1 ms), or of the latest PROF_SUSPEND_RECENT. */
double prof_suspend_median_us(const struct prof_process *p);
/* What the profiler cost the program, from its STATUS records: the CPU
 * time of the agent's own threads and of its signal handler in the
 * program's threads, as a share of one CPU over the whole recording, or
 * (recent) between the last two records; -1 when the records do not say
 * (no CPU times in them; for recent, fewer than two). */
double prof_agent_cpu_share(const struct prof_process *p, bool recent);
double prof_suspend_recent_us(const struct prof_process *p);
/* The ticks the sampler took per second: of the ticks counted, from the
 * first to the last; or (recent) between the last two STATUS records.
 * -1 when there are not two to tell. */
double prof_achieved_hz(const struct prof_process *p, bool recent);
void prof_suspend_add(struct prof_suspend *s, uint64_t ns);
/* Adds src's ticks to dst (the all-processes merge). */
void prof_suspend_merge(struct prof_suspend *dst, const struct prof_suspend *src);
/* Calls fn for the frames of stack id from the root outward; returns depth. */
size_t prof_stack_path(const struct prof_process *p, uint32_t stack, uint32_t *frames, size_t cap);
/* The same path with each frame's IL offset + 1 (0: not known) in ils. */
size_t prof_stack_path_at(const struct prof_process *p, uint32_t stack, uint32_t *frames, uint32_t *ils,
			  size_t cap);
/* The same path by function (UINT32_MAX: a frame not named yet). */
size_t prof_stack_functions(const struct prof_process *p, uint32_t stack, uint32_t *functions, size_t cap);
/* A frame's printable name ("[unknown]" before its definition arrived). */
const char *prof_frame_name(const struct prof_process *p, uint32_t frame);

#endif
