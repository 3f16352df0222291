/* Canned code for the unwinder's seam (struct unwind_source, in
 * agent/unwind/unwind.h): made-up managed bodies, native functions and
 * runtime stubs at chosen addresses, with real x86-64 bytes, answered as
 * the agent's code map answers for real code (agent/unwind/codemap.c):
 * prologs and epilogs decoded by x64frame, a native call's frame by
 * nativeframe, the hijack stub known by its prolog.  For the unit tests
 * and the fuzzer of the unwinder; one set of code at a time. */
#ifndef CLRSCOPE_TEST_CANNEDCODE_H
#define CLRSCOPE_TEST_CANNEDCODE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/unwind/unwind.h"

enum canned_kind {
	CANNED_MANAGED, /* a managed body: fn, its prolog decoded from its first bytes */
	CANNED_NATIVE,  /* a loaded module's function: rules, if its unwind table has an entry */
	CANNED_STUB,    /* code the runtime generated outside every module (its stubs) */
	CANNED_UNKNOWN, /* not code as far as the maps say, but they may be behind */
};

/* A native function's unwind rule from code offset from on (the next
 * one's from ends it); its fn_start is filled in. */
struct canned_rule {
	uint32_t from;
	struct eh_rule rule;
};

#define CANNED_RULES 8
struct canned_code {
	enum canned_kind kind;
	uint64_t start;
	const uint8_t *bytes; /* the code; the range is [start, start + len) */
	uint32_t len;
	FunctionID fn;        /* CANNED_MANAGED's */
	bool dynamic;         /* ... a dynamic method */
	uint32_t nrules;      /* CANNED_NATIVE's rules, by offset ascending */
	struct canned_rule rules[CANNED_RULES];
};

/* What the source was asked, for the tests to check. */
struct canned_calls {
	uint32_t at, code_facts, call_cfa, refuted, reads;
	uint64_t refuted_addr[8];
};

/* Forgets all code; the epochs start again at 1. */
void canned_reset(void);
/* Adds c (copied; bytes must outlive the walks): false when there is no
 * room or it overlaps code already added. */
bool canned_add(const struct canned_code *c);
/* The code body of the managed code at ip (NULL: none, or not decoded). */
const struct code_body *canned_body(uint64_t ip);
/* The managed function whose code holds ip (0: none). */
FunctionID canned_fn_at(uint64_t ip);
/* The epochs a trail is checked against: a step of either makes it stale. */
void canned_new_walk_epoch(void);
void canned_new_dynamic_epoch(void);

/* Whether a walk from r over s kept the unwinder's promises, whatever the
 * stack held: the frames within out->cap, one [native] per run, every
 * managed frame's address in that function's code, a verdict that agrees
 * with root and past_end, the words logged read from the copy.  NULL, or
 * the promise broken. */
const char *canned_check_walk(const struct unwind_regs *r, const struct stack_copy *s, const struct unwind_out *out);

extern const struct unwind_source canned_source;
extern struct canned_calls canned_calls;

#endif
