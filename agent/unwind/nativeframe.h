/* Where a native function's frame is at one of its calls, from its code.
 * DWARF describes a frame-pointer function's frame relative to rbp ("CFA
 * = rbp + 16"), and rbp is the one register a thread's stack does not
 * give back: a walk from a capture needs the live register, which only a
 * signal delivers.  At a call in such a function, though, the stack
 * pointer stands at a fixed distance from the frame when nothing between
 * the entry and the call moves it other than the prolog's pushes and
 * allocation: decoded here and checked against the DWARF rule, the frame
 * is found from the stack pointer alone.
 *
 * The decoder knows the lengths of the general-purpose, SSE and AVX (VEX)
 * instructions compilers emit and which registers they may write; what
 * it does not know (EVEX, XOP, 3DNow!, invalid bytes) ends the analysis
 * with no answer.  Where it is unsure whether an instruction writes rsp
 * or rbp it says it may.  Pure functions over bytes, unit-tested against
 * Zydis over the runtime's own libraries. */
#ifndef CLRSCOPE_AGENT_NATIVEFRAME_H
#define CLRSCOPE_AGENT_NATIVEFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most code read from a function's start to the call. */
#define NATIVEFRAME_SCAN_MAX 2048u

enum x64_insn_kind {
	X64_I_OTHER,
	X64_I_PUSH,       /* rsp -= 8 */
	X64_I_POP,        /* rsp += 8 (writes_fp: into rbp) */
	X64_I_ADD_SP,     /* rsp += imm (add, sub as a negative imm, lea rsp,[rsp+imm]) */
	X64_I_SET_FP,     /* rbp = rsp + imm (mov rbp,rsp: 0; lea rbp,[rsp+imm]) */
	X64_I_CALL,
	X64_I_BRANCH,     /* control does not go on to the next instruction, or may not: jumps,
			     returns, traps */
};

struct x64_insn {
	uint8_t len;
	enum x64_insn_kind kind;
	int64_t imm;
	bool writes_sp, writes_fp; /* may write rsp / rbp (any part of them) */
};

/* Decodes the instruction at code[0..n); false when it is not one the
 * decoder knows (or is cut short). */
bool x64_insn_decode(const uint8_t *code, size_t n, struct x64_insn *out);

/* For the call that ends at code offset call_end of the function whose
 * code starts at code[0] (n bytes readable, n >= call_end), and whose
 * DWARF rule there is CFA = rbp + cfa_from_fp: the CFA as an offset from
 * the stack pointer after the call returns.  False unless every
 * instruction up to the call is decoded, the prolog's pushes and
 * allocations (before any branch) are the only changes to rsp, rbp is set
 * from rsp once in that prolog and kept, and the rule agrees. */
bool nativeframe_cfa_at_call(const uint8_t *code, size_t n, uint32_t call_end, int32_t cfa_from_fp,
			     int32_t *cfa_from_sp);

/* The runtime's return-address hijack stub (OnHijackTripThread, in
 * libcoreclr's unixasmhelpers.S): to stop a thread running managed code,
 * a suspension may replace a method's return address with the stub's, so
 * that the method "returns" into it; the stub saves the registers (its
 * HijackArgs) and its worker, which first writes the real return address
 * into the slot the stub's first push made, waits there for the suspension
 * to end.  Its DWARF rule is a called function's, but it is entered by a
 * return: the caller's stack pointer is the rule's CFA less 8, and the
 * return address is the word below it.  Known by its prolog: push rax (the
 * slot), the callee-saved pushes (rbp, rbx, r15, r14, r13, r12), push rcx
 * (.NET 10; not before), push rdx, push rax (where the return value is
 * kept), mov rdi,rsp.  Returns the number of pushes (the last push's word,
 * the saved rax, is that many words below the caller's stack pointer; the
 * slot holds the same value until the worker writes it), 0 when code[0..n)
 * does not start with that prolog. */
unsigned nativeframe_hijack_pushes(const uint8_t *code, size_t n);

#endif
