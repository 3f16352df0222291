/* libFuzzer target for the agent's unwinder (agent/unwind/unwind.c),
 * through its seam with canned code (tests/unit/cannedcode.c).  The input
 * makes the code (managed bodies, native functions with unwind rules,
 * the runtime's stubs, code the maps do not know yet: real bytes from
 * tests/unit/cannedbodies.h or the input's own), the registers and the
 * stack's words, then words changed for a second walk.  Every walk must
 * end within its bounds with a verdict that agrees with what it found
 * (canned_check_walk); a walk made again is the same; and a walk that
 * grafts the thread's last walk gives what it gives without it.
 *
 * Input: a count of code regions, each a kind, its bytes (a template's
 * number, or a length and the bytes), a function id (managed) or up to
 * four unwind rules (native); the registers (ip, the stack pointer's word,
 * fp, flags, the frame buffer's size, the copy's length); the changes for
 * the second walk; then the stack's words.  A word is a tag and its bytes:
 * code (region, offset), stack (offset), a small number, or any 8 bytes.
 * Short input reads as zeros. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/unwind/unwind.h"
#include "cannedbodies.h"
#include "cannedcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REGIONS_MAX 12
#define CODE_BASE 0x7f0010000000ull
#define REGION_SPAN 0x100 /* each region's room: [CODE_BASE + k * REGION_SPAN, +len) */
#define OWN_BYTES_MAX 96
#define STACK_BASE 0x7ffd00000000ull
#define STACK_WORDS 512
#define START_WORDS 64 /* the walk starts in the first ones */
#define FRAMES_MAX 256

struct input {
	const uint8_t *p;
	size_t n;
};

