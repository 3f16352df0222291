/* Unwinding a thread's stack from a copy of it, as the runtime's own
 * unwinder would report its frames: managed frames by their bodies'
 * decoded prologs and epilogs (frame-pointer, frameless and OSR bodies
 * alike, at any instruction), native frames by their modules' unwind
 * tables (at a call in a frame-pointer function, by its own code when the
 * thread's rbp is not to be relied on: nativeframe.h), else by frame
 * pointers.
 * Works on a copy taken in a signal handler or during a suspension, after
 * the thread has moved on; code is read without faulting.  What a walk
 * knows of code and of memory outside the copy comes through a source
 * (struct unwind_source): the agent's is the code map and memread, the
 * tests' is canned.  Sampler thread only (the code map is its). */
#ifndef CLRSCOPE_AGENT_UNWIND_H
#define CLRSCOPE_AGENT_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/unwind/codemap.h"

struct unwind_regs {
	uint64_t ip, sp, fp;
	bool fp_unknown; /* fp was not read (a thread read where it waits, not interrupted):
			    a walk that needs it sets live_fp, and its frames are not to be trusted */
};

/* The stack words a walk read, when asked for: a walk depends on the
 * registers it starts from, the code and these words only, so a thread
 * whose stack holds the same words again (from the same ip and sp, the
 * frame pointer register not used) has the same frames. */
#define UNWIND_WORDS_MAX 160
struct word_log {
	uint32_t n;
	bool overflow; /* more were read than fit */
	uint64_t addr[UNWIND_WORDS_MAX], value[UNWIND_WORDS_MAX];
};

struct stack_copy {
	uint64_t base;        /* the address of bytes[0] (the stack pointer then) */
	uint32_t len;
	const uint8_t *bytes;
	struct word_log *log; /* optional: every word read goes here */
	bool *past_end;       /* set by unwind_stack: a read went past the copy's end */
};

enum unwind_verdict {
	UNWIND_EXACT,     /* every frame placed by its code's own layout, up to the root */
	UNWIND_NATIVE,    /* native frames between managed ones followed by frame pointers */
	UNWIND_BROKEN,    /* stopped before the root: a frame it could not place */
	UNWIND_TRUNCATED, /* the copy or the frame buffer ended first */
};

struct unwind_out {
	FunctionID *frames; /* innermost first; 0: native code, one per native frame from the
			       leaf to the first managed frame, one per run of them beyond */
	uint32_t n, cap;
	enum unwind_verdict verdict;
	uint64_t first_managed_sp; /* the stack pointer in the innermost managed frame (0: none) */
	bool root;                 /* the walk ended at the thread's first frame (its return address undefined) */
	uint64_t *addrs;           /* optional, beside frames: each frame's instruction (a caller's: its call) */
	bool live_fp;              /* the walk used the starting frame pointer's value (not one read from the stack) */
	bool past_end;             /* it ended at a native frame whose unwind rule reads words beyond the
				      copy, and no trail says that frame's callers are native to the root
				      (whether the stack goes on there is the caller's to know) */
};

/* A thread's last complete walk, kept to be grafted onto its next one.
 * Each frame's start (instruction, stack pointer, frame pointer) is kept
 * with the frames and the stack words the walk read from there on; a later
 * walk of the thread that reaches one of those starts, in a managed frame,
 * with every one of those words the same in its own copy, would read the
 * same words from the same registers through the same code: it takes the
 * rest from here instead (a thread's root part, the same in most of its
 * samples, is walked once).  Sampler thread only. */
#define UNWIND_TRAIL_FRAMES 128
struct unwind_seam {
	uint64_t ip, sp, fp;
	bool fp_live, fp_unknown; /* as struct frame's, in unwind.c */
	bool managed;             /* the frame that starts here is managed code */
	bool guessed_after;       /* the walk from here on followed frame pointers through native code */
	bool live_after;          /* ... used the starting frame pointer register's value */
	uint16_t n, words;        /* frames emitted and words read before it */
};
struct unwind_trail {
	uint32_t epoch;   /* the source's walk_epoch() when it was made; 0: none */
	uint32_t dynamic; /* its dynamic_epoch() then (a dynamic method's code is reused) */
	uint32_t nseams, n, nwords;
	bool root;
	struct unwind_seam seam[UNWIND_TRAIL_FRAMES];
	FunctionID frames[UNWIND_TRAIL_FRAMES];
	uint64_t addrs[UNWIND_TRAIL_FRAMES];
	uint64_t waddr[UNWIND_WORDS_MAX], wvalue[UNWIND_WORDS_MAX];
};

/* What a walk asks about code by address, and the memory it reads
 * outside the stack copy (code bytes): the walk's seam.  Each member does
 * what the code map's function of the same name does (codemap.h), read
 * what memread does.  unwind_live is the agent's (livesource.c); the
 * unit tests and the fuzzer pass canned code and bytes. */
struct unwind_source {
	struct code_at (*at)(uint64_t ip, bool check_epilog);
	int (*code_facts)(uint64_t addr);
	bool (*call_cfa)(uint64_t addr, const struct eh_rule *rule, int32_t *cfa_from_sp);
	void (*call_cfa_refuted)(uint64_t addr);
	uint32_t (*walk_epoch)(void);
	uint32_t (*dynamic_epoch)(void);
	int (*read)(uint64_t addr, void *buf, size_t n);
	void (*probe_flush)(uint64_t ip, bool with_body); /* the measuring build's (walkprobe.h), else NULL */
};
extern const struct unwind_source unwind_live AGENT_HIDDEN;

/* Unwinds from r (the interrupted instruction when leaf_interrupted, else
 * a frame already at a call) over the copy, asking src about code; with a
 * trail (else NULL), the thread's last walk is grafted on where it can
 * be, and this walk becomes the trail when it is complete (out->addrs is
 * needed for both). */
void unwind_walk(const struct unwind_source *src, const struct unwind_regs *r, bool leaf_interrupted,
		 const struct stack_copy *s, struct unwind_out *out, struct unwind_trail *trail) AGENT_HIDDEN;
/* The agent's walk: over the code map and memread. */
static inline void unwind_stack(const struct unwind_regs *r, bool leaf_interrupted, const struct stack_copy *s,
				struct unwind_out *out, struct unwind_trail *trail)
{
	unwind_walk(&unwind_live, r, leaf_interrupted, s, out, trail);
}
/* Walks so far, the frames they gave, how many of each came from a graft,
 * and walks whose native root part beyond the copy came from the trail
 * (for the agent's debug log). */
struct unwind_counts {
	uint64_t walks, frames, grafts, grafted_frames, rests;
};
struct unwind_counts unwind_counts(void) AGENT_HIDDEN;

#endif
