/* The async stacks' walk (agent/symbols/asyncwalk.c), built from its source,
 * over canned memory: a running box found among a capture's words only when
 * its address is there twice, its type is a known box and it runs its state
 * machine (a completed box of the same type is passed over), the chain of
 * continuations through each shape the runtime gives them (a box, an
 * Action and the TPL's continuation wrapper, a WhenAll promise, a list of
 * several), and each cause that leaves it unresolved. */
#include <string.h>

#include "agent/symbols/asyncwalk.h"
#include "check.h"

#define BASE 0x10000000ull
#define SIZE 65536u

static uint8_t mem[SIZE];

/* the types, by their fake MethodTables */
enum { MT_SUM = 0x7000, MT_QUOTE = 0x7100, MT_RUN = 0x7200, MT_ACTION = 0x7300, MT_WRAPPER = 0x7400,
       MT_WHENALL = 0x7500, MT_LIST = 0x7600, MT_SENTINEL = 0x7700, MT_ARRAY = 0x7800, MT_STRANGER = 0x7900 };
enum { SM_SUM = 0x9000, SM_QUOTE = 0x9100, SM_RUN = 0x9200 };
enum { CONT = 32, SM_OFF = 64, STATE = 0, BUILDER = 8, TARGET = 8, ITEMS = 8, LSIZE = 16 };

static int env_read(void *ctx, uint64_t addr, void *buf, uint32_t n)
{
	(void)ctx;
	if (addr < BASE || addr + n > BASE + SIZE || addr + n < addr)
		return -1;
	memcpy(buf, mem + (addr - BASE), n);
	return 0;
}

static void env_read_words(void *ctx, const uint64_t *addrs, uint64_t *out, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (env_read(ctx, addrs[i], &out[i], 8) != 0)
			out[i] = 0;
}

static bool env_type_of(void *ctx, uint64_t mt, struct aw_type *out)
{
	(void)ctx;
	return aw_types_get(mt, out);
}

static const struct aw_env env = {NULL, env_read, env_read_words, env_type_of, 16};

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(mem + (addr - BASE), &v, 8);
}

static void put32(uint64_t addr, int32_t v)
{
	memcpy(mem + (addr - BASE), &v, 4);
}

/* A box at addr: its type, continuation, state and builder's task. */
static void box(uint64_t addr, uint64_t mt, uint64_t continuation, int32_t state, uint64_t task)
{
	put64(addr, mt);
	put64(addr + CONT, continuation);
	put32(addr + SM_OFF + STATE, state);
	put64(addr + SM_OFF + BUILDER, task);
}

static void learn_types(void)
{
	aw_types_clear();
	const uint64_t boxes[][2] = {{MT_SUM, SM_SUM}, {MT_QUOTE, SM_QUOTE}, {MT_RUN, SM_RUN}};
	for (int i = 0; i < 3; i++) {
		struct aw_type t = {.kind = AW_BOX, .sm_class = boxes[i][1], .continuation = CONT, .sm_off = SM_OFF,
				    .sm_state = STATE, .sm_builder = BUILDER};
		CHECK(aw_types_put(boxes[i][0], &t));
	}
	CHECK(aw_types_any_box());
	aw_types_put(MT_ACTION, &(struct aw_type){.kind = AW_DELEGATE, .target = TARGET});
	aw_types_put(MT_WRAPPER, &(struct aw_type){.kind = AW_WRAPPER, .target = TARGET});
	aw_types_put(MT_WHENALL, &(struct aw_type){.kind = AW_TASK, .continuation = CONT, .when_all = true});
	aw_types_put(MT_LIST, &(struct aw_type){.kind = AW_LIST, .items = ITEMS, .size = LSIZE});
	aw_types_put(MT_SENTINEL, &(struct aw_type){.kind = AW_SENTINEL});
	aw_types_put(MT_ARRAY, &(struct aw_type){.kind = AW_OTHER});
	aw_types_put(MT_STRANGER, &(struct aw_type){.kind = AW_OTHER});
}

#define S (BASE + 0x100)
#define Q (BASE + 0x200)
#define R (BASE + 0x300)
#define STALE (BASE + 0x400)
#define X (BASE + 0x500)
#define Y (BASE + 0x600)
#define Z (BASE + 0x700)

/* RunAsync awaits QuoteAsync, which awaits SumAsync, running: the stack words
 * hold SumAsync's box three times, a completed one of its type three times
 * (state -2, its state machine cleared), an unreadable address three times,
 * QuoteAsync's box twice (not a running box's: seen less often, not looked
 * at) */
static void setup_chain(void)
{
	memset(mem, 0, sizeof mem);
	learn_types();
	box(S, MT_SUM, Q, -1, S);
	box(Q, MT_QUOTE, R, 0, Q);
	box(R, MT_RUN, 0, 0, R);
	box(STALE, MT_SUM, 0, -2, 0);
}

