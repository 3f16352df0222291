/* The logical callers of a running async method, from the heap: the pure
 * part of the async stacks (asyncstack.c holds the runtime's part).  Every
 * read of the program's memory and every question about a type goes
 * through a seam (struct aw_env), so that the unit tests walk canned
 * memory.
 *
 * Objects are read as the runtime lays them out: the MethodTable pointer
 * at +0, a type's fields at the offsets the runtime gave for it (never
 * assumed).  Nothing read is trusted until it checks out: a running box is
 * taken only when its type is the one the stack names, it is running
 * (state -1) and its state machine's builder points back at it; a
 * continuation only when its type is one the walk knows. */
#ifndef CLRSCOPE_AGENT_ASYNCWALK_H
#define CLRSCOPE_AGENT_ASYNCWALK_H

#include <stdbool.h>
#include <stdint.h>

#define AW_AWAITERS_MAX 4

/* What an object's type is to the walk. */
enum aw_kind {
	AW_OTHER = 0,  /* nothing the walk follows: the chain is unresolved there */
	AW_BOX,        /* an async method's state machine box (a Task) */
	AW_TASK,       /* another Task (a WhenAll or WhenAny promise, ...): its own continuation is followed */
	AW_DELEGATE,   /* an Action: its target is followed */
	AW_WRAPPER,    /* a continuation wrapper (TPL events on): its continuation delegate is followed */
	AW_AWAIT_CONT, /* an AwaitTaskContinuation (a captured context): its action is followed */
	AW_LIST,       /* a List<object> of continuations */
	AW_SENTINEL,   /* the completed-task sentinel: the task finished meanwhile */
	AW_BLOCKING,   /* a thread's blocking wait for the task (Task.Wait, .Result): nothing awaits it */
};

/* A type as the walk needs it; offsets from the object's start, those of
 * a state machine from its own start (sm_off in the box + them). */
struct aw_type {
	enum aw_kind kind;
	uint64_t sm_class;          /* AW_BOX: the state machine's type (its MoveNext names the frame) */
	uint32_t continuation;      /* AW_BOX, AW_TASK: m_continuationObject */
	uint32_t sm_off;            /* AW_BOX: StateMachine */
	uint32_t sm_state;          /* AW_BOX: <>1__state within the state machine */
	uint32_t sm_builder;        /* AW_BOX: <>t__builder within the state machine */
	uint8_t nawaiters;          /* AW_BOX: its awaiter fields (<>u__1 ...), within the state machine */
	uint32_t awaiters[AW_AWAITERS_MAX];
	bool when_all;              /* AW_TASK: a WhenAll promise (its marker says so) */
	uint32_t target;            /* AW_DELEGATE: _target; AW_WRAPPER: _continuation; AW_AWAIT_CONT: m_action */
	uint32_t items, size;       /* AW_LIST: _items (an object[]) and _size */
};

struct aw_env {
	void *ctx;
	/* n bytes at addr (0; -1: unreadable) */
	int (*read)(void *ctx, uint64_t addr, void *buf, uint32_t n);
	/* the 8-byte words at addrs[0..n) into out; an unreadable one reads
	 * as 0 */
	void (*read_words)(void *ctx, const uint64_t *addrs, uint64_t *out, uint32_t n);
	/* the type of the object whose MethodTable word is mt (false: not
	 * known: the walk stops there, unresolved) */
	bool (*type_of)(void *ctx, uint64_t mt, struct aw_type *out);
	uint32_t array_data; /* an object[]'s first element, from the array's start */
};

/* Why a sample's logical callers are not known. */
enum aw_status {
	AW_RESOLVED = 0,
	AW_NOT_FOUND,   /* no running box of the frame's type among the words */
	AW_AMBIGUOUS,   /* more than one */
	AW_TYPE,        /* a type not known yet (learnt for the next samples), or a shared box */
	AW_UNKNOWN,     /* a continuation the walk does not follow (a custom awaiter, a blocking wait ...) */
	AW_COMPLETED,   /* a task of the chain completed as it was read */
	AW_DEPTH,       /* longer than the limit, or a circle */
	AW_GC,          /* a collection may have moved objects as they were read */
	AW_STATUSES
};

/* "not found", "gc" ...: a cause in words. */
const char *aw_status_name(enum aw_status st);

