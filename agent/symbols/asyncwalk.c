#include "agent/symbols/asyncwalk.h"

#include <stdatomic.h>
#include <string.h>

#define INNER_HOPS 8           /* delegates and wrappers between two tasks */
#define MT_MASK (~(uint64_t)7) /* the MethodTable word's low bits may be the GC's */
#define COUNT_SLOTS 1024       /* the words' counts (a power of two, above AW_WORDS_MAX) */
#define CANDIDATES_MAX 64      /* words seen REPEATS times or more, looked at as boxes */
#define REPEATS 3              /* a running box sits in several registers and stack slots */
#define TYPES_SLOTS 4096       /* types known (a power of two) */

const char *aw_status_name(enum aw_status st)
{
	static const char *const names[AW_STATUSES] = {"resolved", "not found", "ambiguous", "type", "unknown",
						       "completed", "depth", "gc"};
	return (unsigned)st < AW_STATUSES ? names[st] : "?";
}

/* ---- the types' table ---- */

static struct type_slot {
	_Atomic uint64_t mt; /* 0: free; stored last, once the type is */
	struct aw_type t;
} types[TYPES_SLOTS];
static atomic_bool any_box;

static uint32_t slot_of(uint64_t mt)
{
	return (uint32_t)((mt * 0x9E3779B97F4A7C15ull) >> 52) & (TYPES_SLOTS - 1);
}

bool aw_types_put(uint64_t mt, const struct aw_type *t)
{
	if (!mt)
		return false;
	for (uint32_t i = 0, k = slot_of(mt); i < TYPES_SLOTS / 2; i++, k = (k + 1) & (TYPES_SLOTS - 1)) {
		uint64_t have = atomic_load_explicit(&types[k].mt, memory_order_acquire);
		if (have == mt)
			return true; /* (a type's answer does not change) */
		if (have)
			continue;
		types[k].t = *t;
		atomic_store_explicit(&types[k].mt, mt, memory_order_release);
		if (t->kind == AW_BOX)
			atomic_store(&any_box, true);
		return true;
	}
	return false;
}

bool aw_types_get(uint64_t mt, struct aw_type *t)
{
	if (!mt)
		return false;
	for (uint32_t i = 0, k = slot_of(mt); i < TYPES_SLOTS / 2; i++, k = (k + 1) & (TYPES_SLOTS - 1)) {
		uint64_t have = atomic_load_explicit(&types[k].mt, memory_order_acquire);
		if (have == mt) {
			*t = types[k].t;
			return true;
		}
		if (!have)
			return false;
	}
	return false;
}

bool aw_types_any_box(void)
{
	return atomic_load(&any_box);
}

void aw_types_clear(void)
{
	for (uint32_t k = 0; k < TYPES_SLOTS; k++)
		atomic_store(&types[k].mt, 0);
	atomic_store(&any_box, false);
}

/* ---- the walk ---- */

static bool read_word(const struct aw_env *env, uint64_t addr, uint64_t *out)
{
	return env->read(env->ctx, addr, out, 8) == 0;
}

/* An object's first bytes, read at once: its MethodTable and the fields
 * the walk reads lie there (each read is a system call in the signal
 * handler). */
#define WINDOW 64
struct window {
	uint64_t addr; /* 0: none */
	bool whole;    /* all WINDOW bytes read (else: the object ends nearer, read field by field) */
	uint8_t bytes[WINDOW];
};

static bool read_field(const struct aw_env *env, struct window *w, uint64_t obj, uint32_t off, uint64_t *out)
{
	if (w->addr != obj) {
		w->addr = obj;
		w->whole = env->read(env->ctx, obj, w->bytes, WINDOW) == 0;
	}
	if (w->whole && off + 8 <= WINDOW) {
		memcpy(out, w->bytes + off, 8);
		return true;
	}
	return read_word(env, obj + off, out);
}

/* The state of box's state machine (-1 running, 0 and up suspended at
 * that await, -2 done), when its builder's task is box itself (the
 * builder's first two words: m_task of every task builder, or the
 * AsyncVoidMethodBuilder's inner one); false when it is not a box's. */
