/* The agent's unwinder (agent/unwind/unwind.c) on canned stacks and
 * registers, through its seam: the code is canned (cannedcode.c) with
 * real x86-64 bytes, which the agent's own decoders read (x64frame for
 * managed prologs and epilogs, nativeframe for native calls and the
 * hijack stub).  Each stack is laid out word by word as the code would
 * have left it, from the thread's first frame down to the leaf. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/unwind/unwind.h"
#include "cannedbodies.h"
#include "cannedcode.h"
#include "check.h"

/* --- the code (cannedbodies.h has the bytes) --------------------------- */

enum {
	FN_A = 0xA000, /* the thread's first managed method (Tier0) */
	FN_B = 0xB000,
	FN_C = 0xC000,
	FN_F = 0xF000, /* frameless */
	FN_G = 0x6000, /* frameless */
	FN_X = 0x7000, /* Tier0 and OSR bodies */
	FN_K = 0x8000, /* with a funclet */
	FN_S = 0x5000, /* saves callee-saved registers */
	FN_Z = 0x2000, /* a prolog not understood */
};

#define CODE_A 0x7f0010001000ull
#define CODE_B 0x7f0010002000ull
#define CODE_C 0x7f0010003000ull
#define CODE_F 0x7f0010004000ull
#define CODE_G 0x7f0010005000ull
#define CODE_X0 0x7f0010006000ull /* Tier0 */
#define CODE_X1 0x7f0010007000ull /* OSR */
#define CODE_K 0x7f0010008000ull
#define CODE_S 0x7f0010009000ull
#define CODE_Z 0x7f001000a000ull
#define CODE_FIRST 0x7f0020001000ull
#define CODE_NFP 0x7f0020002000ull
#define CODE_NLEAF 0x7f0020003000ull
#define CODE_NPUSH 0x7f0020004000ull
#define CODE_NOCFI 0x7f0020005000ull
#define CODE_HIJACK 0x7f0020006000ull
#define CODE_WORKER 0x7f0020007000ull
#define CODE_REALIGNED 0x7f0020008000ull
#define CODE_STUB 0x7f0030001000ull
#define CODE_UNKNOWN 0x7f0040001000ull

static struct eh_rule rsp_rule(int32_t cfa_off)
{
	return (struct eh_rule){.cfa_reg = EH_REG_RSP, .cfa_off = cfa_off, .ra_off = -8};
}

static struct eh_rule rsp_rule_rbp(int32_t cfa_off, int32_t rbp_off)
{
	struct eh_rule r = rsp_rule(cfa_off);
	r.rbp_saved = true;
	r.rbp_off = rbp_off;
	return r;
}

static void add_managed(uint64_t start, FunctionID fn, const uint8_t *bytes, uint32_t len)
{
	CHECK(canned_add(&(struct canned_code){.kind = CANNED_MANAGED, .start = start, .bytes = bytes, .len = len, .fn = fn}));
}

/* Every function above at its address. */
static void setup_code(void)
{
	canned_reset();
	add_managed(CODE_A, FN_A, tier0, sizeof tier0);
	add_managed(CODE_B, FN_B, tier0, sizeof tier0);
	add_managed(CODE_C, FN_C, tier0, sizeof tier0);
	add_managed(CODE_F, FN_F, frameless, sizeof frameless);
	add_managed(CODE_G, FN_G, frameless, sizeof frameless);
	add_managed(CODE_X0, FN_X, tier0, sizeof tier0);
	add_managed(CODE_X1, FN_X, osr, sizeof osr);
	add_managed(CODE_K, FN_K, catcher, sizeof catcher);
	add_managed(CODE_S, FN_S, saver, sizeof saver);
	add_managed(CODE_Z, FN_Z, undecodable, sizeof undecodable);
	struct canned_code c = {.kind = CANNED_NATIVE, .start = CODE_FIRST, .bytes = first, .len = sizeof first, .nrules = 1};
	c.rules[0] = (struct canned_rule){0, rsp_rule(8)};
	c.rules[0].rule.outermost = true;
	CHECK(canned_add(&c));
	/* push rbp: CFA = rsp+16; mov rbp,rsp: CFA = rbp+16; after leave: rsp+8 */
	c = (struct canned_code){.kind = CANNED_NATIVE, .start = CODE_NFP, .bytes = native_fp, .len = sizeof native_fp, .nrules = 4};
	c.rules[0] = (struct canned_rule){0, rsp_rule(8)};
	c.rules[1] = (struct canned_rule){1, rsp_rule_rbp(16, -16)};
	c.rules[2] = (struct canned_rule){4, {.cfa_reg = EH_REG_RBP, .cfa_off = 16, .rbp_saved = true, .rbp_off = -16, .ra_off = -8}};
	c.rules[3] = (struct canned_rule){15, rsp_rule_rbp(8, -16)}; /* (rbp's rule left as it was) */
	CHECK(canned_add(&c));
	c = (struct canned_code){.kind = CANNED_NATIVE, .start = CODE_NLEAF, .bytes = native_leaf, .len = sizeof native_leaf, .nrules = 3};
	c.rules[0] = (struct canned_rule){0, rsp_rule(8)};
	c.rules[1] = (struct canned_rule){4, rsp_rule(8 + NLEAF_FRAME)};
	c.rules[2] = (struct canned_rule){11, rsp_rule(8)};
	CHECK(canned_add(&c));
	c = (struct canned_code){.kind = CANNED_NATIVE, .start = CODE_NPUSH, .bytes = native_push, .len = sizeof native_push, .nrules = 3};
	c.rules[0] = (struct canned_rule){0, rsp_rule(8)};
	c.rules[1] = (struct canned_rule){1, rsp_rule(16)};
	c.rules[2] = (struct canned_rule){8, rsp_rule(8)};
	CHECK(canned_add(&c));
	/* a function that realigned its stack and keeps its entry rsp at
	 * [rsp+16]: CFA = [rsp+16] + 8 (native_leaf's bytes, as they do not matter) */
	c = (struct canned_code){.kind = CANNED_NATIVE, .start = CODE_REALIGNED, .bytes = native_leaf, .len = sizeof native_leaf, .nrules = 1};
	c.rules[0] = (struct canned_rule){0, {.cfa_reg = EH_REG_RSP, .cfa_off = 16, .cfa_deref = true, .cfa_add = 8, .ra_off = -8}};
	CHECK(canned_add(&c));
	CHECK(canned_add(&(struct canned_code){.kind = CANNED_NATIVE, .start = CODE_NOCFI, .bytes = fp_only, .len = sizeof fp_only}));
	/* the hijack stub's rule is a called function's: after its ten pushes,
	 * CFA = rsp+88, rbp saved by the second */
	c = (struct canned_code){.kind = CANNED_NATIVE, .start = CODE_HIJACK, .bytes = hijack, .len = sizeof hijack, .nrules = 2};
	c.rules[0] = (struct canned_rule){0, rsp_rule(8)};
	c.rules[1] = (struct canned_rule){14, rsp_rule_rbp(8 + 8 * HIJACK_PUSHES, -24)};
	CHECK(canned_add(&c));
	c = (struct canned_code){.kind = CANNED_NATIVE, .start = CODE_WORKER, .bytes = worker, .len = sizeof worker, .nrules = 1};
	c.rules[0] = (struct canned_rule){0, rsp_rule(8)};
	CHECK(canned_add(&c));
	CHECK(canned_add(&(struct canned_code){.kind = CANNED_STUB, .start = CODE_STUB, .bytes = fp_only, .len = sizeof fp_only}));
	CHECK(canned_add(&(struct canned_code){.kind = CANNED_UNKNOWN, .start = CODE_UNKNOWN, .bytes = fp_only, .len = sizeof fp_only}));
}

