/* A native library for e2e.native_names, loaded by the NativeWork app:
 * the time goes to burn_inner, a function with no exported symbol (only
 * the full symbol table names it: a stripped copy cannot).  Built twice,
 * with two values of BURN_VARIANT, so that the two files differ in code
 * and build id (a module replaced on disk).  clrscope_native_burn_popped
 * runs the same loop in its epilog, after its frame's rbp is popped. */
#include <stdint.h>

#ifndef BURN_VARIANT
#define BURN_VARIANT 1
#endif

__attribute__((noinline)) static uint64_t burn_inner(uint64_t rounds)
{
	uint64_t x = 88172645463325252ull ^ BURN_VARIANT;
	for (uint64_t i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x)); /* a real loop, not folded away */
	}
	return x;
}

__attribute__((visibility("default"))) uint64_t clrscope_native_burn(uint64_t rounds);
uint64_t clrscope_native_burn(uint64_t rounds)
{
	return burn_inner(rounds) + BURN_VARIANT;
}

/* The loop after "pop %rbp", with the unwind rules a compiler leaves there:
 * clang and GCC move the CFA back to rsp+8 but do not say that rbp is
 * restored, so the rule still reads rbp from CFA-16, a slot now below the
 * stack pointer (libcoreclr's small functions are caught at their ret so).
 * A sample here must still reach the managed caller. */
__attribute__((visibility("default"))) uint64_t clrscope_native_burn_popped(uint64_t rounds);
__asm__(".text\n"
	".globl clrscope_native_burn_popped\n"
	".type clrscope_native_burn_popped, @function\n"
	"clrscope_native_burn_popped:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"mov %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"movabs $88172645463325252, %rax\n"
	"pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"test %rdi, %rdi\n"
	"jz 2f\n"
	"1:\n"
	"mov %rax, %rdx\n"
	"shl $13, %rdx\n"
	"xor %rdx, %rax\n"
	"mov %rax, %rdx\n"
	"shr $7, %rdx\n"
	"xor %rdx, %rax\n"
	"mov %rax, %rdx\n"
	"shl $17, %rdx\n"
	"xor %rdx, %rax\n"
	"dec %rdi\n"
	"jnz 1b\n"
	"2:\n"
	"ret\n"
	".cfi_endproc\n"
	".size clrscope_native_burn_popped, .-clrscope_native_burn_popped\n");
