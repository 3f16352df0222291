/* A native library for e2e.native_names, loaded by the NativeWork app:
 * the time goes to burn_inner, a function with no exported symbol (only
 * the full symbol table names it: a stripped copy cannot).  Built twice,
 * with two values of BURN_VARIANT, so that the two files differ in code
 * and build id (a module replaced on disk). */
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