/* --- the stack -------------------------------------------------------- */

#define STACK_WORDS 1024
#define STACK_TOP 0x7ffd00010000ull
#define STACK_LO (STACK_TOP - 8 * STACK_WORDS)
#define FIRST_SP (STACK_TOP - 64) /* rsp in the thread's first function */
#define JUNK 0x5a5a5a5a5a5a5a5aull /* a word that is neither code nor stack */

static uint64_t mem[STACK_WORDS];

static void clear_stack(void)
{
	for (uint32_t i = 0; i < STACK_WORDS; i++)
		mem[i] = JUNK;
}

static void put(uint64_t addr, uint64_t v)
{
	if (addr < STACK_LO || addr >= STACK_TOP || (addr & 7)) {
		fprintf(stderr, "put outside the canned stack: %#llx\n", (unsigned long long)addr);
		abort();
	}
	mem[(addr - STACK_LO) / 8] = v;
}

/* A frame entered with its return address at entry, whose code pushed
 * one register first (rbp, or another): the address of that word, which
 * is the frame's rbp when it pushed rbp and set rbp to rsp. */
static uint64_t pushed_frame(uint64_t entry, uint64_t ret, uint64_t pushed)
{
	put(entry, ret);
	put(entry - 8, pushed);
	return entry - 8;
}

/* A frame of tier0's shape: its rsp in the body, *rbp its rbp. */
static uint64_t tier0_frame(uint64_t entry, uint64_t ret, uint64_t caller_rbp, uint64_t *rbp)
{
	*rbp = pushed_frame(entry, ret, caller_rbp);
	return entry - T0_FRAME;
}

/* A frame of frameless's shape: rbx saved, rbp left alone. */
static uint64_t frameless_frame(uint64_t entry, uint64_t ret)
{
	pushed_frame(entry, ret, JUNK);
	return entry - FL_FRAME;
}

/* The thread's first function calls A, Tier0: A's rsp in its body. */
static uint64_t first_and_a(uint64_t *a_rbp)
{
	return tier0_frame(FIRST_SP - 8, CODE_FIRST + FIRST_RET, 0, a_rbp);
}

/* The usual three: first -> A -> B -> C, each Tier0; C's rsp, *c_rbp. */
struct abc {
	uint64_t a_sp, a_rbp, b_sp, b_rbp, c_sp, c_rbp;
};
static struct abc lay_abc(void)
{
	struct abc s;
	s.a_sp = first_and_a(&s.a_rbp);
	s.b_sp = tier0_frame(s.a_sp - 8, CODE_A + T0_RET, s.a_rbp, &s.b_rbp);
	s.c_sp = tier0_frame(s.b_sp - 8, CODE_B + T0_RET, s.b_rbp, &s.c_rbp);
	return s;
}

/* --- walks ------------------------------------------------------------ */

#define MAX_FRAMES 64
struct walk {
	FunctionID frames[MAX_FRAMES];
	uint64_t addrs[MAX_FRAMES];
	struct unwind_out out;
	struct word_log log;
};

/* Walks from r (its leaf interrupted) over the stack's [base, end), a copy
 * of exactly that size (so that a read past it is the sanitizer's), with
 * at most cap frames. */
static void walk_copy(const struct unwind_regs *r, uint64_t base, uint64_t end, uint32_t cap,
		      struct unwind_trail *trail, struct walk *w)
{
	size_t len = (size_t)(end - base);
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy)
		abort();
	memcpy(copy, (const uint8_t *)mem + (base - STACK_LO), len);
	memset(w, 0, sizeof *w);
	w->out = (struct unwind_out){w->frames, 0, cap, UNWIND_EXACT, 0, false, w->addrs, false};
	struct stack_copy s = {base, (uint32_t)len, copy, &w->log, NULL};
	unwind_walk(&canned_source, r, true, &s, &w->out, trail);
	const char *broken = canned_check_walk(r, &s, &w->out);
	if (broken) {
		fprintf(stderr, "a walk broke a promise: %s\n", broken);
		check_failures++;
	}
	free(copy);
}

static void walk_from(const struct unwind_regs *r, struct walk *w)
{
	walk_copy(r, r->sp, STACK_TOP, MAX_FRAMES, NULL, w);
}

static void check_frames(const struct walk *w, const FunctionID *want, uint32_t n, int line)
{
	bool same = w->out.n == n;
	for (uint32_t k = 0; same && k < n; k++)
		same = w->frames[k] == want[k];
	if (!same) {
		fprintf(stderr, "%s:%d: frames:", __FILE__, line);
		for (uint32_t k = 0; k < w->out.n; k++)
			fprintf(stderr, " %#llx", (unsigned long long)w->frames[k]);
		fprintf(stderr, "; wanted:");
		for (uint32_t k = 0; k < n; k++)
			fprintf(stderr, " %#llx", (unsigned long long)want[k]);
		fprintf(stderr, "\n");
		check_failures++;
	}
}
#define FRAMES(w, ...)                                                                              \
	check_frames(w, (const FunctionID[]){__VA_ARGS__}, sizeof((const FunctionID[]){__VA_ARGS__}) / \
								     sizeof(FunctionID),              \
		     __LINE__)

static bool logged(const struct walk *w, uint64_t addr)
{
	for (uint32_t k = 0; k < w->log.n; k++)
		if (w->log.addr[k] == addr)
			return true;
	return false;
}

/* --- the cases -------------------------------------------------------- */

/* Managed frames by their frame pointers, to the thread's first frame. */
static void frame_pointers(void)
{
	setup_code();
	clear_stack();
	struct abc s = lay_abc();
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_C + T0_RET, s.c_sp, s.c_rbp, false}, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT);
	CHECK(w.out.root && !w.out.past_end);
	CHECK(w.out.live_fp); /* C's frame is found from the live rbp */
	CHECK_EQ_U(w.out.first_managed_sp, s.c_sp);
	/* the leaf's own instruction, the callers' calls */
	CHECK_EQ_U(w.addrs[0], CODE_C + T0_RET);
	CHECK_EQ_U(w.addrs[1], CODE_B + T0_RET - 1);
	CHECK_EQ_U(w.addrs[2], CODE_A + T0_RET - 1);
	CHECK_EQ_U(w.addrs[3], CODE_FIRST + FIRST_RET - 1);
	/* the words: each frame's saved rbp and return address */
	CHECK_EQ_U(w.log.n, 6);
	CHECK(logged(&w, s.c_rbp) && logged(&w, s.c_rbp + 8) && logged(&w, s.a_rbp + 8));
	/* from a frame already at a call (not interrupted): the same callers */
	struct walk at_call;
	struct stack_copy copy = {s.b_sp, (uint32_t)(STACK_TOP - s.b_sp), (const uint8_t *)mem + (s.b_sp - STACK_LO), NULL, NULL};
	at_call.out = (struct unwind_out){at_call.frames, 0, MAX_FRAMES, UNWIND_EXACT, 0, false, at_call.addrs, false};
	unwind_walk(&canned_source, &(struct unwind_regs){CODE_B + T0_RET, s.b_sp, s.b_rbp, false}, false, &copy,
		    &at_call.out, NULL);
	FRAMES(&at_call, FN_B, FN_A, 0);
	CHECK_EQ_U(at_call.addrs[0], CODE_B + T0_RET - 1);
}

