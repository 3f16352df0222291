/* An open-addressing map from 64-bit keys to 32-bit values, for the
 * sampler's interning tables.  Key 0 marks an empty slot, so it is kept
 * beside the table (a ClassID or ThreadID of 0 comes from a failed call).
 * Single-threaded. */
#ifndef CLRSCOPE_AGENT_IDMAP_H
#define CLRSCOPE_AGENT_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

struct idmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap; /* power of two */
	size_t count;
	bool has_zero; /* key 0 and its value */
	uint32_t zero_val;
};

bool idmap_init(struct idmap *m, size_t cap) AGENT_HIDDEN;
void idmap_free(struct idmap *m) AGENT_HIDDEN;
/* Returns true and *val if key is present. */
bool idmap_get(const struct idmap *m, uint64_t key, uint32_t *val) AGENT_HIDDEN;
/* Inserts or replaces; false when memory ran out. */
bool idmap_put(struct idmap *m, uint64_t key, uint32_t val) AGENT_HIDDEN;

#endif
