/* What the x64 code the .NET JIT emits says about its own frame: the
 * prolog (pushes, stack allocation, frame pointer) decoded from a method's
 * first bytes, and the epilog decoded forward from an instruction.  The
 * runtime keeps its unwind data to itself and JIT'd code has no DWARF CFI
 * on Linux, so a profiler that unwinds managed frames from a signal reads
 * the few instruction forms the JIT uses for these (genFnProlog,
 * genFnEpilog in codegenxarch.cpp).  Pure functions over bytes: no runtime
 * calls, no allocation; unit-tested on the JIT's real encodings. */
#ifndef CLRSCOPE_AGENT_X64FRAME_H
#define CLRSCOPE_AGENT_X64FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X64_PROLOG_STEPS 24
#define X64_EPILOG_OPS 16

/* The frame after each prolog instruction, as offsets from the stack
 * pointer at entry (where the return address is). */
struct x64_frame_state {
	uint16_t end;     /* code offset just after the instruction */
	int32_t sp;       /* rsp - entry rsp (<= 0) */
	int32_t fp;       /* rbp - entry rsp, once fp_set */
	int32_t fp_slot;  /* where the caller's rbp was saved, once fp_saved */
	bool fp_set;      /* rbp points into this frame */
	bool fp_saved;    /* the caller's rbp is on the stack */
};

struct x64_prolog {
	uint8_t nsteps;
	struct x64_frame_state step[X64_PROLOG_STEPS]; /* step[0]: at entry */
	bool osr; /* an on-stack-replacement body: it starts by copying the
		     Tier0 frame's saved rbp, and sits on that frame */
};

/* Decodes the prolog at code[0..n).  Stops at the first instruction that
 * is not a prolog form; the last step is the body's frame.  Returns false
 * when the bytes are not a prolog the decoder understands (then nothing
 * about the frame is known). */
bool x64_decode_prolog(const uint8_t *code, size_t n, struct x64_prolog *out);

/* The frame in effect at code offset off (the body's when off is past
 * the prolog). */
const struct x64_frame_state *x64_prolog_state_at(const struct x64_prolog *p, uint32_t off);

enum x64_epilog_op_kind {
	X64_ADD_RSP,     /* rsp += imm */
	X64_LEA_RSP_FP,  /* rsp = rbp + imm */
	X64_MOV_RSP_FP,  /* rsp = rbp */
	X64_POP_FP,      /* rbp = [rsp]; rsp += 8 */
	X64_POP_OTHER,   /* rsp += 8 */
	X64_RET,         /* return address at [rsp] */
	X64_TAIL_JMP,    /* a tail call: the return address at [rsp] is the caller's */
};

struct x64_epilog {
	uint8_t nops;
	struct {
		uint8_t kind;
		int32_t imm;
	} op[X64_EPILOG_OPS];
};

/* Whether the instructions from code[0] on are an epilog (stack
 * deallocation and pops ending in ret or a tail-call jump); fills out
 * with them.  A lone jump is not taken for one: the body has those too. */
bool x64_decode_epilog(const uint8_t *code, size_t n, struct x64_epilog *out);

/* Whether the bytes just before a return address are a call instruction
 * (a plausibility check for a return address found on the stack); before
 * points at the byte before the return address, avail bytes back from it
 * are readable. */
bool x64_follows_call(const uint8_t *before_end, size_t avail);

/* The number of the system call whose syscall instruction (0F 05) ends at
 * end, when the instruction before it is mov $NR,%eax, as C libraries set
 * most of theirs, or that and one instruction that leaves eax alone (avail
 * bytes back from end are readable; 14 cover both); -1 when it is not (a
 * byte before the mov that may be a REX prefix makes it another
 * register's). */
int64_t x64_syscall_number(const uint8_t *end, size_t avail);

/* Whether a Linux x86-64 system call waits (for time, an event, another
 * thread or a CPU) whatever its arguments: futex does or not by its
 * operation (x64_futex_op_waits). */
bool x64_linux_syscall_waits(int64_t nr);
#define X64_LINUX_FUTEX 202
bool x64_futex_op_waits(uint64_t op);

#endif