/* Frameless methods, placed from rsp by their decoded prologs, in their
 * bodies and inside their prologs; rbp stays the caller's. */
static void frameless_methods(void)
{
	setup_code();
	clear_stack();
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t g_entry = a_sp - 8, g_sp = frameless_frame(g_entry, CODE_A + T0_RET);
	uint64_t f_entry = g_sp - 8, f_sp = frameless_frame(f_entry, CODE_G + FL_RET);
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_F + FL_RET, f_sp, a_rbp, false}, &w);
	FRAMES(&w, FN_F, FN_G, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	CHECK(w.out.live_fp); /* A's frame is found from rbp, which F and G keep */
	/* at F's first instruction (nothing pushed) and after its push */
	walk_from(&(struct unwind_regs){CODE_F, f_entry, a_rbp, false}, &w);
	FRAMES(&w, FN_F, FN_G, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	walk_from(&(struct unwind_regs){CODE_F + 1, f_entry - 8, a_rbp, false}, &w);
	FRAMES(&w, FN_F, FN_G, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	/* without rbp (a thread read where it waits): A cannot be placed, and
	 * the walk says it needed rbp */
	walk_from(&(struct unwind_regs){CODE_F + FL_RET, f_sp, 0, true}, &w);
	FRAMES(&w, FN_F, FN_G, FN_A);
	CHECK(w.out.verdict == UNWIND_BROKEN && !w.out.root);
	CHECK(w.out.live_fp);
	/* a return address inside a prolog is no call the JIT writes (though
	 * G's frame, read as if at its second instruction, would lead on) */
	put(f_entry, CODE_G + 1);
	put(g_sp + 8, CODE_A + T0_RET);
	walk_from(&(struct unwind_regs){CODE_F + FL_RET, f_sp, a_rbp, false}, &w);
	FRAMES(&w, FN_F, FN_G);
	CHECK(w.out.verdict == UNWIND_BROKEN);
}

/* An OSR body sits on its method's Tier0 frame, which the stale return
 * address of the Tier0 code's call to the patchpoint names: one frame for
 * both, then the Tier0 frame's caller. */
static void osr_frames(void)
{
	setup_code();
	clear_stack();
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t x0_rbp, x0_sp = tier0_frame(a_sp - 8, CODE_A + T0_RET, a_rbp, &x0_rbp);
	/* the OSR body, entered where Tier0 called the patchpoint helper: its
	 * prolog copies the Tier0 frame's saved rbp and points rbp at it */
	uint64_t x1_entry = x0_sp - 8;
	uint64_t x1_rbp = pushed_frame(x1_entry, CODE_X0 + T0_RET, a_rbp), x1_sp = x1_entry - OSR_FRAME;
	uint64_t b_rbp, b_sp = tier0_frame(x1_sp - 8, CODE_X1 + OSR_RET, x1_rbp, &b_rbp);
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_B + T0_RET, b_sp, b_rbp, false}, &w);
	FRAMES(&w, FN_B, FN_X, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	CHECK(logged(&w, x1_entry)); /* the stale return address */
	CHECK(logged(&w, x0_rbp));   /* the caller's rbp, from the Tier0 frame */
	/* its rbp from the Tier0 frame's slot, not the OSR frame's copy */
	put(x1_entry - 8, JUNK);
	walk_from(&(struct unwind_regs){CODE_B + T0_RET, b_sp, b_rbp, false}, &w);
	FRAMES(&w, FN_B, FN_X, FN_A, 0);
	/* a stale return address in another method's code: no Tier0 frame of
	 * this method to stand on */
	put(x1_entry, CODE_C + T0_RET);
	walk_from(&(struct unwind_regs){CODE_B + T0_RET, b_sp, b_rbp, false}, &w);
	FRAMES(&w, FN_B, FN_X);
	CHECK(w.out.verdict == UNWIND_BROKEN);
	/* ... or in the OSR body itself */
	put(x1_entry, CODE_X1 + OSR_RET);
	walk_from(&(struct unwind_regs){CODE_B + T0_RET, b_sp, b_rbp, false}, &w);
	CHECK(w.out.verdict == UNWIND_BROKEN);
}

/* A catch funclet runs on the frame of the runtime's dispatch, with rbp
 * pointing into its parent's frame: the walk goes from the funclet to the
 * parent's caller, one frame for the method, past the dispatch frames
 * without reading them. */
static void funclets(void)
{
	setup_code();
	clear_stack();
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t k_entry = a_sp - 8, k_rbp, k_sp = tier0_frame(k_entry, CODE_A + T0_RET, a_rbp, &k_rbp);
	/* the dispatch's frames (native code of the runtime), then the funclet */
	uint64_t funclet_entry = k_sp - 8 - 0x100;
	pushed_frame(funclet_entry, CODE_NFP + NFP_RET, k_sp - 0x40); /* (the dispatch's rbp) */
	uint64_t funclet_sp = funclet_entry - FUNCLET_FRAME;
	uint64_t c_entry = funclet_sp - 8, c_rbp, c_sp = tier0_frame(c_entry, CODE_K + FUNCLET_RET, k_rbp, &c_rbp);
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_C + T0_RET, c_sp, c_rbp, false}, &w);
	FRAMES(&w, FN_C, FN_K, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	CHECK_EQ_U(w.addrs[1], CODE_K + FUNCLET_RET - 1);
	for (uint32_t k = 0; k < w.log.n; k++)
		CHECK(w.log.addr[k] <= c_entry || w.log.addr[k] >= k_rbp);
}

