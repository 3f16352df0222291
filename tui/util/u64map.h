/* A map from 64-bit keys to a fixed number of 64-bit counters each:
 * open addressing, entries in insertion order (so that output built from
 * it does not depend on hashing). */
#ifndef CLRSCOPE_U64MAP_H
#define CLRSCOPE_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	size_t width;     /* counters per entry */
	uint64_t *keys;   /* by entry */
	uint64_t *vals;   /* width per entry */
	size_t count, keys_cap, vals_cap;
	uint32_t *slots;  /* entry index + 1, 0 = free */
	size_t nslots;
};

void u64map_init(struct u64map *m, size_t width);
void u64map_free(struct u64map *m);
/* Forgets every entry, keeping the memory. */
void u64map_clear(struct u64map *m);
/* The counters of key, added (zeroed) when absent. */
uint64_t *u64map_counters(struct u64map *m, uint64_t key);

#endif