static bool box_state(const struct aw_env *env, uint64_t box, const struct aw_type *t, int32_t *state)
{
	uint64_t builder[2];
	uint32_t lo = t->sm_state < t->sm_builder ? t->sm_state : t->sm_builder;
	uint32_t hi = t->sm_state + 4 > t->sm_builder + 16 ? t->sm_state + 4 : t->sm_builder + 16;
	uint8_t both[64];
	if (hi - lo <= sizeof both && env->read(env->ctx, box + t->sm_off + lo, both, hi - lo) == 0) {
		memcpy(state, both + (t->sm_state - lo), sizeof *state);
		memcpy(builder, both + (t->sm_builder - lo), sizeof builder);
	} else if (env->read(env->ctx, box + t->sm_off + t->sm_state, state, sizeof *state) != 0 ||
		   env->read(env->ctx, box + t->sm_off + t->sm_builder, builder, sizeof builder) != 0) {
		return false;
	}
	return builder[0] == box || builder[1] == box;
}

static bool running_box(const struct aw_env *env, uint64_t box, const struct aw_type *t)
{
	int32_t state = 0;
	return box_state(env, box, t, &state) && state == -1;
}

bool aw_suspended(const struct aw_env *env, uint64_t box, const struct aw_type *t)
{
	int32_t state = -1;
	return t->kind == AW_BOX && box_state(env, box, t, &state) && state >= 0;
}

/* The first continuation a list holds (a task awaited by several: the
 * walk follows the first, as dumpasync does); 0 when it holds none. */
static bool list_first(const struct aw_env *env, uint64_t list, const struct aw_type *t, uint64_t *first)
{
	uint64_t items = 0;
	int32_t size = 0;
	if (!read_word(env, list + t->items, &items) ||
	    env->read(env->ctx, list + t->size, &size, sizeof size) != 0 || !items || size < 0)
		return false;
	*first = 0;
	for (int32_t i = 0; i < size && i < AW_MAX_DEPTH; i++) {
		uint64_t e = 0;
		if (!read_word(env, items + env->array_data + 8 * (uint64_t)i, &e))
			return false;
		if (e) { /* (removed continuations leave nulls) */
			*first = e;
			return true;
		}
	}
	return true;
}

/* From *cur (a box or a task of type *type) through its continuation to
 * the box that awaits it: *cur and *type become that box; *root when
 * nothing awaits *cur (yet), which is then the last task of the chain
 * (the box, or a promise nobody awaits; *blocked: a thread waits for it).
 * *when_all: the way passed a WhenAll promise. */
static enum aw_status step(const struct aw_env *env, struct window *w, uint64_t *cur, struct aw_type *type,
			   bool *when_all, uint64_t *unknown_mt, bool *root, bool *blocked)
{
	*when_all = *root = *blocked = false;
	for (uint32_t hops = 0; hops < AW_MAX_DEPTH; hops++) {
		uint64_t obj = 0;
		if (!read_field(env, w, *cur, type->continuation, &obj))
			return AW_UNKNOWN;
		for (uint32_t inner = 0;; inner++) {
			if (!obj && inner)
				return AW_UNKNOWN; /* a continuation that leads nowhere */
			if (!obj) {
				*root = true;
				return AW_RESOLVED;
			}
			if (inner == INNER_HOPS)
				return AW_UNKNOWN;
			uint64_t mt = 0;
			struct aw_type t;
			if (!read_field(env, w, obj, 0, &mt))
				return AW_UNKNOWN;
			if (!env->type_of(env->ctx, mt & MT_MASK, &t)) {
				*unknown_mt = mt & MT_MASK;
				return AW_TYPE;
			}
			if (t.kind == AW_BOX || t.kind == AW_TASK) {
				*cur = obj;
				*type = t;
				if (t.kind == AW_BOX)
					return AW_RESOLVED;
				*when_all |= t.when_all;
				break; /* on from the promise's own continuation */
			}
			switch (t.kind) {
			case AW_DELEGATE:
			case AW_WRAPPER:
			case AW_AWAIT_CONT:
				if (!read_field(env, w, obj, t.target, &obj))
					return AW_UNKNOWN;
				if (!obj)
					return AW_UNKNOWN; /* a delegate without a target: not a box's */
				break;
			case AW_LIST:
				if (!list_first(env, obj, &t, &obj))
					return AW_UNKNOWN;
				break;
			case AW_SENTINEL:
				return AW_COMPLETED;
			case AW_BLOCKING:
				*root = *blocked = true;
				return AW_RESOLVED;
			default:
				return AW_UNKNOWN;
			}
		}
	}
	return AW_DEPTH;
}

