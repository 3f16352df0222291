/* Spreading a 64-bit key over a power-of-two hash table, for the open
 * addressing tables of both halves.  Their keys are ids packed into words
 * ((parent << 32) | site, (frame << 32) | offset): dense and small, with
 * the parts that differ far apart.  A multiply alone leaves a low bit of
 * the product depending only on the key's bits below it, so masking it
 * ignores the high half of such keys (a table of 4,096 slots would take
 * its slot from the IL offset alone); murmur3's finaliser makes every bit of the
 * result depend on every bit of the key. */
#ifndef CLRSCOPE_COMMON_MIX64_H
#define CLRSCOPE_COMMON_MIX64_H

#include <stdint.h>

static inline uint64_t cs_mix64(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	key ^= key >> 33;
	return key;
}

#endif
