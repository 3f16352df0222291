/* A native library for e2e.native_names, loaded by the NativeWork app:
 * the time goes to burn_inner, a function with no exported symbol (only
 * the full symbol table names it: a stripped copy cannot).  Built twice,
 * with two values of BURN_VARIANT, so that the two files differ in code
 * and build id (a module replaced on disk).  clrscope_native_burn_popped
 * runs the same loop in its epilog, after its frame's rbp is popped;
 * clrscope_native_burn_elsewhere on a stack of its own, away from the
 * thread's. */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

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

/* (for the assembly below: burn_inner is static) */
__attribute__((visibility("hidden"), noinline)) uint64_t clrscope_burn_inner_call(uint64_t rounds);
uint64_t clrscope_burn_inner_call(uint64_t rounds)
{
	return burn_inner(rounds);
}

__attribute__((visibility("default"))) uint64_t clrscope_native_burn(uint64_t rounds);
uint64_t clrscope_native_burn(uint64_t rounds)
{
	return burn_inner(rounds) + BURN_VARIANT;
}

/* A function's start as a compiler writes it with a frame pointer, and the
 * unwind rules it emits for it: from here on the CFA is rbp+16. */
#define FRAME_PROLOG                     \
	".cfi_startproc\n"               \
	"push %rbp\n"                    \
	".cfi_def_cfa_offset 16\n"       \
	".cfi_offset %rbp, -16\n"        \
	"mov %rsp, %rbp\n"               \
	".cfi_def_cfa_register %rbp\n"

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
	FRAME_PROLOG
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

/* burn_on(rounds, top): calls clrscope_burn_inner_call with the stack
 * pointer at top, and back.  rbp keeps the frame on the thread's stack,
 * so the unwind rules stay right while the stack pointer is elsewhere. */
uint64_t clrscope_burn_on(uint64_t rounds, void *top) __attribute__((visibility("hidden")));
__asm__(".text\n"
	".globl clrscope_burn_on\n"
	".hidden clrscope_burn_on\n"
	".type clrscope_burn_on, @function\n"
	"clrscope_burn_on:\n"
	FRAME_PROLOG
	"mov %rsi, %rsp\n"
	"call clrscope_burn_inner_call\n"
	"mov %rbp, %rsp\n"
	"pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size clrscope_burn_on, .-clrscope_burn_on\n");

/* The loop on a stack in memory of its own (as a coroutine's, or code on
 * an alternate signal stack), below the thread's stack with nothing mapped
 * right above it: a sampler that copied from the stack pointer up to the
 * thread's stack top would fault there. */
__attribute__((visibility("default"))) uint64_t clrscope_native_burn_elsewhere(uint64_t rounds);
uint64_t clrscope_native_burn_elsewhere(uint64_t rounds)
{
	const size_t size = 64 << 10;
	uintptr_t below = ((uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)(size - 1)) - (8u << 20);
	uint8_t *map = MAP_FAILED;
	for (int i = 0; i < 64 && map == MAP_FAILED; i++, below -= 1u << 20)
		map = mmap((void *)below, 2 * size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (map == MAP_FAILED)
		map = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return burn_inner(rounds);
	munmap(map + size, size);
	uint64_t x = clrscope_burn_on(rounds, map + size);
	munmap(map, size);
	return x;
}