/* A leaf stopped inside its epilog: the rest of the epilog is run. */
static void epilogs(void)
{
	setup_code();
	clear_stack();
	struct abc s = lay_abc();
	uint64_t c_entry = s.c_rbp + 8;
	struct walk w;
	/* at add rsp / pop rbp: rbp is still C's, or not needed (the walk
	 * pops it): the same frames with no rbp at all */
	walk_from(&(struct unwind_regs){CODE_C + T0_ADD, s.c_sp, 0, true}, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && !w.out.live_fp);
	walk_from(&(struct unwind_regs){CODE_C + T0_POP, c_entry - 8, 0, true}, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && !w.out.live_fp);
	/* at ret: rbp was popped, the register holds B's */
	walk_from(&(struct unwind_regs){CODE_C + T0_RETI, c_entry, s.b_rbp, false}, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.live_fp);
	/* the same instruction read as a body's (no epilog check) would
	 * place C from rbp: with B's rbp that finds B's frame, not C's */
	CHECK_EQ_U(w.addrs[0], CODE_C + T0_RETI);
	/* an epilog from rbp (lea rsp,[rbp-0x10]) after callee-saved pushes */
	uint64_t s_entry = s.c_sp - 8;
	pushed_frame(s_entry, CODE_C + T0_RET, s.c_rbp);
	put(s_entry - 16, JUNK);
	put(s_entry - 24, JUNK);
	walk_from(&(struct unwind_regs){CODE_S + SAVER_LEA, s_entry - SAVER_FRAME, s_entry - 8, false}, &w);
	FRAMES(&w, FN_S, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.live_fp);
	walk_from(&(struct unwind_regs){CODE_S + SAVER_POPRBX, s_entry - SAVER_FRAME, 0, true}, &w);
	FRAMES(&w, FN_S, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && !w.out.live_fp);
	/* and in its body, by its prolog */
	walk_from(&(struct unwind_regs){CODE_S + SAVER_RET, s_entry - SAVER_FRAME, s_entry - 8, false}, &w);
	FRAMES(&w, FN_S, FN_C, FN_B, FN_A, 0);
	/* an epilog's return address beyond the copy: the managed frame is not placed */
	walk_copy(&(struct unwind_regs){CODE_C + T0_POP, c_entry - 8, 0, true}, c_entry - 8, c_entry, MAX_FRAMES, NULL, &w);
	FRAMES(&w, FN_C);
	CHECK(w.out.verdict == UNWIND_BROKEN);
}

/* The hijack stub: a method returned into it, and its worker waits; the
 * caller's frame starts 8 below the CFA its rule gives, and the return
 * address is the slot the worker fills. */
static void hijacked_return(void)
{
	setup_code();
	clear_stack();
	struct abc s = lay_abc();
	/* B called a method that has returned into the stub: B's rsp is where
	 * the stub starts pushing */
	uint64_t caller_sp = s.b_sp;
	const uint64_t rax = 0x1234;
	put(caller_sp - 8, CODE_B + T0_RET); /* the slot, filled by the worker */
	put(caller_sp - 16, s.b_rbp);        /* push rbp */
	for (uint64_t k = 3; k < HIJACK_PUSHES; k++)
		put(caller_sp - 8 * k, JUNK);
	put(caller_sp - 8 * HIJACK_PUSHES, rax); /* push rax: the return value */
	uint64_t worker_sp = caller_sp - 8 * HIJACK_PUSHES - 8;
	put(worker_sp, CODE_HIJACK + HIJACK_RET);
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_WORKER + 1, worker_sp, JUNK, false}, &w);
	FRAMES(&w, 0, 0, FN_B, FN_A, 0); /* the worker, the stub */
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	CHECK_EQ_U(w.addrs[2], CODE_B + T0_RET - 1);
	/* not yet filled: the slot holds rax, as the last push does (here a
	 * value that looks like a return address); the walk stops at the stub
	 * (no managed frame, not the root) */
	put(caller_sp - 8 * HIJACK_PUSHES, CODE_C + T0_RET);
	put(caller_sp - 8, CODE_C + T0_RET);
	walk_from(&(struct unwind_regs){CODE_WORKER + 1, worker_sp, JUNK, false}, &w);
	FRAMES(&w, 0, 0);
	CHECK(!w.out.root && !w.out.past_end && !w.out.first_managed_sp);
	/* stopped in the stub itself: its pushes are not all done (below them,
	 * words of the stack that look like a frame) */
	put(caller_sp - 8 * HIJACK_PUSHES, rax);
	put(caller_sp - 8, CODE_B + T0_RET);
	put(caller_sp - 40, CODE_B + T0_RET);
	struct unwind_regs in_stub = {CODE_HIJACK + 5, caller_sp - 32, s.b_rbp, false};
	walk_from(&in_stub, &w);
	FRAMES(&w, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && !w.out.root && !w.out.first_managed_sp);
	/* ... even with the words below rsp in the copy */
	walk_copy(&in_stub, caller_sp - 8 * 16, STACK_TOP, MAX_FRAMES, NULL, &w);
	FRAMES(&w, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && !w.out.root && !w.out.first_managed_sp);
}

/* The runtime's stubs (code outside every module): stepped through by
 * their frame pointers and not reported, unless the leaf. */
static void runtime_stubs(void)
{
	setup_code();
	clear_stack();
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t stub_entry = a_sp - 8;
	uint64_t stub_rbp = pushed_frame(stub_entry, CODE_A + T0_RET, a_rbp);
	uint64_t c_rbp, c_sp = tier0_frame(stub_entry - 16, CODE_STUB + FPONLY_RET, stub_rbp, &c_rbp);
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_C + T0_RET, c_sp, c_rbp, false}, &w);
	FRAMES(&w, FN_C, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_NATIVE && w.out.root);
	/* the leaf in the stub, by its frame pointer */
	walk_from(&(struct unwind_regs){CODE_STUB + FPONLY_RET, stub_entry - 8, stub_rbp, false}, &w);
	FRAMES(&w, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_NATIVE && w.out.root);
	CHECK_EQ_U(w.addrs[0], CODE_STUB + FPONLY_RET);
	/* ... and at its first instruction, called straight from managed code:
	 * the return address at rsp follows a call in A; rbp not needed there */
	walk_from(&(struct unwind_regs){CODE_STUB, stub_entry, a_rbp, false}, &w);
	FRAMES(&w, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_NATIVE && w.out.root);
	/* ... where rbp is junk the frame pointer is no help */
	put(stub_entry, CODE_A + 8); /* not after a call */
	walk_from(&(struct unwind_regs){CODE_STUB, stub_entry, JUNK, false}, &w);
	FRAMES(&w, 0);
	CHECK(!w.out.root && !w.out.first_managed_sp);
}

/* Native frames by their unwind rules: a leaf without a frame pointer,
 * then a caller that keeps one, placed from rsp by its code at the call
 * (nativeframe) and checked against rbp where the walk has it. */
static struct {
	uint64_t a_sp, a_rbp, n1_entry, n1_rbp, leaf_sp;
} native;
/* first -> A -> N1 (native_fp, at its call) -> a leaf entered from it */
static void lay_native(void)
{
	native.a_sp = first_and_a(&native.a_rbp);
	native.n1_entry = native.a_sp - 8;
	native.n1_rbp = pushed_frame(native.n1_entry, CODE_A + T0_RET, native.a_rbp);
	uint64_t leaf_entry = native.n1_entry - NFP_FRAME - 8;
	put(leaf_entry, CODE_NFP + NFP_RET);
	native.leaf_sp = leaf_entry - NLEAF_FRAME;
}