/* One logical caller, innermost first. */
struct aw_caller {
	uint64_t sm_class; /* its state machine's type */
	bool when_all;     /* it awaits a WhenAll promise that awaits the callee */
};

#define AW_MAX_DEPTH 256

/* The chain of the methods that await box, innermost first, into out (at
 * most max); *n: how many.  AW_RESOLVED when it ends where nothing awaits
 * (the root: *root, its continuation at *root_continuation); otherwise
 * out holds what was found before the cause, and for AW_TYPE *unknown_mt
 * is the type not known.  A root may be one whose awaiting method has not
 * yet registered (it runs on another thread): the caller checks that its
 * continuation is still null later (aw_root_stands). */
enum aw_status aw_walk(const struct aw_env *env, uint64_t box, const struct aw_type *box_type,
		       struct aw_caller *out, uint32_t max, uint32_t *n, uint64_t *unknown_mt, uint64_t *root,
		       uint32_t *root_continuation);

/* Whether box (of type t) is suspended at an await: its state machine's
 * state is an await's number, its builder's task the box itself. */
bool aw_suspended(const struct aw_env *env, uint64_t box, const struct aw_type *t);

/* The async method that awaits box (one step of aw_walk): *parent its box
 * and *caller its state machine's type, or *parent 0 when nothing awaits
 * box yet (*blocked: a thread waits for it instead).  The other statuses
 * as aw_walk's. */
enum aw_status aw_awaiter(const struct aw_env *env, uint64_t box, const struct aw_type *box_type, uint64_t *parent,
			  struct aw_caller *caller, uint64_t *unknown_mt, bool *blocked);

/* What a box suspended at an await awaits: the object its awaiter holds
 * (the first word of the one awaiter field set: a TaskAwaiter's task, a
 * ValueTaskAwaiter's source ...), 0 when none (Task.Yield's awaiter holds
 * nothing).  Only an address: the caller checks it is an object. */
uint64_t aw_awaited(const struct aw_env *env, uint64_t box, const struct aw_type *t);

/* What a sample's thread held of running boxes, read as it was sampled:
 * each box whose address the words held at least three times (the box of
 * a running MoveNext sits in several registers and stack slots), of a type
 * known as a box, running its state machine (state -1, its builder's task
 * the box itself), and the chain that awaits it. */
#define AW_BOXES_MAX 2
#define AW_CHAIN_MAX 32
struct aw_found {
	uint64_t box_mt;
	uint64_t root;       /* AW_RESOLVED: the outermost box or task, whose continuation was null */
	uint32_t root_continuation; /* ... where that continuation is in it */
	uint64_t unknown_mt; /* status AW_TYPE: the type met */
	uint8_t status;      /* enum aw_status of its walk */
	uint8_t n;
	struct aw_caller callers[AW_CHAIN_MAX];
};
struct aw_sample {
	uint8_t nboxes;
	bool taken;     /* looked for (else: nothing is known) */
	bool moved;     /* a GC was under way, or began as it was taken: nothing is known */
	uint32_t gc_epoch; /* activity_gc_epoch() as it was taken */
	bool more;      /* more boxes than AW_BOXES_MAX */
	struct aw_found box[AW_BOXES_MAX];
};

/* Fills out from words (at most AW_WORDS_MAX of them: registers and stack
 * words).  Async-signal-safe when env's functions are (the signal handler
 * calls it); no allocation. */
#define AW_WORDS_MAX 600
void aw_take(const struct aw_env *env, const uint64_t *words, uint32_t nwords, struct aw_sample *out);

/* A chain's root, read again after the sample: still nobody awaits it
 * (false: its continuation was set meanwhile, its awaiting method was
 * registering as the sample was taken, or it completed). */
bool aw_root_stands(const struct aw_env *env, const struct aw_found *f);

/* The types the walk knows, by MethodTable: written by one thread (the
 * sampler thread, as it learns them), read by any, the signal handler's
 * included (lock-free, no allocation).  false when the table is full. */
bool aw_types_put(uint64_t mt, const struct aw_type *t);
bool aw_types_get(uint64_t mt, struct aw_type *t);
/* Whether any box type is known (before that, samples need no look). */
bool aw_types_any_box(void);
/* Forgets them all (a reader meanwhile may find fewer, or read a type
 * as a new one is written in its place: its checks then fail). */
void aw_types_clear(void);

#endif