static void chain(void)
{
	setup_chain();
	const uint64_t words[] = {7, S, 0x50, STALE, 0xdead0000, Q, S | 1, S, STALE, 0xdead0000, 0, Q, S, STALE, 0xdead0000};
	struct aw_sample out;
	aw_take(&env, words, sizeof words / sizeof *words, &out);
	CHECK(out.taken && !out.more);
	CHECK_EQ_U(out.nboxes, 1);
	const struct aw_found *f = &out.box[0];
	CHECK_EQ_U(f->box_mt, MT_SUM);
	CHECK_EQ_U(f->status, AW_RESOLVED);
	CHECK_EQ_U(f->n, 2);
	CHECK(f->callers[0].sm_class == SM_QUOTE && f->callers[1].sm_class == SM_RUN);
	CHECK(!f->callers[0].when_all && !f->callers[1].when_all);
	CHECK_EQ_U(f->root, R);
	CHECK(aw_root_stands(&env, f));
	/* RunAsync's caller registers its await after the sample: the root
	 * does not stand */
	put64(R + CONT, X);
	CHECK(!aw_root_stands(&env, f));

	/* seen twice: not looked at */
	const uint64_t twice_each[] = {S, Q, R, S, Q, R};
	aw_take(&env, twice_each, 6, &out);
	CHECK_EQ_U(out.nboxes, 0);
	/* a box of the right type that is not running (its state is not -1,
	 * or its builder is not its own): not taken */
	const uint64_t thrice[] = {S, S, S};
	aw_take(&env, thrice, 3, &out);
	CHECK_EQ_U(out.nboxes, 1);
	box(S, MT_SUM, Q, 0, S);
	aw_take(&env, thrice, 3, &out);
	CHECK_EQ_U(out.nboxes, 0);
	box(S, MT_SUM, Q, -1, Q);
	aw_take(&env, thrice, 3, &out);
	CHECK_EQ_U(out.nboxes, 0);
}

/* Two running boxes on one stack (an inline continuation): both found,
 * for the caller to tell by the frame's type or call ambiguous. */
static void two_running(void)
{
	setup_chain();
	box(Q, MT_QUOTE, R, -1, Q);
	const uint64_t words[] = {S, Q, S, Q, Q, S};
	struct aw_sample out;
	aw_take(&env, words, 6, &out);
	CHECK_EQ_U(out.nboxes, 2);
	CHECK(out.box[0].box_mt != out.box[1].box_mt);
}

/* walk from S with S's continuation as given */
static enum aw_status walk_from_s(struct aw_caller *callers, uint32_t max, uint32_t *n, uint64_t *unknown)
{
	struct aw_type t;
	CHECK(aw_types_get(MT_SUM, &t));
	uint64_t root;
	uint32_t root_cont;
	return aw_walk(&env, S, &t, callers, max, n, unknown, &root, &root_cont);
}

static void shapes(void)
{
	struct aw_caller callers[8];
	uint32_t n;
	uint64_t unknown;

	/* TPL events on: an Action whose target is the continuation wrapper,
	 * whose continuation is an Action on QuoteAsync's box */
	setup_chain();
	put64(X, MT_ACTION), put64(X + TARGET, Y);
	put64(Y, MT_WRAPPER), put64(Y + TARGET, Z);
	put64(Z, MT_ACTION), put64(Z + TARGET, Q);
	put64(S + CONT, X);
	CHECK_EQ_U(walk_from_s(callers, 8, &n, &unknown), AW_RESOLVED);
	CHECK(n == 2 && callers[0].sm_class == SM_QUOTE && callers[1].sm_class == SM_RUN);

	/* Task.WhenAll: the promise, then the method awaiting it */
	setup_chain();
	put64(X, MT_WHENALL), put64(X + CONT, R);
	put64(S + CONT, X);
	CHECK_EQ_U(walk_from_s(callers, 8, &n, &unknown), AW_RESOLVED);
	CHECK(n == 1 && callers[0].sm_class == SM_RUN && callers[0].when_all);

	/* several awaiting: a list, removed entries null; the first follows */
	setup_chain();
	put64(X, MT_LIST), put64(X + ITEMS, Y), put32(X + LSIZE, 2);
	put64(Y, MT_ARRAY), put64(Y + 16, 0), put64(Y + 24, Q);
	put64(S + CONT, X);
	CHECK_EQ_U(walk_from_s(callers, 8, &n, &unknown), AW_RESOLVED);
	CHECK(n == 2 && callers[0].sm_class == SM_QUOTE);

	/* the unresolved: completed meanwhile, an unknown type (named for
	 * learning), a continuation the walk does not follow, an unreadable
	 * one, a circle, a chain longer than the room */
	setup_chain();
	put64(Q + CONT, X), put64(X, MT_SENTINEL);
	CHECK_EQ_U(walk_from_s(callers, 8, &n, &unknown), AW_COMPLETED);
	CHECK(n == 1 && callers[0].sm_class == SM_QUOTE);
	put64(X, 0x7ab8);
	CHECK_EQ_U(walk_from_s(callers, 8, &n, &unknown), AW_TYPE);
	CHECK_EQ_U(unknown, 0x7ab8);
	put64(X, MT_STRANGER);
	CHECK_EQ_U(walk_from_s(callers, 8, &n, &unknown), AW_UNKNOWN);
	put64(Q + CONT, BASE + SIZE + 64);
	CHECK_EQ_U(walk_from_s(callers, 8, &n, &unknown), AW_UNKNOWN);
	put64(Q + CONT, S);
	CHECK_EQ_U(walk_from_s(callers, 8, &n, &unknown), AW_DEPTH);
	setup_chain();
	CHECK_EQ_U(walk_from_s(callers, 1, &n, &unknown), AW_DEPTH);
	CHECK(n == 1 && callers[0].sm_class == SM_QUOTE);
}

