/* HEAP records: a snapshot's objects by type, the entries split into parts
 * of at most HP_PART_BYTES, each part one record repeating the totals. */
#ifndef CLRSCOPE_AGENT_HEAPRECORD_H
#define CLRSCOPE_AGENT_HEAPRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "common/records.h"

#define HP_PART_BYTES (32u << 10)

struct heap_parts {
	struct cs_heap_head head; /* its objects, bytes and types grow with each entry */
	uint8_t *entries;         /* every entry, encoded back to back */
	size_t len, cap;
	size_t *ends; /* where each part's entries end */
	size_t nparts, parts_cap;
	size_t part_start;
};

/* Starts a snapshot's records with the head's time, seq, pause, walk and roots. */
void hp_init(struct heap_parts *w, const struct cs_heap_head *head) AGENT_HIDDEN;
/* false when out of memory (the snapshot is lost). */
bool hp_add(struct heap_parts *w, const char *type, uint64_t count, uint64_t bytes) AGENT_HIDDEN;
/* Writes every part; wait: from a thread that may wait for room in the
 * log (else a full buffer drops them). */
void hp_write(struct heap_parts *w, bool wait) AGENT_HIDDEN;
void hp_free(struct heap_parts *w) AGENT_HIDDEN;

#endif