enum aw_status aw_walk(const struct aw_env *env, uint64_t box, const struct aw_type *box_type,
		       struct aw_caller *out, uint32_t max, uint32_t *n, uint64_t *unknown_mt, uint64_t *root,
		       uint32_t *root_continuation)
{
	*n = 0;
	*unknown_mt = *root = 0;
	*root_continuation = 0;
	uint64_t cur = box;
	struct aw_type type = *box_type;
	struct window w = {0};
	for (;;) {
		bool when_all, at_root, blocked;
		enum aw_status st = step(env, &w, &cur, &type, &when_all, unknown_mt, &at_root, &blocked);
		if (st != AW_RESOLVED)
			return st;
		if (blocked)
			return AW_UNKNOWN; /* (a sample's root stands only where nothing awaits it) */
		if (at_root) {
			*root = cur;
			*root_continuation = type.continuation;
			return AW_RESOLVED;
		}
		if (*n == max)
			return AW_DEPTH;
		out[(*n)++] = (struct aw_caller){type.sm_class, when_all};
	}
}

enum aw_status aw_awaiter(const struct aw_env *env, uint64_t box, const struct aw_type *box_type, uint64_t *parent,
			  struct aw_caller *caller, uint64_t *unknown_mt, bool *blocked)
{
	uint64_t cur = box;
	struct aw_type type = *box_type;
	struct window w = {0};
	bool when_all, at_root;
	*parent = *unknown_mt = 0;
	enum aw_status st = step(env, &w, &cur, &type, &when_all, unknown_mt, &at_root, blocked);
	if (st == AW_RESOLVED && !at_root) {
		*parent = cur;
		*caller = (struct aw_caller){type.sm_class, when_all};
	}
	return st;
}

uint64_t aw_awaited(const struct aw_env *env, uint64_t box, const struct aw_type *t)
{
	for (uint32_t i = 0; i < t->nawaiters && i < AW_AWAITERS_MAX; i++) {
		uint64_t obj = 0;
		if (read_word(env, box + t->sm_off + t->awaiters[i], &obj) && obj && !(obj & 7))
			return obj;
	}
	return 0;
}

/* The words seen at least REPEATS times, at most max of them, into out. */
static uint32_t repeated(const uint64_t *words, uint32_t nwords, uint64_t *out, uint32_t max)
{
	uint64_t key[COUNT_SLOTS];
	uint8_t count[COUNT_SLOTS];
	memset(count, 0, sizeof count);
	uint32_t n = 0;
	for (uint32_t i = 0; i < nwords && i < AW_WORDS_MAX; i++) {
		uint64_t w = words[i];
		if (!w || (w & 7))
			continue;
		uint32_t k = (uint32_t)((w * 0x9E3779B97F4A7C15ull) >> 54) & (COUNT_SLOTS - 1);
		while (count[k] && key[k] != w)
			k = (k + 1) & (COUNT_SLOTS - 1);
		key[k] = w;
		if (++count[k] == REPEATS && n < max)
			out[n++] = w;
		if (count[k] == 255)
			count[k] = REPEATS;
	}
	return n;
}

void aw_take(const struct aw_env *env, const uint64_t *words, uint32_t nwords, struct aw_sample *out)
{
	out->nboxes = 0;
	out->more = false;
	out->taken = true;
	uint64_t cand[CANDIDATES_MAX], mts[CANDIDATES_MAX];
	uint32_t n = repeated(words, nwords, cand, CANDIDATES_MAX);
	env->read_words(env->ctx, cand, mts, n);
	for (uint32_t i = 0; i < n; i++) {
		struct aw_type t;
		if (!env->type_of(env->ctx, mts[i] & MT_MASK, &t) || t.kind != AW_BOX || !running_box(env, cand[i], &t))
			continue;
		if (out->nboxes == AW_BOXES_MAX) {
			out->more = true;
			break;
		}
		struct aw_found *f = &out->box[out->nboxes++];
		uint32_t depth = 0;
		f->box_mt = mts[i] & MT_MASK;
		f->status = (uint8_t)aw_walk(env, cand[i], &t, f->callers, AW_CHAIN_MAX, &depth, &f->unknown_mt, &f->root,
					     &f->root_continuation);
		f->n = (uint8_t)depth;
	}
}

bool aw_root_stands(const struct aw_env *env, const struct aw_found *f)
{
	uint64_t obj = 1;
	return f->root && read_word(env, f->root + f->root_continuation, &obj) && obj == 0;
}
