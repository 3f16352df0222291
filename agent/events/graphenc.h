/* The heap graph's bytes on their way from the GC thread to the log.  The
 * walk's objects, references and roots are encoded as they come into
 * records of their own kind (HEAP_NODES, HEAP_EDGES, HEAP_ROOTS), framed
 * records are packed into chunks, and a pump thread hands the chunks to
 * the log writer, waiting there for room.  The GC thread (the runtime
 * suspended) never waits: chunks are taken from memory up to a budget,
 * past which records are dropped and counted.
 *
 * One snapshot at a time: ge_start, the entries (from one thread at a
 * time), ge_finish. */
#ifndef CLRSCOPE_AGENT_GRAPHENC_H
#define CLRSCOPE_AGENT_GRAPHENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "common/records.h"

/* The memory chunks may take while the log writer catches up; more is
 * dropped.  Enough for the encoded graph of a heap of a few GiB, written
 * out while the collection still runs. */
#define GE_BUDGET_BYTES (512u << 20)

enum ge_stream { GE_NODES, GE_EDGES, GE_ROOTS, GE_STREAMS };

struct ge_totals {
	uint64_t entries[GE_STREAMS];
	uint64_t lost_records; /* dropped: past the budget, or refused by the log */
	uint64_t misaligned;   /* addresses off the heap's alignment (coded rounded down) */
	uint64_t queued_max;   /* the most bytes waiting in chunks at once */
};

/* Starts the pump for snapshot seq; -1 (with why) without memory or a
 * thread. */
int ge_start(uint64_t seq, char *why, size_t whylen) AGENT_HIDDEN;
void ge_node(const struct cs_graph_node *n) AGENT_HIDDEN;
void ge_edge(uint64_t target) AGENT_HIDDEN;
void ge_root(const struct cs_graph_root *r) AGENT_HIDDEN;
/* Closes the open records, waits until the pump handed every chunk to the
 * log writer, stops it and says what was written. */
void ge_finish(struct ge_totals *out) AGENT_HIDDEN;

/* A list record of the snapshot outside the walk (statics, methods,
 * types): the caller encodes the entries into ge_list's buffer, which
 * frames and writes it when full (ge_list_need) and at ge_list_end. */
struct ge_list {
	uint16_t type;
	uint64_t seq, first, n;
	size_t at;
	struct cs_out o;
	uint8_t buf[64u << 10];
	uint64_t lost;
};
void ge_list_begin(struct ge_list *l, uint16_t type, uint64_t seq) AGENT_HIDDEN;
/* Makes room for an entry of at most bytes (writing the record when it
 * would not fit), then counts it. */
void ge_list_need(struct ge_list *l, size_t bytes) AGENT_HIDDEN;
void ge_list_end(struct ge_list *l) AGENT_HIDDEN;

/* Writes framed records from a thread that may wait; false when dropped. */
bool ge_write(const void *records, size_t len, uint32_t nrecords) AGENT_HIDDEN;

#endif