static uint8_t byte(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint64_t raw64(struct input *in)
{
	uint64_t v = 0;
	for (int k = 0; k < 8; k++)
		v |= (uint64_t)byte(in) << (8 * k);
	return v;
}

static const struct {
	const uint8_t *bytes;
	uint32_t len;
} templates[] = {
	{tier0, sizeof tier0},         {frameless, sizeof frameless}, {osr, sizeof osr},
	{catcher, sizeof catcher},     {saver, sizeof saver},         {undecodable, sizeof undecodable},
	{first, sizeof first},         {native_fp, sizeof native_fp}, {native_leaf, sizeof native_leaf},
	{native_push, sizeof native_push}, {fp_only, sizeof fp_only}, {hijack, sizeof hijack},
	{worker, sizeof worker},
};
#define TEMPLATES (sizeof templates / sizeof *templates)

static uint32_t nregions;
static uint8_t own_bytes[REGIONS_MAX][OWN_BYTES_MAX];

/* A word: code, a stack address (mostly aligned), a small number, or any. */
static uint64_t word(struct input *in)
{
	uint8_t tag = byte(in);
	switch (tag & 3) {
	case 0:
		return CODE_BASE + (uint64_t)((tag >> 2) % nregions) * REGION_SPAN + byte(in);
	case 1: {
		uint32_t off = byte(in) | (uint32_t)byte(in) << 8;
		return STACK_BASE + (off % (8 * STACK_WORDS + 64) & (tag & 4 ? ~0u : ~7u));
	}
	case 2:
		return byte(in);
	default:
		return raw64(in);
	}
}

static void make_code(struct input *in)
{
	canned_reset();
	nregions = 1 + byte(in) % REGIONS_MAX;
	for (uint32_t k = 0; k < nregions; k++) {
		struct canned_code c = {.kind = (enum canned_kind)(byte(in) % 4), .start = CODE_BASE + k * REGION_SPAN};
		uint8_t pick = byte(in);
		if (pick < 0x80) {
			c.bytes = templates[pick % TEMPLATES].bytes;
			c.len = templates[pick % TEMPLATES].len;
		} else {
			c.len = 1 + byte(in) % OWN_BYTES_MAX;
			for (uint32_t i = 0; i < c.len; i++)
				own_bytes[k][i] = byte(in);
			c.bytes = own_bytes[k];
		}
		if (c.kind == CANNED_MANAGED) {
			uint8_t f = byte(in);
			c.fn = 0x1000 + (f & 3); /* a few functions, so that bodies share one (Tier0 and OSR) */
			c.dynamic = (f & 4) != 0;
		} else if (c.kind == CANNED_NATIVE) {
			c.nrules = byte(in) % 5;
			uint32_t from = 0;
			for (uint32_t r = 0; r < c.nrules; r++) {
				uint8_t flags = byte(in);
				from += r ? byte(in) % 8 : 0; /* ascending */
				int8_t cfa_off = (int8_t)byte(in), cfa_add = (int8_t)byte(in), rbp_off = (int8_t)byte(in);
				int8_t ra_off = flags & 8 ? (int8_t)byte(in) : -8;
				c.rules[r].from = from;
				c.rules[r].rule = (struct eh_rule){
					.cfa_reg = flags & 1 ? EH_REG_RBP : EH_REG_RSP,
					.cfa_off = cfa_off,
					.cfa_deref = (flags & 2) != 0,
					.cfa_add = cfa_add,
					.rbp_saved = (flags & 4) != 0,
					.rbp_off = rbp_off,
					.ra_off = ra_off,
					.outermost = (flags & 16) != 0,
				};
			}
		}
		if (!canned_add(&c))
			abort(); /* regions never overlap here */
	}
}

struct walk {
	FunctionID frames[FRAMES_MAX];
	uint64_t addrs[FRAMES_MAX];
	struct unwind_out out;
	struct word_log log;
};

static uint64_t stack[STACK_WORDS];

static void walk(const struct unwind_regs *r, bool leaf, uint32_t len, uint32_t cap, struct unwind_trail *trail,
		 struct walk *w)
{
	uint8_t *copy = malloc(len ? len : 1); /* exactly the copy: a read past it is the sanitizer's */
	if (!copy)
		abort();
	memcpy(copy, (const uint8_t *)stack + (r->sp - STACK_BASE), len);
	memset(&w->log, 0, sizeof w->log);
	w->out = (struct unwind_out){w->frames, 0, cap, UNWIND_EXACT, 0, false, w->addrs, false};
	struct stack_copy s = {r->sp, len, copy, &w->log, NULL};
	unwind_walk(&canned_source, r, leaf, &s, &w->out, trail);
	const char *broken = canned_check_walk(r, &s, &w->out);
	if (broken) {
		fprintf(stderr, "fuzz_unwind: %s\n", broken);
		abort();
	}
	free(copy);
}

static void same(const struct walk *a, const struct walk *b, const char *what)
{
	if (a->out.n == b->out.n && !memcmp(a->frames, b->frames, a->out.n * sizeof *a->frames) &&
	    !memcmp(a->addrs, b->addrs, a->out.n * sizeof *a->addrs) && a->out.verdict == b->out.verdict &&
	    a->out.root == b->out.root && a->out.past_end == b->out.past_end && a->out.live_fp == b->out.live_fp &&
	    a->out.first_managed_sp == b->out.first_managed_sp)
		return;
	fprintf(stderr, "fuzz_unwind: %s: %u frames (verdict %d) against %u (verdict %d)\n", what, a->out.n,
		a->out.verdict, b->out.n, b->out.verdict);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	make_code(&in);
	uint64_t ip = word(&in);
	uint64_t sp = STACK_BASE + 8 * (uint64_t)(byte(&in) % START_WORDS);
	uint64_t fp = word(&in);
	uint8_t flags = byte(&in);
	uint32_t cap = 1 + byte(&in) % FRAMES_MAX;
	uint32_t room = (uint32_t)(STACK_BASE + 8 * STACK_WORDS - sp), len = (uint32_t)byte(&in) * 33;
	if (!len || len > room)
		len = room;
	struct unwind_regs r = {ip, sp, fp, (flags & 1) != 0};
	bool leaf = !(flags & 2);
	/* the changes for the second walk: words of the leaf's part, and its ip */
	struct {
		uint32_t at;
		uint64_t value;
	} change[8];
	uint32_t nchange = byte(&in) % 9;
	for (uint32_t k = 0; k < nchange; k++) {
		change[k].at = byte(&in) % START_WORDS;
		change[k].value = word(&in);
	}
	uint64_t ip2 = flags & 4 ? word(&in) : ip;
	memset(stack, 0, sizeof stack);
	for (uint32_t k = 0; k < STACK_WORDS && in.n; k++)
		stack[k] = word(&in);

	static struct unwind_trail trail;
	static struct walk a, b;
	memset(&trail, 0, sizeof trail);
	uint32_t refuted = canned_calls.refuted;
	walk(&r, leaf, len, cap, &trail, &a);
	walk(&r, leaf, len, cap, NULL, &b);
	if (canned_calls.refuted == refuted) /* (a refuted frame is placed otherwise from then on) */
		same(&a, &b, "the same walk made again");

	/* the stack changed below, the same from some frame up: grafted where
	 * the trail's words are all still there */
	for (uint32_t k = 0; k < nchange; k++)
		stack[(sp - STACK_BASE) / 8 + change[k].at < STACK_WORDS ? (sp - STACK_BASE) / 8 + change[k].at : 0] =
			change[k].value;
	r.ip = ip2;
	refuted = canned_calls.refuted;
	walk(&r, leaf, len, cap, &trail, &a);
	walk(&r, leaf, len, cap, NULL, &b);
	/* the trail's rest past the copy stands in for what the fresh walk
	 * cannot see (rest_from_trail): compared only where it did not */
	if (canned_calls.refuted == refuted && !b.out.past_end)
		same(&a, &b, "a walk grafted on its trail");
	return 0;
}