static void native_by_rules(void)
{
	setup_code();
	clear_stack();
	lay_native();
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, native.leaf_sp, native.n1_rbp, false}, &w);
	FRAMES(&w, 0, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	CHECK(!w.out.live_fp); /* the caller's frame by its code, not by rbp */
	CHECK_EQ_U(w.addrs[0], CODE_NLEAF + NLEAF_BODY);
	CHECK_EQ_U(canned_calls.refuted, 0);
	/* without rbp at all: the same */
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, native.leaf_sp, 0, true}, &w);
	FRAMES(&w, 0, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && !w.out.live_fp);
	/* an rbp that disagrees with the code: the decoded frame is refuted
	 * (walks kept go stale) and the frame is placed by rbp */
	uint32_t epoch = canned_source.walk_epoch();
	uint64_t wrong = native.n1_rbp + 0x40;
	put(wrong + 8, 0);
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, native.leaf_sp, wrong, false}, &w);
	CHECK_EQ_U(canned_calls.refuted, 1);
	CHECK_EQ_U(canned_calls.refuted_addr[0], CODE_NFP + NFP_RET - 1);
	CHECK(canned_source.walk_epoch() != epoch);
	CHECK(w.out.live_fp && !w.out.root);
	/* from then on by rbp: right with the right rbp, and said so */
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, native.leaf_sp, native.n1_rbp, false}, &w);
	FRAMES(&w, 0, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && w.out.live_fp);
	CHECK_EQ_U(canned_calls.refuted, 1);
	/* N1 called itself: the inner one, stopped in its body, saved rbp,
	 * and the outer frame is placed by that rbp, not by its code */
	clear_stack();
	lay_native();
	uint64_t inner_entry = native.n1_entry - NFP_FRAME - 8;
	put(inner_entry - 8, native.n1_rbp);
	uint32_t asked = canned_calls.call_cfa;
	walk_from(&(struct unwind_regs){CODE_NFP + NFP_RET, inner_entry - NFP_FRAME, inner_entry - 8, false}, &w);
	FRAMES(&w, 0, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && w.out.live_fp);
	CHECK_EQ_U(canned_calls.call_cfa, asked);
	/* at N1's ret, after leave: rbp's slot lies below rsp (popped), and
	 * the register holds the caller's value again */
	walk_from(&(struct unwind_regs){CODE_NFP + NFP_RETI, native.n1_entry, native.a_rbp, false}, &w);
	FRAMES(&w, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && w.out.live_fp);
	/* a realigned frame: its CFA read from the stack */
	clear_stack();
	lay_native();
	uint64_t realigned_sp = (native.n1_entry - 0x40) & ~(uint64_t)31;
	put(realigned_sp + 16, native.n1_entry);
	walk_from(&(struct unwind_regs){CODE_REALIGNED + 4, realigned_sp, native.a_rbp, false}, &w);
	FRAMES(&w, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && w.out.live_fp);
	/* a function that pushes a register, by its rsp-based rule */
	clear_stack();
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t push_entry = a_sp - 8;
	pushed_frame(push_entry, CODE_A + T0_RET, JUNK);
	uint64_t leaf_entry = push_entry - 16;
	put(leaf_entry, CODE_NPUSH + NPUSH_RET);
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, leaf_entry - NLEAF_FRAME, a_rbp, false}, &w);
	FRAMES(&w, 0, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && w.out.live_fp);
}

/* The native frames from the leaf to the first managed one are a frame
 * each (a runtime helper between a method and the libc function it
 * called), but for the runtime's stubs; beyond the first managed frame a
 * run of them is one. */
static void native_leaf_run(void)
{
	setup_code();
	clear_stack();
	/* first -> A -> N1 -> N2 (native_fp, each at its call) -> a leaf */
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t n1_entry = a_sp - 8, n1_rbp = pushed_frame(n1_entry, CODE_A + T0_RET, a_rbp);
	uint64_t n2_entry = n1_entry - NFP_FRAME - 8, n2_rbp = pushed_frame(n2_entry, CODE_NFP + NFP_RET, n1_rbp);
	uint64_t leaf_entry = n2_entry - NFP_FRAME - 8;
	put(leaf_entry, CODE_NFP + NFP_RET);
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, leaf_entry - NLEAF_FRAME, n2_rbp, false}, &w);
	FRAMES(&w, 0, 0, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	CHECK_EQ_U(w.addrs[0], CODE_NLEAF + NLEAF_BODY);
	CHECK_EQ_U(w.addrs[1], CODE_NFP + NFP_RET - 1);
	CHECK_EQ_U(w.addrs[2], CODE_NFP + NFP_RET - 1);
	CHECK_EQ_U(w.addrs[3], CODE_A + T0_RET - 1);
	CHECK_EQ_U(w.out.first_managed_sp, a_sp);
	/* without rbp: the same, by the callers' code */
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, leaf_entry - NLEAF_FRAME, 0, true}, &w);
	FRAMES(&w, 0, 0, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && !w.out.live_fp);
	/* N2 calls B, which calls the leaf: N1 and N2 are one frame */
	uint64_t b_rbp, b_sp = tier0_frame(n2_entry - NFP_FRAME - 8, CODE_NFP + NFP_RET, n2_rbp, &b_rbp);
	leaf_entry = b_sp - 8;
	put(leaf_entry, CODE_B + T0_RET);
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, leaf_entry - NLEAF_FRAME, b_rbp, false}, &w);
	FRAMES(&w, 0, FN_B, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root);
	CHECK_EQ_U(w.addrs[2], CODE_NFP + NFP_RET - 1);
	/* a leaf called by a stub A called: the stub is no frame */
	clear_stack();
	a_sp = first_and_a(&a_rbp);
	uint64_t stub_entry = a_sp - 8, stub_rbp = pushed_frame(stub_entry, CODE_A + T0_RET, a_rbp);
	leaf_entry = stub_entry - 16;
	put(leaf_entry, CODE_STUB + FPONLY_RET);
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, leaf_entry - NLEAF_FRAME, stub_rbp, false}, &w);
	FRAMES(&w, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_NATIVE && w.out.root);
	CHECK_EQ_U(w.addrs[1], CODE_A + T0_RET - 1);
}

/* Native code without an unwind rule: its frame pointers are followed,
 * and the walk says so. */
static void native_by_frame_pointers(void)
{
	setup_code();
	clear_stack();
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t entry = a_sp - 8;
	uint64_t rbp = pushed_frame(entry, CODE_A + T0_RET, a_rbp), leaf_entry = entry - 16;
	put(leaf_entry, CODE_NOCFI + FPONLY_RET);
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, leaf_entry - NLEAF_FRAME, rbp, false}, &w);
	FRAMES(&w, 0, 0, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_NATIVE && w.out.root && w.out.live_fp);
	/* a frame pointer below the stack pointer is no frame */
	walk_from(&(struct unwind_regs){CODE_NLEAF + NLEAF_BODY, leaf_entry - NLEAF_FRAME, leaf_entry - 64, false}, &w);
	FRAMES(&w, 0, 0);
	CHECK(!w.out.root && !w.out.first_managed_sp);
}

/* A walk with the trail grafts (once) and gives what the walk without it
 * gives. */