/* The awaits snapshots' questions: which boxes are suspended at an await
 * (a running one, a completed one and one whose builder points elsewhere
 * are not), and one step to the box that awaits each, through a WhenAll
 * promise and a wrapper, or none at the root */
static void suspended_and_awaiter(void)
{
	setup_chain();
	struct aw_type sum = {0}, quote = {0}, run = {0};
	CHECK(aw_types_get(MT_SUM, &sum) && aw_types_get(MT_QUOTE, &quote) && aw_types_get(MT_RUN, &run));
	CHECK(!aw_suspended(&env, S, &sum));     /* running */
	CHECK(!aw_suspended(&env, STALE, &sum)); /* completed */
	CHECK(aw_suspended(&env, Q, &quote) && aw_suspended(&env, R, &run));
	box(X, MT_QUOTE, 0, 1, Y); /* state 1, but its builder's task is another */
	CHECK(!aw_suspended(&env, X, &quote));

	uint64_t parent = 1, unknown = 1;
	bool blocked = true;
	struct aw_caller caller = {0};
	CHECK(aw_awaiter(&env, Q, &quote, &parent, &caller, &unknown, &blocked) == AW_RESOLVED);
	CHECK(parent == R && caller.sm_class == SM_RUN && !caller.when_all && unknown == 0);
	CHECK(aw_awaiter(&env, R, &run, &parent, &caller, &unknown, &blocked) == AW_RESOLVED && parent == 0 && !blocked);

	/* Quote awaits WhenAll(Sum, ...) through the TPL's wrapper: Sum -> promise -> Action -> wrapper -> Action -> Quote */
	box(S, MT_SUM, X, 0, S);
	put64(X, MT_WHENALL);
	put64(X + CONT, Y);
	put64(Y, MT_ACTION);
	put64(Y + TARGET, Z);
	put64(Z, MT_WRAPPER);
	put64(Z + TARGET, Z + 0x40);
	put64(Z + 0x40, MT_ACTION);
	put64(Z + 0x40 + TARGET, Q);
	CHECK(aw_awaiter(&env, S, &sum, &parent, &caller, &unknown, &blocked) == AW_RESOLVED);
	CHECK(parent == Q && caller.sm_class == SM_QUOTE && caller.when_all);

	/* a continuation of a type not known: its MethodTable says which */
	put64(Y, 0x7a00);
	CHECK(aw_awaiter(&env, S, &sum, &parent, &caller, &unknown, &blocked) == AW_TYPE && unknown == 0x7a00 && parent == 0);
	/* completed meanwhile */
	put64(X + CONT, Y);
	put64(Y, MT_SENTINEL);
	CHECK(aw_awaiter(&env, S, &sum, &parent, &caller, &unknown, &blocked) == AW_COMPLETED);

	/* a thread blocks on Run (.Result): the root of its chain, for the
	 * snapshot; a sample's walk leaves it unresolved (nothing stands) */
	aw_types_put(0x7b00, &(struct aw_type){.kind = AW_BLOCKING});
	put64(Y, 0x7b00);
	put64(R + CONT, Y);
	CHECK(aw_awaiter(&env, R, &run, &parent, &caller, &unknown, &blocked) == AW_RESOLVED && parent == 0 && blocked);
	struct aw_caller callers[4];
	uint32_t n;
	uint64_t root;
	uint32_t root_continuation;
	box(Q, MT_QUOTE, R, 0, Q);
	CHECK(aw_walk(&env, Q, &quote, callers, 4, &n, &unknown, &root, &root_continuation) == AW_UNKNOWN);

	/* what a suspended box awaits: the first awaiter field set */
	struct aw_type with = quote;
	with.nawaiters = 2;
	with.awaiters[0] = 16;
	with.awaiters[1] = 24;
	CHECK(aw_awaited(&env, Q, &with) == 0);
	put64(Q + SM_OFF + 24, Z);
	CHECK(aw_awaited(&env, Q, &with) == Z);
	put64(Q + SM_OFF + 16, X);
	CHECK(aw_awaited(&env, Q, &with) == X);
}

int main(void)
{
	RUN(chain);
	RUN(two_running);
	RUN(shapes);
	RUN(suspended_and_awaiter);
	return CHECK_DONE();
}
