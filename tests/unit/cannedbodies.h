/* Code for the unwinder's tests, as the JIT and C compilers write it:
 * real x86-64 bytes (each array's comment says the instructions) and the
 * offsets the tests name in them, to be placed with cannedcode.h.  For
 * tests/unit/test_unwind.c and tests/fuzz/fuzz_unwind.c. */
#ifndef CLRSCOPE_TEST_CANNEDBODIES_H
#define CLRSCOPE_TEST_CANNEDBODIES_H

#include <stdint.h>

/* A Tier0 body: push rbp; sub rsp,0x20; lea rbp,[rsp+0x20]; call (returns
 * to +15); nop; add rsp,0x20; pop rbp; ret */
static const uint8_t tier0[] = {0x55, 0x48, 0x83, 0xEC, 0x20, 0x48, 0x8D, 0x6C, 0x24, 0x20, 0xE8, 0, 0, 0, 0,
				0x90, 0x48, 0x83, 0xC4, 0x20, 0x5D, 0xC3};
#define T0_RET 15    /* after its call; also the nop, a place in its body */
#define T0_ADD 16    /* the epilog: add rsp,0x20 */
#define T0_POP 20    /* ... pop rbp */
#define T0_RETI 21   /* ... ret */
#define T0_FRAME 40  /* the return address's slot less rsp in its body */

/* A frameless Tier1 body: push rbx; sub rsp,0x20; call (returns to +10);
 * nop; add rsp,0x20; pop rbx; ret */
static const uint8_t frameless[] = {0x53, 0x48, 0x83, 0xEC, 0x20, 0xE8, 0, 0, 0, 0,
				    0x90, 0x48, 0x83, 0xC4, 0x20, 0x5B, 0xC3};
#define FL_RET 10
#define FL_FRAME 40

/* An OSR body (on its method's Tier0 frame): mov rax,[rbp]; push rax;
 * mov rbp,rsp; sub rsp,0x10; call (returns to +17); nop; add rsp,0x10;
 * pop rbp; ret */
static const uint8_t osr[] = {0x48, 0x8B, 0x45, 0x00, 0x50, 0x48, 0x8B, 0xEC, 0x48, 0x83, 0xEC, 0x10,
			      0xE8, 0, 0, 0, 0, 0x90, 0x48, 0x83, 0xC4, 0x10, 0x5D, 0xC3};
#define OSR_RET 17
#define OSR_FRAME 24

/* A method with a catch funclet: tier0's main body (+0..+21), int3
 * padding, the funclet at +32: push rbp; sub rsp,0x10; mov rbp,[rdi+8]
 * (the parent frame's rbp); call (returns to +46); nop; add rsp,0x10;
 * pop rbp; ret */
static const uint8_t catcher[] = {0x55, 0x48, 0x83, 0xEC, 0x20, 0x48, 0x8D, 0x6C, 0x24, 0x20, 0xE8, 0, 0, 0, 0,
				  0x90, 0x48, 0x83, 0xC4, 0x20, 0x5D, 0xC3, 0xCC, 0xCC, 0xCC, 0xCC, 0xCC, 0xCC,
				  0xCC, 0xCC, 0xCC, 0xCC, 0x55, 0x48, 0x83, 0xEC, 0x10, 0x48, 0x8B, 0x6F, 0x08,
				  0xE8, 0, 0, 0, 0, 0x90, 0x48, 0x83, 0xC4, 0x10, 0x5D, 0xC3};
#define FUNCLET_RET 46
#define FUNCLET_FRAME 24

/* Callee-saved registers and an epilog from rbp: push rbp; push r15;
 * push rbx; lea rbp,[rsp+0x10]; call (returns to +14); nop;
 * lea rsp,[rbp-0x10]; pop rbx; pop r15; pop rbp; ret */
static const uint8_t saver[] = {0x55, 0x41, 0x57, 0x53, 0x48, 0x8D, 0x6C, 0x24, 0x10, 0xE8, 0, 0, 0, 0,
				0x90, 0x48, 0x8D, 0x65, 0xF0, 0x5B, 0x41, 0x5F, 0x5D, 0xC3};
#define SAVER_RET 14
#define SAVER_LEA 15
#define SAVER_POPRBX 19
#define SAVER_FRAME 24

/* A prolog the decoder does not follow (a frame pointer set before rbp is
 * saved): mov rbp,rsp; call (returns to +8); nop; ret */
static const uint8_t undecodable[] = {0x48, 0x8B, 0xEC, 0xE8, 0, 0, 0, 0, 0x90, 0xC3};
#define UNDECODABLE_RET 8

/* The thread's first function (its unwind rule: return address
 * undefined): nop; nop; call (returns to +7); hlt */
static const uint8_t first[] = {0x90, 0x90, 0xE8, 0, 0, 0, 0, 0xF4};
#define FIRST_RET 7

/* A native function that keeps a frame pointer: push rbp; mov rbp,rsp;
 * sub rsp,0x10; call (returns to +13); nop; leave; ret */
static const uint8_t native_fp[] = {0x55, 0x48, 0x89, 0xE5, 0x48, 0x83, 0xEC, 0x10, 0xE8, 0, 0, 0, 0,
				    0x90, 0xC9, 0xC3};
#define NFP_RET 13
#define NFP_RETI 15 /* ret, after leave */
#define NFP_FRAME 24

/* A native leaf without one: sub rsp,0x18; nop; nop; nop; add rsp,0x18; ret */
static const uint8_t native_leaf[] = {0x48, 0x83, 0xEC, 0x18, 0x90, 0x90, 0x90, 0x48, 0x83, 0xC4, 0x18, 0xC3};
#define NLEAF_BODY 4
#define NLEAF_FRAME 24

/* A native function that pushes one register: push rbx; call (returns to
 * +6); nop; pop rbx; ret */
static const uint8_t native_push[] = {0x53, 0xE8, 0, 0, 0, 0, 0x90, 0x5B, 0xC3};
#define NPUSH_RET 6

/* Frame-pointer code with no unwind rule (a stub, or a module without an
 * entry): push rbp; mov rbp,rsp; call (returns to +9); nop; pop rbp; ret */
static const uint8_t fp_only[] = {0x55, 0x48, 0x89, 0xE5, 0xE8, 0, 0, 0, 0, 0x90, 0x5D, 0xC3};
#define FPONLY_RET 9

/* The runtime's return-address hijack stub (.NET 10's OnHijackTripThread):
 * push rax (the slot); push rbp, rbx, r15, r14, r13, r12, rcx, rdx, rax;
 * mov rdi,rsp; call its worker (returns to +22); nop */
static const uint8_t hijack[] = {0x50, 0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54, 0x51,
				 0x52, 0x50, 0x48, 0x89, 0xE7, 0xE8, 0, 0, 0, 0, 0x90, 0xC3};
#define HIJACK_RET 22
#define HIJACK_PUSHES 10

/* The hijack's worker, a leaf here: nop; nop; nop; ret */
static const uint8_t worker[] = {0x90, 0x90, 0x90, 0xC3};

#endif