static void check_graft(const struct unwind_regs *r, struct unwind_trail *trail, uint32_t grafted, int line)
{
	struct walk w, fresh;
	struct unwind_counts before = unwind_counts();
	walk_copy(r, r->sp, STACK_TOP, MAX_FRAMES, trail, &w);
	struct unwind_counts after = unwind_counts();
	walk_from(r, &fresh);
	bool same = w.out.n == fresh.out.n && !memcmp(w.frames, fresh.frames, sizeof *w.frames * w.out.n) &&
		    !memcmp(w.addrs, fresh.addrs, sizeof *w.addrs * w.out.n) && w.out.verdict == fresh.out.verdict &&
		    w.out.root == fresh.out.root && w.out.live_fp == fresh.out.live_fp &&
		    w.out.past_end == fresh.out.past_end && w.out.first_managed_sp == fresh.out.first_managed_sp;
	if (after.grafts != before.grafts + 1 || after.grafted_frames - before.grafted_frames != grafted || !same) {
		fprintf(stderr, "%s:%d: graft: %llu grafts, %llu frames, %s the walk without the trail\n", __FILE__, line,
			(unsigned long long)(after.grafts - before.grafts),
			(unsigned long long)(after.grafted_frames - before.grafted_frames), same ? "as" : "unlike");
		check_failures++;
	}
}
#define GRAFT(r, trail, grafted) check_graft(r, trail, grafted, __LINE__)

/* The thread's last walk, grafted on where a walk reaches one of its
 * starts with the same words from there on. */
static void trail_graft(void)
{
	setup_code();
	clear_stack();
	struct abc s = lay_abc();
	static struct unwind_trail trail;
	memset(&trail, 0, sizeof trail);
	struct unwind_regs at_c = {CODE_C + T0_RET, s.c_sp, s.c_rbp, false};
	struct walk w, fresh;
	walk_copy(&at_c, s.c_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK_EQ_U(trail.n, 4);
	CHECK(trail.epoch == canned_source.walk_epoch() && trail.root);
	/* a deeper stack: C called D (B's code again); the walk reaches B's
	 * start with the trail's words and takes B, A and the root from it */
	uint64_t d_rbp, d_sp = tier0_frame(s.c_sp - 8, CODE_C + T0_RET, s.c_rbp, &d_rbp);
	struct unwind_regs at_d = {CODE_B + T0_RET, d_sp, d_rbp, false};
	struct unwind_counts before = unwind_counts();
	walk_copy(&at_d, d_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	struct unwind_counts after = unwind_counts();
	CHECK_EQ_U(after.grafts - before.grafts, 1);
	CHECK_EQ_U(after.grafted_frames - before.grafted_frames, 3);
	walk_from(&at_d, &fresh);
	FRAMES(&w, FN_B, FN_C, FN_B, FN_A, 0);
	FRAMES(&fresh, FN_B, FN_C, FN_B, FN_A, 0);
	CHECK(memcmp(w.addrs, fresh.addrs, sizeof *w.addrs * fresh.out.n) == 0);
	CHECK(w.out.verdict == fresh.out.verdict && w.out.root && w.out.live_fp == fresh.out.live_fp);
	CHECK_EQ_U(w.out.first_managed_sp, fresh.out.first_managed_sp);
	CHECK_EQ_U(trail.n, 5); /* the grafted walk is the trail now */
	/* the same walk again: the leaf is walked, the rest grafted */
	GRAFT(&at_d, &trail, 4);
	/* without a word log of the caller's own */
	struct stack_copy nolog = {d_sp, (uint32_t)(STACK_TOP - d_sp), (const uint8_t *)mem + (d_sp - STACK_LO), NULL, NULL};
	before = unwind_counts();
	w.out = (struct unwind_out){w.frames, 0, MAX_FRAMES, UNWIND_EXACT, 0, false, w.addrs, false};
	unwind_walk(&canned_source, &at_d, true, &nolog, &w.out, &trail);
	FRAMES(&w, FN_B, FN_C, FN_B, FN_A, 0);
	CHECK_EQ_U(unwind_counts().grafts, before.grafts + 1);
	/* B's start with another rbp (C saved another): not the same start;
	 * B's frame is elsewhere, called by the thread's first function */
	uint64_t other = FIRST_SP + 16;
	put(other, 0);
	put(other + 8, CODE_FIRST + FIRST_RET);
	put(s.c_rbp, other);
	before = unwind_counts();
	walk_copy(&at_d, d_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	CHECK_EQ_U(unwind_counts().grafts, before.grafts);
	walk_from(&at_d, &fresh);
	FRAMES(&w, FN_B, FN_C, FN_B, 0);
	CHECK(w.out.n == fresh.out.n && !memcmp(w.frames, fresh.frames, sizeof *w.frames * w.out.n));
	put(s.c_rbp, s.b_rbp);
	walk_copy(&at_d, d_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	/* a word the trail read is not the same: no graft, the walk is made */
	put(s.a_rbp, 0x42); /* A's saved rbp */
	before = unwind_counts();
	walk_copy(&at_d, d_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	CHECK_EQ_U(unwind_counts().grafts, before.grafts);
	FRAMES(&w, FN_B, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.root);
	/* the code map changed since (an epoch of either kind): no graft */
	walk_copy(&at_d, d_sp, STACK_TOP, MAX_FRAMES, &trail, &w); /* (the trail as the stack is now) */
	before = unwind_counts();
	canned_new_walk_epoch();
	walk_copy(&at_d, d_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	CHECK_EQ_U(unwind_counts().grafts, before.grafts);
	before = unwind_counts();
	canned_new_dynamic_epoch();
	walk_copy(&at_d, d_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	CHECK_EQ_U(unwind_counts().grafts, before.grafts);
	walk_copy(&at_d, d_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	CHECK_EQ_U(unwind_counts().grafts, before.grafts + 1); /* with the trail made under the new ones */
	/* a walk that did not end well is not kept */
	before = unwind_counts();
	walk_copy(&at_d, d_sp, STACK_TOP, 2, &trail, &w);
	CHECK(w.out.verdict == UNWIND_TRUNCATED);
	CHECK_EQ_U(trail.n, 5);
	/* without addresses there is no trail */
	memset(&trail, 0, sizeof trail);
	struct stack_copy copy = {d_sp, (uint32_t)(STACK_TOP - d_sp), (const uint8_t *)mem + (d_sp - STACK_LO), NULL, NULL};
	w.out = (struct unwind_out){w.frames, 0, MAX_FRAMES, UNWIND_EXACT, 0, false, NULL, false};
	unwind_walk(&canned_source, &at_d, true, &copy, &w.out, &trail);
	CHECK_EQ_U(w.out.n, 5);
	CHECK_EQ_U(trail.epoch, 0);
}

/* A graft carries what the walk from its start found: frame pointers
 * followed through native code, the root, the first managed frame's
 * stack pointer when the walk's own steps met none. */
static void trail_through_native(void)
{
	setup_code();
	clear_stack();
	/* first -> a stub -> A -> B -> C */
	uint64_t stub_entry = FIRST_SP - 8;
	pushed_frame(stub_entry, CODE_FIRST + FIRST_RET, 0);
	uint64_t a_rbp, a_sp = tier0_frame(stub_entry - 16, CODE_STUB + FPONLY_RET, stub_entry - 8, &a_rbp);
	uint64_t b_rbp, b_sp = tier0_frame(a_sp - 8, CODE_A + T0_RET, a_rbp, &b_rbp);
	uint64_t c_rbp, c_sp = tier0_frame(b_sp - 8, CODE_B + T0_RET, b_rbp, &c_rbp);
	static struct unwind_trail trail;
	memset(&trail, 0, sizeof trail);
	struct walk w;
	walk_copy(&(struct unwind_regs){CODE_C + T0_RET, c_sp, c_rbp, false}, c_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_NATIVE && w.out.root);
	/* B calls a native function instead (at the same place, which saves
	 * rbp where C did): grafted at B */
	uint64_t n_rbp = c_rbp;
	GRAFT(&((struct unwind_regs){CODE_NFP + NFP_RET, b_sp - 8 - NFP_FRAME, n_rbp, false}), &trail, 3);
}

/* ... and whether it used the starting rbp: frameless frames keep it
 * live up to the frame that needs it. */
static void trail_live_fp(void)
{
	setup_code();
	clear_stack();
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t g_sp = frameless_frame(a_sp - 8, CODE_A + T0_RET);
	uint64_t f_entry = g_sp - 8, f_sp = frameless_frame(f_entry, CODE_G + FL_RET);
	static struct unwind_trail trail;
	memset(&trail, 0, sizeof trail);
	struct walk w;
	walk_copy(&(struct unwind_regs){CODE_F + FL_RET, f_sp, a_rbp, false}, f_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	FRAMES(&w, FN_F, FN_G, FN_A, 0);
	CHECK(w.out.live_fp);
	/* F again, stopped after its first push: F's step needs no rbp, and
	 * the rest (G, A, the root) is grafted, A's use of rbp with it */
	GRAFT(&((struct unwind_regs){CODE_F + 1, f_entry - 8, a_rbp, false}), &trail, 3);
	/* the same rbp, but not read: not the same start */
	struct unwind_counts before = unwind_counts();
	walk_copy(&(struct unwind_regs){CODE_F + 1, f_entry - 8, a_rbp, true}, f_entry - 8, STACK_TOP, MAX_FRAMES, &trail, &w);
	CHECK_EQ_U(unwind_counts().grafts, before.grafts);
}

/* A native frame whose caller's words lie beyond the copy: the walk ends
 * there, past the copy's end, unless the thread's last walk found only
 * native frames from there to the root. */
static void past_the_copy(void)
{
	setup_code();
	clear_stack();
	/* first -> N (pushes rbx) -> A -> B -> C */
	uint64_t n_entry = FIRST_SP - 8;
	pushed_frame(n_entry, CODE_FIRST + FIRST_RET, JUNK);
	uint64_t a_rbp, a_sp = tier0_frame(n_entry - 16, CODE_NPUSH + NPUSH_RET, 0, &a_rbp);
	uint64_t b_rbp, b_sp = tier0_frame(a_sp - 8, CODE_A + T0_RET, a_rbp, &b_rbp);
	uint64_t c_rbp, c_sp = tier0_frame(b_sp - 8, CODE_B + T0_RET, b_rbp, &c_rbp);
	struct unwind_regs r = {CODE_C + T0_RET, c_sp, c_rbp, false};
	struct walk w;
	walk_from(&r, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && !w.out.past_end);
	/* a copy that ends inside N's frame: its return address is beyond */
	walk_copy(&r, c_sp, n_entry, MAX_FRAMES, NULL, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && !w.out.root && w.out.past_end);
	/* the thread's last walk went from N to the root through native code */
	static struct unwind_trail trail;
	memset(&trail, 0, sizeof trail);
	walk_copy(&r, c_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	struct unwind_counts before = unwind_counts();
	uint32_t nwords = trail.nwords;
	walk_copy(&r, c_sp, n_entry, MAX_FRAMES, &trail, &w);
	FRAMES(&w, FN_C, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_EXACT && w.out.root && !w.out.past_end);
	CHECK_EQ_U(unwind_counts().rests, before.rests + 1);
	CHECK_EQ_U(unwind_counts().grafts, before.grafts); /* a word it read is beyond this copy */
	CHECK_EQ_U(trail.nwords, nwords); /* a walk that ended past its copy is no trail */
	/* a last walk that did not reach the thread's first frame says nothing */
	put(n_entry, JUNK);
	memset(&trail, 0, sizeof trail);
	walk_copy(&r, c_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	CHECK(w.out.verdict == UNWIND_EXACT && !w.out.root && trail.n == 4);
	walk_copy(&r, c_sp, n_entry, MAX_FRAMES, &trail, &w);
	CHECK(!w.out.root && w.out.past_end);
	put(n_entry, CODE_FIRST + FIRST_RET);
	/* a copy that ends where a managed frame's caller begins: truncated,
	 * the caller's frame named */
	walk_copy(&r, c_sp, b_rbp + 16, MAX_FRAMES, NULL, &w);
	FRAMES(&w, FN_C, FN_B, FN_A);
	CHECK(w.out.verdict == UNWIND_TRUNCATED && !w.out.root && !w.out.past_end);
	/* ... and inside a managed frame: that frame cannot be placed */
	walk_copy(&r, c_sp, b_rbp + 8, MAX_FRAMES, NULL, &w);
	FRAMES(&w, FN_C, FN_B);
	CHECK(w.out.verdict == UNWIND_BROKEN && !w.out.past_end);
}

/* ... nor when the last walk found managed frames beyond it:
 * first -> A -> N -> B -> C */
static void past_the_copy_managed_beyond(void)
{
	setup_code();
	clear_stack();
	uint64_t a_rbp, a_sp = first_and_a(&a_rbp);
	uint64_t n_entry = a_sp - 8;
	pushed_frame(n_entry, CODE_A + T0_RET, JUNK);
	uint64_t b_rbp, b_sp = tier0_frame(n_entry - 16, CODE_NPUSH + NPUSH_RET, a_rbp, &b_rbp);
	uint64_t c_rbp, c_sp = tier0_frame(b_sp - 8, CODE_B + T0_RET, b_rbp, &c_rbp);
	struct unwind_regs r = {CODE_C + T0_RET, c_sp, c_rbp, false};
	static struct unwind_trail trail;
	memset(&trail, 0, sizeof trail);
	struct walk w;
	walk_copy(&r, c_sp, STACK_TOP, MAX_FRAMES, &trail, &w);
	FRAMES(&w, FN_C, FN_B, 0, FN_A, 0);
	CHECK(w.out.root);
	walk_copy(&r, c_sp, n_entry, MAX_FRAMES, &trail, &w);
	FRAMES(&w, FN_C, FN_B, 0);
	CHECK(!w.out.root && w.out.past_end);
}

/* The frame buffer ends first: truncated, with as many frames as fit. */
static void truncated(void)
{
	setup_code();
	clear_stack();
	struct abc s = lay_abc();
	struct walk w;
	walk_copy(&(struct unwind_regs){CODE_C + T0_RET, s.c_sp, s.c_rbp, false}, s.c_sp, STACK_TOP, 2, NULL, &w);
	FRAMES(&w, FN_C, FN_B);
	CHECK(w.out.verdict == UNWIND_TRUNCATED && !w.out.root);
	walk_copy(&(struct unwind_regs){CODE_C + T0_RET, s.c_sp, s.c_rbp, false}, s.c_sp, STACK_TOP, 0, NULL, &w);
	CHECK_EQ_U(w.out.n, 0);
	CHECK(w.out.verdict == UNWIND_TRUNCATED);
}

/* Frames that cannot be placed: broken, with the frames up to them. */
static void broken(void)
{
	setup_code();
	clear_stack();
	struct abc s = lay_abc();
	struct unwind_regs at_c = {CODE_C + T0_RET, s.c_sp, s.c_rbp, false};
	struct walk w;
	/* a method whose prolog the decoder does not follow */
	put(s.b_rbp + 8, CODE_Z + UNDECODABLE_RET);
	walk_from(&at_c, &w);
	FRAMES(&w, FN_C, FN_B, FN_Z);
	CHECK(w.out.verdict == UNWIND_BROKEN && !w.out.root);
	/* a return address after a managed frame that is no code */
	put(s.b_rbp + 8, JUNK);
	walk_from(&at_c, &w);
	FRAMES(&w, FN_C, FN_B);
	CHECK(w.out.verdict == UNWIND_BROKEN);
	/* ... or code the maps may not know yet */
	put(s.b_rbp + 8, CODE_UNKNOWN + 4);
	walk_from(&at_c, &w);
	FRAMES(&w, FN_C, FN_B);
	CHECK(w.out.verdict == UNWIND_BROKEN);
	/* a leaf there: one frame can be told, not its caller */
	walk_from(&(struct unwind_regs){CODE_UNKNOWN + 4, s.c_sp, s.c_rbp, false}, &w);
	CHECK_EQ_U(w.out.n, 0);
	CHECK(w.out.verdict == UNWIND_BROKEN);
	/* a leaf outside all code: reported, then by its frame pointer */
	put(s.b_rbp + 8, CODE_A + T0_RET);
	walk_from(&(struct unwind_regs){JUNK, s.c_sp, s.c_rbp, false}, &w);
	FRAMES(&w, 0, FN_B, FN_A, 0);
	CHECK(w.out.verdict == UNWIND_NATIVE && w.out.root);
}

/* Words that are no stack: every walk ends, within its bounds, with a
 * verdict; the promises checked on every walk (canned_check_walk). */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const uint64_t code_starts[] = {CODE_A, CODE_B, CODE_C, CODE_F, CODE_G, CODE_X0, CODE_X1, CODE_K,
				       CODE_S, CODE_Z, CODE_FIRST, CODE_NFP, CODE_NLEAF, CODE_NPUSH, CODE_NOCFI,
				       CODE_HIJACK, CODE_WORKER, CODE_STUB, CODE_UNKNOWN, CODE_REALIGNED};

/* A word a stack might hold: a return address, a stack address, or junk. */
static uint64_t random_word(uint64_t lo)
{
	uint64_t r = next_random();
	switch (r % 4) {
	case 0:
		return code_starts[(r >> 8) % (sizeof code_starts / sizeof *code_starts)] + ((r >> 16) % 56);
	case 1:
		return lo + ((r >> 8) % (8 * STACK_WORDS + 64) & ~(uint64_t)(r & 0x100 ? 0 : 7));
	case 2:
		return r >> 8 & 0xff;
	default:
		return r;
	}
}

static void garbage(void)
{
	setup_code();
	/* a loop in rbp: a frame whose saved rbp is its own address */
	clear_stack();
	struct abc s = lay_abc();
	put(s.c_rbp, s.c_rbp);
	put(s.c_rbp + 8, CODE_C + T0_RET);
	struct walk w;
	walk_from(&(struct unwind_regs){CODE_C + T0_RET, s.c_sp, s.c_rbp, false}, &w);
	CHECK(w.out.verdict == UNWIND_BROKEN && w.out.n <= 2);
	/* ... through native frame pointers (no rule): [rbp] = rbp */
	clear_stack();
	uint64_t sp = STACK_TOP - 512, fp = sp + 64;
	put(fp, fp);
	put(fp + 8, CODE_NOCFI + FPONLY_RET);
	walk_from(&(struct unwind_regs){CODE_NOCFI + FPONLY_RET, sp, fp, false}, &w);
	FRAMES(&w, 0, 0);
	CHECK(!w.out.root && w.out.verdict == UNWIND_NATIVE);
	/* a frame pointer beyond the copy, below it, or not aligned */
	clear_stack();
	s = lay_abc();
	const uint64_t fps[] = {STACK_TOP + 0x1000, s.c_sp - 0x100, s.c_rbp + 3, 0, ~0ull};
	for (size_t i = 0; i < sizeof fps / sizeof *fps; i++) {
		walk_from(&(struct unwind_regs){CODE_C + T0_RET, s.c_sp, fps[i], false}, &w);
		FRAMES(&w, FN_C);
		CHECK(w.out.verdict == UNWIND_BROKEN && !w.out.past_end);
	}
	/* random words from random places, with and without a trail */
	static struct unwind_trail trail;
	memset(&trail, 0, sizeof trail);
	uint32_t verdicts[4] = {0};
	for (int round = 0; round < 3000; round++) {
		for (uint32_t i = 0; i < STACK_WORDS; i++)
			mem[i] = random_word(STACK_LO);
		uint64_t at = STACK_LO + 8 * (next_random() % STACK_WORDS);
		struct unwind_regs r = {random_word(STACK_LO), at, random_word(STACK_LO), (next_random() & 3) == 0};
		if (round & 1)
			r.ip = code_starts[next_random() % (sizeof code_starts / sizeof *code_starts)] + next_random() % 40;
		uint64_t end = at + 8 * (next_random() % ((STACK_TOP - at) / 8 + 1));
		walk_copy(&r, at, end, 1 + (uint32_t)(next_random() % MAX_FRAMES), round % 3 ? &trail : NULL, &w);
		if (w.out.verdict < 4)
			verdicts[w.out.verdict]++;
	}
	/* each verdict was met (the canned code is varied enough to say so) */
	for (int v = 0; v < 4; v++)
		CHECK(verdicts[v] > 0);
}

int main(void)
{
	RUN(frame_pointers);
	RUN(frameless_methods);
	RUN(osr_frames);
	RUN(funclets);
	RUN(epilogs);
	RUN(hijacked_return);
	RUN(runtime_stubs);
	RUN(native_by_rules);
	RUN(native_leaf_run);
	RUN(native_by_frame_pointers);
	RUN(trail_graft);
	RUN(trail_through_native);
	RUN(trail_live_fp);
	RUN(past_the_copy);
	RUN(past_the_copy_managed_beyond);
	RUN(truncated);
	RUN(broken);
	RUN(garbage);
	return CHECK_DONE();
}
